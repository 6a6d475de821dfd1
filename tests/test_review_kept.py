"""The cards' LaTeX, test predictions and figures that ``srdash review`` keeps for every judge
(srdash.apps.review.kept) are the very values a judge's kernel would compute, and a kept value that was changed, or
kept for other data or another plotly, is not used."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from srdash.apps.review import ReviewApp
import srdash.apps.review.app as review_app
import srdash.apps.review.kept as review_kept
from srdash.apps.panels import FigurePanel
from srdash.apps.review.kept import (FIGURES_KIND, LATEX_KIND, PREDICTIONS_KIND, KeptCardValues, compute_figures,
                                     compute_latex, compute_predictions, figures_key, keep_card_values, latex_key,
                                     predictions_key)
from srdash.figures.review import over_time_figure, predicted_vs_actual_figure
from srdash.cache import ResultCache, file_digest
from srdash.judging.representative import load_test_data
from srdash.judging.trust import TrustStore

# x1 / 3 has no finite binary expansion: its predictions test that a float64 comes back bit for bit; the log of a
# negative value gives NaN; mallory's string is refused by the parser (no LaTeX, no predictions)
MODELS = {"third": "x1/3 + 0.1", "log": "log(x1 - 4)", "mallory": "__import__('os').system('true')"}


@pytest.fixture
def review(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    pd.DataFrame({"x1": [0.7, 3.0, 5.5, 11.0], "y": [0.3, 1.1, 1.9, 3.8]}).to_csv(data / "d1_test.csv", index=False)
    representatives = pd.DataFrame([(method, "d1", 0, model, "", 0.5, -1.0, 3.0, "given", "x1", 1)
                                    for method, model in MODELS.items()],
                                   columns=["method", "dataset", "run", "model", "simplified", "r2_test", "simplicity",
                                            "components", "status", "features_used", "n_runs"])
    (tmp_path / "cache").mkdir()
    return {"data": data, "reps": representatives, "features": {"d1": ["x1"]}, "cache": tmp_path / "cache"}


def test_kept_values_are_exactly_what_a_kernel_computes(review):
    with ResultCache(review["cache"]) as cache:
        # one LaTeX and one prediction row per model, and a figures row for each of the two with predictions
        assert keep_card_values(review["reps"], review["features"], review["data"], cache=cache) == 8
        kept = KeptCardValues(cache)
        test = load_test_data(review["data"] / "d1_test.csv")
        digest = file_digest(review["data"] / "d1_test.csv")
        for model in MODELS.values():
            assert kept.latex(model, ["x1"]) == compute_latex(model, ["x1"])
            predicted, problem = kept.predictions(model, test, ["x1"], digest)
            computed, computed_problem = compute_predictions(model, test, ["x1"])
            assert problem == computed_problem
            if computed is None:
                assert predicted is None and problem, problem
            else:   # the same float64 values, bit for bit, and NaN where the kernel has NaN (whatever its sign bit)
                finite = np.isfinite(computed)
                assert np.array_equal(np.isnan(predicted), np.isnan(computed))
                assert predicted[finite].tobytes() == computed[finite].tobytes()
        third, _ = kept.predictions(MODELS["third"], test, ["x1"], digest)
        assert third[0] == 0.7 / 3 + 0.1 and np.isnan(kept.predictions(MODELS["log"], test, ["x1"], digest)[0][0])
        # other test data (another digest), other features: not kept, so the kernel computes them
        assert kept.predictions(MODELS["third"], test, ["x1"], "0" * 64) is None
        assert kept.latex(MODELS["third"], ["x1", "x2"]) is None


def test_a_changed_kept_value_is_not_used_and_the_kernel_computes_it_again(review, tmp_path, monkeypatch):
    with ResultCache(review["cache"]) as cache:
        keep_card_values(review["reps"], review["features"], review["data"], cache=cache)
    # whoever can write the cache folder changes the kept predictions (without the cache's secret)
    with sqlite3.connect(review["cache"] / "complexity.sqlite") as connection:
        changed = connection.execute("UPDATE results_v2 SET value = replace(value, '0.', '9.') WHERE kind = ?",
                                     [PREDICTIONS_KIND]).rowcount
    assert changed == 3    # one row per model (mallory's, its refusal, has no "0." to change)
    computed = []
    monkeypatch.setattr(review_app, "compute_predictions",
                        lambda model, *a: (computed.append(model), compute_predictions(model, *a))[1])
    monkeypatch.setattr(review_app, "compute_latex", lambda *a: pytest.fail("the kept LaTeX was not used"))
    with ResultCache(review["cache"]) as cache, TrustStore(tmp_path / "trust.sqlite", seed=0) as store:
        app = ReviewApp(review["reps"], store, judge="ann", features=review["features"], data_dir=review["data"],
                        kept=KeptCardValues(cache))
        assert cache.stats.as_dict()["tampered"] == 2
    # the two changed predictions computed again; mallory's refusal, unchanged, read as kept
    assert sorted(computed) == sorted([MODELS["third"], MODELS["log"]])
    drawn = {card.method: any(hasattr(panel, "near_screen") for panel in card.figures.children)
             for card in app.cards["d1"]}
    assert drawn == {"third": True, "log": True, "mallory": False}


def test_a_signed_value_of_a_shape_srdash_does_not_keep_is_computed_again(review):
    test = load_test_data(review["data"] / "d1_test.csv")
    digest = file_digest(review["data"] / "d1_test.csv")
    with ResultCache(review["cache"]) as cache:
        kept = KeptCardValues(cache)
        # signed with the cache's secret, but strings for numbers, or one value short of the test data
        for predicted in (["1", "2", "3", "4"], [1.0, 2.0, 3.0]):
            cache.put_many([(predictions_key(MODELS["third"], ["x1"], digest),
                             {"status": "ok", "problem": "", "predicted": predicted})], kind=PREDICTIONS_KIND)
            assert kept.predictions(MODELS["third"], test, ["x1"], digest) is None
        cache.put_many([(latex_key(MODELS["third"], ["x1"]), {"status": "ok", "latex": 3, "problem": ""})],
                       kind=LATEX_KIND)
        assert kept.latex(MODELS["third"], ["x1"]) is None


def _sent(figures) -> list[str]:
    """What the cards' panels send to the page, as bytes."""
    sent = []
    for figure in figures:
        panel = FigurePanel()
        panel.show(figure)
        sent.append(json.dumps(panel.outputs))
    return sent


def _dated(review) -> None:
    # test data with dates: a card has two figures, predicted vs actual and over time
    pd.DataFrame({"date": ["2021-01-03", "2021-01-01", "2021-01-02", "2021-01-04"], "x1": [0.7, 3.0, 5.5, 11.0],
                  "y": [0.3, 1.1, 1.9, 3.8]}).to_csv(review["data"] / "d1_test.csv", index=False)


def _shown(app) -> dict[str, list[str]]:
    """What each card's figure panels send, as bytes, by method."""
    return {card.method: [json.dumps(panel.outputs) for panel in card.figures.children
                          if isinstance(panel, FigurePanel)] for card in app.cards["d1"]}


def _app(review, cache, store):
    return ReviewApp(review["reps"], store, judge="ann", features=review["features"], data_dir=review["data"],
                     kept=KeptCardValues(cache))


@pytest.mark.parametrize("dates", [False, True])
def test_kept_figures_are_sent_byte_for_byte_as_drawn_and_a_kernel_draws_none(review, tmp_path, monkeypatch, dates):
    if dates:
        _dated(review)
    test = load_test_data(review["data"] / "d1_test.csv")
    with ResultCache(review["cache"]) as cache:
        keep_card_values(review["reps"], review["features"], review["data"], cache=cache)
    # before kept figures, a card drew its panels from plotly figures, as these
    before = {}
    for method in ("third", "log"):
        predicted, _ = compute_predictions(MODELS[method], test, ["x1"])
        drawn = [predicted_vs_actual_figure(test.target, predicted, target="y")]
        if dates:
            drawn.append(over_time_figure(test.dates, test.target, predicted, target="y"))
        before[method] = _sent(drawn)
    assert len(before["third"]) == (2 if dates else 1)
    monkeypatch.setattr(review_app, "compute_figures", lambda *a: pytest.fail("a kept figure was drawn again"))
    with ResultCache(review["cache"]) as cache, TrustStore(tmp_path / "trust.sqlite", seed=0) as store:
        app = _app(review, cache, store)
    assert _shown(app) == {**before, "mallory": []}   # mallory's refused model: no figure


def test_a_changed_or_stale_kept_figure_is_drawn_again(review, tmp_path, monkeypatch):
    _dated(review)
    with ResultCache(review["cache"]) as cache:
        keep_card_values(review["reps"], review["features"], review["data"], cache=cache)
    # whoever can write the cache folder changes the kept figures (without the cache's secret): a point moved
    with sqlite3.connect(review["cache"] / "complexity.sqlite") as connection:
        changed = connection.execute("UPDATE results_v2 SET value = replace(value, '3.8', '9.8') WHERE kind = ?",
                                     [FIGURES_KIND]).rowcount
    assert changed == 2    # the two models with predictions (y = 3.8 is on both their figures)
    drawn = []
    monkeypatch.setattr(review_app, "compute_figures", lambda data, predicted: (drawn.append(len(predicted)),
                                                                                 compute_figures(data, predicted))[1])
    with ResultCache(review["cache"]) as cache, TrustStore(tmp_path / "trust.sqlite", seed=0) as store:
        app = _app(review, cache, store)
        assert cache.stats.as_dict()["tampered"] == 2
    assert drawn == [4, 4]   # both drawn again from the predictions of the 4 test rows
    sent = _shown(app)
    assert len(sent["third"]) == 2 and sent["mallory"] == [] and all("9.8" not in text for text in sent["third"])
    # kept again under another plotly version (or another srdash, other test data): another key, so drawn again
    with ResultCache(review["cache"]) as cache:
        keep_card_values(review["reps"], review["features"], review["data"], cache=cache)
    test = load_test_data(review["data"] / "d1_test.csv")
    digest = file_digest(review["data"] / "d1_test.csv")
    key = figures_key(MODELS["third"], ["x1"], digest)
    monkeypatch.setattr(review_kept, "_plotly_version", lambda: "0.0.1")
    assert figures_key(MODELS["third"], ["x1"], digest) != key
    drawn.clear()
    with ResultCache(review["cache"]) as cache, TrustStore(tmp_path / "trust2.sqlite", seed=0) as store:
        assert KeptCardValues(cache).figures(MODELS["third"], test, ["x1"], digest) is None
        app = _app(review, cache, store)
    assert drawn == [4, 4]
    assert _shown(app) == sent   # drawn again, the same figures


def test_a_signed_kept_figure_of_a_shape_srdash_does_not_keep_is_drawn_again(review):
    _dated(review)
    test = load_test_data(review["data"] / "d1_test.csv")
    digest = file_digest(review["data"] / "d1_test.csv")
    key = figures_key(MODELS["third"], ["x1"], digest)
    with ResultCache(review["cache"]) as cache:
        kept = KeptCardValues(cache)
        # signed with the cache's secret, but one figure where the dated test data has two, a figure that is
        # not JSON, or JSON that is not a figure
        for figures in (["{}"], ["{}", "{not json"], ["{}", "[1, 2]"], "{}"):
            cache.put_many([(key, {"status": "ok", "figures": figures})], kind=FIGURES_KIND)
            assert kept.figures(MODELS["third"], test, ["x1"], digest) is None, figures
        cache.put_many([(key, {"status": "ok", "figures": ["{}", "{}"]})], kind=FIGURES_KIND)
        assert kept.figures(MODELS["third"], test, ["x1"], digest) == [{}, {}]   # the shape it keeps is read
