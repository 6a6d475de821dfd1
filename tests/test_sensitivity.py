"""Weight sensitivity (srdash.analysis.sensitivity), its figures, its widget and `srdash sensitivity`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.demo.examples import accuracy_and_simplicity_rules
from srdash.cli import main
from srdash.errors import RulesError, SrdashError
from srdash.judging.multiobjective import judge_submissions
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules, parse_rules
from srdash.analysis.sensitivity import (
    Rescorer,
    find_winning_weights,
    irrelevant_alternatives,
    kendall_tau,
    load_rescorer,
    place_probabilities,
    sample_weights,
    ternary_winner_map,
    weight_sweep,
)

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata"
EVALRS = REALDATA / "evalrs2022" / "evalrs_2022_submissions.parquet"


def synthetic_runs(n_methods: int = 6, n_datasets: int = 8, n_runs: int = 3, seed: int = 0) -> pd.DataFrame:
    """A small SRBench-like per-run table: methods trade accuracy against simplicity."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_methods):
        skill = m / (n_methods - 1)
        for d in range(n_datasets):
            for r in range(n_runs):
                rows.append({"method": f"m{m}", "dataset": f"d{d}", "run": r,
                             "r2_test": round(0.5 + 0.4 * skill + rng.normal(0, 0.05), 3),
                             "simplicity": round(-0.5 - 2.0 * skill + rng.normal(0, 0.3), 1),
                             "property": round(rng.uniform(0, 1), 3)})
    return pd.DataFrame(rows)


def evalrs_like_submissions(n_teams: int = 8, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scheme_metrics = ["hit_rate", "mrr", "mred_country", "mred_track_popularity", "mred_user_activity",
                      "mred_artist_popularity", "mred_gender", "being_less_wrong", "latent_diversity"]
    rows = []
    for t in range(n_teams):
        for s in range(3):
            row = {"participant_id": f"team{t}"}
            row.update({"hit_rate": rng.uniform(0.01, 0.2), "mrr": rng.uniform(0.001, 0.05),
                        "being_less_wrong": rng.uniform(0.25, 0.45), "latent_diversity": rng.uniform(-0.35, -0.2)})
            row.update({m: -rng.uniform(0.0001, 0.01) for m in scheme_metrics if m.startswith("mred")})
            rows.append(row)
    return pd.DataFrame(rows)


RUNS = synthetic_runs()


def _harmonic(preset: str) -> Rescorer:
    return Rescorer.from_verdict(judge(RUNS, load_rules(preset)), runs=RUNS)


def _linear() -> Rescorer:
    return Rescorer.from_verdict(judge_submissions(evalrs_like_submissions(), "evalrs2022"))


# A registry of rescorers: every shared property below runs on each.
RESCORERS = {
    "srbench2022": lambda: _harmonic("srbench2022"),
    "srbench2022-as-run": lambda: _harmonic("srbench2022-as-run"),
    "srbench2022-weighted": lambda: Rescorer.from_verdict(
        judge(RUNS, load_rules("srbench2022").with_options(weights={"accuracy": 2.0, "property": 0.5})), runs=RUNS),
    "evalrs2022": _linear,
}


@pytest.fixture(params=sorted(RESCORERS))
def rescorer(request) -> Rescorer:
    return RESCORERS[request.param]()


def _official_board(r: Rescorer) -> pd.DataFrame:
    board = r.verdict.leaderboard
    score = "stage2" if r.linear else "score"
    return board.rename(columns={score: "score"}).set_index(r.entity)


# --------------------------------------------------------------------------- invariants over the registry


def test_official_weights_reproduce_the_verdict(rescorer):
    official = _official_board(rescorer)
    mine = rescorer.leaderboard().set_index(rescorer.entity)
    assert mine["place"].to_dict() == official["place"].to_dict()
    assert mine["score"].to_numpy() == pytest.approx(official.loc[mine.index, "score"].to_numpy(), abs=1e-12)
    assert (mine["change"] == 0).all()


def test_uniform_weights_reproduce_the_unweighted_verdict(rescorer):
    uniform = np.ones(rescorer.n_weights)
    if rescorer.linear:
        unweighted = judge_submissions(evalrs_like_submissions(), "evalrs2022",
                                       weights=dict.fromkeys(rescorer.weight_names, 1.0)).leaderboard
        expected = unweighted.set_index("team")[["place", "stage2"]].rename(columns={"stage2": "score"})
    else:
        rules = rescorer.rules.with_options(weights=dict.fromkeys(rescorer.weight_names, 1.0))
        expected = judge(RUNS, rules).leaderboard.set_index("method")[["place", "score"]]
    mine = rescorer.leaderboard(uniform).set_index(rescorer.entity)
    assert mine["place"].to_dict() == expected["place"].to_dict()
    assert mine["score"].to_numpy() == pytest.approx(expected.loc[mine.index, "score"].to_numpy(), abs=1e-12)


@pytest.mark.parametrize("factor", [0.01, 3.0, 1000.0])
def test_scaling_all_weights_changes_nothing(rescorer, factor):
    weights = sample_weights(rescorer.n_weights, 5, seed=7)
    for w in weights:
        assert rescorer.places(w * factor).tolist() == rescorer.places(w).tolist()
        assert rescorer.scores(w * factor) == pytest.approx(rescorer.scores(w), abs=1e-12)


def test_vectorised_rescoring_agrees_with_one_at_a_time(rescorer):
    weights = np.vstack([sample_weights(rescorer.n_weights, 50, seed=3), np.eye(rescorer.n_weights)])
    many = rescorer.scores_many(weights)
    one_by_one = np.array([rescorer.scores(w) for w in weights])
    assert many == pytest.approx(one_by_one, abs=1e-12)


def test_permuting_the_input_changes_nothing():
    shuffled = RUNS.sample(frac=1.0, random_state=5).reset_index(drop=True)
    a = Rescorer.from_verdict(judge(RUNS, load_rules("srbench2022")))
    b = Rescorer.from_verdict(judge(shuffled, load_rules("srbench2022")))
    w = sample_weights(3, 20, seed=2)
    assert a.methods == b.methods
    assert (a.scores_many(w) == b.scores_many(w)).all()


def test_weights_given_by_name_keep_the_others_official():
    r = RESCORERS["srbench2022-weighted"]()
    assert r.official_weights.tolist() == [2.0, 1.0, 0.5]
    assert r.weights_from({"simplicity": 4}).tolist() == [2.0, 4.0, 0.5]


@pytest.mark.parametrize("weights, message", [
    ([1.0, 2.0], r"Expected 3 weights \(accuracy, simplicity, property\). Got 2."),
    ([1.0, -1.0, 1.0], r"Weights must be finite numbers >= 0. Got simplicity = -1.0."),
    ([1.0, np.nan, 1.0], r"Weights must be finite numbers >= 0. Got simplicity = nan."),
    ([0.0, 0.0, 0.0], r"At least one weight must be > 0"),
    ({"speed": 1.0}, r"Unknown weight\(s\) speed. Weights: accuracy, simplicity, property."),
])
def test_bad_weights_are_refused(weights, message):
    with pytest.raises(RulesError, match=message):
        _harmonic("srbench2022").scores(weights)


def test_bad_weight_matrices_are_refused():
    r = _harmonic("srbench2022")
    with pytest.raises(RulesError, match=r"Expected a weight matrix of shape \(n, 3\). Got \(2, 2\)."):
        r.scores_many(np.ones((2, 2)))
    with pytest.raises(RulesError, match="at least one > 0 in each vector"):
        r.scores_many(np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]))


def test_a_rescorer_needs_a_verdict():
    with pytest.raises(SrdashError, match="A Rescorer is built from a Verdict or a MultiObjectiveVerdict. Got DataFrame."):
        Rescorer.from_verdict(RUNS)


# --------------------------------------------------------------------------- sampling


def test_sampled_rankings_are_reproducible_from_the_seed(rescorer):
    first = place_probabilities(rescorer, samples=500, seed=11)
    again = place_probabilities(rescorer, samples=500, seed=11)
    other = place_probabilities(rescorer, samples=500, seed=12)
    assert (first.weights == again.weights).all() and (first.places == again.places).all()
    pd.testing.assert_frame_equal(first.table, again.table)
    assert (first.kendall_tau == again.kendall_tau).all()
    assert not (first.weights == other.weights).all()


def test_place_probabilities_are_probabilities(rescorer):
    result = place_probabilities(rescorer, samples=400, seed=0)
    table = result.table
    places = table[[c for c in table.columns if c.startswith("place_")]]
    assert places.sum(axis=1).to_numpy() == pytest.approx(np.ones(len(table)))
    assert (table["p_win"] == table["place_1"]).all()
    assert np.allclose(result.weights.sum(axis=1), 1) and (result.weights >= 0).all()
    # the sampled places are the rescorer's places at the sampled weights
    for i in (0, 17, 399):
        assert result.places[i].tolist() == rescorer.places(result.weights[i]).tolist()
    assert table["official_place"].is_monotonic_increasing


def test_kendall_tau_matches_scipy():
    from scipy.stats import kendalltau

    rng = np.random.default_rng(0)
    reference = rng.integers(1, 6, size=9)
    rankings = rng.integers(1, 6, size=(30, 9))  # with ties
    expected = [kendalltau(row, reference).statistic for row in rankings]
    assert kendall_tau(rankings, reference) == pytest.approx(expected, abs=1e-12)


def test_sample_weights_refuses_nonsense():
    with pytest.raises(SrdashError, match="The number of samples must be a positive integer. Got 0."):
        sample_weights(3, 0)


# --------------------------------------------------------------------------- ternary map and sweep


def test_ternary_map_vertices_are_single_criterion_winners():
    r = _harmonic("srbench2022")
    tmap = ternary_winner_map(r, resolution=10)
    assert len(tmap.winners) == 66
    for corner in np.eye(3):
        point = int(np.flatnonzero((tmap.weights == corner).all(axis=1))[0])
        winners = [m for m, p in zip(r.methods, r.places(corner)) if p == 1]
        assert tmap.winners[point] == " = ".join(winners)
    assert tmap.official == pytest.approx([1 / 3] * 3)
    assert tmap.official_winner == r.leaderboard()["method"].iloc[0]


def test_ternary_map_needs_three_weights():
    r = Rescorer.from_verdict(judge(RUNS.drop(columns="property"), accuracy_and_simplicity_rules()))
    with pytest.raises(SrdashError, match=r"A ternary map needs exactly three weights; these rules have 2 "
                                          r"\(accuracy, simplicity\)."):
        ternary_winner_map(r)


def test_weight_sweep_passes_through_the_current_weights():
    r = _harmonic("srbench2022")
    weights = np.array([1.0, 0.5, 2.0])
    sweep = weight_sweep(r, "simplicity", weights=weights, maximum=2.0, points=5)  # 0, .5, 1, 1.5, 2
    assert sweep.values.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert sweep.places[1].tolist() == r.places(weights).tolist()
    assert sweep.places[0].tolist() == r.places([1.0, 0.0, 2.0]).tolist()
    with pytest.raises(RulesError, match="Unknown weight 'speed'. Weights: accuracy, simplicity, property."):
        weight_sweep(r, "speed")


# --------------------------------------------------------------------------- targeted search

# Three methods on one dataset, ranks (3 = best): a (accuracy 3, simplicity 2), b (1, 3), c (2, 1).
# With equal weights a wins (hmean 2.4 vs 1.5 and 1.33). b wins once simplicity weighs enough:
# b - a = (wa + ws)(1/(wa + ws/3) - 1/(wa/3 + ws/2)) > 0 iff ws > 4 wa. c can never win: a ranks
# at least as high on every criterion (3 >= 2, 2 >= 1).
TARGET_RUNS = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0,
                            "r2_test": [0.9, 0.4, 0.5], "simplicity": [-1.0, -0.5, -2.0]})


def test_search_finds_weights_for_a_method_that_can_win():
    rules = accuracy_and_simplicity_rules()
    r = Rescorer.from_verdict(judge(TARGET_RUNS, rules))
    assert r.leaderboard()["method"].tolist() == ["a", "b", "c"]
    answer = find_winning_weights(r, "b", samples=500, seed=0)
    assert answer.status == "found" and answer.exists is True
    assert answer.approach.startswith("search")  # the harmonic mean is not linear in the weights
    assert answer.weights["simplicity"] > 4 * answer.weights["accuracy"]
    assert answer.margin > 0
    # judged again from scratch with these weights, b is alone in first place
    board = judge(TARGET_RUNS, rules.with_options(weights=dict(answer.weights))).leaderboard
    assert board["method"].iloc[0] == "b" and (board["place"] == 1).sum() == 1


def test_search_reports_none_for_a_dominated_method():
    r = Rescorer.from_verdict(judge(TARGET_RUNS, accuracy_and_simplicity_rules()))
    answer = find_winning_weights(r, "c", samples=500)
    assert answer.status == "impossible" and answer.exists is False and answer.weights is None
    assert "'a' ranks at least as high on every dataset and criterion" in answer.explanation
    # a prediction competition's teams are ranked on metrics: no datasets in the explanation
    import dataclasses

    teams = dataclasses.replace(r, entity="team")
    answer = find_winning_weights(teams, "c", samples=500)
    assert "'a' ranks at least as high on every metric, so" in answer.explanation


def test_search_on_a_bigger_competition_is_confirmed_by_judging_again():
    rules = load_rules("srbench2022")
    r = _harmonic("srbench2022")
    for method in r.methods:
        answer = find_winning_weights(r, method, samples=2000, seed=1)
        if answer.status == "found":
            board = judge(RUNS, rules.with_options(weights=dict(answer.weights))).leaderboard
            assert board["method"].iloc[0] == method and (board["place"] == 1).sum() == 1
        else:
            assert answer.status in ("impossible", "not found")


def test_linear_program_finds_winning_weights_for_a_team_that_can_win():
    r = _linear()
    official = r.leaderboard()
    assert r.linear
    found = 0
    for team in official["team"]:
        answer = find_winning_weights(r, team)
        assert answer.approach == "linear program"
        if answer.status == "found":
            found += 1
            board = judge_submissions(evalrs_like_submissions(), "evalrs2022",
                                      weights=dict(answer.weights)).leaderboard
            assert board["team"].iloc[0] == team and (board["place"] == 1).sum() == 1
        else:
            assert answer.status == "impossible"  # a linear program proves it
    assert found >= 2  # the official winner and at least one other


def test_linear_program_reports_none_for_a_dominated_team():
    frame = evalrs_like_submissions()
    # team0's submissions copied as 'shadow' with every metric a little worse: it can never lead team0
    shadow = frame[frame["participant_id"] == "team0"].copy()
    shadow["participant_id"] = "shadow"
    metrics = [c for c in frame.columns if c != "participant_id"]
    shadow[metrics] = shadow[metrics] - 1e-4
    shadow["hit_rate"] = shadow["hit_rate"].clip(lower=0.02)  # above the -100 threshold
    r = Rescorer.from_verdict(judge_submissions(pd.concat([frame, shadow], ignore_index=True), "evalrs2022"))
    answer = find_winning_weights(r, "shadow")
    assert answer.status == "impossible" and answer.weights is None
    assert answer.approach == "linear program"
    assert "at least as good on every meta-score" in answer.explanation


def test_the_official_winner_wins_with_the_official_weights_as_the_closest():
    r = _linear()
    winner = r.leaderboard()["team"].iloc[0]
    answer = find_winning_weights(r, winner)
    official = r.official_weights / r.official_weights.sum()
    assert np.array(list(answer.weights.values())) == pytest.approx(official, abs=1e-9)


def test_unknown_target_is_refused():
    with pytest.raises(SrdashError, match="Unknown method 'zz'. Known: m0, m1, m2, m3, m4, m5."):
        find_winning_weights(_harmonic("srbench2022"), "zz")


# --------------------------------------------------------------------------- irrelevant alternatives

# One criterion, five datasets, ranks 3 = best (Borda-like):
#   d1, d2: A > C > B  (A 3, C 2, B 1);  d3, d4, d5: B > A > C  (B 3, A 2, C 1)
#   A = (3+3+2+2+2)/5 = 2.4, B = (1+1+3+3+3)/5 = 2.2, C = 1.4  -> A first.
# Without C (ranks 2 = best): A = (2+2+1+1+1)/5 = 1.4, B = (1+1+2+2+2)/5 = 1.6 -> B first:
# removing C swaps A and B.
ORDERS = ["ACB", "ACB", "BAC", "BAC", "BAC"]
IIA_RUNS = pd.DataFrame([{"method": m, "dataset": f"d{d}", "run": 0, "r2_test": [0.9, 0.6, 0.3][pos]}
                         for d, order in enumerate(ORDERS, start=1) for pos, m in enumerate(order)])
ONE_CRITERION = parse_rules('[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"\n')


def test_removing_a_method_can_swap_two_others():
    r = Rescorer.from_verdict(judge(IIA_RUNS, ONE_CRITERION), runs=IIA_RUNS)
    assert r.scores().tolist() == pytest.approx([2.4, 2.2, 1.4])
    table = irrelevant_alternatives(r)
    first = table.iloc[0]
    assert (first["removed"], first["winner"], first["winner_without"]) == ("C", "A", "B")
    assert bool(first["winner_changes"]) and first["swaps"] == 1 and first["swapped_pairs"] == "A/B"
    assert table.set_index("removed").loc[["A", "B"], "swaps"].tolist() == [0, 0]


@pytest.mark.parametrize("options", [{}, {"rank_method": "k-minus-dense", "run_aggregation": "mean"},
                                     {"run_aggregation": "rank-mean"}, {"rank_method": "min"}])
def test_removal_rescores_exactly_as_judging_without_the_method(options):
    rules = load_rules("srbench2022").with_options(**options)
    r = Rescorer.from_verdict(judge(RUNS, rules), runs=RUNS)
    for removed in ("m0", "m3"):
        reduced = r.without(removed)
        others = [m for m in r.methods if m != removed]
        expected = judge(RUNS[RUNS["method"] != removed], rules, methods=others).leaderboard.set_index("method")
        assert reduced.methods == tuple(others)
        assert reduced.scores() == pytest.approx(expected.loc[others, "score"].to_numpy(), abs=1e-12)


def test_removal_without_the_runs_says_what_it_needs():
    rules = load_rules("srbench2022").with_options(run_aggregation="rank-mean")
    r = Rescorer.from_verdict(judge(RUNS, rules))
    with pytest.raises(SrdashError, match="means judging again from the per-run table: build the Rescorer with runs="):
        r.without("m0")


def test_constant_normalisation_makes_teams_independent_of_each_other():
    table = irrelevant_alternatives(_linear())
    assert (table["swaps"] == 0).all() and not table["winner_changes"].any()


# --------------------------------------------------------------------------- loading and the CLI

TWO_CRITERIA_RULES = """
name = "two-criteria"
kind = "rank-harmonic"
[[criteria]]
name = "accuracy"
column = "r2_test"
[[criteria]]
name = "property"
column = "property"
"""


def _write_results(folder: Path) -> Path:
    path = folder / "results.csv"
    RUNS.assign(components=5).drop(columns="simplicity").to_csv(path, index=False)
    (folder / "rules.toml").write_text(TWO_CRITERIA_RULES)
    return path


def test_load_rescorer_reads_and_judges_once(tmp_path):
    path = _write_results(tmp_path)
    r = load_rescorer(path, tmp_path / "rules.toml")
    assert r.weight_names == ("accuracy", "property") and len(r.methods) == 6
    expected = judge(RUNS, parse_rules(TWO_CRITERIA_RULES)).leaderboard
    assert r.leaderboard()["method"].tolist() == expected["method"].tolist()


def test_load_rescorer_needs_submissions_for_normalised_weighted_rules():
    with pytest.raises(SrdashError, match="The rules 'evalrs2022' judge submissions: give a submissions file"):
        load_rescorer(None, "evalrs2022")


def test_cli_writes_the_place_probability_table(tmp_path):
    path = _write_results(tmp_path)
    out = tmp_path / "probabilities.csv"
    args = ["sensitivity", str(path), "--rules", str(tmp_path / "rules.toml"), "--samples", "300", "--seed", "4",
            "-o", str(out), "--target", "m0"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    assert table.columns[:4].tolist() == ["method", "official_place", "p_win", "mean_place"]
    assert table.columns[4:].tolist() == [f"place_{p}" for p in range(1, 7)]
    expected = place_probabilities(load_rescorer(path, tmp_path / "rules.toml"), samples=300, seed=4).table
    assert table["p_win"].to_numpy() == pytest.approx(expected["p_win"].to_numpy())
    assert "Kendall tau to the official ranking" in result.output
    assert "Target m0:" in result.output
    # the same seed writes the same file
    again = tmp_path / "again.csv"
    CliRunner().invoke(main, args[:-4] + ["-o", str(again), "--target", "m0"])
    assert again.read_text() == out.read_text()


def test_cli_sensitivity_on_submissions(tmp_path):
    path = tmp_path / "subs.csv"
    evalrs_like_submissions().to_csv(path, index=False)
    result = CliRunner().invoke(main, ["sensitivity", str(path), "--rules", "evalrs2022", "--samples", "200"])
    assert result.exit_code == 0, result.output
    assert "team  official_place" in result.output
    assert "weights performance, fairness, behavioural (official 1, 1.5, 1.5)" in result.output


def test_cli_sensitivity_reports_errors_cleanly(tmp_path):
    path = _write_results(tmp_path)
    result = CliRunner().invoke(main, ["sensitivity", str(path), "--rules", str(tmp_path / "rules.toml"),
                                       "--target", "nobody"])
    assert result.exit_code == 1
    assert "Error: Unknown method 'nobody'." in result.output


@pytest.mark.realdata
@pytest.mark.skipif(not EVALRS.is_file(), reason=f"real EvalRS data not found at {EVALRS}")
def test_sensitivity_of_the_real_evalrs_verdict(tmp_path):
    out = tmp_path / "p.csv"
    result = CliRunner().invoke(main, ["sensitivity", str(EVALRS), "--rules", "evalrs2022", "--samples", "2000",
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    assert len(table) == 57 and table["official_place"].iloc[0] == 1


# --------------------------------------------------------------------------- figures


def test_figures_have_the_expected_traces():
    from srdash.figures.sensitivity import (bump_chart, kendall_tau_histogram, place_probability_heatmap,
                                            ternary_winner_figure)

    r = _harmonic("srbench2022")
    sweep = weight_sweep(r, "accuracy", points=11)
    bump = bump_chart(sweep)
    assert [t.name for t in bump.data] == list(r.methods)
    assert bump.layout.shapes[0].x0 == 1.0 and tuple(bump.layout.yaxis.range) == (6.5, 0.5)  # 1 = best on top
    result = place_probabilities(r, samples=200)
    heatmap = place_probability_heatmap(result)
    assert heatmap.data[0].z.shape == (6, 6)
    assert "200 weight vectors" in heatmap.layout.title.text
    assert kendall_tau_histogram(result).data[0].type == "histogram"
    ternary = ternary_winner_figure(ternary_winner_map(r, resolution=6))
    assert ternary.data[-1].name == "official weights"
    assert sum(len(t.a) for t in ternary.data[:-1]) == 28


def test_untrusted_names_are_escaped_everywhere():
    from srdash.figures.sensitivity import alternatives_html, bump_chart, leaderboard_html

    hostile = "<img src=x onerror=alert(1)>"
    runs = IIA_RUNS.replace({"method": {"C": hostile}})
    r = Rescorer.from_verdict(judge(runs, ONE_CRITERION), runs=runs)
    pages = [leaderboard_html(r.leaderboard()), alternatives_html(irrelevant_alternatives(r))]
    assert all(hostile not in page and "&lt;img" in page for page in pages)
    assert hostile not in bump_chart(weight_sweep(r, "accuracy", points=3)).to_json()


# --------------------------------------------------------------------------- the widget


def _bump_figure(view) -> dict:
    """The bump chart as the page receives it: the plotly JSON in the view's figure panel."""
    (output,) = view._bump.outputs
    return output["data"]["application/vnd.plotly.v1+json"]


def test_moving_a_slider_updates_the_leaderboard_and_redraws_the_bump_chart():
    widgets = pytest.importorskip("ipywidgets")
    from srdash.apps.sensitivity import SensitivityView

    r = Rescorer.from_verdict(judge(TARGET_RUNS, accuracy_and_simplicity_rules()))
    view = SensitivityView(r, samples=100)
    assert isinstance(view, widgets.VBox)
    assert view.order == ("a", "b", "c")
    before = _bump_figure(view)
    assert before["layout"]["shapes"][0]["x0"] == 1.0  # the official weight is marked
    slider = view._sliders["simplicity"]
    slider.value = 3.0
    slider_accuracy = view._sliders["accuracy"]
    slider_accuracy.value = 0.5  # simplicity 6 x accuracy: b wins
    assert view.weights == (0.5, 3.0)
    assert view.order == ("b", "a", "c")
    assert 'data-name="b"' in view.leaderboard.value.split("<tr")[2]
    after = _bump_figure(view)
    assert [t["y"] for t in after["data"]] != [t["y"] for t in before["data"]]
    assert after["layout"]["shapes"][0]["x0"] == 0.5 and view.swept == "accuracy"
    assert "weight of" in after["layout"]["xaxis"]["title"]["text"].lower()
    assert view.log_panel.text() == ""
    # the verdict's warnings are shown (here: the sympy version srbench2022's simplicity was computed with)
    assert "srdash is running sympy" in view.status.value


def test_widget_errors_go_to_the_visible_log_and_reset_restores_the_official_weights():
    pytest.importorskip("ipywidgets")
    from srdash.apps.sensitivity import SensitivityView

    view = SensitivityView(Rescorer.from_verdict(judge(TARGET_RUNS, accuracy_and_simplicity_rules())), samples=100)
    view._sliders["accuracy"].value = 0.0
    view._sliders["simplicity"].value = 0.0
    assert "Error while re-scoring with the new weights: At least one weight must be > 0" in view.log_panel.text()
    view.reset_button.click()
    assert view.weights == (1.0, 1.0) and view.order == ("a", "b", "c")
    assert [s.value for s in view._sliders.values()] == [1.0, 1.0]


def test_widget_targeted_search_can_apply_the_weights_found():
    pytest.importorskip("ipywidgets")
    from srdash.apps.sensitivity import SensitivityView

    view = SensitivityView(Rescorer.from_verdict(judge(TARGET_RUNS, accuracy_and_simplicity_rules())), samples=100)
    view.target_picker.value = "b"
    view.target_button.click()
    assert "Found:" in view.target_result.value and not view.apply_button.disabled
    view.apply_button.click()
    assert view.order[0] == "b"
    view.target_picker.value = "c"
    view.target_button.click()
    assert "Impossible." in view.target_result.value and view.apply_button.disabled


def test_widget_flags_a_verdict_that_depends_on_a_method_presence():
    pytest.importorskip("ipywidgets")
    from srdash.apps.sensitivity import SensitivityView

    view = SensitivityView(Rescorer.from_verdict(judge(IIA_RUNS, ONE_CRITERION), runs=IIA_RUNS), samples=50)
    assert "The verdict depends on which methods take part" in view.alternatives.value
    assert "The winner changes when C is removed." in view.alternatives.value
    # one criterion: no ternary map, and why, in the rules' words (a note, not an error)
    assert view.ternary.outputs[0]["data"]["text/plain"] == (
        "No winner map here: it shows the shares of exactly three weights on a triangle, and there is 1 weight, "
        "one per criterion. The place probabilities above cover every share.")
    assert "Error" not in view.log_panel.text()


def test_widget_resampling_freezes_the_controls_and_redraws():
    pytest.importorskip("ipywidgets")
    from srdash.apps.sensitivity import SensitivityView

    view = SensitivityView(_harmonic("srbench2022"), samples=100, seed=0)
    seen = []
    view.observe(lambda change: seen.append((change["new"], view.resample_button.disabled)), names="busy")
    view.seed_input.value = 5
    view.resample_button.click()
    assert seen == [(True, True), (False, False)]
    assert "seed 5" in view.heatmap.outputs[0]["data"]["text/plain"] or \
        "seed 5" in str(view.heatmap.outputs[0]["data"])
    assert "Winner over all weights" in str(view.ternary.outputs[0]["data"])


def test_other_refusals_say_what_to_do():
    r = _harmonic("srbench2022")
    with pytest.raises(SrdashError, match="Unknown method 'zz'. Known: m0, m1"):
        r.without("zz")
    lonely = Rescorer.from_verdict(judge(RUNS[RUNS["method"] == "m0"], load_rules("srbench2022")))
    with pytest.raises(SrdashError, match="Cannot remove the only competitor."):
        lonely.without("m0")
    assert find_winning_weights(lonely, "m0").status == "found"
    with pytest.raises(SrdashError, match="The resolution must be a positive integer. Got 0."):
        ternary_winner_map(r, resolution=0)
    with pytest.raises(SrdashError, match="Need at least one weight. Got 0."):
        sample_weights(0, 10)


def test_cli_sensitivity_with_srbench_rules_simplifies_nothing_when_components_are_given(tmp_path):
    pytest.importorskip("srdash.expressions")
    path = tmp_path / "results.csv"
    RUNS.drop(columns="simplicity").assign(components=(RUNS["simplicity"].abs() * 10 + 1).round()).to_csv(
        path, index=False)
    out = tmp_path / "p.csv"
    result = CliRunner().invoke(main, ["sensitivity", str(path), "--samples", "100", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "weights accuracy, simplicity, property (official 1, 1, 1)" in result.output
    assert len(pd.read_csv(out)) == 6


def test_the_view_loads_from_the_environment(tmp_path):
    pytest.importorskip("ipywidgets")
    from srdash.apps.sensitivity import SensitivityView

    path = _write_results(tmp_path)
    from srdash.judging.competition import competition_from_options

    competition = competition_from_options(path, rules=tmp_path / "rules.toml")
    view = SensitivityView.from_environment({"SRDASH_COMPETITION": competition.to_json()}, samples=50, seed=3,
                                            served=True)
    # The sliders are built only once a browser has displayed the view (see PageReady): loaded, not yet shown.
    assert view.wait(60) and view._sliders == {} and view.rescorer is None
    view.page_ready._on_message(view.page_ready, {"event": "displayed"}, [])   # what the browser sends
    assert view.log_panel.text() == ""
    expected = judge(RUNS, parse_rules(TWO_CRITERIA_RULES)).leaderboard["method"].tolist()
    assert list(view.order) == expected
    assert [s.description for s in view._sliders.values()] == ["accuracy", "property"]
    # one label width for every slider, so that equal weights sit at the same place
    assert {s.style.description_width for s in view._sliders.values()} == {"10ch"}
    assert view.seed_input.value == 3 and view.samples_input.value == 50


def test_the_view_speaks_the_rules_words_unless_told_otherwise():
    pytest.importorskip("ipywidgets")
    from srdash.apps.sensitivity import SensitivityView
    from srdash.figures.sensitivity import Vocabulary

    rescorer = Rescorer.from_verdict(judge(TARGET_RUNS, accuracy_and_simplicity_rules()))
    view = SensitivityView(rescorer, samples=50)
    n = len(rescorer.methods)
    assert f"{n} methods, 2 weights, one per criterion. Places: 1 = best." in view.status.value
    assert "harmonic mean of per-dataset ranks" in view.explanation.value       # rescorer.what_is_weighted
    assert "<th>Method</th>" in view.leaderboard.value
    assert "one per criterion" in view.ternary.outputs[0]["data"]["text/plain"]
    # other words, given after the rescorer: every text follows
    view.vocabulary = Vocabulary(competitor="team", weighted="metric", explanation="Metric weights.")
    assert f"{n} teams, 2 weights, one per metric." in view.status.value
    assert view.explanation.value == "<div class='srdash-note'>Metric weights.</div>"
    assert "<th>Team</th>" in view.leaderboard.value
    assert "one per metric" in view.ternary.outputs[0]["data"]["text/plain"]
    assert view.log_panel.text() == ""


def test_normalised_weighted_rules_weigh_meta_scores_of_teams():
    from srdash.figures.sensitivity import Vocabulary

    frame = pd.DataFrame({"participant_id": ["a", "b"], "hit_rate": [0.02, 0.2], "mrr": [0.002, 0.05],
                          "mred_country": -0.005, "mred_track_popularity": -0.006, "mred_user_activity": -0.01,
                          "mred_artist_popularity": -0.0037, "mred_gender": -0.001, "being_less_wrong": [0.4, 0.3],
                          "latent_diversity": -0.3})
    from srdash.judging.multiobjective import judge_submissions

    rescorer = Rescorer.from_verdict(judge_submissions(frame, "evalrs2022"))
    for words in (Vocabulary.of_rules(rescorer), Vocabulary.of_prediction_metrics(rescorer)):
        assert (words.competitor, words.weighted) == ("team", "meta-score")
        assert words.weights(3) == "3 weights, one per meta-score"
        assert words.explanation == rescorer.what_is_weighted


def test_figure_titles_fit_a_phone_and_the_colour_bar_title_stands_beside_it():
    # A phone's plot is about 350 px wide: 46 characters of 15 px text (about 7 px each) fit; longer
    # one-line titles were clipped at 390 px (seen in the browser tests' screenshots).
    from srdash.figures.sensitivity import (bump_chart, kendall_tau_histogram, place_probability_heatmap,
                                            ternary_winner_figure)

    r = _harmonic("srbench2022")
    probabilities = place_probabilities(r, samples=100)
    figures = [bump_chart(weight_sweep(r, "accuracy", points=5)), place_probability_heatmap(probabilities),
               kendall_tau_histogram(probabilities), ternary_winner_figure(ternary_winner_map(r, resolution=4))]
    for figure in figures:
        lines = figure.layout.title.text.split("<br>")
        assert len(lines) == 2 and max(map(len, lines)) <= 46, lines
        assert figure.layout.title.font.size == 15
        assert figure.layout.margin.t >= 30 + 20 * len(lines)          # room for every line above the plot
    assert figures[0].layout.title.text == "Places as the weight of Accuracy (test R²)<br>varies, the others fixed"
    assert figures[1].layout.title.text == ("Place probabilities over 100 weight vectors<br>uniform on the simplex "
                                            "(seed 0)")
    assert figures[2].layout.title.text.startswith("Sampled rankings against the official one<br>Kendall τ: mean ")
    assert figures[1].data[0].colorbar.title.side == "right"        # not above the bar, on its '100%' tick
    assert figures[2].layout.xaxis.dtick == 0.5                     # five τ ticks, apart on a phone
    assert figures[2].layout.xaxis.ticklen == 8                     # '−1' below the y axis' '0', not on it


def test_the_kendall_tau_histogram_draws_the_bar_at_one_whole():
    # tau = 1 (a sampled ranking in the official order) falls in a bar centred on 1, inside the axis
    from srdash.analysis.sensitivity.examples import example_rescorer
    from srdash.figures.sensitivity import kendall_tau_histogram

    from srdash.analysis import sensitivity as analysis

    figure = kendall_tau_histogram(analysis.place_probabilities(example_rescorer(), samples=200))
    bins = figure.data[0].xbins
    k = round((1.0 - bins.start) / bins.size - 0.5)                  # the bin holding 1.0
    low, high = bins.start + k * bins.size, bins.start + (k + 1) * bins.size
    assert low < 1.0 < high and abs((low + high) / 2 - 1.0) < 1e-9
    assert figure.layout.xaxis.range[1] >= high and figure.layout.xaxis.range[0] <= bins.start


def test_the_sensitivity_package_keeps_every_name_the_module_exported():
    # analysis/sensitivity.py's __all__ before it became a package (issue 36), in its order.
    from srdash.analysis import sensitivity

    exported = ["Rescorer", "load_rescorer", "rescorer_of", "sample_weights", "kendall_tau", "PlaceProbabilities",
                "place_probabilities", "TernaryMap", "ternary_winner_map", "WeightSweep", "weight_sweep",
                "WinningWeights", "find_winning_weights", "irrelevant_alternatives"]
    assert sensitivity.__all__ == exported
    assert [name for name in exported if not hasattr(sensitivity, name)] == []
    assert (sensitivity.HARMONIC, sensitivity.LINEAR) == ("harmonic", "linear")
