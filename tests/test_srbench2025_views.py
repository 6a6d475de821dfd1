"""SRBench 2025's resources and comparison views (srdash.figures.srbench2025): in the dashboard's "More views"
and in the report, shown when the runs carry the columns."""

import pandas as pd
import pytest

from srdash.figures import srbench2025

PLOTLY = "application/vnd.plotly.v1+json"


@pytest.fixture(scope="module")
def runs():
    # 3 methods x 4 datasets, one run each; <b> is best on every dataset, c worst
    r2 = {"<b>": [0.9, 0.8, 0.85, 0.95], "a": [0.7, 0.6, 0.65, 0.75], "c": [0.5, 0.4, 0.45, 0.55]}
    rows = []
    for method, values in r2.items():
        for d, value in enumerate(values):
            rows.append({"method": method, "dataset": f"d{d}", "run": 0, "r2_test": value, "components": 5.0 + d,
                         "simplicity": -1.0, "status": "given", "property": 0.5,
                         "duration(s)": {"a": 10.0, "<b>": 100.0, "c": 7200.0}[method] * (d + 1),
                         "power_consumption(kWh)": {"a": 0.1, "<b>": 0.2, "c": 2.0}[method] * (d + 1),
                         "CO2_emissions(kg)": {"a": 0.04, "<b>": 0.08, "c": 0.8}[method] * (d + 1),
                         "CPU_name": "cpu <x>"})
    return pd.DataFrame(rows)


def test_resource_views(runs):
    views = srbench2025.resource_views(runs, n_bootstrap=20)
    table = views[0]
    # a: durations 10, 20, 30, 40 s -> median 25, total 100; energy 0.1..0.4 kWh -> median 0.25, total 1
    a_row = table[table.index("<td class=\"srdash-team\">a</td>"):].split("</tr>")[0]
    assert "<td>25</td>" in a_row and "<td>100</td>" in a_row and "<td>0.25</td>" in a_row and "<td>1</td>" in a_row
    assert "&lt;b&gt;" in table and "<b>" not in table and "cpu &lt;x&gt;" in table
    # totals over all: energy (0.1 + 0.2 + 2.0) x (1 + 2 + 3 + 4) = 23
    assert "power_consumption(kWh): 23;" in table
    titles = [v.layout.title.text for v in views[1:]]
    assert titles == ["Duration per run (duration(s))", "Energy per run (power_consumption(kWh))",
                      "CO2 emissions per run (CO2_emissions(kg))", "Pareto fronts"]
    assert views[-1].layout.title.subtitle.text == "median accuracy vs median energy (value space)"
    assert srbench2025.resource_views(runs.drop(columns=["duration(s)", "power_consumption(kWh)",
                                                         "CO2_emissions(kg)"])) == ()


def test_comparison_views(runs):
    ranks, figure, html = srbench2025.comparison_views(runs)
    assert "SRBench 2025 mean ranks" in ranks and "srdash-srbench2025-ranks" in ranks
    assert figure.layout.title.text == "Critical difference diagram (r2_test, wilcoxon-holm)"
    # 4 datasets: the smallest two-sided Wilcoxon p is 2/16 = 0.125, so no pair differs; one bar joins all three
    assert "No pair of methods differs significantly." in html
    assert "Wilcoxon signed-rank test per pair, Holm-corrected" in html
    assert "Best mean rank: &lt;b&gt; (3.000, 3 = best)." in html and "<b>" not in html
    bars = [t for t in figure.data if t.line.width == 5]
    assert len(bars) == 1
    note, = srbench2025.comparison_views(runs.drop(columns="r2_test"))
    assert "no r2_test" in note


def test_mean_ranks_view_is_srbench_2025s_own_computation(runs):
    html, = srbench2025.mean_ranks_views(runs)
    assert "SRBench 2025&#x27;s own computation (its collate script, not srdash&#x27;s verdict)" in html
    # r2_test: <b> best on all 4 datasets (rank 1), a 2, c 3. The results' own model_size (read by srdash's
    # loader as components: 5 + d for every method) ties all three on every dataset: (1 + 2 + 3) / 3 = 2
    rows = [row.split("</tr>")[0] for row in html.split("<tr>")[2:]]
    assert rows == ['<td class="srdash-team">&lt;b&gt;</td><td>1</td><td>2</td><td>4</td><td>4</td>',
                    '<td class="srdash-team">a</td><td>2</td><td>2</td><td>4</td><td>4</td>',
                    '<td class="srdash-team">c</td><td>3</td><td>2</td><td>4</td><td>4</td>']
    # srdash's own recount (size) is not SRBench's column: without model_size or components, R2 only
    html, = srbench2025.mean_ranks_views(runs.drop(columns="components").assign(size=1.0))
    assert "mean rank of r2_test (higher is better)" in html and "model_size" not in html


def test_mean_ranks_view_leaves_a_dnf_unranked(runs):
    # c failed every run on d0 and has no row on d1: unranked there; <b> and a ranked among two
    failed = runs.copy()
    failed.loc[(failed["method"] == "c") & (failed["dataset"] == "d0"), ["r2_test", "components"]] = float("nan")
    failed = failed[~((failed["method"] == "c") & (failed["dataset"] == "d1"))]
    html, = srbench2025.mean_ranks_views(failed)
    # c: ranks 3 on d2 and d3 -> 3 over 2 datasets; a: 2, 2, 2, 2 -> 2; sizes: c (2 + 2) / 2 = 2
    assert '<td class="srdash-team">c</td><td>3</td><td>2</td><td>2</td><td>2</td>' in html
    assert "c (2)" in html and "DNF" in html


def test_report_sections(runs):
    from srdash.judging.ranking import judge
    from srdash.judging.rules import load_rules
    from srdash.report.build import build_report, render_html

    verdict = judge(runs, load_rules("srbench2022"))
    page = render_html(build_report(verdict, runs=runs, samples=20, generated_at="2024-05-01T12:00:00Z"))
    assert 'id="comparison"' in page and 'id="resources"' in page
    section = page[page.index('id="comparison"'):]
    assert "First SRBench 2025&#39;s own mean ranks, computed as its collate script computes them" in section
    assert section.index("srdash-srbench2025-ranks") < section.index("Critical difference diagram")
    plain = runs.drop(columns=["duration(s)", "power_consumption(kWh)", "CO2_emissions(kg)"])
    page = render_html(build_report(judge(plain, load_rules("srbench2022")), runs=plain, samples=20,
                                    generated_at="2024-05-01T12:00:00Z"))
    assert 'id="comparison"' not in page and 'id="resources"' not in page


def test_dashboard_views(runs, tmp_path):
    from srdash.apps.dashboard import COMPARISON_VIEW_TITLE, RESOURCES_VIEW_TITLE
    from dashboards import dashboard_of

    app = dashboard_of(runs, tmp_path)
    titles = list(app.more.titles)
    app.more.selected_index = titles.index(RESOURCES_VIEW_TITLE)
    resources = app.view(RESOURCES_VIEW_TITLE)
    assert "srdash-resources" in resources.children[0].value
    assert resources.children[-1].outputs[0]["data"][PLOTLY]["layout"]["title"]["text"] == "Pareto fronts"
    app.more.selected_index = titles.index(COMPARISON_VIEW_TITLE)
    comparison = app.view(COMPARISON_VIEW_TITLE)
    assert "SRBench 2025 mean ranks" in comparison.children[0].value
    assert '<td class="srdash-team">c</td><td>3</td>' in comparison.children[0].value
    # no critical-difference diagram here: "Rank uncertainty and significance" draws the page's one
    assert "No pair of methods differs significantly." in comparison.children[1].value
    assert "srdash-cd-elsewhere" in comparison.children[2].value and len(comparison.children) == 3
    assert app.log_panel.text() == ""


def test_report_facets_with_known_equations(runs):
    import dataclasses

    from srdash.judging.ranking import judge
    from srdash.judging.rules import load_rules
    from srdash.report.build import build_report, render_html

    report = build_report(judge(runs, load_rules("srbench2022")), runs=runs, samples=20,
                          generated_at="2024-05-01T12:00:00Z")
    assert 'id="facets"' not in render_html(report)
    page = render_html(dataclasses.replace(report, ground_truths={"d0": 3.0, "d1": 5.0}))
    assert 'id="facets"' in page and "Pareto fronts per dataset, with the known equation" in page


def test_ground_truths_of_a_competition(tmp_path):
    from srdash.judging.competition import load_competition
    from srdash.judging.rules import load_rules
    from srdash.report.model import ground_truths

    pd.DataFrame({"dataset": ["d0", "d1", "d2"], "features": "x1 x2",
                  "ground_truth": ["x1*x2 + 0.00001*x2", "", "x1 - 1.23456"]}).to_csv(tmp_path / "datasets.csv",
                                                                                   index=False)
    pd.DataFrame({"method": ["a"], "dataset": ["d0"], "model": ["x1"], "r2_test": [0.5]}).to_csv(
        tmp_path / "results.csv", index=False)
    (tmp_path / "competition.toml").write_text('results = "results.csv"\nrules = "srbench2025"\n'
                                               'datasets = "datasets.csv"\n')
    notes = []
    # rounded-nodes: x1*x2 + 0.00001*x2 -> x1*x2 (Mul, x1, x2 = 3); x1 - 1.23456 -> x1 - 1.235 (Add, x1, -1.235 = 3)
    assert ground_truths(load_competition(tmp_path / "competition.toml"), load_rules("srbench2025"), notes) == {
        "d0": 3.0, "d2": 3.0}
    assert notes == []
