"""The dashboard widget (srdash.apps), driven in-process without a browser."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import srdash.apps.dashboard as dashboard_module
from srdash.demo.competition import demo_folder
from srdash.errors import SrdashError
from srdash.figures.leaderboard import simplicity_score
from srdash.judging.rules import RANK_METHODS, RUN_AGGREGATIONS, load_rules
from srdash.apps import Dashboard, LogPanel, ProgressPanel
from srdash.judging.competition import competition_from_options
from srdash.judging.pipeline import judge_competition

from dashboards import THREE_METHODS_TWO_DATASETS, competition_of, dashboard_of

PLOTLY = "application/vnd.plotly.v1+json"


@pytest.fixture
def runs() -> pd.DataFrame:
    """A per-run table where the run aggregation decides the winner (with what preparing it gives, as the
    tests of other apps take it; the dashboards here are given it as a competition's results file).

    On d1, 'steady' scores 0.80 in every run; 'erratic' scores 0.90, 0.90, 0.00:
    median 0.90 (erratic ranks first on accuracy) but mean 0.60 (steady first).
    Both have the same size on d1 and the same property, so accuracy alone
    decides d1. On d2 both are equal. 'late' has no result on d2 (DNF) and its
    one model on d1 was rejected.
    """
    rows = []
    for run, (steady, erratic) in enumerate([(0.8, 0.9), (0.8, 0.9), (0.8, 0.0)]):
        rows.append(("steady", "d1", run, steady, 5.0, "x1 + x2", "given", ""))
        rows.append(("erratic", "d1", run, erratic, 5.0, "x1 - x2", "given", ""))
        rows.append(("steady", "d2", run, 0.7, 5.0, "x1", "given", ""))
        rows.append(("erratic", "d2", run, 0.7, 5.0, "x1", "given", ""))
    rows.append(("late", "d1", 0, 0.1, np.nan, "__import__('os').system('touch PWNED')", "rejected",
                 "calls __import__"))
    table = pd.DataFrame(rows, columns=["method", "dataset", "run", "r2_test", "components", "model",
                                        "status", "reason"])
    table["simplicity"] = simplicity_score(table["components"])
    table["property"] = 1.0
    return table


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """One folder (results file and cache) for the module's dashboards of ``runs``: prepared once."""
    return tmp_path_factory.mktemp("dashboards")


def _score_of(app: Dashboard, method: str) -> float:
    board = app.verdict.leaderboard.set_index("method")
    return float(board.loc[method, "score"])


def test_constructed_from_a_prepared_table_shows_everything(runs, folder):
    app = dashboard_of(runs, folder)
    assert not app.busy
    assert app.verdict is not None
    assert "steady" in app.leaderboard.value and "ranks: higher is better, 3 = best" in app.leaderboard.value
    assert app.heatmap.outputs[0]["data"][PLOTLY]["layout"]["title"]["text"].startswith("Dataset score")
    assert app.curve.outputs[0]["data"][PLOTLY]["layout"]["title"]["text"].startswith("Simplicity")
    assert "rejected" in app.problems.value
    assert "__import__(&#x27;os&#x27;).system(&#x27;touch PWNED&#x27;)" in app.problems.value
    assert "DNF" in app.problems.value
    assert app.log_panel.text() == ""


def test_changing_the_aggregation_rejudges_the_cached_runs(runs, monkeypatch, folder):
    app = dashboard_of(runs, folder)
    before, prepared_runs = app.leaderboard.value, app.runs
    assert app.verdict.winner == "erratic"  # median: erratic is better on d1
    prepared = []
    monkeypatch.setattr(dashboard_module, "prepare_competition", lambda *a, **k: prepared.append(1))

    app.run_aggregation = "mean"

    assert app.verdict.rules.run_aggregation == "mean"
    assert app.verdict.winner == "steady"   # mean: 0.6 < 0.8
    assert app.leaderboard.value != before
    assert "combined with the mean" in app.scoring.value           # "How is this scored?"
    assert prepared == []                   # nothing recomputed, only re-judged
    assert app.runs is prepared_runs


def test_the_significance_sentence_says_how_it_stands_beside_p_win(runs, folder):
    app = dashboard_of(runs, folder)
    assert "The winner, erratic, is" in app.significance.value
    assert "P(win) (Rank uncertainty) counts how often the winner stays first" in app.significance.value


def test_the_page_says_when_the_options_differ_from_the_rules_description(runs, folder):
    # "How is this scored?" keeps the rules file's description ("Runs are combined with the median ... ties
    # share the average position"); once a control changes an option, a note says what is applied.
    app = dashboard_of(runs, folder)
    assert "combined with the median" in app.scoring.value
    assert app.options_note.value == ""
    app.run_aggregation = "mean"
    assert "runs combined by the mean (the rules say: the median)" in app.options_note.value
    assert "ties" not in app.options_note.value
    app.rank_method = "dense"
    assert "ties ranked by dense (the rules say: average (shared mean position))" in app.options_note.value
    with app.hold_trait_notifications():
        app.run_aggregation, app.rank_method = "median", "average"
    assert app.options_note.value == ""
    # a rules file with other options of its own: its options are not "changes"
    app.rules_name = "srbench2022-as-run"
    assert (app.run_aggregation, app.options_note.value) == ("mean", "")


@pytest.mark.parametrize("aggregation", RUN_AGGREGATIONS)
@pytest.mark.parametrize("rank_method", RANK_METHODS)
def test_every_option_judges_and_draws(runs, aggregation, rank_method, folder):
    app = dashboard_of(runs, folder)
    with app.hold_trait_notifications():
        app.run_aggregation, app.rank_method = aggregation, rank_method
    assert app.log_panel.text() == ""
    assert (app.verdict.rules.run_aggregation, app.verdict.rules.rank_method) == (aggregation, rank_method)
    assert f"ties: {rank_method}" in app.scoring.value
    assert app.heatmap.outputs[0]["data"][PLOTLY]["data"][0]["type"] == "heatmap"


def test_the_controls_drive_the_traits(runs, folder):
    app = dashboard_of(runs, folder)
    app._aggregation_picker.value = "mean"
    app._rank_method_picker.value = "min"
    assert (app.run_aggregation, app.rank_method) == ("mean", "min")
    assert app.verdict.rules.rank_method == "min"
    app.rank_method = "dense"
    assert app._rank_method_picker.value == "dense"


def test_changing_the_rules_adopts_their_options_and_judges_once(runs, monkeypatch, folder):
    app = dashboard_of(runs, folder)
    calls = []
    real_judge = dashboard_module.kept_judgement   # judge_prepared, or the verdict kept with the snapshot
    monkeypatch.setattr(dashboard_module, "kept_judgement",
                        lambda prepared, **k: calls.append(prepared.competition.rules) or real_judge(prepared, **k))

    app.rules_name = "srbench2022-as-run"

    assert (app.run_aggregation, app.rank_method) == ("mean", "k-minus-dense")
    assert len(calls) == 1  # two options changed, one re-judging
    assert app.verdict.rules.name == "srbench2022-as-run"
    assert "SRBench 2022 synthetic track (as the organisers computed it)" in app.title.value


def test_heatmap_criterion_follows_the_verdict(runs, folder):
    app = dashboard_of(runs, folder)
    values = [value for _, value in app._criterion_picker.options]
    assert values == ["", "accuracy", "simplicity", "property"]
    app.heatmap_criterion = "accuracy"
    title = app.heatmap.outputs[0]["data"][PLOTLY]["layout"]["title"]["text"]
    assert title.startswith("Accuracy (test R²) rank")
    assert len(app.heatmap.outputs) == 1  # replaced, not appended


def test_a_callback_error_goes_to_the_log(runs, monkeypatch, folder):
    app = dashboard_of(runs, folder)

    def broken(prepared, **options):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(dashboard_module, "kept_judgement", broken)
    app.run_aggregation = "mean"  # must not raise

    log = app.log_panel.text()
    assert "Unexpected error while judging (please report it)" in log
    assert "ZeroDivisionError: boom" in log and "Traceback" in log
    # the reason stands where the leaderboard was, and nothing of the earlier verdict stays
    assert "No verdict under the rules &#x27;srbench2022&#x27;" in app.leaderboard.value
    assert "ZeroDivisionError (see the log)" in app.leaderboard.value
    assert app.verdict is None and app.provenance.value == "" and "No verdict" in app.heatmap.outputs[0]["data"]["text/plain"]


def test_srdash_errors_in_callbacks_show_their_message_only(runs, tmp_path, folder):
    from srdash.judging.rules import load_rules

    bad = tmp_path / "mine.toml"
    bad.write_text(load_rules("srbench2022").text.replace('name = "srbench2022"', 'name = "mine"'))
    app = dashboard_of(runs, folder, rules=str(bad))
    app.rules_name = "srbench2022"
    # the competition's rules file edited, badly, while the page is open; then chosen again
    bad.write_text("[[criteria]]\nname = 'a'\ncolumn = 'r2_test'\ncolour = 'red'\n")
    app.rules_name = str(bad)
    assert app.log_panel.text() == (f"Error while loading the rules: {bad}: unknown key 'colour' in criterion 'a'. "
                                    "Allowed keys: column, decimals, description, direction, domain, label, measure, name, normalisation, "
                                    "optional, rounding, weight.\n")
    assert "Traceback" not in app.log_panel.text()
    # the reason itself stands where the leaderboard would be, not only in the log
    assert "No verdict under the rules" in app.leaderboard.value
    assert "unknown key &#x27;colour&#x27; in criterion &#x27;a&#x27;" in app.leaderboard.value
    app.rules_name = "srbench2022"  # a preset repairs it
    assert app.verdict.rules.name == "srbench2022" and "steady" in app.leaderboard.value


def test_only_applicable_presets_are_offered(runs, folder):
    app = dashboard_of(runs, folder)
    offered = [value for _, value in app._rules_picker.options]
    assert "srbench2022" in offered and "srbench2022-as-run" in offered
    assert "evalrs2022" not in offered  # another kind of rules: judge() cannot apply it


def test_a_rules_file_is_offered_beside_the_presets(runs, tmp_path, folder):
    from srdash.judging.rules import load_rules

    path = tmp_path / "mine.toml"
    path.write_text(load_rules("srbench2022").text.replace('name = "srbench2022"', 'name = "mine"'))
    app = dashboard_of(runs, folder, rules=str(path))
    assert ("mine.toml", str(path)) in app._rules_picker.options
    assert app.verdict.rules.name == "mine"


def test_busy_freezes_the_controls(runs, folder):
    app = dashboard_of(runs, folder)
    app.busy = True
    assert all(control.disabled for control in app._controls)
    app.busy = False
    assert not any(control.disabled for control in app._controls)


def test_dashboards_do_not_share_state(runs, folder):
    first, second = dashboard_of(runs, folder), dashboard_of(runs, folder)
    first.run_aggregation = "mean"
    assert second.run_aggregation == "median"
    assert second.verdict.winner == "erratic"


def test_background_preparation_fills_in_the_dashboard(runs, tmp_path, monkeypatch):
    release, real_prepare = threading.Event(), dashboard_module.prepare_competition
    monkeypatch.setattr(dashboard_module, "prepare_competition",
                        lambda *args, **kwargs: (release.wait(60), real_prepare(*args, **kwargs))[1])

    app = Dashboard(competition_of(runs, tmp_path))
    assert app.busy and all(control.disabled for control in app._controls)
    assert "Waiting" in app.leaderboard.value  # shown at once, before the results exist
    release.set()
    assert app.wait(60)
    assert not app.busy
    assert app.log_panel.text() == ""
    assert "steady" in app.leaderboard.value
    assert app.progress.bar.bar_style == "success" and "Ready in" in app.progress.label.value
    assert set(app.timings) >= {"load", "prepare", "judge", "ready"}


def test_a_failed_preparation_is_reported(runs, tmp_path, monkeypatch):
    def failing(*args, **kwargs):
        raise SrdashError("results.csv, row 3, column 'r2_test': not a number")

    monkeypatch.setattr(dashboard_module, "prepare_competition", failing)
    app = Dashboard(competition_of(runs, tmp_path))
    assert app.wait(30)
    assert not app.busy
    assert "results.csv, row 3, column &#x27;r2_test&#x27;: not a number" in app.progress.label.value
    assert "Error while preparing the results: results.csv, row 3" in app.log_panel.text()
    assert "could not be prepared" in app.leaderboard.value


def test_from_environment_reads_the_serialised_competition(runs, tmp_path):
    from srdash.judging.competition import competition_from_options

    path = tmp_path / "results.csv"
    runs.drop(columns=["simplicity", "status", "reason"]).to_csv(path, index=False)
    competition = competition_from_options(path, rules="srbench2022-as-run", jobs=2, timeout=2.5)
    app = Dashboard.from_environment({"SRDASH_COMPETITION": competition.to_json()}, served=True)
    # A served page changes only once a browser has displayed it (see PageReady): the work is done, the page
    # still as it was
    assert app.wait(60) and app.verdict is None and app.page_ready in app.children
    app.page_ready._on_message(app.page_ready, {"event": "displayed"}, [])   # what the browser sends
    assert app.verdict.rules.name == "srbench2022-as-run"
    assert app.competition.simplification.options() == {"jobs": 2, "timeout": 2.5, "cache": None, "scheduler": None}
    assert app.result.fingerprint == judge_competition(competition).fingerprint  # the one pipeline's verdict


def test_a_competition_that_does_not_load_is_reported_in_the_log(tmp_path):
    from srdash.judging.competition import competition_from_options

    competition = competition_from_options(tmp_path / "missing.csv")
    app = Dashboard.from_environment({"SRDASH_COMPETITION": competition.to_json()}, served=False)
    assert app.wait(30)
    log = app.log_panel.text()
    assert "Error while preparing the results: " in log and "missing.csv" in log


def test_the_dashboard_takes_a_competition_and_refuses_a_second_start(runs, tmp_path, monkeypatch):
    with pytest.raises(TypeError, match="The 'competition' argument must be a Competition .* Got DataFrame."):
        Dashboard(runs)
    release, real_prepare = threading.Event(), dashboard_module.prepare_competition
    monkeypatch.setattr(dashboard_module, "prepare_competition",
                        lambda *args, **kwargs: (release.wait(60), real_prepare(*args, **kwargs))[1])
    app = Dashboard(competition_of(runs, tmp_path), start=False)
    assert app.verdict is None and "Not prepared yet" in app.progress.label.value
    app.start()
    with pytest.raises(SrdashError, match="already being prepared; wait for the progress bar to finish"):
        app.start()
    release.set()
    assert app.wait(60) and app.verdict.winner == "erratic"


def test_log_panel_and_progress_panel():
    log = LogPanel()
    log.info("hello")
    log.report(ValueError("bad"), context="testing")
    assert log.text().startswith("hello\nUnexpected error while testing (please report it):\n")
    log.clear()
    assert log.text() == ""
    progress = ProgressPanel()
    progress.update(5, 8, {"ok": 3, "parse_error": 1, "rejected": 1, "timeout": 2})
    assert "5 / 8 models done, 2 failed, 2 timed out" in progress.label.value


def test_more_views_are_built_when_opened_and_follow_the_verdict(tmp_path):
    import ipywidgets

    from srdash.apps import Dashboard

    # two datasets, three methods: enough for the significance sentence and the views
    app = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    assert "significantly" in app.significance.value
    # the provenance block travels with the verdict shown
    assert "sympy_version" in app.provenance.value and app.verdict.rules.sha256 in app.provenance.value
    titles = [app.more.get_title(i) for i in range(len(app.more.children))]
    assert titles == ["Rules compared: published, as run, draft", "Weight sensitivity",
                      "Rank uncertainty and significance", "Audit a published table",
                      "SRBench views: Pareto front, performance profiles, pairwise tests",
                      "Comparison of methods: post-hoc test, effect sizes",
                      "Resources: time, energy and CO2 per method",
                      "Why this winner: what would change the verdict"]
    assert all(isinstance(app.view(i), ipywidgets.HTML) for i in range(len(titles)))  # nothing computed yet
    shown = []  # what the panel shows while its view is built: what it computes (ViewProgress), then the view
    app.more.children[0].observe(
        lambda change: shown.append(getattr(change["new"][0], "value", None) or change["new"][0].text()),
        names="children")
    app.more.selected_index = 0
    assert shown[0] == "Computing the rules compared: published, as run, draft view"
    assert "place (score)" in shown[-1] and "place (score)" in app.view(0).value
    app.more.selected_index = 1
    view = app.view("Weight sensitivity")
    assert view is app.view(1)
    assert type(view).__name__ == "SensitivityView"
    assert view.title.layout.display == "none"  # under the accordion's own title "Weight sensitivity": one heading
    first = view.rescorer
    app.rank_method = "min"  # re-judging refreshes the opened view
    assert view.rescorer is not first
    assert app.log_panel.text() == ""

    # one log per app: every opened view reports to the dashboard's log and shows none of its own
    for index in range(len(app.more.children)):
        app.more.selected_index = index
    robustness = app.view(2)
    assert robustness.log_panel is app.log_panel and view.log_panel is app.log_panel
    assert [w for w in _descendants(app) if isinstance(w, LogPanel)] == [app.log_panel]
    robustness.n_bootstrap = 0
    robustness.run()
    assert "The 'n_bootstrap' option must be a whole number >= 1" in app.log_panel.text()


def test_opening_a_view_keeps_the_accordions_panels_and_the_panel_the_visitor_opened_meanwhile(tmp_path):
    # The page re-renders an accordion whose children are replaced, and its accordion (ipywidgets 8) then
    # closes the panel a visitor opened meanwhile and sends a neighbour's index back (issue 33's flaky phone
    # test): only a panel's content may change, and the kernel never re-selects a panel after a build.
    app = dashboard_of(THREE_METHODS_TWO_DATASETS, tmp_path)
    panels = app.more.children
    replaced = []
    app.more.observe(replaced.append, names="children")
    first, second = app.more.index("Rules compared: published, as run, draft"), app.more.index("Weight sensitivity")
    selections = []
    app.more.observe(lambda change: selections.append(change["new"]), names="selected_index")

    def visitor_opens_the_second(change):
        # while the first view computes (its progress just placed), the page sends the visitor's next click
        if type(change["new"][0]).__name__ == "ViewProgress":
            app.more.set_state({"selected_index": second})

    app.more.children[first].observe(visitor_opens_the_second, names="children")
    app.more.selected_index = first
    assert "place (score)" in app.view(first).value                      # the first view was built...
    assert type(app.view(second)).__name__ == "SensitivityView"         # ...and the second
    # nothing re-selected the first (its selection is noted after the nested one: observers run in order)
    assert app.more.selected_index == second and sorted(selections) == sorted([first, second])
    # the same panel boxes, in the same tuple: the page has nothing to re-render but the panels' contents
    assert app.more.children is panels and replaced == []
    app.rank_method = "min"                                              # a new verdict: views refreshed in place
    assert app.more.children is panels and replaced == [] and app.more.selected_index == second
    with pytest.raises(KeyError, match=r"The 'which' argument must be the title of a panel \('Rules compared: "
                                       r"published, as run, draft', 'Weight sensitivity', .*\)\. Got 'No such view'\."):
        app.view("No such view")
    with pytest.raises(IndexError, match=r"The 'which' argument must be a panel's position, 0 to 7\. Got 8\."):
        app.view(8)


def _descendants(widget):
    yield widget
    children = getattr(widget, "children", ())
    for child in children if isinstance(children, (list, tuple)) else ():
        yield from _descendants(child)


def test_real_world_view_shows_the_trust_leaderboard(tmp_path):
    from srdash.judging.trust import TrustStore
    from srdash.apps import Dashboard

    runs = pd.DataFrame({
        "method": ["a", "b", "c"] * 2, "dataset": ["d1"] * 3 + ["d2"] * 3, "run": 0,
        "r2_test": [0.9, 0.8, 0.7, 0.95, 0.6, 0.5], "components": [3.0, 9, 5, 30, 7, 7],
        "simplicity": [-0.7, -1.4, -1.0, -2.1, -1.2, -1.2], "property": 0.5, "status": "given"})
    store_path = tmp_path / "trust.sqlite"
    store = TrustStore(store_path)
    # the judge trusts c most on both datasets (rank 1), then b, then a
    for dataset in ("d1", "d2"):
        for method, rank in (("c", 1), ("b", 2), ("a", 3)):
            store.record("expert", dataset, method, kind="rank", value=rank)
    store.close()
    app = dashboard_of(runs, tmp_path, trust_store=store_path)
    app.more.selected_index = 4
    page = app.view(4).value
    assert app.more.get_title(4) == "Real-world track (expert trust)"
    assert "trust" in page.lower() and "<table" in page
    # the jury model under it (one judge: strengths, no agreement), c the most trusted
    assert "Jury model (a second opinion)" in page and "srdash-jury-consensus" in page
    model = page[page.index("Jury model (a second opinion)"):]
    assert model.index(">c<") < model.index(">b<") < model.index(">a<")
    assert "One judge" in model
    assert app.log_panel.text() == ""


# --------------------------------------------------------------------------- descriptions and qualification


@pytest.fixture(scope="module")
def described_track(tmp_path_factory):
    """Three methods on two generated property datasets, and a qualification stage.

    Qualification (one dataset, one run; srdash.judging.qualification's 'wins' rule):
    LinearRegression 0.50; Truth 0.90 (a win), Line 0.60 (a win), Constant 0.00 (a
    loss): Constant does not qualify, the other two do.
    """
    from srdash.io.datasets import write_property_datasets

    folder = tmp_path_factory.mktemp("described")
    table = write_property_datasets(folder, seed=1)
    rows = []
    for name in ("exact_easy", "feature_absence"):
        rows += [{"method": "Truth", "dataset": name, "model": table[name].truth},
                 {"method": "Line", "dataset": name, "model": "1.5*x1 + x6"},
                 {"method": "Constant", "dataset": name, "model": "2"}]
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    pd.DataFrame({"method": ["LinearRegression", "Truth", "Line", "Constant"], "dataset": "q",
                  "r2_test": [0.50, 0.90, 0.60, 0.00]}).to_csv(folder / "qualification.csv", index=False)
    return folder / "results.csv", folder / "datasets.yaml", folder / "qualification.csv"


def _open_view(app: Dashboard, title: str):
    index = list(app.more.titles).index(title)
    app.more.selected_index = index
    return app.view(title)


def test_dashboard_with_descriptions_shows_the_property_scores(described_track):
    from srdash.apps.properties import PropertyView, QualificationView

    results, descriptions, qualification = described_track
    app = Dashboard(competition_from_options(results, descriptions=descriptions, qualification=qualification,
                                             jobs=1, cache=False))
    assert app.wait(120)
    assert list(app.more.titles[:2]) == [dashboard_module.PROPERTY_VIEW_TITLE,
                                         dashboard_module.QUALIFICATION_VIEW_TITLE]
    # Constant did not qualify: not judged, and the warning names it and the rule
    assert sorted(app.verdict.leaderboard["method"]) == ["Line", "Truth"]
    assert "Excluded from the track (did not qualify against LinearRegression): Constant (2 runs left out)." in app.warnings.value
    assert "Qualification rule: A method qualifies when" in app.warnings.value
    assert app.verdict.provenance["qualification_excluded"] == "Constant"

    view = _open_view(app, dashboard_module.PROPERTY_VIEW_TITLE)
    assert isinstance(view, PropertyView)
    assert view.scores is app.property_scores  # computed once, in prepare_track
    per = view.scores.per_dataset.set_index(["dataset", "method"])["property"]
    # exact_easy: the truth is rediscovered (share 1), the line is not (0);
    # feature_absence (x5..x10 irrelevant): Truth uses none (S1 = 1), Line uses x6 (1 - 1/6)
    assert per[("exact_easy", "Truth")] == 1.0 and per[("exact_easy", "Line")] == 0.0
    assert per[("feature_absence", "Line")] == pytest.approx(5 / 6)
    assert "Constant" not in set(view.scores.per_dataset["method"])
    view.dataset = "exact_easy"
    assert r"1.5 x_{1}" in view.models.value  # the ground truth 1.5*x1 - 0.5*x2 + 2, in LaTeX
    # the track's problems (no model error here, but the property rows) reach the verdict
    assert app.runs["property"].notna().all()

    qualification_view = _open_view(app, dashboard_module.QUALIFICATION_VIEW_TITLE)
    assert isinstance(qualification_view, QualificationView)
    assert "not qualified" in qualification_view.table.value and "Constant" in qualification_view.table.value
    assert "Excluded from the track" in qualification_view.notes_area.value

    # a re-judging with other options keeps the note (it is applied to every verdict)
    app.rank_method = "min"
    assert "Constant" in app.warnings.value and sorted(app.verdict.leaderboard["method"]) == ["Line", "Truth"]


def test_keep_unqualified_only_flags_them(described_track):
    results, _, qualification = described_track
    from dataclasses import replace

    # no descriptions, so neither accuracy nor property: the rules say so (simplicity only)
    rules = load_rules("srbench2022")
    rules = replace(rules, name="srbench2022-simplicity", criteria=(rules.criterion("simplicity"),))
    app = Dashboard(competition_from_options(results, rules=rules, qualification=qualification,
                                             keep_unqualified=True, jobs=1, cache=False))
    assert app.wait(120)
    assert sorted(app.verdict.leaderboard["method"]) == ["Constant", "Line", "Truth"]
    assert "Did not qualify against LinearRegression but kept in the track: Constant." in app.warnings.value
    # no descriptions: no property view, the qualification view only
    assert dashboard_module.PROPERTY_VIEW_TITLE not in app.more.titles
    assert dashboard_module.QUALIFICATION_VIEW_TITLE in app.more.titles


def test_without_descriptions_or_qualification_the_views_are_absent(runs, folder):
    app = dashboard_of(runs, folder)
    assert dashboard_module.PROPERTY_VIEW_TITLE not in app.more.titles
    assert dashboard_module.QUALIFICATION_VIEW_TITLE not in app.more.titles
    assert app.property_scores is None and app.qualification is None
    assert "qualification" not in " ".join(app.verdict.warnings).lower()


def test_a_bad_qualification_file_is_reported_not_raised(described_track, tmp_path):
    from dataclasses import replace

    results, _, _ = described_track
    bad = tmp_path / "q.csv"
    pd.DataFrame({"method": ["a"], "dataset": ["d"], "r2_test": [0.5]}).to_csv(bad, index=False)
    rules = load_rules("srbench2022")   # simplicity only: the results have no accuracy column
    rules = replace(rules, name="srbench2022-simplicity", criteria=(rules.criterion("simplicity"),))
    app = Dashboard(competition_from_options(results, rules=rules, qualification=bad, jobs=1, cache=False))
    assert app.wait(60)
    assert app.verdict is None
    assert "no rows of the baseline 'LinearRegression'" in app.log_panel.text()


def test_from_environment_reads_descriptions_and_qualification(tmp_path):
    from srdash.judging.competition import competition_from_options

    competition = competition_from_options(tmp_path / "r.csv", descriptions=tmp_path / "d.yaml",
                                           qualification=tmp_path / "q.csv", qualification_data=tmp_path / "qd")
    app = Dashboard.from_environment({"SRDASH_COMPETITION": competition.to_json()}, start=False)
    assert app.competition.descriptions == tmp_path / "d.yaml"
    assert app.competition.qualification.results == tmp_path / "q.csv"
    assert app.competition.qualification.data == tmp_path / "qd"
    assert list(app.more.titles[:2]) == [dashboard_module.PROPERTY_VIEW_TITLE,
                                         dashboard_module.QUALIFICATION_VIEW_TITLE]
    # the demo opens with its own descriptions and qualification stage, written once to the cache
    demo = Dashboard.from_environment({}, start=False)
    assert Path(demo.competition.descriptions).parent == demo_folder()
    assert str(demo.competition.descriptions).endswith("descriptions.yaml")
    assert str(demo.competition.qualification.results).endswith("qualification.csv")
    # ... through its competition file, judged by the one pipeline
    assert demo.competition.source.endswith("competition.toml")
