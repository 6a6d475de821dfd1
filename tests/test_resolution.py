"""Issue 34 items 1 and 4: rank resolution (place intervals, the tie group of the winner) and failures by
type, on hand-derived competitions, through `srdash score`, and on the SRBench black-box results."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis.board import ADDED_COLUMNS, shown_leaderboard
from srdash.analysis.failures import (FAILURE_TYPE_OF_KIND, FAILURE_TYPES, delivered_verdict, failures_by_type)
from srdash.analysis.resolution import rank_resolution
from srdash.analysis.robustness import bootstrap
from srdash.cli import main
from srdash.demo.examples import accuracy_rules
from srdash.errors import SrdashError
from srdash.judging.ranking import judge

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
BLACKBOX = REALDATA / "srbench_results" / "blackbox_results.csv"


def _runs(r2: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"method": m, "dataset": f"d{i}", "run": 0, "r2_test": v}
                         for m, values in r2.items() for i, v in enumerate(values)])


# Three methods, six datasets, one criterion (accuracy), K = 3 (3 = best):
#   d0..d4: a .9 > b .5 > c .1  -> ranks a 3, b 2, c 1
#   d5:     b .9 > c .5 > a .1  -> ranks b 3, c 2, a 1
# Dataset score = the rank (one criterion). Final scores: a 16/6, b 13/6, c 7/6: places a 1, b 2, c 3.
# Friedman (N = 6, k = 3): rank sums a 16, b 13, c 7;
#   chi2 = 12 / (6*3*4) * (16^2 + 13^2 + 7^2) - 3*6*4 = 474/6 - 72 = 7.0; p = exp(-7/2) = 0.0302 < 0.05.
# Nemenyi: CD = q_0.05(k=3) * sqrt(k(k+1) / 6N) = 2.343 * sqrt(12/36) = 1.3527 (Demšar Table 5(a)).
#   mean ranks a 2.6667, b 2.1667, c 1.1667: a-b = 0.5 <= CD (tied), a-c = 1.5 > CD (differ).
# So the tie group of the winner a is {b}; first place is not resolved.
THREE = {"a": [.9, .9, .9, .9, .9, .1], "b": [.5, .5, .5, .5, .5, .9], "c": [.1, .1, .1, .1, .1, .5]}


def test_the_tie_group_of_a_hand_derived_competition():
    runs = _runs(THREE)
    resolution = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=500, seed=3)
    test = resolution.significance
    assert test.statistic == pytest.approx(7.0)
    assert test.p_value == pytest.approx(math.exp(-3.5))
    assert test.critical_difference == pytest.approx(2.343 * math.sqrt(1 / 3))
    assert resolution.winners == ("a",) and resolution.tied == ("b",) and not resolution.resolved
    assert resolution.table["tied_with_winner"].tolist() == ["first", "yes", "no"]
    assert resolution.sentence.startswith(
        "a is first; first place is not resolved: b is tied with it (Friedman test, Nemenyi post-hoc, α = 0.05); ")


def test_the_place_intervals_of_the_hand_derived_competition():
    # With n5 of the six drawn datasets being d5 (n5 ~ Binomial(6, 1/6)), the final scores are
    #   a = (3(6 - n5) + n5)/6, b = (2(6 - n5) + 3 n5)/6, c = ((6 - n5) + 2 n5)/6.
    # a > b iff n5 < 2, a = b at n5 = 2, a < b for n5 >= 3: P(a alone first) = (5/6)^6 + 6(1/6)(5/6)^5 = 0.737
    # < 0.95, so a's interval is 1-2 (a is third only when n5 >= 5: P = 0.00066). b > c always: b's place
    # is 1 or 2, never 3; c is third unless n5 >= 5 (c beats a iff n5 >= 5): c's interval is "3".
    runs = _runs(THREE)
    resolution = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=2000, seed=0)
    table = resolution.table.set_index("method")
    assert table["places"].to_dict() == {"a": "1–2", "b": "1–2", "c": "3"}
    assert (table["places_share"] >= 0.95).all()
    assert table.loc["b", "places_share"] == 1.0  # b's span always lies in 1-2
    # a's exact share of [1, 1]: the interval had to grow, so fewer than 95 % of draws have a alone first
    boot = bootstrap(runs, accuracy_rules(), n_bootstrap=2000, seed=0).scores
    alone_first = ((boot["a"] > boot["b"]) & (boot["a"] > boot["c"])).mean()
    assert alone_first == pytest.approx(0.737, abs=0.03) and alone_first < 0.95


def _reference_intervals(scores: pd.DataFrame, confidence: float) -> dict[str, tuple[int, int, float]]:
    """Brute force: every interval of every method, the share of draws whose whole tied span lies in it."""
    rounded = scores.round(9).to_numpy()
    k = rounded.shape[1]
    out = {}
    for m, name in enumerate(scores.columns):
        above = (rounded > rounded[:, [m]]).sum(axis=1)
        tied = (rounded == rounded[:, [m]]).sum(axis=1)
        lo, hi = above + 1, above + tied
        best = None
        for a in range(1, k + 1):
            for b in range(a, k + 1):
                share = ((lo >= a) & (hi <= b)).mean()
                if share >= confidence - 1e-12:
                    key = (b - a, -share, a)
                    if best is None or key < best[0]:
                        best = (key, (a, b, share))
        out[name] = best[1]
    return out


def test_the_intervals_are_the_shortest_holding_the_stated_share_with_ties_in_draws():
    # five methods, some with equal values on every dataset, so draws tie whole spans
    rng = np.random.default_rng(7)
    r2 = {m: list(np.round(rng.uniform(0, 1, 12), 1)) for m in "pqrs"}
    r2["t"] = list(r2["s"])  # t ties s in every draw: spans of two places
    runs = _runs(r2)
    verdict = judge(runs, accuracy_rules())
    resolution = rank_resolution(verdict, runs, n_bootstrap=300, seed=11, confidence=0.9)
    scores = bootstrap(runs, accuracy_rules(), n_bootstrap=300, seed=11).scores
    expected = _reference_intervals(scores, 0.9)
    for row in resolution.table.itertuples():
        assert (row.places_low, row.places_high) == expected[row.method][:2], row.method
        assert row.places_share == pytest.approx(expected[row.method][2])
    s, t = resolution.table.set_index("method").loc[["s", "t"], "places_low"]
    assert s == t  # tied methods have the same interval


def test_a_winner_ahead_by_more_than_the_critical_difference_is_resolved():
    # a best on all 10 datasets; b and c alternate 2/1. Mean ranks a 3, b 1.5, c 1.5.
    # Friedman: rank sums 30, 15, 15: chi2 = 12/120 * (900 + 225 + 225) - 120 = 15, p = exp(-7.5) = 5.5e-4.
    # CD = 2.343 * sqrt(12 / 60) = 1.048 < 1.5: a differs from both, first place is resolved.
    r2 = {"a": [.9] * 10, "b": [.5, .1] * 5, "c": [.1, .5] * 5}
    runs = _runs(r2)
    resolution = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=200)
    assert resolution.significance.statistic == pytest.approx(15.0)
    assert resolution.resolved and resolution.tied == ()
    assert resolution.table["tied_with_winner"].tolist() == ["first", "no", "no"]
    assert resolution.sentence == ("a is first; first place is resolved: no method is tied with it (Friedman test, "
                                   "Nemenyi post-hoc, α = 0.05); place 1 in at least 95 % of 200 bootstrap draws "
                                   "of the datasets.")


def test_without_a_friedman_rejection_every_method_is_tied_with_the_winner():
    # Three datasets: ranks a 3,2,3; b 2,3,1; c 1,1,2: rank sums 8, 6, 4,
    # chi2 = 12/36 * (64 + 36 + 16) - 36 = 38.667 - 36 = 2.667, p = exp(-1.333) = 0.264 >= 0.05.
    r2 = {"a": [.9, .5, .9], "b": [.5, .9, .1], "c": [.1, .1, .5]}
    runs = _runs(r2)
    resolution = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=100)
    assert resolution.significance.statistic == pytest.approx(8 / 3)
    assert not resolution.significance.rejected
    assert resolution.tied == ("b", "c")
    assert "b and c are tied with it" in resolution.sentence


def test_a_shared_first_place_is_never_resolved():
    r2 = {"a": [.9, .1, .9, .1], "b": [.1, .9, .1, .9]}  # equal scores: both at place 1
    runs = _runs(r2)
    resolution = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=100)
    assert resolution.winners == ("a", "b") and not resolution.resolved
    assert resolution.table["tied_with_winner"].tolist() == ["first", "first"]
    assert resolution.sentence.startswith("a and b share first place; first place is not resolved")
    # c last on all 4 datasets: rank sums a 10, b 10, c 4, chi2 = 12/48 * 216 - 48 = 6.0, p = exp(-3) = 0.0498
    # (rejects), CD = 2.343 * sqrt(12/24) = 1.657 >= 2.5 - 1 = 1.5: c is tied with both winners
    runs = _runs({**r2, "c": [.05] * 4})
    three = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=100)
    assert three.sentence.startswith("a and b share first place; first place is not resolved: c is tied with them")


def test_one_dataset_is_not_tested_and_says_so():
    runs = _runs({"a": [.9], "b": [.1]})
    resolution = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=50)
    assert resolution.significance is None and not resolution.resolved
    assert resolution.table["tied_with_winner"].tolist() == ["first", ""]
    assert "first place is not tested (fewer than 2 methods or 2 datasets)" in resolution.sentence


def test_runs_are_redrawn_only_where_redraws_are_not_judged_one_by_one():
    # two runs per cell: the median rules redraw datasets and runs; with dnf = "left-out" (an extended option)
    # every redraw of the runs would be a judging, so only the datasets are redrawn, and a note says so
    runs = pd.concat([_runs(THREE).assign(run=0), _runs(THREE).assign(run=1)], ignore_index=True)
    both = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=50)
    assert both.resample == "datasets and runs" and both.notes == ()
    rules = accuracy_rules().with_options(dnf="left-out")
    datasets = rank_resolution(judge(runs, rules), runs, n_bootstrap=50)
    assert datasets.resample == "datasets" and "bootstrap draws of the datasets." in datasets.sentence
    assert datasets.notes == ("Runs were not redrawn: the rules 'rules' (or the view) would be judged again for "
                              "every draw; the place intervals redraw the datasets (`srdash robustness` redraws "
                              "both).",)


def test_the_resolution_is_seeded_and_deterministic():
    runs = _runs(THREE)
    verdict = judge(runs, accuracy_rules())
    one = rank_resolution(verdict, runs, n_bootstrap=300, seed=5).table
    two = rank_resolution(verdict, runs, n_bootstrap=300, seed=5).table
    pd.testing.assert_frame_equal(one, two)


def test_bad_options_and_mismatched_runs_are_refused():
    runs = _runs(THREE)
    verdict = judge(runs, accuracy_rules())
    with pytest.raises(SrdashError, match=r"The 'n_bootstrap' option must be a whole number >= 1\. Got 0\."):
        rank_resolution(verdict, runs, n_bootstrap=0)
    with pytest.raises(SrdashError, match=r"The 'alpha' option must be a number strictly between 0 and 1\. Got 1\."):
        rank_resolution(verdict, runs, alpha=1)
    other = _runs({"a": [.1] * 6, "b": [.9] * 6, "c": [.5] * 6})
    with pytest.raises(SrdashError, match=r"The runs given do not judge to the verdict given: pass the per-run "
                                          r"table the verdict was judged from \(CompetitionResult\.runs\)\."):
        rank_resolution(verdict, other, n_bootstrap=10)


# --------------------------------------------------------------------------- failures by type


def _failing_runs() -> pd.DataFrame:
    # method a: all fine; b: run 1 of d0 timed out, run 0 of d1 did not parse, d2 has no run at all (DNF);
    # c: run 0 of d0 has a missing value, run 1 of d1 predicts a non-finite value (-inf R2 and a status).
    rows = []
    for d in ("d0", "d1", "d2"):
        for run in (0, 1):
            rows.append({"method": "a", "dataset": d, "run": run, "r2_test": 0.9, "status": "ok"})
            if d != "d2":
                rows.append({"method": "b", "dataset": d, "run": run, "r2_test": 0.8, "status": "ok"})
            rows.append({"method": "c", "dataset": d, "run": run, "r2_test": 0.7, "status": "ok"})
    runs = pd.DataFrame(rows)
    runs.loc[(runs.method == "b") & (runs.dataset == "d0") & (runs.run == 1), ["r2_test", "status"]] = [None, "timeout"]
    runs.loc[(runs.method == "b") & (runs.dataset == "d1") & (runs.run == 0), ["r2_test", "status"]] = [None,
                                                                                                       "parse_error"]
    runs.loc[(runs.method == "c") & (runs.dataset == "d0") & (runs.run == 0), "r2_test"] = None
    runs.loc[(runs.method == "c") & (runs.dataset == "d1") & (runs.run == 1), "r2_test"] = -np.inf
    return runs


def test_failures_are_counted_by_type():
    runs = _failing_runs()
    verdict = judge(runs, accuracy_rules())
    extra = pd.DataFrame({"kind": ["non_finite"], "method": ["c"], "dataset": ["d1"], "run": [1],
                          "detail": ["predicts a non-finite value"]})  # what the evaluation adds as a track problem
    from srdash.judging.judgement import with_track_problems

    table = failures_by_type(with_track_problems(verdict, extra)).set_index("method")
    assert table.loc["a"].tolist() == [0, 0, 0, 0, "no"]
    assert table.loc["b"].tolist() == [1, 1, 0, 0, "yes"]  # timeout, parse error; the DNF is the 'dnf' column
    assert table.loc["c"].tolist() == [0, 0, 1, 1, "yes"]
    assert verdict.leaderboard.set_index("method").loc["b", "dnf"] == 1


def test_every_mapped_kind_has_one_of_the_five_types():
    assert set(FAILURE_TYPE_OF_KIND.values()) == set(FAILURE_TYPES)
    assert list(FAILURE_TYPES) == ["did not finish", "timed out", "did not parse", "non-finite on the data",
                                   "missing"]


def test_imputed_follows_the_rules():
    # dnf = "left-out" and missing_run_value = "skipped": nothing is filled in for b's failures
    runs = _failing_runs().query("method != 'c'")
    rules = accuracy_rules().with_options(dnf="left-out", missing_run_value="skipped")
    assert failures_by_type(judge(runs, rules)).set_index("method").loc["b", "imputed"] == "no"
    assert failures_by_type(judge(runs, accuracy_rules())).set_index("method").loc["b", "imputed"] == "yes"


def test_the_delivered_view_judges_only_what_each_method_delivered():
    # Delivered runs: a everywhere (0.9); b: d0 run 0, d1 run 1 (0.8 each), nothing on d2; c: d0 run 1,
    # d1 run 0, d2 both (0.7). Ranks (K = 3, 3 = best) among those who delivered:
    #   d0, d1: a 3, b 2, c 1; d2: with dnf = "left-out" b is out of d2's ranking, a and c are ranked
    #   1..2 there: a 2, c 1.
    # Means over the datasets each delivered on: a (3 + 3 + 2)/3 = 8/3, b (2 + 2)/2 = 2, c (1 + 1 + 1)/3 = 1.
    runs = _failing_runs()
    verdict = judge(runs, accuracy_rules())
    delivered = delivered_verdict(runs, verdict).leaderboard.set_index("method")
    assert delivered["score"].to_dict() == pytest.approx({"a": 8 / 3, "b": 2.0, "c": 1.0})
    assert delivered.loc["b", "datasets"] == 2
    # as the rules count it: b's median on d0 is the median of (0.8, -inf) = -inf, so b is last there
    as_ruled = verdict.leaderboard.set_index("method")
    assert as_ruled.loc["b", "score"] < delivered.loc["b", "score"]


def test_the_delivered_view_is_refused_for_rank_mean_rules():
    runs = _failing_runs()
    rules = accuracy_rules().with_options(run_aggregation="rank-mean")
    with pytest.raises(SrdashError, match=r"The rules '.*' rank every run slot \(run_aggregation = 'rank-mean'\), "
                                          r"so a failure cannot be left out"):
        delivered_verdict(runs, judge(runs, rules))


class _Result:
    """The two attributes shown_leaderboard reads of a CompetitionResult."""

    def __init__(self, runs, verdict):
        self.runs, self.verdict = runs, verdict


def test_the_shown_leaderboard_adds_its_columns_and_refuses_an_unknown_view():
    runs = _failing_runs()
    shown = shown_leaderboard(_Result(runs, judge(runs, accuracy_rules())), n_bootstrap=50)
    assert list(shown.table.columns) == ["place", "method", "score", "accuracy_rank", "datasets", "dnf",
                                         *ADDED_COLUMNS]
    assert "View: failures as the rules count them" in shown.sentence
    with pytest.raises(SrdashError, match=r"The 'view' option must be one of 'as-ruled', 'delivered'\. Got 'all'\."):
        shown_leaderboard(_Result(runs, judge(runs, accuracy_rules())), view="all")


def test_the_html_leaderboard_shows_the_columns_and_the_sentence_escaped():
    from srdash.figures.leaderboard import leaderboard_html

    runs = _runs({"<b>a</b>": THREE["a"], "b": THREE["b"], "c": THREE["c"]})
    verdict = judge(runs, accuracy_rules())
    page = leaderboard_html(verdict, shown=shown_leaderboard(_Result(runs, verdict), n_bootstrap=200))
    assert "<b>a</b>" not in page and "&lt;b&gt;a&lt;/b&gt; is first; first place is not resolved" in page
    assert page.count("class=\"srdash-tied\">yes<") == 1 and "Places<br><small>in &ge; 95 % of draws" in page
    assert "Imputed" in page and "srdash-resolution" in page
    assert "srdash-places" not in leaderboard_html(verdict)  # without it, the table is the verdict's alone


# --------------------------------------------------------------------------- srdash score


def test_score_prints_the_columns_and_the_sentence(tmp_path):
    path = tmp_path / "runs.csv"
    _runs(THREE).assign(components=1).to_csv(path, index=False)
    rules = tmp_path / "accuracy.toml"
    rules.write_text('[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"\n')
    out = tmp_path / "board.csv"
    result = CliRunner().invoke(main, ["score", str(path), "--rules", str(rules), "-B", "500", "--seed", "3",
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    board = pd.read_csv(out)
    assert board["tied_with_winner"].tolist() == ["first", "yes", "no"]
    assert board["places"].tolist()[2] == "3"
    assert "a is first; first place is not resolved: b is tied with it" in result.output
    delivered = CliRunner().invoke(main, ["score", str(path), "--rules", str(rules), "--view", "delivered",
                                          "-B", "0"])
    assert delivered.exit_code == 0, delivered.output
    assert "View: only where the method delivered" in delivered.output
    # the columns and the view are shown beside the verdict: its fingerprint stays the verdict's
    fingerprints = {line for run in (result, delivered) for line in run.output.splitlines()
                    if line.startswith("Verdict fingerprint:")}
    assert len(fingerprints) == 1
    refused = CliRunner().invoke(main, ["score", str(path), "--rules", str(rules), "-B", "100000"])
    assert refused.exit_code == 2 and "100000 is not in the range 0<=x<=10000" in refused.output


@pytest.mark.realdata
@pytest.mark.skipif(not BLACKBOX.exists(), reason=f"real data not found at {BLACKBOX}")
def test_blackbox_tie_group_and_place_intervals(tmp_path):
    from test_realdata_blackbox import blackbox_rules

    out = tmp_path / "leaderboard.csv"
    result = CliRunner().invoke(main, ["score", str(BLACKBOX), "--rules", str(blackbox_rules(tmp_path)),
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    board = pd.read_csv(out).set_index("method")
    # Nemenyi over 122 datasets, k = 21: CD = 2.835; GP-GOMEA's mean rank 19.004, Operon 18.541, and FEAT and
    # EPLEX within 2.835 of it; the rest further (srdash robustness and `analyse compare` give the same ranks)
    assert board.index[board["tied_with_winner"] == "yes"].tolist() == ["*Operon", "*FEAT", "*EPLEX"]
    assert ("*GP-GOMEA is first; first place is not resolved: *Operon, *FEAT and *EPLEX are tied with it "
            "(Friedman test, Nemenyi post-hoc, α = 0.05); place 1 in at least 95 % of 1,000 bootstrap draws of "
            "the datasets.") in result.output.replace("\n", " ")
    assert (board["places_share"] >= 0.95).all()
    assert board.loc["*GP-GOMEA", "places"] == "1" and board.loc["RandomForest", "places"] == "21"
    assert board.loc["*AIFeynman", "imputed"] == "yes" and board.loc["*AIFeynman", "dnf"] == 15
    assert (board.drop(index="*AIFeynman")["imputed"] == "no").all()


@pytest.mark.realdata
@pytest.mark.skipif(not BLACKBOX.exists(), reason=f"real data not found at {BLACKBOX}")
def test_the_dashboard_shows_the_blackbox_tie_group_and_switches_the_view(tmp_path):
    from test_realdata_blackbox import blackbox_rules

    from srdash.apps import Dashboard
    from srdash.judging.competition import competition_from_options

    competition = competition_from_options(BLACKBOX, rules=blackbox_rules(tmp_path), jobs=1, cache=False)
    app = Dashboard(competition)
    assert app.wait(300) and app.log_panel.text() == ""
    page = app.leaderboard.value
    # the same columns and sentence as srdash score's (test_blackbox_tie_group_and_place_intervals)
    assert page.count("class=\"srdash-tied\">yes<") == 3 and page.count("class=\"srdash-tied\">first<") == 1
    assert ("*GP-GOMEA is first; first place is not resolved: *Operon, *FEAT and *EPLEX are tied with it "
            "(Friedman test, Nemenyi post-hoc, α = 0.05)") in page
    fingerprint = app.result.fingerprint
    app._failure_view.value = "delivered"
    assert "View: only where the method delivered" in app.leaderboard.value
    assert app.result.fingerprint == fingerprint   # the view is shown beside the verdict, not a new verdict
    app._failure_view.value = "as-ruled"
    assert app.leaderboard.value == page


@pytest.mark.realdata
@pytest.mark.skipif(not BLACKBOX.exists(), reason=f"real data not found at {BLACKBOX}")
def test_the_report_shows_the_blackbox_tie_group_and_place_intervals(tmp_path):
    from test_realdata_blackbox import blackbox_rules

    out = tmp_path / "report.md"
    result = CliRunner().invoke(main, ["report", str(BLACKBOX), "--rules", str(blackbox_rules(tmp_path)), "-o",
                                       str(out), "--format", "md", "--samples", "10"])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    # the same numbers as srdash score's (seed 0, 1,000 draws): the report's seed is score's default
    assert ("| Datasets | DNF | Places | Tied with winner | Timed out | Did not parse | Non-finite | Missing | "
            "Imputed |") in text
    assert "| 1 | \\*GP-GOMEA | 14.882 | 13.877 | 16.570 | 122 | 0 | 1 | first | 0 | 0 | 0 | 0 | no |" in text
    assert ("\\*GP-GOMEA is first; first place is not resolved: \\*Operon, \\*FEAT and \\*EPLEX are tied with it "
            "(Friedman test, Nemenyi post-hoc, α = 0.05); place 1 in at least 95 % of 1,000 bootstrap draws") in text
