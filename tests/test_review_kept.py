"""The cards' LaTeX and test predictions that ``srdash review`` keeps for every judge (srdash.apps.review.kept) are
the very values a judge's kernel would compute, and a kept value that was changed, or kept for other data, is not
used."""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest

from srdash.apps.review import ReviewApp
import srdash.apps.review.app as review_app
from srdash.apps.review.kept import (LATEX_KIND, PREDICTIONS_KIND, KeptCardValues, compute_latex,
                                     compute_predictions, keep_card_values, latex_key, predictions_key)
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
        # one LaTeX and one prediction row per model
        assert keep_card_values(review["reps"], review["features"], review["data"], cache=cache) == 6
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
