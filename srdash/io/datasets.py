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

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

import numpy as np
import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.descriptions import (CSV_FILE_COLUMNS, FEATURE_SCORES, PROPERTY_KINDS, TOP_KEYS,
                                    check_noise_groups, is_blank, list_dataset_tables, read_source,
                                    separator_of, spec_fields)
from srdash.io.files import read_csv_file
from srdash.io.propertydata import write_property_data

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
        partitions = [p for p in CSV_FILE_COLUMNS if p in seen] + [p for p in seen if p not in CSV_FILE_COLUMNS]
        rows = []
        for spec in self.datasets:
            row = {"dataset": spec.name, "property": spec.property, "target": spec.target,
                   "features": " ".join(spec.features)}
            for partition in partitions:
                column = partition if partition in CSV_FILE_COLUMNS else f"file_{partition}"
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
    data, name, base = read_source(source)
    problems: list[Problem] = []
    top_unknown = sorted(set(data) - set(TOP_KEYS))
    for key in top_unknown:
        problems.append(Problem(name, None, key, f"unknown top-level key. Allowed: {', '.join(TOP_KEYS)}."))
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
        merged = {**defaults, **{k: v for k, v in entry.items() if not is_blank(v)}}
        label = str(merged.get("name", "")).strip()
        if label and label in first_row:
            problems.append(Problem(name, row, "name", f"dataset {label!r} is already described at row "
                                                       f"{first_row[label]}; describe each dataset once."))
            continue
        if label:
            first_row[label] = row
        fields, entry_problems = spec_fields(merged, name=name, row=row, folder=folder, check_files=check_files)
        problems += entry_problems
        if fields is not None:
            specs.append(DatasetSpec(**fields))
    problems += check_noise_groups(specs, name=name, rows=first_row)
    if problems:
        raise ValidationError(problems, header=f"The dataset table {name} is not valid")
    return DatasetTable(datasets=tuple(specs), source=name, description=str(data.get("description") or ""))


def _read_partition(path: Path, spec: DatasetSpec) -> PartitionData:
    try:
        frame = read_csv_file(path, max_bytes=None, sep=separator_of(path))
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
    document = write_property_data(folder, seed=seed)
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
