"""Evaluate model strings on data: predictions, R2, RMSE and MAE on any partition.

Given a dataset table (:mod:`srdash.io.datasets`) with the data files, srdash
computes every model's predictions itself, from the safely parsed expression
(:func:`srdash.expressions.evaluate_model`, never ``eval`` of the string), and
scores them with numpy, all models of a partition at once.

Metrics (``_score`` higher is better, ``_error`` lower is better):

* ``r2`` = 1 − Σ(y − ŷ)² / Σ(y − ȳ)², the coefficient of determination (as
  ``sklearn.metrics.r2_score`` and the SRBench 2022 ``accuracy``, without its
  rounding: the rules round). When the target is constant on the partition,
  Σ(y − ȳ)² is replaced by n · 1e-9, as the 2022 scorer did;
* ``rmse`` = √(Σ(y − ŷ)² / n), root mean squared error;
* ``mae`` = Σ|y − ŷ| / n, mean absolute error.

Every Σ is correctly rounded (:func:`exact_sum`), so a metric does not depend on the
order of the rows: the same predictions give the same values to the last bit.

The degenerate-prediction rule
------------------------------
A run has no usable prediction when its model is missing, refused by the
parser, fails to evaluate, or predicts a non-finite value (NaN, ±inf, an
overflow) on any row of the partition, or predicts **the same value on every
row** (a constant explains none of the target's variation; SR models that
collapse to a constant are almost always numerical failures). Such a run gets
the worst value of every metric (``r2 = -inf``, ``rmse = mae = +inf``), so it
ranks last on accuracy, and is listed as a problem with its status
(:data:`PREDICTION_STATUSES`). Finite predictions so large that the squared
error overflows get the same values naturally, with status ``non_finite``.
The 2022 scorer computed a normal R2 (≤ 0) for a constant prediction: under
both rules it ranks below every model that explains some variance.

Examples
--------
>>> y = np.array([1.0, 2.0, 3.0, 4.0])
>>> score_predictions(y, np.array([[1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 3.0, 3.5], [2.5, 2.5, 2.5, 2.5]]))
    r2      rmse   mae    status
0  1.0  0.000000  0.00        ok
1  0.9  0.353553  0.25        ok
2 -inf       inf   inf  constant
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from srdash.cache import ResultCache, cache_key, file_digest
from srdash.io.datasets import DatasetTable
from srdash.errors import ModelRejected, SrdashError
from srdash.judging.domains import REFUSED_STATUSES

__all__ = [
    "METRICS",
    "PREDICTION_STATUSES",
    "score_predictions",
    "exact_sum",
    "exact_r2_score",
    "Evaluation",
    "evaluate_runs",
    "MergedMetrics",
    "merge_metrics",
    "merge_values",
]

#: Metric -> which values are better.
METRICS = {"r2": "higher", "rmse": "lower", "mae": "lower"}
#: Statuses of a run's prediction on a partition (all but ``ok`` get the worst metric values).
PREDICTION_STATUSES = ("ok", "non_finite", "constant", "no_model", "rejected", "parse_error", "evaluation_error")
_REFUSED = ("rejected", "parse_error")
PROBLEM_COLUMNS = ("kind", "method", "dataset", "run", "detail")

# The 2022 scorer's floor for the target variance (y_var == 0 -> 1e-9).
_VARIANCE_FLOOR = 1e-9
_WORST = {"r2": -np.inf, "rmse": np.inf, "mae": np.inf}


def score_predictions(y_true, predictions) -> pd.DataFrame:
    """R2, RMSE and MAE of one or many predictions of the same target.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    predictions : array-like of shape (n,) or (m, n)
        One prediction per row (m models); a scalar or a length-1 row is a
        constant prediction.

    Returns
    -------
    DataFrame
        One row per prediction: ``r2`` (higher is better), ``rmse`` and ``mae``
        (lower is better) and ``status`` (``ok``, ``non_finite`` or
        ``constant``). Degenerate predictions get the worst values (see the
        module's rule).

    Raises
    ------
    SrdashError
        When the target is empty or not finite, or the shapes do not match.

    Examples
    --------
    >>> score_predictions([0.0, 1.0], [np.nan, 1.0])
        r2  rmse  mae      status
    0 -inf   inf  inf  non_finite
    """
    y = np.asarray(y_true, dtype=float)
    if y.ndim != 1 or y.size == 0:
        raise SrdashError(f"The target must be a non-empty 1-d array; got shape {y.shape}.")
    if not np.isfinite(y).all():
        raise SrdashError("The target has non-finite values (NaN or inf); R2 is not defined. Fix the data.")
    with np.errstate(all="ignore"):
        stacked = np.asarray(predictions, dtype=float)
    if stacked.ndim == 0:
        stacked = np.full((1, y.size), float(stacked))
    elif stacked.ndim == 1:
        stacked = stacked[None, :]
    if stacked.ndim != 2:
        raise SrdashError(f"predictions must have shape (n,) or (m, n); got {stacked.shape}.")
    if stacked.shape[1] == 1 and y.size != 1:
        stacked = np.repeat(stacked, y.size, axis=1)
    if stacked.shape[1] != y.size:
        raise SrdashError(f"Each prediction needs {y.size} values (one per target row); got {stacked.shape[1]}.")
    n = y.size
    with np.errstate(all="ignore"):
        finite = np.isfinite(stacked).all(axis=1)
        constant = finite & (stacked.max(axis=1) == stacked.min(axis=1))
        residual = stacked - y
        squared = np.array([exact_sum(row * row) for row in residual])
        total = exact_sum((y - _exact_mean(y)) ** 2) or n * _VARIANCE_FLOOR
        r2 = 1.0 - squared / total
        rmse = np.sqrt(squared / n)
        mae = np.array([exact_sum(np.abs(row)) for row in residual]) / n
    overflow = finite & ~(np.isfinite(r2) & np.isfinite(rmse) & np.isfinite(mae))
    status = np.where(~finite | overflow, "non_finite", np.where(constant, "constant", "ok"))
    degenerate = status != "ok"
    r2[degenerate], rmse[degenerate], mae[degenerate] = -np.inf, np.inf, np.inf
    return pd.DataFrame({"r2": r2, "rmse": rmse, "mae": mae, "status": status})


def exact_sum(values) -> float:
    """The sum of ``values``, correctly rounded (``math.fsum``): the same whatever their order.

    numpy's sums (pairwise, SIMD, ``einsum``) depend on the values' order and can depend on
    how the array lies in memory; a verdict that compares R² values exactly must not.
    A sum beyond the float64 range is ``inf`` (the values summed here are never negative
    when it can happen: squares and absolute values); one with NaN is NaN.

    Examples
    --------
    >>> exact_sum([1e16, 1.0, -1e16]), sum([1e16, 1.0, -1e16])
    (1.0, 0.0)
    """
    values = np.asarray(values, dtype=float).ravel()
    try:
        return math.fsum(values.tolist())
    except OverflowError:  # "intermediate overflow": finite values whose sum is beyond float64
        return math.inf
    except ValueError:  # inf + -inf
        return math.nan


def _exact_mean(values: np.ndarray) -> float:
    total = exact_sum(values)
    return total / values.size if math.isfinite(total) else exact_sum(values / values.size)


def exact_r2_score(y_true, y_pred) -> float:
    """R² = 1 − Σ(y − ŷ)² / Σ(y − ȳ)² with every sum correctly rounded (:func:`exact_sum`).

    The value depends on the rows as a set, not on their order or on how the arrays lie in
    memory: two teams with the same predictions get the same R² to the last bit. Both
    arrays must be finite, of the same length (validated where they enter); a constant
    target (Σ(y − ȳ)² = 0) gives NaN.

    Examples
    --------
    >>> exact_r2_score([1.0, 3.0, 5.0], [1.0, 3.0, 6.0])  # 1 - 1/8
    0.875
    """
    y = np.asarray(y_true, dtype=float)
    residual = y - np.asarray(y_pred, dtype=float)
    total = exact_sum((y - _exact_mean(y)) ** 2)
    if total == 0:
        return math.nan
    return 1.0 - exact_sum(residual * residual) / total


@dataclass(frozen=True)
class Evaluation:
    """Metrics of every run's model on every evaluated partition.

    Attributes
    ----------
    metrics : DataFrame
        One row per (method, dataset, run, partition): ``r2``, ``rmse``,
        ``mae``, ``status`` (:data:`PREDICTION_STATUSES`) and ``detail``.
    problems : DataFrame
        ``kind`` (the status, or ``no_data``), ``method``, ``dataset``, ``run``,
        ``detail``: one row per run whose prediction was not usable, per
        dataset that could not be evaluated.
    """

    metrics: pd.DataFrame
    problems: pd.DataFrame

    def wide(self) -> pd.DataFrame:
        """One row per run, with ``r2_<partition>``, ``rmse_<partition>``, ``mae_<partition>`` columns.

        Examples
        --------
        >>> metrics = pd.DataFrame({"method": "a", "dataset": "d", "run": 0, "partition": ["test"],
        ...                         "r2": [0.5], "rmse": [1.0], "mae": [0.8], "status": "ok", "detail": ""})
        >>> Evaluation(metrics, pd.DataFrame()).wide()
          method dataset  run  r2_test  rmse_test  mae_test
        0      a       d    0      0.5        1.0       0.8
        """
        keys = ["method", "dataset", "run"]
        if self.metrics.empty:
            return pd.DataFrame(columns=keys)
        wide = self.metrics.pivot_table(index=keys, columns="partition", values=list(METRICS), aggfunc="first",
                                        sort=False)
        partitions = list(dict.fromkeys(self.metrics["partition"]))
        ordered = [(metric, p) for p in partitions for metric in METRICS]
        wide = wide.reindex(columns=pd.MultiIndex.from_tuples(ordered))
        wide.columns = [f"{metric}_{p}" for metric, p in ordered]
        return wide.reset_index()


def _problem_frame(rows: Sequence[dict]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=list(PROBLEM_COLUMNS))


def _check_runs(runs: pd.DataFrame, needed: Sequence[str], what: str) -> None:
    missing = [c for c in needed if c not in runs.columns]
    if missing:
        raise SrdashError(f"Cannot {what}: the runs table has no column(s) {', '.join(map(repr, missing))}. "
                          f"Columns: {', '.join(map(repr, runs.columns))}.")


def evaluate_runs(runs: pd.DataFrame, datasets: DatasetTable, *,
                  partitions: Sequence[str] | None = None, cache=False) -> Evaluation:
    """Predict every run's model on its dataset's partitions and score the predictions.

    Parameters
    ----------
    runs : DataFrame
        Per-run table with ``method``, ``dataset``, ``model`` and optionally
        ``run`` (0 when absent). Not modified.
    datasets : DatasetTable
        Descriptions with readable files (see :func:`srdash.io.datasets.load_dataset_table`).
    partitions : sequence of str, optional
        Partitions to evaluate (a dataset lacking one skips it). Default:
        every partition of each dataset except ``train``.
    cache : False, None, path or srdash.cache.ResultCache, keyword-only
        Keep each distinct model's metrics (kind ``evaluation``, keyed by the
        model, the features, the target and the SHA-256 of each partition's
        file): an unchanged competition is not evaluated twice. False (the
        default): no cache; None: the default cache file.

    Returns
    -------
    Evaluation
        Metrics per run and partition; the problems list every run without a
        usable prediction (it gets the worst values, see the module's rule),
        except a model whose ``status`` (from :func:`srdash.judging.pipeline.prepare_runs`)
        already says the parser refused it,
        and every dataset of the runs that the table does not describe or
        whose data cannot be read (its runs are not evaluated).

    Examples
    --------
    >>> import tempfile
    >>> from srdash.io.datasets import write_property_datasets
    >>> runs = pd.DataFrame({"method": ["truth", "line", "nan"], "dataset": "exact_easy",
    ...                      "model": ["1.5*x1 - 0.5*x2 + 2", "1.5*x1", "log(x1 - 100)"]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     evaluation = evaluate_runs(runs, write_property_datasets(folder, seed=0))
    >>> evaluation.metrics[["method", "partition", "r2", "status"]].round(3)
      method partition     r2      status
    0  truth      test  1.000          ok
    1   line      test  0.742          ok
    2    nan      test   -inf  non_finite
    >>> evaluation.problems[["kind", "method"]]
             kind method
    0  non_finite    nan
    """
    _check_runs(runs, ("method", "dataset", "model"), "evaluate the models")
    table = runs.reset_index(drop=True)
    run_ids = table["run"] if "run" in table.columns else pd.Series(0, index=table.index)
    # Models that prepare_runs already refused are listed by the verdict: not again here.
    refused = (set(table.index[table["status"].isin(_REFUSED)]) if "status" in table.columns else set())
    records: list[dict] = []
    problems: list[dict] = []
    from srdash.expressions import evaluate_model  # the only module that talks to sympy

    store = open_store(cache)
    for dataset, rows in table.groupby("dataset", sort=True):
        if dataset not in datasets:
            problems.append({"kind": "no_data", "method": pd.NA, "dataset": dataset, "run": pd.NA,
                             "detail": f"dataset {dataset!r} is not in the dataset table {datasets.source}; "
                                       f"its {len(rows)} run(s) are not evaluated."})
            continue
        spec = datasets[dataset]
        wanted = [p for p in spec.files if p != "train"] if partitions is None else \
            [p for p in partitions if p in spec.files]
        try:
            parts = {p: datasets.read(dataset, p) for p in wanted}
        except SrdashError as exc:
            problems.append({"kind": "no_data", "method": pd.NA, "dataset": dataset, "run": pd.NA,
                             "detail": f"{exc} Its {len(rows)} run(s) are not evaluated."})
            continue
        if not parts:
            continue
        # One evaluation per distinct model on all partitions at once, split afterwards.
        columns = {f: np.concatenate([parts[p].columns[f] for p in wanted]) for f in spec.features}
        sizes = [len(parts[p]) for p in wanted]
        bounds = np.cumsum([0] + sizes)
        predictions: dict[str, np.ndarray] = {}
        failures: dict[str, tuple[str, str]] = {}
        keys, known = _cached_metrics(store, rows["model"].dropna().unique(), spec, wanted, failures)
        for model in rows["model"].dropna().unique():
            if model in known or model in failures:
                continue
            try:
                with np.errstate(all="ignore"):
                    value = np.asarray(evaluate_model(model, columns, features=spec.features), dtype=float)
            except ModelRejected as exc:
                failures[model] = (exc.status, exc.reason)
                continue
            except (SrdashError, ArithmeticError, ValueError, TypeError) as exc:
                failures[model] = ("evaluation_error", f"{type(exc).__name__}: {exc}")
                continue
            predictions[model] = np.broadcast_to(value, (int(bounds[-1]),)) if value.ndim == 0 else value
        for index, partition in enumerate(wanted):
            y = parts[partition].target
            usable = [m for m in rows["model"] if isinstance(m, str) and m in predictions]
            distinct = list(dict.fromkeys(usable))
            scored = (score_predictions(y, np.vstack([predictions[m][bounds[index]:bounds[index + 1]]
                                                      for m in distinct]))
                      if distinct else pd.DataFrame(columns=["r2", "rmse", "mae", "status"]))
            by_model = {m: scored.iloc[i] for i, m in enumerate(distinct)}
            by_model.update({m: pd.Series(values[partition]) for m, values in known.items()})
            if keys:
                for m in distinct:
                    known.setdefault(m, {"new": True})[partition] = {k: _plain(by_model[m][k])
                                                                   for k in (*METRICS, "status")}
            for position, (method, model) in enumerate(zip(rows["method"], rows["model"])):
                run = int(run_ids.loc[rows.index[position]])
                if isinstance(model, str) and model in by_model:
                    values = by_model[model]
                    status, detail = values["status"], ""
                    metrics = {m: float(values[m]) for m in METRICS}
                    if status != "ok":
                        detail = ("predicts a non-finite value (NaN, inf or overflow)" if status == "non_finite"
                                  else "predicts the same value on every row")
                        detail += f" on the {partition} partition; counted as the worst value"
                else:
                    status, detail = failures.get(model, ("no_model", "the run has no model"))
                    detail = f"{detail}; counted as the worst value"
                    metrics = dict(_WORST)
                records.append({"method": method, "dataset": dataset, "run": run, "partition": partition,
                                **metrics, "status": status, "detail": detail})
                repeated = status in _REFUSED and rows.index[position] in refused
                if status != "ok" and (index == 0 or status in ("non_finite", "constant")) and not repeated:
                    problems.append({"kind": status, "method": method, "dataset": dataset, "run": run,
                                     "detail": detail})
        _store_metrics(store, keys, known, failures)
    if store is not None and not isinstance(cache, type(store)):
        store.close()
    metrics = pd.DataFrame(records, columns=["method", "dataset", "run", "partition", *METRICS, "status",
                                             "detail"])
    return Evaluation(metrics=metrics, problems=_problem_frame(problems))


# 2: values from fixed-name generated code (no sympy Dummy counter) and correctly rounded sums.
_EVALUATION_PROCEDURE = "srdash-evaluation/2"


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def open_store(cache):
    """The ResultCache to use, or None (``cache`` False)."""
    if cache is False:
        return None
    return cache if isinstance(cache, ResultCache) else ResultCache(None if cache is True else cache)


def _cached_metrics(store, models, spec, wanted, failures) -> tuple[dict, dict]:
    """({model: key} of the models to compute, {model: {partition: metrics}} found in the cache).

    Failures found in the cache go into ``failures``."""
    if store is None:
        return {}, {}
    import sqlite3
    import warnings

    try:
        settings = {"procedure": _EVALUATION_PROCEDURE, "target": str(spec.target), "partitions": list(wanted),
                    "files": {p: file_digest(spec.files[p]) for p in wanted}}
        keys = {model: cache_key(model, spec.features, settings) for model in models}
        found = store.get_many(keys.values(), kind="evaluation")
    except (OSError, sqlite3.Error) as exc:
        warnings.warn(f"The cache {store.path} cannot be read ({exc}); evaluating without it.", RuntimeWarning,
                      stacklevel=3)
        return {}, {}
    known = {}
    for model, key in keys.items():
        entry = found.get(key)
        if entry is None:
            continue
        if entry.get("failure"):
            failures[model] = tuple(entry["failure"])
        else:
            known[model] = entry["metrics"]
    return {model: key for model, key in keys.items() if key not in found}, known


def _store_metrics(store, keys, known, failures) -> None:
    """Write the metrics and failures computed now (marked ``new``) to the cache."""
    if store is None or not keys:
        return
    import sqlite3

    entries = [(keys[m], {"status": "ok", "metrics": {p: v for p, v in values.items() if p != "new"}})
               for m, values in known.items() if values.get("new") and m in keys]
    entries += [(keys[m], {"status": "ok", "failure": list(failure)}) for m, failure in failures.items()
                if m in keys]
    try:
        store.put_many(entries, kind="evaluation")
    except (OSError, sqlite3.Error):
        pass  # a cache that cannot be written costs time, not results


@dataclass(frozen=True)
class MergedMetrics:
    """A runs table with recomputed metrics, and the mismatches with the supplied ones.

    Attributes
    ----------
    runs : DataFrame
        The runs, with each recomputed metric column (``r2_test``, ...) holding
        the value used for judging and, where the input supplied the column,
        ``<column>_supplied`` holding the input's value.
    problems : DataFrame
        ``kind`` = ``metric_mismatch``, ``method``, ``dataset``, ``run``, ``detail``.
    """

    runs: pd.DataFrame
    problems: pd.DataFrame


_PREFER = ("recomputed", "supplied")



def merge_metrics(runs: pd.DataFrame, evaluation: Evaluation, *, prefer: str = "recomputed",
                  rtol: float = 1e-3, atol: float = 1e-3) -> MergedMetrics:
    """Put recomputed metrics into a runs table, checking them against supplied values.

    Parameters
    ----------
    runs : DataFrame
        Per-run table (``method``, ``dataset``, ``run``, ...). Not modified.
    evaluation : Evaluation
    prefer, rtol, atol
        See :func:`merge_values`.

    Returns
    -------
    MergedMetrics

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.5]})
    >>> metrics = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "partition": "test",
    ...                         "r2": [0.9004, 0.7], "rmse": 1.0, "mae": 1.0, "status": "ok", "detail": ""})
    >>> merged = merge_metrics(runs, Evaluation(metrics, pd.DataFrame()))
    >>> merged.runs[["method", "r2_test", "r2_test_supplied"]]
      method  r2_test  r2_test_supplied
    0      a   0.9004               0.9
    1      b   0.7000               0.5
    >>> print(merged.problems["detail"].iloc[0])
    r2_test: supplied 0.5, recomputed 0.7 from the model and the data; using the recomputed value.
    """
    return merge_values(runs, evaluation.wide(), prefer=prefer, rtol=rtol, atol=atol)


def merge_values(runs: pd.DataFrame, values: pd.DataFrame, *, prefer: str = "recomputed",
                 rtol: float = 1e-3, atol: float = 1e-3) -> MergedMetrics:
    """Put recomputed per-run values into a runs table, checking them against supplied ones.

    Parameters
    ----------
    runs : DataFrame
        Per-run table (``method``, ``dataset``, ``run`` (0 when absent), ...). Not modified.
    values : DataFrame
        ``method``, ``dataset``, ``run`` and one column per recomputed value
        (``r2_test``, ``property``, ...), at most one row per run.
    prefer : {'recomputed', 'supplied'}
        Which value a column holds where both exist. Either way, a supplied
        value that differs from the recomputed one is kept (in
        ``<column>_supplied``) and reported: it is never silently overwritten.
        A missing value on one side is filled from the other.
    rtol, atol : float
        Values agree when ``|a - b| <= atol + rtol * |b|`` (or both are the
        same infinity). The defaults accept supplied values rounded to 3 decimals.

    Returns
    -------
    MergedMetrics
        Problems of kind ``metric_mismatch`` (``property_mismatch`` for the
        ``property`` column).

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "property": [1.0, np.nan]})
    >>> values = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "property": [0.0, 0.5]})
    >>> merged = merge_values(runs, values, prefer="supplied")
    >>> merged.runs["property"].tolist(), merged.problems["kind"].tolist()
    ([1.0, 0.5], ['property_mismatch'])
    """
    if prefer not in _PREFER:
        raise SrdashError(f"The 'prefer' option must be one of 'recomputed', 'supplied'. Got {prefer!r}.")
    _check_runs(runs, ("method", "dataset"), "merge the recomputed values")
    table = runs.reset_index(drop=True).copy()
    if "run" not in table.columns:
        table["run"] = 0
    keys = ["method", "dataset", "run"]
    merged = table[keys].merge(values, on=keys, how="left", validate="many_to_one")
    # A refused model was not evaluated: its worst value comes from the missing-value rule, and the
    # refusal (one problem, with its reason) already says so; no mismatch is reported for it.
    refused = (table["status"].isin(REFUSED_STATUSES).to_numpy() if "status" in table.columns
               else np.zeros(len(table), dtype=bool))
    problems = []
    for column in [c for c in values.columns if c not in keys]:
        recomputed = pd.to_numeric(merged[column], errors="coerce").to_numpy(dtype=float)
        if column not in table.columns:
            table[column] = recomputed
            continue
        supplied = pd.to_numeric(table[column], errors="coerce").to_numpy(dtype=float)
        both = ~np.isnan(supplied) & ~np.isnan(recomputed)
        with np.errstate(invalid="ignore"):
            agree = (supplied == recomputed) | np.isclose(supplied, recomputed, rtol=rtol, atol=atol)
        differ = both & ~agree & ~refused
        table[f"{column}_supplied"] = supplied
        chosen = recomputed if prefer == "recomputed" else supplied
        fallback = supplied if prefer == "recomputed" else recomputed
        table[column] = np.where(np.isnan(chosen), fallback, chosen)
        kind = "property_mismatch" if column == "property" else "metric_mismatch"
        for position in np.flatnonzero(differ):
            row = table.iloc[position]
            problems.append({
                "kind": kind, "method": row["method"], "dataset": row["dataset"], "run": row["run"],
                "detail": f"{column}: supplied {_shown(supplied[position])}, recomputed "
                          f"{_shown(recomputed[position])} from the model and the data; using the {prefer} value.",
            })
    return MergedMetrics(runs=table, problems=_problem_frame(problems))


def _shown(value: float) -> str:
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return f"{value:.6g}"
