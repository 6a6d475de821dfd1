"""The Bayesian signed-rank test with a ROPE (srdash.analysis.bayes): hand-derived cases, the figure,
the CLI, and baycomp's numbers on SRBench's black-box table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis.bayes import bayes_pairs, signed_rank_rope
from srdash.cli import main
from srdash.errors import SrdashError
from srdash.figures.bayes import bayes_figure

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata"
BLACKBOX = REALDATA / "srbench_results" / "blackbox_results.csv"


def needs_blackbox():
    if not BLACKBOX.is_file():
        pytest.skip(f"real data not available: {BLACKBOX} is absent (see ../shared/realdata/README.md)")


# ---------------------------------------------------------------------------
# Hand-derived cases
# ---------------------------------------------------------------------------
def test_one_dataset_posterior_is_exact():
    # n = 1, z_1 = y - x = -0.5, rope r = 0.1, pseudo-observation z_0 = 0 with weight s = 0.5.
    # Pair sums z_i + z_j: (0,0) = 0 in the ROPE (|0| <= 2r), (0,1), (1,0) = -0.5 and (1,1) = -1 below -2r.
    # With w = (w0, w1), w1 = 1 - w0: θ_left = 2 w0 w1 + w1² = 1 - w0², θ_rope = w0², θ_right = 0.
    # A draw votes ROPE when w0² > 1 - w0², i.e. w0 > 1/√2. w0 ~ Beta(0.5, 1): P(w0 > a) = 1 - √a,
    # so p_rope = 1 - 2^(-1/4) = 0.159104 and p_left = 0.840896.
    result = signed_rank_rope([1.0], [0.5], rope=0.1, n_samples=200_000, seed=3)
    assert result.p_rope == pytest.approx(1 - 2 ** -0.25, abs=0.005)  # 5 standard errors of 0.0009
    assert result.p_left == pytest.approx(2 ** -0.25, abs=0.005)
    assert result.p_right == 0.0
    assert (result.n_datasets, result.n_samples, result.rope) == (1, 200_000, 0.1)


def test_without_rope_p_rope_is_zero_and_swapping_the_methods_swaps_the_sides():
    x = np.array([0.8, 0.7, 0.9, 0.6, 0.75])
    y = np.array([0.7, 0.72, 0.85, 0.5, 0.7])
    forward = signed_rank_rope(x, y, rope=0.0, n_samples=20_000, seed=1)
    backward = signed_rank_rope(y, x, rope=0.0, n_samples=20_000, seed=1)
    assert forward.p_rope == backward.p_rope == 0.0
    assert forward.p_left + forward.p_right == pytest.approx(1.0)
    # the same draws, mirrored differences: each draw's vote flips except exact ties (none here)
    assert forward.p_left == pytest.approx(backward.p_right)


def test_identical_methods_are_practically_equivalent():
    # every difference 0 lies inside any ROPE: θ_rope = 1 in every draw
    x = [0.5, 0.6, 0.7]
    assert signed_rank_rope(x, x, rope=0.01, n_samples=1000).p_rope == 1.0


def test_seeded_and_repeatable():
    x, y = [0.5, 0.61, 0.7, 0.4], [0.52, 0.6, 0.69, 0.41]
    assert signed_rank_rope(x, y, rope=0.01, seed=7, n_samples=3000) == \
        signed_rank_rope(x, y, rope=0.01, seed=7, n_samples=3000)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"x": [1, 2], "y": [1]}, r"x and y must be 1-D of the same length. Got shapes \(2,\) and \(1,\)"),
    ({"x": [], "y": []}, "x and y must hold at least one dataset. Got none."),
    ({"x": [1, np.nan], "y": [1, 2]}, "x and y must be finite"),
    ({"x": [1], "y": [2], "rope": -0.1}, r"The 'rope' option must be a number >= 0. Got -0.1."),
    ({"x": [1], "y": [2], "prior": 0}, r"The 'prior' option must be a number > 0. Got 0."),
    ({"x": [1], "y": [2], "n_samples": 0}, r"The 'n_samples' option must be an integer >= 1. Got 0."),
])
def test_errors(kwargs, message):
    x, y = kwargs.pop("x"), kwargs.pop("y")
    with pytest.raises(ValueError, match=message):
        signed_rank_rope(x, y, **kwargs)


# ---------------------------------------------------------------------------
# Every pair of a table
# ---------------------------------------------------------------------------
def _table():
    # c is far worse everywhere; a and b are within 0.005 of each other on each dataset
    return pd.DataFrame({"method": ["a"] * 4 + ["b"] * 4 + ["c"] * 4, "dataset": ["d1", "d2", "d3", "d4"] * 3,
                         "r2": [0.9, 0.8, 0.7, 0.6, 0.902, 0.797, 0.703, 0.601, 0.3, 0.2, 0.1, 0.0]})


def test_pairs_against_the_winner_and_the_direction():
    result = bayes_pairs(_table(), metric="r2", rope=0.01, n_samples=4000)
    assert list(zip(result.table["method_a"], result.table["method_b"])) == [("b", "a"), ("b", "c"), ("a", "c")]
    a_b = result.table.iloc[0]
    assert a_b["p_rope"] == 1.0 and a_b["verdict"] == "practically equivalent"  # all |z| <= 0.003 < r
    assert result.table.iloc[1]["verdict"] == "b better"
    against = bayes_pairs(_table(), metric="r2", rope=0.01, n_samples=4000, against_winner=True)
    assert list(against.table["method_b"]) == ["a", "c"]
    # lower is better: c (the lowest values) wins and is left in every pair
    lower = bayes_pairs(_table(), metric="r2", rope=0.01, n_samples=4000, direction="lower", against_winner=True)
    assert set(lower.table["method_a"]) == {"c"} and (lower.table["p_left"] > 0.95).all()


def test_pairs_errors_name_the_file_row_and_column():
    table = _table()
    with pytest.raises(SrdashError, match=r"runs.csv: no column 'rmse'. Columns: method, dataset, r2."):
        bayes_pairs(table, metric="rmse", rope=0.1, source="runs.csv")
    bad = table.astype({"r2": object})
    bad.loc[2, "r2"] = "high"
    with pytest.raises(SrdashError, match=r"runs.csv, row 4, column 'r2': not a number \('high'\)."):
        bayes_pairs(bad, metric="r2", rope=0.1, source="runs.csv")
    with pytest.raises(SrdashError, match="needs at least two methods. Got 1."):
        bayes_pairs(table[table["method"] == "a"], metric="r2", rope=0.1)
    with pytest.raises(ValueError, match="The 'direction' option must be one of 'higher', 'lower'. Got 'up'."):
        bayes_pairs(table, metric="r2", rope=0.1, direction="up")


def test_figure_stacks_the_three_probabilities_and_escapes_names():
    table = _table().replace({"method": {"c": "<script>"}})
    figure = bayes_figure(bayes_pairs(table, metric="r2", rope=0.01, n_samples=500))
    assert [t.name for t in figure.data] == ["a better (p_left)", "within the ROPE (p_rope)", "b better (p_right)"]
    assert figure.layout.barmode == "stack"
    assert all("<script>" not in label for label in figure.data[0].y)
    assert "ROPE ±0.01 (r2 units" in figure.layout.title.subtitle.text.replace("<br>", " ")


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------
def test_cli_bayes_writes_the_pairs_and_the_plot(tmp_path):
    source = tmp_path / "runs.csv"
    _table().to_csv(source, index=False)
    out, plot = tmp_path / "pairs.csv", tmp_path / "pairs.html"
    result = CliRunner().invoke(main, ["analyse", "bayes", str(source), "--metric", "r2", "--rope", "0.01",
                                       "--samples", "2000", "-o", str(out), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    pairs = pd.read_csv(out)
    assert list(pairs.columns) == ["method_a", "method_b", "p_left", "p_rope", "p_right", "verdict", "datasets"]
    assert len(pairs) == 3
    assert "ROPE ±0.01 in r2's units" in result.output
    assert "Practical equivalence" in plot.read_text(encoding="utf-8")


def test_cli_bayes_needs_a_rope_and_names_a_missing_column(tmp_path):
    source = tmp_path / "runs.csv"
    _table().to_csv(source, index=False)
    result = CliRunner().invoke(main, ["analyse", "bayes", str(source), "--metric", "r2"])
    assert result.exit_code != 0
    assert "Error: bayes needs --rope WIDTH (the ROPE's half-width in r2's units; 0: no ROPE)." in result.output
    result = CliRunner().invoke(main, ["analyse", "bayes", str(source), "--metric", "mse", "--rope", "0.1"])
    assert result.exit_code != 0 and "no column 'mse'" in result.output
    result = CliRunner().invoke(main, ["analyse", "bayes", str(source), "--metric", "r2", "--rope", "0.1",
                                       "--plot", str(source)])
    assert result.exit_code == 2 and "--plot" in result.output
    assert source.read_text().startswith("method,dataset,r2")  # the input is left as it was


# ---------------------------------------------------------------------------
# baycomp on SRBench's black-box table
# ---------------------------------------------------------------------------
# baycomp 1.0.3's numbers, computed once with
#   baycomp.SignedRankTest.probs(x, y, rope, nsamples=50_000, random_state=0)
# on r2_test of blackbox_results.csv (x, y: the two methods' columns, datasets in sorted order); baycomp
# takes 2-9 s per call here, so the values are kept and one call is repeated live below.
BAYCOMP = {
    ("KernelRidge", "*AFP_FE", 0.0): (0.52748, 0.0, 0.47252),  # a coin flip (no ROPE: p_rope = 0)
    ("*GP-GOMEA", "LGBM", 0.01): (0.79322, 0.0, 0.20678),
    ("*Operon", "*EPLEX", 0.05): (0.55264, 0.44734, 2e-05),
    ("LGBM", "RandomForest", 0.05): (0.41888, 0.1236, 0.45752),  # all three sides
}


@pytest.mark.realdata
@pytest.mark.parametrize(("a", "b", "rope"), list(BAYCOMP))
def test_equal_to_baycomp_on_the_blackbox_table(a, b, rope, tmp_path):
    needs_blackbox()
    table = pd.read_csv(BLACKBOX)
    # `srdash analyse bayes` on the two methods' rows of the table (all 210 pairs would take minutes)
    pair = tmp_path / "pair.csv"
    table[table["algorithm"].isin([a, b])].to_csv(pair, index=False)
    out = tmp_path / "bayes.csv"
    result = CliRunner().invoke(main, ["analyse", "bayes", str(pair), "--metric", "r2_test", "--rope", str(rope),
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "50000 posterior draws (seed 0)" in result.output
    row = pd.read_csv(out).iloc[0]
    if row["method_a"] != a:  # the pair is ordered by mean rank: put it in baycomp's order
        row = row.rename({"p_left": "p_right", "p_right": "p_left"})
    assert row["datasets"] == 122
    # within 0.01: each side's Monte-Carlo standard error at 50,000 draws is at most 0.0022 (twice: 0.0032)
    assert (row["p_left"], row["p_rope"], row["p_right"]) == pytest.approx(BAYCOMP[a, b, rope], abs=0.01)


@pytest.mark.realdata
@pytest.mark.slow
def test_the_kept_numbers_are_baycomps():
    needs_blackbox()
    baycomp = pytest.importorskip("baycomp")
    wide = pd.read_csv(BLACKBOX).pivot(index="dataset", columns="algorithm", values="r2_test")
    a, b, rope = "LGBM", "RandomForest", 0.05
    live = baycomp.SignedRankTest.probs(wide[a].to_numpy(), wide[b].to_numpy(), rope, nsamples=50_000,
                                        random_state=0)
    assert tuple(map(float, live)) == BAYCOMP[a, b, rope]
