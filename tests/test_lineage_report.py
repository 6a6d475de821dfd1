"""The report's "SRBench views" section: built by the lineage figure functions, or a sentence
saying why a view is absent."""

import re

import pytest

from srdash.demo.competition import demo_competition
from srdash.figures.leaderboard import figure_title
from srdash.io.loading import load_results
from srdash.judging.pipeline import prepare_runs
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules
from srdash.report.build import build_report, render_html, report_figures

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+\.?\d*(?:[eE][-+]?\d+)?|\*\*|[-+*/]")


@pytest.fixture(scope="module")
def demo_runs():
    table = demo_competition().table
    # components given (token counts) so that no sympy work runs; the hostile model is rejected
    sizes = table["model"].map(lambda model: float(max(1, len(_TOKEN.findall(str(model))))))
    return prepare_runs(load_results(table.assign(components=sizes)), cache=False)


def test_report_has_the_srbench_views(demo_runs):
    report = build_report(judge(demo_runs, load_rules("srbench2022")), runs=demo_runs, samples=20,
                          generated_at="2024-05-01T12:00:00Z")
    titles = [figure_title(figure) for figure in report_figures(report)]
    assert "Pareto fronts<br>median accuracy vs median size (value space)" in titles
    assert "Performance profiles (r2_test)" in titles
    assert "Pairwise Wilcoxon signed-rank tests<br>Holm-corrected p-values; * p &lt; 0.05" in titles
    page = render_html(report)
    section = page[page.index('id="lineage"'):]
    assert "SRBench views" in section[:2000]
    # the critical-difference diagram once in the report: here, when no Significance section shows it ...
    assert sum(title.startswith("Critical difference") for title in titles) == 1
    # ... and only in the Significance section when there is one
    from dataclasses import replace

    from srdash.analysis.significance import significance

    with_significance = replace(report, significance=significance(report.verdict))
    titles = [figure_title(figure) for figure in report_figures(with_significance)]
    assert sum(title.startswith("Critical difference") for title in titles) == 1
    page = render_html(with_significance)
    assert page.count("Critical difference diagram") == 1
    assert "the critical-difference diagram of the dataset scores is in the Significance section" in page


def test_report_says_why_a_view_is_absent(demo_runs):
    runs = demo_runs.drop(columns=[c for c in ("components", "model_size", "size") if c in demo_runs.columns])
    report = build_report(judge(demo_runs, load_rules("srbench2022")), runs=runs, samples=20,
                          generated_at="2024-05-01T12:00:00Z")
    page = render_html(report)
    assert "No Pareto front: the runs carry no test R² and model size" in page
