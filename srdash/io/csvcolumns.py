"""Reading the needed columns of an untrusted CSV: the header first, bounded, then only those columns.

A 4 MB prediction CSV with 100,000 columns nobody asked for took 196 s and
1.2 GB to score, because every cell of every column was parsed, checked and
stripped. Here the header line is looked at first, with C-speed byte scans: a
file with more columns than its format allows, or a header line longer than
any honest one, is refused before its rows are read, naming the count. Then
only the needed columns are parsed. The work a file causes thus grows with its
rows of the needed columns, and every message is bounded and never quotes the
file's content beyond a shortened, escaped column name.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Sequence

from srdash.errors import Problem
from srdash.io.csvshape import check_csv_shape

__all__ = ["MAX_HEADER_BYTES", "MAX_SOLUTION_COLUMNS", "binary_problem", "read_csv_columns", "shown_names"]

#: Longest header line (bytes) of a prediction CSV: ``id,prediction`` is 13 bytes.
MAX_HEADER_BYTES = 4096
#: Most columns a solution CSV may have: ``id``, ``prediction`` and a few others, which are ignored
#: (an index column written by pandas, a copy of a sample submission's ``Usage``).
MAX_SOLUTION_COLUMNS = 10
_MAX_NAMES_SHOWN = 10
_MAX_ERROR_CHARS = 120


def _escaped(text: str, limit: int = 40) -> str:
    """A name from an untrusted file, quoted, control characters escaped, shortened."""
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return repr(text)


def shown_names(names: Sequence[str]) -> str:
    """Column names for a message: each quoted and shortened, the first 10, then a count.

    Examples
    --------
    >>> shown_names(["id", "x" * 50])
    "'id', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"
    >>> shown_names([f"c{i}" for i in range(12)])
    "'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9' and 2 more"
    """
    shown = ", ".join(_escaped(str(n)) for n in names[:_MAX_NAMES_SHOWN])
    return shown + (f" and {len(names) - _MAX_NAMES_SHOWN:,} more" if len(names) > _MAX_NAMES_SHOWN else "")


def binary_problem(data: bytes, source: str) -> Problem | None:
    """A problem if ``data`` holds a NUL byte (no text file does), else None; the content is not quoted.

    Examples
    --------
    >>> print(binary_problem(b"id,prediction\\x00\\n", "s.csv"))
    s.csv: is not a text file (byte 14 is a NUL byte; a UTF-16 file? save it as UTF-8).
    >>> binary_problem(b"1.5\\n", "s.txt") is None
    True
    """
    position = data.find(b"\x00")
    if position < 0:
        return None
    return Problem(source, None, None, f"is not a text file (byte {position + 1:,} is a NUL byte; a UTF-16 file? "
                                       f"save it as UTF-8).")


def _short_error(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 3] + "..."


def _header(data: bytes, source: str, required: Sequence[str],
            max_columns: int | None) -> tuple[list[str] | None, list[Problem]]:
    """The stripped header names, refusing a too wide or too long header line before parsing it."""
    start = re.match(rb"[\r\n]*", data).end()  # blank lines before the header are skipped, as pandas does
    ends = [position for position in (data.find(b"\n", start), data.find(b"\r", start)) if position >= 0]
    end = min(ends, default=len(data))
    expected = ", ".join(required)
    if max_columns is not None:
        separators = data.count(b",", start, end)
        about = "about " if b'"' in data[start:min(end, start + MAX_HEADER_BYTES)] else ""
        if separators + 1 > max_columns:
            return None, [Problem(source, None, None,
                                  f"its header line has {about}{separators + 1:,} columns; a solution CSV has the "
                                  f"columns {expected} and at most {max_columns} columns in all. Refused before its "
                                  f"rows are read; remove the other columns.")]
        if end - start > MAX_HEADER_BYTES:
            return None, [Problem(source, None, None,
                                  f"its header line is {end - start:,} bytes long; a solution CSV's header (columns "
                                  f"{expected}) is at most {MAX_HEADER_BYTES:,} bytes. Refused before its rows are "
                                  f"read.")]
        end = min(len(data), start + MAX_HEADER_BYTES + 1)
    head = bytes(data[start:end]).decode("utf-8-sig", errors="replace")
    try:  # the csv module, so that a quoted name may hold a comma (or a newline)
        header = next(csv.reader(io.StringIO(head, newline="")), [])
    except csv.Error as exc:
        return None, [Problem(source, None, None, f"its header cannot be read as CSV ({_short_error(exc)}).")]
    if max_columns is not None and len(header) > max_columns:
        return None, [Problem(source, None, None,
                              f"its header has {len(header):,} columns; a solution CSV has the columns {expected} "
                              f"and at most {max_columns} columns in all. Remove the other columns.")]
    return [name.strip() for name in header], []


def read_csv_columns(data: bytes, *, source: str, required: Sequence[str], max_columns: int | None = None):
    """The ``required`` columns of a CSV as stripped strings, after checking its header and shape.

    Parameters
    ----------
    data : bytes
        The file's content (read by :func:`srdash.io.files.read_file_bytes`).
    source : str, keyword-only
        The file, as named in messages.
    required : sequence of str, keyword-only
        The columns to read (any order in the file); other columns are not parsed.
    max_columns : int, optional, keyword-only
        Refuse a file with more columns, or a header line over :data:`MAX_HEADER_BYTES`,
        from a scan of its first line. None: no limit (the organisers' own files).

    Returns
    -------
    (DataFrame or None, list of Problem)
        The table (columns ``required``, empty cells as ``''``) and no problem, or
        None and the problems: too many columns, a missing or repeated required
        column, rows whose field count differs from the header's, text that is not
        UTF-8. Every message is bounded and quotes at most shortened column names.

    Examples
    --------
    >>> table, problems = read_csv_columns(b"prediction,id,extra\\n 1.5 ,a,zzz\\n", source="s.csv",
    ...                                    required=("id", "prediction"), max_columns=10)
    >>> table.to_dict("list"), problems
    ({'id': ['a'], 'prediction': ['1.5']}, [])
    >>> wide = b"id,prediction" + b",x" * 20 + b"\\n"
    >>> print(read_csv_columns(wide, source="w.csv", required=("id", "prediction"), max_columns=10)[1][0])
    w.csv: its header line has 22 columns; a solution CSV has the columns id, prediction and at most 10 columns in all. Refused before its rows are read; remove the other columns.
    """
    import pandas as pd  # lazy: the CLI's import path stays without pandas (tests/test_serve.py)

    expected = ", ".join(required)
    header, problems = _header(data, source, required, max_columns)
    if header is None:
        return None, problems
    if not any(header):
        return None, [Problem(source, None, None, f"the file is empty; expected a CSV with columns {expected}.")]
    missing = [c for c in required if c not in header]
    if missing:
        return None, [Problem(source, None, None,
                              f"missing column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}; "
                              f"expected {expected}; found {shown_names(header)}.")]
    repeated = [c for c in required if header.count(c) > 1]
    if repeated:
        return None, [Problem(source, None, c, f"the column appears {header.count(c)} times in the header; give "
                                               f"each column a distinct name.") for c in repeated]
    try:  # every row as wide as the header: no trailing-comma index column, no shifted values
        shape = check_csv_shape(data.decode("utf-8-sig"), source=source)
    except UnicodeDecodeError as exc:
        shape = [Problem(source, None, None, f"is not UTF-8 text (byte {exc.start + 1:,} cannot be decoded).")]
    if shape:
        return None, shape
    positions = [header.index(c) for c in required]
    try:
        table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, skip_blank_lines=False,
                            encoding="utf-8-sig", index_col=False, usecols=positions)
    except pd.errors.EmptyDataError:
        return None, [Problem(source, None, None, f"the file is empty; expected a CSV with columns {expected}.")]
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        return None, [Problem(source, None, None, f"cannot be read as CSV ({_short_error(exc)}).")]
    table = table.set_axis([header[p] for p in sorted(positions)], axis=1)  # usecols keeps the file's order
    return pd.DataFrame({c: table[c].fillna("").astype(str).str.strip() for c in required}), []
