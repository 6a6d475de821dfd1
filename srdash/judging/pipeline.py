"""From loaded results to a verdict: the expensive step (model complexity) once,
then judging, which is cheap and can be repeated with other options.

Examples
--------
>>> import pandas as pd
>>> from srdash.io.loading import load_results
>>> from srdash.judging.rules import load_rules
>>> results = load_results(pd.DataFrame({
...     "method": ["a", "b"], "dataset": "d", "r2_test": [0.91, 0.95], "components": [3, 25],
...     "property": [1.0, 1.0]}))
>>> rules = load_rules("srbench2022")
>>> runs = prepare_runs(results, rules=rules)
>>> runs[["method", "components", "simplicity", "status"]]
  method  components  simplicity status
0      a         3.0        -0.7  given
1      b        25.0        -2.0  given
>>> judge(runs, rules).leaderboard[["method", "score"]].round(4)  # ranks (1, 2, 1.5) and (2, 1, 1.5)
  method   score
0      a  1.3846
1      b  1.3846
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.errors import SrdashError
from srdash.judging import provenance
from srdash.judging.checks import check_criterion_columns, with_similar_names_flagged
from srdash.io.loading import Results, load_results
from srdash.judging.ranking import Verdict, judge
from srdash.judging.rules import Rules, load_rules

if TYPE_CHECKING:  # the core modules import sympy-free, but not for nothing at start-up
    from srdash.judging.competition import Competition
    from srdash.judging.properties import PropertyScores
    from srdash.judging.qualification import FilteredRuns, Qualification

__all__ = ["judge_competition", "RealWorldTrackRefused", "prepare_competition", "prepared_from_snapshot", "results_under_review", "qualified_competition_results", "judge_prepared", "PreparedCompetition",
           "CompetitionResult", "verdict_fingerprint", "competition_input_hashes", "realworld_track",
           "realworld_inputs", "RealWorldInputs", "prepare_runs", "prepare_track", "PreparedTrack", "score", "input_hashes", "RUN_STATUSES",
           "property_stage",
           "qualified_results", "with_qualification", "with_track_problems"]

#: Per-run model statuses: ``given`` means the input supplied ``components``; ``measured`` that the model was
#: measured as the rules ask (tree nodes, rounded nodes) and not simplified.
RUN_STATUSES = ("ok", "given", "measured", "timeout", "simplify_error", "rejected", "parse_error")


def prepare_runs(
    results: Results,
    *,
    rules: Rules | None = None,
    timeout: float = 10.0,
    jobs: int = 1,
    cache=None,
    scheduler=None,
    progress: Callable[[int, int, dict], None] | None = None,
) -> pd.DataFrame:
    """Add the model-derived columns the rules ask for to the per-run table.

    Each criterion's ``measure`` (:mod:`srdash.judging.measures`) says what is
    computed; nothing else is. ``simplified-components`` (the 2022 simplicity):
    where the input gives ``components``, simplicity is computed from it and the
    run's ``status`` is ``given``; otherwise the model string is parsed safely and
    simplified under a hard time limit (see :func:`srdash.expressions.complexity_table`).
    ``tree-nodes`` and ``rounded-nodes``: the criterion's column is counted on the
    model as submitted (:func:`srdash.expressions.measures.measure_table`, the same
    workers, limit and cache), where the input does not give it; no model is
    simplified unless a criterion asks for it. A model that cannot be parsed keeps
    its row, with ``status`` saying why and a missing value, which ranks as the
    worst value.

    Parameters
    ----------
    results : Results
        Validated results (see :func:`srdash.io.loading.load_results`).
    rules : Rules, optional
        Whose criteria's measures are computed. None: the 2022 simplicity only
        (``simplified-components``).
    timeout : float
        Hard time limit per simplification, in seconds.
    jobs : int
        Worker processes for the simplifications.
    cache : path, False or None
        Complexity cache (None: the default cache; False: none).
    scheduler : str, distributed.Client or None
        Simplify on this Dask scheduler's workers (see
        :func:`srdash.expressions.complexity_table`; None: as that function decides).
    progress : callable, optional
        Called as ``progress(done, total, counts_by_status)``.

    Returns
    -------
    DataFrame
        A new table with ``components``, ``simplicity``, ``simplified``,
        ``status``, ``reason`` and ``features_used``.
    """
    from srdash.judging.measures import measure as measure_of

    criteria = rules.criteria if rules is not None and rules.rule_kind.judges_runs else ()
    counted = [c for c in criteria if measure_of(c.measure).from_model and c.measure != "simplified-components"]
    simplify = rules is None or any(c.measure == "simplified-components" for c in criteria)
    if not simplify:
        return _measured_runs(results, counted, timeout=timeout, jobs=jobs, cache=cache, scheduler=scheduler,
                              progress=progress)
    table = _with_counted(results, counted, timeout=timeout, jobs=jobs, cache=cache, scheduler=scheduler)
    results = replace(results, table=table)
    table = results.table.copy()
    if "simplicity" in table.columns and "components" not in table.columns:
        if "status" not in table.columns:
            table["status"] = "given"
        return table
    n = len(table)
    components = (pd.to_numeric(table["components"], errors="coerce") if "components" in table.columns
                  else pd.Series(np.nan, index=table.index))
    has_model = table["model"].notna() if "model" in table.columns else pd.Series(False, index=table.index)
    to_simplify = components.isna() & has_model

    from srdash import expressions  # the only module that talks to sympy

    out = pd.DataFrame(index=table.index)
    out["components"] = components.astype(float)
    out["simplicity"] = expressions.simplicity_from_components(out["components"].to_numpy())
    out["simplified"] = ""
    out["status"] = np.where(components.notna(), "given", "parse_error")
    out["reason"] = np.where(components.notna() | has_model, "", "no model and no components")
    out["features_used"] = ""
    if to_simplify.any():
        models = table.loc[to_simplify, "model"]
        features = [results.features.get(d) or None for d in table.loc[to_simplify, "dataset"]]
        computed = expressions.complexity_table(
            models, features=features, timeout=timeout, jobs=jobs, cache=cache, progress=progress,
            scheduler=scheduler,
        )
        for column in ("components", "simplicity", "simplified", "status", "reason", "features_used"):
            out.loc[to_simplify, column] = computed[column].to_numpy()
    elif progress is not None:
        progress(n, n, {"given": n})
    for column in out.columns:
        table[column] = out[column]
    return table


def _count(results: Results, criterion, *, progress=None, **options) -> pd.DataFrame:
    """``nodes, status, reason`` of every run under a criterion's counting measure; a value the input gives
    is kept (status ``given``)."""
    from srdash.expressions.measures import measure_table

    table = results.table
    given = (pd.to_numeric(table[criterion.column], errors="coerce") if criterion.column in table.columns
             else pd.Series(np.nan, index=table.index))
    has_model = table["model"].notna() if "model" in table.columns else pd.Series(False, index=table.index)
    out = pd.DataFrame({"nodes": given.astype(float), "status": np.where(given.notna(), "given", "parse_error"),
                        "reason": np.where(given.notna() | has_model, "", "no model and no value given")},
                       index=table.index)
    todo = given.isna() & has_model
    if todo.any():
        features = [results.features.get(d) or None for d in table.loc[todo, "dataset"]]
        computed = measure_table(table.loc[todo, "model"], measure=criterion.measure, features=features,
                                 progress=progress, **options)
        out.loc[todo, "nodes"] = computed["nodes"].to_numpy()
        out.loc[todo, "status"] = np.where(computed["status"] == "ok", "measured", computed["status"])
        out.loc[todo, "reason"] = computed["reason"].to_numpy()
    return out


def _with_counted(results: Results, counted, **options) -> pd.DataFrame:
    """The table with each counting criterion's column filled in (beside the 2022 simplification)."""
    table = results.table.copy()
    for criterion in counted:
        table[criterion.column] = _count(results, criterion, **options)["nodes"]
    return table


def _measured_runs(results: Results, counted, *, progress, **options) -> pd.DataFrame:
    """The per-run table of rules that simplify no model: each counting criterion's column, and a run status
    (``measured``, ``given`` or why the model was refused)."""
    table = results.table.copy()
    n = len(table)
    status = pd.Series("given", index=table.index, dtype=object)
    reason = pd.Series("", index=table.index, dtype=object)
    for position, criterion in enumerate(counted):
        measured = _count(results, criterion, progress=progress, **options)
        table[criterion.column] = measured["nodes"]
        if position == 0:
            status, reason = measured["status"].astype(object), measured["reason"].astype(object)
        else:  # a later measure's failure is kept when the first one succeeded
            failed = ~measured["status"].isin(["measured", "given"]) & status.isin(["measured", "given"])
            status, reason = status.where(~failed, measured["status"]), reason.where(~failed, measured["reason"])
    for column, value in (("components", np.nan), ("simplicity", np.nan), ("simplified", ""), ("features_used", "")):
        if column not in table.columns:
            table[column] = value
    table["status"], table["reason"] = status, reason
    if progress is not None and not counted:
        progress(n, n, status.value_counts().to_dict())
    return table


@dataclass(frozen=True)
class PreparedTrack:
    """Per-run table of a track judged from raw model strings and dataset files.

    Attributes
    ----------
    runs : DataFrame
        :func:`prepare_runs`' table with the metrics recomputed on the data and
        the ``property`` column computed by the dataset's property scorer.
    problems : DataFrame
        ``kind, method, dataset, run, detail``: predictions that failed,
        supplied metrics that disagree with the recomputed ones, property
        scoring problems. Append them to the verdict's problems
        (:func:`with_track_problems`).
    scores : PropertyScores or None
        The property scores the ``property`` column came from (per run, per
        dataset, the noise curves): what the dashboard's property view shows,
        without computing them again.
    """

    runs: pd.DataFrame
    problems: pd.DataFrame
    scores: "PropertyScores | None" = None


def _on_data_criteria(rules: Rules | None) -> list:
    if rules is None or not rules.rule_kind.judges_runs:
        return []
    from srdash.judging.measures import measure as measure_of

    return [c for c in rules.criteria if measure_of(c.measure).needs_data]


def _partition_of(criterion) -> str:
    from srdash.judging.measures import DATA_PARTITION_PREFIX

    column = criterion.column
    return column[len(DATA_PARTITION_PREFIX):] if column.startswith(DATA_PARTITION_PREFIX) else column


def _with_on_data(runs: pd.DataFrame, descriptions, criteria, *, cache) -> pd.DataFrame:
    """The runs with each ``r2-on-data`` criterion's column computed from the data (a failure is the run's
    status, unless an earlier step already refused the model)."""
    from srdash.judging.submitted import r2_on_data

    table = runs.copy()
    for criterion in criteria:
        measured = r2_on_data(table, descriptions, column=criterion.column, cache=cache)
        table[criterion.column] = measured["value"]
        failed = (measured["status"] != "ok") & table["status"].isin(["ok", "given", "measured"])
        table.loc[failed, "status"] = measured.loc[failed, "status"]
        table.loc[failed, "reason"] = measured.loc[failed, "reason"]
    return table


_PROPERTY_WORDS = {"exact": "exact re-discovery", "feature_absence": "feature absence",
                   "local_optima": "local optima", "extrapolation": "extrapolation R²", "noise": "noise"}


def property_stage(descriptions) -> str:
    """The stage sentence for scoring the properties the datasets declare (what is really done).

    Examples
    --------
    >>> from types import SimpleNamespace as spec
    >>> property_stage([spec(property="exact"), spec(property="exact"), spec(property="noise")])
    "Scoring the datasets' properties: exact re-discovery, noise"
    >>> property_stage([spec(property="none")])
    'No dataset tests a property: nothing to re-discover'
    """
    kinds = {spec.property for spec in descriptions}
    said = ", ".join(words for kind, words in _PROPERTY_WORDS.items() if kind in kinds)
    if not said:
        return "No dataset tests a property: nothing to re-discover"
    return f"Scoring the datasets' properties: {said}"


def prepare_track(
    results: Results,
    descriptions,
    *,
    rules: Rules | None = None,
    timeout: float = 10.0,
    jobs: int = 1,
    cache=None,
    scheduler=None,
    progress: Callable[[int, int, dict], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> PreparedTrack:
    """Prepare a synthetic track from model strings and the datasets' descriptions.

    The models are simplified once (:func:`prepare_runs`), evaluated on every
    partition of their dataset (:func:`srdash.judging.evaluation.evaluate_runs`; the
    recomputed metrics replace supplied ones, and a disagreement is reported),
    and the dataset's property is scored
    (:func:`srdash.judging.properties.property_scores`).

    Parameters
    ----------
    results : Results
        Loaded with the descriptions' features (``load_results(..., datasets=table.frame())``).
    descriptions : DatasetTable
        From :func:`srdash.io.datasets.load_dataset_table`.
    rules : Rules, optional
        Whose measures are computed (see :func:`prepare_runs`); a criterion measured
        ``r2-on-data`` gets its column from the model and the dataset's file
        (:func:`srdash.judging.submitted.r2_on_data`) instead of the evaluation.
    progress : callable, optional
        ``progress(done, total, counts)``: while simplifying the models, then
        while checking exact re-discovery (a new ``total``).
    stage : callable, optional
        Called with the name of each step after the simplification.

    Returns
    -------
    PreparedTrack
    """
    from srdash.judging.evaluation import evaluate_runs, merge_metrics
    from srdash.judging.properties import property_scores, with_property

    say = stage or (lambda text: None)
    runs = prepare_runs(results, rules=rules, timeout=timeout, jobs=jobs, cache=cache, scheduler=scheduler,
                        progress=progress)
    on_data = _on_data_criteria(rules)
    say("Evaluating the models on the datasets")
    # a partition whose R2 a criterion measures 'r2-on-data' is scored by that measure only
    claimed = {_partition_of(c) for c in on_data}
    partitions = None if not claimed else sorted({p for spec in descriptions for p in spec.files
                                                  if p != "train" and p not in claimed})
    evaluation = evaluate_runs(runs, descriptions, partitions=partitions, cache=cache)
    merged = merge_metrics(runs, evaluation)
    if on_data:
        merged = replace(merged, runs=_with_on_data(merged.runs, descriptions, on_data, cache=cache))
    say(property_stage(descriptions))
    scores = property_scores(merged.runs, descriptions, evaluation=evaluation, timeout=timeout, jobs=jobs,
                             cache=cache, scheduler=scheduler, progress=progress)
    judged = with_property(merged.runs, scores)
    problems = pd.concat([evaluation.problems, merged.problems, scores.problems, judged.problems],
                         ignore_index=True)
    return PreparedTrack(runs=judged.runs, problems=problems, scores=scores)


def with_track_problems(verdict: Verdict, problems: pd.DataFrame | None) -> Verdict:
    """The verdict with a track's problems (:attr:`PreparedTrack.problems`) appended to its own.

    Examples
    --------
    >>> from srdash.demo.examples import accuracy_rules
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8]})
    >>> verdict = judge(runs, accuracy_rules())
    >>> extra = pd.DataFrame({"kind": ["non_finite"], "method": ["b"], "dataset": ["d"], "run": [0],
    ...                       "detail": ["predicts NaN"]})
    >>> len(with_track_problems(verdict, extra).problems) - len(verdict.problems)
    1
    """
    if problems is None or problems.empty:
        return verdict
    return replace(verdict, problems=pd.concat([verdict.problems, problems], ignore_index=True))


def qualified_results(results: Results, qualification: "Qualification", *,
                      keep_unqualified: bool = False) -> tuple[Results, "FilteredRuns"]:
    """The track's results without the methods that did not qualify (before the expensive step).

    Parameters
    ----------
    results : Results
        The track. Not modified.
    qualification : Qualification
        From :func:`srdash.judging.qualification.run_qualification`.
    keep_unqualified : bool
        Keep them, only flagged (see :func:`srdash.judging.qualification.filter_qualified`).

    Returns
    -------
    results : Results
        The kept methods' runs.
    filtered : FilteredRuns
        What was excluded or flagged, and the sentences saying so (pass it to
        :func:`with_qualification`).

    Examples
    --------
    >>> from srdash.judging.qualification import qualify
    >>> q = qualify(pd.DataFrame({"method": ["LinearRegression", "a", "b"], "dataset": "q",
    ...                           "r2_test": [0.5, 0.9, 0.1]}))
    >>> track = load_results(pd.DataFrame({"method": ["a", "b"], "dataset": "d", "model": ["x", "x + 1"]}))
    >>> kept, filtered = qualified_results(track, q)
    >>> kept.table["method"].tolist(), filtered.excluded
    (['a'], ('b',))
    """
    from srdash.judging.qualification import filter_qualified

    filtered = filter_qualified(results.table, qualification, exclude=not keep_unqualified)
    return replace(results, table=filtered.runs), filtered


def with_qualification(verdict: Verdict, qualification: "Qualification", filtered: "FilteredRuns") -> Verdict:
    """The verdict with the qualification stage stated: warnings and provenance.

    Each sentence of ``filtered.notes`` (who was excluded or flagged) becomes a
    warning, followed by the rule; the provenance records the rule and the
    excluded and flagged methods (``qualification_*`` entries).

    Examples
    --------
    >>> from srdash.judging.qualification import filter_qualified, qualify
    >>> q = qualify(pd.DataFrame({"method": ["LinearRegression", "a", "b"], "dataset": "q",
    ...                           "r2_test": [0.5, 0.9, 0.1]}))
    >>> track = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.3, 0.9]})
    >>> filtered = filter_qualified(track, q)
    >>> from srdash.demo.examples import accuracy_rules
    >>> verdict = with_qualification(judge(filtered.runs, accuracy_rules()), q, filtered)
    >>> verdict.warnings[-1][:60]
    'Excluded from the track (did not qualify against LinearRegre'
    >>> verdict.provenance["qualification_excluded"]
    'b'
    """
    notes = tuple(f"{note} Qualification rule: {qualification.rule}" for note in filtered.notes)
    return replace(verdict, warnings=tuple(verdict.warnings) + notes).with_provenance(
        qualification_rule=qualification.rule,
        qualification_baseline=qualification.baseline,
        qualification_qualified=", ".join(qualification.qualified),
        qualification_excluded=", ".join(filtered.excluded),
        qualification_flagged=", ".join(filtered.flagged),
    )


def input_hashes(sources: Sequence[str]) -> dict[str, str]:
    """SHA-256 of every input file (every file of an input folder), keyed ``input_sha256:<path>``.

    For loose files outside a competition; a competition's inputs are named by role and relative
    path (:func:`competition_input_hashes`). See :func:`srdash.judging.provenance.hash_inputs`.

    Examples
    --------
    >>> input_hashes([])
    {}
    """
    return provenance.hash_inputs(sources)


def competition_input_hashes(competition: "Competition", *, trust_entries: pd.DataFrame | None = None
                             ) -> dict[str, str]:
    """What the verdict depends on, by content: every input named by its role and its path relative to
    the competition's folder (:attr:`~srdash.judging.competition.Competition.root`), never by where it lies.

    - ``input_sha256:<role>:<path>``: the SHA-256 of each input file (every file of a folder), and of each
      data file the dataset descriptions name (role ``data``);
    - ``input_entries_sha256:realworld.store:<path>``: the trust store enters by the entries it holds (a
      store's bytes also change with keys issued and events logged, which do not change a verdict).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from srdash.judging.competition import competition_from_options
    >>> keys = []
    >>> for _ in range(2):
    ...     folder = pathlib.Path(tempfile.mkdtemp())
    ...     _ = (folder / "results.csv").write_text("method,dataset,r2_test,components\\na,d,0.5,3\\n")
    ...     keys.append(competition_input_hashes(competition_from_options(folder / "results.csv")))
    >>> keys[0] == keys[1], list(keys[0])
    (True, ['input_sha256:results:results.csv'])
    """
    hashes = _file_input_hashes(competition)
    if competition.realworld is not None:
        hashes[f"input_entries_sha256:realworld.store:{competition.relative(competition.realworld.store)}"] = (
            _entries_sha256(trust_entries))
    return hashes


def _file_input_hashes(competition: "Competition", data_files: Sequence[str | Path] | None = None) -> dict[str, str]:
    """The ``input_sha256:<role>:<path>`` part of :func:`competition_input_hashes` (every input but the trust
    store). ``data_files``: the data files the descriptions name, when the caller has read them already."""
    inputs = [(role, path) for role, path in competition.inputs if role != "realworld.store"]
    if data_files is None and competition.descriptions is not None:
        try:
            from srdash.io.datasets import load_dataset_table

            data_files = [path for spec in load_dataset_table(competition.descriptions)
                          for path in spec.files.values() if path]
        except SrdashError:  # reported where the descriptions are read; nothing more to hash here
            pass
    inputs += sorted({("data", Path(path)) for path in data_files or ()})
    return provenance.hash_roles(inputs, root=competition.root)


def _prepared_input_hashes(prepared: "PreparedCompetition") -> dict[str, str]:
    """:func:`competition_input_hashes` of a prepared competition: its files as hashed when it was prepared
    (what it holds was read from them; reading the descriptions again would parse every ground truth), and
    its trust entries as they are now."""
    competition = prepared.competition
    if not prepared.input_hashes:
        return competition_input_hashes(competition, trust_entries=prepared.trust_entries)
    hashes = dict(prepared.input_hashes)
    if competition.realworld is not None:
        hashes[f"input_entries_sha256:realworld.store:{competition.relative(competition.realworld.store)}"] = (
            _entries_sha256(prepared.trust_entries))
    return hashes


def _entries_sha256(entries: pd.DataFrame | None) -> str:
    """SHA-256 of trust entries, in a canonical order (the order a store returns them in does not count)."""
    import hashlib

    columns = ["judge", "dataset", "method", "kind", "value"]
    if entries is None or entries.empty:
        text = ""
    else:
        frame = entries.reindex(columns=columns).astype(str).sort_values(columns)
        text = frame.to_csv(index=False, lineterminator="\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def score(
    source,
    rules: str | Rules = "srbench2022",
    *,
    datasets=None,
    timeout: float = 10.0,
    jobs: int = 1,
    cache=None,
    progress: Callable[[int, int, dict], None] | None = None,
) -> tuple[Verdict, pd.DataFrame]:
    """Load, prepare and judge in one call.

    Returns
    -------
    verdict : Verdict
        With provenance including the SHA-256 of every input file.
    runs : DataFrame
        The prepared per-run table (re-judge it with other rules cheaply).
    """
    results = load_results(source, datasets=datasets)
    rules = load_rules(rules)
    runs = prepare_runs(results, rules=rules, timeout=timeout, jobs=jobs, cache=cache, progress=progress)
    verdict = judge(runs, rules)
    return verdict.with_provenance(**input_hashes(results.sources)), runs


# --------------------------------------------------------------------------- one competition, one verdict


@dataclass(frozen=True)
class PreparedCompetition:
    """Everything expensive a competition needs, done once (:func:`prepare_competition`).

    Judging it again under other options (:func:`judge_prepared`) is cheap: the
    dashboard's controls do that.

    Attributes
    ----------
    competition : Competition
    input : DataFrame or Submissions
        The prepared per-run table (rules that judge runs) or the loaded
        submissions (rules that judge submissions).
    results : Results or None
        The loaded results after the qualification stage (runs only).
    track_problems : DataFrame or None
        Problems found while evaluating models on the data (with descriptions).
    properties : PropertyScores or None
    qualification : Qualification or None
    filtered : FilteredRuns or None
        Who the qualification stage excluded or flagged.
    trust_entries : DataFrame or None
        The real-world track's trust entries (None: no real-world track).
    cache_stats : Mapping
        How many results came from the cache, per kind (``hits``, ``misses``,
        ``timeouts_reused``, ...; see :class:`srdash.cache.CacheStats`).
    input_hashes : Mapping
        The SHA-256 of every input file (but the trust store) by role and relative path, taken when the
        competition was prepared (see :func:`competition_input_hashes`; empty: hashed when judged).
    """

    competition: "Competition"
    input: object
    results: Results | None = None
    track_problems: pd.DataFrame | None = None
    properties: "PropertyScores | None" = None
    qualification: "Qualification | None" = None
    filtered: "FilteredRuns | None" = None
    trust_entries: pd.DataFrame | None = None
    cache_stats: Mapping = field(default_factory=lambda: MappingProxyType({}))
    input_hashes: Mapping = field(default_factory=lambda: MappingProxyType({}))

    @property
    def runs(self) -> pd.DataFrame | None:
        """The prepared per-run table (None for submissions)."""
        return self.input if isinstance(self.input, pd.DataFrame) else None

    @property
    def methods_under_review(self) -> tuple[str, ...]:
        """The methods the real-world track (and so its expert review) covers: those of the track,
        after the qualification stage."""
        runs = self.runs
        return () if runs is None else tuple(sorted(runs["method"].astype(str).unique()))

    @property
    def datasets_under_review(self) -> tuple[str, ...]:
        """The datasets the real-world track covers (the competition's list, else every dataset)."""
        runs = self.runs
        chosen = self.competition.realworld.datasets if self.competition.realworld is not None else ()
        if chosen:
            return tuple(chosen)
        return () if runs is None else tuple(sorted(runs["dataset"].astype(str).unique()))


@dataclass(frozen=True)
class CompetitionResult:
    """The verdict of a competition, as every door shows it.

    Attributes
    ----------
    competition : Competition
    prepared : PreparedCompetition
    verdict : Verdict or MultiObjectiveVerdict
        The main track.
    realworld : Verdict or None
        The real-world track (expert trust), when the competition has one.
    fingerprint : str
        :func:`verdict_fingerprint` of the tracks: equal fingerprints, same verdict.
    """

    competition: "Competition"
    prepared: PreparedCompetition
    verdict: object
    realworld: Verdict | None = None
    fingerprint: str = ""

    @property
    def tracks(self) -> dict[str, object]:
        """Track name -> verdict (``main``, and ``realworld`` when present)."""
        tracks = {"main": self.verdict}
        if self.realworld is not None:
            tracks["realworld"] = self.realworld
        return tracks

    @property
    def runs(self) -> pd.DataFrame | None:
        return self.prepared.runs

    @property
    def qualification(self):
        return self.prepared.qualification

    @property
    def properties(self):
        return self.prepared.properties

    @property
    def problems(self) -> pd.DataFrame:
        """Problems of the main track (rejected models, DNF, track problems...)."""
        return self.verdict.problems

    @property
    def provenance(self):
        return self.verdict.provenance


def load_competition_results(competition: "Competition") -> Results:
    """The competition's results (several files or folders are read one by one and stacked)."""
    features = competition.datasets
    if features is None and competition.descriptions is not None:
        from srdash.io.datasets import load_dataset_table

        features = load_dataset_table(competition.descriptions).frame()
    loaded = [load_results(path, datasets=features) for path in competition.results]
    if len(loaded) == 1:
        return loaded[0]
    _refuse_runs_in_two_files(competition.results, loaded)
    merged_features = {}
    for part in loaded:
        merged_features.update(part.features)
    return Results(table=pd.concat([part.table for part in loaded], ignore_index=True),
                   features=merged_features,
                   sources=tuple(s for part in loaded for s in part.sources))


def _refuse_runs_in_two_files(paths, loaded: Sequence[Results]) -> None:
    """Refuse a (method, dataset, run) found in two of the competition's results files: pooling them
    would keep both as if they were two runs, or one of them unseen."""
    from srdash.errors import Problem, ValidationError

    first: dict[tuple, str] = {}
    problems = []
    for path, part in zip(paths, loaded):
        keys = zip(part.table["method"].tolist(), part.table["dataset"].tolist(), part.table["run"].tolist())
        for method, dataset, run in dict.fromkeys(keys):
            where = first.setdefault((method, dataset, run), str(path))
            if where != str(path):
                problems.append(Problem(str(path), None, None,
                                        f"method {method!r}, dataset {dataset!r}, run {run} is also in {where}; "
                                        f"each run may appear in one results file only."))
    if problems:
        raise ValidationError(problems[:50], header="The competition's results files overlap")


def check_competition(competition: "Competition") -> Results | None:
    """Read and validate a competition's inputs without the expensive work (commands that start a server
    call it first, so that a bad file is reported at once).

    Returns
    -------
    Results or None
        The loaded results (None for rules that judge submissions).
    """
    if competition.rules.rule_kind.judges_submissions:
        from srdash.judging.multiobjective import load_submissions

        for path in competition.results:
            load_submissions(path, competition.rules)
        return None
    results = load_competition_results(competition)
    check_criterion_columns(results.table, competition.rules, sources=[str(p) for p in competition.results],
                            has_descriptions=competition.descriptions is not None)
    if competition.qualification is not None:
        from srdash.judging.qualification import canonical_results, read_qualification_results

        path = competition.qualification.results
        canonical_results(read_qualification_results(path), source=str(path),
                          need_r2=competition.qualification.data is None)
    return results


def qualified_competition_results(competition: "Competition", *, stage: Callable[[str], None] | None = None,
                                  cache=None):
    """The competition's results after its qualification stage (cheap: nothing is simplified).

    Returns
    -------
    results : Results
        Without the methods that did not qualify (unless the competition keeps them, flagged).
    qualification : Qualification or None
    filtered : FilteredRuns or None
    """
    if cache is None:
        cache = competition.simplification.cache
    say = stage or (lambda text: None)
    say("Loading the results")
    results = load_competition_results(competition)
    # before the qualification and the models' measures: a missing column is refused at once
    check_criterion_columns(results.table, competition.rules, sources=[str(p) for p in competition.results],
                            has_descriptions=competition.descriptions is not None)
    if competition.qualification is None:
        return results, None, None
    from srdash.judging.qualification import run_qualification

    say("Qualification stage")
    qualification = run_qualification(competition.qualification.results, data=competition.qualification.data,
                                      cache=cache)  # the baseline's fits are kept
    # before the expensive step: excluded models are not simplified
    results, filtered = qualified_results(results, qualification,
                                          keep_unqualified=competition.qualification.keep_unqualified)
    return results, qualification, filtered


def results_under_review(competition: "Competition", *, stage: Callable[[str], None] | None = None) -> Results:
    """What the expert review shows: the real-world track's methods (after the qualification stage) on the
    datasets under review. The same methods and datasets as :func:`realworld_track` judges.

    Raises
    ------
    SrdashError
        When the competition has no real-world track.
    """
    if competition.realworld is None:
        raise SrdashError(f"The competition {competition.source} has no real-world track: add a [realworld] "
                          "table naming the trust store (docs/competition.md).")
    results, _, _ = qualified_competition_results(competition, stage=stage)
    chosen = competition.realworld.datasets
    if not chosen:
        return results
    _check_datasets_under_review(competition, results.table["dataset"])
    table = results.table[results.table["dataset"].astype(str).isin(chosen)].reset_index(drop=True)
    return replace(results, table=table)


def prepare_competition(
    competition: "Competition",
    *,
    progress: Callable[[int, int, dict], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> PreparedCompetition:
    """Do the expensive work of a competition once: load, qualify, measure (what the rules' criteria declare:
    :mod:`srdash.judging.measures`), evaluate, score properties.

    Parameters
    ----------
    competition : Competition
        From :func:`srdash.judging.competition.load_competition` or
        :func:`~srdash.judging.competition.competition_from_options`.
    progress : callable, optional
        ``progress(done, total, counts)`` while models are simplified (and
        re-discovery is checked).
    stage : callable, optional
        Called with the name of each step.

    Returns
    -------
    PreparedCompetition
    """
    say = stage or (lambda text: None)
    rules = competition.rules
    if rules.rule_kind.judges_submissions:
        from srdash.judging.multiobjective import load_submissions

        if len(competition.results) != 1:
            raise SrdashError(f"The rules '{rules.name}' judge one submissions file; the competition names "
                              f"{len(competition.results)} results.")
        say("Loading the submissions")
        return PreparedCompetition(competition=competition, input=load_submissions(competition.results[0], rules),
                                   input_hashes=MappingProxyType(_file_input_hashes(competition)))
    from srdash.judging import snapshot

    cache = competition.simplification.open_cache()  # one object for every step: it counts what it answered
    try:
        found = snapshot.load_snapshot(competition, cache)
        if found is None:
            waiting = (lambda: say("Waiting for another srdash process that is preparing this competition"))
            with snapshot.preparing(competition, cache, waiting=waiting):
                found = snapshot.load_snapshot(competition, cache)  # it may have just been prepared
                if found is None:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        prepared, data_files = _prepare_competition(competition, cache, progress=progress, say=say)
                    snapshot.store_snapshot(competition, prepared, cache, data_files=data_files, caught=caught)
                    _raise_again(caught)
                    return prepared
        say("Reading the prepared competition")
        snapshot.replay_warnings(found.warnings)
        return found.prepared
    finally:
        if cache is not False:
            cache.close()


def _raise_again(caught) -> None:
    for message in caught:
        warnings.warn_explicit(message.message, message.category, message.filename, message.lineno)


def prepared_from_snapshot(competition: "Competition", *, wait: float = 0.0):
    """The competition, prepared, if its snapshot is in the cache (:mod:`srdash.judging.snapshot`); else None.

    Cheap (no model is touched): apps call it first, to show a prepared
    competition at once. With ``wait`` > 0, when another process is
    preparing the competition right now (``srdash serve`` does, for its
    visitors), wait for it up to ``wait`` seconds first.

    Returns
    -------
    Snapshot or None
    """
    from srdash.judging import snapshot

    cache = competition.simplification.open_cache()
    if cache is False:
        return None
    try:
        deadline = time.monotonic() + wait
        found = snapshot.load_snapshot(competition, cache)
        while found is None and time.monotonic() < deadline and snapshot.being_prepared(competition, cache):
            time.sleep(0.1)
            found = snapshot.load_snapshot(competition, cache)
        return found
    finally:
        cache.close()


def _prepare_competition(competition: "Competition", cache, *, progress, say) -> tuple[PreparedCompetition, list]:
    """The work behind :func:`prepare_competition`; also returns the data files it read."""
    data_files: list = []
    results, qualification, filtered = qualified_competition_results(competition, stage=say, cache=cache)
    options = {**competition.simplification.options(), "cache": cache}
    track_problems = properties = None
    rules = _measured_rules(competition)
    simplifies = any(c.measure == "simplified-components" for c in rules.criteria)
    say(f"{'Simplifying' if simplifies else 'Measuring'} models ({len(results.table)})")
    if competition.descriptions is not None:
        from srdash.io.datasets import load_dataset_table

        table = load_dataset_table(competition.descriptions)
        data_files = [path for spec in table for path in spec.files.values() if path]
        track = prepare_track(results, table, rules=rules, progress=progress, stage=say, **options)
        runs, track_problems, properties = track.runs, track.problems, track.scores
    else:
        on_data = _on_data_criteria(rules)
        if on_data:
            from srdash.errors import CompetitionError

            named = ", ".join(f"'{c.name}' (column '{c.column}')" for c in on_data)
            raise CompetitionError(
                f"The rules '{rules.name}' measure {named} as 'r2-on-data': R² of each model on its dataset's "
                f"file. The competition {competition.source} names no data files: add `descriptions = "
                "\"datasets.yaml\"` naming each dataset's files (docs/competition.md), or give the column in the "
                "results and declare `measure = \"column\"`.")
        runs = prepare_runs(results, rules=rules, progress=progress, **options)
    trust_entries = None
    if competition.realworld is not None:
        trust_entries = _trust_entries(competition.realworld.store)
    stats = cache.stats.as_dict() if cache is not False else {}
    prepared = PreparedCompetition(competition=competition, input=runs, results=results,
                                   track_problems=track_problems, properties=properties,
                                   qualification=qualification, filtered=filtered,
                                   trust_entries=trust_entries, cache_stats=MappingProxyType(stats),
                                   input_hashes=MappingProxyType(_file_input_hashes(competition, data_files)))
    return prepared, data_files


def _measured_rules(competition: "Competition") -> Rules:
    """The main rules, with the real-world track's criteria measured from the models that they lack: both
    tracks are judged from the same prepared runs (srbench2025's main track counts rounded nodes, the
    2022 real-world track ranks simplified components)."""
    rules = competition.rules
    if competition.realworld is None or not rules.rule_kind.judges_runs:
        return rules
    from srdash.judging.measures import measure as measure_of

    columns = {c.column for c in rules.criteria}
    extra = tuple(c for c in competition.realworld.rules.criteria
                  if c.column not in columns and measure_of(c.measure).from_model)
    return replace(rules, criteria=rules.criteria + extra) if extra else rules


def _trust_entries(store_path) -> pd.DataFrame:
    """The trust store's entries, read without creating a store (an absent store has no entries)."""
    import contextlib
    from pathlib import Path

    from srdash.judging.trust import TrustStore

    if not Path(store_path).is_file():
        return pd.DataFrame(columns=["judge", "dataset", "method", "kind", "value"])
    with contextlib.closing(TrustStore(store_path, read_only=True)) as store:   # judging never writes it
        return store.entries()


class RealWorldTrackRefused(SrdashError):
    """The real-world track cannot be judged (no trust entry of a (dataset, method) under review)."""


def judge_prepared(prepared: PreparedCompetition, *, rules: Rules | None = None,
                   refused_realworld: str = "raise") -> CompetitionResult:
    """Judge a prepared competition (cheap; the dashboard calls it for every change of option).

    Parameters
    ----------
    prepared : PreparedCompetition
    rules : Rules, optional
        Other rules than the competition's (e.g. the dashboard's controls).

    refused_realworld : {'raise', 'warn'}
        What a real-world track that cannot be judged does (no trust entry under review): stop the
        verdict (commands, the report), or leave the track out with the reason as a warning of the main
        track (the dashboard, where an organiser opens the competition before the review starts).

    Returns
    -------
    CompetitionResult
    """
    competition = prepared.competition
    rules = rules or competition.rules
    hashes = _prepared_input_hashes(prepared)
    if rules.rule_kind.judges_submissions:
        verdict = rules.rule_kind.judge(prepared.input, rules)
        verdict = verdict.with_provenance(**hashes)
        result = CompetitionResult(competition=competition, prepared=prepared, verdict=verdict)
        return _fingerprinted(result)
    verdict = with_track_problems(rules.rule_kind.judge(prepared.input, rules), prepared.track_problems)
    verdict = with_similar_names_flagged(verdict, None if prepared.results is None else prepared.results.table)
    if prepared.qualification is not None:
        verdict = with_qualification(verdict, prepared.qualification, prepared.filtered)
    verdict = verdict.with_provenance(**hashes, **_cache_provenance(prepared.cache_stats),
                                      **_file_cache_provenance(competition))
    realworld = None
    if competition.realworld is not None:
        try:
            realworld = realworld_track(prepared).with_provenance(**hashes)
        except RealWorldTrackRefused as exc:
            if refused_realworld != "warn":
                raise
            verdict = replace(verdict, warnings=tuple(verdict.warnings) + (f"Not shown: {exc}",))
    return _fingerprinted(CompetitionResult(competition=competition, prepared=prepared, verdict=verdict,
                                            realworld=realworld))


def _file_cache_provenance(competition) -> dict[str, str]:
    """A ``cache_named_by_competition_file`` entry when the competition file named a cache: used or not."""
    named = competition.simplification.file_cache
    if named is None:
        return {}
    used = competition.simplification.cache == named
    return {"cache_named_by_competition_file": f"{competition.relative(named)} "
                                               f"({'used, as confirmed by the user' if used else 'not used'})"}


def _cache_provenance(stats: Mapping) -> dict[str, str]:
    """``cache_*`` provenance entries: how many expensive results came from the cache (not part of any
    fingerprint: a warm and a cold run give the same verdict)."""
    if not stats:
        return {}
    if "snapshot" in stats:  # srdash.judging.snapshot.load_snapshot
        return {"cache_snapshot": f"the whole prepared competition, prepared {stats.get('snapshot_prepared_at', '')}, "
                                  "reused (its input files checked by SHA-256)"}
    entries = {f"cache_{name}": str(stats[name]) for name in ("hits", "misses", "timeouts_reused",
                                                              "timeouts_retried", "tampered") if name in stats}
    for kind, counts in stats.get("by_kind", {}).items():
        entries[f"cache_hits:{kind}"] = f"{counts.get('hits', 0)} of {counts.get('hits', 0) + counts.get('misses', 0)}"
    return entries


def realworld_track(prepared: PreparedCompetition) -> Verdict | None:
    """The real-world track's verdict: the methods and datasets under review, their trust entries.

    None when the competition has no real-world track. Entries of methods or
    datasets not under review (e.g. a method that did not qualify) are left out.
    """
    from srdash.judging.trust import realworld_verdict

    inputs = realworld_inputs(prepared)
    if inputs is None:
        return None
    verdict = realworld_verdict(inputs.runs, inputs.entries, inputs.rules, methods=list(inputs.methods))
    return replace(verdict, warnings=tuple(inputs.notes) + verdict.warnings)


@dataclass(frozen=True, eq=False)
class RealWorldInputs:
    """What the real-world track judges (:func:`realworld_inputs`): the arguments of
    :func:`srdash.judging.trust.realworld_verdict` and the notes on entries left out."""

    runs: pd.DataFrame
    entries: pd.DataFrame
    rules: object
    methods: tuple[str, ...]
    notes: tuple[str, ...]


def realworld_inputs(prepared: PreparedCompetition) -> RealWorldInputs | None:
    """The runs, trust entries, rules and methods the real-world track judges (None: no such track).

    :func:`realworld_track` judges them; the jury model
    (:func:`srdash.analysis.jury_model.realworld_jury_model`) reads the same ones.

    Raises
    ------
    RealWorldTrackRefused
        No trust entry names a (dataset, method) under review.
    """
    track = prepared.competition.realworld
    if track is None or prepared.runs is None:
        return None
    _check_datasets_under_review(prepared.competition, prepared.runs["dataset"])
    datasets = set(prepared.datasets_under_review)
    methods = prepared.methods_under_review
    runs = prepared.runs[prepared.runs["dataset"].astype(str).isin(datasets)]
    entries, notes = _entries_under_review(prepared, datasets, methods)
    return RealWorldInputs(runs=runs, entries=entries, rules=track.rules, methods=tuple(methods), notes=tuple(notes))


def _check_datasets_under_review(competition: "Competition", datasets: pd.Series) -> None:
    """Refuse a ``[realworld] datasets`` entry that names no dataset of the results.

    Leaving it out would judge the track on fewer datasets than its author listed, with no word said
    (a typo, or a dataset whose results are missing), so the verdict would not be the one declared.
    """
    present = sorted(set(datasets.astype(str)))
    unknown = [name for name in competition.realworld.datasets if name not in present]
    if unknown:
        listed = ", ".join(repr(name) for name in unknown)
        raise RealWorldTrackRefused(
            f"{competition.source}: [realworld] datasets: {'entry' if len(unknown) == 1 else 'entries'} {listed} "
            f"{'names' if len(unknown) == 1 else 'name'} no dataset of the competition's results (datasets: "
            f"{', '.join(present) or 'none'}). The real-world track would be judged without "
            f"{'it' if len(unknown) == 1 else 'them'}: correct the name, or remove the entry.")


def _entries_under_review(prepared: PreparedCompetition, datasets: set, methods: Sequence[str]
                          ) -> tuple[pd.DataFrame, list[str]]:
    """The trust entries of the (dataset, method) pairs under review, and a sentence on those left out.

    Raises
    ------
    SrdashError
        When no entry matches (an empty or absent store, or entries of other datasets or methods): a
        real-world track without a single trust entry would be published as an expert verdict that no
        expert gave.
    """
    competition = prepared.competition
    store = competition.realworld.store
    entries = prepared.trust_entries
    if entries is None or entries.empty:
        state = ("does not exist" if not Path(store).exists() else
                 "is not a regular file (a folder, device or FIFO)" if not Path(store).is_file() else
                 "holds no trust entries")
        raise RealWorldTrackRefused(
            f"The real-world track cannot be judged: its trust store {store} {state}. Collect the experts' "
            f"entries with `srdash review {competition.source if competition.source != '<options>' else 'RESULTS'} "
            "--judge NAME` (or import them with `srdash trust import`), or remove the [realworld] table.")
    in_datasets = entries["dataset"].astype(str).isin(datasets)
    in_methods = entries["method"].astype(str).isin(methods)
    kept = entries[in_datasets & in_methods]
    left_out = entries[~(in_datasets & in_methods)]
    if kept.empty:
        raise RealWorldTrackRefused(
            f"The real-world track cannot be judged: none of the {len(entries)} trust entries in {store} names a "
            f"(dataset, method) under review. Datasets under review: {', '.join(sorted(datasets))}; methods: "
            f"{', '.join(methods)}. The entries name datasets "
            f"{', '.join(sorted(set(entries['dataset'].astype(str))))} and methods "
            f"{', '.join(sorted(set(entries['method'].astype(str))))}: check the names, or [realworld] datasets.")
    notes = []
    if not left_out.empty:
        excluded = set()
        if prepared.filtered is not None:
            excluded = set(map(str, getattr(prepared.filtered, "excluded", ()) or ()))
        reasons = []
        other_datasets = sorted(set(left_out.loc[~in_datasets[~(in_datasets & in_methods)].values, "dataset"]
                                    .astype(str)))
        if other_datasets:
            reasons.append(f"datasets not under review: {', '.join(other_datasets)}")
        other_methods = sorted(set(left_out.loc[~in_methods[~(in_datasets & in_methods)].values, "method"]
                                   .astype(str)))
        if other_methods:
            named = [f"{m} (did not qualify)" if m in excluded else m for m in other_methods]
            reasons.append(f"methods not under review: {', '.join(named)}")
        notes.append(f"{len(left_out)} of {len(entries)} trust entries name no (dataset, method) under review and "
                     f"are left out ({'; '.join(reasons)}).")
    return kept, notes


def judge_competition(
    competition: "Competition",
    *,
    progress: Callable[[int, int, dict], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> CompetitionResult:
    """The one judging pipeline: prepare a competition, then judge every track.

    Every command, app and the report call this (or its two halves,
    :func:`prepare_competition` and :func:`judge_prepared`) and render the
    result; none re-implements a step.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from srdash.judging.competition import competition_from_options
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"],
    ...               "r2_test": [0.9, 0.8, 0.7, 0.75], "components": [5, 9, 5, 30], "property": 1.0}
    ...              ).to_csv(folder / "results.csv", index=False)
    >>> result = judge_competition(competition_from_options(folder / "results.csv", jobs=1, cache=False))
    >>> result.verdict.winner, len(result.fingerprint)
    ('a', 64)
    """
    return judge_prepared(prepare_competition(competition, progress=progress, stage=stage))


def _fingerprinted(result: CompetitionResult) -> CompetitionResult:
    fingerprint = verdict_fingerprint(result)
    competition = result.competition
    stamp = {"verdict_fingerprint": fingerprint, "settings_sha256": competition.fingerprint()}
    if competition.source != "<options>":
        stamp["competition_file"] = Path(competition.source).name
    realworld = None if result.realworld is None else result.realworld.with_provenance(
        **_published_rules_source(result.realworld, competition), **stamp)
    return replace(result, verdict=result.verdict.with_provenance(
        **_published_rules_source(result.verdict, competition), **stamp), realworld=realworld,
                   fingerprint=fingerprint)


def _published_rules_source(verdict, competition) -> dict[str, str]:
    """A rules file is published under its path relative to the competition's folder, never absolute."""
    source = str(verdict.provenance.get("rules_source", ""))
    if source and not source.startswith("preset:") and Path(source).is_absolute():
        return {"rules_source": competition.relative(source)}
    return {}


def _leaderboard_rows(verdict) -> list[tuple]:
    board = verdict.leaderboard
    name = "method" if "method" in board.columns else "team"
    score = "score" if "score" in board.columns else "stage2"
    return [(str(m), int(p), f"{float(s):.9f}")
            for m, p, s in zip(board[name], board["place"], board[score])]


#: The versions that can change a verdict's numbers (component counts differ between sympy versions).
FINGERPRINTED_VERSIONS = ("srdash", "sympy")


def verdict_fingerprint(result: CompetitionResult) -> str:
    """The verdict's identity: SHA-256 of what the verdict depends on, and nothing else.

    It hashes every track's final leaderboard (method, place, score to 9 decimals), the rules and
    settings as applied (:meth:`~srdash.judging.competition.Competition.fingerprint`), the content of
    every input by its role and its path relative to the competition's folder
    (:func:`competition_input_hashes`) and the srdash and sympy versions. It does not depend on where
    the files lie, on the cache, on the number of workers or on the time: the same files in any folder,
    on any machine, give the same fingerprint, and a change of any input byte, rule or version gives
    another. Every door (CLI, provenance, apps, report) shows this one value; the first 12 characters
    are what outputs show.
    """
    import hashlib
    import json

    tracks = {name: _leaderboard_rows(verdict) for name, verdict in result.tracks.items()}
    inputs = {k: v for k, v in result.verdict.provenance.items() if k.startswith("input")}
    running = provenance.versions()
    payload = {"tracks": tracks, "competition": result.competition.fingerprint(),
               "inputs": sorted(inputs.items()),
               "versions": {name: running[name] for name in FINGERPRINTED_VERSIONS}}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
