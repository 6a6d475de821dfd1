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

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
import pandas as pd

from srdash.judging import provenance
from srdash.io.loading import Results, load_results
from srdash.judging.ranking import Verdict, judge
from srdash.judging.rules import Rules, load_rules

if TYPE_CHECKING:  # the core modules import sympy-free, but not for nothing at start-up
    from srdash.judging.properties import PropertyScores
    from srdash.judging.qualification import FilteredRuns, Qualification

__all__ = ["prepare_runs", "prepare_track", "PreparedTrack", "score", "input_hashes", "RUN_STATUSES",
           "qualified_results", "with_qualification", "with_track_problems"]

#: Per-run model statuses: ``given`` means the input supplied ``components``.
RUN_STATUSES = ("ok", "given", "timeout", "simplify_error", "rejected", "parse_error")


def prepare_runs(
    results: Results,
    *,
    timeout: float = 10.0,
    jobs: int = 1,
    cache=None,
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
            models, features=features, timeout=timeout, jobs=jobs, cache=cache, progress=progress
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
    runs = prepare_runs(results, timeout=timeout, jobs=jobs, cache=cache, progress=progress)
    say("Evaluating the models on the datasets")
    evaluation = evaluate_runs(runs, descriptions, cache=cache)
    merged = merge_metrics(runs, evaluation)
    say("Checking exact re-discovery")
    scores = property_scores(merged.runs, descriptions, evaluation=evaluation, timeout=timeout, jobs=jobs,
                             cache=cache, progress=progress)
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
