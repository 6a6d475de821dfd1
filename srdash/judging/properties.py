"""Property scorers of the synthetic track: what each dataset was built to test.

Each dataset of a :class:`~srdash.io.datasets.DatasetTable` tests one property
(its ``property`` kind). Per run, srdash scores it from the model and the data;
**higher is better** for every per-run property score:

``exact`` — re-discovery (SRBench 2022 rule, :func:`srdash.expressions.equivalence_table`)
    1 when the simplified model is equivalent to the ground truth, else 0. The
    simplified model (floats rounded to 3 decimals, those below 0.001 set to 0)
    must not be 0, and either ``truth - model`` or ``model / truth`` must be a
    constant. Every symbolic step runs under a hard time limit; a timeout
    counts as not equivalent. A method's per-dataset value is the **share of
    its runs** that rediscovered the formula.
``feature_absence`` — S1 over the irrelevant features (default) or S2
    ``S1 = 1 − |irrelevant ∩ used| / |irrelevant|`` (:func:`feature_absence_score`);
    ``S2 = |relevant ∩ used| / |used|`` (:func:`relevant_share_score`; 0 for a
    model using no feature). *Used* means present in the **simplified** model
    (``x2/x2`` does not use ``x2``; a coefficient that rounds to 0 removes its
    term), as in the 2022 scorer.
``local_optima`` — S1 (default) or S2 over the surrogate features.
``extrapolation`` — R2 on the dataset's extrapolation partition.
``noise`` — test R2 (what the 2022 organisers ranked). The noise
    *sensitivity* is reported beside it (:func:`noise_sensitivity`; **lower is
    better**).

These are the organisers' 2022 choices (:data:`DEFAULT_SCORES`). A dataset's
``score`` key, or the ``feature_score`` option, selects S2 instead.

Missing values follow srdash's rule: a run whose model cannot be parsed or
simplified has no S1/S2 value (NaN), which ranks as the worst value; it is not
equivalent to the ground truth (0); its R2 is -inf (see :mod:`srdash.judging.evaluation`).

Examples
--------
>>> feature_absence_score({"x1", "x3"}, irrelevant=("x2", "x3", "x4", "x5"))
0.75
>>> relevant_share_score({"x1", "x3"}, relevant=("x1", "x2"))
0.5
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Collection, Iterable

import numpy as np
import pandas as pd

from srdash.io.datasets import FEATURE_SCORES, DatasetSpec, DatasetTable
from srdash.errors import SrdashError
from srdash.judging.evaluation import Evaluation, MergedMetrics, merge_values
from srdash.judging.representative import representative_runs

__all__ = [
    "DEFAULT_SCORES",
    "PropertyScores",
    "feature_absence_score",
    "relevant_share_score",
    "noise_sensitivity",
    "property_scores",
    "with_property",
    "unwanted_usage",
    "representative_models",
]

#: Property kind -> what the 2022 organisers scored (higher is better).
DEFAULT_SCORES = MappingProxyType({
    "exact": "rediscovery",
    "feature_absence": "S1",
    "local_optima": "S1",
    "extrapolation": "r2",
    "noise": "r2",
})
_PROBLEM_COLUMNS = ["kind", "method", "dataset", "run", "detail"]
_RUN_AGGREGATIONS = ("median", "mean")
# Statuses of srdash.judging.pipeline.prepare_runs for a model that could not be simplified.
_FAILED_STATUSES = frozenset({"timeout", "simplify_error", "rejected", "parse_error"})


def _names(value) -> frozenset[str] | None:
    """A set of feature names from text ("x1 x2", "x1,x2") or a collection; None when unknown."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float):
        return None if np.isnan(value) else frozenset()
    if isinstance(value, str):
        return frozenset(value.replace(",", " ").split())
    if isinstance(value, Iterable):
        return frozenset(str(v) for v in value)
    return None


def feature_absence_score(used: Collection[str] | str, *, irrelevant: Collection[str]) -> float:
    """S1 = 1 − |irrelevant ∩ used| / |irrelevant|: the share of the unwanted features left out.

    Parameters
    ----------
    used : collection of str, or space-separated str
        The features present in the simplified model.
    irrelevant : collection of str
        The unwanted features (irrelevant or surrogate); at least one.

    Returns
    -------
    float in [0, 1]; 1 when the model uses none of them (also a constant model).

    Examples
    --------
    >>> feature_absence_score("x1 x12", irrelevant=["x11", "x12"])
    0.5
    >>> feature_absence_score([], irrelevant=["x11"])
    1.0
    """
    unwanted = frozenset(irrelevant)
    if not unwanted:
        raise SrdashError("feature_absence_score needs at least one irrelevant feature.")
    return 1.0 - len(unwanted & _names(used)) / len(unwanted)


def relevant_share_score(used: Collection[str] | str, *, relevant: Collection[str]) -> float:
    """S2 = |relevant ∩ used| / |used|: the share of the model's features that are relevant.

    A model using no feature at all scores 0 (it found none of the relevant ones).

    Examples
    --------
    >>> relevant_share_score({"x1", "x2", "x11"}, relevant=["x1", "x2", "x3"])
    0.6666666666666666
    >>> relevant_share_score(set(), relevant=["x1"])
    0.0
    """
    used_names = _names(used)
    if not used_names:
        return 0.0
    return len(frozenset(relevant) & used_names) / len(used_names)


@dataclass(frozen=True)
class PropertyScores:
    """Property scores of every run, aggregated per dataset, and the noise analysis.

    Attributes
    ----------
    runs : DataFrame
        One row per run on a dataset with a property: ``method``, ``dataset``,
        ``run``, ``model``, ``kind``, ``score`` (``rediscovery``, ``S1``, ``S2`` or
        ``r2``), ``property`` (higher is better; NaN = worst), ``equivalent``
        (exact datasets: True/False, else NA), ``features_used`` and
        ``unwanted_used`` (space-separated), ``simplified`` and ``detail``.
    per_dataset : DataFrame
        ``dataset``, ``method``, ``kind``, ``score``, ``runs`` and ``property``:
        the share of rediscovering runs for ``exact``, else the median (or mean)
        over runs, a NaN run counting as -inf.
    noise_curve : DataFrame
        ``group``, ``method``, ``dataset``, ``noise_level``, ``r2``: the
        aggregated test R2 of each method at each noise level.
    sensitivity : DataFrame
        ``group``, ``method``, ``sensitivity`` (lower is better), ``levels``
        and ``detail`` (see :func:`noise_sensitivity`).
    problems : DataFrame
        ``kind``, ``method``, ``dataset``, ``run``, ``detail``.
    datasets : DatasetTable or None
        The descriptions the scores were computed from.
    """

    runs: pd.DataFrame
    per_dataset: pd.DataFrame
    noise_curve: pd.DataFrame
    sensitivity: pd.DataFrame
    problems: pd.DataFrame
    datasets: DatasetTable | None = None

    def values(self) -> pd.DataFrame:
        """``method``, ``dataset``, ``run``, ``property``: the per-run values to judge."""
        return self.runs[["method", "dataset", "run", "property"]]


def _aggregate(values: pd.Series, how: str) -> float:
    filled = values.astype(float).fillna(-np.inf)
    if how == "mean":
        return float(filled.mean())
    return float(np.median(filled.to_numpy()))


def noise_sensitivity(curve: pd.DataFrame) -> pd.DataFrame:
    """Noise sensitivity per group and method: how fast test R2 falls as noise grows.

    Between two noise levels the sensitivity is ``|Q1 − Q2| / |n1 − n2|``
    (Q = test R2, n = noise level; the 2022 organisers' proposal). Over more
    levels n1 < n2 < ... < nk, srdash reports the total variation of Q per unit
    of noise, ``Σ |Q(i+1) − Q(i)| / (nk − n1)``, which is the pairwise formula
    when there are two levels. **Lower is better.** A method with a
    non-finite Q at some level gets +inf (worst); a method missing a level gets
    NaN, with a detail saying which.

    Parameters
    ----------
    curve : DataFrame
        ``group``, ``method``, ``dataset``, ``noise_level``, ``r2`` (one row
        per method and dataset; see :attr:`PropertyScores.noise_curve`).

    Returns
    -------
    DataFrame
        ``group``, ``method``, ``sensitivity``, ``levels``, ``detail``, sorted
        by group and sensitivity (best first).

    Examples
    --------
    >>> curve = pd.DataFrame({"group": "g", "method": ["a", "a", "a", "b", "b", "b"],
    ...                       "dataset": ["n0", "n1", "n2"] * 2, "noise_level": [0, 0.1, 0.2] * 2,
    ...                       "r2": [1.0, 0.9, 0.85, 0.9, 0.7, 0.75]})
    >>> noise_sensitivity(curve)[["method", "sensitivity"]]
      method  sensitivity
    0      a         0.75
    1      b         1.25

    Method a: (|0.9 − 1| + |0.85 − 0.9|) / (0.2 − 0) = 0.15 / 0.2 = 0.75; b:
    (0.2 + 0.05) / 0.2 = 1.25.
    """
    rows = []
    for group, members in curve.groupby("group", sort=True):
        levels = sorted(members["noise_level"].unique())
        for method, points in members.groupby("method", sort=True):
            points = points.sort_values("noise_level")
            missing = sorted(set(levels) - set(points["noise_level"]))
            shown = ", ".join(f"{level:g}" for level in levels)
            if missing:
                value = np.nan
                detail = f"no result at noise level(s) {', '.join(f'{m:g}' for m in missing)}"
            elif len(levels) < 2:
                value, detail = np.nan, f"only noise level {shown} has results; the sensitivity needs two"
            else:
                q = points["r2"].to_numpy(dtype=float)
                n = points["noise_level"].to_numpy(dtype=float)
                if not np.isfinite(q).all():
                    value, detail = np.inf, "a non-finite test R2 (failed models): counted as the worst value"
                else:
                    value = float(np.abs(np.diff(q)).sum() / (n[-1] - n[0]))
                    detail = ""
            rows.append({"group": group, "method": method, "sensitivity": value, "levels": shown,
                         "detail": detail})
    table = pd.DataFrame(rows, columns=["group", "method", "sensitivity", "levels", "detail"])
    return table.sort_values(["group", "sensitivity", "method"], kind="mergesort", na_position="last",
                             ignore_index=True)


def property_scores(
    runs: pd.DataFrame,
    datasets: DatasetTable,
    *,
    evaluation: Evaluation | None = None,
    feature_score: str | None = None,
    aggregation: str = "median",
    timeout: float = 10.0,
    jobs: int = 1,
    cache=None,
    scheduler=None,
    progress: Callable[[int, int, dict], None] | None = None,
) -> PropertyScores:
    """Score every run's property on the datasets of a dataset table.

    Parameters
    ----------
    runs : DataFrame
        Per-run table: ``method``, ``dataset``, ``run`` (0 when absent),
        ``model``; optionally ``features_used`` with ``status`` (the output of
        :func:`srdash.judging.pipeline.prepare_runs`: rows with status ``ok`` are not
        simplified again) and ``r2_<partition>`` columns (used for the R2-based
        kinds when ``evaluation`` is None). Not modified.
    datasets : DatasetTable
    evaluation : Evaluation, optional
        Metrics recomputed from the data (:func:`srdash.judging.evaluation.evaluate_runs`);
        preferred over the runs' ``r2_<partition>`` columns.
    feature_score : {'S1', 'S2'}, optional
        Force one feature score for every ``feature_absence`` and
        ``local_optima`` dataset. Default: each dataset's ``score`` (S1 unless stated).
    aggregation : {'median', 'mean'}
        How a method's runs combine in ``per_dataset`` and the noise curve
        (exact datasets always report the share of runs).
    timeout : float
        Hard time limit in seconds of every symbolic step.
    jobs, cache, scheduler
        Passed to :func:`srdash.expressions.complexity_table` for the models
        that need simplifying; ``cache`` also keeps the equivalence verdicts
        (:func:`srdash.expressions.equivalence_table`, local workers).
    progress : callable, optional
        ``progress(done, total, counts)`` while checking equivalences (one
        check per distinct model of an exact dataset).

    Returns
    -------
    PropertyScores

    Examples
    --------
    >>> from srdash.io.datasets import load_dataset_table
    >>> table = load_dataset_table({"datasets": [{"name": "fs", "property": "feature_absence",
    ...     "files": {"test": "fs.csv"}, "target": "y", "features": "x1 x2 x3 x4",
    ...     "irrelevant": "x3 x4"}]}, check_files=False)
    >>> runs = pd.DataFrame({"method": ["clean", "cancels", "leaky"], "dataset": "fs", "run": 0,
    ...                      "model": ["x1*x2", "x1 + x3/x3", "x1 + 0.5*x4"]})
    >>> scores = property_scores(runs, table, cache=False)
    >>> scores.runs[["method", "property", "unwanted_used"]]  # doctest: +NORMALIZE_WHITESPACE
        method  property unwanted_used
    0  cancels       1.0
    1    clean       1.0
    2    leaky       0.5            x4
    """
    missing = [c for c in ("method", "dataset") if c not in runs.columns]
    if missing:
        raise SrdashError(f"Cannot score the properties: the runs table has no column(s) "
                          f"{', '.join(map(repr, missing))}. Columns: {', '.join(map(repr, runs.columns))}.")
    if feature_score is not None and feature_score not in FEATURE_SCORES:
        raise SrdashError(f"The 'feature_score' option must be one of 'S1', 'S2'. Got {feature_score!r}.")
    if aggregation not in _RUN_AGGREGATIONS:
        raise SrdashError(f"The 'aggregation' option must be one of 'median', 'mean'. Got {aggregation!r}.")
    table = runs.reset_index(drop=True).copy()
    if "run" not in table.columns:
        table["run"] = 0
    if "model" not in table.columns:
        table["model"] = pd.NA
    problems: list[dict] = []
    for dataset in sorted(set(table["dataset"]) - set(datasets.names)):
        problems.append({"kind": "no_description", "method": pd.NA, "dataset": dataset, "run": pd.NA,
                         "detail": f"dataset {dataset!r} is not in the dataset table {datasets.source}: "
                                   "no property is scored on it."})
    scored = table[table["dataset"].isin([s.name for s in datasets if s.property != "none"])]
    scored = scored.sort_values(["dataset", "method", "run"], kind="mergesort", ignore_index=True)
    kinds = scored["dataset"].map({s.name: s.property for s in datasets})
    out = pd.DataFrame({
        "method": scored["method"], "dataset": scored["dataset"], "run": scored["run"].astype("int64"),
        "model": scored["model"], "kind": kinds,
        "score": [_score_name(datasets[d], feature_score) for d in scored["dataset"]],
        "property": np.nan, "equivalent": pd.array([pd.NA] * len(scored), dtype="boolean"),
        "features_used": "", "unwanted_used": "", "simplified": "", "detail": "",
    })

    feature_rows = kinds.isin(["feature_absence", "local_optima"]).to_numpy()
    exact_rows = (kinds == "exact").to_numpy()
    # One simplification pass for every model whose features or simplified form are needed.
    simplification = _simplified_models(scored, np.flatnonzero(feature_rows | exact_rows), datasets,
                                        timeout=timeout, jobs=jobs, cache=cache, scheduler=scheduler)
    if feature_rows.any():
        _score_features(scored, out, feature_rows, datasets, simplification, problems=problems)
    if exact_rows.any():
        _score_exact(scored, out, exact_rows, datasets, simplification, timeout=timeout, jobs=jobs,
                     progress=progress, problems=problems, cache=cache)
    r2_rows = kinds.isin(["extrapolation", "noise"]).to_numpy()
    if r2_rows.any():
        _score_r2(scored, out, r2_rows, datasets, evaluation=evaluation, problems=problems)

    per_dataset = _per_dataset(out, aggregation)
    order = {name: i for i, name in enumerate(datasets.names)}  # the dataset table's order
    per_dataset = per_dataset.sort_values(["dataset", "method"], key=lambda c: c.map(order) if c.name == "dataset"
                                          else c, kind="mergesort", ignore_index=True)
    curve = _noise_curve(per_dataset, datasets)
    return PropertyScores(
        runs=out, per_dataset=per_dataset, noise_curve=curve, sensitivity=noise_sensitivity(curve),
        problems=pd.DataFrame(problems, columns=_PROBLEM_COLUMNS), datasets=datasets,
    )


def _score_name(spec: DatasetSpec, feature_score: str | None) -> str:
    if spec.property in ("feature_absence", "local_optima"):
        return feature_score or spec.score
    return DEFAULT_SCORES[spec.property]


def _simplified_models(scored, positions, datasets, *, timeout, jobs, cache, scheduler=None):
    """Features used and simplified text of the models at ``positions``: ({pos: names}, {pos: text}, {pos: reason}).

    Models already simplified by :func:`srdash.judging.pipeline.prepare_runs` (status ``ok``)
    are taken as they are; the others are simplified here, under the time limit.
    """
    used: dict[int, frozenset[str] | None] = {}
    simplified: dict[int, str] = {}
    reasons: dict[int, str] = {}
    if {"features_used", "status"} <= set(scored.columns):
        for position in positions:
            status = scored.at[position, "status"]
            if status == "ok":
                used[position] = _names(scored.at[position, "features_used"])
                if "simplified" in scored.columns and isinstance(scored.at[position, "simplified"], str):
                    simplified[position] = scored.at[position, "simplified"]
            elif status in _FAILED_STATUSES:
                # prepare_runs already tried under the same time limit: trying again would fail again
                # (a timeout costs the whole limit once more).
                reason = scored.at[position, "reason"] if "reason" in scored.columns else ""
                reasons[position] = f"{status}: {reason}" if isinstance(reason, str) and reason else str(status)
    todo = [p for p in positions if p not in used and p not in reasons and isinstance(scored.at[p, "model"], str)]
    if len(todo):
        from srdash.expressions import complexity_table  # the only module that talks to sympy

        computed = complexity_table(scored.loc[todo, "model"],
                                    features=[datasets[d].features for d in scored.loc[todo, "dataset"]],
                                    timeout=timeout, jobs=jobs, cache=cache, scheduler=scheduler)
        for position, (_, row) in zip(todo, computed.iterrows()):
            if row["status"] == "ok":
                used[position] = _names(row["features_used"])
                simplified[position] = str(row["simplified"])
            else:
                reasons[position] = f"{row['status']}: {row['reason']}"
    return used, simplified, reasons


def _score_features(scored, out, rows, datasets, simplification, *, problems) -> None:
    positions = np.flatnonzero(rows)
    used, simplified, reasons = simplification
    for position in positions:
        spec = datasets[scored.at[position, "dataset"]]
        names = used.get(position)
        out.at[position, "simplified"] = simplified.get(position, "")
        if names is None:
            reason = reasons.get(position, "the run has no model" if not isinstance(scored.at[position, "model"], str)
                                 else "the model was not simplified")
            out.at[position, "detail"] = f"{reason}; no feature score (counted as the worst value)"
            problems.append({"kind": "no_property", "method": scored.at[position, "method"],
                             "dataset": spec.name, "run": int(scored.at[position, "run"]),
                             "detail": out.at[position, "detail"]})
            continue
        unwanted = spec.unwanted
        out.at[position, "features_used"] = " ".join(f for f in spec.features if f in names)
        out.at[position, "unwanted_used"] = " ".join(f for f in unwanted if f in names)
        if out.at[position, "score"] == "S2":
            out.at[position, "property"] = relevant_share_score(names, relevant=spec.wanted)
        else:
            out.at[position, "property"] = feature_absence_score(names, irrelevant=unwanted)


def _score_exact(scored, out, rows, datasets, simplification, *, timeout, jobs, progress, problems,
                 cache=False) -> None:
    from srdash.expressions import equivalence_table  # the only module that talks to sympy

    positions = np.flatnonzero(rows)
    # The simplified models are shown beside the ground truth (dashboard), and their features.
    used, simplified, reasons = simplification
    for position in positions:
        names = used.get(position)
        if names is not None:
            spec = datasets[scored.at[position, "dataset"]]
            out.at[position, "features_used"] = " ".join(f for f in spec.features if f in names)
        out.at[position, "simplified"] = simplified.get(position, "")
    # A model that could not be simplified under the time limit (or was refused) is not
    # equivalent (a timeout means not equivalent): simplifying it again would cost the
    # whole limit once more for the same answer.
    failed = {(scored.at[p, "dataset"], scored.at[p, "model"]): reasons[p] for p in positions if p in reasons}
    # One check per distinct (dataset, model), all in one pool of workers.
    pairs = list(dict.fromkeys((scored.at[p, "dataset"], scored.at[p, "model"]) for p in positions
                               if isinstance(scored.at[p, "model"], str) and p not in reasons))
    checked = equivalence_table([model for _, model in pairs], [datasets[d].truth for d, _ in pairs],
                                features=[datasets[d].features for d, _ in pairs], timeout=timeout, jobs=jobs,
                                progress=progress, cache=cache)
    verdicts = dict(zip(pairs, checked))
    for key, reason in failed.items():
        verdicts.setdefault(key, (False, f"not equivalent: the model was not simplified ({reason})"))
    for position in positions:
        key = (scored.at[position, "dataset"], scored.at[position, "model"])
        equivalent, detail = verdicts.get(key, (False, "not equivalent: the run has no model"))
        out.at[position, "equivalent"] = bool(equivalent)
        out.at[position, "property"] = 1.0 if equivalent else 0.0
        out.at[position, "detail"] = detail
        if "time limit" in detail:
            problems.append({"kind": "timeout", "method": scored.at[position, "method"], "dataset": key[0],
                             "run": int(scored.at[position, "run"]), "detail": detail})


def _score_r2(scored, out, rows, datasets, *, evaluation, problems) -> None:
    positions = np.flatnonzero(rows)
    lookup = {}
    if evaluation is not None and not evaluation.metrics.empty:
        metrics = evaluation.metrics
        lookup = {(m, d, int(r), p): v for m, d, r, p, v in
                  zip(metrics["method"], metrics["dataset"], metrics["run"], metrics["partition"], metrics["r2"])}
    for position in positions:
        spec = datasets[scored.at[position, "dataset"]]
        partition = spec.partition if spec.property == "extrapolation" else "test"
        key = (scored.at[position, "method"], spec.name, int(scored.at[position, "run"]), partition)
        column = f"r2_{partition}"
        if key in lookup:
            value, source = lookup[key], "recomputed from the data"
        elif column in scored.columns and pd.notna(scored.at[position, column]):
            value, source = float(scored.at[position, column]), f"the supplied {column}"
        else:
            value, source = np.nan, ""
            problems.append({"kind": "no_property", "method": key[0], "dataset": spec.name, "run": key[2],
                             "detail": f"no R2 on the {partition} partition (evaluate the models on the data or "
                                       f"supply {column}); counted as the worst value"})
        out.at[position, "property"] = value
        out.at[position, "detail"] = f"R2 on the {partition} partition, {source}" if source else \
            f"no R2 on the {partition} partition"


def _per_dataset(out: pd.DataFrame, aggregation: str) -> pd.DataFrame:
    rows = []
    for (dataset, method), group in out.groupby(["dataset", "method"], sort=True):
        kind = group["kind"].iloc[0]
        if kind == "exact":
            value = float(group["property"].fillna(0).mean())
        else:
            value = _aggregate(group["property"], aggregation)
        rows.append({"dataset": dataset, "method": method, "kind": kind, "score": group["score"].iloc[0],
                     "runs": len(group), "property": value})
    return pd.DataFrame(rows, columns=["dataset", "method", "kind", "score", "runs", "property"])


def _noise_curve(per_dataset: pd.DataFrame, datasets: DatasetTable) -> pd.DataFrame:
    rows = []
    levels = {s.name: (s.group, s.noise_level) for s in datasets.of_kind("noise")}
    for row in per_dataset[per_dataset["kind"] == "noise"].itertuples(index=False):
        group, level = levels[row.dataset]
        rows.append({"group": group, "method": row.method, "dataset": row.dataset, "noise_level": level,
                     "r2": row.property})
    curve = pd.DataFrame(rows, columns=["group", "method", "dataset", "noise_level", "r2"])
    return curve.sort_values(["group", "method", "noise_level"], kind="mergesort", ignore_index=True)


def with_property(runs: pd.DataFrame, scores: PropertyScores, *, prefer: str = "recomputed") -> MergedMetrics:
    """The runs table with the ``property`` column filled from the property scores.

    A supplied ``property`` column is checked: values that differ from the
    recomputed ones are kept in ``property_supplied`` and reported
    (``property_mismatch``), never silently overwritten (see
    :func:`srdash.judging.evaluation.merge_values`). Runs on datasets without a
    property keep their supplied value (or NaN).

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "property": [1.0, 1.0]})
    >>> scores = PropertyScores(
    ...     runs=pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "property": [1.0, 0.0]}),
    ...     per_dataset=pd.DataFrame(), noise_curve=pd.DataFrame(), sensitivity=pd.DataFrame(),
    ...     problems=pd.DataFrame())
    >>> merged = with_property(runs, scores)
    >>> merged.runs["property"].tolist(), merged.problems["kind"].tolist()
    ([1.0, 0.0], ['property_mismatch'])
    """
    return merge_values(runs, scores.values(), prefer=prefer, rtol=0.0, atol=1e-9)


def unwanted_usage(scores: PropertyScores) -> pd.DataFrame:
    """How often each method's models use each unwanted (irrelevant or surrogate) feature.

    Returns
    -------
    DataFrame
        One row per (dataset, method, unwanted feature) of the ``feature_absence``
        and ``local_optima`` datasets: ``runs_using`` (runs whose simplified model
        uses it), ``runs`` (runs with a simplified model) and ``share``.

    Examples
    --------
    >>> from srdash.io.datasets import load_dataset_table
    >>> table = load_dataset_table({"datasets": [{"name": "fs", "property": "feature_absence",
    ...     "files": {"test": "fs.csv"}, "target": "y", "features": "x1 x2 x3", "irrelevant": "x2 x3"}]},
    ...     check_files=False)
    >>> runs = pd.DataFrame({"method": "m", "dataset": "fs", "run": [0, 1], "model": ["x1 + x2", "x1"]})
    >>> unwanted_usage(property_scores(runs, table, cache=False))
      dataset method feature  runs_using  runs  share
    0      fs      m      x2           1     2    0.5
    1      fs      m      x3           0     2    0.0
    """
    if scores.datasets is None:
        raise SrdashError("These property scores carry no dataset table; compute them with property_scores().")
    rows = []
    feature_runs = scores.runs[scores.runs["kind"].isin(["feature_absence", "local_optima"])]
    for (dataset, method), group in feature_runs.groupby(["dataset", "method"], sort=True):
        spec = scores.datasets[dataset]
        known = group[group["property"].notna()]
        used_sets = [frozenset(text.split()) for text in known["unwanted_used"]]
        for feature in spec.unwanted:
            count = sum(feature in used for used in used_sets)
            rows.append({"dataset": dataset, "method": method, "feature": feature, "runs_using": count,
                         "runs": len(used_sets), "share": count / len(used_sets) if used_sets else np.nan})
    return pd.DataFrame(rows, columns=["dataset", "method", "feature", "runs_using", "runs", "share"])


def representative_models(scores: PropertyScores, runs: pd.DataFrame | None = None, *,
                          choice: str = "closest-to-median", column: str = "r2_test") -> pd.DataFrame:
    """The representative run of each method on each exact-formula dataset, with its verdict.

    Parameters
    ----------
    scores : PropertyScores
    runs : DataFrame, optional
        Per-run table holding the accuracy ``column``; the representative is
        chosen by :func:`srdash.judging.representative.representative_runs` (``choice``
        ``closest-to-median`` or ``best``). Without it (or without the
        column), the run with the lowest number represents the method.

    Returns
    -------
    DataFrame
        ``dataset``, ``method``, ``run``, ``model``, ``simplified``,
        ``equivalent``, ``detail`` and ``share`` (share of the method's runs
        that rediscovered the formula).

    Examples
    --------
    >>> runs = pd.DataFrame({"method": "m", "dataset": "d", "run": [0, 1], "model": ["x1", "x1 + 1"],
    ...                      "kind": "exact", "simplified": ["x1", "x1 + 1"], "equivalent": [True, True],
    ...                      "detail": "", "property": 1.0})
    >>> per_dataset = pd.DataFrame({"dataset": ["d"], "method": ["m"], "property": [1.0]})
    >>> scores = PropertyScores(runs, per_dataset, pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    >>> accuracy = pd.DataFrame({"method": "m", "dataset": "d", "run": [0, 1], "r2_test": [0.5, 0.9]})
    >>> representative_models(scores, accuracy, choice="best")[["method", "run", "share"]]
      method  run  share
    0      m    1    1.0
    """
    exact = scores.runs[scores.runs["kind"] == "exact"]
    keys = ["method", "dataset", "run"]
    if runs is not None and column in runs.columns and not exact.empty:
        missing = [c for c in ("method", "dataset") if c not in runs.columns]
        if missing:
            raise SrdashError(f"Cannot choose representative runs: the runs table has no column(s) "
                              f"{', '.join(map(repr, missing))}. Columns: {', '.join(map(repr, runs.columns))}.")

        accuracy = runs[[c for c in keys if c in runs.columns] + [column]]
        if "run" not in accuracy.columns:
            accuracy = accuracy.assign(run=0)
        chosen = representative_runs(exact.merge(accuracy, on=keys, how="left"), choice=choice, column=column)
    else:
        chosen = exact.sort_values(["dataset", "method", "run"], kind="mergesort").groupby(
            ["dataset", "method"], sort=True).head(1)
    share = scores.per_dataset.set_index(["dataset", "method"])["property"] if not scores.per_dataset.empty \
        else pd.Series(dtype=float)
    out = chosen[["dataset", "method", "run", "model", "simplified", "equivalent", "detail"]].reset_index(drop=True)
    out["share"] = [float(share.get((d, m), np.nan)) for d, m in zip(out["dataset"], out["method"])]
    return out.sort_values(["dataset", "method"], kind="mergesort", ignore_index=True)
