"""Dataset descriptions: which files, target, features and property each dataset tests.

A synthetic SRBench-style track ranks, besides accuracy and simplicity, a
*property* that each dataset was built to test. A **dataset table** says, per
dataset, where its data is and which property it tests; srdash validates it
once, when it is read (:func:`load_dataset_table`), and reports every problem at
once. srdash ships the descriptions of the SRBench 2022 synthetic datasets
(``srbench2022_synthetic``, see :func:`list_dataset_tables`) as an example to copy.

The YAML format
---------------
::

    description: "What these datasets are."   # optional
    root: data/                  # optional: folder of the files, relative to this file
    defaults: {target: y}        # optional: keys applied to every dataset that lacks them
    datasets:                    # one entry per dataset
      - name: exact_formula_easier
        files: {train: easier_train.csv, test: easier_test.csv}   # partition -> file
        target: y                # the target column
        features: [x1, x2, x3]   # optional: default = the train file's other columns
        property: exact          # see PROPERTY_KINDS
        truth: "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1"
        noise_level: 0           # optional except for 'noise'
        description: "..."       # optional

Property kinds and their keys:

``exact``
    ``truth`` (required): the ground-truth formula, in the syntax models use.
``feature_absence``
    ``irrelevant`` (required): the features the target does not depend on;
    ``score``: ``S1`` (default) or ``S2`` (see :mod:`srdash.judging.properties`).
``local_optima``
    ``surrogates`` (required): features that approximate parts of the target
    (with noise); ``score``: ``S1`` (default) or ``S2``.
``extrapolation``
    ``partition`` (default ``test``): the partition, one of ``files``, whose
    R2 is the property.
``noise``
    ``noise_level`` (required, 0 <= level < 1: the share of the target's
    variance that is noise) and ``group`` (required): the datasets that share
    one function at several noise levels. A group needs at least two datasets
    with distinct levels.
``none``
    no property.

``truth`` and ``noise_level`` may be given for any kind (informative: e.g. to
check a dataset by evaluating its ground truth). Lists may also be written as
space-separated text. Unknown keys are errors: a typo must not silently change
a verdict.

The CSV format
--------------
One row per dataset, with the columns ``dataset`` (the name), ``target``,
``features``, ``property``, ``truth``, ``irrelevant``, ``surrogates``,
``partition``, ``noise_level``, ``group``, ``score``, ``description`` and one
column per file: ``train``, ``test``, ``extrapolation`` or ``file_<partition>``
for any other partition. Lists are space-separated; empty cells mean "not
given". A CSV dataset table is also accepted by
:func:`srdash.io.loading.load_results` (``datasets=``), which reads its
``dataset`` and ``features`` columns.

Examples
--------
>>> table = load_dataset_table("srbench2022_synthetic", check_files=False)
>>> table["exact_formula_easier"].truth
'0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1'
>>> table["localopt_easy"].surrogates
('x6', 'x7', 'x8')
>>> table.noise_groups()["noise"]
(('noise_base', 0.0), ('noise_easy', 0.05), ('noise_medium', 0.1), ('noise_hard', 0.15))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.io.files import read_csv_file, read_file_text
from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.csvsafe import write_csv

__all__ = [
    "PROPERTY_KINDS",
    "FEATURE_SCORES",
    "DatasetSpec",
    "DatasetTable",
    "PartitionData",
    "load_dataset_table",
    "list_dataset_tables",
    "write_property_datasets",
    "write_descriptions",
]

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
_TOP_KEYS = ("datasets", "defaults", "description", "root")
_CSV_FILE_COLUMNS = ("train", "test", "extrapolation")
_LIST_KEYS = ("features", "irrelevant", "surrogates")
_SHIPPED_SUFFIX = ".yaml"


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset's description (validated; build with :func:`load_dataset_table`).

    Attributes
    ----------
    name : str
    files : Mapping of str to Path
        Partition name (``train``, ``test``, ``extrapolation``, ...) -> file.
    target : str
        The target column.
    features : tuple of str
        The feature columns, in file order.
    property : str
        One of :data:`PROPERTY_KINDS`.
    truth : str or None
        The ground-truth formula (required for ``exact``).
    irrelevant : tuple of str
        ``feature_absence``: the features the target does not depend on.
    surrogates : tuple of str
        ``local_optima``: the surrogate features.
    partition : str or None
        ``extrapolation``: the partition whose R2 is the property.
    noise_level : float or None
        Share of the target's variance that is noise (required for ``noise``).
    group : str or None
        ``noise``: the group of datasets sharing one function.
    score : {'S1', 'S2'}
        ``feature_absence`` and ``local_optima``: which feature score.
    description : str
    """

    name: str
    files: Mapping[str, Path]
    target: str
    features: tuple[str, ...]
    property: str
    truth: str | None = None
    irrelevant: tuple[str, ...] = ()
    surrogates: tuple[str, ...] = ()
    partition: str | None = None
    noise_level: float | None = None
    group: str | None = None
    score: str = "S1"
    description: str = ""

    @property
    def unwanted(self) -> tuple[str, ...]:
        """The features a good model leaves out: ``irrelevant`` or ``surrogates`` (else empty)."""
        return self.irrelevant if self.property == "feature_absence" else self.surrogates

    @property
    def wanted(self) -> tuple[str, ...]:
        """The other features (those a model may use)."""
        unwanted = set(self.unwanted)
        return tuple(f for f in self.features if f not in unwanted)


@dataclass(frozen=True, eq=False)
class PartitionData:
    """One partition of a dataset, read and checked.

    Attributes
    ----------
    path : Path
    columns : Mapping of str to ndarray
        Feature name -> float values (what :func:`srdash.expressions.evaluate_model` takes).
    target : ndarray
    """

    path: Path
    columns: Mapping[str, np.ndarray]
    target: np.ndarray

    def __len__(self) -> int:
        return len(self.target)


@dataclass(frozen=True, eq=False)
class DatasetTable:
    """Validated dataset descriptions.

    Attributes
    ----------
    datasets : tuple of DatasetSpec
        In the order of the table.
    source : str
        Where the table came from (path, shipped name or ``<DataFrame>``).
    description : str
    """

    datasets: tuple[DatasetSpec, ...]
    source: str = "<table>"
    description: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.datasets)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __iter__(self):
        return iter(self.datasets)

    def __len__(self) -> int:
        return len(self.datasets)

    def __getitem__(self, name: str) -> DatasetSpec:
        for spec in self.datasets:
            if spec.name == name:
                return spec
        raise SrdashError(f"The dataset table {self.source} has no dataset {name!r}. "
                          f"Datasets: {', '.join(self.names)}.")

    @property
    def features(self) -> Mapping[str, tuple[str, ...]]:
        """Dataset name -> feature names (as :class:`srdash.io.loading.Results` holds them)."""
        return MappingProxyType({spec.name: spec.features for spec in self.datasets})

    def of_kind(self, *kinds: str) -> tuple[DatasetSpec, ...]:
        """The datasets testing one of ``kinds``."""
        return tuple(spec for spec in self.datasets if spec.property in kinds)

    def noise_groups(self) -> dict[str, tuple[tuple[str, float], ...]]:
        """Noise group -> ((dataset, noise level), ...) sorted by level."""
        groups: dict[str, list[tuple[str, float]]] = {}
        for spec in self.of_kind("noise"):
            groups.setdefault(spec.group, []).append((spec.name, float(spec.noise_level)))
        return {g: tuple(sorted(items, key=lambda item: item[1])) for g, items in groups.items()}

    def frame(self) -> pd.DataFrame:
        """One row per dataset in the CSV format (lists space-separated).

        It can be written with ``to_csv`` and read back, and passed to
        :func:`srdash.io.loading.load_results` as ``datasets=``.
        """
        seen = list(dict.fromkeys(p for spec in self.datasets for p in spec.files))
        partitions = [p for p in _CSV_FILE_COLUMNS if p in seen] + [p for p in seen if p not in _CSV_FILE_COLUMNS]
        rows = []
        for spec in self.datasets:
            row = {"dataset": spec.name, "property": spec.property, "target": spec.target,
                   "features": " ".join(spec.features)}
            for partition in partitions:
                column = partition if partition in _CSV_FILE_COLUMNS else f"file_{partition}"
                row[column] = str(spec.files[partition]) if partition in spec.files else None
            row.update({
                "truth": spec.truth, "irrelevant": " ".join(spec.irrelevant) or None,
                "surrogates": " ".join(spec.surrogates) or None, "partition": spec.partition,
                "noise_level": spec.noise_level, "group": spec.group,
                "score": spec.score if spec.property in ("feature_absence", "local_optima") else None,
                "description": spec.description or None,
            })
            rows.append(row)
        return pd.DataFrame(rows)

    def read(self, name: str, partition: str) -> PartitionData:
        """Read one partition of a dataset, checking its columns and values.

        Raises
        ------
        SrdashError
            When the dataset has no such partition, the file cannot be read,
            a feature or the target column is missing (the message lists the
            columns present) or a value is not a number (file, row, column).
        """
        spec = self[name]
        if partition not in spec.files:
            raise SrdashError(f"Dataset {name!r} has no partition {partition!r}. "
                              f"Partitions: {', '.join(spec.files)}.")
        return _read_partition(spec.files[partition], spec)


# --------------------------------------------------------------------------- reading


def list_dataset_tables() -> list[str]:
    """Names of the dataset tables shipped with srdash.

    Examples
    --------
    >>> list_dataset_tables()
    ['srbench2022_synthetic']
    """
    folder = resources.files("srdash") / "data"
    return sorted(p.name[: -len(_SHIPPED_SUFFIX)] for p in folder.iterdir() if p.name.endswith(_SHIPPED_SUFFIX))


def load_dataset_table(source, *, root: str | Path | None = None, check_files: bool = True) -> DatasetTable:
    """Read and validate a dataset table, reporting every problem at once.

    Parameters
    ----------
    source : str, path-like, DataFrame or mapping
        A ``.yaml``/``.yml`` file, a ``.csv``/``.tsv`` file, the name of a
        shipped table (:func:`list_dataset_tables`), a DataFrame in the CSV
        format or a mapping in the YAML format.
    root : path-like, optional
        Folder that relative file names are relative to. Default: the table's
        ``root`` key (relative to the table file), else the table file's
        folder (the current folder for DataFrames and mappings). Give it to use
        a shipped table with your copy of the data.
    check_files : bool
        Check that every file exists and has the target and feature columns
        (only the header is read). ``False`` to use the descriptions without
        the data (e.g. to score feature absence from model strings).

    Returns
    -------
    DatasetTable

    Raises
    ------
    ValidationError
        Listing every problem with the table, the dataset's row (1-based
        position) and the key: unknown keys, missing required keys, an
        unknown property kind, features that are not in the dataset, a
        ground truth that does not parse, a noise group with fewer than two
        levels, missing files, ...
    SrdashError
        When the table itself cannot be read.

    Examples
    --------
    >>> bad = {"datasets": [{"name": "d", "files": {"test": "d.csv"}, "target": "y",
    ...         "features": ["x1", "x2"], "property": "feature_absence", "irrelevant": ["x3"],
    ...         "colour": "red"}]}
    >>> try:
    ...     load_dataset_table(bad, check_files=False)
    ... except ValidationError as error:
    ...     print(error)
    The dataset table <mapping> is not valid (2 problems):
      - <mapping>, row 1, column 'colour': unknown key in dataset 'd'. Allowed keys: description, features, files, group, irrelevant, name, noise_level, partition, property, score, surrogates, target, truth.
      - <mapping>, row 1, column 'irrelevant': 'x3' is not a feature of dataset 'd'. Features: x1, x2.
    """
    data, name, base = _read_source(source)
    problems: list[Problem] = []
    top_unknown = sorted(set(data) - set(_TOP_KEYS))
    for key in top_unknown:
        problems.append(Problem(name, None, key, f"unknown top-level key. Allowed: {', '.join(_TOP_KEYS)}."))
    if root is None and data.get("root") is not None:
        root = base / str(data["root"])
    folder = Path(root) if root is not None else base
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, Mapping):
        problems.append(Problem(name, None, "defaults", f"must be a mapping of keys to values; got {defaults!r}."))
        defaults = {}
    entries = data.get("datasets")
    if not isinstance(entries, list) or not entries:
        problems.append(Problem(name, None, "datasets", "the table needs a non-empty list 'datasets' "
                                                        "(one entry per dataset)."))
        entries = []
    specs: list[DatasetSpec] = []
    first_row: dict[str, int] = {}
    for row, entry in enumerate(entries, start=1):
        if not isinstance(entry, Mapping):
            problems.append(Problem(name, row, None, f"each dataset must be a mapping of keys; got {entry!r}."))
            continue
        merged = {**defaults, **{k: v for k, v in entry.items() if not _is_missing(v)}}
        label = str(merged.get("name", "")).strip()
        if label and label in first_row:
            problems.append(Problem(name, row, "name", f"dataset {label!r} is already described at row "
                                                       f"{first_row[label]}; describe each dataset once."))
            continue
        if label:
            first_row[label] = row
        spec, entry_problems = _build_spec(merged, name=name, row=row, folder=folder, check_files=check_files)
        problems += entry_problems
        if spec is not None:
            specs.append(spec)
    problems += _check_noise_groups(specs, name=name, rows=first_row)
    if problems:
        raise ValidationError(problems, header=f"The dataset table {name} is not valid")
    return DatasetTable(datasets=tuple(specs), source=name, description=str(data.get("description") or ""))


def _read_source(source) -> tuple[dict, str, Path]:
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
        record = {str(k).strip(): v for k, v in record.items() if not _is_missing(v)}
        entry: dict[str, Any] = {}
        files = {}
        for key, value in record.items():
            if key == "dataset":
                entry["name"] = value
            elif key in _CSV_FILE_COLUMNS:
                files[key] = value
            elif key.startswith("file_"):
                files[key[len("file_"):]] = value
            else:
                entry[key] = value
        if files:
            entry["files"] = files
        entries.append(entry)
    return {"datasets": entries}


def _is_missing(value) -> bool:
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


def _build_spec(entry: Mapping, *, name: str, row: int, folder: Path,
                check_files: bool) -> tuple[DatasetSpec | None, list[Problem]]:
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
                                      read_csv_file(path, max_bytes=None, sep=_separator(path), nrows=0).columns]
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
    return DatasetSpec(name=dataset, files=MappingProxyType(files), target=target, features=tuple(features),
                       property=kind, description=str(description), **spec_args), problems


def _truth_problem(truth: str, features: Sequence[str] | None) -> str:
    from srdash.errors import ModelRejected
    from srdash.expressions import parse_model  # the only module that talks to sympy

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


def _check_noise_groups(specs: Sequence[DatasetSpec], *, name: str, rows: Mapping[str, int]) -> list[Problem]:
    problems = []
    groups: dict[str, list[DatasetSpec]] = {}
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


def _separator(path: Path) -> str:
    return "\t" if ".tsv" in path.name.lower() else ","


def _read_partition(path: Path, spec: DatasetSpec) -> PartitionData:
    try:
        frame = read_csv_file(path, max_bytes=None, sep=_separator(path))
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise SrdashError(f"Cannot read '{path}' (dataset {spec.name!r}): {exc}") from exc
    frame.columns = [str(c).strip() for c in frame.columns]
    needed = list(spec.features) + [spec.target]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise SrdashError(f"'{path}' (dataset {spec.name!r}) has no column(s) {', '.join(map(repr, missing))}. "
                          f"Columns: {', '.join(map(repr, frame.columns))}.")
    bad = []
    values = {}
    for column in needed:
        numbers = pd.to_numeric(frame[column], errors="coerce")
        wrong = numbers.isna() & frame[column].notna()
        missing_cells = frame[column].isna()
        for position in np.flatnonzero((wrong | missing_cells).to_numpy())[:3]:
            bad.append(f"row {position + 1}, column {column!r}: {frame[column].iloc[position]!r}")
        values[column] = numbers.to_numpy(dtype=float)
    if bad:
        raise SrdashError(f"'{path}' (dataset {spec.name!r}) must hold a number in every cell; not numbers: "
                          f"{'; '.join(bad)}.")
    return PartitionData(path=path, columns=MappingProxyType({f: values[f] for f in spec.features}),
                         target=values[spec.target])


# --------------------------------------------------------------------------- generator


@dataclass(frozen=True)
class _Generated:
    name: str
    kind: str
    truth: str
    function: Any            # numpy function of the columns mapping
    features: tuple[str, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)
    noise_level: float = 0.0
    description: str = ""


def _x(n: int) -> tuple[str, ...]:
    return tuple(f"x{i}" for i in range(1, n + 1))


def _noise_curve(c):
    return (0.1 * c["x1"] ** 3 - c["x1"]) / (0.5 * c["x1"] ** 2 + 1)


_GENERATED = (
    _Generated("exact_easy", "exact", "1.5*x1 - 0.5*x2 + 2",
               lambda c: 1.5 * c["x1"] - 0.5 * c["x2"] + 2, _x(4),
               description="Linear; x3 and x4 unused."),
    _Generated("exact_medium", "exact", "x1*x2 + 0.5*x3**2 - 1",
               lambda c: c["x1"] * c["x2"] + 0.5 * c["x3"] ** 2 - 1, _x(4),
               description="Polynomial of degree 2; x4 unused."),
    _Generated("exact_hard", "exact", "(2*x1*x2 - x3)/(1 + 0.5*x1**2)",
               lambda c: (2 * c["x1"] * c["x2"] - c["x3"]) / (1 + 0.5 * c["x1"] ** 2), _x(4),
               description="Rational function; x4 unused."),
    _Generated("feature_absence", "feature_absence", "0.9*x1*x2 + 0.5*x3**2 - 1.2*x4",
               lambda c: 0.9 * c["x1"] * c["x2"] + 0.5 * c["x3"] ** 2 - 1.2 * c["x4"], _x(10),
               extra={"irrelevant": _x(10)[4:]}, noise_level=0.05,
               description="Six irrelevant features x5..x10."),
    _Generated("local_optima", "local_optima", "0.8*x1*x2 + 1.5*x3*x4 + 0.3*x2**2",
               lambda c: 0.8 * c["x1"] * c["x2"] + 1.5 * c["x3"] * c["x4"] + 0.3 * c["x2"] ** 2, _x(6),
               extra={"surrogates": ("x5", "x6")},
               description="x5 and x6 approximate 0.8*x1*x2 and 1.5*x3*x4 (10% noise); 100 training rows."),
    _Generated("extrapolation", "extrapolation", "tanh(0.3*x1) + 0.2*sin(4*x1)",
               lambda c: np.tanh(0.3 * c["x1"]) + 0.2 * np.sin(4 * c["x1"]), ("x1",),
               extra={"partition": "extrapolation"}, noise_level=0.02,
               description="Train and test: -10 <= x1 <= 10; extrapolation partition: 10 < x1 <= 20."),
) + tuple(
    _Generated(f"noise_{round(level * 100)}", "noise", "(0.1*x1**3 - x1)/(0.5*x1**2 + 1)", _noise_curve, ("x1",),
               extra={"group": "noise"}, noise_level=level,
               description=f"One function, {round(level * 100)}% of the target's variance is noise.")
    for level in (0.0, 0.05, 0.1, 0.2)
)


def _with_noise(y: np.ndarray, level: float, rng) -> np.ndarray:
    # As the 2022 generator: noise sd = sd(y) * sqrt(level / (1 - level)), so that noise
    # is `level` of the noisy target's variance.
    if level == 0:
        return y
    return y + rng.normal(0.0, np.std(y) * math.sqrt(level / (1 - level)), size=y.shape)


def _generate(item: _Generated, rng, shared_rng) -> dict[str, pd.DataFrame]:
    n_train, n_test = (100, 400) if item.kind == "local_optima" else (200, 400)
    if item.kind == "extrapolation":
        inside = rng.uniform(-10, 10, size=n_train + n_test)
        parts = {"train": inside[:n_train], "test": inside[n_train:],
                 "extrapolation": rng.uniform(10, 20, size=200)}
        columns = {p: {"x1": np.sort(v)} for p, v in parts.items()}
    elif item.kind == "noise":
        # The datasets of a noise group share their inputs: only the noise differs.
        columns = {"train": {"x1": np.linspace(-8, 8, 50)}, "test": {"x1": shared_rng.uniform(-8, 8, size=n_test)}}
    else:
        atoms = [f for f in item.features if f not in item.extra.get("surrogates", ())]
        columns = {"train": {f: rng.uniform(-5, 5, n_train) for f in atoms},
                   "test": {f: rng.uniform(-5, 5, n_test) for f in atoms}}
        if item.kind == "local_optima":
            for part in columns.values():
                c = part
                for name, value in (("x5", 0.8 * c["x1"] * c["x2"]), ("x6", 1.5 * c["x3"] * c["x4"])):
                    c[name] = _with_noise(value, 0.1, rng)
    frames = {}
    sizes = {p: len(next(iter(c.values()))) for p, c in columns.items()}
    y_all = np.concatenate([item.function(columns[p]) for p in columns])
    y_all = _with_noise(y_all, item.noise_level, rng)
    start = 0
    for partition, c in columns.items():
        frame = pd.DataFrame({f: c[f] for f in item.features})
        frame["y"] = y_all[start:start + sizes[partition]]
        start += sizes[partition]
        frames[partition] = frame
    return frames


def write_property_datasets(directory: str | Path, *, seed: int = 0) -> DatasetTable:
    """Write small property datasets of every kind, and their description file.

    Written to ``directory``: ``<name>_<partition>.csv`` for every dataset and
    partition (target column ``y``) and ``datasets.yaml`` describing them:

    * ``exact_easy``, ``exact_medium``, ``exact_hard``: exact formulas of graded
      difficulty (linear, quadratic, rational), noiseless;
    * ``feature_absence``: 10 features of which x5..x10 are irrelevant, 5% noise;
    * ``local_optima``: x5 and x6 are noisy surrogates of two terms; 100 training rows;
    * ``extrapolation``: train/test on -10 <= x1 <= 10, an ``extrapolation``
      partition on 10 < x1 <= 20;
    * ``noise_0``, ``noise_5``, ``noise_10``, ``noise_20``: one function at 0, 5,
      10 and 20 % noise (group ``noise``).

    Noise follows the 2022 generator: normal noise whose variance is the
    ``noise_level`` share of the noisy target's variance.

    Parameters
    ----------
    directory : path-like
        Created if needed; existing files of the same names are replaced.
    seed : int
        Seed of the random numbers; the same seed writes the same files.

    Returns
    -------
    DatasetTable
        The validated descriptions (read back from ``datasets.yaml``).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     table = write_property_datasets(folder, seed=1)
    ...     part = table.read("exact_easy", "test")
    >>> [spec.property for spec in table][:5]
    ['exact', 'exact', 'exact', 'feature_absence', 'local_optima']
    >>> bool(np.allclose(part.target, 1.5 * part.columns["x1"] - 0.5 * part.columns["x2"] + 2))
    True
    """

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    root_rng = np.random.default_rng(seed)
    streams = root_rng.spawn(len(_GENERATED))
    entries = []
    for item, rng in zip(_GENERATED, streams):
        frames = _generate(item, rng, np.random.default_rng([seed, 1]))
        files = {}
        for partition, frame in frames.items():
            file = f"{item.name}_{partition}.csv"
            write_csv(frame, folder / file, index=False, float_format="%.10g")
            files[partition] = file
        entry = {"name": item.name, "property": item.kind, "files": files, "target": "y",
                 "features": list(item.features), "truth": item.truth, "noise_level": item.noise_level}
        entry.update({k: list(v) if isinstance(v, tuple) else v for k, v in item.extra.items()})
        entry["description"] = item.description
        entries.append(entry)
    document = {
        "description": f"Property datasets written by srdash (seed {seed}): exact formulas, irrelevant "
                       "features, surrogate features, an extrapolation partition and one function at "
                       "four noise levels.",
        "datasets": entries,
    }
    return write_descriptions(folder / "datasets.yaml", document, comment="Written by `srdash datasets`; edit freely.")


def write_descriptions(path: str | Path, document: Mapping, *, comment: str = "") -> DatasetTable:
    """Write a descriptions document as YAML and read it back through the validation.

    Every description file srdash writes (``srdash datasets``, the demo
    competition) goes through here, so it is valid by construction: a
    generator that produced an invalid entry fails here, not in a user's judging.

    Parameters
    ----------
    path : path-like
        The YAML file; the data files it names are relative to its folder.
    document : mapping
        ``{"description": ..., "defaults": {...}, "datasets": [entry, ...]}``
        (the format of this module).
    comment : str
        A line for the file's header.

    Returns
    -------
    DatasetTable
    """
    import yaml

    path = Path(path)
    header = "# srdash dataset descriptions (format: see the srdash.io.datasets module).\n"
    header += f"# {comment}\n" if comment else ""
    path.write_text(header + yaml.safe_dump(dict(document), sort_keys=False, default_flow_style=None, width=100),
                    encoding="utf-8")
    return load_dataset_table(path)
