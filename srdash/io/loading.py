"""Read competition results into the canonical per-run table, validating them once.

Results come as a CSV (or TSV) file, a Parquet file, a folder of SRBench-style
JSON result files (one file per run) or an already-loaded DataFrame. Whatever
the input, :func:`load_results` returns the same canonical table (see
``docs/architecture.md``) or raises one :class:`~srdash.errors.ValidationError`
listing every problem it found, each with its file, row and column.

Column rule
-----------
* Canonical columns, with the SRBench names accepted as aliases
  (:data:`COLUMN_ALIASES`): ``method`` (text, required), ``dataset`` (text,
  required), ``run`` (integer; 0 for every row when the input has none),
  ``model`` (text, the untrusted model string; missing allowed) and
  ``components`` (a positive number; missing allowed; ``-1``, which SRBench writes
  when sympy cannot count a model, is read as missing, with a warning naming the
  rows: the rules' measure then counts the model itself, and a run whose size
  cannot be measured counts as the worst value, listed as a problem). The input needs a
  ``model`` or a ``components`` column (or both). Without a method column,
  ``team`` is the method (SRBench 2023's ``team, dataset, model`` files).
* Known text columns (:data:`TEXT_COLUMNS`, e.g. ``features``, ``status``,
  ``team``, ``notes``) are kept as text.
* Known metric columns (:data:`METRIC_COLUMNS`, e.g. ``r2_test``,
  ``property``) must hold numbers.
* Every other column is a metric column and must hold numbers, unless *none*
  of its values is a number: such a column is free text and is kept as is.
* In numeric columns an empty cell, ``nan``, ``NA``, ``N/A``, ``null`` or
  ``None`` means *missing* (NaN); anything else that is not a number is a
  problem. Missing metric values follow the judging rules (worst value).
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from typing import Any

import numpy as np
import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.csvcolumns import shown_names
from srdash.io.csvsafe import restore_text
from srdash.io.files import (FileRefused, check_table_size, expanded_bytes, read_file_bytes, read_file_text,
                             read_parquet_bytes)

__all__ = ["Results", "load_results", "check_csv_shape", "number_cells", "COLUMN_ALIASES", "TEXT_COLUMNS",
           "METRIC_COLUMNS"]

#: Canonical column -> accepted input names (the canonical name first).
COLUMN_ALIASES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "method": ("method", "algorithm"),
    "dataset": ("dataset",),
    "run": ("run", "random_state", "seed", "trial"),
    "model": ("model", "symbolic_model"),
    "components": ("components", "model_size"),
})

#: Read as ``method`` when the input has no method column (SRBench 2023: ``team, dataset, model``).
_TEAM = "team"

#: Columns always kept as text, even when their values look like numbers.
TEXT_COLUMNS: frozenset[str] = frozenset({
    "features", "feature_names", "features_used", "simplified", "status", "reason",
    "team", "notes", "note", "comment", "comments", "description", "params",
    "true_model", "url", "version",
})

#: Columns that must hold numbers even if none of their values is one.
METRIC_COLUMNS: frozenset[str] = frozenset({
    "r2_test", "r2_train", "property", "simplicity", "rmse_test", "rmse_train",
    "mse_test", "mse_train", "mae_test", "mae_train",
})

# Columns whose value, a list of names, supplies a dataset's feature names.
_FEATURE_COLUMNS = ("features", "feature_names")
_MISSING_TOKENS = frozenset({"", "nan", "na", "n/a", "null", "none"})
# SRBench writes model_size = -1 when sympy cannot read the model: a size not counted, not a size.
_SIZE_NOT_COUNTED = -1.0
_CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.zip", ".csv.xz")
_TSV_SUFFIXES = (".tsv", ".tsv.gz", ".tsv.bz2", ".tsv.zip", ".tsv.xz")
_PARQUET_SUFFIXES = (".parquet", ".pq")
_SUPPORTED = "a .csv or .tsv file (optionally compressed), a .parquet file, or a folder of .json result files"
_DATAFRAME = "<DataFrame>"
# pandas' default text dtype: 'str' (missing = NaN) from pandas 3, object before.
_TEXT_DTYPE = "str" if int(pd.__version__.split(".")[0]) >= 3 else object


@dataclass(frozen=True, eq=False)
class Results:
    """Validated competition results: the canonical per-run table and its context.

    Attributes
    ----------
    table : DataFrame
        One row per (method, dataset, run), sorted by (dataset, method, run) with
        a fresh RangeIndex. Columns: ``method`` (str), ``dataset`` (str), ``run``
        (int64), ``model`` (str or missing; absent when the input had only
        ``components``), ``components`` (float; absent when the input had none),
        then the input's other columns in input order: metrics as float64, text
        columns as text.
    features : Mapping of str to tuple of str
        Dataset name -> its feature names, from the dataset table or the
        results' ``features``/``feature_names`` column. Datasets missing from the
        mapping (the mapping is empty when nothing is known) accept any variable
        name in a model.
    sources : tuple of str
        The input files read (every JSON file of a folder, then the dataset
        table), for provenance hashing. DataFrame inputs add nothing.

    Examples
    --------
    >>> import pandas as pd
    >>> results = Results(pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0]}))
    >>> dict(results.features), results.sources
    ({}, ())
    """

    table: pd.DataFrame
    features: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    sources: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Read-only views, so a Results cannot be changed through its fields.
        features = {str(k): tuple(v) for k, v in dict(self.features).items()}
        object.__setattr__(self, "features", MappingProxyType(features))
        object.__setattr__(self, "sources", tuple(str(s) for s in self.sources))


def load_results(source, *, datasets=None) -> Results:
    """Read competition results and validate them, reporting every problem at once.

    Parameters
    ----------
    source : str, path-like or DataFrame
        A ``.csv``/``.tsv`` file (optionally compressed), a ``.parquet`` file, a
        folder of SRBench-style JSON files (one object per run, with keys such as
        ``algorithm``, ``dataset``, ``random_state``, ``symbolic_model``,
        ``r2_test`` and optionally ``feature_names``/``features`` as a list or a
        space-separated string; searched recursively) or a DataFrame, which is
        not modified and is named ``"<DataFrame>"`` in messages.
    datasets : str, path-like or DataFrame, optional
        A dataset table (CSV, TSV, Parquet or DataFrame) with columns ``dataset``
        and ``features`` (feature names separated by spaces or commas); other
        columns are ignored. It supplies :attr:`Results.features`.

    Returns
    -------
    Results
        The canonical table (see :class:`Results` and the module's column rule),
        the feature names per dataset and the input files read.

    Raises
    ------
    ValidationError
        Listing every problem with its file, row (1-based data row, header
        excluded, or the JSON file) and column: a missing required column (the
        message lists the columns present), two columns meaning the same
        canonical column, an empty method or dataset, a run that is not an
        integer, components that are not a positive number, a non-numeric value
        in a metric column, a duplicate (method, dataset, run), conflicting
        feature lists. No row is ever dropped.
    SrdashError
        When the input cannot be read: missing path, unknown extension, a folder
        without JSON files, a malformed file.

    Notes
    -----
    A model using a variable outside its dataset's features is not a loading
    problem: the safe parser reports it when the model is scored.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "algorithm": ["B", "A", "A"],
    ...     "dataset": ["d1", "d1", "d1"],
    ...     "seed": [0, 1, 0],
    ...     "symbolic_model": ["x1 + 1", "2*x1", "x1*x1"],
    ...     "r2_test": [0.5, "0.75", ""],
    ... })
    >>> load_results(frame).table
      method dataset  run   model  r2_test
    0      A      d1    0   x1*x1      NaN
    1      A      d1    1    2*x1     0.75
    2      B      d1    0  x1 + 1     0.50

    Every problem is reported at once, with its row and column:

    >>> bad = frame.assign(seed=[0, 0.5, 0], r2_test=[0.5, "high", None])
    >>> try:
    ...     load_results(bad)
    ... except ValidationError as error:
    ...     print(error)
    The results in <DataFrame> are not valid (2 problems):
      - <DataFrame>, row 2, column 'seed': 0.5 is not an integer; 'run' needs a whole number in every row.
      - <DataFrame>, row 2, column 'r2_test': 'high' is not a number; a metric column holds numbers (empty means missing).
    """
    raw, problems = _read_results(source)
    table, row_features, table_problems = _canonical_table(raw)
    problems += table_problems
    features: dict[str, tuple[str, ...]] = {}
    feature_origin: dict[str, str] = {}
    sources = list(raw.sources)
    if datasets is not None:
        dataset_features, dataset_sources, dataset_problems = _read_dataset_table(datasets)
        problems += dataset_problems
        sources += dataset_sources
        for name, (names, where) in dataset_features.items():
            features[name] = names
            feature_origin[name] = where
    for name, names, position in row_features:
        if name not in features:
            features[name] = names
            feature_origin[name] = raw.describe(position)
        elif features[name] != names:
            problems.append(raw.problem(
                position, raw.feature_column_of(position),
                f"the feature names {' '.join(names)!r} of dataset {name!r} differ from "
                f"{' '.join(features[name])!r} given at {feature_origin[name]}; give one list per dataset."))
    if problems:
        raise ValidationError(problems, header=f"The results in {raw.name} are not valid")
    table = table.sort_values(["dataset", "method", "run"], kind="mergesort", ignore_index=True)
    return Results(
        table=table,
        features=MappingProxyType({name: features[name] for name in sorted(features)}),
        sources=tuple(sources),
    )


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Raw:
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
        for column in _FEATURE_COLUMNS:
            if column in self.frame.columns and _as_text(self.frame[column].iloc[position]) is not None:
                return column
        return None


def _read_results(source) -> tuple[_Raw, list[Problem]]:
    if isinstance(source, pd.DataFrame):
        frame = _with_clean_header(source)
        _refuse_duplicate_header(list(frame.columns), _DATAFRAME)
        n = len(frame)
        return _Raw(frame, _DATAFRAME, (_DATAFRAME,) * n, tuple(range(1, n + 1)), ()), []
    path = _existing_path(source, what="results")
    if path.is_dir():
        return _read_json_folder(path)
    frame = _read_table_file(path, what="results")
    n = len(frame)
    return _Raw(frame, str(path), (str(path),) * n, tuple(range(1, n + 1)), (str(path),)), []


def _existing_path(source, *, what: str) -> Path:
    if not isinstance(source, (str, os.PathLike)):
        raise SrdashError(
            f"The {what} input must be a path or a pandas DataFrame. Got {type(source).__name__}.")
    path = Path(source)
    if not path.exists():
        raise SrdashError(f"The {what} input {str(path)!r} does not exist. Give {_SUPPORTED}.")
    return path


def _read_table_file(path: Path, *, what: str) -> pd.DataFrame:
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
            _refuse_duplicate_header([str(h).strip() for h in header], str(path))
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
    frame = _with_clean_header(frame)
    _refuse_duplicate_header(list(frame.columns), str(path))
    return frame


def _decompressed(data: bytes, lower: str, source: str, limit: int | None = None) -> bytes | bytearray:
    """The bytes of a possibly compressed file, refusing more than ``limit`` once expanded (:func:`expanded_bytes`)."""
    try:
        return expanded_bytes(data, path=source, name=lower, limit=limit)
    except FileRefused as exc:
        raise SrdashError(f"Cannot read {source!r}: {exc.reason}") from None


_MAX_SHAPE_PROBLEMS = 10


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
    import csv

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
            if bad > _MAX_SHAPE_PROBLEMS:
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
        if bad > _MAX_SHAPE_PROBLEMS:
            problems.append(Problem(source, None, None, f"... and {bad - _MAX_SHAPE_PROBLEMS} more rows whose "
                                                        f"field count differs from the header's."))
        return problems
    except csv.Error as exc:
        return [Problem(source, None, None, f"is not a valid CSV file ({exc}); check the quotes.")]


def _with_clean_header(frame: pd.DataFrame) -> pd.DataFrame:
    """A shallow copy with column names as stripped strings (the input is not touched)."""
    out = frame.copy(deep=False)
    out.columns = [str(c).strip() for c in frame.columns]
    return out.reset_index(drop=True)


def _refuse_duplicate_header(columns: list[str], source: str) -> None:
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        raise ValidationError(
            [Problem(str(source), None, c, f"the column name appears {columns.count(c)} times in the "
                                           "header; give each column a distinct name.") for c in repeated],
            header=f"The columns of {source} are not valid")


def _read_json_folder(folder: Path) -> tuple[_Raw, list[Problem]]:
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
    raw = _Raw(frame, str(folder), tuple(row_sources), (None,) * len(records),
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
    if isinstance(value, (list, tuple)) and str(key).strip() in _FEATURE_COLUMNS:
        return " ".join(str(v) for v in value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True)
    return value


# --------------------------------------------------------------------------- values


def _is_missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return isinstance(value, str) and value.strip().lower() in _MISSING_TOKENS


def _as_text(value) -> str | None:
    """Text of a cell, or None when it is missing or blank."""
    if _is_missing(value):
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


def _as_number(value) -> tuple[float, bool]:
    """(number, ok); missing cells give (nan, True), non-numbers (nan, False)."""
    if _is_missing(value):
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


def _as_integer(value) -> int | None:
    if isinstance(value, (bool, np.bool_)) or _is_missing(value):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str) and _PLAIN_INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    number, ok = _as_number(value)
    if ok and math.isfinite(number) and number == int(number):
        return int(number)
    return None


def _shown(value, limit: int = 40) -> str:
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
        number, ok = _as_number(value)
        if not ok:
            message = f"{_shown(value)} is not a number; {what} holds numbers (empty means missing)."
        elif minimum is not None and not math.isnan(number) and not math.isfinite(number):
            message = f"{_shown(value)} is not finite; {what} holds finite numbers of at least {minimum:g}."
        elif minimum is not None and number < minimum:
            message = f"{_shown(value)} is below {minimum:g}; {what} holds finite numbers of at least {minimum:g}."
        else:
            values[position] = number
            continue
        bad += 1
        if bad <= _MAX_SHAPE_PROBLEMS:
            problems.append(Problem(source, int(row), column, message))
    if bad > _MAX_SHAPE_PROBLEMS:
        problems.append(Problem(source, None, column, f"... and {bad - _MAX_SHAPE_PROBLEMS:,} more cells that are not "
                                                      f"valid (the first {_MAX_SHAPE_PROBLEMS} are listed above)."))
    return values, problems


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _displayed_name(text: str) -> str:
    """A name as it displays: Unicode NFKC (fullwidth and other look-alike forms folded), invisible
    format characters (zero-width spaces and joiners, direction marks and overrides) removed,
    surrounding spaces trimmed.

    Examples
    --------
    >>> _displayed_name(" Ｏperon\u200b\u202e ")
    'Operon'
    """
    import unicodedata

    folded = unicodedata.normalize("NFKC", text)
    return "".join(c for c in folded if unicodedata.category(c) != "Cf").strip()


def _warn_trimmed(canonical: str, spellings: dict[str, set[str]], source: str) -> None:
    """Warn once when names had surrounding spaces or display alike, saying which spellings were merged."""
    changed = {name: sorted(found) for name, found in spellings.items() if found != {name}}
    if not changed:
        return
    if any(spelling.strip() != name for name, found in changed.items() for spelling in found):
        shown = "; ".join(" and ".join(ascii(f) for f in found) + f" -> {name!r}"
                          for name, found in sorted(changed.items())[:10])
        more = f"; ... ({len(changed)} names in all)" if len(changed) > 10 else ""
        warnings.warn(f"{source}: {canonical} names are compared as they display (surrounding spaces trimmed, "
                      f"Unicode NFKC, invisible characters such as zero-width spaces and direction controls "
                      f"removed); merged: {shown}{more}.", UserWarning, stacklevel=4)
        return
    shown = "; ".join(" and ".join(repr(f) for f in found) + f" -> {name!r}"
                      for name, found in sorted(changed.items())[:10])
    more = f"; ... ({len(changed)} names in all)" if len(changed) > 10 else ""
    warnings.warn(f"{source}: {canonical} names are compared after trimming surrounding spaces; merged: "
                  f"{shown}{more}.", UserWarning, stacklevel=4)


def _warn_size_not_counted(positions: list[int], column: str, raw: "_Raw") -> None:
    """Say which rows had SRBench's -1 size (read as unknown)."""
    shown = ", ".join(raw.describe(p) for p in positions[:10]) + (f", ... ({len(positions)} runs)"
                                                                  if len(positions) > 10 else "")
    warnings.warn(f"{raw.name}, column '{column}': -1 in {shown}, SRBench's mark of a size sympy could not "
                  "count, is read as unknown: srdash measures the model itself where the rules need a size, and a "
                  "run whose size cannot be measured counts as the worst value, listed as a problem.",
                  UserWarning, stacklevel=4)


def _text_series(values: list) -> pd.Series:
    return pd.Series(values, dtype=_TEXT_DTYPE)


def _split_names(text: str) -> tuple[str, ...]:
    return tuple(text.replace(",", " ").split())


# --------------------------------------------------------------------------- validation


def _canonical_table(raw: _Raw):
    """Validate every cell; return the canonical table, row feature lists and problems."""
    frame = raw.frame
    present = list(frame.columns)
    problems: list[Problem] = []
    located: list[tuple[int, int, Problem]] = []  # (row position, column position, problem)
    shown_columns = shown_names([str(c) for c in present]) or "none"  # shortened: a header may be anything

    input_name: dict[str, str] = {}
    for canonical, names in COLUMN_ALIASES.items():
        found = [c for c in present if c in names]
        if len(found) > 1:
            problems.append(raw.problem(
                None, found[1],
                f"the columns {' and '.join(map(repr, found))} all mean {canonical!r}; keep only one of them."))
        if found:
            input_name[canonical] = found[0]
    if "method" not in input_name and _TEAM in present:  # SRBench 2023's model files name teams, not methods
        input_name["method"] = _TEAM
    for required in ("method", "dataset"):
        if required not in input_name:
            problems.append(raw.problem(
                None, required,
                f"the required column is missing (accepted names: "
                f"{', '.join(map(repr, COLUMN_ALIASES[required]))}). Columns present: {shown_columns}."))
    if "model" not in input_name and "components" not in input_name and "simplicity" not in raw.frame.columns:
        problems.append(raw.problem(
            None, "model",
            "the input needs a 'model' column (or 'symbolic_model'), a 'components' column "
            f"(or 'model_size') or a 'simplicity' column; none is present. Columns present: {shown_columns}."))
    if len(frame) == 0:
        problems.append(raw.problem(None, None, "has no data rows."))

    def report(position: int, column: str, message: str) -> None:
        located.append((position, present.index(column), raw.problem(position, column, message)))

    n = len(frame)
    columns: dict[str, pd.Series] = {}
    for canonical in ("method", "dataset"):
        if canonical not in input_name:
            continue
        name = input_name[canonical]
        values = []
        spellings: dict[str, set[str]] = {}
        for position, value in enumerate(frame[name].tolist()):
            text = _as_text(value)
            if text is None:
                report(position, name, f"is empty; every row needs a {canonical}.")
            else:
                # Names are compared as they display: 'A ', 'A\u200b' and 'Ａ' are one method.
                shown = _displayed_name(text)
                spellings.setdefault(shown, set()).add(text)
                text = shown
            values.append(text)
        _warn_trimmed(canonical, spellings, raw.name)
        columns[canonical] = _text_series(values)

    if "run" in input_name:
        name = input_name["run"]
        runs = []
        for position, value in enumerate(frame[name].tolist()):
            number = _as_integer(value)
            if number is not None and not -2**63 <= number < 2**63:
                report(position, name, f"{_shown(value)} is outside the range of run ids (a 64-bit integer, "
                                       f"at most 19 digits); number the runs 0, 1, 2, ... or use the seed "
                                       f"modulo 2**63.")
                number = None
            elif number is None:
                what = "is empty" if _is_missing(value) else f"{_shown(value)} is not an integer"
                report(position, name, f"{what}; 'run' needs a whole number in every row.")
            runs.append(number)
        columns["run"] = pd.Series([r if r is not None else 0 for r in runs], dtype="int64")
    else:
        runs = [0] * n
        columns["run"] = pd.Series(runs, dtype="int64")

    if "model" in input_name:
        columns["model"] = _text_series([_as_text(v) for v in frame[input_name["model"]].tolist()])

    if "components" in input_name:
        name = input_name["components"]
        values = []
        unreadable = []
        for position, value in enumerate(frame[name].tolist()):
            number, ok = _as_number(value)
            if not ok:
                report(position, name, f"{_shown(value)} is not a number; 'components' must be a "
                                       "positive number (empty means unknown).")
            elif number == _SIZE_NOT_COUNTED:
                unreadable.append(position)
                number = math.nan
            elif not math.isnan(number) and not (1 <= number < math.inf):
                report(position, name, f"{_shown(value)} is not a finite number >= 1; 'components' "
                                       "counts the nodes of the model, at least 1.")
            values.append(number)
        columns["components"] = pd.Series(values, dtype="float64")
        if unreadable:
            _warn_size_not_counted(unreadable, name, raw)

    used = set(input_name.values())
    for name in present:
        if name in used or name in columns:
            continue
        cells = frame[name].tolist()
        parsed = [_as_number(v) for v in cells]
        is_metric = name in METRIC_COLUMNS or (
            name not in TEXT_COLUMNS and any(ok and not _is_missing(v) for (_, ok), v in zip(parsed, cells)))
        if name in TEXT_COLUMNS or not is_metric:
            columns[name] = _text_series([_as_text(v) for v in cells])
            continue
        for position, ((_, ok), value) in enumerate(zip(parsed, cells)):
            if not ok:
                report(position, name, f"{_shown(value)} is not a number; a metric column holds "
                                       "numbers (empty means missing).")
        columns[name] = pd.Series([number for number, _ in parsed], dtype="float64")

    # Duplicate keys, among rows whose key is valid.
    if "method" in columns and "dataset" in columns:
        first_seen: dict[tuple, int] = {}
        for position, key in enumerate(zip(columns["method"].tolist(), columns["dataset"].tolist(), runs)):
            if any(part is None or (isinstance(part, float) and math.isnan(part)) for part in key):
                continue
            if key in first_seen:
                hint = ("" if "run" in input_name else
                        " The input has no run column, so every row is run 0: add a 'run' column "
                        "to give several runs.")
                located.append((position, -1, raw.problem(
                    position, None,
                    f"duplicate (method, dataset, run) = ({key[0]!r}, {key[1]!r}, {key[2]}): "
                    f"{raw.describe(first_seen[key])} has the same key; each may appear only once.{hint}")))
            else:
                first_seen[key] = position

    row_features = []
    for column in _FEATURE_COLUMNS:
        if column not in frame.columns or "dataset" not in columns:
            continue
        for position, (dataset, value) in enumerate(zip(columns["dataset"].tolist(), frame[column].tolist())):
            text = _as_text(value)
            if text is None or not isinstance(dataset, str):
                continue
            row_features.append((dataset, _split_names(text), position))

    located.sort(key=lambda item: (item[0], item[1]))
    problems += [problem for _, _, problem in located]
    ordered = ["method", "dataset", "run", "model", "components"]
    ordered = [c for c in ordered if c in columns] + [c for c in columns if c not in ordered]
    table = pd.DataFrame({c: columns[c] for c in ordered}, index=pd.RangeIndex(n))
    return table, row_features, problems


def _read_dataset_table(datasets):
    """Feature names per dataset from a dataset table: ({name: (names, where)}, sources, problems)."""
    if isinstance(datasets, pd.DataFrame):
        frame, name, sources = _with_clean_header(datasets), _DATAFRAME, []
        _refuse_duplicate_header(list(frame.columns), _DATAFRAME)
    else:
        path = _existing_path(datasets, what="dataset table")
        if path.is_dir():
            raise SrdashError(f"The dataset table {str(path)!r} is a folder; give a .csv, .tsv or .parquet file.")
        frame, name, sources = _read_table_file(path, what="dataset table"), str(path), [str(path)]
    problems = []
    missing = [c for c in ("dataset", "features") if c not in frame.columns]
    if missing:
        shown_columns = shown_names([str(c) for c in frame.columns]) or "none"
        for column in missing:
            problems.append(Problem(name, None, column, "the dataset table needs columns 'dataset' and "
                                                        f"'features'. Columns present: {shown_columns}."))
        return {}, sources, problems
    features: dict[str, tuple[tuple[str, ...], str]] = {}
    for position, (dataset, value) in enumerate(zip(frame["dataset"].tolist(), frame["features"].tolist())):
        row = position + 1
        dataset = _as_text(dataset)
        text = _as_text(value)
        if dataset is None:
            problems.append(Problem(name, row, "dataset", "is empty; every row needs a dataset name."))
        if text is None:
            problems.append(Problem(name, row, "features", "is empty; list the dataset's feature names "
                                                           "separated by spaces."))
            continue
        names = _split_names(text)
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            problems.append(Problem(name, row, "features",
                                    f"the feature name(s) {', '.join(map(repr, repeated))} appear more than once."))
        if dataset is None:
            continue
        if dataset in features:
            problems.append(Problem(name, row, "dataset",
                                    f"dataset {dataset!r} is already listed at row {features[dataset][1]}; "
                                    "list each dataset once."))
            continue
        features[dataset] = (names, row)
    where = "the dataset table" if name == _DATAFRAME else f"{name!r}"
    return ({d: (names, f"row {row} of {where}") for d, (names, row) in features.items()},
            sources, problems)
