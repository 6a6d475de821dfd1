"""Ratings and rates (srdash.analysis.ratings): Elo against choix, hand-derived win-rates, improvability
and place shares, the bootstrap intervals, and `srdash analyse ratings`."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis.ratings import ELO_PER_LOGIT, REGULARIZATION, bradley_terry, meeting_outcomes, ratings
from srdash.cli import main
from srdash.errors import SrdashError

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata"
BLACKBOX = REALDATA / "srbench_results" / "blackbox_results.csv"


def _three():
    # d1: a .9 > b .8 > c .5;  d2: b .9 > a .7 > c .6;  d3: a .95 > b .85 = c .85
    return pd.DataFrame({"method": list("abcabcabc"), "dataset": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3,
                         "r2": [0.9, 0.8, 0.5, 0.7, 0.9, 0.6, 0.95, 0.85, 0.85]})


def _by_method(result):
    return result.table.set_index("method")


# ---------------------------------------------------------------------------
# Bradley-Terry and Elo against choix
# ---------------------------------------------------------------------------
def _choix_strengths(wins, alpha):
    """choix.opt_pairwise on the same wins: each win listed twice and a tie once each way (so the data are
    integers), with the penalty doubled: choix's objective is then exactly twice ours."""
    choix = pytest.importorskip("choix")
    doubled = np.rint(2 * np.asarray(wins)).astype(int)
    data = [(i, j) for i in range(len(wins)) for j in range(len(wins)) for _ in range(doubled[i, j])]
    return choix.opt_pairwise(len(wins), data, alpha=2 * alpha, tol=1e-12)


def test_bradley_terry_two_methods_by_hand():
    # 3 wins to 1, no penalty worth speaking of: σ(θ0 - θ1) = 3/4, θ0 - θ1 = ln 3; θ sums to 0
    theta = bradley_terry([[0, 3], [1, 0]], regularization=1e-12)
    assert theta[0] - theta[1] == pytest.approx(math.log(3), abs=1e-9)
    # the penalty centres the strengths (at the optimum its gradient 2αθ balances the likelihood's, which sums to 0)
    assert bradley_terry([[0, 3], [1, 0]]).sum() == pytest.approx(0, abs=1e-9)


def test_elo_scale_is_400_over_ln10_per_logit():
    assert ELO_PER_LOGIT == pytest.approx(173.7177927613007, rel=1e-12)
    # odds of 10 to 1 are 400 Elo points
    assert ELO_PER_LOGIT * math.log(10) == pytest.approx(400)


def test_elo_equals_choix_on_the_hand_example_with_a_tie():
    # wins (ties 1/2): a>b on d1, d3; b>a on d2; a>c everywhere; b>c on d1, d2; b=c on d3
    wins = meeting_outcomes(np.array([[0.9, 0.8, 0.5], [0.7, 0.9, 0.6], [0.95, 0.85, 0.85]])).sum(axis=0)
    assert wins.tolist() == [[0, 2, 3], [1, 0, 2.5], [0, 0.5, 0]]
    ours = bradley_terry(wins)
    reference = _choix_strengths(wins, REGULARIZATION)
    # both optimise the same strictly convex objective; choix's Newton-CG stops at tol 1e-12 and ours at
    # a gradient below 1e-10: strengths agree to 1e-6 logit, 2e-4 Elo
    assert ours - ours.mean() == pytest.approx(reference - reference.mean(), abs=1e-6)
    result = _by_method(ratings(_three(), metric="r2", n_bootstrap=0, anchor="c"))
    expected_elo = 1000 + ELO_PER_LOGIT * (reference - reference[2])
    assert result.loc[["a", "b", "c"], "elo"].to_numpy() == pytest.approx(expected_elo, abs=2e-4)
    assert result.loc["c", "elo"] == 1000.0


def test_elo_equals_choix_on_random_tournaments():
    rng = np.random.default_rng(5)
    for _ in range(5):
        values = np.round(rng.normal(size=(12, 6)), 1)  # rounding makes ties
        values[rng.random(values.shape) < 0.1] = np.nan  # a missing value loses to every value
        wins = meeting_outcomes(values).sum(axis=0)
        ours, reference = bradley_terry(wins), _choix_strengths(wins, REGULARIZATION)
        assert ours - ours.mean() == pytest.approx(reference - reference.mean(), abs=1e-6)


@pytest.mark.parametrize("wins", [
    [[0, 500, 500], [0, 0, 250], [0, 250, 0]],        # an unbeaten method: the MLE would be infinite
    [[0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 5], [0, 0, 0, 0]],  # two groups that never meet
])
def test_the_penalty_keeps_strengths_finite_and_equal_to_choix(wins):
    wins = np.array(wins, dtype=float)
    ours = bradley_terry(wins)
    assert np.isfinite(ours).all() and ours.max() < 10  # α = 1e-3: 7.41 for the unbeaten one (choix: 7.4128)
    # choix's Newton-CG stops 2e-6 short here (its tol bounds the step, not the gradient); ours is at a gradient
    # below 1e-10
    assert ours == pytest.approx(_choix_strengths(wins, REGULARIZATION), abs=1e-5)


@pytest.mark.realdata
def test_elo_equals_choix_on_the_blackbox_table():
    if not BLACKBOX.is_file():
        pytest.skip(f"real data not available: {BLACKBOX} is absent (see ../shared/realdata/README.md)")
    choix = pytest.importorskip("choix")
    table = pd.read_csv(BLACKBOX)
    wide = table.pivot(index="dataset", columns="algorithm", values="r2_test")
    wins = meeting_outcomes(wide.to_numpy()).sum(axis=0)
    # choix's ILSR on the dense wins matrix (fractional ties allowed), unregularised: the maximum-likelihood
    # strengths (every method wins and loses somewhere, so they exist); opt_pairwise on 51,000 listed
    # comparisons takes 40 s here
    mle = pd.Series(choix.ilsr_pairwise_dense(wins, alpha=0.0, tol=1e-12, max_iter=10_000), index=wide.columns)
    expected = 1000 + ELO_PER_LOGIT * (mle - mle["RandomForest"])
    # with a negligible penalty (1e-9) our Newton fit is the same MLE (measured: 4e-11 logit apart)
    exact = ratings(table, metric="r2_test", method="algorithm", n_bootstrap=0, anchor="RandomForest",
                    regularization=1e-9)
    assert _by_method(exact)["elo"].loc[expected.index].to_numpy() == pytest.approx(expected.to_numpy(), abs=1e-6)
    # the default penalty 1e-3 moves strengths by at most 4e-5 logit here (0.007 Elo)
    default = ratings(table, metric="r2_test", method="algorithm", n_bootstrap=0, anchor="RandomForest")
    assert _by_method(default)["elo"].loc[expected.index].to_numpy() == pytest.approx(expected.to_numpy(), abs=0.02)
    assert default.table["method"].iloc[0] == "*Operon"


# ---------------------------------------------------------------------------
# Hand-derived rates
# ---------------------------------------------------------------------------
def test_win_rate_improvability_and_place_shares_by_hand():
    result = _by_method(ratings(_three(), metric="r2", n_bootstrap=0, anchor="c"))
    # win-rate = wins / meetings (6 each: 3 datasets x 2 opponents): a 2 + 3 = 5; b 1 + 2.5 = 3.5; c 0.5
    assert result["win_rate"].to_dict() == pytest.approx({"a": 5 / 6, "b": 3.5 / 6, "c": 0.5 / 6})
    # improvability with optimum 1 (errors 1 - R²): d1 errors .1 .2 .5 -> a 0, b 1 - .1/.2 = .5, c 1 - .1/.5 = .8;
    # d2 errors .3 .1 .4 -> a 2/3, b 0, c .75; d3 errors .05 .15 .15 -> a 0, b 2/3, c 2/3
    assert result["improvability"].to_dict() == pytest.approx(
        {"a": (2 / 3) / 3, "b": (0.5 + 2 / 3) / 3, "c": (0.8 + 0.75 + 2 / 3) / 3})
    # ranks (min rule): d1 a1 b2 c3; d2 b1 a2 c3; d3 a1 b2 c2 (tied second, no third place)
    assert result["first_share"].to_dict() == pytest.approx({"a": 2 / 3, "b": 1 / 3, "c": 0})
    assert result["second_share"].to_dict() == pytest.approx({"a": 1 / 3, "b": 2 / 3, "c": 1 / 3})
    assert result["third_share"].to_dict() == pytest.approx({"a": 0, "b": 0, "c": 2 / 3})
    assert result["datasets"].to_dict() == {"a": 3, "b": 3, "c": 3}
    assert result["anchor"].to_dict() == {"a": False, "b": False, "c": True}


def test_lower_is_better_and_missing_values():
    # errors (lower is better), optimum 0; b has no value on d2
    table = pd.DataFrame({"method": ["a", "b", "a", "b", "c", "c"], "dataset": ["d1", "d1", "d2", "d2", "d1", "d2"],
                          "mse": [1.0, 2.0, 4.0, np.nan, 4.0, 2.0]})
    result = _by_method(ratings(table, metric="mse", direction="lower", n_bootstrap=0))
    # improvability: d1 best 1 -> a 0, b 1 - 1/2 = .5, c 1 - 1/4 = .75; d2 best 2 -> a .5, b (missing) 1, c 0
    assert result["improvability"].to_dict() == pytest.approx({"a": 0.25, "b": 0.75, "c": 0.375})
    # meetings: d1 a>b, a>c, b>c; d2 c>a, a>b (missing), c>b -> a 3/4, b 1/4, c 2/4
    assert result["win_rate"].to_dict() == pytest.approx({"a": 0.75, "b": 0.25, "c": 0.5})
    assert result["datasets"].to_dict() == {"a": 2, "b": 1, "c": 2}
    # default anchor: the median-rated method (place ceil(3/2) = 2 of a, c, b)
    assert result.loc["c", "elo"] == 1000.0


def test_bootstrap_intervals_are_seeded_and_hold_the_anchor_at_1000():
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"method": np.repeat(list("abcd"), 30), "dataset": np.tile([f"d{i}" for i in range(30)], 4),
                          "r2": np.concatenate([rng.normal(m, 0.1, 30) for m in (0.5, 0.55, 0.4, 0.6)])})
    first = ratings(table, metric="r2", n_bootstrap=200, seed=4, anchor="a", optimum=2.0)
    again = ratings(table, metric="r2", n_bootstrap=200, seed=4, anchor="a", optimum=2.0)
    pd.testing.assert_frame_equal(first.table, again.table)
    rows = _by_method(first)
    assert (rows.loc["a", "elo_low"], rows.loc["a", "elo_high"]) == (1000.0, 1000.0)
    for column in ("elo", "win_rate", "improvability"):
        assert (rows[f"{column}_low"] <= rows[f"{column}_high"]).all()
    assert rows.loc["d", "elo_low"] > 1000  # d is best by 0.1 on 30 datasets: resolved above the anchor
    no_intervals = ratings(table, metric="r2", n_bootstrap=0, anchor="a")
    assert no_intervals.table[["elo_low", "improvability_high"]].isna().all().all()


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"metric": "rmse"}, SrdashError, r"runs.csv: no column 'rmse'. Columns: method, dataset, r2."),
    ({"metric": "r2", "anchor": "z"}, SrdashError,
     r"The 'anchor' option must name a method of runs.csv. Got 'z'; methods: a, b, c."),
    ({"metric": "r2", "optimum": 0.9}, SrdashError,
     r"runs.csv: the 'r2' of 'a' on 'd3' \(0.95\) is better than the optimum 0.9: give the metric's best possible "
     r"value with the 'optimum' option."),
    ({"metric": "r2", "direction": "up"}, ValueError,
     "The 'direction' option must be one of 'higher', 'lower'. Got 'up'."),
    ({"metric": "r2", "n_bootstrap": -1}, ValueError, "The 'n_bootstrap' option must be an integer >= 0. Got -1."),
    ({"metric": "r2", "regularization": 0}, ValueError, "The 'regularization' option must be a number > 0. Got 0."),
])
def test_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        ratings(_three(), source="runs.csv", **kwargs)


def test_errors_on_data():
    bad = _three().astype({"r2": object})
    bad.loc[4, "r2"] = "n/a?"
    with pytest.raises(SrdashError, match=r"runs.csv, row 6, column 'r2': not a number \('n/a\?'\)."):
        ratings(bad, metric="r2", source="runs.csv")
    with pytest.raises(SrdashError, match="ratings need at least two methods with a value. Got 1."):
        ratings(_three()[lambda t: t["method"] == "a"], metric="r2", source="runs.csv")


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------
def test_cli_ratings(tmp_path):
    source = tmp_path / "runs.csv"
    _three().rename(columns={"method": "algorithm"}).to_csv(source, index=False)
    out = tmp_path / "ratings.csv"
    result = CliRunner().invoke(main, ["analyse", "ratings", str(source), "--metric", "r2", "--anchor", "b",
                                       "-B", "50", "--seed", "3", "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out)
    assert list(written["method"]) == ["a", "b", "c"]
    assert written.loc[1, "elo"] == 1000.0 and bool(written.loc[1, "anchor"])
    assert "173.7 Elo per logit unit" in result.output
    assert "b anchored at 1000; 95% intervals over 50 bootstrap resamples of the 3 datasets (seed 3)" in result.output


def test_cli_ratings_errors(tmp_path):
    source = tmp_path / "runs.csv"
    _three().to_csv(source, index=False)
    result = CliRunner().invoke(main, ["analyse", "ratings", str(source), "--metric", "r2", "--anchor", "nobody"])
    assert result.exit_code != 0
    assert "Error: The 'anchor' option must name a method of" in result.output
    result = CliRunner().invoke(main, ["analyse", "ratings", str(source), "--metric", "r2", "-o", str(source)])
    assert result.exit_code == 2 and "-o/--output" in result.output


AUDIT = Path(__file__).parent / "data" / "audit"


def test_cli_ratings_on_the_verdicts_per_dataset_score(tmp_path):
    # tests/data/audit: one criterion, so each dataset score is the rank (K = 3 = best):
    # d1 A 3, B 2, C 1; d2 B 3, A 2, C 1; d3 A 3, C 2, B 1 (derivation in tests/data/audit/README.md).
    out = tmp_path / "ratings.csv"
    result = CliRunner().invoke(main, ["analyse", "ratings", str(AUDIT / "competition.csv"), "--rules",
                                       str(AUDIT / "accuracy.toml"), "-B", "0", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Judged under the rules 'accuracy-only'" in result.output and "3 = best" in result.output
    rows = pd.read_csv(out).set_index("method")
    # wins: A 2 over B + 3 over C = 5 of 6; B 1 + 2 = 3; C 1 (over B on d3)
    assert rows["win_rate"].to_dict() == pytest.approx({"A": 5 / 6, "B": 3 / 6, "C": 1 / 6})
    # improvability from the optimum K = 3 (errors 3 - score; the best error is 0 on every dataset,
    # so every other method is at 1 there): A 1/3 (d2), B 2/3 (d1, d3), C 1
    assert rows["improvability"].to_dict() == pytest.approx({"A": 1 / 3, "B": 2 / 3, "C": 1.0})
    assert rows["first_share"].to_dict() == pytest.approx({"A": 2 / 3, "B": 1 / 3, "C": 0})
    assert rows.loc["B", "elo"] == 1000.0  # the median-rated of three
    refused = CliRunner().invoke(main, ["analyse", "bayes", str(AUDIT / "competition.csv"), "--rope", "0",
                                        "--rules", "srbench2022"])
    assert refused.exit_code == 2 and "--rules is an option of ratings only." in refused.output


def test_row_order_and_method_names_change_nothing():
    rng = np.random.default_rng(2)
    table = pd.DataFrame({"method": np.repeat(list("abcde"), 12),
                          "dataset": np.tile([f"d{i:02}" for i in range(12)], 5),
                          "r2": np.round(rng.uniform(0, 1, 60), 2)})  # rounded: ties on some datasets
    base = ratings(table, metric="r2", n_bootstrap=50, seed=1, anchor="c").table
    shuffled = ratings(table.sample(frac=1, random_state=3), metric="r2", n_bootstrap=50, seed=1, anchor="c").table
    pd.testing.assert_frame_equal(base, shuffled)
    # renaming the methods (same alphabetical order) renames the rows and nothing else
    renamed = ratings(table.assign(method="m_" + table["method"]), metric="r2", n_bootstrap=50, seed=1,
                      anchor="m_c").table
    pd.testing.assert_frame_equal(base.drop(columns="method"), renamed.drop(columns="method"))
