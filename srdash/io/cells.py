"""One cell of an untrusted table read as text, a number or missing, by one rule for every reader.

A cell is *missing* when it is empty, ``nan``, ``NA``, ``N/A``, ``null`` or ``None`` (any case);
a number is plain ASCII (:data:`PLAIN_NUMBER`: no underscores, no other scripts' digits, which
Python's ``float()`` would accept). Messages quote a cell shortened and escaped
(:func:`shown_cell`), never whole. The results loader (:mod:`srdash.io.loading`) and the resource
columns (:func:`number_cells`) read cells through here.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from srdash.errors import Problem
from srdash.io.csvsafe import restore_text
from srdash.io.csvshape import MAX_LISTED_PROBLEMS

__all__ = ["MISSING_TOKENS", "PLAIN_NUMBER", "is_missing", "as_text", "as_number", "as_integer", "shown_cell",
           "number_cells"]

#: Text cells that mean "missing" (compared trimmed and lowercased).
MISSING_TOKENS = frozenset({"", "nan", "na", "n/a", "null", "none"})


def is_missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return isinstance(value, str) and value.strip().lower() in MISSING_TOKENS


def as_text(value) -> str | None:
    """Text of a cell, or None when it is missing or blank."""
    if is_missing(value):
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (list, tuple, np.ndarray)):
        return " ".join(str(v) for v in value) or None
    # A CSV srdash wrote keeps its names and models: the apostrophe before a formula-like cell goes.
    text = restore_text(value) if isinstance(value, str) else str(value)
    return text if text.strip() else None


#: What a number in a results file may look like: ASCII digits, an optional sign, point and
#: exponent, or inf/nan; no underscores, no other scripts' digits (Arabic-Indic, fullwidth),
#: which Python's float() accepts. The same rule as prediction files, read by pandas' C parser.
PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
                          re.IGNORECASE | re.ASCII)
_PLAIN_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)


def as_number(value) -> tuple[float, bool]:
    """(number, ok); missing cells give (nan, True), non-numbers (nan, False)."""
    if is_missing(value):
        return math.nan, True
    if isinstance(value, (bool, np.bool_)):
        return math.nan, False
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value), True
    if isinstance(value, str):
        text = value.strip()
        if not PLAIN_NUMBER.fullmatch(text):  # float() would read '١٢٣', '１２' and '1_000'
            return math.nan, False
        return float(text), True
    return math.nan, False


def as_integer(value) -> int | None:
    if isinstance(value, (bool, np.bool_)) or is_missing(value):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str) and _PLAIN_INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    number, ok = as_number(value)
    if ok and math.isfinite(number) and number == int(number):
        return int(number)
    return None


def shown_cell(value, limit: int = 40) -> str:
    """A cell for a message: quoted, escaped, shortened (a message never carries a whole cell)."""
    text = value.strip() if isinstance(value, str) else _plain(value)
    if isinstance(text, str) and len(text) > limit:
        text = text[: limit - 3] + "..."
    return repr(text)


def number_cells(cells, *, source: str, column: str, rows=None, minimum: float | None = None,
                 what: str = "a metric column") -> tuple[np.ndarray, list[Problem]]:
    """Read the cells of a number column by the rule of metric columns; a problem per bad cell.

    A cell is a plain ASCII number (:data:`PLAIN_NUMBER`) or missing (empty, ``nan``,
    ``NA``, ...: NaN, not a problem). With ``minimum``, a value must also be finite
    and at least ``minimum`` (``1e999`` is infinite).

    Parameters
    ----------
    cells : sequence
        The column's cells (text or numbers).
    source : str, keyword-only
        The file, as named in messages.
    column : str, keyword-only
    rows : sequence of int, optional, keyword-only
        Each cell's 1-based data row (default 1, 2, ...).
    minimum : float, optional, keyword-only
        The smallest value allowed; None allows any number, infinities included (as metric columns do).
    what : str, keyword-only
        What the column is, for messages.

    Returns
    -------
    (ndarray of float, list of Problem)
        The values (NaN where missing or bad) and one problem per bad cell: the first
        10, then a count.

    Examples
    --------
    >>> values, problems = number_cells(["1.5", "", "lots", "-5", "1e999"], source="r.csv", column="kWh",
    ...                                 minimum=0, what="a resource column")
    >>> values.tolist()[:2]
    [1.5, nan]
    >>> for p in problems: print(p)
    r.csv, row 3, column 'kWh': 'lots' is not a number; a resource column holds numbers (empty means missing).
    r.csv, row 4, column 'kWh': '-5' is below 0; a resource column holds finite numbers of at least 0.
    r.csv, row 5, column 'kWh': '1e999' is not finite; a resource column holds finite numbers of at least 0.
    """
    cells = list(cells)
    rows = range(1, len(cells) + 1) if rows is None else rows
    values = np.full(len(cells), np.nan)
    problems: list[Problem] = []
    bad = 0
    for position, (row, value) in enumerate(zip(rows, cells)):
        number, ok = as_number(value)
        if not ok:
            message = f"{shown_cell(value)} is not a number; {what} holds numbers (empty means missing)."
        elif minimum is not None and not math.isnan(number) and not math.isfinite(number):
            message = f"{shown_cell(value)} is not finite; {what} holds finite numbers of at least {minimum:g}."
        elif minimum is not None and number < minimum:
            message = f"{shown_cell(value)} is below {minimum:g}; {what} holds finite numbers of at least {minimum:g}."
        else:
            values[position] = number
            continue
        bad += 1
        if bad <= MAX_LISTED_PROBLEMS:
            problems.append(Problem(source, int(row), column, message))
    if bad > MAX_LISTED_PROBLEMS:
        problems.append(Problem(source, None, column, f"... and {bad - MAX_LISTED_PROBLEMS:,} more cells that are not "
                                                      f"valid (the first {MAX_LISTED_PROBLEMS} are listed above)."))
    return values, problems


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value
