"""Values outside a criterion's domain: listed problems that count as the worst value.

A criterion may declare the interval of values it can take (``domain`` in the
rules, see :class:`srdash.judging.rules.Criterion`): R2 is at most 1, SRBench
simplicity at most 0 (a model has at least one component). A value outside it,
or an infinite value, cannot be a real measurement: an R2 of ``1.5``, ``inf`` or
``1e308`` would otherwise rank first. :func:`check_domains` replaces each such
value by NaN, which the ranking counts as the worst value (like a run that did
not finish), and lists it, so the verdict shows why.

It also says when the rules themselves leave a criterion deciding nothing
(:func:`undecided_criteria`): a weight of 0, or a rounding or a tie tolerance
that ties every value of the criterion on every dataset although the values
differ (``tie_tolerance = 1e300`` tied every method on every criterion without a
word).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Statuses of runs whose model srdash refused to read: nothing was computed from them.
REFUSED_STATUSES = ("rejected", "parse_error")

__all__ = ["DomainCheck", "check_domains", "undecided_criteria"]

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
        Its problems end with the notes of :func:`undecided_criteria`.

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
    checked = table.assign(**replaced) if replaced else table
    return DomainCheck(checked, tuple(problems) + undecided_criteria(checked, rules))


def _spans(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Max minus min of the finite values of each dataset (rows sorted by dataset, each starting at
    ``starts``); NaN for a dataset without any finite value."""
    finite = np.where(np.isfinite(values), values, np.nan)
    with np.errstate(invalid="ignore"):
        return np.fmax.reduceat(finite, starts) - np.fmin.reduceat(finite, starts)


def undecided_criteria(table: pd.DataFrame, rules) -> tuple[str, ...]:
    """Notes on the criteria the rules leave deciding nothing on this table.

    A criterion with weight 0 is not counted; one whose per-run values, rounded to
    its ``decimals`` (per run) or compared within ``tie_tolerance``, tie on every
    dataset although they differ on some ranks every method alike. Values that are
    equal in the data say nothing about the rules and are not noted.

    Parameters
    ----------
    table : DataFrame
        Per-run table with ``dataset`` and the criteria columns (out-of-domain values already NaN).
    rules : Rules

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> rules = load_rules("srbench2022").with_options(ties="tolerance", tie_tolerance=1e6,
    ...                                                 weights={"property": 0})
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.5],
    ...                   "simplicity": [-1.0, -2.0], "property": [1.0, 0.0]})
    >>> for note in undecided_criteria(t, rules):
    ...     print(note)
    Criterion 'property' has weight 0: it decides nothing (its ranks are shown, not counted in the score).
    Criterion 'accuracy' (column 'r2_test'): within the tie_tolerance 1e+06 its values tie on every dataset: it ranks every method alike and decides nothing.
    Criterion 'simplicity' (column 'simplicity'): within the tie_tolerance 1e+06 its values tie on every dataset: it ranks every method alike and decides nothing.
    """
    notes = [f"Criterion '{c.name}' has weight 0: it decides nothing (its ranks are shown, not counted in the "
             "score)." for c in rules.criteria if c.weight == 0]
    tolerant = rules.ties == "tolerance"
    candidates = [c for c in rules.criteria if c.weight > 0 and c.column in table.columns
                  and (tolerant or (c.decimals is not None and c.rounding in ("both", "per-run")))]
    if "dataset" not in table.columns or not candidates or table.empty:
        return tuple(notes)
    # rows sorted by dataset once: each criterion's spans per dataset are then two reductions
    codes, _ = pd.factorize(table["dataset"])
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    for c in candidates:
        raw = pd.to_numeric(table[c.column], errors="coerce").to_numpy(dtype=float)[order]
        raw_spans = _spans(raw, starts)
        if not np.nan_to_num(raw_spans, nan=0.0).max() > 0:  # equal in the data: not the rules' doing
            continue
        values = raw
        rounded = c.decimals is not None and c.rounding in ("both", "per-run")
        if rounded:
            values = np.round(values, c.decimals)
        if c.normalisation == "min-max-table":  # after the per-run rounding, as the ranking does
            finite = values[np.isfinite(values)]
            low, high = finite.min(), finite.max()
            values = (values - low) / (high - low) if high > low else values * 0.0
        spans = _spans(values, starts)
        spans = spans[~np.isnan(spans)]
        what = None
        if rounded and (spans <= 0).all():
            what = f"rounded to {c.decimals} decimals"
        elif tolerant and (spans < rules.tie_tolerance).all():
            what = f"within the tie_tolerance {rules.tie_tolerance:g}"
        if what:
            notes.append(f"Criterion '{c.name}' (column '{c.column}'): {what} its values tie on every dataset: it "
                         "ranks every method alike and decides nothing.")
    return tuple(notes)
    for c in rules.criteria:
        if c.weight == 0 or c.column not in table.columns:
            continue
        raw = pd.to_numeric(table[c.column], errors="coerce").astype(float)
        values = raw
        rounded = c.decimals is not None and c.rounding in ("both", "per-run")
        if rounded:
            values = values.round(c.decimals)
        if c.normalisation == "min-max-table":  # after the per-run rounding, as the ranking does
            finite = values[np.isfinite(values)]
            if len(finite):
                low, high = finite.min(), finite.max()
                values = (values - low) / (high - low) if high > low else values * 0.0
        _, differ = _ties_everywhere(raw, table["dataset"], 0.0)
        if not differ:
            continue
        what = None
        if rounded and _ties_everywhere(values, table["dataset"], 0.0)[0]:
            what = f"rounded to {c.decimals} decimals"
        elif rules.ties == "tolerance" and _ties_everywhere(values, table["dataset"], rules.tie_tolerance)[0]:
            what = f"within the tie_tolerance {rules.tie_tolerance:g}"
        if what:
            notes.append(f"Criterion '{c.name}' (column '{c.column}'): {what} its values tie on every dataset: it "
                         "ranks every method alike and decides nothing.")
    return tuple(notes)
