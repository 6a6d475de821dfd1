"""Tests of the bootstrap of a verdict (srdash.analysis.robustness, `srdash robustness`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.errors import SrdashError
from srdash.judging.ranking import judge
from srdash.analysis.robustness import bootstrap
from srdash.judging.rules import load_rules, parse_rules

DATA = Path(__file__).parent / "data"
ACCURACY = parse_rules('[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"\ndecimals = 3')


def built_competition(seed: int, *, n_methods=5, n_datasets=8, n_runs=3, dnf_rate=0.08,
                      coarse=True) -> pd.DataFrame:
    """Random per-run table with ties (coarse values) and DNF cells."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_methods):
        for d in range(n_datasets):
            if rng.random() < dnf_rate:
                continue
            for r in range(n_runs):
                rows.append({"method": f"m{m}", "dataset": f"d{d}", "run": r,
                             "r2_test": np.round(rng.uniform(0.5, 1.0), 2 if coarse else 6),
                             "simplicity": -np.round(rng.uniform(0.5, 2.5), 1),
                             "property": rng.choice([0.0, 0.5, 1.0])})
    return pd.DataFrame(rows)


def dominant_competition(n_datasets=12, n_runs=5, seed=0) -> pd.DataFrame:
    """'best' beats every other method on every run of every dataset on every criterion."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_datasets):
        for r in range(n_runs):
            rows.append({"method": "best", "dataset": f"d{d}", "run": r, "r2_test": rng.uniform(0.9, 0.95),
                         "simplicity": -0.5, "property": 1.0})
            for m in ("x", "y", "z"):
                rows.append({"method": m, "dataset": f"d{d}", "run": r, "r2_test": rng.uniform(0.3, 0.8),
                             "simplicity": -rng.uniform(1.0, 2.5), "property": rng.choice([0.0, 0.5])})
    return pd.DataFrame(rows)


def trading_competition(n_datasets=20) -> pd.DataFrame:
    """a wins the even datasets, b the odd ones (one criterion, one run)."""
    rows = []
    for d in range(n_datasets):
        a, b = (0.9, 0.1) if d % 2 == 0 else (0.1, 0.9)
        rows += [{"method": "a", "dataset": f"d{d:02d}", "run": 0, "r2_test": a},
                 {"method": "b", "dataset": f"d{d:02d}", "run": 0, "r2_test": b}]
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# What issue 8 must show
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["srbench2022", "srbench2022-as-run"])
@pytest.mark.parametrize("resample", ["both", "datasets", "runs"])
def test_a_method_that_wins_every_dataset_by_a_margin_wins_every_redraw(preset, resample):
    # the as-run rules use options the vectorised engine does not take: every redraw is judged again
    # (about 25 ms each), so fewer redraws; a dominant method wins each of them either way
    n_bootstrap = 500 if preset == "srbench2022" else 60
    result = bootstrap(dominant_competition(), load_rules(preset), n_bootstrap=n_bootstrap, seed=3, resample=resample)
    summary = result.summary.set_index("method")
    assert summary.loc["best", "p_win"] == 1.0
    assert summary.loc["best", "expected_place"] == 1.0
    assert result.place_probability.loc["best"].tolist()[0] == 1.0
    assert (summary.drop(index="best")["p_win"] == 0.0).all()


def test_two_methods_that_trade_wins_each_win_about_half_the_redraws():
    # With 20 datasets, a's score is 1 + (share of a-won datasets in the redraw): a and b are exchangeable,
    # so E[P(win)] = 0.5 exactly (a 10/10 redraw is a tie, split evenly). Monte-Carlo SE at B = 4000: 0.008.
    result = bootstrap(trading_competition(), ACCURACY, n_bootstrap=4000, seed=11)
    p_win = result.summary.set_index("method")["p_win"]
    assert p_win["a"] == pytest.approx(0.5, abs=0.04)
    assert p_win["b"] == pytest.approx(0.5, abs=0.04)
    assert p_win.sum() == pytest.approx(1.0)


def test_same_seed_same_numbers_other_seed_other_numbers():
    table = built_competition(1)
    rules = load_rules("srbench2022")
    first = bootstrap(table, rules, n_bootstrap=300, seed=7)
    again = bootstrap(table, rules, n_bootstrap=300, seed=7)
    pd.testing.assert_frame_equal(first.to_frame(), again.to_frame())
    pd.testing.assert_frame_equal(first.scores, again.scores)
    other = bootstrap(table, rules, n_bootstrap=300, seed=8)
    assert not first.scores.equals(other.scores)


# ---------------------------------------------------------------------------
# Golden: two datasets, each won by one method
# ---------------------------------------------------------------------------
def test_golden_two_datasets():
    # d1: a 2, b 1; d2: a 1, b 2 (K = 2). Redraws of two datasets:
    #   {d1, d1} (p 1/4): a 2.0, b 1.0 -> a wins;  {d2, d2} (1/4): b wins;
    #   {d1, d2} or {d2, d1} (1/2): 1.5 each, a tie split evenly.
    # So P(win a) = 1/4 + 1/2 * 1/2 = 1/2, and a's score is 1, 1.5 or 2 with
    # probability 1/4, 1/2, 1/4: its 95 % interval is [1, 2].
    table = trading_competition(n_datasets=2)
    result = bootstrap(table, ACCURACY, n_bootstrap=4000, seed=0)
    summary = result.summary.set_index("method")
    assert summary.loc["a", "p_win"] == pytest.approx(0.5, abs=0.03)
    assert (summary.loc["a", "score_low"], summary.loc["a", "score_high"]) == (1.0, 2.0)
    assert set(np.unique(result.scores["a"])) == {1.0, 1.5, 2.0}
    assert np.mean(result.scores["a"] == 1.5) == pytest.approx(0.5, abs=0.03)


def test_the_observed_columns_come_from_the_verdict():
    table = built_competition(2)
    rules = load_rules("srbench2022")
    result = bootstrap(table, rules, n_bootstrap=50)
    board = judge(table, rules).leaderboard
    assert result.summary["method"].tolist() == board["method"].tolist()
    assert result.summary["place"].tolist() == board["place"].tolist()
    assert result.summary["score"].tolist() == board["score"].tolist()


def test_place_probabilities_form_a_doubly_stochastic_matrix():
    result = bootstrap(built_competition(4, n_methods=6), load_rules("srbench2022"), n_bootstrap=400, seed=2)
    matrix = result.place_probability.to_numpy()
    assert np.allclose(matrix.sum(axis=1), 1.0) and np.allclose(matrix.sum(axis=0), 1.0)
    assert np.allclose(result.summary["p_win"], matrix[:, 0])
    assert (result.summary["score_low"] <= result.summary["score_high"]).all()


def test_a_tie_in_every_redraw_splits_the_places():
    table = pd.DataFrame({"method": ["a", "b"] * 3, "dataset": ["d1", "d1", "d2", "d2", "d3", "d3"], "run": 0,
                          "r2_test": [0.5] * 6})
    result = bootstrap(table, ACCURACY, n_bootstrap=100)
    assert result.place_probability.to_numpy().tolist() == [[0.5, 0.5], [0.5, 0.5]]


# ---------------------------------------------------------------------------
# Engines: the vectorised engine and the dataset-score shortcut equal judge() per redraw
# ---------------------------------------------------------------------------
ENGINE_RULES = {
    "published (median, average)": load_rules("srbench2022"),
    # the old srbench2022-as-run: srbench2022-as-run itself (DNFs left out, normalisation, ...) is judged per redraw
    "mean, k-minus-dense": load_rules("srbench2022").with_options(run_aggregation="mean", rank_method="k-minus-dense"),
    "median, min": load_rules("srbench2022").with_options(rank_method="min"),
    "median, max": load_rules("srbench2022").with_options(rank_method="max"),
    "mean, dense": load_rules("srbench2022").with_options(run_aggregation="mean", rank_method="dense"),
    "weighted": load_rules("srbench2022").with_options(weights={"accuracy": 2.0, "property": 0.0}),
}


@pytest.mark.parametrize("name", sorted(ENGINE_RULES))
@pytest.mark.parametrize("resample", ["both", "datasets", "runs"])
@pytest.mark.parametrize("seed", [0, 1])
def test_fast_engines_equal_judge_per_redraw(name, resample, seed):
    # Three runs of values with 2 decimals ranked at 3: a mean is (integer)/3 in
    # units of 0.001, never exactly halfway, so both engines must round alike.
    rules = ENGINE_RULES[name]
    table = built_competition(seed, n_runs=3)
    fast = bootstrap(table, rules, n_bootstrap=8, seed=seed, resample=resample)
    slow = bootstrap(table, rules, n_bootstrap=8, seed=seed, resample=resample, engine="judge")
    assert fast.engine == ("dataset scores" if resample == "datasets" else "vectorised")
    assert slow.engine == "judge per resample"
    np.testing.assert_allclose(fast.scores.to_numpy(), slow.scores.to_numpy(), rtol=0, atol=1e-12)


def test_fast_engine_with_dnf_missing_runs_and_missing_values():
    # tests/data/golden_basic.csv: a DNF (D on d1), a method with 2 runs where others have 3, NaN values
    table = pd.read_csv(DATA / "golden_basic.csv")
    for rules in (load_rules("srbench2022"), ENGINE_RULES["mean, k-minus-dense"]):
        fast = bootstrap(table, rules, n_bootstrap=20, seed=5)
        slow = bootstrap(table, rules, n_bootstrap=20, seed=5, engine="judge")
        assert fast.engine == "vectorised"
        np.testing.assert_allclose(fast.scores.to_numpy(), slow.scores.to_numpy(), rtol=0, atol=1e-12)


THRESHOLD_RULES = parse_rules("""
[filters]
min_relative = {column = "r2_test", ratio = 0.6}
[[criteria]]
name = "accuracy"
column = "r2_test"
decimals = 3
""")


@pytest.mark.parametrize("rules", [load_rules("srbench2022").with_options(run_aggregation="rank-mean"),
                                   THRESHOLD_RULES, load_rules("srbench2022-as-run")],
                         ids=["rank-mean", "min_relative", "as-run options"])
def test_rules_the_vectorised_engine_does_not_cover_are_judged_per_redraw(rules):
    table = built_competition(0, n_datasets=4)
    result = bootstrap(table, rules, n_bootstrap=10, seed=0)
    assert result.engine == "judge per resample"
    assert result.summary["score"].tolist() == judge(table, rules).leaderboard["score"].tolist()


def test_halfway_means_are_noted():
    # four runs of 2-decimal values ranked at 3 decimals: some means are exactly halfway (x.xxx5), where
    # judge's float sum and the exact mean can round apart; the bootstrap says so and stays vectorised
    result = bootstrap(built_competition(0, n_runs=4, n_datasets=10), ENGINE_RULES["mean, k-minus-dense"],
                       n_bootstrap=10)
    assert result.engine == "vectorised"
    assert any("exactly halfway between two rounded values" in note for note in result.notes)


def test_single_run_data_resamples_datasets_only_with_a_note():
    result = bootstrap(trading_competition(), ACCURACY, n_bootstrap=10)
    assert result.resample == "datasets" and result.engine == "dataset scores"
    assert result.notes == ("No dataset has more than one run, so runs were not resampled.",)


def test_permuting_the_rows_changes_nothing():
    table = built_competition(3)
    rules = load_rules("srbench2022")
    shuffled = table.sample(frac=1.0, random_state=0).reset_index(drop=True)
    pd.testing.assert_frame_equal(bootstrap(table, rules, n_bootstrap=100, seed=4).to_frame(),
                                  bootstrap(shuffled, rules, n_bootstrap=100, seed=4).to_frame())


def test_bootstrap_does_not_mutate_its_input():
    table = built_competition(5)
    copy = table.copy()
    bootstrap(table, load_rules("srbench2022"), n_bootstrap=20)
    pd.testing.assert_frame_equal(table, copy)


def test_progress_is_reported():
    calls = []
    bootstrap(built_competition(0), load_rules("srbench2022"), n_bootstrap=30,
              progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (30, 30)


def test_to_frame_has_one_probability_column_per_place():
    result = bootstrap(built_competition(0, n_methods=3), load_rules("srbench2022"), n_bootstrap=20)
    assert list(result.to_frame().columns) == ["place", "method", "score", "p_win", "expected_place", "score_low",
                                               "score_high", "p_place_1", "p_place_2", "p_place_3"]


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("option, value, message", [
    ("n_bootstrap", 0, "The 'n_bootstrap' option must be a whole number >= 1. Got 0."),
    ("n_bootstrap", 10.5, "The 'n_bootstrap' option must be a whole number >= 1. Got 10.5."),
    ("seed", -1, "The 'seed' option must be a whole number >= 0. Got -1."),
    ("resample", "rows", "The 'resample' option must be one of 'both', 'datasets', 'runs'. Got 'rows'."),
    ("confidence", 1.0, "The 'confidence' option must be a number strictly between 0 and 1. Got 1.0."),
    ("engine", "gpu", "The 'engine' option must be one of 'auto', 'judge'. Got 'gpu'."),
])
def test_option_errors(option, value, message):
    with pytest.raises(SrdashError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        bootstrap(trading_competition(), ACCURACY, **{option: value})


def test_nothing_to_resample():
    with pytest.raises(SrdashError, match="Nothing to resample: resample='runs' needs datasets with several runs"):
        bootstrap(trading_competition(), ACCURACY, resample="runs")


def test_judge_errors_pass_through():
    with pytest.raises(SrdashError, match="Criterion 'accuracy' of the rules 'srbench2022' has no data"):
        bootstrap(pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0], "rmse": [1.0]}),
                  load_rules("srbench2022"))


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------
@pytest.fixture
def results_file(tmp_path):
    table = dominant_competition(n_datasets=6, n_runs=3).drop(columns="simplicity").assign(components=5)
    path = tmp_path / "results.csv"
    table.to_csv(path, index=False)
    return path


def run_robustness(*arguments):
    return CliRunner().invoke(main, ["robustness", *map(str, arguments)])


def test_cli_writes_the_table_and_provenance(results_file, tmp_path):
    out = tmp_path / "robustness.csv"
    result = run_robustness(results_file, "-B", 200, "--seed", 1, "-o", out, "--pairwise", tmp_path / "pairs.csv")
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    assert table["method"].tolist()[0] == "best" and table["p_win"].tolist()[0] == 1.0
    assert [c for c in table.columns if c.startswith("p_place_")] == ["p_place_1", "p_place_2", "p_place_3",
                                                                      "p_place_4"]
    block = json.loads(Path(f"{out}.provenance.json").read_text())
    assert block["bootstrap_n"] == "200" and block["bootstrap_seed"] == "1"
    assert block["bootstrap_resample"] == "datasets and runs"
    assert f"input_sha256:results:{results_file.name}" in block and "rules_sha256" in block
    assert "Friedman chi2 = " in result.output and "The winner, best, is" in result.output
    assert set(pd.read_csv(tmp_path / "pairs.csv").columns) == {"method_a", "method_b", "difference", "significant",
                                                                "p_value"}


def test_cli_same_seed_same_file(results_file, tmp_path):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    for out in (first, second):
        assert run_robustness(results_file, "-B", 100, "--seed", 3, "-o", out).exit_code == 0
    assert first.read_text() == second.read_text()


def test_cli_prints_without_output(results_file):
    result = run_robustness(results_file, "-B", 50, "--resample", "datasets")
    assert result.exit_code == 0, result.output
    assert "p_place_1" in result.output


def test_cli_rejects_bad_options(results_file):
    bad = run_robustness(results_file, "--resample", "rows")
    assert bad.exit_code == 2 and "Invalid value for '--resample'" in bad.output
    zero = run_robustness(results_file, "-B", 0)
    assert zero.exit_code == 2 and "Invalid value for '-B' / '--bootstrap'" in zero.output


# ---------------------------------------------------------------------------
# Robustness view (ipywidgets)
# ---------------------------------------------------------------------------
def test_robustness_view_computes_redraws_and_logs_errors():
    pytest.importorskip("ipywidgets")
    from srdash.apps.integrity import RobustnessView

    view = RobustnessView(dominant_competition(n_datasets=6, n_runs=2), load_rules("srbench2022"),
                          n_bootstrap=80, seed=2)
    assert (view.n_bootstrap, view.seed, view.alpha, view.resample) == (80, 2, 0.05, "both")
    assert view.result.summary["p_win"].iloc[0] == 1.0 and not view.busy
    assert not any(control.disabled for control in view._controls)
    assert "The winner, best, is" in view.statement.value
    computed = view.result
    view.kind_input.value = "bubble"           # redraws, does not recompute
    assert view.result is computed
    assert view.places.outputs[0]["data"]["application/vnd.plotly.v1+json"]["data"][0]["type"] == "scatter"
    view.seed_input.value = 3
    view.run_button.click()
    assert view.result is not computed and view.result.seed == 3
    view.resample_input.value = "runs"
    # single runs: resample='runs' has nothing to resample
    view.runs = trading_competition().assign(simplicity=-1.0, property=1.0)
    assert "Nothing to resample" in view.log_panel.text()
    assert not view.busy


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------
def test_place_probability_figure_shows_the_matrix_in_leaderboard_order():
    from srdash.figures.integrity import place_probability_figure, score_interval_figure

    result = bootstrap(built_competition(1), load_rules("srbench2022"), n_bootstrap=200, seed=0)
    heatmap = place_probability_figure(result).data[0]
    np.testing.assert_allclose(np.asarray(heatmap.z), result.place_probability.to_numpy())
    p_win = result.summary["p_win"].tolist()
    assert list(heatmap.y) == [f"{m} (P(win) {p:.2f})" for m, p in zip(result.summary["method"], p_win)]
    assert list(heatmap.x) == list(range(1, len(p_win) + 1))
    title = place_probability_figure(result).layout.title
    assert title.text == "Place probabilities"
    assert "200 bootstrap redraws of the datasets and runs (seed 0)" in title.subtitle.text.replace("<br>", " ")
    intervals = score_interval_figure(result).data[0]
    np.testing.assert_allclose(np.asarray(intervals.x) - np.asarray(intervals.error_x.arrayminus),
                               result.summary["score_low"])
