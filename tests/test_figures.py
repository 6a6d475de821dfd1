"""Figures and HTML tables of a verdict (srdash.figures.leaderboard)."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from srdash.errors import SrdashError
from srdash.figures.leaderboard import (
    figure_title,
    hover_text,
    leaderboard_html,
    problems_html,
    rank_heatmap,
    simplicity_curve,
    simplicity_score,
    warnings_html,
)
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules, parse_rules

HOSTILE = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


@pytest.fixture
def runs() -> pd.DataFrame:
    """3 methods x 2 datasets x 2 runs; 'slow' has no result on d2 (DNF).

    The hostile method name must be displayed, escaped, everywhere.
    """
    rows = []
    for dataset in ("d1", "d2"):
        for run in (0, 1):
            rows.append(("good", dataset, run, 0.95, 3.0, "x1 + 1", "given", ""))
            rows.append((HOSTILE, dataset, run, 0.90, 30.0, "<b>x1</b>", "given", ""))
            if dataset == "d1":
                rows.append(("slow", dataset, run, 0.50, 8.0, "x1*x1", "given", ""))
    table = pd.DataFrame(rows, columns=["method", "dataset", "run", "r2_test", "components", "model",
                                        "status", "reason"])
    table["simplicity"] = simplicity_score(table["components"])
    table["property"] = 1.0
    return table


@pytest.fixture
def verdict(runs):
    return judge(runs, load_rules("srbench2022"))


def _strings(value):
    """Every string inside a (nested) plotly JSON structure."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, np.ndarray) and value.dtype == object:
        for item in value.ravel():
            yield from _strings(item)


def _cell(figure: go.Figure, trace: int, attribute: str, method: str, dataset: str):
    data = figure.data[trace]
    return getattr(data, attribute)[list(data.y).index(method)][list(data.x).index(dataset)]


def _hover(figure: go.Figure, trace: int, method: str, dataset: str) -> str:
    data = figure.data[trace]
    return hover_text(figure, trace, list(data.y).index(method), list(data.x).index(dataset))


# A registry of the figure builders: properties every figure must have are tested once, over all.
BUILDERS = {
    "rank_heatmap": lambda verdict, runs: rank_heatmap(verdict),
    "rank_heatmap(accuracy)": lambda verdict, runs: rank_heatmap(verdict, criterion="accuracy"),
    "simplicity_curve(runs)": lambda verdict, runs: simplicity_curve(runs),
    "simplicity_curve(verdict)": lambda verdict, runs: simplicity_curve(verdict),
}


@pytest.mark.parametrize("name", BUILDERS)
def test_every_figure_has_a_title_and_escapes_user_text(name, verdict, runs):
    figure = BUILDERS[name](verdict, runs)
    assert isinstance(figure, go.Figure)
    assert figure_title(figure)  # browser tests wait on the title (.gtitle)
    strings = list(_strings(figure.to_plotly_json()))
    assert not any("<script" in s for s in strings)
    assert any(ESCAPED in s for s in strings)


@pytest.mark.parametrize("name", BUILDERS)
def test_figures_are_pure(name, verdict, runs):
    """Same input, same figure; the inputs are not modified."""
    runs_before = runs.copy()
    per_dataset_before = verdict.per_dataset.copy()
    first = BUILDERS[name](verdict, runs).to_json()
    assert BUILDERS[name](verdict, runs).to_json() == first
    pd.testing.assert_frame_equal(runs, runs_before)
    pd.testing.assert_frame_equal(verdict.per_dataset, per_dataset_before)


def test_heatmap_layout_follows_the_leaderboard(verdict):
    figure = rank_heatmap(verdict)
    assert [t.type for t in figure.data] == ["heatmap", "heatmap"]
    # best method at the top (reversed y axis), datasets in alphabetical order
    assert list(figure.data[0].y) == ["good", ESCAPED, "slow"]
    assert figure.layout.yaxis.autorange == "reversed"
    assert list(figure.data[0].x) == ["d1", "d2"]
    assert "higher is better" in figure.data[0].colorbar.title.text
    assert "higher is better" in figure_title(figure)


def test_heatmap_values_are_the_dataset_scores(verdict):
    figure = rank_heatmap(verdict)
    per_dataset = verdict.per_dataset.set_index(["method", "dataset"])
    # on d1 all three methods ran: 'good' is best on accuracy and simplicity -> ranks 3, 3, property tie 2
    # harmonic mean of (3, 3, 2) = 3 / (1/3 + 1/3 + 1/2) = 2.571...
    assert _cell(figure, 0, "z", "good", "d1") == pytest.approx(per_dataset.loc[("good", "d1"), "dataset_score"])
    assert _cell(figure, 0, "z", "good", "d1") == pytest.approx(3 / (1 / 3 + 1 / 3 + 1 / 2))


def test_dnf_cells_are_grey_with_text(verdict):
    figure = rank_heatmap(verdict)
    assert np.isnan(_cell(figure, 0, "z", "slow", "d2"))        # no colour from the scale
    assert _cell(figure, 1, "z", "slow", "d2") == 1.0           # the grey DNF layer
    assert _cell(figure, 1, "text", "slow", "d2") == "DNF"
    assert _cell(figure, 1, "text", "good", "d2") == ""
    assert np.isnan(_cell(figure, 1, "z", "good", "d2"))
    assert "DNF" in _hover(figure, 0, "slow", "d2")
    assert figure.data[1].customdata is None and figure.data[1].hoverinfo == "skip"  # each hover once


def test_heatmap_hover_lists_every_criterion(verdict):
    hover = _hover(rank_heatmap(verdict), 0, "good", "d1")
    for criterion in verdict.criteria:
        assert criterion.label in hover
    assert "0.950" in hover  # the aggregated accuracy, at its 3 decimals
    assert "rank 3 of 3" in hover
    assert "dataset score: 2.571" in hover


def test_heatmap_of_one_criterion(verdict):
    figure = rank_heatmap(verdict, criterion="simplicity")
    assert _cell(figure, 0, "z", "good", "d1") == 3.0       # 3 components: simplest
    assert _cell(figure, 0, "z", ESCAPED, "d1") == 1.0      # 30 components: least simple
    assert "Simplicity" in figure_title(figure)


def test_heatmap_rejects_an_unknown_criterion(verdict):
    with pytest.raises(SrdashError, match=r"no ranked criterion 'speed'\. Ranked criteria: 'accuracy', "
                                          r"'simplicity', 'property'"):
        rank_heatmap(verdict, criterion="speed")


def test_heatmap_colour_range_is_the_rank_range_of_the_tie_rule(runs):
    # 3 methods. K - dense (as run in 2022): the best gets K - 1 = 2, the worst can get 0;
    # average ranks run from 1 to K = 3. The colour bar and the title say which value is best.
    as_run = rank_heatmap(judge(runs, load_rules("srbench2022-as-run")))
    assert (as_run.data[0].zmin, as_run.data[0].zmax) == (0.0, 2.0)
    assert as_run.data[0].colorbar.title.text == "higher is better (2\u00a0=\u00a0best)"
    assert as_run.layout.title.subtitle.text.replace("<br>", " ").endswith("higher is better, 2\u00a0=\u00a0best")
    published = rank_heatmap(judge(runs, load_rules("srbench2022")))
    assert (published.data[0].zmin, published.data[0].zmax) == (1.0, 3.0)
    assert published.data[0].colorbar.title.text == "higher is better (3\u00a0=\u00a0best)"
    # no cell lies outside the colour range
    for figure in (as_run, published):
        z = np.array(figure.data[0].z, dtype=float)
        z = z[np.isfinite(z)]
        assert figure.data[0].zmin <= z.min() and z.max() <= figure.data[0].zmax


@pytest.mark.parametrize("components, expected", [
    (1, 0.0),     # log(1) = 0
    (5, -1.0),    # -log5(5)
    (24, -2.0),   # -1.9746 rounds to -2.0
    (25, -2.0),
    (100, -2.9),  # -2.8614
])
def test_simplicity_score(components, expected):
    assert simplicity_score(components) == expected


def test_simplicity_score_is_nan_below_one_component():
    assert np.isnan(simplicity_score(0))


def test_simplicity_curve_from_runs(runs):
    figure = simplicity_curve(runs)
    line = figure.data[0]
    assert line.line.shape == "hv"
    # Only the steps are drawn: sizes 1..100, each drawn at the last step at or before it ("hv" shape).
    x, y = np.asarray(line.x), np.asarray(line.y)
    assert x[0] == 1 and x[-1] == 100 and len(x) < 40
    drawn = y[np.searchsorted(x, np.arange(1, 101), side="right") - 1]
    assert drawn.tolist() == simplicity_score(np.arange(1, 101)).tolist()
    assert drawn[0] == 0.0 and drawn[4] == -1.0 and drawn[99] == -2.9  # round(-log5 s, 1) at s = 1, 5, 100
    markers = {trace.name: (trace.x[0], trace.y[0]) for trace in figure.data[1:]}
    # lower median of each method's sizes (all its runs have the same size here)
    assert markers == {"good": (3.0, -0.7), ESCAPED: (30.0, -2.1), "slow": (8.0, -1.3)}
    assert figure.layout.xaxis.title.text and figure.layout.yaxis.title.text


def test_simplicity_curve_lower_median_and_failed_models():
    runs = pd.DataFrame({"method": "m", "components": [2.0, 10.0, 40.0, 80.0, np.nan]})
    figure = simplicity_curve(runs)
    # valid sizes 2, 10, 40, 80: the lower median is 10, an actual model's size
    assert figure.data[1].x == (10.0,)
    assert "1 run(s) without a valid model" in figure.data[1].hovertemplate


def test_simplicity_curve_extends_to_large_median_models():
    figure = simplicity_curve(pd.DataFrame({"method": "big", "components": [250.0]}), max_components=100)
    assert figure.data[0].x[-1] == 250


def test_simplicity_curve_from_a_verdict(verdict):
    figure = simplicity_curve(verdict)
    markers = {trace.name: (trace.x[0], trace.y[0]) for trace in figure.data[1:]}
    assert markers["good"][1] == -0.7
    assert markers["good"][0] == pytest.approx(5 ** 0.7)


@pytest.mark.parametrize("bad, message", [
    ("table.csv", r"takes a Verdict or a prepared per-run table .* Got str\."),
    (pd.DataFrame({"method": ["a"]}), r"missing: 'components'\. The table has: 'method'\."),
])
def test_simplicity_curve_refuses_other_input(bad, message):
    with pytest.raises(SrdashError, match=message):
        simplicity_curve(bad)


@pytest.mark.parametrize("value", [1, 0, 2.5, True])
def test_simplicity_curve_max_components_must_be_an_integer_of_2_or_more(runs, value):
    with pytest.raises(SrdashError, match=r"The 'max_components' option must be an integer >= 2\. Got "):
        simplicity_curve(runs, max_components=value)


def test_leaderboard_html(verdict):
    page = leaderboard_html(verdict)
    assert HOSTILE not in page and ESCAPED in page
    assert page.count('class="num srdash-score"') == 3
    assert "ranks: higher is better, 3 = best" in page
    assert page.index(">good<") < page.index(ESCAPED) < page.index(">slow<")  # leaderboard order
    for criterion in verdict.criteria:
        assert criterion.label in page
    assert f"{verdict.leaderboard['score'].iloc[0]:.3f}" in page


def test_warnings_html(runs):
    text = load_rules("srbench2022").text.replace('column = "property"\n', 'column = "property"\noptional = true\n')
    verdict = judge(runs.drop(columns="property"), parse_rules(text))
    assert "Criterion &#x27;property&#x27; has no data" in warnings_html(verdict)


def test_warnings_html_is_empty_without_warnings(verdict):
    clean = copy.copy(verdict)
    object.__setattr__(clean, "warnings", ())
    assert warnings_html(clean) == ""


def test_problems_html_shows_models_as_escaped_text(runs):
    runs = runs.copy()
    runs.loc[0, ["status", "reason", "model"]] = ["rejected", "calls <b>__import__</b>",
                                                  "__import__('os').system('touch PWNED')"]
    page = problems_html(judge(runs, load_rules("srbench2022")), runs=runs)
    assert "__import__(&#x27;os&#x27;).system(&#x27;touch PWNED&#x27;)" in page
    assert "calls &lt;b&gt;__import__&lt;/b&gt;" in page
    assert "1 rejected" in page and "1 DNF" in page
    assert page.index("rejected</td>") < page.index("DNF</td>")  # serious problems first


def test_problems_html_limits_rows(runs):
    runs = runs.assign(r2_test=runs["r2_test"].where(runs["run"] == 0))  # 5 missing values, 1 DNF
    page = problems_html(judge(runs, load_rules("srbench2022")), max_rows=3)
    assert page.count("<tr class='srdash-problem'>") == 3
    assert "… and" in page


def test_problems_html_without_problems(runs):
    complete = runs[runs["method"] != "slow"]
    assert "No problems" in problems_html(judge(complete, load_rules("srbench2022")))


def test_criterion_labels_from_a_rules_file_are_escaped(runs):
    from srdash.judging.rules import parse_rules

    rules = parse_rules('[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"\nlabel = "<i>R2</i>"\n')
    verdict = judge(runs, rules)
    figure = rank_heatmap(verdict, criterion="accuracy")
    assert figure_title(figure).startswith("&lt;i&gt;R2&lt;/i&gt; rank")
    assert "&lt;i&gt;R2&lt;/i&gt;" in hover_text(figure, 0, 0, 0)
    assert "<i>" not in leaderboard_html(verdict)


def test_simplicity_curve_hover_counts_components_in_words():
    # 'a' has one-component models (median 1); 'b' models of 3 and 4 components (median model: 3)
    runs = pd.DataFrame({"method": ["a", "a", "b", "b"], "components": [1, 1, 3, 4]})
    figure = simplicity_curve(runs, max_components=5)
    assert list(figure.data[0].customdata[:2]) == ["1 component", "2 components"]
    assert "median model: 1 component," in figure.data[1].hovertemplate
    assert "median model: 3 components," in figure.data[2].hovertemplate


def test_the_dashboard_figure_titles_fit_a_phone(verdict, runs):
    # one line of at most TITLE_WIDTH characters (plotly neither wraps nor places several lines well);
    # the rest goes to the subtitle, wrapped at SUBTITLE_WIDTH
    from srdash.figures.titles import SUBTITLE_WIDTH, TITLE_WIDTH

    figures = [rank_heatmap(verdict), rank_heatmap(verdict, criterion="accuracy"), simplicity_curve(runs)]
    for figure in figures:
        title = figure.layout.title
        assert "<br>" not in title.text and len(title.text) <= TITLE_WIDTH, title.text
        assert all(len(line) <= SUBTITLE_WIDTH for line in title.subtitle.text.split("<br>"))
        assert figure.layout.margin.t >= 70  # room for the title and its subtitle


def test_simplicity_curve_markers_at_one_point_all_stay_visible():
    # a, b and c have the same median model size (5 components, simplicity round(-log5 5, 1) = -1.0): drawn
    # at 0, +0.12 and -0.12 of it (one marker apart), the true value on hover; d (9 components: -1.4) in place
    runs = pd.DataFrame({"method": ["a", "b", "c", "d"], "components": [5, 5, 5, 9]})
    figure = simplicity_curve(runs, max_components=10)
    drawn = {trace.name: trace.y[0] for trace in figure.data[1:]}
    assert drawn == pytest.approx({"a": -1.0, "b": -0.88, "c": -1.12, "d": -1.4})
    assert [trace.customdata[0] for trace in figure.data[1:]] == [-1.0, -1.0, -1.0, -1.4]
    assert "drawn 0.12 above its place" in figure.data[2].hovertemplate
    assert len({trace.marker.symbol for trace in figure.data[1:4]}) == 3


def test_a_large_heatmap_labels_no_cell_and_says_what_grey_is(runs):
    # 3 methods x 150 datasets = 450 cells > 400: no value labels, and no "DNF" label either (on 122
    # datasets they ran into each other: "DNFDNFDN"); the subtitle says grey = DNF. 'slow' has no
    # result on the d2 copies.
    many = pd.concat([runs.assign(dataset=runs["dataset"] + f"_{k:03d}") for k in range(75)], ignore_index=True)
    figure = rank_heatmap(judge(many, load_rules("srbench2022")))
    assert figure.data[0].texttemplate is None and figure.data[1].texttemplate is None
    assert figure.data[1].text is None
    assert "grey: DNF (no result)" in figure.layout.title.subtitle.text
    small = rank_heatmap(judge(runs, load_rules("srbench2022")))      # 6 cells: labelled, DNF written
    assert small.data[1].texttemplate == "%{text}" and "DNF" in _strings(small.data[1].text)
    assert "grey" not in small.layout.title.subtitle.text
