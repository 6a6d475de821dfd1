"""Submitted models scored on a dataset: R² and expression-tree size (SRBench 2023 track 1).

In 2023 each team submitted one model string per dataset. The organisers' scorer read it
with ``sympify``, computed R² on the dataset and counted the nodes of the sympy
expression tree *as submitted* (no simplification). :func:`score_submitted_models` does
the same with srdash's safe parser (:func:`srdash.expressions.parse_submitted_model`):
the strings are never executed. The resulting per-run table is judged by
:func:`srdash.judging.ranking.judge` under the ``srbench2023-track1`` presets.

Examples
--------
>>> import numpy as np, pandas as pd
>>> data = {"d1": pd.DataFrame({"x0": [0.0, 1.0, 2.0], "y": [1.0, 3.0, 5.0]})}
>>> models = pd.DataFrame({"team": ["a", "b"], "dataset": "d1", "model": ["2*x0 + 1", "x0"]})
>>> score_submitted_models(models, data)[["method", "r2_test", "size", "status"]]
  method  r2_test  size status
0      a     1.00     5     ok
1      b    -0.75     1     ok
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from srdash.errors import ModelRejected, Problem, ValidationError
from srdash.expressions import evaluate_expression, parse_submitted_model, tree_size
from srdash.judging.metrics import r2_score

__all__ = ["score_submitted_models"]

_REQUIRED = ("team", "dataset", "model")


def score_submitted_models(
    models: pd.DataFrame,
    datasets: Mapping[str, pd.DataFrame],
    *,
    target: str | None = None,
    source: str = "<models>",
) -> pd.DataFrame:
    """R² and tree size of each submitted model on its dataset.

    Parameters
    ----------
    models : DataFrame
        Columns ``team``, ``dataset``, ``model`` (the untrusted model strings).
    datasets : mapping of str to DataFrame
        Each dataset by name: feature columns and the target.
    target : str, optional, keyword-only
        Name of the target column (default: each dataset's last column, as in 2023).
    source : str, keyword-only
        Name of the models' file, for error messages.

    Returns
    -------
    DataFrame
        One row per model: ``method`` (the team), ``dataset``, ``run`` (0), ``model``,
        ``r2_test`` (R² on the dataset; NaN when the model was refused or its predictions
        are not all finite), ``size`` (nodes of the parsed, unsimplified tree; NaN when
        refused), ``status`` ('ok', 'rejected', 'not finite') and ``reason``. A missing
        value counts as the worst value when judged.

    Raises
    ------
    ValidationError
        When a column is missing (of the models, or the target of a dataset) or a row names an
        unknown dataset (row and column given).
    """
    missing = [c for c in _REQUIRED if c not in models.columns]
    if missing:
        raise ValidationError([Problem(source, None, c, f"the column '{c}' is missing; expected columns "
                                                        f"{', '.join(_REQUIRED)}.") for c in missing],
                              header="Cannot score the submitted models")
    unknown = [Problem(source, i + 1, "dataset", f"unknown dataset {name!r}; datasets: "
                                                 f"{', '.join(sorted(map(str, datasets)))}.")
               for i, name in enumerate(models["dataset"]) if name not in datasets]
    if unknown:
        raise ValidationError(unknown, header="Cannot score the submitted models")
    if target is not None:
        lacking = [Problem(str(name), None, target, f"the target column '{target}' is missing; columns: "
                                                    f"{', '.join(map(str, frame.columns))}.")
                   for name, frame in datasets.items() if target not in frame.columns]
        if lacking:
            raise ValidationError(lacking, header="Cannot score the submitted models")
    rows = []
    for team, dataset, text in zip(models["team"], models["dataset"], models["model"]):
        frame = datasets[dataset]
        y_name = target if target is not None else frame.columns[-1]
        features = [c for c in frame.columns if c != y_name]
        row = {"method": team, "dataset": dataset, "run": 0, "model": text,
               "r2_test": np.nan, "size": np.nan, "status": "ok", "reason": ""}
        try:
            expression = parse_submitted_model(text if isinstance(text, str) else "", features=features)
            row["size"] = tree_size(expression)
            predictions = evaluate_expression(expression, {f: frame[f].to_numpy() for f in features})
        except ModelRejected as exc:
            row.update(status="rejected", reason=str(exc), size=np.nan)
        else:
            if np.isfinite(predictions).all():
                row["r2_test"] = r2_score(frame[y_name].to_numpy(dtype=float), predictions)
            else:
                row.update(status="not finite", reason="some predictions are NaN or infinite; R² not defined")
        rows.append(row)
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "model", "r2_test", "size", "status", "reason"])
