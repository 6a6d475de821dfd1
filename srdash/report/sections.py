"""What the report shows, in order: its sections, each a list of blocks (HTML fragments, tables, figures),
built from a :class:`~srdash.report.model.Report` for the HTML renderer, and the figures they hold."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from srdash.analysis.diff import STEPS
from srdash.figures.escape import plotly_text
from srdash.figures.titles import title_layout, title_margin
from srdash.report.model import Report

__all__ = ["report_sections", "integrity_sections", "prediction_report_sections", "report_figures", "cell_text"]


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


def report_sections(report: Report, *, stage: Callable[[str], None] | None = None) -> list[_Section]:
    """The report's sections in display order (each figure built by the app's figure functions); ``stage``, when
    given, is called with the name of each group of sections before it is drawn."""
    # lazy: jinja2, plotly
    from srdash.figures.leaderboard import leaderboard_html, problems_html, rank_heatmap, simplicity_curve, warnings_html

    if report.is_prediction_competition:
        return prediction_report_sections(report)
    announce = stage or (lambda text: None)
    announce("Drawing the leaderboards")
    verdict = report.verdict
    k = verdict.n_methods
    rank_note = f"Ranks: higher is better, {k} = best, 1 = worst. Places: 1 = best."
    sections = []
    blocks = [_Block("html", leaderboard_html(verdict, shown=report.leaderboard))]
    if verdict.warnings:
        blocks.append(_Block("html", warnings_html(verdict)))
    sections.append(_Section("leaderboard", "Leaderboard" + (" (synthetic track)" if report.realworld else ""),
                             verdict.rules.description.strip(), tuple(blocks)))
    if report.changes is not None:
        sections.append(_changes_section(report.changes))
    if report.certificate is not None or report.certificate_html:
        sections.append(_certificate_section(report))
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
        from srdash.figures.properties import qualification_figure, qualification_html  # lazy: plotly

        sections.append(_Section("qualification", "Qualification stage",
                                 "Each method head to head against LinearRegression before the tracks; methods that "
                                 "do not qualify leave every track.",
                                 (_Block("html", qualification_html(report.qualification)),
                                  _figure(qualification_figure(report.qualification)))))

    announce("Drawing the per-dataset ranks, simplicity and properties")
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
    announce("Drawing the significance and rank uncertainty")
    sections += integrity_sections(report)
    announce("Drawing the weight sensitivity")
    sensitivity = _sensitivity_section(report)
    if sensitivity is not None:
        sections.append(sensitivity)
    announce("Drawing the SRBench views (Pareto front, performance profiles, pairwise tests)")
    sections.append(_lineage_section(report))
    announce("Drawing SRBench 2025's comparison of methods and resources")
    sections += _srbench2025_sections(report)
    announce("Listing the problems")
    sections.append(_Section("problems", "Problems",
                             "Rejected or failed models, timeouts, missing values and DNF cells, and how each "
                             "was counted. Model strings are shown as text, never evaluated.",
                             (_Block("html", problems_html(verdict, runs=report.runs)),)))
    if report.notes:
        sections.append(_Section("notes", "Notes", "", tuple(_Block("text", note) for note in report.notes)))
    return sections


def _changes_section(changes) -> _Section:
    """What changed since the previous version: each method's places and the steps that moved them."""
    from srdash.figures.diff import diff_html  # lazy: jinja2

    return _Section("changes", f"What changed since {changes.old}",
                    "The previous verdict becomes this one in steps judged again in a fixed order ("
                    + ", ".join(STEPS) + "); each place change is credited to the steps in which it moved. "
                    "Places: 1 = best; '-': not in that verdict.", (_Block("html", diff_html(changes)),))


def _certificate_section(report: Report) -> _Section:
    """Why this winner (the dashboard's view, same renderer; as kept when the report holds its table only)."""
    from srdash.figures.certificate import certificate_html  # lazy: jinja2

    shown = report.certificate_html or certificate_html(report.certificate)
    return _Section("why", "Why this winner",
                    "For the winner and each podium place, the smallest change of each kind that would change who "
                    "holds it: datasets or runs removed, another rules option or preset, other weights, one other "
                    "method removed. Places: 1 = best.", (_Block("html", shown),))


def _jury_model_section(model) -> _Section:
    """The real-world track's jury model (the dashboard's and the review's tables, same renderer)."""
    # lazy: jinja2, plotly
    from srdash.figures.jury_model import JURY_MODEL_NOTE, jury_model_html, jury_strengths_figure

    return _Section("jury", "Jury model (real-world track, second opinion)", JURY_MODEL_NOTE,
                    (_Block("html", jury_model_html(model)), _figure(jury_strengths_figure(model))))


def _diagram_under_its_statement(figure, significance):
    """The critical-difference diagram with only the test in its subtitle: the section's note just above
    states the verdict on the winner, which the figure would otherwise say a second time in a row."""
    before = title_margin(figure.layout.title.to_plotly_json())
    heading = title_layout(figure.layout.title.text, plotly_text(significance.test_label))
    shorter = before - title_margin(heading)
    figure.update_layout(title=heading, margin={"t": title_margin(heading)},
                         height=figure.layout.height - shorter if figure.layout.height else None)
    return figure


def integrity_sections(report: Report) -> list[_Section]:
    """Significance (critical difference) and rank uncertainty (bootstrap), as the dashboard shows them."""
    from srdash.figures.integrity import critical_difference_figure, place_probability_figure  # lazy: plotly, scipy

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
        from srdash.figures.properties import noise_curve_figure, property_heatmap  # lazy: plotly

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
                                            ternary_winner_figure)  # lazy: plotly

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
    from srdash.figures.lineage import srbench_views  # lazy: plotly, scipy, sympy

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
    from srdash.figures import srbench2025  # lazy: jinja2, plotly

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
    from srdash.figures.predictions import shakeup_figure  # lazy: jinja2

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


def prediction_report_sections(report: Report) -> list[_Section]:
    """Sections of a prediction-competition report (see :func:`build_prediction_report`)."""
    from srdash.figures.predictions import shakeup_figure  # lazy: jinja2

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


def cell_text(value) -> str:
    """A table cell's text: empty for a missing value, a float to 6 significant digits, else its text."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, (float, np.floating)):
        return f"{value:.6g}"
    return str(value)


def _table_rows(frame: pd.DataFrame) -> dict:
    """A DataFrame as plain text cells, for the template (which escapes them)."""
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    return {"columns": list(frame.columns), "numeric": numeric,
            "rows": [[cell_text(v) for v in row] for row in frame.itertuples(index=False)]}


def report_figures(report: Report) -> list:
    """Every figure of the report, in display order (``plotly.graph_objects.Figure``).

    Examples
    --------
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> from srdash.report.model import build_report
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.8],
    ...                   "simplicity": [-1.0, -0.5]})
    >>> from srdash.demo.examples import accuracy_and_simplicity_rules
    >>> figures = report_figures(build_report(judge(t, accuracy_and_simplicity_rules()), samples=50))
    >>> [f.data[0].type for f in figures]
    ['heatmap', 'heatmap', 'heatmap', 'scatter', 'heatmap', 'histogram']
    """
    return [block.content for section in report_sections(report) for block in section.blocks if block.kind == "figure"]
