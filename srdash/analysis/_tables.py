"""Shared input checks of the SRBench-lineage analyses (fronts, profiles, pairwise, resources, ratings, bayes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError

DIRECTIONS = ("higher", "lower")

#: What a block (one observation per method) of the tests over datasets is: a dataset (its runs
#: combined by their median), or a (dataset, seed) pair (SRBench 2025).
UNITS = ("dataset", "dataset-seed")

#: Family-wise corrections of a family of p-values (:mod:`srdash.analysis.pairwise`).
CORRECTIONS = ("holm", "bonferroni")

#: Column names of the run's seed, tried in this order when none is given.
SEED_COLUMNS = ("seed", "random_state", "run")

_BLOCK = "\x00block"


def method_column(table: pd.DataFrame, method: str | None) -> str:
    """The column naming the methods: ``method`` if given, else 'method' or SRBench's 'algorithm'."""
    if method is not None:
        return method
    for name in ("method", "algorithm"):
        if name in table.columns:
            return name
    return "method"


def check_columns(table: pd.DataFrame, columns: Sequence[str], *, what: str) -> None:
    """Raise one ValidationError listing every missing column (and the columns there are)."""
    missing = [c for c in dict.fromkeys(columns) if c not in table.columns]
    if missing:
        present = ", ".join(map(str, table.columns)) or "(none)"
        raise ValidationError([Problem("<table>", None, c, f"the column '{c}' is missing; columns: {present}.")
                               for c in missing], header=f"Cannot compute {what}")


def check_direction(name: str, value: str) -> None:
    if value not in DIRECTIONS:
        raise ValueError(f"The '{name}' option must be one of 'higher', 'lower'. Got {value!r}.")


def numeric(table: pd.DataFrame, column: str) -> pd.Series:
    """The column as floats; text that is not a number becomes NaN (a missing value)."""
    return pd.to_numeric(table[column], errors="coerce").astype(float)


def wide(table: pd.DataFrame, value: str, *, method: str, dataset: str) -> pd.DataFrame:
    """Datasets x methods matrix of ``value``; several runs of a (method, dataset) give their median.

    A (method, dataset) without a value is NaN.
    """
    frame = pd.DataFrame({"method": table[method].astype(str).to_numpy(),
                          "dataset": table[dataset].astype(str).to_numpy(),
                          "value": numeric(table, value).to_numpy()})
    matrix = frame.groupby(["dataset", "method"], sort=True)["value"].median().unstack("method")
    return matrix.sort_index(axis=0).sort_index(axis=1)


def oriented(values: np.ndarray, direction: str) -> np.ndarray:
    """Values such that higher is better."""
    return values if direction == "higher" else -values


def seed_column(table: pd.DataFrame, seed: str | None) -> str:
    """The column naming a run's seed: ``seed`` if given, else 'seed', 'random_state' or 'run'."""
    if seed is not None:
        return seed
    for name in SEED_COLUMNS:
        if name in table.columns:
            return name
    return "seed"


def blocks(table: pd.DataFrame, *, unit: str, dataset: str, seed: str | None) -> tuple[pd.DataFrame, str]:
    """The table and the column whose values are the blocks of the tests.

    ``unit='dataset'``: the dataset column itself. ``unit='dataset-seed'``: a new column
    holding the (dataset, seed) pair, so each run is its own block (a new table; the
    argument is not changed).
    """
    if unit not in UNITS:
        raise ValueError(f"The 'unit' option must be one of 'dataset', 'dataset-seed'. Got {unit!r}.")
    if unit == "dataset":
        return table, dataset
    seed = seed_column(table, seed)
    check_columns(table, [dataset, seed], what="tests with (dataset, seed) blocks")
    pair = table[dataset].astype(str) + " / seed " + table[seed].astype(str)
    return table.assign(**{_BLOCK: pair.to_numpy()}), _BLOCK


#: Columns SRBench derives from another when the table lacks them: name -> (source, how).
DERIVED = {"r2_zero_test": ("r2_test", "R2 clipped at 0 (SRBench's r2_zero_test = max(r2_test, 0))")}


def with_derived(table: pd.DataFrame, columns) -> pd.DataFrame:
    """The table with each of ``columns`` that it lacks and :data:`DERIVED` knows added (a new table)."""
    extra = {}
    for column in columns:
        if column in DERIVED and column not in table.columns and DERIVED[column][0] in table.columns:
            extra[column] = numeric(table, DERIVED[column][0]).clip(lower=0.0).to_numpy()
    return table.assign(**extra) if extra else table


def median_by_dataset(table: pd.DataFrame, *, metric: str, method: str, dataset: str, source: str) -> pd.DataFrame:
    """One row per dataset, one column per method: the median of ``metric`` over the runs (non-finite values
    missing); a missing column or a cell that is not a number is refused naming ``source``, row and column
    (``srdash analyse ratings`` and ``bayes``)."""
    for column in (method, dataset, metric):
        if column not in table.columns:
            raise SrdashError(f"{source}: no column {column!r}. Columns: {', '.join(map(str, table.columns))}.")
    values = pd.to_numeric(table[metric], errors="coerce")
    bad = values.isna() & table[metric].notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise SrdashError(f"{source}, row {row + 2}, column {metric!r}: not a number ({table[metric].iloc[row]!r}).")
    frame = pd.DataFrame({"method": table[method].astype(str), "dataset": table[dataset].astype(str),
                          "value": values.where(np.isfinite(values))})
    return frame.groupby(["dataset", "method"])["value"].median().unstack("method")
