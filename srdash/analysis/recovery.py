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


def _postorder(tree: tuple) -> tuple[list[str], list[int]]:
    """Labels in postorder and, for each node, the postorder index of its leftmost leaf."""
    labels: list[str] = []
    leftmost: list[int] = []
    frames = [[tree, 0, None]]
    while frames:
        frame = frames[-1]
        node, position, first_leaf = frame
        if position < len(node[1]):
            frame[1] += 1
            frames.append([node[1][position], 0, None])
            continue
        frames.pop()
        index = len(labels)
        labels.append(node[0])
        leaf = first_leaf if first_leaf is not None else index
        leftmost.append(leaf)
        if frames and frames[-1][2] is None:
            frames[-1][2] = leaf  # the first finished child gives its parent's leftmost leaf
    return labels, leftmost


def tree_edit_distance(first: tuple, second: tuple) -> int:
    """Ordered tree edit distance with unit costs (insert, delete, relabel), Zhang and Shasha (1989).

    Parameters
    ----------
    first, second : tuple
        Trees as nested ``(label, children)`` tuples (see
        :func:`srdash.expressions.expression_tree`).

    Returns
    -------
    int

    Examples
    --------
    >>> leaf = lambda name: (name, ())
    >>> tree_edit_distance(("Mul", (leaf("x1"), ("sin", (leaf("x2"),)))),
    ...                    ("Mul", (leaf("x1"), ("cos", (leaf("x2"),)))))  # relabel sin -> cos
    1
    >>> tree_edit_distance(("f", (leaf("a"),)), ("g", (("f", (leaf("a"),)), leaf("b"))))  # insert g and b
    2
    """
    labels_a, left_a = _postorder(first)
    labels_b, left_b = _postorder(second)
    keyroots_a = sorted({leaf: i for i, leaf in enumerate(left_a)}.values())
    keyroots_b = sorted({leaf: j for j, leaf in enumerate(left_b)}.values())
    distance = [[0] * len(labels_b) for _ in labels_a]
    for i in keyroots_a:
        for j in keyroots_b:
            li, lj = left_a[i], left_b[j]
            rows, cols = i - li + 2, j - lj + 2
            forest = [[0] * cols for _ in range(rows)]
            for x in range(1, rows):
                forest[x][0] = x
            for y in range(1, cols):
                forest[0][y] = y
            for x in range(1, rows):
                a = li + x - 1
                for y in range(1, cols):
                    b = lj + y - 1
                    if left_a[a] == li and left_b[b] == lj:
                        forest[x][y] = min(forest[x - 1][y] + 1, forest[x][y - 1] + 1,
                                           forest[x - 1][y - 1] + (labels_a[a] != labels_b[b]))
                        distance[a][b] = forest[x][y]
                    else:
                        forest[x][y] = min(forest[x - 1][y] + 1, forest[x][y - 1] + 1,
                                           forest[left_a[a] - li][left_b[b] - lj] + distance[a][b])
    return distance[-1][-1]


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
    it the trees are those of the strings as parsed. A model that cannot be parsed gets 1.

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
        size = len(_postorder(truth_tree)[0])
        if isinstance(model_tree, str):
            rows.append({"distance": np.nan, "truth_nodes": size, "ned": 1.0, "detail": f"model: {model_tree}"})
            continue
        distance = tree_edit_distance(model_tree, truth_tree)
        rows.append({"distance": float(distance), "truth_nodes": size, "ned": min(1.0, distance / size),
                     "detail": ""})
    return pd.DataFrame(rows, columns=["distance", "truth_nodes", "ned", "detail"])
