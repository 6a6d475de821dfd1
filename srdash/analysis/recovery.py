"""Ground-truth recovery: SRBench's "symbolic solution" rule and solution rates.

**The rule** (SRBench 2021, ``experiment/assess_symbolic_model.py`` of cavalab/srbench): a
model is checked only when its test R² passes SRBench's gate, ``r2_test > 0.5``; it is then
a *symbolic solution* when ``truth - model`` or ``model / truth`` is a constant (so a model
equal to the truth up to an added constant or up to a non-zero factor is a solution), with
floats rounded to 3 decimals as SRBench did (below 0.001 they become 0). The symbolic work
is done by :func:`srdash.expressions.equivalence_table` (safe parse, every sympy step under a
hard time limit; a timeout counts as not a solution, a model simplifying to 0 is not one).
Differences from the 2021 script: the model is simplified before the difference (the 2021
script rounded the unsimplified difference), and floats are rounded as exact decimals (see
:func:`srdash.expressions.equivalence_table`).

**Solution rates** as SRBench draws them: per method and noise level, the mean over datasets
of the solution rate (%), with a bootstrap percentile interval over datasets.

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"algorithm": ["A"] * 4, "target_noise": [0, 0, 0.01, 0.01],
...                   "symbolic_solution_rate_(%)": [100.0, 50.0, 0.0, 10.0]})
>>> solution_rates(t, n_bootstrap=0).table[["method", "noise", "rate", "datasets"]]
  method  noise  rate  datasets
0      A   0.00  75.0         2
1      A   0.01   5.0         2
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.analysis import _tables
from srdash.errors import ModelRejected
from srdash.expressions import complexity_table, equivalence_table, expression_tree, parse_submitted_model
# the distance lives beside the measures the rules can name ('tree-edit-distance'); re-exported here
from srdash.expressions.tree_distance import TreeTooLarge, tree_edit_distance, tree_nodes

__all__ = ["Recovery", "SolutionRates", "symbolic_solutions", "solution_rates", "SRBENCH_R2_GATE",
           "tree_edit_distance", "normalised_edit_distances"]

#: SRBench checks a model for a symbolic solution only when its test R² exceeds this.
SRBENCH_R2_GATE = 0.5


@dataclass(frozen=True)
class Recovery:
    """Symbolic-solution verdict of each model.

    Attributes
    ----------
    table : DataFrame
        The input rows plus ``checked`` (R² passed the gate), ``solution`` (bool) and
        ``detail`` (why).
    r2_gate : float
    """

    table: pd.DataFrame
    r2_gate: float


def symbolic_solutions(
    table: pd.DataFrame,
    *,
    model: str = "model",
    truth: str = "true_model",
    r2: str = "r2_test",
    r2_gate: float = SRBENCH_R2_GATE,
    features=None,
    timeout: float = 10.0,
    jobs: int = 1,
) -> Recovery:
    """Apply SRBench's symbolic-solution rule to each row (model, truth, R²).

    Parameters
    ----------
    table : DataFrame
        One row per model, with the model string, its ground truth and its test R².
    model, truth, r2 : str, keyword-only
        Column names.
    r2_gate : float, keyword-only
        Only models with ``R² > r2_gate`` are checked; the others are not solutions.
    features : keyword-only
        Allowed variable names, as in :func:`srdash.expressions.equivalence_table`.
    timeout : float, keyword-only
        Hard time limit of each symbolic step, in seconds.
    jobs : int, keyword-only
        Worker processes.

    Returns
    -------
    Recovery

    Raises
    ------
    ValidationError
        When a column is missing.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["x1*x2 + 3", "2.5*x1*x2", "x1 + x2", "x1*x2"],
    ...                   "true_model": ["x1*x2"] * 4, "r2_test": [0.99, 0.9, 0.2, 0.4]})
    >>> symbolic_solutions(t).table[["checked", "solution"]].values.tolist()
    [[True, True], [True, True], [False, False], [False, False]]
    """
    _tables.check_columns(table, [model, truth, r2], what="symbolic solutions")
    out = table.copy()
    scores = _tables.numeric(table, r2).to_numpy()
    with np.errstate(invalid="ignore"):
        checked = scores > r2_gate
    solution = np.zeros(len(table), dtype=bool)
    detail = np.array([f"not checked: R² = {s:.4g} is not above the gate {r2_gate:g}" if not np.isnan(s)
                       else "not checked: no R²" for s in scores], dtype=object)
    rows = np.flatnonzero(checked)
    if rows.size:
        verdicts = equivalence_table([table[model].iloc[i] for i in rows], [table[truth].iloc[i] for i in rows],
                                     features=features, timeout=timeout, jobs=jobs)
        for i, (equivalent, why) in zip(rows, verdicts):
            solution[i] = equivalent
            detail[i] = why
    out["checked"] = checked
    out["solution"] = solution
    out["detail"] = detail
    return Recovery(table=out, r2_gate=float(r2_gate))


@dataclass(frozen=True)
class SolutionRates:
    """Mean solution rate per method and noise level.

    Attributes
    ----------
    table : DataFrame
        ``method``, ``noise``, ``rate`` (mean over datasets, %), ``low``, ``high`` (bootstrap
        percentile interval; NaN without bootstrap), ``datasets``; methods by their mean
        rate over noise levels, best first.
    confidence : float
    """

    table: pd.DataFrame
    confidence: float


def solution_rates(
    table: pd.DataFrame,
    *,
    value: str | None = None,
    method: str | None = None,
    noise: str = "target_noise",
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> SolutionRates:
    """Solution rate per method and noise level (SRBench's ground-truth figure).

    Parameters
    ----------
    table : DataFrame
        One row per (method, dataset, noise[, run]): either a rate in % (SRBench's
        ``symbolic_solution_rate_(%)``) or a boolean ``solution`` (from
        :func:`symbolic_solutions`), counted as 100 or 0.
    value : str, optional, keyword-only
        The column (default: 'solution' if present, else 'symbolic_solution_rate_(%)').
    method : str, optional, keyword-only
        Column of the method names (default 'method', else 'algorithm').
    noise : str, keyword-only
        Column of the noise level.
    n_bootstrap, confidence, seed : keyword-only
        Bootstrap over the rows of each (method, noise) group.

    Returns
    -------
    SolutionRates

    Raises
    ------
    ValidationError
        When a column is missing.
    """
    if value is None:
        value = "solution" if "solution" in table.columns else "symbolic_solution_rate_(%)"
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, noise, value], what="solution rates")
    raw = table[value]
    rates = raw.astype(float) * 100.0 if raw.dtype == bool else _tables.numeric(table, value)
    frame = pd.DataFrame({"method": table[method].astype(str).to_numpy(),
                          "noise": pd.to_numeric(table[noise], errors="coerce").to_numpy(),
                          "rate": rates.to_numpy()}).dropna(subset=["rate"])
    rng = np.random.default_rng(seed)
    tail = (1 - confidence) / 2
    rows = []
    for (name, level), group in frame.groupby(["method", "noise"], sort=True):
        values = group["rate"].to_numpy()
        low = high = np.nan
        if n_bootstrap > 0 and values.size:
            means = values[rng.integers(0, values.size, size=(n_bootstrap, values.size))].mean(axis=1)
            low, high = np.quantile(means, [tail, 1 - tail])
        rows.append({"method": name, "noise": float(level), "rate": float(values.mean()),
                     "low": float(low), "high": float(high), "datasets": int(values.size)})
    out = pd.DataFrame(rows, columns=["method", "noise", "rate", "low", "high", "datasets"])
    order = out.groupby("method")["rate"].mean().sort_values(ascending=False, kind="stable")
    out["_order"] = out["method"].map({m: i for i, m in enumerate(order.index)})
    out = out.sort_values(["_order", "noise"], kind="stable").drop(columns="_order").reset_index(drop=True)
    return SolutionRates(table=out, confidence=float(confidence))


# --------------------------------------------------------------------------- tree edit distance (SRSD)


def normalised_edit_distances(
    models,
    truths,
    *,
    simplify: bool = True,
    features=None,
    timeout: float = 10.0,
    jobs: int = 1,
    cache=False,
) -> pd.DataFrame:
    """The SRSD benchmark's normalised tree edit distance of each model to its ground truth.

    ``NED = min(1, d(model, truth) / |truth|)``: ``d`` is :func:`tree_edit_distance` between
    the expression trees (numbers labelled ``'c'``, so constants' values do not count),
    ``|truth|`` the number of nodes of the truth's tree. 0 is the truth's exact form, 1 is as
    far as it gets. With ``simplify`` both sides are first simplified by
    :func:`srdash.expressions.complexity_table` (``sympy.simplify`` under a hard time limit,
    floats rounded to 3 decimals; on a timeout the unsimplified expression is used); without
    it the trees are those of the strings as parsed. A model that cannot be parsed gets 1. A tree
    above :data:`srdash.expressions.tree_distance.MAX_TREE_NODES` nodes gets no distance (its cost
    bound): NED 1 when the model has at least twice the truth's nodes (``d >= |model| - |truth|``),
    else NaN, with the reason in ``detail``.

    Parameters
    ----------
    models, truths : sequence of str
        Untrusted model strings and their ground truths (same length).
    simplify : bool, keyword-only
    features, timeout, jobs, cache : keyword-only
        As in :func:`srdash.expressions.complexity_table`.

    Returns
    -------
    DataFrame
        ``distance`` (edits), ``truth_nodes``, ``ned`` (in [0, 1], lower is better) and
        ``detail`` (why a model got 1 without a distance).

    Examples
    --------
    The truth ``Mul(x1, sin(x2))`` has 4 nodes. ``x1*cos(x2)``: one relabel; ``2*x1*sin(x2) + 1``
    is ``Add(1, Mul(2, x1, sin(x2)))``: three insertions; the third simplifies to the truth:

    >>> normalised_edit_distances(["x1*cos(x2)", "2*x1*sin(x2) + 1", "x1*x1*sin(x2)/x1"],
    ...                           ["x1*sin(x2)"] * 3)[["distance", "truth_nodes", "ned"]]
       distance  truth_nodes   ned
    0       1.0            4  0.25
    1       3.0            4  0.75
    2       0.0            4  0.00
    """
    models, truths = list(models), list(truths)
    if len(models) != len(truths):
        raise ValueError(f"models and truths must have the same length. Got {len(models)} and {len(truths)}.")
    if simplify:
        table = complexity_table(models + truths, features=features, timeout=timeout, jobs=jobs, cache=cache)
        texts = [text if status in ("ok", "timeout", "simplify_error") else None
                 for text, status in zip(table["simplified"], table["status"])]
        reasons = list(table["reason"])
    else:
        texts, reasons = [t if isinstance(t, str) else None for t in models + truths], [""] * (2 * len(models))
    trees: list = []
    for text, reason in zip(texts, reasons):
        try:
            trees.append(expression_tree(parse_submitted_model(text, features=None)) if text else reason
                         or "no model")
        except ModelRejected as exc:
            trees.append(str(exc))
    rows = []
    for model_tree, truth_tree in zip(trees[:len(models)], trees[len(models):]):
        if isinstance(truth_tree, str):
            rows.append({"distance": np.nan, "truth_nodes": 0, "ned": np.nan, "detail": f"truth: {truth_tree}"})
            continue
        size = tree_nodes(truth_tree)
        if isinstance(model_tree, str):
            rows.append({"distance": np.nan, "truth_nodes": size, "ned": 1.0, "detail": f"model: {model_tree}"})
            continue
        try:
            distance = float(tree_edit_distance(model_tree, truth_tree))
        except TreeTooLarge as exc:
            # d >= |model| - |truth|: a model of at least twice the truth's nodes is at NED 1 without d
            whole = tree_nodes(model_tree) >= 2 * size
            rows.append({"distance": np.nan, "truth_nodes": size, "ned": 1.0 if whole else np.nan,
                         "detail": f"{exc}" + (" NED is 1: the model has at least twice the truth's nodes."
                                               if whole else "")})
            continue
        ned = min(1.0, distance / size)
        rows.append({"distance": distance, "truth_nodes": size, "ned": ned, "detail": ""})
    return pd.DataFrame(rows, columns=["distance", "truth_nodes", "ned", "detail"])
