"""Dataset descriptions read and checked entry by entry (the format is :mod:`srdash.io.datasets`').

:func:`read_source` turns any source of a dataset table (a YAML or CSV file, a shipped table's name,
a DataFrame, a mapping) into the YAML format's mapping; :func:`spec_fields` checks one dataset's entry
(every key, its files' headers, its ground truth through the safe parser) and returns the fields of a
:class:`srdash.io.datasets.DatasetSpec` with every problem found; :func:`check_noise_groups` checks the
noise groups across entries. :func:`srdash.io.datasets.load_dataset_table` assembles them.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import pandas as pd

from srdash.errors import ModelRejected, Problem, SrdashError
from srdash.io.files import read_csv_file, read_file_text

__all__ = ["PROPERTY_KINDS", "FEATURE_SCORES", "TOP_KEYS", "CSV_FILE_COLUMNS", "list_dataset_tables",
           "read_source", "spec_fields", "check_noise_groups", "is_blank", "separator_of"]


#: The property a dataset tests (see the module docstring for each kind's keys).
PROPERTY_KINDS = ("exact", "feature_absence", "local_optima", "extrapolation", "noise", "none")
#: Feature scores: S1 = share of the unwanted features left out, S2 = share of the used features that are wanted.
FEATURE_SCORES = ("S1", "S2")

_COMMON_KEYS = ("name", "description", "files", "target", "features", "property", "truth", "noise_level")
_KIND_KEYS = {
    "exact": (),
    "feature_absence": ("irrelevant", "score"),
    "local_optima": ("surrogates", "score"),
    "extrapolation": ("partition",),
    "noise": ("group",),
    "none": (),
}
_ALL_KEYS = tuple(sorted(set(_COMMON_KEYS).union(*_KIND_KEYS.values())))
TOP_KEYS = ("datasets", "defaults", "description", "root")
CSV_FILE_COLUMNS = ("train", "test", "extrapolation")
_LIST_KEYS = ("features", "irrelevant", "surrogates")
_SHIPPED_SUFFIX = ".yaml"


def list_dataset_tables() -> list[str]:
    """Names of the dataset tables shipped with srdash.

    Examples
    --------
    >>> list_dataset_tables()
    ['srbench2022_synthetic']
    """
    folder = resources.files("srdash") / "data"
    return sorted(p.name[: -len(_SHIPPED_SUFFIX)] for p in folder.iterdir() if p.name.endswith(_SHIPPED_SUFFIX))


def read_source(source) -> tuple[dict, str, Path]:
    """(table as a YAML-format mapping, name for messages, base folder)."""
    if isinstance(source, pd.DataFrame):
        return _from_frame(source), "<DataFrame>", Path.cwd()
    if isinstance(source, Mapping):
        return dict(source), "<mapping>", Path.cwd()
    text = str(source)
    path = Path(text)
    if not path.exists() and "/" not in text and "." not in text:
        shipped = resources.files("srdash") / "data" / f"{text}{_SHIPPED_SUFFIX}"
        if shipped.is_file():
            return _parse_yaml(shipped.read_text(encoding="utf-8"), text), f"'{text}' (shipped)", Path(str(shipped)).parent
        raise SrdashError(f"No dataset table called {text!r}. Shipped tables: {', '.join(list_dataset_tables())}; "
                          "or give the path of a .yaml or .csv dataset table.")
    if not path.is_file():
        raise SrdashError(f"The dataset table '{path}' does not exist (or is a folder); give a .yaml, .yml, "
                          ".csv or .tsv file.")
    lowered = path.name.lower()
    try:
        if lowered.endswith((".yaml", ".yml")):
            return _parse_yaml(read_file_text(path, max_bytes=None), str(path)), f"'{path}'", path.parent
        if lowered.endswith((".csv", ".tsv", ".csv.gz", ".tsv.gz")):
            frame = read_csv_file(path, max_bytes=None, sep="\t" if ".tsv" in lowered else ",", dtype=str,
                                  keep_default_na=False)
            return _from_frame(frame), f"'{path}'", path.parent
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise SrdashError(f"Cannot read the dataset table '{path}': {exc}") from exc
    raise SrdashError(f"The dataset table '{path}' must be a .yaml, .yml, .csv or .tsv file.")


def _parse_yaml(text: str, where: str) -> dict:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SrdashError(f"The dataset table {where} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SrdashError(f"The dataset table {where} must be a YAML mapping with a 'datasets' list "
                          "(see srdash.io.datasets).")
    return data


def _from_frame(frame: pd.DataFrame) -> dict:
    """The CSV format, turned into the YAML format's mapping."""
    columns = [str(c).strip() for c in frame.columns]
    if "dataset" not in columns:
        raise SrdashError("A dataset table in CSV form needs a 'dataset' column (the dataset names). "
                          f"Columns present: {', '.join(map(repr, columns)) or 'none'}.")
    entries = []
    for record in frame.to_dict(orient="records"):
        record = {str(k).strip(): v for k, v in record.items() if not is_blank(v)}
        entry: dict[str, Any] = {}
        files = {}
        for key, value in record.items():
            if key == "dataset":
                entry["name"] = value
            elif key in CSV_FILE_COLUMNS:
                files[key] = value
            elif key.startswith("file_"):
                files[key[len("file_"):]] = value
            else:
                entry[key] = value
        if files:
            entry["files"] = files
        entries.append(entry)
    return {"datasets": entries}


def is_blank(value) -> bool:
    """Whether a value of a description means "not given": None, NaN or blank text."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def _as_names(value) -> tuple[str, ...] | None:
    """A list of names from a YAML list or space/comma-separated text; None if neither."""
    if isinstance(value, str):
        return tuple(value.replace(",", " ").split())
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) for v in value):
        return tuple(str(v).strip() for v in value)
    return None


def spec_fields(entry: Mapping, *, name: str, row: int, folder: Path,
                check_files: bool) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The fields of one dataset's :class:`~srdash.io.datasets.DatasetSpec`, or None, and every problem of its
    entry (``row`` of the table ``name``; files relative to ``folder``, their headers read if ``check_files``)."""
    problems: list[Problem] = []

    def problem(column: str | None, message: str) -> None:
        problems.append(Problem(name, row, column, message))

    dataset = entry.get("name")
    if not isinstance(dataset, (str, int)) or not str(dataset).strip():
        problem("name", "every dataset needs a 'name'.")
        return None, problems
    dataset = str(dataset).strip()
    label = f"dataset {dataset!r}"
    kind = entry.get("property")
    if kind not in PROPERTY_KINDS:
        shown = "is missing" if kind is None else f"is {kind!r}"
        problem("property", f"{label}: 'property' {shown}; it must be one of {', '.join(PROPERTY_KINDS)}.")
        kind = None
    allowed = set(_COMMON_KEYS) | set(_KIND_KEYS.get(kind, _ALL_KEYS))
    for key in entry:
        if key not in _ALL_KEYS:
            problem(str(key), f"unknown key in {label}. Allowed keys: {', '.join(_ALL_KEYS)}.")
        elif key not in allowed:
            problem(str(key), f"{label}: the key {key!r} does not apply to property {kind!r} "
                              f"(keys of {kind!r}: {', '.join(_KIND_KEYS[kind]) or 'none'}).")

    target = entry.get("target")
    if not isinstance(target, (str, int)) or not str(target).strip():
        problem("target", f"{label} needs a 'target' (the target column's name).")
        target = None
    else:
        target = str(target).strip()

    files: dict[str, Path] = {}
    raw_files = entry.get("files")
    if not isinstance(raw_files, Mapping) or not raw_files:
        problem("files", f"{label} needs 'files': a mapping of partition (train, test, ...) to file name.")
    else:
        for partition, file in raw_files.items():
            if not isinstance(file, str) or not file.strip():
                problem("files", f"{label}: the file of partition {partition!r} must be a file name; got {file!r}.")
                continue
            path = Path(file.strip())
            files[str(partition)] = path if path.is_absolute() else folder / path

    features: tuple[str, ...] | None = None
    if "features" in entry:
        features = _as_names(entry["features"])
        if features is None or not features:
            problem("features", f"{label}: 'features' must be a non-empty list of column names.")
            features = None
        else:
            repeated = sorted({f for f in features if features.count(f) > 1})
            if repeated:
                problem("features", f"{label}: the feature(s) {', '.join(map(repr, repeated))} are listed twice.")
            if target is not None and target in features:
                problem("features", f"{label}: the target {target!r} cannot also be a feature.")

    if check_files and files and target is not None:
        headers = {}
        for partition, path in files.items():
            if not path.is_file():
                problem("files", f"{label}: the {partition} file '{path}' does not exist. Give paths relative "
                                 "to the table (or its 'root'), pass root=..., or check_files=False to use "
                                 "the descriptions without the data.")
                continue
            try:
                headers[partition] = [str(c).strip() for c in
                                      read_csv_file(path, max_bytes=None, sep=separator_of(path), nrows=0).columns]
            except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
                problem("files", f"{label}: cannot read the {partition} file '{path}': {exc}")
        if features is None and "features" not in entry and headers:
            first = headers.get("train") or next(iter(headers.values()))
            features = tuple(c for c in first if c != target)
        for partition, header in headers.items():
            expected = [target] + list(features or ())
            missing = [c for c in expected if c not in header]
            if missing:
                problem("files", f"{label}: the {partition} file '{files[partition]}' has no column(s) "
                                 f"{', '.join(map(repr, missing))}. Columns: {', '.join(map(repr, header))}.")
    if features is None and "features" not in entry:
        if not check_files:
            problem("features", f"{label}: list its 'features' (they cannot be read from the files when "
                                "check_files=False).")
        features = ()

    spec_args: dict[str, Any] = {}
    known = set(features or ())

    def names_of(key: str) -> tuple[str, ...]:
        value = _as_names(entry.get(key))
        if value is None or not value:
            problem(key, f"{label}: property {kind!r} needs {key!r}: a non-empty list of feature names.")
            return ()
        for unknown in [v for v in value if known and v not in known]:
            problem(key, f"{unknown!r} is not a feature of {label}. Features: {', '.join(features)}.")
        return value

    truth = entry.get("truth")
    if truth is not None:
        if not isinstance(truth, str) or not truth.strip():
            problem("truth", f"{label}: 'truth' must be a formula (text); got {truth!r}.")
            truth = None
        else:
            truth = truth.strip()
            reason = _truth_problem(truth, features or None)
            if reason:
                problem("truth", f"{label}: the ground truth {truth!r} is not a valid model: {reason}")
    if kind == "exact" and truth is None and "truth" not in entry:
        problem("truth", f"{label}: property 'exact' needs 'truth', the ground-truth formula.")
    spec_args["truth"] = truth

    noise_level = entry.get("noise_level")
    if noise_level is not None:
        number = _as_float(noise_level)
        if number is None or not 0 <= number < 1:
            problem("noise_level", f"{label}: 'noise_level' must be a number with 0 <= level < 1 (the share "
                                   f"of the target's variance that is noise); got {noise_level!r}.")
            noise_level = None
        else:
            noise_level = number
    spec_args["noise_level"] = noise_level

    if kind == "feature_absence":
        spec_args["irrelevant"] = names_of("irrelevant")
    if kind == "local_optima":
        spec_args["surrogates"] = names_of("surrogates")
    if kind in ("feature_absence", "local_optima"):
        score = entry.get("score", "S1")
        if score not in FEATURE_SCORES:
            problem("score", f"{label}: 'score' must be one of {', '.join(FEATURE_SCORES)}; got {score!r}.")
            score = "S1"
        spec_args["score"] = score
        unwanted = spec_args.get("irrelevant") or spec_args.get("surrogates") or ()
        if features and unwanted and set(unwanted) >= set(features):
            problem("irrelevant" if kind == "feature_absence" else "surrogates",
                    f"{label}: every feature is listed as unwanted; at least one feature must be usable.")
    if kind == "extrapolation":
        partition = str(entry.get("partition", "test"))
        if files and partition not in files:
            problem("partition", f"{label}: the extrapolation partition {partition!r} is not one of its files "
                                 f"({', '.join(files)}).")
        spec_args["partition"] = partition
    if kind == "noise":
        if noise_level is None and "noise_level" not in entry:
            problem("noise_level", f"{label}: property 'noise' needs 'noise_level' (0 <= level < 1).")
        group = entry.get("group")
        if not isinstance(group, (str, int)) or not str(group).strip():
            problem("group", f"{label}: property 'noise' needs 'group', the name shared by the datasets "
                             "of one function at several noise levels.")
            group = None
        spec_args["group"] = None if group is None else str(group).strip()

    description = entry.get("description", "")
    if problems:
        return None, problems
    return dict(name=dataset, files=MappingProxyType(files), target=target, features=tuple(features),
                property=kind, description=str(description), **spec_args), problems


def _truth_problem(truth: str, features: Sequence[str] | None) -> str:
    # Lazy: srdash.expressions imports sympy (seconds), needed only when a table gives a ground truth.
    from srdash.expressions import parse_model

    try:
        parse_model(truth, features=features)
    except ModelRejected as exc:
        return exc.reason
    return ""


def _as_float(value) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def check_noise_groups(specs: Sequence[Any], *, name: str, rows: Mapping[str, int]) -> list[Problem]:
    """Problems of the noise groups: a group needs two datasets or more, at distinct noise levels."""
    problems = []
    groups: dict[str, list[Any]] = {}
    for spec in specs:
        if spec.property == "noise":
            groups.setdefault(spec.group, []).append(spec)
    for group, members in groups.items():
        levels = [m.noise_level for m in members]
        first = members[0]
        if len(members) < 2:
            problems.append(Problem(name, rows[first.name], "group",
                                    f"noise group {group!r} has only dataset {first.name!r}; the noise "
                                    "sensitivity compares at least two noise levels of one function."))
        repeated = sorted({level for level in levels if levels.count(level) > 1})
        for level in repeated:
            clash = [m.name for m in members if m.noise_level == level]
            problems.append(Problem(name, rows[clash[1]], "noise_level",
                                    f"noise group {group!r}: datasets {', '.join(map(repr, clash))} share the "
                                    f"noise level {level}; each level of a group must differ."))
    return problems


def separator_of(path: Path) -> str:
    """The field separator of a data file: a tab for ``.tsv`` (also compressed), else a comma."""
    return "\t" if ".tsv" in path.name.lower() else ","
