"""Writing CSV files that are safe to open in a spreadsheet: the one way srdash writes a CSV.

Method names, dataset names, models, comments and reasons come from competitors
and judges. A spreadsheet opening a CSV runs a cell that starts with ``=``,
``+``, ``-`` or ``@`` as a formula (``=HYPERLINK(...)`` leaks data when clicked,
``-2+3+cmd|' /C calc'!A0`` starts a program through DDE), and a cell starting
with a tab or carriage return can hide such a formula. :func:`write_csv` writes
every text cell (and text column name or index label) that starts with one of
these characters with a leading apostrophe, which spreadsheets show as text
(OWASP, "CSV injection"). Numbers stay numbers: a numeric column's ``-1.5`` is
written as is, and so is a text cell that is a plain decimal number. The real
text is kept everywhere else (the verdict, JSON, Parquet); :func:`restore_text`
undoes the apostrophe when srdash reads its own CSV back.
"""

from __future__ import annotations

import csv
import re

from srdash.errors import SrdashError

__all__ = ["FORMULA_STARTS", "FORMULAS", "neutralise_cell", "neutralised", "restore_text", "write_csv"]

#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# A text cell that is a plain decimal number is a number to a spreadsheet, not a formula.
_PLAIN_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def neutralise_cell(value):
    """``value`` with a leading apostrophe if it is text a spreadsheet would run as a formula.

    Parameters
    ----------
    value : object
        A cell. Anything but a ``str`` is returned unchanged.

    Returns
    -------
    object

    Examples
    --------
    >>> neutralise_cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> neutralise_cell("-2+3+cmd|' /C calc'!A0")
    "'-2+3+cmd|' /C calc'!A0"
    >>> neutralise_cell("-1.5"), neutralise_cell(-1.5), neutralise_cell("Operon")
    ('-1.5', -1.5, 'Operon')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_DECIMAL.fullmatch(value):
        return "'" + value
    return value


def restore_text(value):
    """Undo :func:`neutralise_cell`: a text cell ``'`` + formula start loses its apostrophe.

    srdash reads back CSV files it wrote (a published leaderboard, a demo's
    results): their names and models must read as they were.

    Examples
    --------
    >>> restore_text("'=SUM(A1)"), restore_text("'quoted"), restore_text(3)
    ('=SUM(A1)', "'quoted", 3)
    """
    if isinstance(value, str) and value.startswith("'") and value[1:2] and value[1] in FORMULA_STARTS:
        return value[1:]
    return value


def _safe_labels(index):
    import pandas as pd

    if isinstance(index, pd.MultiIndex):
        return index.set_levels([_safe_labels(level) for level in index.levels])
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return index.map(neutralise_cell)
    return index


def neutralised(frame):
    """A copy of ``frame`` whose text cells, column names and index labels are safe in a spreadsheet.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        A new frame (the argument is not changed); numeric, boolean and date
        columns are kept as they are.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"method": ["@SUM(A1)", "ok"], "score": [-1.5, 2.0]})
    >>> neutralised(frame).to_dict("list")
    {'method': ["'@SUM(A1)", 'ok'], 'score': [-1.5, 2.0]}
    """
    import pandas as pd

    columns = {}
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if isinstance(column.dtype, pd.CategoricalDtype):
            column = column.cat.rename_categories(_safe_labels(column.cat.categories))
        elif column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
            column = column.map(neutralise_cell, na_action="ignore")
        columns[position] = column
    out = pd.concat(columns, axis=1) if columns else frame.copy()
    out.columns = _safe_labels(frame.columns)
    out.index = _safe_labels(frame.index)
    out.columns.names = [neutralise_cell(name) for name in frame.columns.names]
    out.index.names = [neutralise_cell(name) for name in frame.index.names]
    return out


#: What :func:`write_csv` does with formula-like text cells.
FORMULAS = ("neutralise", "keep")


def write_csv(frame, path=None, *, index: bool = False, formulas: str = "neutralise", **options):
    """Write ``frame`` as a CSV with every formula-like text cell neutralised (:func:`neutralised`).

    Every CSV srdash writes goes through this function
    (``tests/test_hostile.py`` fails on a new ``to_csv`` elsewhere).

    Parameters
    ----------
    frame : pandas.DataFrame
    path : path-like or file object, optional
        Where to write; None returns the text, as :meth:`pandas.DataFrame.to_csv`.
    index : bool, keyword-only
        Write the row labels (default False).
    formulas : {'neutralise', 'keep'}, keyword-only
        'keep' writes text as it is: only for data srdash generates itself from its own constants
        (the demo's input files, byte-identical to the copy shipped with srdash and read by any CSV
        reader), never for text that came from an input.
    **options
        Passed to :meth:`pandas.DataFrame.to_csv` (``float_format``, ``sep``, ...).

    Returns
    -------
    str or None

    Raises
    ------
    SrdashError
        For a ``formulas`` option other than 'neutralise' or 'keep'.

    Examples
    --------
    >>> import pandas as pd
    >>> print(write_csv(pd.DataFrame({"method": ["=1+1"], "r2": [-0.5]})), end="")
    method,r2
    '=1+1,-0.5
    """
    if formulas not in FORMULAS:
        raise SrdashError(f"The 'formulas' option must be one of 'neutralise', 'keep'. Got {formulas!r}.")
    if formulas == "keep":
        return frame.to_csv(path, index=index, **options)
    safe = neutralised(frame)
    if "quoting" not in options and _holds_carriage_return(safe):
        # csv quotes a field holding its line terminator ("\n") but not a bare CR, which readers take
        # as the end of a row: quote every text cell of such a file (numbers stay bare).
        options["quoting"] = csv.QUOTE_NONNUMERIC
    return safe.to_csv(path, index=index, **options)


def _holds_carriage_return(frame) -> bool:
    import pandas as pd

    labels = [*frame.columns, *frame.index]
    if any(isinstance(label, str) and "\r" in label for label in labels):
        return True
    columns = (frame.iloc[:, position] for position in range(frame.shape[1]))
    return any(column.map(lambda v: isinstance(v, str) and "\r" in v).any() for column in columns
               if column.dtype == object or pd.api.types.is_string_dtype(column.dtype))
