"""The cheap step, repeatable: a prepared competition judged into a :class:`CompetitionResult`.

:func:`judge_prepared` applies the rules (as given, or others) through the rule kinds' registry,
the qualification and the real-world track; :func:`judge_competition` is
``judge_prepared(prepare_competition(c))`` with the verdict fingerprint.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import pandas as pd

from srdash.judging.checks import with_similar_names_flagged
from srdash.judging.fingerprint import fingerprinted, prepared_input_hashes
from srdash.judging.prepared import CompetitionResult, PreparedCompetition, RealWorldInputs, RealWorldTrackRefused
from srdash.judging.preparation import check_datasets_under_review, prepare_competition, prepare_runs
from srdash.judging.ranking import Verdict, judge
from srdash.judging.rules import Rules
from srdash.judging.trust import realworld_verdict

if TYPE_CHECKING:  # the core modules import sympy-free, but not for nothing at start-up
    from srdash.judging.competition import Competition
    from srdash.judging.inputs import CompetitionInputs
    from srdash.judging.properties import PropertyScores
    from srdash.judging.qualification import FilteredRuns, Qualification

__all__ = ["judge_competition", "judge_prepared", "realworld_track", "realworld_inputs", "with_qualification",
           "with_track_problems"]


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
    hashes = prepared_input_hashes(prepared)
    if rules.rule_kind.judges_submissions:
        verdict = rules.rule_kind.judge(prepared.input, rules)
        verdict = verdict.with_provenance(**hashes)
        result = CompetitionResult(competition=competition, prepared=prepared, verdict=verdict)
        return fingerprinted(result)
    verdict = with_track_problems(rules.rule_kind.judge(prepared.input, rules), prepared.track_problems)
    verdict = with_similar_names_flagged(verdict, None if prepared.results is None else prepared.results.table)
    if prepared.qualification is not None:
        verdict = with_qualification(verdict, prepared.qualification, prepared.filtered)
    verdict = verdict.with_provenance(**hashes, **_cache_provenance(prepared.cache_stats),
                                      **file_cache_provenance(competition))
    realworld = None
    if competition.realworld is not None:
        try:
            realworld = realworld_track(prepared).with_provenance(**hashes)
        except RealWorldTrackRefused as exc:
            if refused_realworld != "warn":
                raise
            verdict = replace(verdict, warnings=tuple(verdict.warnings) + (f"Not shown: {exc}",))
    return fingerprinted(CompetitionResult(competition=competition, prepared=prepared, verdict=verdict,
                                            realworld=realworld))


def file_cache_provenance(competition) -> dict[str, str]:
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
    inputs = realworld_inputs(prepared)
    if inputs is None:
        return None
    verdict = realworld_verdict(inputs.runs, inputs.entries, inputs.rules, methods=list(inputs.methods))
    return replace(verdict, warnings=tuple(inputs.notes) + verdict.warnings)


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
    check_datasets_under_review(prepared.competition, prepared.runs["dataset"])
    datasets = set(prepared.datasets_under_review)
    methods = prepared.methods_under_review
    runs = prepared.runs[prepared.runs["dataset"].astype(str).isin(datasets)]
    entries, notes = _entries_under_review(prepared, datasets, methods)
    return RealWorldInputs(runs=runs, entries=entries, rules=track.rules, methods=tuple(methods), notes=tuple(notes))


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
    inputs: CompetitionInputs | None = None,
) -> CompetitionResult:
    """The one judging pipeline: prepare a competition, then judge every track.

    Every command, app and the report call this (or its two halves,
    :func:`prepare_competition` and :func:`judge_prepared`) and render the
    result; none re-implements a step. ``inputs``: the competition's descriptions
    as the caller read them this run (:func:`srdash.judging.inputs.read_inputs`),
    passed on to :func:`prepare_competition` so that they are read once.

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
    return judge_prepared(prepare_competition(competition, progress=progress, stage=stage, inputs=inputs))
