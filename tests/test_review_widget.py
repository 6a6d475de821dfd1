"""The trust review widget (srdash.apps.review), driven through its traits without a browser."""

from __future__ import annotations

import json
import re

import base64
from collections import Counter
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pandas as pd
import pytest

from srdash.judging.trust import ReviewSettings, TrustStore, trust_summary
from srdash.judging.representative import find_test_file
from srdash.demo.competition import demo_folder
from srdash.apps.panels import widget_tree
from srdash.apps.review import DEMO_DATASETS, ModelCard, ReviewApp, ReviewPage, demo_results

STAGE2 = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench2022" / "stage2"

HOSTILE = "<script>window.pwned = 1</script><img src=x onerror=alert(1)>"



def review_env(**options) -> dict:
    """The environment `srdash review` gives the notebook: the options as one JSON object."""
    return {"SRDASH_REVIEW": json.dumps(options)}


def representatives(hostile: str = HOSTILE) -> pd.DataFrame:
    """Three methods on two datasets, one per (method, dataset), as representative_runs returns them."""
    rows = []
    for dataset in ("d1", "d2"):
        rows += [
            ("plain", dataset, 0, "x1 + 2", "x1 + 2", 0.812, -0.7, 3.0, "ok", "", "x1", 5),
            ("scaled", dataset, 1, "3.0001*x1", "3.0*x1", 0.755, -0.7, 3.0, "ok", "", "x1", 5),
            ("<b>evil</b>", dataset, 2, hostile, "", 0.999, float("nan"), float("nan"), "rejected",
             "not a formula", "", 5),
        ]
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "model", "simplified", "r2_test", "simplicity",
                                       "components", "status", "reason", "features_used", "n_runs"])


@pytest.fixture
def store(tmp_path):
    with TrustStore(tmp_path / "trust.sqlite", seed=5) as opened:
        yield opened


def decoded(array) -> list:
    """A plotly JSON array (plotly 6+ encodes numeric arrays as base64 typed arrays)."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def cards_by_method(app: ReviewApp, dataset: str) -> dict[str, ModelCard]:
    return {card.method: card for card in app.cards[dataset]}


def test_every_change_is_saved_at_once_with_a_visible_indicator(store):
    app = ReviewApp(representatives(), store, judge="ann")
    assert app.dataset == "d1"
    card = app.cards["d1"][0]
    card.trust.value = 2
    assert store.entries()[["judge", "dataset", "method", "kind", "value"]].values.tolist() == [
        ["ann", "d1", card.method, "rank", 2.0]]
    assert "✓ saved" in card.saved.value
    assert "All changes saved" in app.saved_indicator.value
    card.comment.value = "Looks physically plausible"
    assert store.entries()["comment"].tolist() == ["Looks physically plausible"]
    assert store.history()["value"].tolist() == [2.0, 2.0]     # the comment change kept the value


def test_problems_are_shown_next_to_the_cards_and_nothing_is_lost(store):
    app = ReviewApp(representatives(), store, judge="ann")
    first, second, third = app.cards["d1"]
    first.trust.value = 1
    second.trust.value = 1
    assert f"Rank 1 is also given to {second.label}" in first.problem.value
    assert f"Rank 1 is also given to {first.label}" in second.problem.value
    assert "No rank yet." in third.problem.value
    assert store.entries()["value"].tolist() == [1.0, 1.0]     # both kept while the judge fixes them
    assert "d1 2/3" in app.progress.value and "0 of 2 datasets reviewed" in app.progress.value
    second.trust.value = 3
    third.trust.value = 2
    assert [card.problem.value for card in app.cards["d1"]] == ["", "", ""]
    assert app.complete("d1") and not app.complete("d2")
    assert "d1 ✓" in app.progress.value and "1 of 2 datasets reviewed" in app.progress.value


def test_a_new_session_comes_back_where_the_judge_left_off(store):
    app = ReviewApp(representatives(), store, judge="ann")
    for card, rank in zip(app.cards["d1"], (3, 1, 2)):
        card.trust.value = rank
    app.cards["d1"][1].comment.value = "simplest"
    app.dataset_picker.value = "d2"
    app.cards["d2"][0].trust.value = 1
    again = ReviewApp(representatives(), store, judge="ann")
    assert again.dataset == "d2"                       # where ann was
    assert [c.trust.value for c in again.cards["d2"]] == [1, 0, 0]
    again.dataset_picker.value = "d1"
    assert [c.trust.value for c in again.cards["d1"]] == [3, 1, 2]
    assert again.cards["d1"][1].comment.value == "simplest"
    assert [c.label for c in again.cards["d1"]] == [c.label for c in app.cards["d1"]]
    assert [c.method for c in again.cards["d1"]] == [c.method for c in app.cards["d1"]]


def test_another_judge_sees_another_blinded_order(store):
    ann = ReviewApp(representatives(), store, judge="ann")
    bob = ReviewApp(representatives(), store, judge="bob")
    assert [c.label for c in bob.cards["d1"]] == ["Model A", "Model B", "Model C"]
    # seed 5 of the store: ann and bob get different permutations of the three methods
    assert [c.method for c in ann.cards["d1"]] != [c.method for c in bob.cards["d1"]]
    ann.cards["d1"][0].trust.value = 1
    assert bob.cards["d1"][0].trust.value == 0        # bob's entries are his own


def test_model_strings_names_and_comments_are_shown_as_text(store):
    app = ReviewApp(representatives(), store, judge="ann", organiser=True)
    card = cards_by_method(app, "d1")["<b>evil</b>"]
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in card.raw.value
    assert "<script" not in card.raw.value and "<img" not in card.raw.value
    assert "<script" not in card.formula.value and "cannot be shown as a formula" in card.formula.value
    assert card.raw.layout.display == "none"
    card.raw_toggle.value = True                        # the raw string on demand
    assert card.raw.layout.display == "block"
    app.confirm_reveal.value = "REVEAL"
    app.unblind()
    assert "&lt;b&gt;evil&lt;/b&gt;" in card.title.value and "<b>evil</b>" not in card.title.value
    assert "&lt;b&gt;evil&lt;/b&gt;" in app.leaderboard.value and "<b>evil</b>" not in app.leaderboard.value


def test_formula_is_rendered_as_latex_from_the_simplified_model(store):
    card = cards_by_method(ReviewApp(representatives(), store, judge="ann"), "d1")["scaled"]
    # "ŷ = 3.0 x_{1}" is one line on a desk and on a phone: typeset once, for both (the review's CSS shows it on both)
    assert card.formula.value == "<div class='srdash-math-both'>$$\\hat{y} = 3.0 x_{1}$$</div>"
    assert "x_{1}" in card.formula.value or "x1" in card.formula.value
    assert "0.755" in card.metrics.value and "3 components" in card.metrics.value
    assert "How much of the variation in the test data" in card.metrics.value
    assert "the run whose accuracy is the median of the method's 5 runs" in card.metrics.value
    evil = cards_by_method(ReviewApp(representatives(), store, judge="bo"), "d1")["<b>evil</b>"]
    assert "not available: the model could not be read, so it counts as the least simple" in evil.metrics.value


def test_ratings_allow_ties_and_become_ranks(store):
    app = ReviewApp(representatives(), store, judge="ann", settings=ReviewSettings(trust_input="rating"))
    labels = [label for label, _ in app.cards["d1"][0].trust.options]
    assert labels == ["— choose a rating —", "1 (least trust)", "2", "3", "4", "5 (most trust)"]
    for card, rating in zip(app.cards["d1"], (4, 4, 1)):
        card.trust.value = rating
    assert app.complete("d1")
    table = trust_summary(store.entries(), representatives(), settings=app.settings).table
    got = dict(zip(table.loc[table["dataset"] == "d1", "method"], table.loc[table["dataset"] == "d1", "trust"]))
    methods = [c.method for c in app.cards["d1"]]
    assert got == {methods[0]: 1.5, methods[1]: 1.5, methods[2]: 3.0}


def test_organiser_unblinds_and_sees_the_leaderboard(store):
    app = ReviewApp(representatives(), store, judge="org", organiser=True)
    assert "appears here once the methods are revealed" in app.leaderboard.value
    assert app.reveal_button.disabled
    for dataset in ("d1", "d2"):
        app.dataset_picker.value = dataset
        by_method = cards_by_method(app, dataset)
        for method, rank in (("plain", 1), ("scaled", 2), ("<b>evil</b>", 3)):
            by_method[method].trust.value = rank
    assert app.completeness_table(store.entries()).loc["org"].tolist() == ["done", "done"]
    assert "Every judge has completed every dataset" in app.reveal_help.value
    app.confirm_reveal.value = "reveal"                  # the confirmation is typed exactly
    assert app.reveal_button.disabled
    app.confirm_reveal.value = "REVEAL"
    assert not app.reveal_button.disabled
    app.reveal_button.click()
    assert store.closed is not None and app.revealed
    assert all(card.trust.disabled for card in app.cards["d1"])
    assert app.reveal_button.description == "Methods revealed (review closed)" and app.reveal_button.disabled
    assert "✓ Methods revealed" in app.reveal_help.value and app.reopen_button.layout.display is None
    assert "— plain" in cards_by_method(app, "d1")["plain"].title.value
    board = app.leaderboard.value
    assert "srdash-leaderboard" in board and "Expert trust" in board
    # Both datasets identical: accuracy evil 3 plain 2 scaled 1; simplicity plain/scaled 2.5, evil 1;
    # trust plain 3, scaled 2, evil 1 -> plain hmean(2, 2.5, 3) = 2.432, scaled (1, 2.5, 2) = 1.579,
    # evil (3, 1, 1) = 1.286: plain first
    assert board.index(">plain<") < board.index(">scaled<") < board.index("&lt;b&gt;evil&lt;/b&gt;")
    later = ReviewApp(representatives(), store, judge="ann")
    assert later.revealed and "review was closed by org" in later.progress.value


def test_a_change_that_cannot_be_saved_says_so(store):
    app = ReviewApp(representatives(), store, judge="ann")
    store.unblind(by="org")                              # closed behind the app's back
    card = app.cards["d1"][0]
    card.trust.value = 1
    assert "✗ not saved: The review was closed" in card.saved.value
    assert "1 change(s) NOT saved" in app.saved_indicator.value
    app.cards["d1"][1].trust.value = 2                   # a later change fails too: still not "all saved"
    assert "2 change(s) NOT saved" in app.saved_indicator.value
    assert "Error while saving" in app.log_panel.text()
    assert store.entries().empty


def test_figures_need_test_data(tmp_path, store):
    data = tmp_path / "data"
    data.mkdir()
    (data / "d1_test.csv").write_text("date,x1,y\n2021-01-01,1,3\n2021-01-02,2,4\n2021-01-03,4,6.5\n")
    app = ReviewApp(representatives(), store, judge="ann", data_dir=data)
    plain = cards_by_method(app, "d1")["plain"]
    titles = [panel.outputs[0]["data"]["text/plain"] for panel in plain.figures.children]
    assert titles == ["<plotly figure: Predicted vs actual (test data)>", "<plotly figure: Over time (test data): actual and predicted>"]
    figure = plain.figures.children[0].outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert decoded(figure["data"][0]["y"]) == [3.0, 4.0, 6.0]          # x1 + 2 on the test rows
    hostile = cards_by_method(app, "d1")["<b>evil</b>"]
    assert "No predictions" in hostile.figures.children[-1].value
    app.dataset_picker.value = "d2"
    assert "No test data file for d2" in app.cards["d2"][0].figures.children[-1].value


def test_judge_is_required(store):
    with pytest.raises(Exception, match=r"The review needs the judge's name \(--judge NAME\). Got ' '."):
        ReviewApp(representatives(), store, judge=" ")


def test_page_reports_configuration_errors():
    page = ReviewPage(review_env(input="x.csv"), background=False)
    assert page.app is None
    assert "Error while preparing the review: No judge's name: start the review with `srdash review " \
           "--judge NAME`" in page.log_panel.text()
    assert "The review cannot start" in page.progress.label.value
    page = ReviewPage(review_env(judge="ann", rules="nope"), background=False)
    assert "No rules preset or file called 'nope'" in page.log_panel.text()
    page = ReviewPage(review_env(judge="ann", jobs="many"), background=False)
    assert "The review's 'jobs' must be a positive integer (worker processes). Got 'many'." in page.log_panel.text()


def test_page_prepares_the_app_from_a_results_file_in_the_background(tmp_path, monkeypatch):
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))
    results = tmp_path / "results.csv"
    pd.DataFrame({
        "method": ["a", "a", "a", "b", "b", "b"], "dataset": "d1", "run": [0, 1, 2, 0, 1, 2],
        "model": ["x1 + 1", "x1 + 2", "x1*x1", "2*x1", "3*x1", "4*x1"],
        "r2_test": [0.5, 0.7, 0.9, 0.6, 0.8, 0.4],
    }).to_csv(results, index=False)
    TrustStore(tmp_path / "t.sqlite").close()            # an explicit store must exist (srdash trust init)
    page = ReviewPage(review_env(input=str(results), judge="ann", store=str(tmp_path / "t.sqlite"),
                       organiser=True), served=True)
    # The review is made apart from the page and attached once a browser has displayed it (widgets changed
    # while Voilà's page loads can be lost): prepared, not yet on the page before the beacon's message.
    assert page.wait(120) and page.app is None and page.page_ready in page.children
    page.page_ready._on_message(page.page_ready, {"event": "displayed"}, [])   # what the browser sends
    app = page.app
    assert isinstance(app, ReviewApp), page.log_panel.text()
    assert page.children == (app, page.page_ready) and app.organiser   # the beacon stays (see BackgroundWork.build)
    reps = app.representatives.set_index("method")
    assert reps.loc["a", "run"] == 1 and reps.loc["b", "run"] == 0     # the median runs
    assert reps.loc["a", "n_runs"] == 3 and (reps["status"] == "ok").all()
    assert reps.loc["b", "simplified"] and reps.loc["a", "components"] > 0
    app.cards["d1"][0].trust.value = 1
    assert len(app.store.entries()) == 1
    app.store.close()


def test_demo_review_uses_three_demo_datasets_with_their_test_data(tmp_path):
    results, folder = demo_results({"SRDASH_CACHE_DIR": str(tmp_path)})
    assert sorted(results.table["dataset"].unique()) == sorted(DEMO_DATASETS)
    assert folder == demo_folder(cache_dir=tmp_path)   # the dashboard's demo files, shared
    assert all(find_test_file(folder, dataset) is not None for dataset in DEMO_DATASETS)


@pytest.mark.realdata
def test_2022_covid_task_shows_predictions_over_time(store):
    if not STAGE2.is_dir():
        pytest.skip(f"the SRBench 2022 real-world data is not available at {STAGE2}")
    # A hand-written model on the real 'cases' task: the cases 14 days ago plus their change.
    reps = pd.DataFrame({"method": ["persistence"], "dataset": ["cases"], "run": [0],
                         "model": ["value_cases_14 + value_cases_Delta_14"],
                         "simplified": ["value_cases_14 + value_cases_Delta_14"], "r2_test": [0.5],
                         "simplicity": [-1.1], "components": [3.0], "status": ["ok"], "reason": [""],
                         "features_used": ["value_cases_14 value_cases_Delta_14"], "n_runs": [1]})
    card = ReviewApp(reps, store, judge="ann", data_dir=STAGE2).cards["cases"][0]
    titles = [panel.outputs[0]["data"]["text/plain"] for panel in card.figures.children]
    assert titles == ["<plotly figure: Predicted vs actual (test data)>", "<plotly figure: Over time (test data): actual and predicted>"]
    timeline = card.figures.children[1].outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert timeline["layout"]["yaxis"]["title"]["text"] == "value_cases"     # the target is the last column
    assert len(decoded(timeline["data"][1]["y"])) == 245                      # the 245 test rows
    assert "value_cases_14, value_cases_Delta_14" in card.metrics.value


# --------------------------------------------------------------------------- the CLI


def test_cli_review_prints_the_store_and_the_voila_command(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    results = tmp_path / "results.csv"
    pd.DataFrame({"method": ["a", "b"], "dataset": "d1", "model": ["x1", "2*x1"],
                  "r2_test": [0.5, 0.6]}).to_csv(results, index=False)
    store = tmp_path / "trust.sqlite"
    TrustStore(store).close()
    result = CliRunner().invoke(main, ["review", str(results), "--judge", "ann", "--store", str(store),
                                       "--data", str(tmp_path), "--organiser", "--port", "8999",
                                       "--print-command"])
    assert result.exit_code == 0, result.output
    assert f"Trust store: {store.resolve()} (0 entries)" in result.output
    line = next(line for line in result.output.splitlines() if line.startswith("SRDASH_REVIEW="))
    options = json.loads(line[len("SRDASH_REVIEW="):])  # the review's options: one JSON object
    assert options["judge"] == "ann" and options["organiser"] is True
    assert options["data_dir"] == str(tmp_path.resolve())
    assert "review.ipynb --no-browser --port=8999 --Voila.ip=127.0.0.1" in result.output
    assert "preheat" not in result.output        # a preheated kernel would show stale entries


def test_cli_review_refuses_other_addresses_without_a_token_and_bad_rules(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    result = CliRunner().invoke(main, ["review", "--judge", "ann", "--ip", "0.0.0.0"], env={"SRDASH_TOKEN": ""})
    assert result.exit_code == 2
    assert "Serving on 0.0.0.0 lets other machines open the review: give a secret with --token SECRET" \
        in result.output
    result = CliRunner().invoke(main, ["review", "--judge", "ann", "--rules", "nope"])
    assert result.exit_code == 2 and "No rules preset or file called 'nope'" in result.output
    results = tmp_path / "results.csv"
    pd.DataFrame({"method": ["a", "b"], "dataset": "d1", "model": ["x1", "2*x1"],
                  "r2_test": [0.5, 0.6]}).to_csv(results, index=False)
    result = CliRunner().invoke(main, ["review", str(results), "--store", str(tmp_path / "t.sqlite")])
    assert result.exit_code == 1 and "There is no trust store at" in result.output
    assert not (tmp_path / "t.sqlite").exists()           # a mistyped path never becomes a new store
    result = CliRunner().invoke(main, ["trust", "init", "--store", str(tmp_path / "t.sqlite")])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["review", str(results), "--store", str(tmp_path / "t.sqlite")])
    assert result.exit_code == 2 and "Missing option '--judge'" in result.output
    # without INPUT: the demo competition's real-world track, whose [realworld] table names its own store
    result = CliRunner().invoke(main, ["review", "--store", str(tmp_path / "t.sqlite")])
    assert result.exit_code == 2 and "its [realworld] table already says what --store would" in result.output


def test_cli_review_without_input_reviews_the_demo_competitions_real_world_track(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    result = CliRunner().invoke(main, ["review", "--judge", "ann", "--print-command"],
                                env={"SRDASH_CACHE_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    # the six qualified methods (MeanBaseline did not qualify) on the track's three datasets, its own store
    assert ("6 methods under review (BloatGP, ExactSR, GreedyGP, LassoSR, LinearRegression, PolyRidge) on 3 "
            "datasets") in result.output
    assert "trust.sqlite (18 entries)" in result.output      # the demo expert's ranks


# --------------------------------------------------------------------------- organiser and roles


def _widget_texts(widget, seen=None) -> list[str]:
    """Every text a widget tree sends to the browser (its traits synced with the front end)."""
    import ipywidgets as widgets

    seen = set() if seen is None else seen
    if id(widget) in seen:
        return []
    seen.add(id(widget))
    texts = []
    for name in widget.keys:
        value = getattr(widget, name, None)
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, widgets.Widget):
                    texts += _widget_texts(item, seen)
                else:
                    texts.append(repr(item))
        elif isinstance(value, widgets.Widget):
            texts += _widget_texts(value, seen)
    return texts


def test_organiser_panel_shows_two_judges_completeness_and_what_is_incomplete_first(store):
    ann = ReviewApp(representatives(), store, judge="ann")
    for dataset in ("d1", "d2"):
        ann.dataset_picker.value = dataset
        for card, rank in zip(ann.cards[dataset], (1, 2, 3)):
            card.trust.value = rank
    bob = ReviewApp(representatives(), store, judge="bob")
    bob.cards["d1"][0].trust.value = 1
    org = ReviewApp(representatives(), store, judge="org", organiser=True)
    table = org.completeness_table(store.entries())
    assert table.to_dict("index") == {"ann": {"d1": "done", "d2": "done"}, "bob": {"d1": "1/3", "d2": "0/3"}}
    assert "✓ done" in org.completeness.value and "1/3" in org.completeness.value
    # before anything can be revealed, the panel says what is incomplete
    assert "The review is not complete" in org.reveal_help.value
    assert "bob: d1 (1/3)" in org.reveal_help.value and "bob: d2 (0/3)" in org.reveal_help.value
    # without the typed confirmation, nothing is revealed even if the button is pressed
    assert org.reveal_button.disabled
    org.unblind()
    assert store.closed is None and not org.revealed
    assert "Type REVEAL in the box to confirm" in org.log_panel.text()


def test_the_organisers_panel_shows_krippendorffs_alpha_and_once_revealed_the_jury_model(store):
    import krippendorff

    # ann and bob rank the three models of both datasets; bob swaps the first two on d2
    orders = {("ann", "d1"): ("plain", "scaled", "<b>evil</b>"), ("bob", "d1"): ("plain", "scaled", "<b>evil</b>"),
              ("ann", "d2"): ("plain", "scaled", "<b>evil</b>"), ("bob", "d2"): ("scaled", "plain", "<b>evil</b>")}
    for (judge, dataset), order in orders.items():
        for rank, method in enumerate(order, start=1):
            store.record(judge, dataset, method, kind="rank", value=float(rank))
    org = ReviewApp(representatives(), store, judge="org", organiser=True)
    status = org.organiser_status.value
    # d1: the judges agree (alpha 1); d2: the package's ordinal alpha of [[1, 2, 3], [2, 1, 3]]
    d2 = krippendorff.alpha(reliability_data=[[1, 2, 3], [2, 1, 3]], level_of_measurement="ordinal")
    assert "Krippendorff's α" in status and "d1: 1.00" in status and f"d2: {d2:.2f}" in status
    assert "plain" not in status and "scaled" not in status        # the methods stay blinded
    org.confirm_reveal.value = "REVEAL"
    org.unblind()
    board = org.leaderboard.value
    assert "Jury model (a second opinion)" in board and "Plackett-Luce" in board
    assert "srdash-jury-consensus" in board and "with each judge left out" in board
    assert "&lt;b&gt;evil&lt;/b&gt;" in board and "<b>evil</b>" not in board


def test_a_judges_app_cannot_reveal_or_reopen(store):
    ann = ReviewApp(representatives(), store, judge="ann")
    ann.unblind()
    ann.reopen()
    assert store.closed is None and store.events().empty
    assert "Only the organiser can reveal the methods." in ann.log_panel.text()
    assert "Only the organiser can reopen the review." in ann.log_panel.text()


def test_reveal_then_reopen_is_recorded_in_the_history(store):
    org = ReviewApp(representatives(), store, judge="org", organiser=True)
    org.confirm_reveal.value = "REVEAL"
    org.reveal_button.click()
    assert store.closed is not None and all(card.trust.disabled for card in org.cards["d1"])
    org.reopen_button.click()
    assert store.closed is None and not any(card.trust.disabled for card in org.cards["d1"])
    assert org.reveal_button.description == "Reveal the methods and close the review"
    assert org.reveal_button.disabled                     # the confirmation must be typed again
    events = store.events()
    assert events["action"].tolist() == ["unblind", "reopen"]
    assert "review reopened (it was closed on" in events["detail"].iloc[1]
    org.cards["d1"][0].trust.value = 1                    # entries can change again
    assert store.entries()["value"].tolist() == [1.0]


def test_with_access_keys_the_key_says_who_the_visitor_is(tmp_path):
    from srdash.apps.review import access_key_from_query, review_inputs_from_environment
    from srdash.errors import SrdashError

    path = tmp_path / "trust.sqlite"
    with TrustStore(path, seed=987654321) as store:
        ann_key = store.issue_key("ann")
        org_key = store.issue_key("carla", role="organiser")
        seed = store.seed
        store.record("bob", "exact_formula_medium", "x", kind="rank", value=1, comment="bob's secret note")
    results = tmp_path / "results.csv"
    pd.DataFrame({"method": ["a", "b"], "dataset": "d1", "model": ["x1", "2*x1"],
                  "r2_test": [0.5, 0.6]}).to_csv(results, index=False)
    # the environment claims to be the organiser: with keys issued, it is ignored
    environ = review_env(store=str(path), input=str(results), judge="mallory",
               organiser=True)
    with pytest.raises(SrdashError, match=r"This review needs your personal link \(with \?key=\.\.\.\)"):
        review_inputs_from_environment(environ)
    with pytest.raises(SrdashError, match=r"This access key is not valid"):
        review_inputs_from_environment(environ, access_key="guess")
    inputs = review_inputs_from_environment(environ, access_key=access_key_from_query(f"key={ann_key}"))
    assert (inputs["judge"], inputs["organiser"]) == ("ann", False)
    app = ReviewApp(**inputs)
    assert not hasattr(app, "confirm_reveal")             # no organiser's panel for a judge
    texts = "\n".join(_widget_texts(app))
    assert str(seed) not in texts                         # the blinding seed never reaches the browser
    assert "bob's secret note" not in texts and "mallory" not in texts
    inputs["store"].close()
    inputs = review_inputs_from_environment(environ, access_key=org_key)
    assert (inputs["judge"], inputs["organiser"]) == ("carla", True)
    inputs["store"].close()


def test_a_mistyped_store_path_is_an_error_not_a_new_store(tmp_path):
    from srdash.apps.review import review_inputs_from_environment
    from srdash.errors import SrdashError

    with pytest.raises(SrdashError, match=r"There is no trust store at '.*typo\.sqlite' \(no such file\)"):
        review_inputs_from_environment(review_env(store=str(tmp_path / "typo.sqlite"), judge="ann"))
    assert not (tmp_path / "typo.sqlite").exists()


# --------------------------------------------------------------------------- the comparison view


def test_comparison_view_orders_the_models_and_stays_in_step_with_the_cards(store):
    app = ReviewApp(representatives(), store, judge="ann")
    view = app.comparisons["d1"]
    assert view in app.cards_box.children and app.cards_box.children.index(view) < app.cards_box.children.index(
        app.cards["d1"][0])                               # the overview comes before the cards
    first, second, third = app.cards["d1"]
    assert [label for label, _ in first.rank_buttons.options] == ["1", "2", "3"]
    first.rank_buttons.value = 2                          # a button in the overview ...
    assert first.trust.value == 2                          # ... is the card's entry, saved at once
    assert store.entries()[["method", "value"]].values.tolist() == [[first.method, 2.0]]
    third.trust.value = 1                                  # and the card's box moves the button
    assert third.rank_buttons.value == 1
    assert "Your order:</b> 1 Model C · 2 Model A" in view.order.value
    assert "still to rank: Model B" in view.order.value
    assert "Still to do: d1 (1 model without a rank); d2 (3 models without a rank)." in app.progress.value
    second.rank_buttons.value = 3
    assert "every model has a value" in view.order.value and "d1 ✓" in app.progress.value
    # what the overview shows of each model: escaped formula text, accuracy and simplicity
    summaries = " ".join(child.children[0].value for child in view.children[1:-1])
    assert "ŷ = x1 + 2" in summaries and "0.812" in summaries and "3 components" in summaries
    assert "<script" not in summaries and "&lt;script&gt;" in summaries


def test_features_in_natural_order_and_long_formulas_wrap(store):
    reps = representatives()
    long_model = " + ".join(f"{i}*x{i}" for i in range(1, 60))
    reps.loc[0, ["simplified", "model", "components", "features_used"]] = [long_model, long_model, 235.0,
                                                                           "x10 x2 x1"]
    card = cards_by_method(ReviewApp(reps, store, judge="ann"), "d1")["plain"]
    assert "x1, x2, x10" in card.metrics.value and "235 components" in card.metrics.value
    assert "srdash-formula-text" in card.formula.value and "59*x59" in card.formula.value
    assert card.typeset.layout.display == "none"
    assert card.typeset.value == ""                       # typeset (by the browser's MathJax) only once shown
    card.formula_toggle.value = True
    assert card.typeset.layout.display == "block"
    # typeset twice (a desk's lines, a phone's lines: the review's CSS shows one), each "ŷ = ..." in display math
    assert card.typeset.value.count("$$\\begin{aligned}\\hat{y} = ") == 2
    shown = card.typeset.value
    card.formula_toggle.value = False                     # hidden again and shown again: the same formula
    card.formula_toggle.value = True
    assert card.typeset.value == shown and card.typeset.layout.display == "block"
    # typeset in aligned lines: 59 terms do not fit one line of a desk's card, nor of a phone's
    narrow = card.typeset.value.split("srdash-math-narrow")[1]
    assert narrow.count("\\begin{aligned}\\hat{y} = ") == 1 and narrow.count("\\\\ &amp;") >= 59 * 6 // 26
    assert all(f"{i} x_{{{i}}}" in narrow for i in range(2, 60))


def test_thumbnail_scales_both_axes_alike_and_clips_wild_predictions():
    from srdash.figures.review import predicted_vs_actual_thumbnail

    svg = predicted_vs_actual_thumbnail([0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 300.0], size=100)
    # the axes share one range: actual 0..3 and predictions up to 300, capped at twice the actual
    # span beyond the actual values: 0..9 (pad 4, 92 px). (0, 0) is at (4, 96); (1, 1) at
    # 4 + 92/9 = 14.2 and 100 - 14.2 = 85.8; 300 at the top edge clipped to 1.02: 100 - (1.02 * 92 + 4) = 2.2
    # each dot is a zero-length segment "M x y h0" drawn with round caps, one path per dot here (4 < 8 paths)
    assert "M4.0 96.0h0" in svg and "M14.2 85.8h0" in svg and "M34.7 2.2h0" in svg
    assert svg.count("h0") == 4 and svg.count("<path") == 4 and "stroke-linecap='round'" in svg


def test_a_thumbnail_of_many_points_is_a_few_paths_holding_every_dot():
    from srdash.figures.review import predicted_vs_actual_thumbnail

    values = [float(i) for i in range(1000)]
    svg = predicted_vs_actual_thumbnail(values, values, size=96, max_points=400)
    # 400 of 1000 rows kept, dealt into 8 paths of 50 dots; the first and last rows are kept: (0, 0) at the
    # bottom left (4, 92) and 999 at the top right (92, 4) of the 96 px frame (pad 4)
    assert svg.count("<path") == 8 and svg.count("h0") == 400 and "<circle" not in svg
    assert "M4.0 92.0h0" in svg and "M92.0 4.0h0" in svg


# --------------------------------------------------------------------------- a jury with a rubric


def test_a_jury_scores_on_the_rubric_and_the_organiser_sees_both_scores_and_the_flags(store):
    rules = "srbench2023-track2"
    ann = ReviewApp(representatives(), store, judge="ann", rules=rules)
    card = ann.cards["d1"][0]
    assert card.trust.layout.display == "none" and list(card.criterion_buttons) == [
        "pipeline", "interpretability", "analysis", "insight"]
    assert [label for label, _ in card.criterion_buttons["insight"].options] == ["1", "2", "3", "4", "5"]
    assert "Score each model on the 4 criteria of the rubric, from 1 (lowest) to 5 (highest)" in \
        ann.dataset_info.value
    # ann: every criterion 5 on her first model, 1 on the others; bob the reverse on that model
    for i, each in enumerate(ann.cards["d1"]):
        for buttons in each.criterion_buttons.values():
            buttons.value = 5 if i == 0 else 1
    assert "Your scores, best first:</b> Model A 5.00 · Model B 1.00 · Model C 1.00" in \
        ann.comparisons["d1"].order.value
    assert "d1 ✓" in ann.progress.value and "d2 (3 models without all its scores)" in ann.progress.value
    target = card.method
    bob = ReviewApp(representatives(), store, judge="bob", rules=rules)
    for each in bob.cards["d1"]:
        for buttons in each.criterion_buttons.values():
            buttons.value = 1 if each.method == target else 3
    assert len(store.jury_scores()) == 24                  # 2 jurors x 3 models x 4 criteria
    again = ReviewApp(representatives(), store, judge="ann", rules=rules)     # reopened: her scores are back
    assert again.cards["d1"][0].criterion_buttons["insight"].value == 5
    org = ReviewApp(representatives(), store, judge="org", rules=rules, organiser=True)
    assert org.completeness_table(store.jury_scores()).to_dict("index") == {
        "ann": {"d1": "done", "d2": "0/3"}, "bob": {"d1": "done", "d2": "0/3"}}
    # the target model: ann 5, bob 1 -> spread 4 > 2: flagged (by its blinded name before the reveal)
    assert "Flags: the jurors' scores differ by more than 2" in org.organiser_status.value
    # each juror's own letter beside their name (srdash.apps.review.letters), the method still hidden
    ann_letter, bob_letter = (again.store.blinded_labels(j, "d1", [c.method for c in ann.cards["d1"]])[target]
                              for j in ("ann", "bob"))
    assert f"d1: ann's {ann_letter}, score 5; bob's {bob_letter}, score 1" in org.organiser_status.value
    assert _escaped(target) not in org.organiser_status.value
    assert "Krippendorff's α" in org.organiser_status.value
    org.confirm_reveal.value = "REVEAL"
    org.unblind()
    board = org.leaderboard.value
    assert "ranked by the mean score" in board and "mean z-score" in board and "⚑" in board
    assert "Jury model (a second opinion)" in board and "srdash-jury-judges" in board
    org_card = org.cards["d1"][0]
    assert all(b.disabled for b in org_card.criterion_buttons.values())


def _escaped(text: str) -> str:
    import html

    return html.escape(text)


def test_the_organiser_sees_each_jurors_calibration_offset(store, tmp_path):
    from srdash.judging.rules import load_rules

    text = load_rules("srbench2023-track2").text
    rules = tmp_path / "calibrated.toml"
    rules.write_text(text + "\n[rubric.calibration]\nmethod = \"scaled\"\n")
    for judge, value in (("ann", 2), ("bob", 4)):
        app = ReviewApp(representatives(), store, judge=judge, rules=rules)
        for buttons in cards_by_method(app, "d1")["scaled"].criterion_buttons.values():
            buttons.value = value
    org = ReviewApp(representatives(), store, judge="org", rules=rules, organiser=True)
    # the jury's mean of the calibration entry is 3: ann -1 (severe), bob +1 (lenient)
    assert "ann on d1 -1.00, bob on d1 +1.00" in org.organiser_status.value


def test_after_the_reveal_nothing_says_entries_can_still_change(store):
    ann = ReviewApp(representatives(), store, judge="ann")
    for dataset in ("d1", "d2"):
        ann.dataset_picker.value = dataset
        for card, rank in zip(ann.cards[dataset], (1, 2, 3)):
            card.trust.value = rank
    assert "You can still change any entry" in ann.progress.value
    org = ReviewApp(representatives(), store, judge="org", organiser=True)
    org.confirm_reveal.value = "REVEAL"
    org.reveal_button.click()
    later = ReviewApp(representatives(), store, judge="ann")
    assert "entries are read-only" in later.progress.value
    assert "still change" not in later.progress.value and "Still to do" not in later.progress.value
    bob = ReviewApp(representatives(), store, judge="bob")          # closed before bob finished
    assert "0 of 2 datasets reviewed" in bob.progress.value and "Still to do" not in bob.progress.value


def test_a_repeated_rank_is_named_in_the_overview_line(store):
    app = ReviewApp(representatives(), store, judge="ann")
    first, second, third = app.cards["d1"]
    first.trust.value, second.trust.value, third.trust.value = 1, 1, 3
    order = app.comparisons["d1"].order.value
    assert "every model has a value" not in order
    assert f"rank 1 is given to {first.label} and {second.label} (each rank once)" in order
    second.trust.value = 2
    assert "every model has a value" in app.comparisons["d1"].order.value


def test_the_organisers_page_puts_the_judges_progress_before_their_own(store):
    org = ReviewApp(representatives(), store, judge="org", organiser=True)
    assert org.children.index(org.organiser_panel) < org.children.index(org.progress)
    assert "datasets reviewed" not in org.progress.value           # the organiser has entered nothing
    assert "no entry as a judge yourself" in org.progress.value
    org.cards["d1"][0].trust.value = 1
    assert "Your own entries as a judge</b> (org)" in org.progress.value


def test_after_the_reveal_the_overview_names_the_methods_like_the_cards(store):
    org = ReviewApp(representatives(), store, judge="org", organiser=True)
    view = org.comparisons["d1"]
    summaries = lambda: " ".join(child.children[0].value for child in view.children[1:-1])  # noqa: E731
    assert "plain" not in summaries() and "srdash-revealed-name" not in summaries()
    org.cards["d1"][0].trust.value = 1
    org.confirm_reveal.value = "REVEAL"
    org.reveal_button.click()
    assert ">plain<" in summaries() and ">scaled<" in summaries() and "&lt;b&gt;evil&lt;/b&gt;" in summaries()
    assert f"1 {org.cards['d1'][0].label} ({org.cards['d1'][0].method})".replace("<", "&lt;").replace(
        ">", "&gt;") in view.order.value
    org.dataset_picker.value = "d2"                                 # built after the reveal: named too
    assert ">plain<" in " ".join(c.children[0].value for c in org.comparisons["d2"].children[1:-1])


# --------------------------------------------------------------------------- which verdict the organiser reads


def _competition_under_review(folder: Path) -> Path:
    """Three methods with model strings and sizes on two datasets, reviewed for the real-world track."""
    rows = [{"method": method, "dataset": dataset, "run": run, "model": f"x1 + {m}",
             "r2_test": 0.9 - 0.1 * m + 0.01 * d + 0.001 * run, "components": 3 + 2 * m + d, "property": 1.0}
            for d, dataset in enumerate(["d1", "d2"]) for m, method in enumerate(["a", "b", "c"]) for run in range(2)]
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    (folder / "competition.toml").write_text(
        'title = "Reviewed"\nresults = "results.csv"\n[realworld]\nstore = "trust.sqlite"\n'
        '[simplification]\ncache = false\n')
    TrustStore(folder / "trust.sqlite", seed=1).close()   # an empty store, as `srdash trust init` makes it
    return folder / "competition.toml"


def test_after_the_reveal_the_organiser_reads_the_fingerprint_srdash_score_prints(tmp_path):
    """Issue 37, item 5: the organiser's panel showed a 'review fingerprint' no other door printed."""
    import re

    from click.testing import CliRunner

    from srdash.apps.review import review_inputs_from_environment
    from srdash.cli import main
    from srdash.judging.competition import load_competition

    competition_file = _competition_under_review(tmp_path)
    options = {"competition": load_competition(competition_file).to_json(), "judge": "org", "organiser": "1",
               "store": str(tmp_path / "trust.sqlite")}
    app = ReviewApp(**review_inputs_from_environment({"SRDASH_REVIEW": json.dumps(options)}))
    try:
        for dataset in ("d1", "d2"):
            app.dataset_picker.value = dataset
            for rank, method in enumerate(["b", "a", "c"], start=1):
                cards_by_method(app, dataset)[method].trust.value = rank
        app.confirm_reveal.value = "REVEAL"
        app.reveal_button.click()
        assert app.competition_fingerprint.wait(120)
        board = app.leaderboard.value
    finally:
        app.store.close()
    score = CliRunner().invoke(main, ["score", str(competition_file)])
    assert score.exit_code == 0, score.output
    printed = re.search(r"Verdict fingerprint: ([0-9a-f]{12})", score.output).group(1)
    shown = re.findall(r"Verdict fingerprint: <code class='srdash-fingerprint-value'>([0-9a-f]{12})</code>", board)
    assert shown == [printed]
    assert "(the competition's: the same in <code>srdash score</code> and the report)" in board
    assert "Entries hash" not in board and "computing" not in board and app.log_panel.text() == ""


def test_a_review_of_loose_results_names_its_hash_the_entries_hash(store):
    app = ReviewApp(representatives(), store, judge="org", organiser=True)
    for dataset in ("d1", "d2"):
        app.dataset_picker.value = dataset
        for rank, method in enumerate(["plain", "scaled", "<b>evil</b>"], start=1):
            cards_by_method(app, dataset)[method].trust.value = rank
    app.confirm_reveal.value = "REVEAL"
    app.reveal_button.click()
    board = app.leaderboard.value
    assert "Verdict fingerprint" not in board and "srdash-fingerprint-value" not in board
    assert re.search(r"Entries hash: <code class='srdash-entries-hash-value'>[0-9a-f]{12}</code> \(of this "
                     r"leaderboard and the judges' entries", board)


def test_a_served_page_of_a_kept_competition_is_built_at_once_else_in_the_background(tmp_path, monkeypatch):
    from srdash.cli.review import review_environment
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import prepare_competition

    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "results.csv").write_text("method,dataset,run,model,r2_test,property\n"
                                          "a,d1,0,x1 + 1,0.9,1\nb,d1,0,2*x1,0.8,1\n")
    (tmp_path / "competition.toml").write_text('results = "results.csv"\nrules = "srbench2022"\n\n'
                                               '[realworld]\nstore = "trust.sqlite"\n')
    with TrustStore(tmp_path / "trust.sqlite", seed=0) as store:
        key = store.issue_key("ann")
    competition = load_competition(tmp_path / "competition.toml")
    env = review_environment(judge="ann", store=tmp_path / "trust.sqlite", rules="srbench2022-realworld",
                             competition=competition, base={})
    # nothing kept yet: the page says it is preparing and builds the review once a browser has displayed it
    page = ReviewPage(env, access_key=key)
    assert page.app is None and page.page_ready in page.children
    assert page.wait(120) and page.app is None
    page.page_ready._on_message(page.page_ready, {"event": "displayed"}, [])   # what the browser sends
    assert isinstance(page.app, ReviewApp) and page.app.judge == "ann", page.log_panel.text()
    page.app.store.close()
    prepare_competition(competition)   # kept, as `srdash review` keeps it before serving
    # kept: built in the cell, before the constructor returns (no background work, no wait for the browser)
    page = ReviewPage(env, access_key=key)
    assert isinstance(page.app, ReviewApp) and not page.busy and page.children == (page.app, page.page_ready)
    assert [card.method for card in page.app.cards["d1"]] and page.app.judge == "ann"
    page.app.store.close()
    # a wrong key is refused at once too, in the page's log, and no review is built
    page = ReviewPage(env, access_key="not-a-key")
    assert page.app is None and not page.busy
    assert "Error while preparing the review" in page.log_panel.text()
    assert "The review cannot start" in page.progress.label.value


def test_a_served_page_whose_preparation_fails_says_why_once_displayed(tmp_path):
    # the error is kept for the build that runs after the page is displayed (it was lost: a NameError in the
    # kernel's log, and a page that said "Preparing" for ever)
    TrustStore(tmp_path / "t.sqlite").close()
    page = ReviewPage(review_env(input=str(tmp_path / "missing.csv"), judge="ann", store=str(tmp_path / "t.sqlite")))
    assert page.wait(120) and page.app is None and page.log_panel.text() == ""
    page.page_ready._on_message(page.page_ready, {"event": "displayed"}, [])   # what the browser sends
    assert "Error while preparing the review:" in page.log_panel.text()
    assert "missing.csv" in page.log_panel.text()
    assert "The review cannot start" in page.progress.label.value


def test_the_page_shares_its_layouts_and_a_toggle_shows_only_its_own_cards_formula(store):
    reps = representatives()
    long_model = " + ".join(f"{i}*x{i}" for i in range(1, 60))
    for i in (0, 1):   # "plain" and "scaled" on d1: two cards with a typeset toggle beside the raw one
        reps.loc[i, ["simplified", "model", "components"]] = [long_model, long_model, 235.0]
    app = ReviewApp(reps, store, judge="ann")
    models = widget_tree(app)   # every model the page gets: widgets, and the layouts and styles they name
    kinds = Counter("layout" if isinstance(m, widgets.Layout) else "style" if type(m).__name__.endswith("Style")
                    else "widget" for m in models)
    # Measured on this page before the layouts were shared: 222 models, 83 widgets + 83 layouts + 56 styles
    # (a layout and mostly a style each). Shared: the 10 layouts code changes (2 dataset boxes' display, 3 cards'
    # trust box hidden for a rubric, 3 raw and 2 typeset formulas toggled) stay their own; 14 more: 9 shared by
    # the app's, cards' and comparison's look-alikes, 5 the log panel's. Styles: one per style class (7), and
    # the log panel's HTML and button styles and the dataset picker's description style, their own (3).
    assert kinds["widget"] == 83, kinds                  # nothing a person sees is gone
    assert kinds["layout"] <= 24 and kinds["style"] <= 10 and len(models) <= 117, kinds
    layouts = [m for m in models if isinstance(m, widgets.Layout)]
    users = Counter(id(w.layout) for w in models if isinstance(w, widgets.DOMWidget))

    def displays() -> dict[str, str | None]:
        return {layout.model_id: layout.display for layout in layouts}

    def changed(before: dict, after: dict) -> set[str]:
        return {model_id for model_id in before if before[model_id] != after[model_id]}

    cards = cards_by_method(app, "d1")
    for card in cards.values():    # what the toggles change is each card's own
        assert all(users[id(w.layout)] == 1 for w in (card.raw, card.trust) + ((card.typeset,) if card.formula_toggle
                                                                              else ()))
    start = displays()
    cards["plain"].raw_toggle.value = True
    raw_shown = displays()
    assert changed(start, raw_shown) == {cards["plain"].raw.layout.model_id}
    assert raw_shown[cards["plain"].raw.layout.model_id] == "block" and cards["scaled"].raw.layout.display == "none"
    cards["scaled"].formula_toggle.value = True
    typeset_shown = displays()
    assert changed(raw_shown, typeset_shown) == {cards["scaled"].typeset.layout.model_id}
    assert cards["scaled"].typeset.layout.display == "block" and cards["plain"].typeset.layout.display == "none"
    assert "59 x_{59}" in cards["scaled"].typeset.value and cards["plain"].typeset.value == ""
    cards["plain"].raw_toggle.value = False
    assert changed(start, displays()) == {cards["scaled"].typeset.layout.model_id}
