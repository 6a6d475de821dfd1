"""From loaded results to a verdict: the expensive step (model complexity) once,
then judging, which is cheap and can be repeated with other options.

Examples
--------
>>> import pandas as pd
>>> from srdash.io.loading import load_results
>>> from srdash.judging.rules import load_rules
>>> results = load_results(pd.DataFrame({
...     "method": ["a", "b"], "dataset": "d", "r2_test": [0.91, 0.95], "components": [3, 25]}))
>>> runs = prepare_runs(results)
>>> runs[["method", "components", "simplicity", "status"]]
  method  components  simplicity status
0      a         3.0        -0.7  given
1      b        25.0        -2.0  given
>>> judge(runs, load_rules("srbench2022")).leaderboard[["method", "score"]].round(4)
  method   score
0      a  1.3333
1      b  1.3333
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.errors import SrdashError
from srdash.judging import provenance
from srdash.io.loading import Results, load_results
from srdash.judging.ranking import Verdict, judge
from srdash.judging.rules import Rules, load_rules

if TYPE_CHECKING:  # the core modules import sympy-free, but not for nothing at start-up
    from srdash.judging.competition import Competition
    from srdash.judging.properties import PropertyScores
    from srdash.judging.qualification import FilteredRuns, Qualification

__all__ = ["judge_competition", "prepare_competition", "prepared_from_snapshot", "results_under_review", "qualified_competition_results", "judge_prepared", "PreparedCompetition",
           "CompetitionResult", "verdict_fingerprint", "realworld_track", "prepare_runs", "prepare_track", "PreparedTrack", "score", "input_hashes", "RUN_STATUSES",
           "qualified_results", "with_qualification", "with_track_problems"]

#: Per-run model statuses: ``given`` means the input supplied ``components``.
RUN_STATUSES = ("ok", "given", "timeout", "simplify_error", "rejected", "parse_error")


def prepare_runs(
    results: Results,
    *,
    timeout: float = 10.0,
    jobs: int = 1,
    cache=None,
    scheduler=None,
    progress: Callable[[int, int, dict], None] | None = None,
) -> pd.DataFrame:
    """Add the model-derived columns to the per-run table.

    Where the input gives ``components``, simplicity is computed from it and the
    run's ``status`` is ``given``. Otherwise the model string is parsed safely and
    simplified under a hard time limit (see :func:`srdash.expressions.complexity_table`);
    a model that cannot be parsed keeps its row, with ``status`` saying why and a
    missing simplicity, which ranks as the worst value.

    Parameters
    ----------
    results : Results
        Validated results (see :func:`srdash.io.loading.load_results`).
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


def prepare_track(
    results: Results,
    descriptions,
    *,
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
    runs = prepare_runs(results, timeout=timeout, jobs=jobs, cache=cache, scheduler=scheduler, progress=progress)
    say("Evaluating the models on the datasets")
    evaluation = evaluate_runs(runs, descriptions, cache=cache)
    merged = merge_metrics(runs, evaluation)
    say("Checking exact re-discovery")
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
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8]})
    >>> verdict = judge(runs, load_rules("srbench2022"))
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
    >>> verdict = with_qualification(judge(filtered.runs, load_rules("srbench2022")), q, filtered)
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

    See :func:`srdash.judging.provenance.hash_inputs`.

    Examples
    --------
    >>> input_hashes([])
    {}
    """
    return provenance.hash_inputs(sources)


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
    runs = prepare_runs(results, timeout=timeout, jobs=jobs, cache=cache, progress=progress)
    verdict = judge(runs, load_rules(rules))
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
        ``timeouts_reused``, ...; see :class:`srdash.expressions.cache.CacheStats`).
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
    table = results.table[results.table["dataset"].astype(str).isin(chosen)].reset_index(drop=True)
    return replace(results, table=table)


def prepare_competition(
    competition: "Competition",
    *,
    progress: Callable[[int, int, dict], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> PreparedCompetition:
    """Do the expensive work of a competition once: load, qualify, simplify, evaluate, score properties.

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
        return PreparedCompetition(competition=competition, input=load_submissions(competition.results[0], rules))
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
    say(f"Simplifying models ({len(results.table)})")
    if competition.descriptions is not None:
        from srdash.io.datasets import load_dataset_table

        table = load_dataset_table(competition.descriptions)
        data_files = [path for spec in table for path in spec.files.values() if path]
        track = prepare_track(results, table, progress=progress, stage=say, **options)
        runs, track_problems, properties = track.runs, track.problems, track.scores
    else:
        runs = prepare_runs(results, progress=progress, **options)
    trust_entries = None
    if competition.realworld is not None:
        trust_entries = _trust_entries(competition.realworld.store)
    stats = cache.stats.as_dict() if cache is not False else {}
    prepared = PreparedCompetition(competition=competition, input=runs, results=results,
                                   track_problems=track_problems, properties=properties,
                                   qualification=qualification, filtered=filtered,
                                   trust_entries=trust_entries, cache_stats=MappingProxyType(stats))
    return prepared, data_files


def _trust_entries(store_path) -> pd.DataFrame:
    """The trust store's entries, read without creating a store (an absent store has no entries)."""
    import contextlib
    from pathlib import Path

    from srdash.judging.trust import TrustStore

    if not Path(store_path).is_file():
        return pd.DataFrame(columns=["judge", "dataset", "method", "kind", "value"])
    with contextlib.closing(TrustStore(store_path, read_only=True)) as store:   # judging never writes it
        return store.entries()


def judge_prepared(prepared: PreparedCompetition, *, rules: Rules | None = None) -> CompetitionResult:
    """Judge a prepared competition (cheap; the dashboard calls it for every change of option).

    Parameters
    ----------
    prepared : PreparedCompetition
    rules : Rules, optional
        Other rules than the competition's (e.g. the dashboard's controls).

    Returns
    -------
    CompetitionResult
    """
    competition = prepared.competition
    rules = rules or competition.rules
    sources = competition.sources
    if rules.rule_kind.judges_submissions:
        verdict = rules.rule_kind.judge(prepared.input, rules)
        verdict = verdict.with_provenance(**input_hashes(sources))
        result = CompetitionResult(competition=competition, prepared=prepared, verdict=verdict)
        return _fingerprinted(result)
    verdict = with_track_problems(rules.rule_kind.judge(prepared.input, rules), prepared.track_problems)
    if prepared.qualification is not None:
        verdict = with_qualification(verdict, prepared.qualification, prepared.filtered)
    verdict = verdict.with_provenance(**input_hashes(sources), **_cache_provenance(prepared.cache_stats),
                                      **_file_cache_provenance(competition))
    realworld = None
    if competition.realworld is not None:
        realworld = realworld_track(prepared)
    return _fingerprinted(CompetitionResult(competition=competition, prepared=prepared, verdict=verdict,
                                            realworld=realworld))


def _file_cache_provenance(competition) -> dict[str, str]:
    """A ``cache_named_by_competition_file`` entry when the competition file named a cache: used or not."""
    named = competition.simplification.file_cache
    if named is None:
        return {}
    used = competition.simplification.cache == named
    return {"cache_named_by_competition_file": f"{named} ({'used, as confirmed by the user' if used else 'not used'})"}


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

    track = prepared.competition.realworld
    if track is None or prepared.runs is None:
        return None
    datasets = set(prepared.datasets_under_review)
    methods = prepared.methods_under_review
    runs = prepared.runs[prepared.runs["dataset"].astype(str).isin(datasets)]
    entries = prepared.trust_entries
    if entries is not None and not entries.empty:
        entries = entries[entries["method"].astype(str).isin(methods) & entries["dataset"].astype(str).isin(datasets)]
    verdict = realworld_verdict(runs, entries, track.rules, methods=list(methods))
    return verdict.with_provenance(**input_hashes([str(track.store)]))


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
    ...               "r2_test": [0.9, 0.8, 0.7, 0.75], "components": [5, 9, 5, 30]}
    ...              ).to_csv(folder / "results.csv", index=False)
    >>> result = judge_competition(competition_from_options(folder / "results.csv", jobs=1, cache=False))
    >>> result.verdict.winner, len(result.fingerprint)
    ('a', 64)
    """
    return judge_prepared(prepare_competition(competition, progress=progress, stage=stage))


def _fingerprinted(result: CompetitionResult) -> CompetitionResult:
    fingerprint = verdict_fingerprint(result)
    stamp = {"verdict_fingerprint": fingerprint, "competition_fingerprint": result.competition.fingerprint(),
             "competition": result.competition.source}
    realworld = None if result.realworld is None else result.realworld.with_provenance(**stamp)
    return replace(result, verdict=result.verdict.with_provenance(**stamp), realworld=realworld,
                   fingerprint=fingerprint)


def _leaderboard_rows(verdict) -> list[tuple]:
    board = verdict.leaderboard
    name = "method" if "method" in board.columns else "team"
    score = "score" if "score" in board.columns else "stage2"
    return [(str(m), int(p), f"{float(s):.9f}")
            for m, p, s in zip(board[name], board["place"], board[score])]


def verdict_fingerprint(result: CompetitionResult) -> str:
    """SHA-256 of every track's final leaderboard (method, place, score to 9 decimals), the competition's
    fingerprint and the hashes of its inputs.

    Two outputs with the same fingerprint show the same verdict, whichever door
    (CLI, app, report) made them. The first 12 characters are what outputs show.
    """
    import hashlib
    import json

    tracks = {name: _leaderboard_rows(verdict) for name, verdict in result.tracks.items()}
    inputs = {k: v for k, v in result.verdict.provenance.items() if k.startswith("input")}
    payload = {"tracks": tracks, "competition": result.competition.fingerprint(),
               "inputs": sorted((k.split(":", 1)[1] if ":" in k else k, v) for k, v in inputs.items())}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
