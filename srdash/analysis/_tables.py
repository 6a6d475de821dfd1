"""Shared input checks of the SRBench-lineage analyses (fronts, profiles, pairwise, resources)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from srdash.errors import Problem, ValidationError

DIRECTIONS = ("higher", "lower")


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
