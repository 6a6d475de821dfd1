"""The dashboard's SRBench view: the same figures as the report, built when opened."""

PLOTLY = "application/vnd.plotly.v1+json"


def test_dashboard_srbench_view(tmp_path):
    from srdash.apps.dashboard import LINEAGE_VIEW_TITLE
    from dashboards import THREE_METHODS_TWO_DATASETS, dashboard_of

    app = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    index = list(app.more.titles).index(LINEAGE_VIEW_TITLE)
    app.more.selected_index = index
    panels = app.view(index).children
    # a short title on one line (it fits a phone), the details in the subtitle
    titles = [(panel.outputs[0]["data"][PLOTLY]["layout"]["title"]["text"],
               panel.outputs[0]["data"][PLOTLY]["layout"]["title"].get("subtitle", {}).get("text", ""))
              for panel in panels]
    assert titles[0] == ("Pareto fronts", "median accuracy vs median size (value space)")
    assert titles[1] == ("Performance profiles (r2_test)", "")
    assert titles[2] == ("Pairwise Wilcoxon signed-rank tests", "Holm-corrected p-values; * p &lt; 0.05")
    # no critical-difference diagram: the page shows it once, under "Rank uncertainty and significance"
    assert len(titles) == 3
    assert app.log_panel.text() == ""
