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

from srdash.cache import cache_key, file_digest
from srdash.errors import ModelRejected, Problem, ValidationError
from srdash.expressions import evaluate_expression, parse_submitted_model, tree_size
from srdash.judging.evaluation import exact_r2_score, open_store
from srdash.judging.measures import DATA_PARTITION_PREFIX
from srdash.judging.metrics import r2_score

__all__ = ["score_submitted_models", "r2_on_data"]

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
        except ModelRejected as exc:
            row.update(status="rejected", reason=str(exc), size=np.nan)
        else:
            r2, status, reason = _r2_of(expression, {f: frame[f].to_numpy() for f in features},
                                        frame[y_name].to_numpy(dtype=float))
            row.update(r2_test=r2, status=status, reason=reason)
        rows.append(row)
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "model", "r2_test", "size", "status", "reason"])


def _r2_of(expression, columns: Mapping[str, np.ndarray], y: np.ndarray) -> tuple[float, str, str]:
    """(R², status, reason) of a parsed model on data, as the 2023 scorer computed it but with correctly
    rounded sums (:func:`~srdash.judging.evaluation.exact_r2_score`: the same to the last bit whatever the
    rows' order); not rounded; a model whose predictions are not all finite has no R² (NaN, the worst value
    when judged)."""
    try:
        predictions = evaluate_expression(expression, columns)
    except ModelRejected as exc:
        return np.nan, "rejected", str(exc)
    if not np.isfinite(predictions).all():
        return np.nan, "not finite", "some predictions are NaN or infinite; R² not defined"
    r2 = exact_r2_score(y, predictions)
    if np.isnan(r2):  # a constant target: srdash's documented rule (a warning and NaN)
        r2 = r2_score(y, predictions)
    return float(r2), "ok", ""


# 2: values from fixed-name generated code (no sympy Dummy counter) and correctly rounded sums.
_R2_PROCEDURE = "srdash-measure/r2-on-data/2"


def r2_on_data(runs: pd.DataFrame, datasets, *, column: str = "r2_test", cache=False) -> pd.DataFrame:
    """The ``r2-on-data`` measure: R² of each run's model on its dataset's file (SRBench 2023 track 1).

    The model is parsed as submitted (:func:`srdash.expressions.parse_submitted_model`, the
    whitelist; never executed), evaluated on the partition named by ``column``
    (``r2_test``: the ``test`` file of the dataset's description) and scored with R², not
    rounded. Each distinct (model, dataset) is computed once and kept in the cache.

    Parameters
    ----------
    runs : DataFrame
        ``method``, ``dataset``, ``model``. Not modified.
    datasets : DatasetTable
        Descriptions naming each dataset's files (:func:`srdash.io.datasets.load_dataset_table`).
    column : str, keyword-only
        ``r2_<partition>``.
    cache : False, None, path or ResultCache, keyword-only
        As in :func:`srdash.judging.evaluation.evaluate_runs` (rows of kind ``measure``).

    Returns
    -------
    DataFrame
        Same index as ``runs``: ``value`` (NaN when the model was refused, its
        predictions are not all finite or its dataset has no such file), ``status``
        ('ok', 'rejected', 'parse_error', 'not finite', 'no_data') and ``reason``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from srdash.io.datasets import load_dataset_table
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"x0": [0.0, 1.0, 2.0], "y": [1.0, 3.0, 5.0]}).to_csv(folder / "d1.csv", index=False)
    >>> _ = (folder / "datasets.yaml").write_text(
    ...     "datasets:\\n  - {name: d1, files: {test: d1.csv}, target: y, property: none}\\n")
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d1", "model": ["2*x0 + 1", "x0"]})
    >>> r2_on_data(runs, load_dataset_table(folder / "datasets.yaml"))[["value", "status"]]
       value status
    0   1.00     ok
    1  -0.75     ok
    """
    partition = column[len(DATA_PARTITION_PREFIX):] if column.startswith(DATA_PARTITION_PREFIX) else column
    out = pd.DataFrame({"value": np.nan, "status": "ok", "reason": ""}, index=runs.index)
    store = open_store(cache)
    try:
        for dataset, rows in runs.groupby("dataset", sort=True):
            if dataset not in datasets or partition not in datasets[dataset].files:
                known = ", ".join(datasets[dataset].files) if dataset in datasets else "none (not described)"
                out.loc[rows.index, "status"] = "no_data"
                out.loc[rows.index, "reason"] = (f"dataset {dataset!r} has no {partition!r} file in "
                                                 f"{datasets.source}; files: {known}")
                continue
            spec = datasets[dataset]
            computed = _cached_r2(store, rows["model"], spec, partition, lambda: datasets.read(dataset, partition))
            for index, model in zip(rows.index, rows["model"]):
                value, status, reason = computed[model if isinstance(model, str) else None]
                out.loc[index, "value"], out.loc[index, "status"], out.loc[index, "reason"] = value, status, reason
    finally:
        if store is not None and store is not cache:
            store.close()
    out["value"] = out["value"].astype(float)
    return out


def _cached_r2(store, models, spec, partition, read) -> dict:
    """{model: (R², status, reason)} for the distinct models; the cache first, the file read only if needed."""
    import sqlite3

    distinct = [m for m in dict.fromkeys(models) if isinstance(m, str)]
    results: dict = {None: (np.nan, "parse_error", "the run has no model")}
    keys: dict = {}
    if store is not None:
        try:
            settings = {"procedure": _R2_PROCEDURE, "target": str(spec.target),
                        "file": file_digest(spec.files[partition])}
            keys = {m: cache_key(m, spec.features, settings) for m in distinct}
            found = store.get_many(keys.values(), kind="measure")
        except (OSError, sqlite3.Error):
            keys, found = {}, {}
        for model, key in keys.items():
            entry = found.get(key)
            if entry is not None:
                value = entry.get("value")
                results[model] = (np.nan if value is None else float(value), entry["outcome"], entry["reason"])
    new = [m for m in distinct if m not in results]
    if new:
        part = read()
        for model in new:
            try:
                expression = parse_submitted_model(model, features=spec.features)
            except ModelRejected as exc:
                results[model] = (np.nan, exc.status, exc.reason)
            else:
                results[model] = _r2_of(expression, part.columns, part.target)
    if store is not None and keys and new:
        entries = [(keys[m], {"status": "ok", "value": None if np.isnan(results[m][0]) else results[m][0],
                              "outcome": results[m][1], "reason": results[m][2]}) for m in new]
        try:
            store.put_many(entries, kind="measure")
        except (OSError, sqlite3.Error):
            pass  # a cache that cannot be written costs time, not results
    return results
