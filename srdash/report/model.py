"""The report's content, computed once from a verdict: the immutable :class:`Report` and its builders.

:func:`build_report` (a verdict), :func:`build_competition_report` (a competition, judged by the one
pipeline) and :func:`build_prediction_report` (a prediction competition) compute everything a report shows
(weight sensitivity, the reproducibility block); the renderers (:mod:`srdash.report.html`,
:mod:`srdash.report.markdown`, :mod:`srdash.report.latex`) take the :class:`Report` and return text.
"""

from __future__ import annotations

import datetime as _datetime
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

import pandas as pd

from srdash.analysis.diff import diff_verdicts, side_of_result
from srdash.analysis.robustness import bootstrap
from srdash.analysis.certificate import winner_certificate
from srdash.analysis.kept import kept_text
from srdash.analysis.jury_model import realworld_jury_model
from srdash.analysis.sensitivity import (Rescorer, irrelevant_alternatives, place_probabilities, rescorer_of,
                                        ternary_winner_map)
from srdash.errors import SrdashError
from srdash.judging.provenance import block_sha256, provenance_block
from srdash.judging.pipeline import realworld_inputs
from srdash.judging.predictions import PredictionResult, metric_rules, to_runs_table
from srdash.judging.ranking import Verdict, judge
from srdash.judging.rules import Rules

if TYPE_CHECKING:  # only for annotations: these modules are imported when a report uses them
    from srdash.judging.properties import PropertyScores
    from srdash.analysis.sensitivity import PlaceProbabilities, TernaryMap

__all__ = ["FORMATS", "PREDICTIONS_REPORT", "Report", "build_report", "build_competition_report",
           "build_prediction_report", "reproducibility_block", "ground_truths"]

#: Output formats of :func:`write_report` (and ``srdash report --format``).
FORMATS = ("html", "md", "latex")

# Entries of the reproducibility block that its own hash (``block_sha256``) does not cover.
_UNFINGERPRINTED = ("generated_at", "block_sha256", "verdict_fingerprint")

#: ``Report.kind`` of a prediction-file competition's report (the other kind is "results").
PREDICTIONS_REPORT = "predictions"


@dataclass(frozen=True, eq=False)
class Report:
    """Everything a report shows, computed once by :func:`build_report`.

    Attributes
    ----------
    title : str
    verdict : Verdict
        The main (synthetic-track) verdict.
    runs : DataFrame or None
        The prepared per-run table (model sizes for the simplicity curve, model
        strings beside the problems).
    realworld : Verdict or None
        The real-world track's verdict (expert trust as a criterion).
    predictions : PredictionResult or None
        A prediction-file competition (preliminary and final leaderboards).
    properties : PropertyScores or None
        Property scores computed from the models and data; without them the
        report shows the ranks of the verdict's ``property`` criterion.
    place_probabilities : PlaceProbabilities or None
        Places over weight vectors drawn uniformly from the simplex.
    ternary : TernaryMap or None
        The winner over the simplex (rules with exactly three weights).
    alternatives : DataFrame or None
        Which pairs swap places when one method is removed.
    certificate : WinnerCertificate or None
        Why this winner: what would change the winner and each podium place
        (:func:`srdash.analysis.certificate.winner_certificate`; competition reports only). None also
        when the table the report shows of it was read from srdash's cache (``certificate_html``).
    certificate_html : str
        That table as the report and the dashboard show it (:func:`srdash.figures.certificate.certificate_html`),
        kept in srdash's cache (:func:`srdash.analysis.kept.kept_text`) under the runs, the rules, the
        verdict fingerprint and the seed; empty without a certificate.
    jury_model : JuryModel or None
        The real-world track's jury model, a second opinion beside its verdict
        (:func:`srdash.analysis.jury_model.realworld_jury_model`; competition reports only).
    changes : VerdictDiff or None
        What changed since a previous verdict, and why (:func:`srdash.analysis.diff.diff_verdicts`;
        competition reports given a previous version only).
    leaderboard : ShownLeaderboard or None
        The main track's leaderboard as every door shows it: place intervals, the tie with the winner,
        failures by type (:func:`srdash.analysis.board.shown_leaderboard`, with ``srdash score``'s defaults
        and the report's seed; competition reports only).
    reproducibility : Mapping of str to str
        See :func:`reproducibility_block`.
    rules_texts : Mapping of str to str
        The full text of every rules file used, by rules name.
    notes : tuple of str
        Views left out and why (shown in the report).
    kind : {'results', 'predictions'}
        ``results``: a competition of models judged by ``verdict`` (from
        :func:`build_report`); ``predictions``: a prediction-file competition
        (from :func:`build_prediction_report`), whose ``verdict`` is the final
        subset's verdict of the combined metrics (or of the one metric).
    """

    title: str
    verdict: Verdict
    runs: pd.DataFrame | None = None
    realworld: Verdict | None = None
    predictions: PredictionResult | None = None
    properties: PropertyScores | None = None
    place_probabilities: PlaceProbabilities | None = None
    ternary: TernaryMap | None = None
    alternatives: pd.DataFrame | None = None
    reproducibility: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    rules_texts: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    notes: tuple[str, ...] = ()
    kind: str = "results"
    qualification: object = None
    significance: object = None
    robustness: object = None
    verdict_fingerprint: str = ""
    certificate: object = None
    jury_model: object = None
    ground_truths: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    changes: object = None
    leaderboard: object = None
    certificate_html: str = ""

    @property
    def is_prediction_competition(self) -> bool:
        """True for the report of a prediction-file competition (:func:`build_prediction_report`)."""
        return self.kind == PREDICTIONS_REPORT

    @property
    def generated_at(self) -> str:
        """When the report was generated (ISO 8601, UTC)."""
        return self.reproducibility.get("generated_at", "")


def _utc_now() -> str:
    return _datetime.datetime.now(_datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def reproducibility_block(
    rules: Rules,
    *,
    sources: Iterable[str | Path] = (),
    other_rules: Sequence[Rules] = (),
    provenance: Mapping[str, str] | None = None,
    generated_at: str | None = None,
) -> dict[str, str]:
    """What a reader needs to reproduce a verdict, as a flat mapping of text.

    Parameters
    ----------
    rules : Rules
        The rules as applied.
    sources : iterable of path, keyword-only
        Every input file or folder (results, dataset table, trust store, ...);
        each file's SHA-256 is recorded (see :func:`srdash.judging.provenance.hash_inputs`).
    other_rules : sequence of Rules, keyword-only
        Further rules used in the report (e.g. the real-world track's); their
        name, source and SHA-256 are recorded under ``rules[<name>]...`` keys.
    provenance : mapping, optional, keyword-only
        The verdict's own provenance; its entries are kept unless the block
        computes the same key itself.
    generated_at : str, optional, keyword-only
        Generation time (default: now, ISO 8601 in UTC).

    Returns
    -------
    dict of str to str
        ``generated_at``; ``srdash_version``, ``sympy_version``,
        ``numpy_version``, ``pandas_version``, ``python_version``; ``rules``,
        ``rules_source``, ``rules_sha256`` (and ``competition_sympy_version``
        when the rules state it); ``input_sha256:<path>`` per input file; then
        ``block_sha256``: the SHA-256 of every other entry but the time, which
        changes when any input byte, rules value or version changes. (A judged
        competition's report shows its verdict fingerprint instead:
        :func:`build_competition_report`.)

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> rules = load_rules("srbench2022")
    >>> a = reproducibility_block(rules, generated_at="2024-01-01T00:00:00Z")
    >>> b = reproducibility_block(rules.with_options(weights={"accuracy": 2}), generated_at="2024-01-01T00:00:00Z")
    >>> a["rules_sha256"] != b["rules_sha256"], a["block_sha256"] != b["block_sha256"]
    (True, True)
    >>> c = reproducibility_block(rules, generated_at="2030-01-01T00:00:00Z")
    >>> a["block_sha256"] == c["block_sha256"]
    True
    """
    block = {"generated_at": generated_at or _utc_now()}
    computed = provenance_block(rules, list(sources))
    for extra in other_rules:
        computed[f"rules[{extra.name}]"] = extra.name
        computed[f"rules[{extra.name}]_source"] = extra.source
        computed[f"rules[{extra.name}]_sha256"] = extra.sha256
    inherited = {key: str(value) for key, value in (provenance or {}).items()
                 if key not in computed and key not in _UNFINGERPRINTED and not key.startswith("cache_")}
    block.update(computed)
    block.update(inherited)
    block["block_sha256"] = block_sha256({k: v for k, v in block.items() if k not in _UNFINGERPRINTED})
    return block


def build_report(
    verdict: Verdict,
    *,
    runs: pd.DataFrame | None = None,
    sources: Iterable[str | Path] = (),
    realworld: Verdict | None = None,
    predictions: PredictionResult | None = None,
    properties: PropertyScores | None = None,
    title: str | None = None,
    samples: int = 2000,
    seed: int = 0,
    ternary_resolution: int = 30,
    generated_at: str | None = None,
    stage: Callable[[str], None] | None = None,
) -> Report:
    """Compute everything a report shows.

    Parameters
    ----------
    verdict : Verdict
        From :func:`srdash.judging.ranking.judge` (rank-harmonic rules).
    runs : DataFrame, optional, keyword-only
        The prepared per-run table the verdict was judged from.
    sources : iterable of path, keyword-only
        Input files or folders to fingerprint (results, dataset table, trust
        store, prediction targets...).
    realworld : Verdict, optional, keyword-only
        The real-world track (see :func:`srdash.judging.trust.realworld_verdict`).
    predictions : PredictionResult, optional, keyword-only
        A prediction-file competition (see :func:`srdash.judging.predictions.score_submissions`).
    properties : PropertyScores, optional, keyword-only
        See :func:`srdash.judging.properties.property_scores`.
    title : str, optional, keyword-only
        Default: the rules' title.
    samples, seed : int, keyword-only
        Weight vectors drawn uniformly from the simplex for the place
        probabilities, and the seed of the draw (same seed, same report).
    ternary_resolution : int, keyword-only
        Grid steps per side of the ternary winner map.
    generated_at : str, optional, keyword-only
        Generation time to record (default: now, UTC).
    stage : callable, optional, keyword-only
        Called with a sentence naming each step of the work before it starts (``srdash report``
        prints them).

    Returns
    -------
    Report

    Raises
    ------
    SrdashError
        When ``verdict`` is not a :class:`~srdash.judging.ranking.Verdict`.
    """
    if not isinstance(verdict, Verdict):
        raise SrdashError(f"A report is built from a Verdict (rank-harmonic rules, see srdash.judging.ranking.judge). "
                          f"Got {type(verdict).__name__}; for submissions judged by normalised-weighted rules use "
                          "`srdash score`.")
    notes: list[str] = []
    probabilities = ternary = alternatives = None
    _announce(stage, f"Weight sensitivity: {samples:,} weight vectors drawn from the simplex, the ternary winner "
                     "map, each method removed in turn")
    try:
        probabilities, ternary, alternatives = _sensitivity(verdict, runs, samples=samples, seed=seed,
                                                            resolution=ternary_resolution, notes=notes)
    except SrdashError as exc:  # e.g. a single method: nothing to compare; say so in the report
        notes.append(f"Weight sensitivity is not shown: {exc}")
    other_rules = [realworld.rules] if realworld is not None else []
    sources = [str(s) for s in sources]
    if predictions is not None:
        sources += [s for s in getattr(predictions, "sources", ()) if s not in sources]
    block = reproducibility_block(verdict.rules, sources=sources, other_rules=other_rules,
                                  provenance=verdict.provenance, generated_at=generated_at)
    texts = {verdict.rules.name: verdict.rules.text}
    for extra in other_rules:
        texts.setdefault(extra.name, extra.text)
    return Report(
        title=title or verdict.rules.title or verdict.rules.name,
        verdict=verdict, runs=runs, realworld=realworld, predictions=predictions, properties=properties,
        place_probabilities=probabilities, ternary=ternary, alternatives=alternatives,
        reproducibility=MappingProxyType(block), rules_texts=MappingProxyType(texts), notes=tuple(notes),
    )


def build_competition_report(
    result,
    *,
    samples: int = 2000,
    seed: int = 0,
    n_bootstrap: int = 200,
    ternary_resolution: int = 30,
    generated_at: str | None = None,
    previous=None,
    stage: Callable[[str], None] | None = None,
) -> Report:
    """The report of a judged competition: every section the dashboard shows.

    Parameters
    ----------
    result : CompetitionResult
        From :func:`srdash.judging.pipeline.judge_competition`.
    samples, seed, ternary_resolution, generated_at : keyword-only
        See :func:`build_report`.
    n_bootstrap : int, keyword-only
        Bootstrap resamples for the rank uncertainty (same seed, same report).
    previous : VerdictSide, optional, keyword-only
        A previous version of the verdict (:func:`srdash.analysis.diff.side_of_published` of a published
        folder, or :func:`~srdash.analysis.diff.side_of_result`): the report then says what changed since.
    stage : callable, optional, keyword-only
        Called with a sentence naming each step of the work before it starts (``srdash report``
        prints them).

    Returns
    -------
    Report
        With the qualification stage, significance (critical difference),
        rank uncertainty and the verdict fingerprint besides what
        :func:`build_report` computes.
    """
    from dataclasses import replace as _replace

    verdict = result.verdict
    # the verdict's provenance names every input by role and relative path (no absolute path is published)
    report = build_report(verdict, runs=result.runs, sources=(), realworld=result.realworld,
                          properties=result.properties, title=result.competition.title, samples=samples, seed=seed,
                          ternary_resolution=ternary_resolution, generated_at=generated_at, stage=stage)
    notes = list(report.notes)
    significance = robustness = None
    if verdict.n_methods >= 2 and verdict.per_dataset["dataset"].nunique() >= 2:
        from srdash.analysis.significance import significance as _significance  # lazy: scipy

        _announce(stage, "Significance: Friedman's test and the critical difference")
        try:
            significance = _significance(verdict)
        except SrdashError as exc:
            notes.append(f"No significance test: {exc}")
        if result.runs is not None:
            _announce(stage, f"Rank uncertainty: the verdict judged again on {n_bootstrap:,} bootstrap resamples of "
                             "datasets and runs")
            try:
                robustness = bootstrap(result.runs, verdict.rules, n_bootstrap=n_bootstrap, seed=seed,
                                       cache=result.competition.simplification.cache)
            except SrdashError as exc:
                notes.append(f"Rank uncertainty is not shown: {exc}")
    else:
        notes.append("Significance and rank uncertainty need at least two methods and two datasets.")
    leaderboard = None
    _announce(stage, "Place intervals and failures by type (the leaderboard as `srdash score` shows it)")
    try:
        from srdash.analysis.board import shown_leaderboard  # lazy: scipy

        leaderboard = shown_leaderboard(result, seed=seed)   # srdash score's numbers for the same seed
    except SrdashError as exc:
        notes.append(f"Place intervals and failures by type are not shown: {exc}")
    certificate, shown = None, ""
    if result.runs is not None:
        from srdash.figures.certificate import certificate_html  # lazy: jinja2

        _announce(stage, "Why this winner: the verdict judged again without datasets, runs, methods, with other "
                         "rules and weights")

        def certified() -> str:
            nonlocal certificate
            certificate = winner_certificate(result, seed=seed)
            return certificate_html(certificate)

        try:   # some 70 judgings at real sizes: what it shows is kept (the verdict fingerprint covers every input)
            shown = kept_text("winner certificate shown", result.runs, verdict.rules, certified,
                              settings={"seed": seed, "verdict": result.fingerprint},
                              cache=result.competition.simplification.cache)
        except SrdashError as exc:
            notes.append(f"Why this winner is not shown: {exc}")
    jury = None
    if result.realworld is not None:
        _announce(stage, "The real-world track's jury model")
        try:
            inputs = realworld_inputs(result.prepared)
            jury = realworld_jury_model(inputs.runs, inputs.entries, inputs.rules, methods=list(inputs.methods),
                                        seed=seed)
        except SrdashError as exc:
            notes.append(f"The jury model of the real-world track is not shown: {exc}")
    changes = None
    if previous is not None:
        _announce(stage, f"What changed since {previous.label}")
        try:
            changes = diff_verdicts(previous, side_of_result(result))
        except SrdashError as exc:
            notes.append(f"What changed since {previous.label} is not shown: {exc}")
    competition = result.competition
    if competition.datasets is not None:
        _announce(stage, "The sizes of the known equations (Pareto fronts per dataset)")
    block = {key: (competition.relative(value) if key.endswith("_source") and Path(str(value)).is_absolute()
                   else value)   # a rules file is named as the competition file names it
             for key, value in report.reproducibility.items() if key != "block_sha256"}
    block["verdict_fingerprint"] = result.fingerprint  # the one identity of the verdict
    return _replace(report, qualification=result.qualification, significance=significance, robustness=robustness,
                    verdict_fingerprint=result.fingerprint, reproducibility=MappingProxyType(block),
                    notes=tuple(notes), certificate=certificate, certificate_html=shown, jury_model=jury,
                    changes=changes,
                    leaderboard=leaderboard,
                    ground_truths=MappingProxyType(ground_truths(competition, verdict.rules, notes)))


def _announce(stage: Callable[[str], None] | None, text: str) -> None:
    if stage is not None:
        stage(text)


def ground_truths(competition, rules, notes: list[str]) -> dict:
    """``{dataset: size}`` of the known equations in the competition's dataset table (column ``ground_truth``),
    counted with the rules' size measure (for the per-dataset Pareto facets); empty without them."""
    if competition.datasets is None:
        return {}
    from srdash.figures.srbench2025 import ground_truth_sizes  # lazy: jinja2, plotly

    measure = next((c.measure for c in rules.criteria if c.measure in ("rounded-nodes", "tree-nodes")), "rounded-nodes")
    try:
        table = pd.read_csv(competition.datasets, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        notes.append(f"No per-dataset Pareto facets: cannot read {competition.relative(competition.datasets)}: {exc}")
        return {}
    return ground_truth_sizes(table, measure=measure)


def _sensitivity(verdict: Verdict, runs, *, samples: int, seed: int, resolution: int, notes: list[str]):
    return _rescorer_sensitivity(Rescorer.from_verdict(verdict, runs=runs), samples=samples, seed=seed,
                                 resolution=resolution, notes=notes, entity="method")


def build_prediction_report(
    result: PredictionResult,
    *,
    sources: Iterable[str | Path] = (),
    title: str | None = None,
    samples: int = 2000,
    seed: int = 0,
    generated_at: str | None = None,
) -> Report:
    """Compute everything the report of a prediction-file competition shows.

    The report shows the final and preliminary leaderboards, the shake-up
    (slope chart and table), with several metrics the combined leaderboards,
    each metric's leaderboards and the weight sensitivity of the combined final
    verdict, then the rejected submissions with their reasons.

    Parameters
    ----------
    result : PredictionResult
        From :func:`srdash.judging.predictions.score_submissions`.
    sources : iterable of path, keyword-only
        Input files to fingerprint besides the targets and the submission files.
    title : str, optional, keyword-only
        Default: "Prediction competition: <metrics>".
    samples, seed : int, keyword-only
        Weight vectors drawn for the weight sensitivity (several metrics).
    generated_at : str, optional, keyword-only
        Generation time to record (default: now, UTC).

    Returns
    -------
    Report
        Of kind ``'predictions'``.

    Examples
    --------
    >>> from srdash.judging.predictions import Targets, score_submissions
    >>> targets = Targets.from_arrays([0.0] * 4, ["preliminary"] * 2 + ["final"] * 2)
    >>> listing = pd.DataFrame({"team": ["a", "b", "c"], "file": ["a", "b", "c"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"a": [0, 3, 0, 3], "b": [2, 2, 2, 2], "c": [1, 2.5, 1, 2.5]})
    >>> report = build_prediction_report(result, samples=100, generated_at="2024-01-01T00:00:00Z")
    >>> report.kind, report.verdict.winner, report.place_probabilities.samples
    ('predictions', 'c', 100)
    """
    if not isinstance(result, PredictionResult):
        raise SrdashError(f"A prediction report is built from a PredictionResult (srdash.judging.predictions."
                          f"score_submissions). Got {type(result).__name__}.")
    notes: list[str] = []
    probabilities = ternary = alternatives = None
    combined = result.combined
    if combined is not None and isinstance(combined.verdicts["final"], Verdict):
        verdict = combined.verdicts["final"]
    else:
        verdict = judge(to_runs_table(result, subsets=["final"]), metric_rules([result.metric],
                                                                              decimals=result.decimals),
                        methods=list(result.teams))
    if combined is not None:
        try:
            probabilities, ternary, alternatives = _rescorer_sensitivity(
                rescorer_of(combined, subset="final"), samples=samples, seed=seed, resolution=30, notes=notes)
        except SrdashError as exc:
            notes.append(f"Weight sensitivity is not shown: {exc}")
    else:
        notes.append("Weight sensitivity is not shown: one metric was scored, so there is no weight to vary.")
    rules = combined.rules if combined is not None else verdict.rules
    files = [str(s) for s in result.sources] + [str(s) for s in sources]
    files += [f for f in map(str, result.submissions["file"]) if Path(f).is_file() and f not in files]
    block = reproducibility_block(rules, sources=files, provenance=verdict.provenance, generated_at=generated_at)
    block = _relative_inputs(block)
    block.pop("block_sha256", None)
    block["verdict_fingerprint"] = result.fingerprint  # the one identity of the verdict
    metrics = ", ".join(m.label for m in result.metrics)
    return Report(
        title=title or f"Prediction competition: {metrics}", verdict=verdict, runs=None, predictions=result,
        place_probabilities=probabilities, ternary=ternary, alternatives=alternatives,
        reproducibility=MappingProxyType(block), rules_texts=MappingProxyType({rules.name: rules.text}),
        notes=tuple(notes), kind=PREDICTIONS_REPORT, verdict_fingerprint=result.fingerprint,
    )


def _relative_inputs(block: dict) -> dict:
    """The block with its ``input_sha256:<path>`` keys relative to the folder holding every input (a
    published report names no absolute path)."""
    import os

    prefix = "input_sha256:"
    paths = [key[len(prefix):] for key in block if key.startswith(prefix) and Path(key[len(prefix):]).is_absolute()]
    if not paths:
        return block
    root = os.path.commonpath([str(Path(p).parent) for p in paths])
    return {(f"{prefix}{Path(os.path.relpath(key[len(prefix):], root)).as_posix()}"
             if key.startswith(prefix) and Path(key[len(prefix):]).is_absolute() else key): value
            for key, value in block.items()}


def _rescorer_sensitivity(rescorer, *, samples: int, seed: int, resolution: int, notes: list[str],
                          entity: str = "team"):
    """Place probabilities, ternary winner map (three weights only) and irrelevant alternatives."""
    if len(rescorer.methods) < 2:
        raise SrdashError(f"there is only one {entity}.")
    probabilities = place_probabilities(rescorer, samples=samples, seed=seed)
    ternary = None
    if rescorer.n_weights == 3:
        ternary = ternary_winner_map(rescorer, resolution=resolution)
    else:
        notes.append(f"The ternary winner map needs exactly three weights; these rules have "
                     f"{rescorer.n_weights}.")
    return probabilities, ternary, irrelevant_alternatives(rescorer)
