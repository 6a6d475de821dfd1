"""Values outside a criterion's domain: listed problems that count as the worst value.

A criterion may declare the interval of values it can take (``domain`` in the
rules, see :class:`srdash.judging.rules.Criterion`): R2 is at most 1, SRBench
simplicity at most 0 (a model has at least one component). A value outside it,
or an infinite value, cannot be a real measurement: an R2 of ``1.5``, ``inf`` or
``1e308`` would otherwise rank first. :func:`check_domains` replaces each such
value by NaN, which the ranking counts as the worst value (like a run that did
not finish), and lists it, so the verdict shows why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Statuses of runs whose model srdash refused to read: nothing was computed from them.
REFUSED_STATUSES = ("rejected", "parse_error")

__all__ = ["DomainCheck", "check_domains"]

# Problems listed per criterion before a count of the rest.
_MAX_LISTED = 10


@dataclass(frozen=True)
class DomainCheck:
    """The table with out-of-domain values replaced by NaN, and what was replaced.

    Attributes
    ----------
    table : DataFrame
        A new table (the input is not modified); unchanged columns are shared.
    problems : tuple of str
        One line per replaced value (the first 10 per criterion, then a count).
    """

    table: pd.DataFrame
    problems: tuple[str, ...]


def _bound(value: float) -> str:
    return "inf" if value == math.inf else "-inf" if value == -math.inf else f"{value:g}"


def _where(row: pd.Series) -> str:
    parts = [f"{key} {row[key]!r}" if key != "run" else f"run {row[key]}"
             for key in ("method", "dataset", "run") if key in row.index]
    return ", ".join(parts) or f"row {row.name}"


def check_domains(table: pd.DataFrame, rules) -> DomainCheck:
    """Replace values outside each criterion's domain (and infinite values) by NaN, listing them.

    Parameters
    ----------
    table : DataFrame
        Per-run table with the criteria columns.
    rules : Rules
        The criteria; only those with a ``domain`` are checked (their infinite
        values too, even when the domain is unbounded).

    Returns
    -------
    DomainCheck

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> rules = load_rules("srbench2022")  # accuracy: r2_test in [-inf, 1]
    >>> t = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0,
    ...                   "r2_test": [0.9, 1.5, float("inf")]})
    >>> checked = check_domains(t, rules)
    >>> checked.table["r2_test"].tolist()
    [0.9, nan, nan]
    >>> print(checked.problems[0])
    Criterion 'accuracy' (column 'r2_test'): method 'b', dataset 'd', run 0 has 1.5, outside its domain [-inf, 1]; counted as the worst value.
    """
    replaced: dict[str, pd.Series] = {}
    problems: list[str] = []
    refused = (table["status"].isin(REFUSED_STATUSES).to_numpy() if "status" in table.columns
               else np.zeros(len(table), dtype=bool))
    for criterion in rules.criteria:
        domain = getattr(criterion, "domain", None)
        if domain is None or criterion.column not in table.columns or criterion.column in replaced:
            continue
        values = pd.to_numeric(table[criterion.column], errors="coerce").astype(float)
        array = values.to_numpy()
        low, high = domain
        with np.errstate(invalid="ignore"):
            bad = ~np.isnan(array) & (np.isinf(array) | (array < low) | (array > high))
        if not bad.any():
            continue
        replaced[criterion.column] = values.mask(bad)
        # a refused model's worst value is said once, by its refusal (a problem with its reason)
        positions = np.flatnonzero(bad & ~refused)
        for position in positions[:_MAX_LISTED]:
            value = array[position]
            what = (f"has {value:g}, not a finite value" if np.isinf(value)
                    else f"has {value:g}, outside its domain [{_bound(low)}, {_bound(high)}]")
            problems.append(f"Criterion '{criterion.name}' (column '{criterion.column}'): "
                            f"{_where(table.iloc[position])} {what}; counted as the worst value.")
        if positions.size > _MAX_LISTED:
            problems.append(f"Criterion '{criterion.name}' (column '{criterion.column}'): ... and "
                            f"{positions.size - _MAX_LISTED} more values outside its domain, counted as the "
                            f"worst value.")
    if not replaced:
        return DomainCheck(table, ())
    return DomainCheck(table.assign(**replaced), tuple(problems))
