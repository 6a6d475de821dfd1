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

The rooms
---------
This module assembles the verdict: :mod:`srdash.io.resultfiles` reads the input
(files, folders, DataFrames) into raw cells, :mod:`srdash.io.resultcolumns`
applies the column rule, :mod:`srdash.io.cells` reads one cell and
:mod:`srdash.io.csvshape` checks a CSV's rows against its header. Their public
names used elsewhere are importable from here as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import pandas as pd

from srdash.errors import ValidationError
from srdash.io.cells import PLAIN_NUMBER, number_cells  # noqa: F401 (PLAIN_NUMBER: public here before the split)
from srdash.io.csvshape import check_csv_shape
from srdash.io.resultcolumns import (COLUMN_ALIASES, METRIC_COLUMNS, TEXT_COLUMNS, canonical_table,
                                     read_dataset_table)
from srdash.io.resultfiles import read_results

__all__ = ["Results", "load_results", "check_csv_shape", "number_cells", "COLUMN_ALIASES", "TEXT_COLUMNS",
           "METRIC_COLUMNS"]


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
    raw, problems = read_results(source)
    table, row_features, table_problems = canonical_table(raw)
    problems += table_problems
    features: dict[str, tuple[str, ...]] = {}
    feature_origin: dict[str, str] = {}
    sources = list(raw.sources)
    if datasets is not None:
        dataset_features, dataset_sources, dataset_problems = read_dataset_table(datasets)
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
