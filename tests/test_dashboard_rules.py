"""The dashboard's Rules dropdown, driven in-process: every choice judges as `srdash score` does, or the page
says why, and nothing of an earlier verdict stays on screen meanwhile (issue 37, item 7)."""

from __future__ import annotations

import re
from pathlib import Path
import threading

import pandas as pd
import pytest
from click.testing import CliRunner

import srdash.apps.dashboard as dashboard_module
from srdash.apps import Dashboard
from srdash.apps.rules_choice import NOT_APPLICABLE_LABEL
from srdash.cli import main
from srdash.judging.competition import competition_from_options

PLOTLY = "application/vnd.plotly.v1+json"


@pytest.fixture
def results_path(tmp_path):
    """Three methods with model strings on two datasets, three runs each; no sizes given: each rules' measure
    (simplified components for srbench2022, rounded nodes for srbench2025) is computed from the strings.
    'tidy' writes the short models, 'bloat' the long ones; 'mid' sits between them on both criteria."""
    models = {"tidy": "x1 + x2", "mid": "1.5*x1 + 0.25*x2*x1", "bloat": "sin(x1)*x2 + 0.123456*x1**3 - x2/(1 + x1**2)"}
    accuracy = {"tidy": 0.80, "mid": 0.85, "bloat": 0.95}
    rows = [(method, dataset, run, model, accuracy[method] - 0.01 * run - (0.05 if dataset == "d2" else 0), 1.0)
            for method, model in models.items() for dataset in ("d1", "d2") for run in range(3)]
    path = tmp_path / "results.csv"
    pd.DataFrame(rows, columns=["method", "dataset", "run", "model", "r2_test", "property"]).to_csv(path, index=False)
    return path


def _score_fingerprint(results_path, rules: str) -> str:
    """The verdict fingerprint `srdash score` prints for these results under ``rules``."""
    result = CliRunner().invoke(main, ["score", str(results_path), "--rules", rules, "--no-cache", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return re.search(r"full: ([0-9a-f]{64})", result.output).group(1)


def _verdict_shown(app: Dashboard) -> bool:
    return "srdash-fingerprint-value" in app.provenance.value


def _nothing_of_a_verdict_is_shown(app: Dashboard) -> None:
    assert app.verdict is None and app.result is None
    assert app.provenance.value == ""                             # no fingerprint
    assert "srdash-leaderboard" not in app.leaderboard.value       # no leaderboard
    for panel in (app.scoring, app.significance, app.warnings, app.options_note):
        assert panel.value == ""
    for figure in (app.heatmap, app.curve):                       # no figure
        assert PLOTLY not in figure.outputs[0]["data"]
        assert figure.outputs[0]["data"]["text/plain"].startswith("No verdict")
    assert app._views == {}                                       # no view of the earlier verdict


def test_every_rules_choice_judges_as_srdash_score_or_says_why(results_path, monkeypatch):
    competition = competition_from_options(results_path, rules="srbench2022", jobs=1, cache=False)
    app = Dashboard(competition)
    assert app.wait(120) and app.log_panel.text() == ""
    first = app.result.fingerprint
    assert first == _score_fingerprint(results_path, "srbench2022")
    # a preset whose criterion is a column these results lack is labelled in the dropdown
    labels = dict((name, label) for label, name in app._rules_picker.options)
    assert labels["srbench2023-track2"] == "srbench2023-track2" + NOT_APPLICABLE_LABEL
    assert labels["srbench2025"] == "srbench2025"
    sensitivity = list(app._view_builders).index("Weight sensitivity")
    app.more.selected_index = sensitivity                          # an earlier verdict's view, built
    assert "Weight sensitivity" in app._views
    panels = app.more.children                                     # kept through withdrawn and new verdicts

    # srbench2025 counts rounded nodes, which srbench2022's preparation did not: measured in the background,
    # controls frozen, and no number of the srbench2022 verdict on the page meanwhile
    release, real_prepare = threading.Event(), dashboard_module.prepare_competition
    monkeypatch.setattr(dashboard_module, "prepare_competition",
                        lambda *args, **kwargs: (release.wait(60), real_prepare(*args, **kwargs))[1])
    app._rules_picker.value = "srbench2025"
    assert app.busy and all(control.disabled for control in app._controls)
    assert "Measuring what the rules &#x27;srbench2025&#x27; need" in app.leaderboard.value
    _nothing_of_a_verdict_is_shown(app)
    release.set()
    assert app.wait(120) and not app.busy and not any(control.disabled for control in app._controls)
    assert app.verdict.rules.name == "srbench2025" and _verdict_shown(app)
    assert app.result.fingerprint == _score_fingerprint(results_path, "srbench2025") != first
    assert app.result.fingerprint[:12] in app.provenance.value
    assert PLOTLY in app.heatmap.outputs[0]["data"]
    # srbench2025 simplifies no model: no simplified components, no simplicity curve (said, not an old one)
    assert app.curve.outputs[0]["data"]["text/plain"] == "No model sizes ('components') in the input: no simplicity curve."

    # a preset that sets "Ties" and "Runs combined by" says so beside the controls
    app._rules_picker.value = "srbench2022-as-run"
    assert app.wait(120)
    assert (app.rank_method, app.run_aggregation) == ("k-minus-dense", "mean")
    assert app.controls_note.value == ("<span class='srdash-note srdash-rules-set'>Set by the rules "
                                       "&#x27;srbench2022-as-run&#x27;: Runs combined by: mean, was median; Ties: "
                                       "K − dense rank (as run in 2022), was average (shared mean position).</span>")
    assert app.result.fingerprint == _score_fingerprint(results_path, "srbench2022-as-run")
    app.rank_method = "min"                                        # the user's own change: the note goes
    assert app.controls_note.value == "" and "ties ranked by min" in app.options_note.value

    # a preset that cannot judge these results: the reason where the leaderboard was, nothing else
    app._rules_picker.value = "srbench2023-track2"
    assert app.wait(120)
    _nothing_of_a_verdict_is_shown(app)
    assert app.refusal.startswith("No verdict under the rules 'srbench2023-track2'.")
    assert "the column 'jury_score' is missing" in app.refusal
    assert "give the runs' model strings" not in app.refusal       # these results have them
    assert "jury_score" in app.leaderboard.value and "srdash-refusal" in app.leaderboard.value
    app.more.selected_index = sensitivity                          # nothing to analyse: said, not computed
    assert app._views == {} and "No verdict to analyse" in app.view(sensitivity).value

    # back to the first rules: the same verdict, the same fingerprint, everything drawn again
    app._rules_picker.value = "srbench2022"
    assert app.wait(120)
    assert app.refusal == "" and app.result.fingerprint == first and _verdict_shown(app)
    assert app.more.children is panels and "Open to compute." in app.view(sensitivity).value
    assert PLOTLY in app.heatmap.outputs[0]["data"] and PLOTLY in app.curve.outputs[0]["data"]
    assert "Error" not in app.log_panel.text().replace("Error while judging: Criterion 'jury'", "")


def test_a_view_that_fails_says_so_in_the_view(results_path, monkeypatch):
    import srdash.apps.more_views as more_views_module
    from srdash.errors import CriterionWithoutData

    competition = competition_from_options(results_path, rules="srbench2022", jobs=1, cache=False)
    app = Dashboard(competition)
    assert app.wait(120)
    title = "Rules compared: published, as run, draft"

    def refused(runs):
        raise CriterionWithoutData("Criterion 'property' of the rules 'srbench2022' has no data.")

    monkeypatch.setattr(more_views_module, "rules_comparison", refused)
    index = list(app._view_builders).index(title)
    app.more.selected_index = index
    shown = app.view(index).value
    assert "Computing" not in shown
    assert shown.startswith("<div class='srdash-view-failed'")
    assert "could not be computed: Criterion &#x27;property&#x27; of the rules" in shown
    assert "Error while opening a view: Criterion 'property'" in app.log_panel.text()


def test_rules_compared_says_which_rules_cannot_judge_the_runs():
    from srdash.apps.more_views import rules_comparison

    # SRBench's black-box results have no property column: none of the 2022 presets can judge them
    runs = pd.DataFrame({"method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"], "run": 0,
                         "r2_test": [0.9, 0.8, 0.7, 0.75], "simplicity": [-1.0, -1.4, -1.0, -2.0]})
    shown = rules_comparison(runs)
    assert shown.startswith("<div class='srdash-note'>No comparison: fewer than two of the rules srbench2022, "
                            "srbench2022-as-run, srbench2022-draft can judge these results.</div>")
    assert shown.count("Not compared: ") == 3
    assert ("Not compared: srbench2022: Criterion &#x27;property&#x27; of the rules &#x27;srbench2022&#x27; has no "
            "data: the column &#x27;property&#x27; is missing.") in shown
    # with it, all three are compared and none is refused
    assert "Not compared" not in rules_comparison(runs.assign(property=1.0))


def test_rules_whose_measures_cannot_be_prepared_say_why_where_the_leaderboard_was(results_path):
    # srbench2023-track1 measures R² on each dataset's file: a competition without descriptions names none
    competition = competition_from_options(results_path, rules="srbench2022", jobs=1, cache=False)
    app = Dashboard(competition)
    assert app.wait(120)
    labels = dict((name, label) for label, name in app._rules_picker.options)
    assert labels["srbench2023-track1"] == "srbench2023-track1" + NOT_APPLICABLE_LABEL
    app._rules_picker.value = "srbench2023-track1"
    assert app.wait(120) and not app.busy
    _nothing_of_a_verdict_is_shown(app)
    assert app.refusal.startswith("No verdict under the rules 'srbench2023-track1'.")
    assert "names no data files: add `descriptions = \"datasets.yaml\"`" in app.refusal
    assert app.progress.bar.bar_style == "danger"
    assert "The rules &#x27;srbench2023-track1&#x27; cannot judge these results." in app.progress.label.value
    assert "Error while preparing the results for the rules 'srbench2023-track1': The rules" in app.log_panel.text()
    app._rules_picker.value = "srbench2022"                        # rules that can: the failure is no longer shown
    assert app.wait(120) and app.verdict is not None
    assert app.progress.bar.bar_style == "success" and "Judged under the rules &#x27;srbench2022&#x27;." in (
        app.progress.label.value)


BLACKBOX = Path(__file__).resolve().parents[1].parent / "shared" / "realdata" / "srbench_results" / "blackbox_results.csv"


@pytest.mark.realdata
@pytest.mark.skipif(not BLACKBOX.exists(), reason=f"real data not found at {BLACKBOX}")
def test_on_the_srbench_blackbox_results_rules_compared_says_why_in_the_view(tmp_path):
    from test_realdata_blackbox import blackbox_rules

    # no property column: the suite's rules make it optional; the three 2022 presets require it
    competition = competition_from_options(BLACKBOX, rules=str(blackbox_rules(tmp_path)), jobs=1, cache=False)
    app = Dashboard(competition)
    assert app.wait(300) and app.verdict.winner == "*GP-GOMEA"
    index = list(app._view_builders).index("Rules compared: published, as run, draft")
    app.more.selected_index = index
    shown = app.view(index).value
    assert "Computing" not in shown and "No comparison: fewer than two of the rules" in shown
    assert shown.count("Not compared: srbench2022") == 3
    # none of the presets can judge these results (no property, no model strings, no data files): labelled
    assert all(label.endswith(NOT_APPLICABLE_LABEL) for label, name in app._rules_picker.options
               if name in app._presets)


def test_a_refusal_for_the_trust_column_points_to_the_real_world_track():
    from srdash.apps.rules_choice import refusal_html
    from srdash.errors import CriterionWithoutData

    error = CriterionWithoutData("Criterion 'trust' of the rules 'srbench2022-realworld' has no data.",
                                 criteria=["trust"])
    with_track = refusal_html("srbench2022-realworld", error, realworld=True)
    assert ("This competition's real-world track judges the trust store's entries instead: open \"Real-world "
            "track (expert trust)\" under More views") in with_track
    assert "real-world track" not in refusal_html("srbench2022-realworld", error, realworld=False)
    # an unexpected error shows its kind, its traceback goes to the log
    assert "ZeroDivisionError (see the log)" in refusal_html("srbench2022", ZeroDivisionError("x"))


def test_rules_that_simplify_nothing_still_give_the_real_world_track_its_simplicity(results_path):
    """srbench2025 counts rounded nodes; the 2022 real-world track ranks simplified components: the pipeline
    measures both (before, the track's 'simplicity' was empty and judging stopped, advising to 'give the runs'
    model strings', which the results have)."""
    import dataclasses

    from srdash.judging.pipeline import judge_competition
    from srdash.judging.rules import load_rules
    from srdash.judging.trust import TrustStore

    store = results_path.parent / "trust.sqlite"
    with TrustStore(store, seed=1) as opened:
        for dataset in ("d1", "d2"):
            for rank, method in enumerate(["mid", "tidy", "bloat"], start=1):
                opened.record("ann", dataset, method, kind="rank", value=float(rank))
    competition = competition_from_options(results_path, rules="srbench2025", trust_store=store, jobs=1, cache=False)
    result = judge_competition(competition)
    assert result.realworld is not None and result.realworld.rules.name == "srbench2022-realworld"
    assert result.runs["simplicity"].notna().all() and result.runs["size"].notna().all()
    # the main track is srbench2025's alone: the same verdict as without the real-world track
    alone = judge_competition(dataclasses.replace(competition, realworld=None, rules=load_rules("srbench2025")))
    assert result.verdict.leaderboard[["method", "place", "score"]].equals(
        alone.verdict.leaderboard[["method", "place", "score"]])
