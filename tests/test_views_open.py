"""Opening the dashboard's further views: what each says while it computes, how far it has got, and a second
visitor who reads the first one's views from the cache and sees the same values (issue 33, item 6)."""

from __future__ import annotations

import json
import re

import pytest

from dashboards import THREE_METHODS_TWO_DATASETS, dashboard_of
from srdash.apps.more_views import CERTIFICATE_VIEW_TITLE, LINEAGE_VIEW_TITLE
from srdash.apps.view_progress import ViewProgress


def _watch(app, title: str) -> tuple[list[str], list[tuple[int, int]]]:
    """Open the view ``title``; the lines its ViewProgress showed meanwhile and each (value, max) of its bar."""
    lines, counts = [], []

    def placed(change) -> None:
        for report in change["new"]:
            if isinstance(report, ViewProgress) and not lines:
                lines.append(report.text())
                report.label.observe(lambda _, r=report: lines.append(r.text()), names="value")
                report.bar.observe(lambda _, r=report: counts.append((r.bar.value, r.bar.max)), names=["value", "max"])

    panel = app.more.children[app.more.index(title)]   # the panel's box: only its contents change
    panel.observe(placed, names="children")
    app.more.selected_index = app.more.index(title)
    panel.unobserve(placed, names="children")
    return lines, counts


def test_the_winner_certificate_says_what_it_computes_and_how_far_it_has_got(tmp_path):
    app = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    lines, counts = _watch(app, CERTIFICATE_VIEW_TITLE)
    # first the view's title, then what it computes over (3 methods, 2 datasets), then each stage of
    # srdash.analysis.certificate with its count
    assert lines[0] == "Computing the why this winner: what would change the verdict view"
    what = ("Computing the winner certificate of 3 methods on 2 datasets: re-judging without datasets, runs or "
            "entrants, under other rules and weights")
    assert lines[1] == what
    # removals leave at least one dataset: C(2, 1) = 2 sets; every variant of the rules (rules_variants) judged
    assert f"{what}: scoring dataset sets, 2 / 2" in lines
    assert any(re.fullmatch(rf"{re.escape(what)}: judging rules variants, (\d+) / \1", line) for line in lines)
    assert f"{what}: removing each method, 3 / 3" in lines
    assert lines[-1] == f"{what}: checking invariance, 3 / 3"    # the last stage, to its total (3 re-judgings)
    assert counts[-1] == (3, 3)
    view = app.view(CERTIFICATE_VIEW_TITLE)
    assert type(view).__name__ == "CertificateView" and "Why this winner" in view.table.value
    assert view.status.layout.display == "none"                  # its own progress line: shown only while computing
    assert "computing" not in view.status.label.value            # and emptied: no note says "computing" once done
    assert app.log_panel.text() == ""


def test_the_srbench_views_count_their_steps_to_the_total(tmp_path):
    app = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    lines, counts = _watch(app, LINEAGE_VIEW_TITLE)
    what = "Computing the SRBench views of 3 methods on 2 datasets: Pareto front, performance profiles, pairwise tests"
    # three steps (no training times, no critical-difference diagram here): srdash.figures.lineage.srbench_views
    assert f"{what}: Pareto front of accuracy and size (200 bootstrap resamples), 0 / 3" in lines
    assert f"{what}: performance profiles, 1 / 3" in lines
    assert f"{what}: Wilcoxon signed-rank tests of every pair of methods, Holm-corrected, 2 / 3" in lines
    assert (3, 3) in counts


def test_the_weight_sensitivity_view_judges_without_each_method_once(tmp_path, monkeypatch):
    from srdash.apps import sensitivity

    calls = []
    original = sensitivity.irrelevant_alternatives
    monkeypatch.setattr(sensitivity, "irrelevant_alternatives", lambda *a, **k: calls.append(1) or original(*a, **k))
    app = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    lines, counts = _watch(app, "Weight sensitivity")
    # it was computed twice on opening (once by the weights' observer, once more after it): once now
    assert len(calls) == 1
    what = ("Computing the weight sensitivity of 3 methods on 2 datasets: the leaderboard without each method, "
            "2,000 weight vectors sampled")
    assert f"{what}: 2,000 weight vectors sampled, 1 / 3" in lines
    assert counts[-1] == (3, 3)                      # three weights: the triangle of weights is the third step
    view = app.view("Weight sensitivity")
    assert view.order == ("a", "b", "c") and "a" in view.alternatives.value
    # a second visitor reads the official weights' table; a weight moved off the official ones is judged here
    second = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    second.more.selected_index = list(second.more.titles).index("Weight sensitivity")
    again = second.view(second.more.selected_index)
    assert len(calls) == 1 and again.alternatives.value == view.alternatives.value
    again.weights = (2.0,) + again.weights[1:]
    assert len(calls) == 2


def _shown(widget) -> list:
    """Every value a visitor sees under ``widget`` (hidden widgets left out): HTML texts and output areas (figures
    as plotly JSON)."""
    seen, stack = [], [widget]
    while stack:
        node = stack.pop(0)
        if node.layout.display == "none":
            continue
        if hasattr(node, "outputs"):
            seen.append(json.dumps(node.outputs, sort_keys=True))
        elif isinstance(getattr(node, "value", None), str):
            seen.append(node.value)
        stack.extend(getattr(node, "children", ()))
    return seen


@pytest.mark.parametrize("title", [CERTIFICATE_VIEW_TITLE, LINEAGE_VIEW_TITLE,
                                   "Comparison of methods: post-hoc test, effect sizes",
                                   "Rank uncertainty and significance", "Weight sensitivity"])
def test_a_second_visitor_sees_the_first_visitors_view_value_for_value(tmp_path, monkeypatch, title):
    from srdash.apps import certificate, integrity, sensitivity
    from srdash.figures import lineage, srbench2025

    first = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    first.more.selected_index = list(first.more.titles).index(title)
    cold = _shown(first.view(first.more.selected_index))
    # the second visitor reads every heavy result from the cache: nothing computed again
    for module, name in ((certificate, "winner_certificate"), (lineage, "srbench_views"),
                         (srbench2025, "comparison_views"), (integrity, "bootstrap"),
                         (sensitivity, "irrelevant_alternatives")):
        monkeypatch.setattr(module, name, lambda *a, **k: pytest.fail("computed again"))
    second = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    second.more.selected_index = list(second.more.titles).index(title)
    warm = _shown(second.view(second.more.selected_index))
    assert cold and warm == cold
    assert first.log_panel.text() == second.log_panel.text() == ""
