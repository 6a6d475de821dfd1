"""The column rule of results: canonical columns and their aliases, text and metric columns, every cell checked.

:func:`canonical_table` turns raw cells (:class:`srdash.io.resultfiles.RawResults`) into the canonical
per-run table, collecting one problem per bad cell with its file, row and column (the rule is
documented in :mod:`srdash.io.loading`, whose :func:`~srdash.io.loading.load_results` calls it);
:func:`read_dataset_table` reads the feature names of a dataset table given beside the results.
Names are compared as they display (spaces trimmed, Unicode NFKC, invisible characters removed).
"""

from __future__ import annotations

import math
import unicodedata
import warnings
from collections.abc import Mapping
from types import MappingProxyType

import pandas as pd

from srdash.errors import Problem, SrdashError
from srdash.io.cells import as_integer, as_number, as_text, is_missing, shown_cell
from srdash.io.csvcolumns import shown_names
from srdash.io.resultfiles import (DATAFRAME_NAME, FEATURE_COLUMNS, RawResults, existing_path, read_table_file,
                                   refuse_duplicate_header, with_clean_header)

__all__ = ["COLUMN_ALIASES", "TEXT_COLUMNS", "METRIC_COLUMNS", "canonical_table", "read_dataset_table"]


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

# SRBench writes model_size = -1 when sympy cannot read the model: a size not counted, not a size.
_SIZE_NOT_COUNTED = -1.0

# pandas' default text dtype: 'str' (missing = NaN) from pandas 3, object before.
_TEXT_DTYPE = "str" if int(pd.__version__.split(".")[0]) >= 3 else object


def _displayed_name(text: str) -> str:
    """A name as it displays: Unicode NFKC (fullwidth and other look-alike forms folded), invisible
    format characters (zero-width spaces and joiners, direction marks and overrides) removed,
    surrounding spaces trimmed.

    Examples
    --------
    >>> _displayed_name(" Ｏperon\u200b\u202e ")
    'Operon'
    """
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


def _warn_size_not_counted(positions: list[int], column: str, raw: "RawResults") -> None:
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


def canonical_table(raw: RawResults):
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
            text = as_text(value)
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
            number = as_integer(value)
            if number is not None and not -2**63 <= number < 2**63:
                report(position, name, f"{shown_cell(value)} is outside the range of run ids (a 64-bit integer, "
                                       f"at most 19 digits); number the runs 0, 1, 2, ... or use the seed "
                                       f"modulo 2**63.")
                number = None
            elif number is None:
                what = "is empty" if is_missing(value) else f"{shown_cell(value)} is not an integer"
                report(position, name, f"{what}; 'run' needs a whole number in every row.")
            runs.append(number)
        columns["run"] = pd.Series([r if r is not None else 0 for r in runs], dtype="int64")
    else:
        runs = [0] * n
        columns["run"] = pd.Series(runs, dtype="int64")

    if "model" in input_name:
        columns["model"] = _text_series([as_text(v) for v in frame[input_name["model"]].tolist()])

    if "components" in input_name:
        name = input_name["components"]
        values = []
        unreadable = []
        for position, value in enumerate(frame[name].tolist()):
            number, ok = as_number(value)
            if not ok:
                report(position, name, f"{shown_cell(value)} is not a number; 'components' must be a "
                                       "positive number (empty means unknown).")
            elif number == _SIZE_NOT_COUNTED:
                unreadable.append(position)
                number = math.nan
            elif not math.isnan(number) and not (1 <= number < math.inf):
                report(position, name, f"{shown_cell(value)} is not a finite number >= 1; 'components' "
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
        parsed = [as_number(v) for v in cells]
        is_metric = name in METRIC_COLUMNS or (
            name not in TEXT_COLUMNS and any(ok and not is_missing(v) for (_, ok), v in zip(parsed, cells)))
        if name in TEXT_COLUMNS or not is_metric:
            columns[name] = _text_series([as_text(v) for v in cells])
            continue
        for position, ((_, ok), value) in enumerate(zip(parsed, cells)):
            if not ok:
                report(position, name, f"{shown_cell(value)} is not a number; a metric column holds "
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
    for column in FEATURE_COLUMNS:
        if column not in frame.columns or "dataset" not in columns:
            continue
        for position, (dataset, value) in enumerate(zip(columns["dataset"].tolist(), frame[column].tolist())):
            text = as_text(value)
            if text is None or not isinstance(dataset, str):
                continue
            row_features.append((dataset, _split_names(text), position))

    located.sort(key=lambda item: (item[0], item[1]))
    problems += [problem for _, _, problem in located]
    ordered = ["method", "dataset", "run", "model", "components"]
    ordered = [c for c in ordered if c in columns] + [c for c in columns if c not in ordered]
    table = pd.DataFrame({c: columns[c] for c in ordered}, index=pd.RangeIndex(n))
    return table, row_features, problems


def read_dataset_table(datasets):
    """Feature names per dataset from a dataset table: ({name: (names, where)}, sources, problems)."""
    if isinstance(datasets, pd.DataFrame):
        frame, name, sources = with_clean_header(datasets), DATAFRAME_NAME, []
        refuse_duplicate_header(list(frame.columns), DATAFRAME_NAME)
    else:
        path = existing_path(datasets, what="dataset table")
        if path.is_dir():
            raise SrdashError(f"The dataset table {str(path)!r} is a folder; give a .csv, .tsv or .parquet file.")
        frame, name, sources = read_table_file(path, what="dataset table"), str(path), [str(path)]
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
        dataset = as_text(dataset)
        text = as_text(value)
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
    where = "the dataset table" if name == DATAFRAME_NAME else f"{name!r}"
    return ({d: (names, f"row {row} of {where}") for d, (names, row) in features.items()},
            sources, problems)
