"""The shape of a CSV text: every row as wide as its header, checked before pandas reads it.

pandas reads misaligned rows silently or with a misleading message (a trailing separator makes it take
the first column as the row index). :func:`check_csv_shape` says what it found and what to do; results
files (:mod:`srdash.io.loading`) and prediction CSVs (:mod:`srdash.io.csvcolumns`) are checked with it.
Standard library only: no pandas is imported to check a file.
"""

from __future__ import annotations

import csv
import io

from srdash.errors import Problem

__all__ = ["check_csv_shape", "MAX_LISTED_PROBLEMS"]

#: The most problems of one kind listed one by one (bad rows here, bad cells in
#: :func:`srdash.io.cells.number_cells`); the rest are counted.
MAX_LISTED_PROBLEMS = 10


def check_csv_shape(text: str, *, source: str, sep: str = ",") -> list[Problem]:
    """Problems with the shape of a CSV text: every row must have as many fields as the header.

    pandas reads misaligned rows silently or with a misleading message: when
    every data row has one field more than the header (rows ending with a
    separator), it takes the first column as the row index, so that methods
    vanish and every column shifts. This check says what it found and what to do.

    Parameters
    ----------
    text : str
        The file's text.
    source : str, keyword-only
        The file, as named in messages.
    sep : str, keyword-only
        The field separator.

    Returns
    -------
    list of Problem
        One per misaligned row (the first 10, then a count), rows numbered from
        1 after the header (blank lines skipped, as pandas does); or one for a
        header that looks separated by another character.

    Examples
    --------
    >>> for p in check_csv_shape("method,dataset,r2\\nA,d1,0.5,\\nB,d1,0.7,\\n", source="r.csv"):
    ...     print(p)
    r.csv, row 1: has 4 fields but the header has 3 (method, dataset, r2); the row ends with an extra ',' (trailing separator): pandas would take the first column as the row index and shift every column. Remove the trailing separators, or name the extra column in the header.
    r.csv, row 2: has 4 fields but the header has 3 (method, dataset, r2); the row ends with an extra ',' (trailing separator): pandas would take the first column as the row index and shift every column. Remove the trailing separators, or name the extra column in the header.
    >>> check_csv_shape("method,dataset\\nA,d1\\n", source="r.csv")
    []
    """
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    try:
        header = next(rows, None)
        while header is not None and not header:
            header = next(rows, None)
        if header is None:
            return []
        width = len(header)
        # Escaped: a header of control characters (NUL bytes, terminal escapes) is never echoed as is.
        shown_header = "".join(c if c.isprintable() else repr(c)[1:-1] for c in ", ".join(h.strip() for h in header))
        if len(shown_header) > 120:
            shown_header = shown_header[:117] + "..."
        problems: list[Problem] = []
        if width == 1:
            other = next((c for c in (";", "\t", ",", "|") if c != sep and c in header[0]), None)
            if other is not None:
                shown = {"\t": "tab", ",": "','", ";": "';'", "|": "'|'"}[other]
                expected = "tab" if sep == "\t" else f"'{sep}'"
                return [Problem(source, None, None,
                                f"the header is a single column that contains {shown}: the file looks separated "
                                f"by {shown}, but this file type is read with {expected}. Save it with {expected} "
                                f"as the separator (or name it {'.csv' if sep == chr(9) else '.tsv'} for "
                                f"{'commas' if sep == chr(9) else 'tabs'}).")]
        bad = 0
        number = 0
        for fields in rows:
            if not fields:
                continue
            number += 1
            if len(fields) == width:
                continue
            bad += 1
            if bad > MAX_LISTED_PROBLEMS:
                continue
            shown_sep = "tab" if sep == "\t" else f"'{sep}'"
            if len(fields) == width + 1 and not fields[-1].strip():
                advice = (f"the row ends with an extra {shown_sep} (trailing separator): pandas would take the "
                          f"first column as the row index and shift every column. Remove the trailing "
                          f"separators, or name the extra column in the header.")
            elif len(fields) > width:
                advice = (f"a value probably contains the separator {shown_sep} without quotes (e.g. a model "
                          f"such as max(x1, x2)): put such values in double quotes.")
            else:
                advice = "every row needs a value (possibly empty) for each column of the header."
            problems.append(Problem(source, number, None, f"has {len(fields)} fields but the header has "
                                                          f"{width} ({shown_header}); {advice}"))
        if bad > MAX_LISTED_PROBLEMS:
            problems.append(Problem(source, None, None, f"... and {bad - MAX_LISTED_PROBLEMS} more rows whose "
                                                        f"field count differs from the header's."))
        return problems
    except csv.Error as exc:
        return [Problem(source, None, None, f"is not a valid CSV file ({exc}); check the quotes.")]
