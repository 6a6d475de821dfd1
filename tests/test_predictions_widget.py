"""The predictions app (PredictionsDashboard) without a browser: state, tables, escaping, the log.

The competition is the hand-computed one of tests/test_predictions_combined.py (targets 0):
combined final c, a, b; combined preliminary c, b, a; RMSE final c, b, a; MAE final a, c, b.
Team b is called ``<b>x</b>`` here, to check that it is shown as text.
"""

from __future__ import annotations

import json
import re

import pandas as pd

from srdash.judging.predictions import PredictionResult, score_submissions
from srdash.io.predictions import Targets
from srdash.demo.predictions import REJECTED_LINE
from srdash.apps import PredictionsDashboard
from srdash.apps.predictions import COMBINED

BOLD = "<b>x</b>"
ESCAPED = "&lt;b&gt;x&lt;/b&gt;"
TARGETS = Targets.from_arrays([0.0] * 4, ["preliminary", "preliminary", "final", "final"])
PREDICTIONS = {"a.txt": [2, 2, 0, 3], "b.txt": [0, 3, 2, 2], "c.txt": [1, 2.5, 1, 2.5], "d.txt": [0, 0, 0]}


def _score(metrics=("rmse", "mae")) -> PredictionResult:
    listing = pd.DataFrame({"team": ["a", BOLD, "c", "c"], "file": ["a.txt", "b.txt", "c.txt", "d.txt"]})
    return score_submissions(listing, TARGETS, metric=metrics[0], extra_metrics=list(metrics[1:]),
                             predictions=PREDICTIONS)


def _teams(table_html: str) -> list[str]:
    return re.findall(r"<tr data-team=\"([^\"]*)\">", table_html)


def test_combined_leaderboards_are_shown_first_with_several_metrics():
    app = PredictionsDashboard(_score())
    assert app.ranking == COMBINED
    assert app.final_order == ("c", "a", BOLD)
    assert app.preliminary_order == ("c", BOLD, "a")
    assert _teams(app.final_table.value) == ["c", "a", ESCAPED]
    assert "srdash-pred-final" in app.final_table.value and "combined" in app.final_table.value
    assert [value for _, value in app.selector.options] == [COMBINED, "rmse", "mae"]
    assert app.selector.layout.display is None
    assert app.sensitivity_section.layout.display is None
    assert "harmonic mean of the per-metric ranks" in app.explanation.value


def test_the_metric_selector_reranks_every_view():
    app = PredictionsDashboard(_score())
    app.selector.value = "mae"
    assert app.ranking == "mae"
    assert app.final_order == ("a", "c", BOLD)
    assert _teams(app.preliminary_table.value) == [ESCAPED, "c", "a"]
    assert "MAE, lower is better" in app.final_table.value
    title = app.chart.outputs[0]["data"]["application/vnd.plotly.v1+json"]["layout"]["title"]["text"]
    assert title == "Shake-up: preliminary → final place<br>(MAE, lower is better; rule 'last')"
    app.ranking = "rmse"
    assert app.selector.value == "rmse" and app.final_order == ("c", BOLD, "a")


def test_the_slope_chart_and_shakeup_table_of_the_combined_places():
    app = PredictionsDashboard(_score())
    bundle = app.chart.outputs[0]["data"]
    figure = bundle["application/vnd.plotly.v1+json"]
    assert figure["layout"]["title"]["text"] == "Shake-up: preliminary → final place<br>(combined metrics; rule 'last')"
    assert figure["layout"]["yaxis"]["ticktext"][1] == f"{ESCAPED} (2)"      # preliminary place 2
    assert figure["layout"]["yaxis2"]["ticktext"][2] == f"(3) {ESCAPED}"     # final place 3
    labels = figure["layout"]["yaxis"]["ticktext"] + figure["layout"]["yaxis2"]["ticktext"]
    assert not any(BOLD in label for label in labels)
    # a moved up from 3 to 2, <b>x</b> down from 2 to 3
    assert "▲1" in app.shakeup_table.value and "▼1" in app.shakeup_table.value
    assert _teams(app.shakeup_table.value) == ["c", "a", ESCAPED]


def test_rejected_submissions_are_listed_with_their_reason_and_row():
    app = PredictionsDashboard(_score())
    rejected = app.rejected.value
    assert _teams(rejected) == ["c"]
    assert "d.txt" in rejected and ("row 4: the solution has 3 lines but the test files have 4 (one line per test sample); "
                                     "line 4 is missing.") in rejected
    assert "1 rejected" in app.status.value and "3 teams, 4 submissions" in app.status.value


def test_one_metric_hides_the_selector_and_the_sensitivity():
    app = PredictionsDashboard(_score(("mae",)))
    assert app.ranking == "mae"
    assert app.selector.layout.display == "none"
    assert app.sensitivity_section.layout.display == "none"
    assert app.final_order == ("a", "c", BOLD)


def test_an_unknown_ranking_is_reported_in_the_log():
    app = PredictionsDashboard(_score())
    app.ranking = "accuracy"
    assert ("Error while ranking the leaderboards: The metric 'accuracy' was not scored; scored metrics: "
            "'rmse', 'mae'.") in app.log_panel.text()
    single = PredictionsDashboard(_score(("rmse",)))
    single.ranking = COMBINED
    assert "There is no combined leaderboard: only one metric was scored." in single.log_panel.text()


def test_a_new_result_keeps_the_chosen_metric():
    app = PredictionsDashboard(_score())
    app.ranking = "mae"
    app.result = _score(("mae", "rmse"))
    assert app.ranking == "mae" and app.final_order == ("a", "c", BOLD)


def test_weight_sensitivity_of_the_combined_final_verdict():
    app = PredictionsDashboard(_score())
    app.sensitivity_button.click()
    (view,) = app.sensitivity_area.children
    assert view.rescorer.weight_names == ("rmse", "mae")
    assert view.title.layout.display == "none"  # the app's section heading is the one heading
    assert view.order == ("c", "a", BOLD)
    view.weights = (0.0, 1.0)  # MAE alone
    assert view.order == ("a", "c", BOLD)
    assert not app.busy and "Error" not in app.log_panel.text()


def _words_of(view) -> str:
    """Every text of the sensitivity view that speaks of what is weighted (figures' axis titles included)."""
    heatmap = view.heatmap.outputs[0]["data"]["application/vnd.plotly.v1+json"]["layout"]
    return " ".join([view.status.value, view.explanation.value, view.leaderboard.value, view.alternatives.value,
                     heatmap["yaxis"]["title"]["text"], view.ternary.outputs[0]["data"]["text/plain"]])


def test_the_weight_sensitivity_of_a_prediction_competition_speaks_of_teams_and_metrics():
    app = PredictionsDashboard(_score())
    app.sensitivity_button.click()
    (view,) = app.sensitivity_area.children
    assert "3 teams, 2 weights, one per metric. Places: 1 = best." in view.status.value
    assert view.explanation.value == ("<div class='srdash-note'>The weights are the metrics&#x27; weights in the "
                                      "harmonic mean of each team&#x27;s ranks on the metrics (ranks: 1 = worst, "
                                      "K = best, K = the number of teams).</div>")
    assert "<th>Team</th>" in view.leaderboard.value
    assert "No pair of teams swaps places when any one team is removed." in view.alternatives.value
    assert view.heatmap.outputs[0]["data"]["application/vnd.plotly.v1+json"]["layout"]["yaxis"]["title"][
        "text"] == "team (official place)"
    # Two metrics: no ternary map, and a plain note saying why (not a complaint about the rules).
    assert view.ternary.outputs[0]["data"]["text/plain"] == (
        "No winner map here: it shows the shares of exactly three weights on a triangle, and there are 2 weights, "
        "one per metric. The place probabilities above cover every share.")
    text = _words_of(view).lower()
    for word in ("dataset", "method", "criteri", "needs exactly"):
        assert word not in text, word
    assert "Error" not in app.log_panel.text()


def test_loading_runs_in_the_background_with_progress():
    calls = []

    def loader(progress):
        for done in range(1, 5):
            progress(done, 4)
            calls.append(done)
        return _score()

    app = PredictionsDashboard(loader)
    assert app.wait(30)
    assert calls == [1, 2, 3, 4]
    assert app.progress_bar.value == app.progress_bar.max == 4
    assert app.progress_label.value == "Scored 4 submissions."
    assert app.final_order == ("c", "a", BOLD) and not app.busy


def test_from_environment_without_options_opens_the_demo():
    app = PredictionsDashboard.from_environment({}, served=True)
    # A served page changes only once a browser has displayed it (see PageReady): scored, not yet shown.
    assert app.wait(60) and app.result is None
    app.page_ready._on_message(app.page_ready, {"event": "displayed"}, [])   # what the browser sends
    assert app.log_panel.text() == ""
    assert "the built-in demo prediction competition" in app.status.value
    assert len(app.final_order) == 6 and "&lt;b&gt;bold&lt;/b&gt;" in app.final_table.value
    assert f"row {REJECTED_LINE}: &#x27;n/a&#x27; is not a number" in app.rejected.value
    title = app.chart.outputs[0]["data"]["application/vnd.plotly.v1+json"]["layout"]["title"]["text"]
    assert title.startswith("Shake-up: preliminary → final place")


def test_from_environment_reports_bad_options_in_the_log(tmp_path):
    options = {"submissions": str(tmp_path / "listing.csv"), "targets_csv": str(tmp_path / "missing.csv")}
    app = PredictionsDashboard.from_environment({"SRDASH_PREDICTIONS": json.dumps(options)}, served=False)
    assert app.wait(30)
    text = app.log_panel.text()
    assert text.startswith("Error while scoring the submissions: The targets file is not valid (1 problem):")
    assert "missing.csv: file not found." in text
    assert app.progress_bar.bar_style == "danger" and app.result is None
    broken = PredictionsDashboard.from_environment({"SRDASH_PREDICTIONS": "{not json"})
    assert "SRDASH_PREDICTIONS must be a JSON object of prediction options" in broken.log_panel.text()
