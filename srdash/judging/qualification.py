"""The qualification stage: each method must beat a LinearRegression baseline.

Before the tracks, SRBench 2022 required every entrant to obtain a better test
R2 than scikit-learn's ``LinearRegression`` on a set of qualification datasets
(the 20 PMLB datasets, a 75/25 train/test split per seed). srdash fits the
baseline itself when the data is given (:func:`fit_baseline`), or reads the
baseline's rows from the results, and compares each method head to head with
it (:func:`qualify`).

The head-to-head rule
---------------------
* Test R2 values are rounded to 3 decimals (the accuracy criterion's rounding);
  a missing or non-finite value counts as -inf (the worst value).
* One **comparison** per (dataset, run) where the baseline has a result: the
  method *wins* if its rounded R2 is higher, *ties* if equal, *loses* if lower.
  A run the method lacks counts as a loss.
* The **mean rank difference** ranks the method against the baseline on each
  dataset by the median of their runs' rounded R2 (better = 2, worse = 1, tie =
  1.5 each) and averages ``rank(method) − rank(baseline)`` over the datasets:
  from −1 (worse everywhere) to +1 (better everywhere). Higher is better.
* ``rule="wins"`` (default): a method qualifies when it has **more wins than
  losses**. ``rule="mean-rank"``: when its mean rank difference is **> 0**.

Non-qualified methods are removed from the track results by
:func:`filter_qualified`, which says which (``exclude=False`` keeps them and
only flags them).

Examples
--------
>>> results = pd.DataFrame({
...     "method": ["LinearRegression"] * 2 + ["good"] * 2 + ["flat"] * 2,
...     "dataset": ["d1", "d2"] * 3, "run": 0,
...     "r2_test": [0.70, 0.50, 0.90, 0.5004, 0.0, 0.10]})
>>> qualification = qualify(results)
>>> qualification.table[["method", "wins", "ties", "losses", "mean_rank_difference", "qualified"]]
  method  wins  ties  losses  mean_rank_difference  qualified
0   good     1     1       0                   0.5       True
1   flat     0     0       2                  -1.0      False
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.cache import ResultCache, cache_key
from srdash.io.files import read_csv_file, read_file_bytes, read_parquet_bytes
from srdash.errors import ModelRejected, Problem, SrdashError, ValidationError
from srdash.io.loading import load_results
from srdash.judging.evaluation import merge_values, score_predictions

__all__ = [
    "BASELINE",
    "QUALIFICATION_RULES",
    "Split",
    "Qualification",
    "FilteredRuns",
    "read_qualification_data",
    "qualification_split",
    "fit_baseline",
    "evaluate_qualification_models",
    "canonical_results",
    "qualify",
    "filter_qualified",
    "read_qualification_results",
    "run_qualification",
]

#: The baseline's method name (in the results and in :func:`fit_baseline`'s rows).
BASELINE = "LinearRegression"
#: How a method qualifies (see the module docstring).
QUALIFICATION_RULES = ("wins", "mean-rank")
_RULE_TEXT = {
    "wins": "A method qualifies when, over every (dataset, run) where {baseline} has a result, its test R2 "
            "rounded to {decimals} decimals beats {baseline}'s more often than it loses to it "
            "(wins > losses; ties count for neither side; a missing run is a loss).",
    "mean-rank": "A method qualifies when its mean rank difference with {baseline} is above 0: on each dataset "
                 "the two are ranked by the median test R2 of their runs (rounded to {decimals} decimals; "
                 "better 2, worse 1, tie 1.5 each) and rank(method) - rank({baseline}) is averaged over the "
                 "datasets.",
}
_DATA_SUFFIXES = (".tsv.gz", ".tsv", ".csv.gz", ".csv")
_ALIASES = {"method": ("method", "algorithm"), "dataset": ("dataset",),
            "run": ("run", "random_state", "seed", "trial"), "model": ("model", "symbolic_model"),
            "r2_test": ("r2_test",)}


# --------------------------------------------------------------------------- data


def read_qualification_data(source: str | Path | Sequence[str | Path], *,
                            target: str = "target") -> dict[str, pd.DataFrame]:
    """Read qualification datasets: every ``.tsv(.gz)``/``.csv(.gz)`` file of a folder, or a list of files.

    The dataset's name is the file name without its suffix
    (``197_cpu_act.tsv.gz`` -> ``197_cpu_act``).

    Raises
    ------
    SrdashError
        When the folder has no data file, a file cannot be read, has no
        ``target`` column (the message lists the columns) or non-numeric values.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "tiny.tsv").write_text("a\\tb\\ttarget\\n1\\t2\\t3\\n4\\t5\\t6\\n")
    ...     data = read_qualification_data(folder)
    >>> list(data), list(data["tiny"].columns)
    (['tiny'], ['a', 'b', 'target'])
    """
    if isinstance(source, (str, Path)) and Path(source).is_dir():
        files = sorted(p for p in Path(source).iterdir() if p.is_file() and p.name.lower().endswith(_DATA_SUFFIXES))
        if not files:
            raise SrdashError(f"The folder '{source}' has no qualification data file "
                              f"({', '.join(_DATA_SUFFIXES)}).")
    elif isinstance(source, (str, Path)):
        files = [Path(source)]
    else:
        files = [Path(f) for f in source]
    data = {}
    for path in files:
        name = path.name
        for suffix in _DATA_SUFFIXES:
            if name.lower().endswith(suffix):
                name = name[: -len(suffix)]
                break
        try:
            frame = read_csv_file(path, max_bytes=None, sep="\t" if ".tsv" in path.name.lower() else ",")
        except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise SrdashError(f"Cannot read the qualification data '{path}': {exc}") from exc
        frame.columns = [str(c).strip() for c in frame.columns]
        if target not in frame.columns:
            raise SrdashError(f"The qualification data '{path}' has no target column {target!r}. "
                              f"Columns: {', '.join(map(repr, frame.columns))}.")
        numeric = frame.apply(pd.to_numeric, errors="coerce")
        bad = numeric.isna() & frame.notna()
        if bad.any().any():
            column = bad.any().idxmax()
            row = int(np.flatnonzero(bad[column].to_numpy())[0]) + 1
            raise SrdashError(f"The qualification data '{path}', row {row}, column {column!r}: "
                              f"{frame[column].iloc[row - 1]!r} is not a number.")
        data[name] = numeric.astype(float)
    return data


@dataclass(frozen=True, eq=False)
class Split:
    """A train/test split of one qualification dataset (numpy arrays, feature names)."""

    features: tuple[str, ...]
    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray


def qualification_split(frame: pd.DataFrame, *, seed: int, target: str = "target", test_size: float = 0.25,
                        max_rows: int | None = None) -> Split:
    """The 2022 split: ``train_test_split(X, y, train_size=1 - test_size, test_size=test_size, random_state=seed)``.

    Parameters
    ----------
    frame : DataFrame
        Features and the target column.
    seed : int
        The run's seed (``random_state``).
    max_rows : int, optional
        First draw this many rows at random (seeded), to keep things fast. The
        2022 stage used every row; leave it None to reproduce it.

    Examples
    --------
    >>> frame = pd.DataFrame({"x": np.arange(8.0), "target": np.arange(8.0) * 2})
    >>> split = qualification_split(frame, seed=0)
    >>> split.X_train.shape, split.X_test.shape, split.features
    ((6, 1), (2, 1), ('x',))
    """
    from sklearn.model_selection import train_test_split

    if max_rows is not None and len(frame) > max_rows:
        frame = frame.sample(n=max_rows, random_state=seed)
    features = tuple(c for c in frame.columns if c != target)
    X = frame[list(features)].to_numpy(dtype=float)
    y = frame[target].to_numpy(dtype=float)
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=1 - test_size, test_size=test_size,
                                                        random_state=seed)
    return Split(features, X_train, X_test, y_train, y_test)


def fit_baseline(data: Mapping[str, pd.DataFrame], *, seeds: Sequence[int] | Mapping[str, Sequence[int]],
                 target: str = "target", test_size: float = 0.25, max_rows: int | None = None,
                 name: str = BASELINE, cache=False) -> pd.DataFrame:
    """Fit scikit-learn's ``LinearRegression`` on every dataset and seed; its test R2 as result rows.

    Parameters
    ----------
    data : mapping of str to DataFrame
        Dataset name -> data (see :func:`read_qualification_data`).
    seeds : sequence of int, or mapping of dataset to sequence of int
        The runs' seeds (the same for every dataset, or per dataset).
    target, test_size, max_rows
        See :func:`qualification_split`.
    name : str
        The baseline's method name.
    cache : False, None, path or srdash.cache.ResultCache
        Keep each fit's test R2 (kind ``qualification``, keyed by a digest of
        the data, the seed, the split settings and the scikit-learn version).
        False (default): no cache; None: the default cache file.

    Returns
    -------
    DataFrame
        ``method``, ``dataset``, ``run``, ``r2_test`` (unrounded).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({"x": rng.normal(size=40)})
    >>> frame["target"] = 3 * frame["x"] + 1
    >>> fit_baseline({"line": frame}, seeds=[0, 1]).round(6)
                 method dataset  run  r2_test
    0  LinearRegression    line    0      1.0
    1  LinearRegression    line    1      1.0
    """
    import sklearn
    from sklearn.linear_model import LinearRegression

    # 2: R2 with correctly rounded sums (score_predictions)
    settings = {"procedure": "srdash-qualification-baseline/2", "sklearn": sklearn.__version__, "target": target,
                "test_size": test_size, "max_rows": max_rows}
    wanted = [(dataset, int(seed)) for dataset, frame in data.items()
              for seed in (seeds.get(dataset, ()) if isinstance(seeds, Mapping) else seeds)]
    store, keys, known = _cached_fits(cache, data, wanted, settings)
    rows, computed = [], []
    for dataset, seed in wanted:
        if (dataset, seed) in known:
            r2 = known[(dataset, seed)]
        else:
            split = qualification_split(data[dataset], seed=seed, target=target, test_size=test_size,
                                        max_rows=max_rows)
            model = LinearRegression().fit(split.X_train, split.y_train)
            r2 = float(score_predictions(split.y_test, model.predict(split.X_test))["r2"].iloc[0])
            computed.append((keys[(dataset, seed)], {"status": "ok", "r2_test": r2}) if keys else None)
        rows.append({"method": name, "dataset": dataset, "run": seed, "r2_test": r2})
    if store is not None:
        try:
            store.put_many([entry for entry in computed if entry is not None], kind="qualification")
        except (OSError, sqlite3.Error):
            pass  # a cache that cannot be written costs time, not results
        if not isinstance(cache, type(store)):
            store.close()
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "r2_test"])


def _frame_digest(frame: pd.DataFrame) -> str:
    """SHA-256 of a data frame's column names and values (for cache keys)."""
    digest = hashlib.sha256(json.dumps([str(c) for c in frame.columns]).encode("utf-8"))
    digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    return digest.hexdigest()


def _cached_fits(cache, data, wanted, settings):
    """(the cache or None, {(dataset, seed): key}, {(dataset, seed): r2 found})."""
    if cache is False:
        return None, {}, {}
    store = cache if isinstance(cache, ResultCache) else ResultCache(None if cache is True else cache)
    digests = {dataset: _frame_digest(data[dataset]) for dataset in dict.fromkeys(d for d, _ in wanted)}
    keys = {(d, seed): cache_key(digests[d], None, {**settings, "seed": seed}) for d, seed in wanted}
    try:
        found = store.get_many(keys.values(), kind="qualification")
    except (OSError, sqlite3.Error):
        return store, keys, {}
    return store, keys, {pair: float(found[key]["r2_test"]) for pair, key in keys.items() if key in found}


def evaluate_qualification_models(results: pd.DataFrame, data: Mapping[str, pd.DataFrame], *,
                                  target: str = "target", test_size: float = 0.25,
                                  max_rows: int | None = None) -> pd.DataFrame:
    """Recompute ``r2_test`` of the results' model strings on each run's test split.

    Models are parsed safely and evaluated by :func:`srdash.expressions.evaluate_model`
    with the dataset's column names as features; the degenerate-prediction rule
    of :mod:`srdash.judging.evaluation` applies (R2 = -inf). Rows without a model, or
    on a dataset not in ``data``, keep their supplied value.

    Returns
    -------
    DataFrame
        ``method``, ``dataset``, ``run``, ``r2_test`` for the rows with a model;
        merge it with :func:`srdash.judging.evaluation.merge_values` to check supplied values.

    Examples
    --------
    >>> frame = pd.DataFrame({"x": np.arange(20.0)})
    >>> frame["target"] = 2 * frame["x"] + 1
    >>> results = pd.DataFrame({"method": ["exact", "flat"], "dataset": "line", "model": ["2*x + 1", "3"]})
    >>> evaluate_qualification_models(results, {"line": frame})
      method dataset  run  r2_test
    0  exact    line    0      1.0
    1   flat    line    0     -inf
    """
    table = _validated(results, "<results>", need_r2=False)
    rows = []
    from srdash.expressions import evaluate_model  # the only module that talks to sympy

    with_model = table[table["model"].notna() & table["dataset"].isin(list(data))] \
        if "model" in table.columns else table.iloc[:0]
    for (dataset, run), group in with_model.groupby(["dataset", "run"], sort=True):
        split = qualification_split(data[dataset], seed=int(run), target=target, test_size=test_size,
                                    max_rows=max_rows)
        columns = {f: split.X_test[:, i] for i, f in enumerate(split.features)}
        for row in group.itertuples(index=False):
            try:
                with np.errstate(all="ignore"):
                    predicted = np.asarray(evaluate_model(row.model, columns, features=split.features), dtype=float)
                r2 = float(score_predictions(split.y_test, predicted)["r2"].iloc[0])
            except (ModelRejected, SrdashError, ArithmeticError, ValueError, TypeError):
                r2 = -math.inf
            rows.append({"method": row.method, "dataset": dataset, "run": int(run), "r2_test": r2})
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "r2_test"])


# --------------------------------------------------------------------------- validation


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def canonical_results(results: pd.DataFrame, *, source: str = "<results>", need_r2: bool = True) -> pd.DataFrame:
    """Validate qualification results and return them with canonical column names.

    Accepted names: ``method`` (``algorithm``), ``dataset``, ``run``
    (``random_state``, ``seed``, ``trial``; 0 when absent), ``model``
    (``symbolic_model``) and ``r2_test`` (required when ``need_r2``; empty
    means missing). Every problem is reported at once.

    Raises
    ------
    ValidationError
        Naming the source, row and column of every problem.

    Examples
    --------
    >>> canonical_results(pd.DataFrame({"algorithm": ["a"], "dataset": ["d"], "r2_test": ["high"]}))
    Traceback (most recent call last):
    ...
    srdash.errors.ValidationError: The qualification results in <results> are not valid (1 problem):
      - <results>, row 1, column 'r2_test': 'high' is not a number (empty means missing).
    """
    return _validated(results, source, need_r2=need_r2)


def _validated(results: pd.DataFrame, source: str, *, need_r2: bool = True) -> pd.DataFrame:
    if not isinstance(results, pd.DataFrame):
        raise SrdashError(f"The qualification results must be a DataFrame; got {type(results).__name__}.")
    problems = []
    present = [str(c).strip() for c in results.columns]
    frame = results.copy()
    frame.columns = present
    renamed = {}
    for canonical, names in _ALIASES.items():
        found = [c for c in present if c in names]
        if len(found) > 1:
            problems.append(Problem(source, None, found[1], f"the columns {' and '.join(map(repr, found))} all "
                                                             f"mean {canonical!r}; keep only one of them."))
        if found:
            renamed[found[0]] = canonical
    frame = frame.rename(columns=renamed)
    required = ["method", "dataset"] + (["r2_test"] if need_r2 else [])
    for column in required:
        if column not in frame.columns:
            problems.append(Problem(source, None, column, f"the required column is missing (accepted names: "
                                                          f"{', '.join(map(repr, _ALIASES[column]))}). Columns "
                                                          f"present: {', '.join(map(repr, present))}."))
    if problems:
        raise ValidationError(problems, header=f"The qualification results in {source} are not valid")
    if "run" not in frame.columns:
        frame["run"] = 0
    for position, (method, dataset) in enumerate(zip(frame["method"], frame["dataset"]), start=1):
        for column, value in (("method", method), ("dataset", dataset)):
            if pd.isna(value) or not str(value).strip():
                problems.append(Problem(source, position, column, f"is empty; every row needs a {column}."))
    runs = pd.to_numeric(frame["run"], errors="coerce")
    for position in np.flatnonzero((runs.isna() | (runs != runs.round())).to_numpy()):
        problems.append(Problem(source, int(position) + 1, "run",
                                f"{_plain(frame['run'].iloc[position])!r} is not an integer; 'run' needs a whole "
                                "number."))
    # Run ids beyond 64 bits would wrap around silently in int64.
    too_big = runs.notna() & (runs.astype(float).abs() >= 2.0**63)
    for position in np.flatnonzero(too_big.to_numpy()):
        problems.append(Problem(source, int(position) + 1, "run",
                                f"{_plain(frame['run'].iloc[position])!r} is outside the range of run ids (a 64-bit "
                                "integer, at most 19 digits); number the runs 0, 1, 2, ..."))
    runs = runs.mask(too_big, 0)
    if "r2_test" in frame.columns:
        r2 = pd.to_numeric(frame["r2_test"], errors="coerce")
        wrong = r2.isna() & frame["r2_test"].notna() & (frame["r2_test"].astype(str).str.strip() != "")
        for position in np.flatnonzero(wrong.to_numpy()):
            problems.append(Problem(source, int(position) + 1, "r2_test",
                                    f"{_plain(frame['r2_test'].iloc[position])!r} is not a number (empty means "
                                    "missing)."))
        frame["r2_test"] = r2.astype(float)
    keys = frame[["method", "dataset"]].astype(str).assign(run=runs)
    for position in np.flatnonzero(keys.duplicated().to_numpy()):
        row = keys.iloc[position]
        problems.append(Problem(source, int(position) + 1, None,
                                f"duplicate (method, dataset, run) = ({row['method']!r}, {row['dataset']!r}, "
                                f"{row['run']:g}); each may appear only once."))
    if problems:
        raise ValidationError(problems, header=f"The qualification results in {source} are not valid")
    frame["method"] = frame["method"].astype(str).str.strip()
    frame["dataset"] = frame["dataset"].astype(str).str.strip()
    frame["run"] = runs.astype("int64")
    return frame


# --------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class Qualification:
    """The outcome of the qualification stage.

    Attributes
    ----------
    table : DataFrame
        One row per method (the baseline excluded), qualified first:
        ``method``, ``datasets``, ``comparisons``, ``wins``, ``ties``,
        ``losses``, ``mean_rank_difference`` (from −1 to +1, higher is better),
        ``qualified`` (bool) and ``verdict`` (text).
    head_to_head : DataFrame
        One row per comparison: ``method``, ``dataset``, ``run``, ``r2``,
        ``r2_baseline`` (rounded; -inf = missing) and ``outcome`` (win, tie, loss).
    rule : str
        The qualification rule, stated in words.
    baseline : str
    problems : DataFrame
        ``kind``, ``method``, ``dataset``, ``run``, ``detail``: missing runs,
        runs without a baseline result, mismatches with recomputed values.
    """

    table: pd.DataFrame
    head_to_head: pd.DataFrame
    rule: str
    baseline: str
    problems: pd.DataFrame

    @property
    def qualified(self) -> tuple[str, ...]:
        return tuple(self.table.loc[self.table["qualified"], "method"])

    @property
    def not_qualified(self) -> tuple[str, ...]:
        return tuple(self.table.loc[~self.table["qualified"], "method"])


def qualify(results: pd.DataFrame, *, baseline: str = BASELINE, rule: str = "wins", decimals: int = 3,
            baseline_rows: pd.DataFrame | None = None) -> Qualification:
    """Compare every method with the baseline, head to head, and say who qualifies.

    Parameters
    ----------
    results : DataFrame
        ``method`` (or ``algorithm``), ``dataset``, ``run`` (or ``random_state``,
        ``seed``; 0 when absent) and ``r2_test``. Validated here; every problem
        is reported at once. Not modified.
    baseline : str
        The baseline's method name.
    rule : {'wins', 'mean-rank'}
        See the module docstring.
    decimals : int
        Rounding of R2 before comparing.
    baseline_rows : DataFrame, optional
        The baseline's rows (e.g. from :func:`fit_baseline`); they replace any
        baseline rows of ``results``.

    Returns
    -------
    Qualification

    Raises
    ------
    ValidationError
        Invalid results (missing columns, non-numeric R2, duplicate runs, ...).
    SrdashError
        No baseline rows, or an unknown rule.

    Examples
    --------
    >>> qualify(pd.DataFrame({"method": ["a"], "dataset": ["d"], "r2_test": [0.5]}))
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The results have no rows of the baseline 'LinearRegression'. Give the qualification data so that srdash fits it (fit_baseline, `srdash qualify --data`), or include its rows. Methods: a.
    """
    if rule not in QUALIFICATION_RULES:
        raise SrdashError(f"The 'rule' option must be one of 'wins', 'mean-rank'. Got {rule!r}.")
    table = _validated(results, "<results>")
    if baseline_rows is not None:
        table = pd.concat([table[table["method"] != baseline], _validated(baseline_rows, "<baseline rows>")],
                          ignore_index=True)
    is_baseline = table["method"] == baseline
    if not is_baseline.any():
        raise SrdashError(f"The results have no rows of the baseline {baseline!r}. Give the qualification data "
                          "so that srdash fits it (fit_baseline, `srdash qualify --data`), or include its rows. "
                          f"Methods: {', '.join(sorted(table['method'].unique()))}.")
    table = table.assign(r2=table["r2_test"].round(decimals).fillna(-np.inf))
    reference = table[is_baseline].set_index(["dataset", "run"])["r2"]
    problems = []
    h2h_rows = []
    summary = []
    for method, group in table[~is_baseline].groupby("method", sort=True):
        own = group.set_index(["dataset", "run"])["r2"]
        for key in sorted(set(own.index) - set(reference.index)):
            problems.append({"kind": "no_baseline", "method": method, "dataset": key[0], "run": key[1],
                             "detail": f"{baseline} has no result for this dataset and run; not compared."})
        wins = ties = losses = 0
        for (dataset, run), base in reference.items():
            if (dataset, run) in own.index:
                value = float(own.loc[(dataset, run)])
            else:
                value = -np.inf
                problems.append({"kind": "missing_run", "method": method, "dataset": dataset, "run": run,
                                 "detail": f"no result for this dataset and run; counted as a loss against {baseline}."})
            outcome = "win" if value > base else ("tie" if value == base else "loss")
            wins += outcome == "win"
            ties += outcome == "tie"
            losses += outcome == "loss"
            h2h_rows.append({"method": method, "dataset": dataset, "run": run, "r2": value, "r2_baseline": base,
                             "outcome": outcome})
        differences = []
        for dataset, base_runs in reference.groupby(level="dataset", sort=True):
            own_values = [float(own.loc[key]) if key in own.index else -np.inf for key in base_runs.index]
            # rounded again after aggregating, as the ranking does, so that float noise cannot break a tie
            mine = round(float(np.median(own_values)), decimals)
            theirs = round(float(np.median(base_runs.to_numpy())), decimals)
            differences.append(0.0 if mine == theirs else (1.0 if mine > theirs else -1.0))
        mean_rank_difference = float(np.mean(differences)) if differences else np.nan
        qualified = bool(wins > losses) if rule == "wins" else bool(mean_rank_difference > 0)
        summary.append({"method": method, "datasets": len(differences), "comparisons": wins + ties + losses,
                        "wins": wins, "ties": ties, "losses": losses,
                        "mean_rank_difference": mean_rank_difference, "qualified": qualified,
                        "verdict": "qualified" if qualified else "not qualified"})
    summary_table = pd.DataFrame(summary, columns=["method", "datasets", "comparisons", "wins", "ties", "losses",
                                                   "mean_rank_difference", "qualified", "verdict"])
    summary_table = summary_table.sort_values(["qualified", "mean_rank_difference", "wins", "method"],
                                              ascending=[False, False, False, True], kind="mergesort",
                                              ignore_index=True)
    return Qualification(
        table=summary_table,
        head_to_head=pd.DataFrame(h2h_rows, columns=["method", "dataset", "run", "r2", "r2_baseline", "outcome"]),
        rule=_RULE_TEXT[rule].format(baseline=baseline, decimals=decimals),
        baseline=baseline,
        problems=pd.DataFrame(problems, columns=["kind", "method", "dataset", "run", "detail"]),
    )


@dataclass(frozen=True)
class FilteredRuns:
    """Track results after the qualification stage.

    Attributes
    ----------
    runs : DataFrame
        The track's runs without the excluded methods.
    excluded : tuple of str
        Methods removed because they did not qualify.
    flagged : tuple of str
        Methods that did not qualify but were kept (``exclude=False``).
    unknown : tuple of str
        Track methods that took no part in the qualification.
    notes : tuple of str
        Sentences to show to the reader of the verdict.
    """

    runs: pd.DataFrame
    excluded: tuple[str, ...]
    flagged: tuple[str, ...]
    unknown: tuple[str, ...]
    notes: tuple[str, ...]


_UNKNOWN = ("keep", "exclude")


def filter_qualified(runs: pd.DataFrame, qualification: Qualification, *, exclude: bool = True,
                     unknown: str = "keep") -> FilteredRuns:
    """Remove the methods that did not qualify from a track's runs, saying so.

    Parameters
    ----------
    runs : DataFrame
        A track's per-run table (``method`` column). Not modified.
    qualification : Qualification
    exclude : bool
        False: keep every method, only flag the non-qualified ones.
    unknown : {'keep', 'exclude'}
        What to do with methods that took no part in the qualification.

    Examples
    --------
    >>> q = qualify(pd.DataFrame({"method": ["LinearRegression", "a", "b"], "dataset": "d",
    ...                           "r2_test": [0.5, 0.9, 0.1]}))
    >>> track = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "t", "r2_test": 0.5})
    >>> filtered = filter_qualified(track, q)
    >>> filtered.runs["method"].tolist(), filtered.excluded, filtered.unknown
    (['a', 'c'], ('b',), ('c',))
    >>> print(filtered.notes[0])
    Excluded from the track (did not qualify against LinearRegression): b (1 run left out).
    """
    if unknown not in _UNKNOWN:
        raise SrdashError(f"The 'unknown' option must be one of 'keep', 'exclude'. Got {unknown!r}.")
    if "method" not in runs.columns:
        raise SrdashError(f"The track's runs have no 'method' column. Columns: {', '.join(map(repr, runs.columns))}.")
    methods = list(dict.fromkeys(runs["method"]))
    failing = set(qualification.not_qualified)
    known = set(qualification.table["method"]) | {qualification.baseline}
    not_qualified = tuple(m for m in methods if m in failing)
    strangers = tuple(m for m in methods if m not in known)
    removed = set(not_qualified if exclude else ()) | set(strangers if unknown == "exclude" else ())
    notes = []
    counts = runs["method"].value_counts()

    def with_runs(names) -> str:  # every dropped row is counted where it is dropped
        return ", ".join(f"{m} ({counts[m]} run{'s' if counts[m] != 1 else ''} left out)" for m in names)

    if not_qualified and exclude:
        notes.append(f"Excluded from the track (did not qualify against {qualification.baseline}): "
                     f"{with_runs(not_qualified)}.")
    elif not_qualified:
        notes.append(f"Did not qualify against {qualification.baseline} but kept in the track: "
                     f"{', '.join(not_qualified)}.")
    if strangers:
        notes.append(f"{'Excluded' if unknown == 'exclude' else 'Kept'} without qualification results: "
                     f"{with_runs(strangers) if unknown == 'exclude' else ', '.join(strangers)}.")
    kept = runs[~runs["method"].isin(removed)].reset_index(drop=True)
    return FilteredRuns(runs=kept, excluded=tuple(m for m in methods if m in removed and m in failing),
                        flagged=not_qualified if not exclude else (), unknown=strangers, notes=tuple(notes))



# --------------------------------------------------------------------------- the stage, end to end


def read_qualification_results(path: str | Path) -> pd.DataFrame:
    """The qualification results in a file or folder, as a DataFrame (validated later, by :func:`qualify`).

    Accepted: ``.csv``/``.tsv`` (optionally compressed), ``.parquet`` or a folder
    of SRBench JSON result files (read by :func:`srdash.io.loading.load_results`).

    Raises
    ------
    SrdashError
        When the file cannot be read or has another format.

    Examples
    --------
    >>> read_qualification_results("results.txt")
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: 'results.txt' must be a .csv or .tsv file (optionally compressed), a .parquet file or a folder of SRBench JSON result files.
    """
    path = Path(path)
    name = path.name.lower()
    if path.is_dir():
        return load_results(path).table
    try:
        # Regular files of bounded size only (srdash.io.files); index_col=False: a trailing comma
        # never turns the first column into the row index.
        if name.endswith((".parquet", ".pq")):
            return read_parquet_bytes(read_file_bytes(path), path=path)
        if ".csv" in name or ".tsv" in name:
            return read_csv_file(path, sep="\t" if ".tsv" in name else ",", index_col=False)
    except (OSError, ValueError) as exc:
        raise SrdashError(f"Cannot read '{path}': {exc}") from exc
    raise SrdashError(f"'{path}' must be a .csv or .tsv file (optionally compressed), a .parquet file or a "
                      "folder of SRBench JSON result files.")


def run_qualification(results, *, data=None, target: str = "target", baseline: str = BASELINE,
                      rule: str = "wins", decimals: int = 3, max_rows: int | None = None,
                      cache=False) -> Qualification:
    """The whole qualification stage: read, fit the baseline, recompute the models' R2, qualify.

    What ``srdash qualify`` and the judging pipeline (a competition's
    ``[qualification]``, :func:`srdash.judging.pipeline.prepare_competition`) run.

    Parameters
    ----------
    results : path or DataFrame
        The qualification results (:func:`read_qualification_results` for a path).
    data : path, sequence of paths or mapping of str to DataFrame, optional
        The qualification datasets (:func:`read_qualification_data` for paths).
        Given: srdash fits the baseline on every (dataset, run seed) of the
        results (:func:`fit_baseline`; the results' own baseline rows are
        replaced) and recomputes ``r2_test`` of every model string on the run's
        test split (:func:`evaluate_qualification_models`); a supplied value
        that disagrees is a ``metric_mismatch`` problem and the recomputed one
        is used. Not given: the results need ``r2_test`` and the baseline's rows.
    target, max_rows
        See :func:`qualification_split`.
    baseline, rule, decimals
        See :func:`qualify`.
    cache : False, None, path or srdash.cache.ResultCache
        Keeps the baseline's fits (:func:`fit_baseline`). False (default): no cache.

    Returns
    -------
    Qualification
        Its ``problems`` also list the mismatches with supplied values.

    Raises
    ------
    ValidationError, SrdashError
        Invalid results or data, no ``r2_test`` without data, no baseline rows.

    Examples
    --------
    >>> frame = pd.DataFrame({"x": np.linspace(-2, 2, 40)})
    >>> frame["target"] = frame["x"] ** 2
    >>> results = pd.DataFrame({"method": ["square", "flat"], "dataset": "parabola", "run": 0,
    ...                         "model": ["x**2", "1.5"]})
    >>> qualification = run_qualification(results, data={"parabola": frame})
    >>> qualification.table[["method", "wins", "losses", "verdict"]]
       method  wins  losses        verdict
    0  square     1       0      qualified
    1    flat     0       1  not qualified
    """
    source = str(results) if isinstance(results, (str, Path)) else "<results>"
    table = read_qualification_results(results) if isinstance(results, (str, Path)) else results
    baseline_rows = None
    mismatches = None
    if data is not None:
        if not isinstance(data, Mapping):
            data = read_qualification_data(data, target=target)
        table = canonical_results(table, source=source, need_r2=False)
        seeds = {d: sorted({int(r) for r in group["run"]}) for d, group in table.groupby("dataset") if d in data}
        baseline_rows = fit_baseline({d: data[d] for d in seeds}, seeds=seeds, target=target, max_rows=max_rows,
                                     name=baseline, cache=cache)
        if "model" in table.columns:
            recomputed = evaluate_qualification_models(table, data, target=target, max_rows=max_rows)
            if not recomputed.empty:
                merged = merge_values(table, recomputed)
                table, mismatches = merged.runs, merged.problems
    elif "r2_test" not in {str(c).strip() for c in table.columns}:
        raise SrdashError(f"The qualification results {source} have no r2_test column. Give the qualification "
                          "data (`srdash qualify --data`, `srdash score --qualification-data`): srdash then "
                          "computes r2_test from the model strings and fits the baseline.")
    qualification = qualify(table, baseline=baseline, rule=rule, decimals=decimals, baseline_rows=baseline_rows)
    if mismatches is not None and not mismatches.empty:
        problems = pd.concat([qualification.problems, mismatches[qualification.problems.columns]],
                             ignore_index=True)
        qualification = Qualification(table=qualification.table, head_to_head=qualification.head_to_head,
                                      rule=qualification.rule, baseline=qualification.baseline, problems=problems)
    return qualification
