"""The expensive step, once: a competition's inputs read, qualified and measured as the rules declare.

:func:`prepare_competition` loads the results, runs the qualification, measures each criterion
(complexity, tree nodes, R2 on data, ...) once and cached, scores the properties and reads the
trust entries, into a :class:`~srdash.judging.prepared.PreparedCompetition` (kept whole in the cache:
:mod:`srdash.judging.snapshot`). :func:`prepare_runs` and :func:`prepare_track` are its steps.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
import pandas as pd

from srdash.errors import CompetitionError, Problem, SrdashError, ValidationError
from srdash.io.loading import Results, load_results
from srdash.judging import snapshot
from srdash.judging.checks import check_criterion_columns
from srdash.judging.evaluation import evaluate_runs, merge_metrics
from srdash.judging.fingerprint import file_input_hashes
from srdash.judging.inputs import CompetitionInputs, inputs_for
from srdash.judging.measures import DATA_PARTITION_PREFIX, measure as measure_of
from srdash.judging.multiobjective import load_submissions
from srdash.judging.prepared import PreparedCompetition, PreparedTrack, RealWorldTrackRefused
from srdash.judging.properties import property_scores, with_property
from srdash.judging.qualification import (canonical_results, filter_qualified, read_qualification_results,
                                          run_qualification)
from srdash.judging.rules import Rules
from srdash.judging.snapshot import read_trust_entries

if TYPE_CHECKING:  # the core modules import sympy-free, but not for nothing at start-up
    from srdash.judging.competition import Competition
    from srdash.judging.properties import PropertyScores
    from srdash.judging.qualification import FilteredRuns, Qualification

__all__ = ["prepare_competition", "prepared_from_snapshot", "results_under_review", "qualified_competition_results",
           "prepare_runs", "prepare_track", "qualified_results", "check_competition", "load_competition_results",
           "property_stage"]


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
    from srdash.expressions.measures import measure_table  # lazy: sympy

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


def _on_data_criteria(rules: Rules | None) -> list:
    if rules is None or not rules.rule_kind.judges_runs:
        return []
    return [c for c in rules.criteria if measure_of(c.measure).needs_data]


def _partition_of(criterion) -> str:
    column = criterion.column
    return column[len(DATA_PARTITION_PREFIX):] if column.startswith(DATA_PARTITION_PREFIX) else column


def _with_on_data(runs: pd.DataFrame, descriptions, criteria, *, cache) -> pd.DataFrame:
    """The runs with each ``r2-on-data`` criterion's column computed from the data (a failure is the run's
    status, unless an earlier step already refused the model)."""
    from srdash.judging.submitted import r2_on_data  # lazy: sympy

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
    stage = stage or (lambda text: None)
    runs = prepare_runs(results, rules=rules, timeout=timeout, jobs=jobs, cache=cache, scheduler=scheduler,
                        progress=progress)
    on_data = _on_data_criteria(rules)
    stage("Evaluating the models on the datasets")
    # a partition whose R2 a criterion measures 'r2-on-data' is scored by that measure only
    claimed = {_partition_of(c) for c in on_data}
    partitions = None if not claimed else sorted({p for spec in descriptions for p in spec.files
                                                  if p != "train" and p not in claimed})
    evaluation = evaluate_runs(runs, descriptions, partitions=partitions, cache=cache)
    merged = merge_metrics(runs, evaluation)
    if on_data:
        merged = replace(merged, runs=_with_on_data(merged.runs, descriptions, on_data, cache=cache))
    stage(property_stage(descriptions))
    scores = property_scores(merged.runs, descriptions, evaluation=evaluation, timeout=timeout, jobs=jobs,
                             cache=cache, scheduler=scheduler, progress=progress)
    judged = with_property(merged.runs, scores)
    problems = pd.concat([evaluation.problems, merged.problems, scores.problems, judged.problems],
                         ignore_index=True)
    return PreparedTrack(runs=judged.runs, problems=problems, scores=scores)


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
    filtered = filter_qualified(results.table, qualification, exclude=not keep_unqualified)
    return replace(results, table=filtered.runs), filtered


def load_competition_results(competition: "Competition", *, inputs: CompetitionInputs | None = None) -> Results:
    """The competition's results (several files or folders are read one by one and stacked).

    ``inputs``: the competition's descriptions as already read this run (:mod:`srdash.judging.inputs`);
    None: read here when the features come from them."""
    features = competition.datasets
    if features is None and competition.descriptions is not None:
        features = inputs_for(competition, inputs).descriptions.frame()
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
        for path in competition.results:
            load_submissions(path, competition.rules)
        return None
    results = load_competition_results(competition)
    check_criterion_columns(results.table, competition.rules, sources=[str(p) for p in competition.results],
                            has_descriptions=competition.descriptions is not None)
    if competition.qualification is not None:
        path = competition.qualification.results
        canonical_results(read_qualification_results(path), source=str(path),
                          need_r2=competition.qualification.data is None)
    return results


def qualified_competition_results(competition: "Competition", *, stage: Callable[[str], None] | None = None,
                                  cache=None, inputs: CompetitionInputs | None = None):
    """The competition's results after its qualification stage (cheap: nothing is simplified).

    ``inputs``: as for :func:`load_competition_results`.

    Returns
    -------
    results : Results
        Without the methods that did not qualify (unless the competition keeps them, flagged).
    qualification : Qualification or None
    filtered : FilteredRuns or None
    """
    if cache is None:
        cache = competition.simplification.cache
    stage = stage or (lambda text: None)
    stage("Loading the results")
    results = load_competition_results(competition, inputs=inputs)
    # before the qualification and the models' measures: a missing column is refused at once
    check_criterion_columns(results.table, competition.rules, sources=[str(p) for p in competition.results],
                            has_descriptions=competition.descriptions is not None)
    if competition.qualification is None:
        return results, None, None
    stage("Qualification stage")
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
    check_datasets_under_review(competition, results.table["dataset"])
    table = results.table[results.table["dataset"].astype(str).isin(chosen)].reset_index(drop=True)
    return replace(results, table=table)


def prepare_competition(
    competition: "Competition",
    *,
    progress: Callable[[int, int, dict], None] | None = None,
    stage: Callable[[str], None] | None = None,
    inputs: CompetitionInputs | None = None,
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
    inputs : CompetitionInputs, optional
        The competition's descriptions as its caller read them this run (:func:`srdash.judging.inputs.read_inputs`,
        as the commands do); None: read here when needed (once, and never from a run before).

    Returns
    -------
    PreparedCompetition
    """
    stage = stage or (lambda text: None)
    rules = competition.rules
    if rules.rule_kind.judges_submissions:
        if len(competition.results) != 1:
            raise SrdashError(f"The rules '{rules.name}' judge one submissions file; the competition names "
                              f"{len(competition.results)} results.")
        stage("Loading the submissions")
        data_files = None if inputs is None else inputs_for(competition, inputs).data_files
        return PreparedCompetition(competition=competition, input=load_submissions(competition.results[0], rules),
                                   input_hashes=MappingProxyType(file_input_hashes(competition, data_files)))
    cache = competition.simplification.open_cache()  # one object for every step: it counts what it answered
    try:
        found = snapshot.load_snapshot(competition, cache)
        if found is None:
            waiting = (lambda: stage("Waiting for another srdash process that is preparing this competition"))
            with snapshot.preparing(competition, cache, waiting=waiting):
                found = snapshot.load_snapshot(competition, cache)  # it may have just been prepared
                if found is None:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        prepared, data_files = _prepare_competition(competition, cache, progress=progress, stage=stage,
                                                                    inputs=inputs)
                    snapshot.store_snapshot(competition, prepared, cache, data_files=data_files, caught=caught)
                    _raise_again(caught)
                    return prepared
        stage("Reading the prepared competition")
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


def _prepare_competition(competition: "Competition", cache, *, progress, stage, inputs
                         ) -> tuple[PreparedCompetition, list]:
    """The work behind :func:`prepare_competition`; also returns the data files it read."""
    inputs = inputs_for(competition, inputs)  # first: a bad descriptions file is refused before any work
    data_files = list(inputs.data_files)
    results, qualification, filtered = qualified_competition_results(competition, stage=stage, cache=cache,
                                                                     inputs=inputs)
    options = {**competition.simplification.options(), "cache": cache}
    track_problems = properties = None
    rules = _measured_rules(competition)
    simplifies = any(c.measure == "simplified-components" for c in rules.criteria)
    stage(f"{'Simplifying' if simplifies else 'Measuring'} models ({len(results.table)})")
    if inputs.descriptions is not None:
        track = prepare_track(results, inputs.descriptions, rules=rules, progress=progress, stage=stage, **options)
        runs, track_problems, properties = track.runs, track.problems, track.scores
    else:
        on_data = _on_data_criteria(rules)
        if on_data:
            named = ", ".join(f"'{c.name}' (column '{c.column}')" for c in on_data)
            raise CompetitionError(
                f"The rules '{rules.name}' measure {named} as 'r2-on-data': R² of each model on its dataset's "
                f"file. The competition {competition.source} names no data files: add `descriptions = "
                "\"datasets.yaml\"` naming each dataset's files (docs/competition.md), or give the column in the "
                "results and declare `measure = \"column\"`.")
        runs = prepare_runs(results, rules=rules, progress=progress, **options)
    trust_entries = None
    if competition.realworld is not None:
        trust_entries = read_trust_entries(competition.realworld.store)
    stats = cache.stats.as_dict() if cache is not False else {}
    prepared = PreparedCompetition(competition=competition, input=runs, results=results,
                                   track_problems=track_problems, properties=properties,
                                   qualification=qualification, filtered=filtered,
                                   trust_entries=trust_entries, cache_stats=MappingProxyType(stats),
                                   input_hashes=MappingProxyType(file_input_hashes(competition, data_files)))
    return prepared, data_files


def _measured_rules(competition: "Competition") -> Rules:
    """The main rules, with the real-world track's criteria measured from the models that they lack: both
    tracks are judged from the same prepared runs (srbench2025's main track counts rounded nodes, the
    2022 real-world track ranks simplified components)."""
    rules = competition.rules
    if competition.realworld is None or not rules.rule_kind.judges_runs:
        return rules
    columns = {c.column for c in rules.criteria}
    extra = tuple(c for c in competition.realworld.rules.criteria
                  if c.column not in columns and measure_of(c.measure).from_model)
    return replace(rules, criteria=rules.criteria + extra) if extra else rules


def check_datasets_under_review(competition: "Competition", datasets: pd.Series) -> None:
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
