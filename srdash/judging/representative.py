"""Representative models: the one run per (method, dataset) that an expert reviews.

In the real-world track a method's runs on a dataset are represented by one
model, and the expert's trust review and the verdict both use exactly that
model. The rules' ``[representative]`` table says which run it is:

``closest-to-median`` (the default, SRBench 2022)
    the run whose test R2 is closest to the median test R2 of the method's runs
    on the dataset;
``best`` (the 2022 draft rules)
    the run with the highest test R2;
``closest-to-median-unrounded`` (SRBench 2022 real-world track as run)
    as the organisers' notebook chose it: the unrounded test R2 nearest the
    median of the runs that have one, the first such run (lowest run number).

Test R2 is rounded to the accuracy criterion's decimals first (as the ranking
does), and a run without a test R2 counts as the worst value (-inf), taking
part in the median like any other run. Ties are broken by fewer components
(unknown components count as infinitely many), then by the lower run number.
A (method, dataset) without any run has no representative: it is DNF.

This module also finds and reads a dataset's test data and predicts it with a
representative model, for the review's predicted-versus-actual figures. Model
strings are untrusted: they are only ever evaluated through
:func:`srdash.expressions.evaluate_model` (a whitelisting parser).

Examples
--------
>>> import pandas as pd
>>> runs = pd.DataFrame({"method": "a", "dataset": "d", "run": [0, 1, 2],
...                      "r2_test": [0.5, 0.9, 0.7], "components": [9, 5, 7]})
>>> representative_runs(runs)[["method", "dataset", "run", "r2_test", "n_runs", "r2_reference"]]
  method dataset  run  r2_test  n_runs  r2_reference
0      a       d    2      0.7       3           0.7
>>> representative_runs(runs, choice="best")["run"].tolist()
[1]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from srdash.io.files import read_csv_file
from srdash.errors import RulesError, SrdashError
from srdash.judging.rules import Rules

__all__ = [
    "CHOICES",
    "representative_choice",
    "representative_runs",
    "TestData",
    "find_test_file",
    "load_test_data",
    "predict_test",
]

#: Which run represents a method on a dataset (the rules' ``[representative] choice``).
CHOICES = ("closest-to-median", "best", "closest-to-median-unrounded")

# Distances to the median are compared after rounding, so that float noise in
# |0.2 - 0.25| versus |0.3 - 0.25| cannot break a genuine tie.
_DISTANCE_DECIMALS = 9
_R2_COLUMN = "r2_test"
_TEST_SUFFIXES = ("_test.csv", "_test.csv.gz", "_test.tsv", "_test.tsv.gz")
_TARGET_NAMES = ("target", "y")
_DATE_NAMES = ("date", "time", "timestamp", "day")


def representative_choice(rules: Rules) -> str:
    """The representative choice of ``rules`` (``closest-to-median`` when unstated).

    Raises
    ------
    RulesError
        When the rules' ``[representative]`` table is not valid.

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> representative_choice(load_rules("srbench2022-draft"))
    'best'
    >>> representative_choice(load_rules("srbench2022-realworld"))
    'closest-to-median'
    """
    section = dict(rules.sections.get("representative", {}))
    unknown = sorted(set(section) - {"choice"})
    if unknown:
        raise RulesError(f"rules '{rules.name}': unknown key(s) {', '.join(unknown)} in [representative]. "
                         "Allowed: choice.")
    choice = section.get("choice", "closest-to-median")
    _check_choice(choice, where=f"rules '{rules.name}': [representative]")
    return choice


def _check_choice(choice: str, *, where: str = "representative_runs") -> None:
    if choice not in CHOICES:
        listed = ", ".join(f"'{c}'" for c in CHOICES)
        raise RulesError(f"{where}: the 'choice' option must be one of {listed}. Got {choice!r}.")


def representative_runs(runs: pd.DataFrame, *, choice: str = "closest-to-median", column: str = _R2_COLUMN,
                        decimals: int | None = 3,
                        prepare: Callable[[pd.DataFrame], pd.DataFrame] | None = None) -> pd.DataFrame:
    """Pick the representative run of every (method, dataset).

    Parameters
    ----------
    runs : DataFrame
        Per-run table with ``method``, ``dataset``, ``column`` and optionally
        ``run`` (0 when absent) and ``components``.
    choice : {'closest-to-median', 'best', 'closest-to-median-unrounded'}
        ``closest-to-median``: the run minimising ``|r2 - median(r2)|`` over the
        method's runs on the dataset; ``best``: the run maximising ``r2``;
        ``closest-to-median-unrounded``: as the SRBench 2022 notebook, unrounded,
        missing values skipped, the lowest run among equally close ones
        (``decimals`` and the components tie-break do not apply).
    column : str
        The accuracy column (higher is better).
    decimals : int or None
        Round the accuracy to this many decimals before comparing (the
        accuracy criterion's rounding). None: no rounding.
    prepare : callable, optional
        Applied to the candidate runs (those tied on accuracy, usually one per
        method and dataset) before the components tie-break, keeping their
        index: e.g. :func:`srdash.judging.pipeline.prepare_runs`, so that only the
        candidates are simplified, not every run.

    Returns
    -------
    DataFrame
        The chosen run's row for every (method, dataset) that has runs, sorted
        by (dataset, method) with a fresh index, plus ``n_runs`` (the number of
        runs it was chosen from) and ``r2_reference`` (the rounded median or
        best accuracy it was measured against; NaN when that is the worst
        value, i.e. at least half the runs have no accuracy).

    Notes
    -----
    A run without an accuracy value counts as -inf: the median of
    (0.5, missing, 0.9) is 0.5. With an even number of runs the median lies
    between the two middle runs, which are then usually equally close; the tie
    goes to fewer components, then to the lower run number.

    Raises
    ------
    SrdashError
        When a required column is missing.

    Examples
    --------
    Four runs: the median 0.25 is equally far from 0.2 and 0.3; run 3 has fewer
    components:

    >>> runs = pd.DataFrame({"method": "a", "dataset": "d", "run": [0, 1, 2, 3],
    ...                      "r2_test": [0.1, 0.2, 0.4, 0.3], "components": [5, 9, 5, 7]})
    >>> representative_runs(runs)[["run", "r2_test", "r2_reference"]]
       run  r2_test  r2_reference
    0    3      0.3          0.25
    """
    _check_choice(choice)
    needed = ["method", "dataset", column]
    missing = [c for c in needed if c not in runs.columns]
    if missing:
        raise SrdashError(f"Cannot choose representative runs: the table has no column(s) "
                          f"{', '.join(map(repr, missing))}. Columns: {', '.join(map(repr, runs.columns))}.")
    table = runs.reset_index(drop=True)
    if choice == "closest-to-median-unrounded":
        return _closest_unrounded(table, column, prepare)
    accuracy = pd.to_numeric(table[column], errors="coerce").astype(float)
    if decimals is not None:
        accuracy = accuracy.round(decimals)
    accuracy = accuracy.fillna(-np.inf)
    groups = [table["dataset"].to_numpy(), table["method"].to_numpy()]
    grouped = accuracy.groupby(groups, sort=False)
    reference = grouped.transform("median" if choice == "closest-to-median" else "max")
    with np.errstate(invalid="ignore"):
        distance = pd.Series(np.round(np.where(accuracy == reference, 0.0, np.abs(accuracy - reference)),
                                      _DISTANCE_DECIMALS), index=table.index)
    closest = distance == distance.groupby(groups, sort=False).transform("min")
    candidates = table[closest].assign(n_runs=grouped.transform("size")[closest].astype(int),
                                       r2_reference=reference[closest].replace(-np.inf, np.nan))
    if prepare is not None:
        candidates = prepare(candidates)
    components = (pd.to_numeric(candidates["components"], errors="coerce").astype(float).fillna(np.inf)
                  if "components" in candidates.columns else pd.Series(0.0, index=candidates.index))
    order = pd.DataFrame({
        "dataset": candidates["dataset"], "method": candidates["method"], "components": components,
        "run": candidates["run"] if "run" in candidates.columns else 0,
    }).sort_values(["dataset", "method", "components", "run"], kind="mergesort")
    chosen = order.groupby(["dataset", "method"], sort=False).head(1).index
    return candidates.loc[chosen].sort_values(["dataset", "method"], kind="mergesort", ignore_index=True)


def _closest_unrounded(table: pd.DataFrame, column: str,
                       prepare: Callable[[pd.DataFrame], pd.DataFrame] | None) -> pd.DataFrame:
    """stage2_final_ratings.ipynb, cell 14: ``median()`` of the runs' R2 (missing values skipped), then
    ``(r2 - median).abs().idxmin()``: the first run at the smallest distance, compared unrounded (the notebook
    took the first row of its files; here the lowest run). A (method, dataset) without any R2 has none."""
    keys = ["dataset", "method"] + (["run"] if "run" in table.columns else [])
    ordered = table.sort_values(keys, kind="mergesort")
    accuracy = pd.to_numeric(ordered[column], errors="coerce").astype(float)
    groups = [ordered["dataset"].to_numpy(), ordered["method"].to_numpy()]
    median = accuracy.groupby(groups, sort=False).transform("median")
    distance = (accuracy - median).abs()
    nearest = distance == distance.groupby(groups, sort=False).transform("min")
    chosen = ordered[nearest].groupby(["dataset", "method"], sort=False).head(1)
    chosen = chosen.assign(n_runs=accuracy.groupby(groups, sort=False).transform("size")[chosen.index].astype(int),
                           r2_reference=median[chosen.index])
    if prepare is not None:
        chosen = prepare(chosen)
    return chosen.sort_values(["dataset", "method"], kind="mergesort", ignore_index=True)


# --------------------------------------------------------------------------- test data


@dataclass(frozen=True, eq=False)
class TestData:
    """A dataset's test split, as the review's figures need it.

    Attributes
    ----------
    path : Path
        The file read.
    features : DataFrame
        The feature columns (numeric), in file order.
    target : Series
        The target values (named after the target column).
    dates : Series or None
        The date column parsed as datetimes, when the file has one.
    """

    __test__ = False  # not a pytest test class

    path: Path
    features: pd.DataFrame
    target: pd.Series
    dates: pd.Series | None = None

    @property
    def columns(self) -> dict[str, np.ndarray]:
        """Feature name -> values, as :func:`srdash.expressions.evaluate_model` takes them."""
        return {name: self.features[name].to_numpy(dtype=float) for name in self.features.columns}


def find_test_file(data_dir: str | Path, dataset: str) -> Path | None:
    """The test-data file of ``dataset`` in ``data_dir``, or None.

    Looked for, in this order: ``<dataset>_test.csv`` (also ``.csv.gz``,
    ``.tsv``, ``.tsv.gz``), ``<dataset>/test.csv``, then the single file whose
    name contains both the dataset's name and ``test`` (so that the 2022 task
    ``cases`` finds ``135_NY_value_cases_14_14_test.csv``). Several such files:
    None, since guessing could show the wrong data. A dataset name that is a
    path (``../x``, ``/x``, ``a/b``), or a file that is a link leading out of
    ``data_dir``, finds nothing.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "135_NY_value_cases_14_14_test.csv").write_text("date,x,y\\n")
    ...     find_test_file(folder, "cases").name, find_test_file(folder, "hosp")
    ('135_NY_value_cases_14_14_test.csv', None)
    """
    folder = Path(data_dir)
    # A dataset name comes from the results (a competitor's file): one that is a path ('../x',
    # '/etc/x', 'a/b') must not lead outside the data folder.
    if (not dataset or dataset in (".", "..") or "\0" in dataset or "/" in dataset or "\\" in dataset
            or Path(dataset).is_absolute() or not folder.is_dir()):
        return None
    root = folder.resolve()

    def inside(candidate: Path) -> bool:
        return candidate.is_file() and candidate.resolve().is_relative_to(root)

    for suffix in _TEST_SUFFIXES:
        candidate = folder / f"{dataset}{suffix}"
        if inside(candidate):
            return candidate
    candidate = folder / dataset / "test.csv"
    if inside(candidate):
        return candidate
    matches = sorted(p for p in folder.iterdir()
                     if inside(p) and dataset in p.name and "test" in p.name.lower()
                     and p.name.lower().endswith(tuple(s[len("_test"):] for s in _TEST_SUFFIXES)))
    return matches[0] if len(matches) == 1 else None


def load_test_data(path: str | Path) -> TestData:
    """Read a test-data file.

    The target is the column called ``target`` or ``y``, else the last column
    (as in the SRBench 2022 real-world data, e.g. ``value_cases``). A column
    called ``date`` (or ``time``, ``timestamp``, ``day``) is parsed as dates.
    The other numeric columns are the features; non-numeric ones are ignored.

    Raises
    ------
    SrdashError
        When the file cannot be read, or has no target values.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "d_test.csv"
    ...     _ = path.write_text("date,x1,value\\n2021-01-01,1,2\\n2021-01-02,2,4\\n")
    ...     data = load_test_data(path)
    >>> data.target.name, list(data.features.columns), str(data.dates.iloc[1].date())
    ('value', ['x1'], '2021-01-02')
    """
    path = Path(path)
    separator = "\t" if ".tsv" in path.name else ","
    try:
        frame = read_csv_file(path, max_bytes=None, sep=separator)  # a regular file, never a FIFO
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise SrdashError(f"Cannot read the test data '{path}': {exc}") from exc
    if frame.shape[1] < 2 or frame.empty:
        raise SrdashError(f"The test data '{path}' needs a header, a target column and at least one row; "
                          f"it has {frame.shape[1]} column(s) and {len(frame)} row(s).")
    lowered = {str(c).lower(): c for c in frame.columns}
    target_name = next((lowered[n] for n in _TARGET_NAMES if n in lowered), frame.columns[-1])
    date_name = next((lowered[n] for n in _DATE_NAMES if n in lowered and lowered[n] != target_name), None)
    dates = None
    if date_name is not None:
        parsed = pd.to_datetime(frame[date_name], errors="coerce")
        dates = parsed if parsed.notna().any() else None
    target = pd.to_numeric(frame[target_name], errors="coerce").astype(float)
    if target.notna().sum() == 0:
        raise SrdashError(f"The test data '{path}': the target column '{target_name}' has no numbers.")
    numeric = {}
    for name in frame.columns:
        if name in (target_name, date_name):
            continue
        values = pd.to_numeric(frame[name], errors="coerce")
        if values.notna().any():
            numeric[str(name)] = values.astype(float)
    return TestData(path=path, features=pd.DataFrame(numeric, index=frame.index),
                    target=target.rename(str(target_name)), dates=dates)


def predict_test(model: str, data: TestData, *, features: Sequence[str] | None = None) -> np.ndarray:
    """Predict the test data with a model string (parsed safely, never evaluated as code).

    Parameters
    ----------
    model : str
        The untrusted model string.
    data : TestData
    features : sequence of str, optional
        The dataset's feature names, if known (see :class:`srdash.io.loading.Results`).

    Returns
    -------
    ndarray of shape (n_test,)

    Raises
    ------
    SrdashError
        :class:`~srdash.errors.ModelRejected` when the parser refuses the
        string; SrdashError when the model cannot be evaluated on the data.
    """
    from srdash.expressions import evaluate_model  # lazy: sympy

    predicted = np.asarray(evaluate_model(model, data.columns, features=features), dtype=float)
    if predicted.ndim == 0:  # a constant model
        predicted = np.full(len(data.target), float(predicted))
    return predicted
