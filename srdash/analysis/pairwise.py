"""Pairwise tests between methods over datasets: Wilcoxon signed-rank with Holm correction,
and Friedman with the Conover post-hoc test.

The datasets are the sample; each method has one value per dataset (the median of its
runs). Both tests are two-sided.

**Wilcoxon / Holm.** For every pair of methods, :func:`scipy.stats.wilcoxon` (its defaults:
zero differences dropped, exact or normal distribution chosen by scipy) on the datasets
where both have a value. A pair whose differences are all zero gets p = 1. The m = k(k-1)/2
p-values are then corrected with Holm's step-down method: sorted ascending,
``p_(i) * (m - i + 1)``, made non-decreasing, capped at 1.

**Friedman / Conover.** Datasets with a missing value are left out (the test needs complete
blocks). On each of the N datasets the k methods are ranked (average ranks for ties); with
``R_j`` the rank sum of method j and ``A = sum of all squared ranks``, Conover (1999) compares
two methods with ``t = |R_i - R_j| / sqrt(2 (N A - sum_j R_j**2) / ((N - 1)(k - 1)))``, Student
t with ``(N - 1)(k - 1)`` degrees of freedom. The omnibus test is
:func:`scipy.stats.friedmanchisquare`. The post-hoc p-values are not adjusted unless
``p_adjust="holm"`` or ``p_adjust="bonferroni"``.

**Corrections.** Holm (above) or Bonferroni: every p-value times m, capped at 1. Both
control the family-wise error; Holm is uniformly more powerful, Bonferroni is what some
papers (SRBench 2025) report.

**Units.** ``unit="dataset"``: a block is a dataset, its runs combined by their median;
``unit="dataset-seed"``: a block is a (dataset, seed) pair, every run its own observation
(SRBench 2025). The seed column is ``seed``, else ``random_state``, else ``run``.

Reference: W. J. Conover (1999), Practical Nonparametric Statistics, 3rd ed., Wiley, sec. 5.8.

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"method": list("aaaaabbbbbccccc"), "dataset": list("vwxyz") * 3,
...                   "r2_test": [.9, .8, .85, .95, .7, .5, .4, .6, .55, .3, .6, .5, .7, .65, .4]})
>>> result = wilcoxon_holm(t)
>>> result.pairs[["method_a", "method_b", "p_value", "p_adjusted"]].round(4)
  method_a method_b  p_value  p_adjusted
0        a        b   0.0625      0.1875
1        a        c   0.0625      0.1875
2        b        c   0.0625      0.1875
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from srdash.analysis import _tables

__all__ = ["PairwiseTests", "wilcoxon_holm", "friedman_conover", "holm", "bonferroni", "adjust", "CORRECTIONS"]

#: Family-wise corrections of a family of p-values.
CORRECTIONS = _tables.CORRECTIONS


@dataclass(frozen=True)
class PairwiseTests:
    """p-values of every pair of methods.

    Attributes
    ----------
    pairs : DataFrame
        One row per pair (``method_a`` < ``method_b`` by name): ``statistic``, ``p_value``,
        ``p_adjusted`` (Holm; equal to ``p_value`` when not adjusted), ``datasets`` (used),
        ``better`` (the method with the higher median value, or '' when equal).
    p_values : DataFrame
        Square, symmetric matrix of ``p_adjusted`` (methods x methods; 1 on the diagonal).
    test : str
        ``'wilcoxon-holm'`` or ``'friedman-conover'``.
    statistic, p_value : float
        The omnibus Friedman test (NaN for Wilcoxon).
    n_datasets : int
        Blocks used (Friedman: complete blocks only): datasets, or (dataset, seed) pairs.
    notes : tuple of str
    correction : str
        ``'holm'``, ``'bonferroni'`` or ``'none'``.
    unit : {'dataset', 'dataset-seed'}
        What a block is.
    """

    pairs: pd.DataFrame
    p_values: pd.DataFrame
    test: str
    statistic: float = float("nan")
    p_value: float = float("nan")
    n_datasets: int = 0
    notes: tuple[str, ...] = ()
    correction: str = "holm"
    unit: str = "dataset"


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(4).tolist()  # sorted 0.01*3, 0.03*2, 0.04*1 -> max so far
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    adjusted = np.empty(m)
    adjusted[order] = scaled
    return adjusted


def bonferroni(p_values) -> np.ndarray:
    """Bonferroni adjustment of a family of m p-values: ``min(1, m * p)``.

    Examples
    --------
    >>> bonferroni([0.01, 0.04, 0.03]).round(4).tolist()  # m = 3: 0.03, 0.12, 0.09
    [0.03, 0.12, 0.09]
    """
    p = np.asarray(p_values, dtype=float)
    return np.minimum(1.0, p * p.size)


def adjust(p_values, correction: str) -> np.ndarray:
    """``holm(p_values)`` or ``bonferroni(p_values)`` by name (see :data:`CORRECTIONS`)."""
    if correction not in CORRECTIONS:
        raise ValueError(f"The 'correction' option must be one of 'holm', 'bonferroni'. Got {correction!r}.")
    return holm(p_values) if correction == "holm" else bonferroni(p_values)


def _square(pairs: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    square = np.ones((len(methods), len(methods)))
    position = {name: i for i, name in enumerate(methods)}
    rows = [position[a] for a in pairs["method_a"]]
    columns = [position[b] for b in pairs["method_b"]]
    square[rows, columns] = square[columns, rows] = pairs["p_adjusted"].to_numpy(dtype=float)
    return pd.DataFrame(square, index=pd.Index(methods, name="method"), columns=methods)


def _better(x: np.ndarray, y: np.ndarray, a: str, b: str) -> str:
    difference = float(np.median(x - y)) if x.size else 0.0
    return a if difference > 0 else b if difference < 0 else ""


def wilcoxon_holm(
    table: pd.DataFrame,
    *,
    value: str = "r2_test",
    method: str | None = None,
    dataset: str = "dataset",
    correction: str = "holm",
    unit: str = "dataset",
    seed: str | None = None,
) -> PairwiseTests:
    """Wilcoxon signed-rank p-values for every pair of methods, Holm- (or Bonferroni-) corrected.

    Parameters
    ----------
    table : DataFrame
        One row per (method, dataset) or per run (runs combined by their median).
    value : str, keyword-only
    method : str, optional, keyword-only
        Column of the method names (default 'method', else 'algorithm').
    dataset : str, keyword-only
    correction : {'holm', 'bonferroni'}, keyword-only
    unit : {'dataset', 'dataset-seed'}, keyword-only
        What a block (a pair of the signed-rank test) is; see the module docstring.
    seed : str, optional, keyword-only
        Column of the seeds with ``unit='dataset-seed'`` (default 'seed', 'random_state' or 'run').

    Returns
    -------
    PairwiseTests

    Raises
    ------
    ValidationError
        When a column is missing.
    ValueError
        With fewer than two methods, or an unknown option.
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"The 'correction' option must be one of 'holm', 'bonferroni'. Got {correction!r}.")
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, dataset, value], what="pairwise Wilcoxon tests")
    table, block = _tables.blocks(table, unit=unit, dataset=dataset, seed=seed)
    matrix = _tables.wide(table, value, method=method, dataset=block)
    methods = list(matrix.columns)
    if len(methods) < 2:
        raise ValueError(f"Pairwise tests need at least two methods. Got {len(methods)}.")
    rows, notes = [], []
    values = matrix.to_numpy(dtype=float)  # columns as arrays: a DataFrame per pair cost 0.5 ms of 0.9
    for (i, a), (j, b) in itertools.combinations(enumerate(methods), 2):
        both = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
        x, y = values[both, i], values[both, j]
        if x.size == 0 or np.all(x == y):
            statistic, p = np.nan, 1.0
            notes.append(f"{a} and {b} have no differing dataset; p = 1.")
        else:
            result = stats.wilcoxon(x, y)
            statistic, p = float(result.statistic), float(result.pvalue)
        rows.append({"method_a": a, "method_b": b, "statistic": statistic, "p_value": p,
                     "datasets": int(x.size), "better": _better(x, y, a, b)})
    pairs = pd.DataFrame(rows)
    pairs.insert(4, "p_adjusted", adjust(pairs["p_value"].to_numpy(), correction))
    return PairwiseTests(pairs=pairs, p_values=_square(pairs, methods), test="wilcoxon-holm",
                         n_datasets=int(matrix.dropna(how="all").shape[0]), notes=tuple(notes),
                         correction=correction, unit=unit)


def friedman_conover(
    table: pd.DataFrame,
    *,
    value: str = "r2_test",
    method: str | None = None,
    dataset: str = "dataset",
    p_adjust: str | None = None,
    unit: str = "dataset",
    seed: str | None = None,
) -> PairwiseTests:
    """Friedman test and Conover's post-hoc p-values for every pair of methods.

    Parameters
    ----------
    table : DataFrame
    value, method, dataset : keyword-only
        As in :func:`wilcoxon_holm`.
    p_adjust : {None, 'holm', 'bonferroni'}, keyword-only
        Adjustment of the post-hoc p-values.
    unit, seed : keyword-only
        As in :func:`wilcoxon_holm`.

    Returns
    -------
    PairwiseTests

    Raises
    ------
    ValidationError
        When a column is missing.
    ValueError
        With fewer than three methods, fewer than two complete datasets, or an unknown
        ``p_adjust``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"method": list("aaabbbccc"), "dataset": list("xyz") * 3,
    ...                   "r2_test": [3, 3, 3, 2, 2, 1, 1, 1, 2]})
    >>> result = friedman_conover(t)

    Rank sums R = (9, 5, 4), A = 42, N = k = 3: chi2 = 12 * 122 / 36 - 36 = 4.667; the
    Conover denominator is sqrt(2 (3 * 42 - 122) / 4) = sqrt(2), so t(a, b) = 4 / sqrt(2)
    with 4 degrees of freedom:

    >>> round(result.statistic, 3), result.pairs["p_value"].round(4).tolist()
    (4.667, [0.0474, 0.0241, 0.5185])
    """
    if p_adjust not in (None, *CORRECTIONS):
        raise ValueError(f"The 'p_adjust' option must be None, 'holm' or 'bonferroni'. Got {p_adjust!r}.")
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, dataset, value], what="the Friedman and Conover tests")
    table, block = _tables.blocks(table, unit=unit, dataset=dataset, seed=seed)
    matrix = _tables.wide(table, value, method=method, dataset=block)
    methods = list(matrix.columns)
    if len(methods) < 3:
        raise ValueError(f"The Friedman test needs at least three methods. Got {len(methods)}.")
    complete = matrix.dropna()
    notes = []
    if len(complete) < len(matrix):
        what = "dataset(s)" if unit == "dataset" else "(dataset, seed) block(s)"
        notes.append(f"{len(matrix) - len(complete)} {what} with a missing value left out (the Friedman "
                     f"test needs every method on every dataset).")
    n, k = complete.shape
    if n < 2:
        raise ValueError(f"The Friedman test needs at least two datasets with a value for every method. Got {n}.")
    values = complete.to_numpy(dtype=float)
    friedman = stats.friedmanchisquare(*values.T)
    ranks = stats.rankdata(values, axis=1)
    rank_sums = ranks.sum(axis=0)
    total_squares = float((ranks ** 2).sum())
    denominator = np.sqrt(2 * (n * total_squares - float((rank_sums ** 2).sum())) / ((n - 1) * (k - 1)))
    degrees = (n - 1) * (k - 1)
    rows = []
    for (i, a), (j, b) in itertools.combinations(enumerate(methods), 2):
        difference = abs(rank_sums[i] - rank_sums[j])
        if denominator > 0:
            statistic = difference / denominator
            p = float(2 * stats.t.sf(statistic, degrees))
        else:  # every dataset ranks the methods the same way with no spread: no evidence either way
            statistic, p = np.nan, 1.0
        rows.append({"method_a": a, "method_b": b, "statistic": float(statistic), "p_value": p,
                     "datasets": int(n),
                     "better": a if rank_sums[i] > rank_sums[j] else b if rank_sums[j] > rank_sums[i] else ""})
    pairs = pd.DataFrame(rows)
    adjusted = adjust(pairs["p_value"].to_numpy(), p_adjust) if p_adjust else pairs["p_value"].to_numpy()
    pairs.insert(4, "p_adjusted", adjusted)
    return PairwiseTests(pairs=pairs, p_values=_square(pairs, methods), test="friedman-conover",
                         statistic=float(friedman.statistic), p_value=float(friedman.pvalue),
                         n_datasets=int(n), notes=tuple(notes), correction=p_adjust or "none", unit=unit)
