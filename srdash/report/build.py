"""Publishable reports of a verdict: one self-contained HTML file, a Markdown summary, a LaTeX table.

:func:`build_report` does the computation once (weight sensitivity, the
reproducibility block) and returns an immutable :class:`Report`; renderers take
that report and return text:

- :func:`render_html`: one HTML file that needs no server, no kernel and no
  network. plotly.js (about 4.8 MB) and every style are inlined once; nothing is
  fetched from a CDN, so the page opens from disk in any browser and its plots
  stay interactive (hover, zoom). Every figure is built by the same pure figure
  functions as the dashboard (:mod:`srdash.figures.leaderboard`,
  :mod:`srdash.figures.sensitivity`, :mod:`srdash.figures.properties`,
  :func:`srdash.figures.predictions.shakeup_figure`);
- :func:`render_markdown`: the leaderboards as Markdown tables, for papers and
  READMEs;
- :func:`leaderboard_latex`: a leaderboard as a LaTeX ``booktabs`` table.

Names of methods, datasets and teams, and model strings, come from competitors
and are untrusted. The HTML template escapes every value it inserts (Jinja2
autoescape); the figure and table helpers escape what they put into plotly
labels and HTML fragments, and plotly's JSON escapes ``<``, ``>`` and ``/`` so a
name cannot close a ``<script>``. Markdown and LaTeX output escape their own
special characters.

The reproducibility block (:func:`reproducibility_block`) records the srdash,
sympy, numpy, pandas and Python versions, the rules' name, source and SHA-256,
the SHA-256 of every input file and the generation time; the report also shows
the rules file in full. Changing one byte of an input or one value of the rules
changes the block, and its ``fingerprint`` (a hash of everything but the time).

Ranks are "higher is better": 1 = worst, K = best (K = number of methods).
Places: 1 = best.

Examples
--------
>>> import pandas as pd
>>> from srdash.judging.ranking import judge
>>> from srdash.judging.rules import load_rules
>>> runs = pd.DataFrame({"method": ["a", "b<i>", "a", "b<i>"], "dataset": ["d1", "d1", "d2", "d2"],
...                      "run": 0, "r2_test": [0.9, 0.8, 0.7, 0.75], "components": [3.0, 9, 5, 30],
...                      "simplicity": [-0.7, -1.4, -1.0, -2.1], "property": [1.0, 0.0, 0.5, 0.5]})
>>> report = build_report(judge(runs, load_rules("srbench2022")), runs=runs, samples=200,
...                       generated_at="2024-01-01T00:00:00Z")
>>> report.reproducibility["generated_at"], report.reproducibility["rules"]
('2024-01-01T00:00:00Z', 'srbench2022')
>>> page = render_html(report)
>>> page.count('class="plotly-graph-div"') == len(report_figures(report))
True
>>> "b&lt;i&gt;" in page and "<td class='srdash-method'>b<i>" not in page
True
>>> print(render_markdown(report).splitlines()[6])
| Place | Method | Score | Accuracy (test R²) | Simplicity (−log₅ components) | Dataset property | Datasets | DNF |
>>> print(leaderboard_latex(report.verdict).splitlines()[9])
1 & a & 1.692 & 1.500 & 2.000 & 1.750 & 2 & 0 \\\\
"""

from __future__ import annotations

import datetime as _datetime
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.figures.escape import plotly_text
from srdash._version import __version__
from srdash.errors import SrdashError
from srdash.judging.ranking import Verdict
from srdash.judging.rules import Rules

if TYPE_CHECKING:  # only for annotations: these modules are imported when a report uses them
    from srdash.judging.predictions import PredictionResult
    from srdash.judging.properties import PropertyScores
    from srdash.analysis.sensitivity import PlaceProbabilities, TernaryMap

__all__ = [
    "FORMATS",
    "Report",
    "build_report",
    "build_prediction_report",
    "reproducibility_block",
    "report_figures",
    "render_html",
    "render_markdown",
    "leaderboard_latex",
    "write_report",
]

#: Output formats of :func:`write_report` (and ``srdash report --format``).
FORMATS = ("html", "md", "latex")

_TEMPLATE = "report.html.j2"
# Entries of the reproducibility block that its own hash (``block_sha256``) does not cover.
_UNFINGERPRINTED = ("generated_at", "block_sha256", "verdict_fingerprint")
# The report's plots are interactive but do not offer "edit in Chart Studio" (a network link).
_PLOT_CONFIG = {"displaylogo": False, "responsive": True}


#: ``Report.kind`` of a prediction-file competition's report (the other kind is "results").
PREDICTIONS_REPORT = "predictions"


# --------------------------------------------------------------------------- the result


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
        (:func:`srdash.analysis.certificate.winner_certificate`; competition reports only).
    jury_model : JuryModel or None
        The real-world track's jury model, a second opinion beside its verdict
        (:func:`srdash.analysis.jury_model.realworld_jury_model`; competition reports only).
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
    from srdash.judging.provenance import block_sha256, provenance_block

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
                          ternary_resolution=ternary_resolution, generated_at=generated_at)
    notes = list(report.notes)
    significance = robustness = None
    if verdict.n_methods >= 2 and verdict.per_dataset["dataset"].nunique() >= 2:
        from srdash.analysis.significance import significance as _significance

        try:
            significance = _significance(verdict)
        except SrdashError as exc:
            notes.append(f"No significance test: {exc}")
        if result.runs is not None:
            from srdash.analysis.robustness import bootstrap

            try:
                robustness = bootstrap(result.runs, verdict.rules, n_bootstrap=n_bootstrap, seed=seed)
            except SrdashError as exc:
                notes.append(f"Rank uncertainty is not shown: {exc}")
    else:
        notes.append("Significance and rank uncertainty need at least two methods and two datasets.")
    certificate = None
    if result.runs is not None:
        from srdash.analysis.certificate import winner_certificate

        try:
            certificate = winner_certificate(result, seed=seed)
        except SrdashError as exc:
            notes.append(f"Why this winner is not shown: {exc}")
    jury = None
    if result.realworld is not None:
        from srdash.analysis.jury_model import realworld_jury_model
        from srdash.judging.pipeline import realworld_inputs

        try:
            inputs = realworld_inputs(result.prepared)
            jury = realworld_jury_model(inputs.runs, inputs.entries, inputs.rules, methods=list(inputs.methods),
                                        seed=seed)
        except SrdashError as exc:
            notes.append(f"The jury model of the real-world track is not shown: {exc}")
    competition = result.competition
    block = {key: (competition.relative(value) if key.endswith("_source") and Path(str(value)).is_absolute()
                   else value)   # a rules file is named as the competition file names it
             for key, value in report.reproducibility.items() if key != "block_sha256"}
    block["verdict_fingerprint"] = result.fingerprint  # the one identity of the verdict
    return _replace(report, qualification=result.qualification, significance=significance, robustness=robustness,
                    verdict_fingerprint=result.fingerprint, reproducibility=MappingProxyType(block),
                    notes=tuple(notes), certificate=certificate, jury_model=jury,
                    ground_truths=MappingProxyType(_ground_truths(competition, verdict.rules, notes)))


def _ground_truths(competition, rules, notes: list[str]) -> dict:
    """``{dataset: size}`` of the known equations in the competition's dataset table (column ``ground_truth``),
    counted with the rules' size measure (for the per-dataset Pareto facets); empty without them."""
    if competition.datasets is None:
        return {}
    from srdash.figures.srbench2025 import ground_truth_sizes

    measure = next((c.measure for c in rules.criteria if c.measure in ("rounded-nodes", "tree-nodes")), "rounded-nodes")
    try:
        table = pd.read_csv(competition.datasets, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        notes.append(f"No per-dataset Pareto facets: cannot read {competition.relative(competition.datasets)}: {exc}")
        return {}
    return ground_truth_sizes(table, measure=measure)


def _sensitivity(verdict: Verdict, runs, *, samples: int, seed: int, resolution: int, notes: list[str]):
    from srdash.analysis.sensitivity import Rescorer

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
    from srdash.judging.predictions import PredictionResult, metric_rules, to_runs_table
    from srdash.judging.ranking import judge

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
                combined.rescorer("final"), samples=samples, seed=seed, resolution=30, notes=notes)
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
    from srdash.analysis.sensitivity import irrelevant_alternatives, place_probabilities, ternary_winner_map

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


# --------------------------------------------------------------------------- sections and figures


@dataclass(frozen=True)
class _Block:
    kind: str  # 'figure', 'html' (trusted fragment from a figure helper), 'table', 'text', 'pre'
    content: object
    caption: str = ""


@dataclass(frozen=True)
class _Section:
    key: str
    title: str
    note: str
    blocks: tuple[_Block, ...]


def _figure(figure) -> _Block:
    return _Block("figure", figure)


def _sections(report: Report) -> list[_Section]:
    """The report's sections in display order (each figure built by the app's figure functions)."""
    from srdash.figures.leaderboard import leaderboard_html, problems_html, rank_heatmap, simplicity_curve, warnings_html

    if report.is_prediction_competition:
        return _prediction_report_sections(report)
    verdict = report.verdict
    k = verdict.n_methods
    rank_note = f"Ranks: higher is better, {k} = best, 1 = worst. Places: 1 = best."
    sections = []
    blocks = [_Block("html", leaderboard_html(verdict))]
    if verdict.warnings:
        blocks.append(_Block("html", warnings_html(verdict)))
    sections.append(_Section("leaderboard", "Leaderboard" + (" (synthetic track)" if report.realworld else ""),
                             verdict.rules.description.strip(), tuple(blocks)))
    if report.certificate is not None:
        sections.append(_certificate_section(report.certificate))
    if report.realworld is not None:
        realworld = report.realworld
        blocks = [_Block("html", leaderboard_html(realworld))]
        if realworld.warnings:
            blocks.append(_Block("html", warnings_html(realworld)))
        blocks.append(_figure(rank_heatmap(realworld)))
        sections.append(_Section("realworld", "Leaderboard (real-world track)",
                                 realworld.rules.description.strip(), tuple(blocks)))
    if report.jury_model is not None:
        sections.append(_jury_model_section(report.jury_model))
    if report.predictions is not None:
        sections.append(_predictions_section(report.predictions))
    # The verdict first; the qualification stage that decided who took part comes right after it.
    if report.qualification is not None:
        from srdash.figures.properties import qualification_figure, qualification_html

        sections.append(_Section("qualification", "Qualification stage",
                                 "Each method head to head against LinearRegression before the tracks; methods that "
                                 "do not qualify leave every track.",
                                 (_Block("html", qualification_html(report.qualification)),
                                  _figure(qualification_figure(report.qualification)))))

    heatmaps = [_figure(rank_heatmap(verdict))]
    heatmaps += [_figure(rank_heatmap(verdict, criterion=c.name)) for c in verdict.criteria
                 if c.name != "property" or report.properties is not None]
    sections.append(_Section("ranks", "Per-dataset ranks",
                             f"{rank_note} Hover a cell for the raw values; grey cells are DNF (no result, "
                             "ranked last).", tuple(heatmaps)))
    curve = _simplicity_curve(report, simplicity_curve)
    if curve is not None:
        sections.append(_Section("simplicity", "Simplicity",
                                 "Each method's median model on SRBench 2022's simplicity scale "
                                 "(round(−log₅ components, 1); higher is simpler).", (curve,)))
    properties = _properties_section(report, rank_heatmap)
    if properties is not None:
        sections.append(properties)
    sections += _integrity_sections(report)
    sensitivity = _sensitivity_section(report)
    if sensitivity is not None:
        sections.append(sensitivity)
    sections.append(_lineage_section(report))
    sections += _srbench2025_sections(report)
    sections.append(_Section("problems", "Problems",
                             "Rejected or failed models, timeouts, missing values and DNF cells, and how each "
                             "was counted. Model strings are shown as text, never evaluated.",
                             (_Block("html", problems_html(verdict, runs=report.runs)),)))
    if report.notes:
        sections.append(_Section("notes", "Notes", "", tuple(_Block("text", note) for note in report.notes)))
    return sections


def _certificate_section(certificate) -> _Section:
    """Why this winner (the dashboard's view, same renderer)."""
    from srdash.figures.certificate import certificate_html

    return _Section("why", "Why this winner",
                    "For the winner and each podium place, the smallest change of each kind that would change who "
                    "holds it: datasets or runs removed, another rules option or preset, other weights, one other "
                    "method removed. Places: 1 = best.", (_Block("html", certificate_html(certificate)),))


def _jury_model_section(model) -> _Section:
    """The real-world track's jury model (the dashboard's and the review's tables, same renderer)."""
    from srdash.figures.jury_model import JURY_MODEL_NOTE, jury_model_html, jury_strengths_figure

    return _Section("jury", "Jury model (real-world track, second opinion)", JURY_MODEL_NOTE,
                    (_Block("html", jury_model_html(model)), _figure(jury_strengths_figure(model))))


def _diagram_under_its_statement(figure, significance):
    """The critical-difference diagram with only the test in its subtitle: the section's note just above
    states the verdict on the winner, which the figure would otherwise say a second time in a row."""
    from srdash.figures.escape import plotly_text
    from srdash.figures.titles import title_layout, title_margin

    before = title_margin(figure.layout.title.to_plotly_json())
    heading = title_layout(figure.layout.title.text, plotly_text(significance.test_label))
    shorter = before - title_margin(heading)
    figure.update_layout(title=heading, margin={"t": title_margin(heading)},
                         height=figure.layout.height - shorter if figure.layout.height else None)
    return figure


def _integrity_sections(report: Report) -> list[_Section]:
    """Significance (critical difference) and rank uncertainty (bootstrap), as the dashboard shows them."""
    from srdash.figures.integrity import critical_difference_figure, place_probability_figure

    sections = []
    if report.significance is not None:
        sections.append(_Section("significance", "Significance",
                                 f"{report.significance.statement} {report.significance.beside_bootstrap}",
                                 (_figure(_diagram_under_its_statement(
                                     critical_difference_figure(report.significance), report.significance)),)))
    if report.robustness is not None:
        sections.append(_Section("uncertainty", "Rank uncertainty",
                                 "How often each method takes each place when datasets and runs are resampled "
                                 "(bootstrap). Places: 1 = best.",
                                 (_figure(place_probability_figure(report.robustness)),)))
    return sections


def _simplicity_curve(report: Report, simplicity_curve) -> _Block | None:
    runs = report.runs
    if runs is not None and "components" in runs.columns and "method" in runs.columns:
        return _figure(simplicity_curve(runs))
    if "simplicity" in report.verdict.per_dataset.columns:
        return _figure(simplicity_curve(report.verdict))
    return None


def _properties_section(report: Report, rank_heatmap) -> _Section | None:
    if report.properties is not None:
        from srdash.figures.properties import noise_curve_figure, property_heatmap

        scores = report.properties
        blocks = [_figure(property_heatmap(scores))]
        curve = getattr(scores, "noise_curve", None)
        if curve is not None and not curve.empty:
            blocks += [_figure(noise_curve_figure(scores, group=group))
                       for group in sorted(curve["group"].dropna().unique())]
        return _Section("properties", "Properties",
                        "The property each dataset tests, scored from the models and the data (higher is better).",
                        tuple(blocks))
    if any(c.name == "property" for c in report.verdict.criteria):
        return _Section("properties", "Properties",
                        "Rank of each method on the property each dataset tests, from the per-run property "
                        "values of the input (higher is better).",
                        (_figure(rank_heatmap(report.verdict, criterion="property")),))
    return None


def _sensitivity_section(report: Report) -> _Section | None:
    if report.place_probabilities is None:
        return None
    from srdash.figures.sensitivity import (alternatives_html, kendall_tau_histogram, place_probability_heatmap,
                                            ternary_winner_figure)

    probabilities = report.place_probabilities
    blocks = [_figure(place_probability_heatmap(probabilities))]
    if report.ternary is not None:
        blocks.append(_figure(ternary_winner_figure(report.ternary)))
    blocks.append(_figure(kendall_tau_histogram(probabilities)))
    if report.alternatives is not None:
        blocks.append(_Block("html", alternatives_html(report.alternatives, entity=probabilities.entity),
                             caption="Does the verdict depend on who takes part? (each method removed in turn)"))
    return _Section("sensitivity", "Weight sensitivity",
                    f"How the verdict moves with the rules' weights: {probabilities.samples:,} weight vectors drawn "
                    f"uniformly from the simplex (seed {probabilities.seed}). Places: 1 = best.", tuple(blocks))


def _lineage_section(report: Report) -> _Section:
    """SRBench-style views (Pareto front, performance profiles, pairwise p-values, CD diagram)."""
    from srdash.figures.lineage import srbench_views

    # The critical-difference diagram once per report: here only when the Significance section has none.
    shown_above = report.significance is not None
    blocks = tuple(_Block("text", view) if isinstance(view, str) else _figure(view)
                   for view in srbench_views(report.runs, verdict=None if shown_above else report.verdict))
    diagram = ("the critical-difference diagram of the dataset scores is in the Significance section."
               if shown_above else
               "the critical-difference diagram of the dataset scores (Friedman + Nemenyi).")
    return _Section("lineage", "SRBench views",
                    "Methods by median test R² and median model size (front 1 = non-dominated; bars: 95% "
                    "bootstrap intervals over datasets); the share of (dataset, run) pairs reaching each R² "
                    f"threshold; Wilcoxon signed-rank p-values on test R², Holm-corrected; {diagram}", blocks)


def _srbench2025_sections(report: Report) -> list[_Section]:
    """SRBench 2025's comparison of methods and resources (the dashboard's views, same figure functions), when the
    rules are SRBench 2025's or the runs carry time, energy or CO2 columns."""
    from srdash.figures import srbench2025

    runs = report.runs
    resources = srbench2025.has_resources(runs)
    if not resources and report.verdict.rules.name != "srbench2025":
        return []

    def blocks(views) -> tuple:
        return tuple(_Block("html", view) if isinstance(view, str) else _figure(view) for view in views)

    sections = [_Section("comparison", "Comparison of methods",
                         "First SRBench 2025's own mean ranks, computed as its collate script computes them (not "
                         "srdash's verdict): per method the mean over datasets of its rank on the median test R² and "
                         "on the median of the results' own model_size of its runs that exist, a DNF or an all-failed "
                         "(method, dataset) unranked there. Then test R² compared as SRBench 2025's "
                         "statistical_comparisons notebook does: each (dataset, seed) a block when there are several "
                         "runs, missing or failed runs counted as the worst value of the table; Friedman's test, then "
                         "the named post-hoc test per pair; the critical-difference bars join methods that its "
                         "p-values do not separate; effect sizes beside each significant pair.",
                         blocks(srbench2025.comparison_views(runs)))]
    size = next((c for c in ("size", "components", "model_size") if runs is not None and c in runs.columns), None)
    if report.ground_truths and size is not None and "r2_test" in runs.columns:
        sections.append(_Section("facets", "Pareto fronts per dataset",
                                 "On each dataset with a known equation: each method's median test R² (clipped at "
                                 "0) and median model size, the non-dominated methods joined, the known equation "
                                 "(star, R² = 1) and the front model closest to it (ringed).",
                                 (_figure(srbench2025.dataset_fronts_figure(runs, dict(report.ground_truths),
                                                                            size=size)),)))
    if resources:
        sections.append(_Section("resources", "Resources",
                                 "Time, energy and CO2 of the runs as recorded (eco2AI's columns): per method the "
                                 "median per run and the total over every run; the dashed line is one hour; the "
                                 "accuracy-energy front of the methods' medians over datasets.",
                                 blocks(srbench2025.resource_views(runs))))
    return sections


def _predictions_section(result) -> _Section:
    from srdash.figures.predictions import shakeup_figure

    metric = result.metric
    better = "higher" if metric.direction == "higher" else "lower"
    blocks = []
    for subset in ("final", "preliminary"):
        board = result.leaderboard(subset)
        columns = [c for c in ("place", "team", "score", "submission", "entries") if c in board.columns]
        blocks.append(_Block("table", _table_rows(board[columns]),
                             caption=f"{subset.capitalize()} leaderboard ({metric.label}, {better} is better)"))
    blocks.append(_figure(shakeup_figure(result)))
    if result.warnings:
        blocks += [_Block("text", warning) for warning in result.warnings]
    return _Section("predictions", "Prediction leaderboards",
                    f"Teams ranked by {metric.label} ({better} is better) with the submission rule "
                    f"'{result.rule}'. Places: 1 = best; equal scores share a place.", tuple(blocks))


_BOARD_COLUMNS = ("place", "team", "score", "submission", "entries")


def _board_block(board: pd.DataFrame, caption: str, *, extra: Sequence[str] = ()) -> _Block:
    columns = [c for c in ("place", "team", "score", *extra, "submission", "entries", "status") if c in board.columns]
    return _Block("table", _table_rows(board[columns]), caption=caption)


def _prediction_report_sections(report: Report) -> list[_Section]:
    """Sections of a prediction-competition report (see :func:`build_prediction_report`)."""
    from srdash.figures.predictions import shakeup_figure

    result = report.predictions
    combined = result.combined
    sections = []
    if combined is not None:
        extra = [c for c in combined.final_leaderboard.columns if c not in (*_BOARD_COLUMNS, "status")]
        blocks = [_board_block(combined.leaderboard(subset), f"{subset.capitalize()} leaderboard (combined)",
                               extra=extra) for subset in ("final", "preliminary")]
        sections.append(_Section("combined", "Leaderboards (combined metrics)",
                                 f"Teams ranked by the {combined.description}. Ranks: higher is better, K = best "
                                 f"(K = {len(result.teams)} teams). Places: 1 = best; equal scores share a place. "
                                 "The final leaderboard decides the competition.", tuple(blocks)))
        shown = combined
    else:
        shown = result
    blocks = [_figure(shakeup_figure(shown)), _Block("table", _table_rows(shown.shakeup), caption="Shake-up")]
    sections.append(_Section("shakeup", "Shake-up",
                             "Each team's preliminary place → final place; change = preliminary minus final place "
                             "(positive = moved up).", tuple(blocks)))
    blocks = []
    for metric in result.metrics:
        ranked = result.ranked_by(metric)
        better = f"{metric.label}, {metric.direction} is better"
        blocks += [_board_block(ranked.leaderboard(subset), f"{subset.capitalize()} leaderboard ({better})")
                   for subset in ("final", "preliminary")]
    sections.append(_Section("predictions", "Leaderboards per metric" if combined is not None else "Leaderboards",
                             f"Submission rule '{result.rule}'"
                             + (f" (decided by {result.metrics[0].label})" if result.rule != "last" else "")
                             + ". Places: 1 = best; equal scores share the smallest place; a team without a valid "
                               "submission has no score and shares the last place.", tuple(blocks)))
    sensitivity = _sensitivity_section(report)
    if sensitivity is not None:
        sections.append(sensitivity)
    rejected = result.rejected
    blocks = ([_Block("table", _table_rows(rejected), caption=f"{len(rejected)} rejected submission(s)")]
              if len(rejected) else [_Block("text", "No submission was rejected.")])
    sections.append(_Section("rejected", "Rejected submissions",
                             "A rejected submission does not count; the team's other submissions still do. Rows are "
                             "lines of the submitted file (data rows for CSV files).", tuple(blocks)))
    notes = list(result.warnings) + list(report.notes)
    if combined is not None:
        for verdict in combined.verdicts.values():
            notes += [w for w in verdict.warnings if w not in notes]
    if notes:
        sections.append(_Section("notes", "Notes", "", tuple(_Block("text", note) for note in notes)))
    return sections


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, (float, np.floating)):
        return f"{value:.6g}"
    return str(value)


def _table_rows(frame: pd.DataFrame) -> dict:
    """A DataFrame as plain text cells, for the template (which escapes them)."""
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    return {"columns": list(frame.columns), "numeric": numeric,
            "rows": [[_cell(v) for v in row] for row in frame.itertuples(index=False)]}


def report_figures(report: Report) -> list:
    """Every figure of the report, in display order (``plotly.graph_objects.Figure``).

    Examples
    --------
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.8],
    ...                   "simplicity": [-1.0, -0.5]})
    >>> from srdash.demo.examples import accuracy_and_simplicity_rules
    >>> figures = report_figures(build_report(judge(t, accuracy_and_simplicity_rules()), samples=50))
    >>> [f.data[0].type for f in figures]
    ['heatmap', 'heatmap', 'heatmap', 'scatter', 'heatmap', 'histogram']
    """
    return [block.content for section in _sections(report) for block in section.blocks if block.kind == "figure"]


# --------------------------------------------------------------------------- HTML


def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("srdash.report", "templates"),
        autoescape=True,  # every inserted value is escaped unless explicitly marked as trusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _wide_on_a_phone(figure) -> bool:
    """Whether a figure keeps a desk width on a phone (its block scrolls sideways): a heatmap of more than six
    columns, or of five or more whose cells carry numbers, which at 390 px shrank to unreadable dots."""
    for trace in figure.data:
        if trace.type != "heatmap" or trace.x is None:
            continue
        labelled = trace.text is not None or bool(trace.texttemplate)
        if len(trace.x) > 6 or (labelled and len(trace.x) >= 5):
            return True
    return False


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page.

    plotly.js is inlined once, in the page head; each figure is a ``<div>`` with
    the script that draws it. No resource is loaded from anywhere else (no
    CDN, no fonts, no MathJax), so the page works offline and from disk.

    Parameters
    ----------
    report : Report

    Returns
    -------
    str
        The HTML page (about 5 MB, mostly plotly.js).
    """
    import plotly.io as pio
    from markupsafe import Markup
    from plotly.offline import get_plotlyjs

    sections = []
    figure_count = 0
    for section in _sections(report):
        blocks = []
        for block in section.blocks:
            if block.kind == "figure":
                figure_count += 1
                # plotly's JSON escapes '<', '>' and '/', and the figure builders escaped user text.
                fragment = pio.to_html(block.content, full_html=False, include_plotlyjs=False,
                                       div_id=f"srdash-figure-{figure_count}", config=_PLOT_CONFIG)
                wide = _wide_on_a_phone(block.content)
                blocks.append({"kind": "figure", "html": Markup(fragment), "caption": block.caption, "wide": wide})
            elif block.kind == "html":
                # Fragments from srdash's table helpers, which escape every value they insert.
                blocks.append({"kind": "html", "html": Markup(block.content), "caption": block.caption})
            else:
                blocks.append({"kind": block.kind, "content": block.content, "caption": block.caption})
        sections.append({"key": section.key, "title": section.title, "note": section.note, "blocks": blocks})
    verdict = report.verdict
    if report.is_prediction_competition:
        result = report.predictions
        board = result.combined.final_leaderboard if result.combined is not None else result.final_leaderboard
        winners = " = ".join(map(str, board.loc[board["place"] == 1, "team"]))
        subtitle = (f"{len(result.teams)} teams, {len(result.submissions)} submissions ({len(result.rejected)} "
                    f"rejected); metrics {', '.join(m.label for m in result.metrics)}; rule '{result.rule}'. "
                    f"Final winner: {winners}.")
    else:
        subtitle = (f"{verdict.n_methods} methods, {verdict.per_dataset['dataset'].nunique()} datasets; "
                    f"rules {verdict.rules.name}. Winner: {verdict.winner}.")
    if report.verdict_fingerprint:
        subtitle += f" Verdict fingerprint: {report.verdict_fingerprint[:12]}."
    template = _environment().get_template(_TEMPLATE)
    return template.render(
        title=report.title,
        subtitle=subtitle,
        generated_at=report.generated_at,
        srdash_version=__version__,
        sections=sections,
        figure_count=figure_count,
        reproducibility=[(k, v) for k, v in report.reproducibility.items()],
        rules_texts=list(report.rules_texts.items()),
        plotlyjs=Markup(get_plotlyjs()),  # plotly's own bundle: contains no '</script'
    )


# --------------------------------------------------------------------------- Markdown

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]|#+!~])")


def _md(value) -> str:
    """Text made inert in a Markdown table cell: HTML escaped, Markdown specials backslashed."""
    text = " ".join(_cell(value).split())  # no line breaks inside a cell
    return _MARKDOWN_SPECIAL.sub(r"\\\1", plotly_text(text))


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence], numeric: Sequence[bool]) -> list[str]:
    lines = ["| " + " | ".join(_md(h) for h in header) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(_md(v) for v in row) + " |" for row in rows]
    return lines


def _leaderboard_rows(verdict: Verdict, decimals: int) -> tuple[list[str], list[list], list[bool]]:
    header = ["Place", "Method", "Score"] + [c.label for c in verdict.criteria] + ["Datasets", "DNF"]
    rows = []
    for row in verdict.leaderboard.to_dict("records"):
        rows.append([int(row["place"]), row["method"], f"{row['score']:.{decimals}f}"]
                    + [f"{row[f'{c.name}_rank']:.{decimals}f}" for c in verdict.criteria]
                    + [int(row["datasets"]), int(row["dnf"])])
    numeric = [True, False] + [True] * (len(header) - 2)
    return header, rows, numeric


def _rank_sentence(verdict: Verdict) -> str:
    k = verdict.n_methods
    return (f"Place 1 = best. Score = mean over datasets of the harmonic mean of the criteria ranks; the criteria "
            f"columns are mean ranks over datasets (higher is better, {k} = best, 1 = worst). "
            f"DNF = datasets without any result.")


def render_markdown(report: Report, *, decimals: int = 3) -> str:
    """A Markdown summary: the leaderboards, the warnings, the problem counts and the provenance.

    Parameters
    ----------
    report : Report
    decimals : int, keyword-only
        Decimals of scores and mean ranks.

    Returns
    -------
    str
    """
    if report.is_prediction_competition:
        return _prediction_markdown(report, decimals=decimals)
    verdict = report.verdict
    lines = [f"# {_md(report.title)}", "",
             f"Generated {report.generated_at} by srdash {__version__} "
             f"(sympy {report.reproducibility.get('sympy_version', '?')}); rules `{verdict.rules.name}` "
             f"(SHA-256 `{verdict.rules.sha256[:16]}…`).", "",
             f"## Leaderboard{' (synthetic track)' if report.realworld is not None else ''}", ""]
    lines += _markdown_table(*_leaderboard_rows(verdict, decimals))
    lines += ["", _rank_sentence(verdict), ""]
    if report.realworld is not None:
        lines += ["## Leaderboard (real-world track)", ""]
        lines += _markdown_table(*_leaderboard_rows(report.realworld, decimals))
        lines += ["", _rank_sentence(report.realworld), ""]
    if report.jury_model is not None:
        from srdash.analysis.jury_model import jury_model_text

        lines += ["## Jury model (real-world track, second opinion)", "", "```", jury_model_text(report.jury_model),
                  "```", ""]
    if report.predictions is not None:
        result = report.predictions
        better = "higher" if result.metric.direction == "higher" else "lower"
        for subset in ("final", "preliminary"):
            board = result.leaderboard(subset)
            columns = [c for c in ("place", "team", "score", "submission", "entries") if c in board.columns]
            lines += [f"## {subset.capitalize()} leaderboard ({_md(result.metric.label)}, {better} is better)", ""]
            lines += _markdown_table([c.capitalize() for c in columns], board[columns].values.tolist(),
                                     [pd.api.types.is_numeric_dtype(board[c]) for c in columns])
            lines.append("")
    warnings = list(dict.fromkeys(verdict.warnings + (report.realworld.warnings if report.realworld else ())))
    if warnings:
        lines += ["## Warnings", ""] + [f"- {_md(w)}" for w in warnings] + [""]
    if len(verdict.problems):
        counts = verdict.problems["kind"].value_counts().sort_index()
        lines += ["## Problems", "", ", ".join(f"{n} {_md(kind)}" for kind, n in counts.items())
                  + ". Failed or missing values count as the worst value; DNF cells rank last.", ""]
    lines += ["## Reproducibility", "", "| Entry | Value |", "|---|---|"]
    lines += [f"| {_md(key)} | `{value}` |" if key.endswith(("sha256", "fingerprint")) or key.startswith("input")
              else f"| {_md(key)} | {_md(value)} |" for key, value in report.reproducibility.items()]
    return "\n".join(lines) + "\n"


def _prediction_markdown(report: Report, *, decimals: int) -> str:
    lines = [f"# {_md(report.title)}", "",
             f"Generated {report.generated_at} by srdash {__version__}. Places: 1 = best.", ""]
    for section in _prediction_report_sections(report):
        tables = [b for b in section.blocks if b.kind in ("table", "text")]
        if not tables:
            continue
        lines += [f"## {_md(section.title)}", ""]
        for block in tables:
            if block.kind == "text":
                lines += [f"- {_md(block.content)}", ""]
                continue
            content = block.content
            lines += [f"**{_md(block.caption)}**", ""]
            lines += _markdown_table(content["columns"], content["rows"], content["numeric"])
            lines.append("")
    lines += ["## Reproducibility", "", "| Entry | Value |", "|---|---|"]
    lines += [f"| {_md(key)} | {_md(value)} |" for key, value in report.reproducibility.items()]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- LaTeX

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}"}


def _latex(text) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in " ".join(str(text).split()))


def leaderboard_latex(verdict: Verdict, *, decimals: int = 3, caption: str | None = None,
                      label: str = "tab:leaderboard") -> str:
    """A leaderboard as a LaTeX table (``booktabs``: ``\\usepackage{booktabs}``).

    Columns: place (1 = best), method, score, the mean rank of each criterion
    (higher is better, K = best), datasets and DNF. Method names are escaped.

    Parameters
    ----------
    verdict : Verdict
    decimals : int, keyword-only
    caption : str, optional, keyword-only
        Default: the rules' title and how to read the ranks. Inserted as LaTeX
        (not escaped), so it may hold markup.
    label : str, keyword-only

    Returns
    -------
    str

    Examples
    --------
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a_b & c", "d"], "dataset": "x", "r2_test": [0.9, 0.8]})
    >>> from dataclasses import replace
    >>> rules = load_rules("srbench2022")
    >>> rules = replace(rules, criteria=(rules.criterion("accuracy"),))  # the table has accuracy only
    >>> print(leaderboard_latex(judge(t, rules)))  # doctest: +NORMALIZE_WHITESPACE
    % srdash ... leaderboard (rules srbench2022); needs \\usepackage{booktabs}
    \\begin{table}[ht]
    \\centering
    \\caption{SRBench 2022 synthetic track (published criteria). Place 1 = best; criteria columns are mean ranks over datasets (higher is better, 2 = best).}
    \\label{tab:leaderboard}
    \\begin{tabular}{rlrrrr}
    \\toprule
    Place & Method & Score & Accuracy & Datasets & DNF \\\\
    \\midrule
    1 & a\\_b \\& c & 2.000 & 2.000 & 1 & 0 \\\\
    2 & d & 1.000 & 1.000 & 1 & 0 \\\\
    \\bottomrule
    \\end{tabular}
    \\end{table}
    """
    rules = verdict.rules
    k = verdict.n_methods
    if caption is None:
        caption = (f"{_latex(rules.title or rules.name)}. Place 1 = best; criteria columns are mean ranks over "
                   f"datasets (higher is better, {k} = best).")
    header = ["Place", "Method", "Score"] + [_latex(c.name.replace("_", " ").capitalize()) for c in verdict.criteria]
    header += ["Datasets", "DNF"]
    lines = [f"% srdash {__version__} leaderboard (rules {_latex(rules.name)}); needs \\usepackage{{booktabs}}",
             "\\begin{table}[ht]", "\\centering", f"\\caption{{{caption}}}", f"\\label{{{label}}}",
             "\\begin{tabular}{rl" + "r" * (len(header) - 2) + "}", "\\toprule", " & ".join(header) + " \\\\",
             "\\midrule"]
    for row in verdict.leaderboard.to_dict("records"):
        cells = [str(int(row["place"])), _latex(row["method"]), f"{row['score']:.{decimals}f}"]
        cells += [f"{row[f'{c.name}_rank']:.{decimals}f}" for c in verdict.criteria]
        cells += [str(int(row["datasets"])), str(int(row["dnf"]))]
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- writing


def write_report(report: Report, path: str | Path, *, format: str = "html") -> Path:  # noqa: A002 - CLI name
    """Write the report in one of :data:`FORMATS` and return the path.

    ``latex`` writes the leaderboard table(s): the main track's, then the
    real-world track's when the report has one.

    Raises
    ------
    SrdashError
        Unknown format, or the file cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8]})
    >>> from srdash.demo.examples import accuracy_rules
    >>> report = build_report(judge(t, accuracy_rules()), samples=50)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_report(report, Path(folder) / "board.tex", format="latex")
    ...     len(path.read_text().splitlines())  # 12 lines of frame and header, one row per method
    14
    """
    if format not in FORMATS:
        raise SrdashError(f"The 'format' option must be one of {', '.join(repr(f) for f in FORMATS)}. "
                          f"Got {format!r}.")
    if format == "latex" and report.is_prediction_competition:
        raise SrdashError("The LaTeX table covers results reports; write a prediction competition's report as "
                          "html or md.")
    if format == "html":
        text = render_html(report)
    elif format == "md":
        text = render_markdown(report)
    else:
        text = leaderboard_latex(report.verdict)
        if report.realworld is not None:
            text += "\n" + leaderboard_latex(report.realworld, label="tab:leaderboard-realworld")
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SrdashError(f"Cannot write the report to '{path}': {exc}.") from exc
    return path
