"""The dashboard's SRBench view: the same figures as the report, built when opened."""

import pandas as pd

PLOTLY = "application/vnd.plotly.v1+json"


def test_dashboard_srbench_view(tmp_path):
    from srdash.apps.dashboard import LINEAGE_VIEW_TITLE
    from dashboards import dashboard_of

    runs = pd.DataFrame({
        "method": ["a", "b", "c"] * 2, "dataset": ["d1"] * 3 + ["d2"] * 3, "run": 0,
        "r2_test": [0.9, 0.8, 0.7, 0.95, 0.6, 0.5], "components": [3.0, 9, 5, 30, 7, 7],
        "simplicity": [-0.7, -1.4, -1.0, -2.1, -1.2, -1.2], "property": 0.5, "status": "given"})
    app = dashboard_of(runs, tmp_path)
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
