"""Reading a results input into raw cells that remember where each row came from.

A CSV/TSV file (optionally compressed) is read with every cell as text, after its size and shape are
checked (:mod:`srdash.io.files`, :mod:`srdash.io.csvshape`); a Parquet file through the bounded reader;
a folder of SRBench JSON files (one run per file, searched recursively) with repeated keys refused;
a DataFrame as given (never modified). The result, :class:`RawResults`, is not validated yet:
:mod:`srdash.io.resultcolumns` applies the column rule and :func:`srdash.io.loading.load_results`
assembles the verdict of both.
"""

from __future__ import annotations

import functools
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.cells import as_text
from srdash.io.csvshape import check_csv_shape
from srdash.io.files import (FileRefused, check_table_size, expanded_bytes, read_file_bytes, read_file_text,
                             read_parquet_bytes)

__all__ = ["DATAFRAME_NAME", "FEATURE_COLUMNS", "RawResults", "existing_path", "read_results", "read_table_file",
           "refuse_duplicate_header", "with_clean_header"]

#: Columns whose value, a list of names, supplies a dataset's feature names.
FEATURE_COLUMNS = ("features", "feature_names")
_CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.zip", ".csv.xz")
_TSV_SUFFIXES = (".tsv", ".tsv.gz", ".tsv.bz2", ".tsv.zip", ".tsv.xz")
_PARQUET_SUFFIXES = (".parquet", ".pq")
_SUPPORTED = "a .csv or .tsv file (optionally compressed), a .parquet file, or a folder of .json result files"
#: How a DataFrame input is named in messages.
DATAFRAME_NAME = "<DataFrame>"


@dataclass(frozen=True)
class RawResults:
    """Input values before validation, with where each row came from."""

    frame: pd.DataFrame
    name: str                      # the input as named in messages
    row_sources: tuple[str, ...]   # per row: the file it came from
    row_numbers: tuple[int | None, ...]  # per row: 1-based data row, None for a JSON file
    sources: tuple[str, ...]

    def problem(self, position: int | None, column: str | None, message: str) -> Problem:
        if position is None:
            return Problem(self.name, None, column, message)
        return Problem(self.row_sources[position], self.row_numbers[position], column, message)

    def describe(self, position: int) -> str:
        number = self.row_numbers[position]
        if number is None:
            return f"file {self.row_sources[position]!r}"
        return f"row {number}"

    def feature_column_of(self, position: int) -> str | None:
        for column in FEATURE_COLUMNS:
            if column in self.frame.columns and as_text(self.frame[column].iloc[position]) is not None:
                return column
        return None


def read_results(source) -> tuple[RawResults, list[Problem]]:
    if isinstance(source, pd.DataFrame):
        frame = with_clean_header(source)
        refuse_duplicate_header(list(frame.columns), DATAFRAME_NAME)
        n = len(frame)
        return RawResults(frame, DATAFRAME_NAME, (DATAFRAME_NAME,) * n, tuple(range(1, n + 1)), ()), []
    path = existing_path(source, what="results")
    if path.is_dir():
        return _read_json_folder(path)
    frame = read_table_file(path, what="results")
    n = len(frame)
    return RawResults(frame, str(path), (str(path),) * n, tuple(range(1, n + 1)), (str(path),)), []


def existing_path(source, *, what: str) -> Path:
    if not isinstance(source, (str, os.PathLike)):
        raise SrdashError(
            f"The {what} input must be a path or a pandas DataFrame. Got {type(source).__name__}.")
    path = Path(source)
    if not path.exists():
        raise SrdashError(f"The {what} input {str(path)!r} does not exist. Give {_SUPPORTED}.")
    return path


def read_table_file(path: Path, *, what: str) -> pd.DataFrame:
    """Read a CSV/TSV (every cell as text) or Parquet file; duplicate headers are refused.

    The file must be a regular file of bounded size (:mod:`srdash.io.files`); a
    CSV's rows must each have as many fields as its header (:func:`check_csv_shape`).
    """
    lower = path.name.lower()
    if not lower.endswith(_CSV_SUFFIXES + _TSV_SUFFIXES + _PARQUET_SUFFIXES):
        raise SrdashError(
            f"Cannot read the {what} file {str(path)!r}: unknown extension. Give {_SUPPORTED}.")
    try:
        data = read_file_bytes(path)
    except FileRefused as exc:
        raise SrdashError(f"Cannot read the {what} file {str(path)!r}: {exc.reason}") from None
    try:
        if lower.endswith(_CSV_SUFFIXES + _TSV_SUFFIXES):
            sep = "\t" if lower.endswith(_TSV_SUFFIXES) else ","
            text = _decompressed(data, lower, str(path)).decode("utf-8-sig")
            # Refused before pandas holds every cell as an object (~30x the text).
            first_line = text[:text.find("\n")] if "\n" in text else text
            check_table_size(path, text.count("\n"), first_line.count(sep) + 1, approximate=True)
            problems = check_csv_shape(text, source=str(path), sep=sep)
            if problems:
                raise ValidationError(problems, header=f"The rows of {path} do not match its header")
            header = pd.read_csv(io.StringIO(text), sep=sep, header=None, nrows=1, dtype=str,
                                 keep_default_na=False).iloc[0].tolist()
            refuse_duplicate_header([str(h).strip() for h in header], str(path))
            # Every cell is read as text so that a bad value can be quoted exactly; index_col=False:
            # never take the first column as the row index.
            frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, index_col=False)
        else:
            frame = read_parquet_bytes(data, path=path)
    except FileRefused as exc:
        raise SrdashError(f"Cannot read the {what} file {str(path)!r}: {exc.reason}") from None
    except SrdashError:
        raise
    except pd.errors.EmptyDataError as exc:
        raise SrdashError(f"Cannot read the {what} file {str(path)!r}: it is empty.") from exc
    except UnicodeDecodeError as exc:
        raise SrdashError(f"Cannot read the {what} file {str(path)!r}: it is not UTF-8 text (byte "
                          f"{exc.start + 1} cannot be decoded); save it as UTF-8.") from None
    except Exception as exc:  # pandas, pyarrow and the OS raise many kinds
        raise SrdashError(f"Cannot read the {what} file {str(path)!r}: {_short_error(exc)}") from exc
    frame = with_clean_header(frame)
    refuse_duplicate_header(list(frame.columns), str(path))
    return frame


def _decompressed(data: bytes, lower: str, source: str, limit: int | None = None) -> bytes | bytearray:
    """The bytes of a possibly compressed file, refusing more than ``limit`` once expanded (:func:`expanded_bytes`)."""
    try:
        return expanded_bytes(data, path=source, name=lower, limit=limit)
    except FileRefused as exc:
        raise SrdashError(f"Cannot read {source!r}: {exc.reason}") from None


def with_clean_header(frame: pd.DataFrame) -> pd.DataFrame:
    """A shallow copy with column names as stripped strings (the input is not touched)."""
    out = frame.copy(deep=False)
    out.columns = [str(c).strip() for c in frame.columns]
    return out.reset_index(drop=True)


def refuse_duplicate_header(columns: list[str], source: str) -> None:
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        raise ValidationError(
            [Problem(str(source), None, c, f"the column name appears {columns.count(c)} times in the "
                                           "header; give each column a distinct name.") for c in repeated],
            header=f"The columns of {source} are not valid")


def _read_json_folder(folder: Path) -> tuple[RawResults, list[Problem]]:
    # Links are listed too (is_file() follows them): each is then refused or read by read_file_text.
    files = sorted((p for p in folder.rglob("*.json") if p.is_file() or p.is_symlink()),
                   key=lambda p: p.relative_to(folder).as_posix())
    if not files:
        raise SrdashError(
            f"The folder {str(folder)!r} contains no .json result files. Give {_SUPPORTED}.")
    records, row_sources, problems = [], [], []
    for file in files:
        repeated: list[str] = []
        try:
            content = json.loads(read_file_text(file, root=folder),
                                 object_pairs_hook=functools.partial(_object_noting_repeats, repeated=repeated))
        except FileRefused as exc:
            problems.append(Problem(str(file), None, None, exc.reason))
            continue
        except (ValueError, RecursionError) as exc:
            problems.append(Problem(str(file), None, None, f"is not a readable JSON file: {_short_error(exc)}"))
            continue
        if repeated:
            # json keeps the last of two equal keys without a word: which r2_test was meant?
            problems.append(Problem(str(file), None, None, f"has repeated keys ({'; '.join(repeated[:5])}); each "
                                                           f"key may appear once in an object."))
            continue
        if not isinstance(content, dict):
            problems.append(Problem(
                str(file), None, None,
                f"must hold one JSON object (one run, with keys such as 'algorithm', 'dataset', "
                f"'random_state', 'symbolic_model', 'r2_test'); got a {type(content).__name__}."))
            continue
        records.append({str(key).strip(): _json_value(key, value) for key, value in content.items()})
        row_sources.append(str(file))
    columns: dict[str, None] = {}
    for record in records:
        columns.update(dict.fromkeys(record))
    frame = pd.DataFrame({c: pd.Series([r.get(c) for r in records], dtype=object) for c in columns},
                         index=pd.RangeIndex(len(records)))
    raw = RawResults(frame, str(folder), tuple(row_sources), (None,) * len(records),
               tuple(str(f) for f in files))
    return raw, problems


def _object_noting_repeats(pairs: list[tuple[str, Any]], *, repeated: list[str]) -> dict:
    """``object_pairs_hook`` of :func:`json.loads`: the object, noting keys that appear twice
    (also once spaces are trimmed, as columns are compared)."""
    seen: dict[str, str] = {}
    for key, _ in pairs:
        trimmed = key.strip()
        if trimmed in seen:
            first = seen[trimmed]
            repeated.append(f"{key!r} twice" if first == key else f"{first!r} and {key!r}, equal once trimmed")
        else:
            seen[trimmed] = key
    return dict(pairs)


def _short_error(exc: Exception, limit: int = 120) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_value(key, value):
    if isinstance(value, (list, tuple)) and str(key).strip() in FEATURE_COLUMNS:
        return " ".join(str(v) for v in value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True)
    return value
