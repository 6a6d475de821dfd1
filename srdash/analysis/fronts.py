"""Pareto fronts of methods by median accuracy and median model size (the SRBench figure).

Each method is placed at the median over datasets of its accuracy and of its model size
(*value space*), or of its per-dataset ranks on each (*rank space*: on each dataset the
methods are ranked, 1 = best, ties share the average rank, a missing result ranks last).
Fronts come from non-dominated sorting: a method **dominates** another when it is at least
as good on both objectives and strictly better on one; **front 1** is the set of methods no
other method dominates, front 2 the non-dominated set of the rest, and so on. Methods at
the same point (duplicates) do not dominate each other and share a front; a method tied
with another on one objective and better on the other dominates it.

The uncertainty of each position is a bootstrap over datasets: datasets are drawn with
replacement ``n_bootstrap`` times, the medians recomputed, and the percentile interval at
``confidence`` reported (``<objective>_low``, ``<objective>_high``).

Examples
--------
>>> import numpy as np
>>> front_numbers(np.array([[0.9, 10], [0.8, 5], [0.8, 12], [0.9, 10]]), directions=("higher", "lower"))
array([1, 1, 2, 1])
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.analysis import _tables

__all__ = ["ParetoFronts", "front_numbers", "pareto_fronts", "dataset_ranks", "SPACES", "RANK_RULES"]

#: Where methods are placed: median values, or median per-dataset ranks.
SPACES = ("value", "rank")

#: How the per-dataset ranks of rank space are computed:
#: ``srdash``: the values as they are (ties share the average rank), a missing value ranks last;
#: ``srbench2021``: SRBench's 2021 black-box notebook -- each value rounded to 3 decimals first
#: (``round(x, 3).rank()``, ties share the average rank), a missing value not ranked and left out
#: of the method's median. With it, srdash's ranks are SRBench's published ones.
RANK_RULES = ("srdash", "srbench2021")
_RANK_DECIMALS = 3


def front_numbers(points: np.ndarray, *, directions: tuple[str, ...]) -> np.ndarray:
    """Non-dominated sorting: the front of each point (1 = non-dominated).

    Parameters
    ----------
    points : array of shape (n, m)
        One row per method, one column per objective; NaN rows are placed on the last
        front plus one.
    directions : tuple of {'higher', 'lower'}, keyword-only
        Which values of each objective are better.

    Returns
    -------
    numpy.ndarray of int, shape (n,)

    Examples
    --------
    (0.9, 10) and (0.8, 5) trade off (front 1); (0.8, 12) is dominated by both; the
    duplicate of (0.9, 10) shares its front:

    >>> front_numbers(np.array([[0.9, 10], [0.8, 5], [0.8, 12], [0.9, 10]]), directions=("higher", "lower"))
    array([1, 1, 2, 1])
    """
    points = np.asarray(points, dtype=float)
    for i, direction in enumerate(directions):
        _tables.check_direction(f"directions[{i}]", direction)
    better = np.column_stack([_tables.oriented(points[:, i], d) for i, d in enumerate(directions)])
    fronts = np.zeros(len(better), dtype=int)
    valid = ~np.isnan(better).any(axis=1)
    remaining = np.flatnonzero(valid)
    front = 0
    while remaining.size:
        front += 1
        candidates = better[remaining]
        # dominated[i]: some j is >= i everywhere and > i somewhere
        at_least = (candidates[None, :, :] >= candidates[:, None, :]).all(axis=2)
        strictly = (candidates[None, :, :] > candidates[:, None, :]).any(axis=2)
        dominated = (at_least & strictly).any(axis=1)
        fronts[remaining[~dominated]] = front
        remaining = remaining[dominated]
    fronts[~valid] = front + 1
    return fronts


@dataclass(frozen=True)
class ParetoFronts:
    """Methods placed by median accuracy and median size, with their fronts.

    Attributes
    ----------
    table : DataFrame
        One row per method, by front then name: ``method``, ``<x>``, ``<y>`` (medians over
        datasets, or median ranks in rank space), ``front`` (1 = non-dominated),
        ``<x>_low``, ``<x>_high``, ``<y>_low``, ``<y>_high`` (bootstrap percentile
        interval), ``datasets`` (datasets with a value of both objectives).
    names : tuple of str
        The two objectives' names in the table (default ``('accuracy', 'size')``).
    columns : tuple of str
        The input columns they come from.
    directions : tuple of str
        Which values are better, as placed (rank space: both 'lower').
    space : {'value', 'rank'}
    n_bootstrap : int
    confidence : float
    """

    table: pd.DataFrame
    names: tuple[str, str]
    columns: tuple[str, str]
    directions: tuple[str, str]
    space: str
    n_bootstrap: int
    confidence: float

    def front(self, number: int = 1) -> tuple[str, ...]:
        """The methods on front ``number`` (1 = non-dominated), by name."""
        return tuple(self.table.loc[self.table["front"] == number, "method"].sort_values())


def _ranks_best_first(matrix: np.ndarray, direction: str, rule: str = "srdash") -> np.ndarray:
    """Per row (dataset), rank the columns (methods): 1 = best, ties average; NaN last (tied) with the
    ``srdash`` rule, or rounded to 3 decimals first and NaN left unranked with ``srbench2021``."""
    if rule == "srbench2021":
        rounded = np.round(matrix, _RANK_DECIMALS)  # numpy rounds half to even, as pandas' round()
        return pd.DataFrame(_tables.oriented(rounded, direction)).rank(
            axis=1, method="average", ascending=False, na_option="keep").to_numpy()
    worst = -np.inf
    values = np.where(np.isnan(matrix), worst, _tables.oriented(matrix, direction))
    return pd.DataFrame(values).rank(axis=1, method="average", ascending=False).to_numpy()


def dataset_ranks(
    table: pd.DataFrame,
    *,
    value: str = "r2_test",
    direction: str = "higher",
    method: str | None = None,
    dataset: str = "dataset",
    rule: str = "srdash",
) -> pd.DataFrame:
    """The per-dataset rank (1 = best) of each method on one column, as rank space places them.

    Parameters
    ----------
    table : DataFrame
        One row per (method, dataset) or per run (runs combined by their median first).
    value : str, keyword-only
    direction : {'higher', 'lower'}, keyword-only
    method : str, optional, keyword-only
    dataset : str, keyword-only
    rule : {'srdash', 'srbench2021'}, keyword-only
        See :data:`RANK_RULES`.

    Returns
    -------
    DataFrame
        ``dataset``, ``method``, ``value`` (the median over runs), ``rank``.

    Examples
    --------
    0.8004 and 0.8001 are apart as values but tie once rounded to 3 decimals:

    >>> t = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "r2_test": [0.8004, 0.8001, 0.5]})
    >>> dataset_ranks(t)["rank"].tolist(), dataset_ranks(t, rule="srbench2021")["rank"].tolist()
    ([1.0, 2.0, 3.0], [1.5, 1.5, 3.0])
    """
    if rule not in RANK_RULES:
        raise ValueError(f"The 'rank_rule' option must be one of 'srdash', 'srbench2021'. Got {rule!r}.")
    _tables.check_direction("direction", direction)
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, dataset, value], what="per-dataset ranks")
    matrix = _tables.wide(table, value, method=method, dataset=dataset)
    ranks = _ranks_best_first(matrix.to_numpy(dtype=float), direction, rule)
    frame = pd.DataFrame(ranks, index=matrix.index, columns=matrix.columns)
    out = pd.DataFrame({"value": matrix.stack(future_stack=True), "rank": frame.stack(future_stack=True)})
    return out.rename_axis(["dataset", "method"]).reset_index()


def _bootstrap_medians(matrix: np.ndarray, *, n_bootstrap: int, seed: int) -> np.ndarray:
    """(n_bootstrap, methods) medians over datasets drawn with replacement (NaN ignored)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, matrix.shape[0], size=(n_bootstrap, matrix.shape[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: a method absent from a draw
        return np.nanmedian(matrix[draws], axis=1)


def pareto_fronts(
    table: pd.DataFrame,
    *,
    accuracy: str = "r2_test",
    size: str = "model_size",
    accuracy_direction: str = "higher",
    size_direction: str = "lower",
    method: str | None = None,
    dataset: str = "dataset",
    space: str = "value",
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    names: tuple[str, str] = ("accuracy", "size"),
    rank_rule: str = "srdash",
) -> ParetoFronts:
    """Pareto fronts of the methods by median accuracy and median size over datasets.

    Parameters
    ----------
    table : DataFrame
        One row per (method, dataset) or per run; runs of a (method, dataset) are
        combined with their median first.
    accuracy, size : str, keyword-only
        Columns of the two objectives (any two objectives: see ``names``). ``r2_zero_test`` (R2
        clipped at 0, SRBench's value-space medians) is derived from ``r2_test`` when absent.
    accuracy_direction, size_direction : {'higher', 'lower'}, keyword-only
    method : str, optional, keyword-only
        Column of the method names (default 'method', else SRBench's 'algorithm').
    dataset : str, keyword-only
    space : {'value', 'rank'}, keyword-only
        Median values, or median per-dataset ranks (1 = best; a missing value ranks last).
        In value space a missing value is left out of the method's median.
    n_bootstrap : int, keyword-only
        Bootstrap resamples of the datasets for the intervals (0: no intervals, NaN).
    confidence : float, keyword-only
        Coverage of the percentile intervals.
    seed : int, keyword-only
    names : (str, str), keyword-only
        Names of the two objectives in the result.
    rank_rule : {'srdash', 'srbench2021'}, keyword-only
        How rank space ranks (see :data:`RANK_RULES`); value space does not rank.

    Returns
    -------
    ParetoFronts

    Raises
    ------
    ValidationError
        When a column is missing.
    ValueError
        For an unknown ``space`` or direction, or ``confidence`` outside (0, 1).

    Examples
    --------
    >>> t = pd.DataFrame({"method": list("aabbcc"), "dataset": ["d1", "d2"] * 3,
    ...                   "r2_test": [0.9, 0.7, 0.6, 0.6, 0.5, 0.5], "model_size": [30, 10, 5, 5, 8, 8]})
    >>> fronts = pareto_fronts(t, n_bootstrap=0)
    >>> fronts.table[["method", "accuracy", "size", "front"]]
      method  accuracy  size  front
    0      a       0.8  20.0      1
    1      b       0.6   5.0      1
    2      c       0.5   8.0      2
    """
    if space not in SPACES:
        raise ValueError(f"The 'space' option must be one of 'value', 'rank'. Got {space!r}.")
    if rank_rule not in RANK_RULES:
        raise ValueError(f"The 'rank_rule' option must be one of 'srdash', 'srbench2021'. Got {rank_rule!r}.")
    if not 0 < confidence < 1:
        raise ValueError(f"The 'confidence' option must be between 0 and 1. Got {confidence!r}.")
    _tables.check_direction("accuracy_direction", accuracy_direction)
    _tables.check_direction("size_direction", size_direction)
    method = _tables.method_column(table, method)
    table = _tables.with_derived(table, [accuracy, size])  # r2_zero_test from r2_test, as SRBench
    _tables.check_columns(table, [method, dataset, accuracy, size], what="Pareto fronts")
    matrices = [_tables.wide(table, column, method=method, dataset=dataset) for column in (accuracy, size)]
    methods = sorted(set(matrices[0].columns) | set(matrices[1].columns))
    datasets = sorted(set(matrices[0].index) | set(matrices[1].index))
    arrays = [m.reindex(index=datasets, columns=methods).to_numpy(dtype=float) for m in matrices]
    directions = (accuracy_direction, size_direction)
    both = ~np.isnan(arrays[0]) & ~np.isnan(arrays[1])
    if space == "rank":
        arrays = [_ranks_best_first(a, d, rank_rule) for a, d in zip(arrays, directions)]
        directions = ("lower", "lower")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a method without any value: NaN
        medians = [np.nanmedian(a, axis=0) for a in arrays]
    out = pd.DataFrame({"method": methods, names[0]: medians[0], names[1]: medians[1]})
    out["front"] = front_numbers(np.column_stack(medians), directions=directions)
    tail = (1 - confidence) / 2
    for name, array in zip(names, arrays):
        if n_bootstrap > 0:
            draws = _bootstrap_medians(array, n_bootstrap=n_bootstrap, seed=seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                out[f"{name}_low"] = np.nanquantile(draws, tail, axis=0)
                out[f"{name}_high"] = np.nanquantile(draws, 1 - tail, axis=0)
        else:
            out[f"{name}_low"] = np.nan
            out[f"{name}_high"] = np.nan
    out["datasets"] = both.sum(axis=0)
    out = out.sort_values(["front", "method"], kind="stable").reset_index(drop=True)
    return ParetoFronts(table=out, names=tuple(names), columns=(accuracy, size), directions=directions,
                        space=space, n_bootstrap=int(n_bootstrap), confidence=float(confidence))
