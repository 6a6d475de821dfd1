"""SRBench 2025 statistics: Bonferroni, (dataset, seed) blocks, critical-difference groups from any
post-hoc's p-values, effect sizes, Skillings-Mack and the plain-language comparison
(srdash.analysis.pairwise, .significance, .comparison)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from srdash.analysis.comparison import compare
from srdash.analysis.pairwise import adjust, bonferroni, friedman_conover, wilcoxon_holm
from srdash.analysis.significance import (cliffs_delta, cohens_d, groups_from_p_values, magnitude, significance,
                                          skillings_mack)
from srdash.errors import SrdashError
from score_matrices import long, random_matrix


# --- Bonferroni ------------------------------------------------------------------------------

def test_bonferroni_golden():
    # m = 3 p-values, each times 3, capped at 1: 0.03, 0.12, 1 (0.4 * 3 = 1.2)
    assert bonferroni([0.01, 0.04, 0.4]).tolist() == pytest.approx([0.03, 0.12, 1.0])
    # Holm on the same family: sorted 0.01*3 = 0.03, 0.04*2 = 0.08, 0.4*1 = 0.4
    assert adjust([0.01, 0.04, 0.4], "holm").tolist() == pytest.approx([0.03, 0.08, 0.4])
    with pytest.raises(ValueError, match="The 'correction' option must be one of 'holm', 'bonferroni'. Got 'sidak'"):
        adjust([0.1], "sidak")


@pytest.mark.parametrize("seed", range(2))
def test_bonferroni_equals_scikit_posthocs(seed):
    sp = pytest.importorskip("scikit_posthocs")
    matrix = random_matrix(seed).round(1)
    off = ~np.eye(matrix.shape[1], dtype=bool)
    conover = friedman_conover(long(matrix), p_adjust="bonferroni")
    expected = sp.posthoc_conover_friedman(matrix.to_numpy(), p_adjust="bonferroni").to_numpy()
    assert conover.p_values.to_numpy()[off] == pytest.approx(expected[off], rel=1e-10)
    assert conover.correction == "bonferroni"
    matrix = random_matrix(seed)  # no ties: scipy's exact signed-rank distribution (ties make it permute, slowly)
    wilcoxon = wilcoxon_holm(long(matrix), correction="bonferroni")
    melted = matrix.melt(var_name="method", value_name="v")
    expected = sp.posthoc_wilcoxon(melted, val_col="v", group_col="method", p_adjust="bonferroni")
    expected = expected.loc[matrix.columns, matrix.columns].to_numpy()
    assert wilcoxon.p_values.to_numpy()[off] == pytest.approx(expected[off], rel=1e-10)


def test_correction_option_error():
    with pytest.raises(ValueError, match="The 'correction' option must be one of 'holm', 'bonferroni'. Got 'none'"):
        wilcoxon_holm(long(random_matrix(0)), correction="none")
    with pytest.raises(ValueError, match="The 'p_adjust' option must be None, 'holm' or 'bonferroni'. Got 'BH'"):
        friedman_conover(long(random_matrix(0)), p_adjust="BH")


# --- (dataset, seed) blocks ------------------------------------------------------------------

def seeded_table() -> pd.DataFrame:
    # 2 datasets x 3 seeds; a beats b on every run by 0.1, 0.2, ..., 0.6 (all differences distinct)
    rows = []
    gap = iter([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    for dataset in ("d1", "d2"):
        for seed in (0, 1, 2):
            g = next(gap)
            rows += [{"method": "a", "dataset": dataset, "random_state": seed, "r2_test": 0.9},
                     {"method": "b", "dataset": dataset, "random_state": seed, "r2_test": 0.9 - g}]
    return pd.DataFrame(rows)


def test_dataset_seed_blocks_golden():
    table = seeded_table()
    # unit='dataset': one block per dataset (median of its 3 runs), 2 positive differences:
    # exact two-sided signed-rank p = 2 * (1/2)^2 = 0.5
    per_dataset = wilcoxon_holm(table)
    assert per_dataset.pairs["p_value"].iloc[0] == pytest.approx(0.5)
    assert per_dataset.pairs["datasets"].iloc[0] == 2
    # unit='dataset-seed': one block per run (seed column found as 'random_state'), 6 positive
    # differences: exact two-sided p = 2 * (1/2)^6 = 0.03125
    per_run = wilcoxon_holm(table, unit="dataset-seed")
    assert per_run.pairs["p_value"].iloc[0] == pytest.approx(0.03125)
    assert per_run.pairs["datasets"].iloc[0] == 6 and per_run.unit == "dataset-seed"
    assert per_run.pairs["p_value"].iloc[0] == pytest.approx(
        stats.wilcoxon(np.full(6, 0.9), 0.9 - np.array([.1, .2, .3, .4, .5, .6])).pvalue)


def test_dataset_seed_friedman_blocks_are_runs():
    rng = np.random.default_rng(3)
    rows = [{"method": m, "dataset": d, "seed": s, "r2_test": float(rng.normal() + j * 0.4)}
            for j, m in enumerate("abc") for d in ("d1", "d2", "d3") for s in range(4)]
    table = pd.DataFrame(rows)
    result = friedman_conover(table, unit="dataset-seed")
    # the blocks are the 12 (dataset, seed) pairs: scipy's Friedman on the 12 x 3 matrix
    wide = table.pivot_table(index=["dataset", "seed"], columns="method", values="r2_test")
    assert result.n_datasets == 12
    assert result.statistic == pytest.approx(stats.friedmanchisquare(*wide.to_numpy().T).statistic, rel=1e-12)


def test_dataset_seed_needs_a_seed_column():
    table = seeded_table().drop(columns="random_state")
    with pytest.raises(Exception, match="the column 'seed' is missing"):
        wilcoxon_holm(table, unit="dataset-seed")
    with pytest.raises(ValueError, match="The 'unit' option must be one of 'dataset', 'dataset-seed'. Got 'run'"):
        wilcoxon_holm(seeded_table(), unit="run")


# --- critical-difference groups from p-values ------------------------------------------------

def test_groups_from_p_values_golden():
    order = ["a", "b", "c", "d"]
    p = pd.DataFrame(1.0, index=order, columns=order)
    # a-c and a-d and b-d differ; b-c, a-b, c-d do not: bars (a, b), (b, c), (c, d)
    for x, y in (("a", "c"), ("a", "d"), ("b", "d")):
        p.loc[x, y] = p.loc[y, x] = 0.01
    assert groups_from_p_values(order, p) == (("a", "b"), ("b", "c"), ("c", "d"))
    # nothing differs: one bar over all
    assert groups_from_p_values(order, pd.DataFrame(0.5, index=order, columns=order)) == (tuple(order),)
    # Wilcoxon-style pattern that does not follow the ranks: a-b differ but a-c do not.
    # The run from a stops at b; (b, c, d) is the next bar.
    p = pd.DataFrame(1.0, index=order, columns=order)
    p.loc["a", "b"] = p.loc["b", "a"] = 0.001
    assert groups_from_p_values(order, p) == (("b", "c", "d"),)


def test_groups_from_nemenyi_p_values_equal_the_critical_difference_groups():
    matrix = random_matrix(5, n=20, k=6)
    result = significance(matrix)
    p = pd.DataFrame(1.0, index=matrix.columns, columns=matrix.columns)
    for a, b, value in zip(result.pairwise["method_a"], result.pairwise["method_b"], result.pairwise["p_value"]):
        p.loc[a, b] = p.loc[b, a] = value
    assert groups_from_p_values(list(result.mean_ranks["method"]), p, alpha=result.alpha) == result.groups


def test_groups_from_p_values_errors():
    p = pd.DataFrame(1.0, index=["a", "b"], columns=["a", "b"])
    with pytest.raises(SrdashError, match="The p-value matrix has no row or column for 'c'"):
        groups_from_p_values(["a", "b", "c"], p)


# --- effect sizes ----------------------------------------------------------------------------

def test_cliffs_delta_golden_and_against_mann_whitney():
    # x = (1, 2, 3), y = (1, 2): of 6 pairs, 3 larger (2>1, 3>1, 3>2), 1 smaller (1<2), 2 ties
    assert cliffs_delta([1, 2, 3], [1, 2]) == pytest.approx((3 - 1) / 6)
    assert cliffs_delta([5, 6], [1, 2]) == 1.0 and cliffs_delta([1, 2], [5, 6]) == -1.0
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=9).round(1), rng.normal(size=7).round(1)
    # Mann-Whitney U counts x > y plus half the ties: delta = 2 U / (n m) - 1
    u = stats.mannwhitneyu(x, y).statistic
    assert cliffs_delta(x, y) == pytest.approx(2 * u / (9 * 7) - 1, abs=1e-12)
    assert np.isnan(cliffs_delta([np.nan], [1.0]))


def test_cohens_d_golden():
    # means 2 and 4, sample variances 1 and 1: pooled s = 1, d = -2
    assert cohens_d([1, 2, 3], [3, 4, 5]) == pytest.approx(-2.0)
    # unequal sizes: x = (0, 2) mean 1 var 2; y = (0, 0, 3) mean 1 ... shift y by 1: y = (1, 1, 4), mean 2,
    # squares 1 + 1 + 4 = 6; pooled variance (2 + 6) / (2 + 3 - 2) = 8/3; d = (1 - 2) / sqrt(8/3)
    assert cohens_d([0, 2], [1, 1, 4]) == pytest.approx(-1 / np.sqrt(8 / 3))
    assert cohens_d([1, 1], [1, 1]) == 0.0 and cohens_d([2, 2], [1, 1]) == np.inf


@pytest.mark.parametrize(("effect", "measure", "label"), [
    (0.146, "cliffs_delta", "negligible"), (0.147, "cliffs_delta", "small"), (-0.33, "cliffs_delta", "medium"),
    (0.474, "cliffs_delta", "large"), (0.19, "cohens_d", "negligible"), (0.5, "cohens_d", "medium"),
    (-0.79, "cohens_d", "medium"), (np.inf, "cohens_d", "large"), (np.nan, "cohens_d", "")])
def test_magnitude_thresholds(effect, measure, label):
    assert magnitude(effect, measure) == label


def test_magnitude_error():
    with pytest.raises(SrdashError, match="The effect-size measure must be one of 'cohens_d', 'cliffs_delta'"):
        magnitude(0.1, "hedges_g")


# --- Skillings-Mack --------------------------------------------------------------------------

def test_skillings_mack_published_example():
    # Skillings and Mack (1981), Technometrics 23, Table 1 p. 173: four methods (A-D) of
    # assembling a product, 9 blocks, 4 missing cells -- the example of the R package
    # Skillings.Mack (man/Ski.Mack.Rd, cran/Skillings.Mack by P. Srisuradetchai). Its printed
    # output, "Skillings-Mack Statistic = 15.493049, p-value = 0.001440 ... d.f. = 3", is shown
    # in the README of github.com/ZacWarham/Skillings.Mack (a fork of that package).
    nan = np.nan
    y = [3.2, 4.1, 3.8, 4.2, 3.1, 3.9, 3.4, 4.0, 4.3, 3.5, 4.6, 4.8,
         3.5, 3.6, 3.9, 4.0, 3.6, 4.2, 3.7, 3.9, 4.5, 4.7, 3.7, nan,
         nan, 4.2, 3.4, nan, 4.3, 4.6, 4.4, 4.9, 3.5, nan, 3.7, 3.9]
    matrix = pd.DataFrame(np.array(y).reshape(9, 4), columns=list("ABCD"))
    result = skillings_mack(matrix)
    assert result.statistic == pytest.approx(15.493049, abs=5e-7)
    assert result.p_value == pytest.approx(0.001440, abs=5e-7)
    assert result.df == 3 and result.missing == 4 and result.n_blocks == 9


@pytest.mark.parametrize("seed", range(3))
def test_skillings_mack_on_complete_blocks_is_friedman(seed):
    matrix = random_matrix(seed, n=10, k=5)  # continuous values: no ties
    assert skillings_mack(matrix).statistic == pytest.approx(
        stats.friedmanchisquare(*matrix.to_numpy().T).statistic, rel=1e-10)


def test_skillings_mack_leaves_out_single_value_blocks():
    # The doctest case plus a block with only b: it carries no pair, SM is unchanged (4.9821)
    m = pd.DataFrame({"a": [3.0, 3.0, 2.0, None], "b": [2.0, 2.0, None, 5.0], "c": [1.0, 1.0, 1.0, None]})
    result = skillings_mack(m)
    assert result.statistic == pytest.approx((13 + 4 * np.sqrt(3)) / 4) and result.n_blocks == 3
    with pytest.raises(SrdashError, match="The Skillings-Mack test needs at least 2 methods and 1 block"):
        skillings_mack(pd.DataFrame({"a": [1.0, None], "b": [None, 2.0]}))


# --- compare ---------------------------------------------------------------------------------

def five_datasets() -> pd.DataFrame:
    return pd.DataFrame({"method": list("aaaaabbbbbccccc"), "dataset": list("vwxyz") * 3,
                         "r2_test": [.9, .8, .85, .95, .7, .5, .4, .6, .55, .3, .6, .5, .7, .65, .4]})


def test_compare_nemenyi_golden():
    # Every dataset ranks a > c > b: rank sums 15, 10, 5, chi2 = 12/(5*3*4) * 350 - 3*5*4 = 10,
    # p = exp(-5) = 0.00674. Mean ranks 3, 2, 1; CD(k=3, N=5) = 2.343 * sqrt(12/30) = 1.482:
    # only a-b (difference 2) differs; bars (a, c), (c, b).
    result = compare(five_datasets(), posthoc="nemenyi")
    friedman = result.omnibus.set_index("test").loc["Friedman"]
    assert friedman["statistic"] == pytest.approx(10.0) and friedman["p_value"] == pytest.approx(np.exp(-5))
    assert result.mean_ranks["method"].tolist() == ["a", "c", "b"]
    significant = result.pairs[result.pairs["significant"]]
    assert significant[["method_a", "method_b"]].values.tolist() == [["a", "b"]]
    assert result.groups == (("a", "c"), ("c", "b"))
    assert result.correction == "none"
    # a over b on every dataset: Cliff's delta 1 (all 25 value pairs larger)
    row = significant.iloc[0]
    assert row["cliffs_delta"] == 1.0 and row["cliffs_magnitude"] == "large"
    assert "Nemenyi post-hoc test" in result.paragraph
    assert "a is significantly better than b" in result.paragraph
    assert "Cliff's delta = 1.000, large" in result.paragraph


def test_compare_wilcoxon_names_its_post_hoc_and_why():
    result = compare(five_datasets(), posthoc="wilcoxon-holm", correction="bonferroni")
    # every pair: 5 same-signed differences, exact p = 2/32 = 0.0625, Bonferroni * 3 = 0.1875
    assert result.pairs["p_value"].tolist() == pytest.approx([0.0625] * 3)
    assert result.pairs["p_adjusted"].tolist() == pytest.approx([0.1875] * 3)
    assert not result.pairs["significant"].any()
    assert "Wilcoxon signed-rank test per pair, Bonferroni-corrected" in result.paragraph
    assert "depends on those two methods only" in result.paragraph
    assert "No pair of methods differs significantly." in result.paragraph


def test_compare_lower_is_better_orients_effects():
    table = five_datasets().assign(mse=lambda t: 1 - t["r2_test"])
    result = compare(table, value="mse", direction="lower", posthoc="nemenyi")
    assert result.mean_ranks["method"].tolist() == ["a", "c", "b"]
    row = result.pairs.set_index(["method_a", "method_b"]).loc[("a", "b")]
    assert row["better"] == "a" and row["cliffs_delta"] == 1.0 and row["cohens_d"] > 0


def test_compare_with_missing_values_reports_skillings_mack_and_fills_worst():
    table = five_datasets()
    table = table[~((table["method"] == "c") & (table["dataset"] == "z"))]  # c did not finish on z
    dropped = compare(table, posthoc="nemenyi")
    tests = dropped.omnibus.set_index("test")
    assert tests.loc["Friedman", "blocks"] == 4 and tests.loc["Skillings-Mack", "blocks"] == 5
    # on z only a (0.7) and b (0.3) remain: a above b, the same order as the other blocks
    assert "Skillings-Mack" in dropped.paragraph
    filled = compare(table, posthoc="nemenyi", missing="worst")
    # worst value of the table is 0.3 (b on z): c gets 0.3 there, tied with b -> ranks a 3, b 1.5, c 1.5
    assert "Skillings-Mack" not in set(filled.omnibus["test"])
    assert filled.omnibus.set_index("test").loc["Friedman", "blocks"] == 5
    ranks = filled.mean_ranks.set_index("method")["mean_rank"]
    assert ranks["a"] == pytest.approx(3.0) and ranks["c"] == pytest.approx((2 * 4 + 1.5) / 5)
    assert any("filled with the worst value of the table, 0.3" in note for note in filled.notes)


def test_compare_mean_rank_post_hoc_needs_friedman_to_reject():
    # a > b > c on two datasets, c > b > a on two: the Friedman statistic is 0
    matrix = pd.DataFrame({"a": [3, 3, 1, 1], "b": [2, 2, 2, 2], "c": [1, 1, 3, 3]}, dtype=float,
                          index=["d1", "d2", "d3", "d4"])
    result = compare(long(matrix), posthoc="conover")
    assert not result.pairs["significant"].any() and result.groups == (("a", "b", "c"),)
    assert "Since the Friedman test does not reject, no pair is declared different." in result.paragraph


@pytest.mark.parametrize(("option", "value", "message"), [
    ("posthoc", "tukey", "The 'posthoc' option must be one of 'nemenyi', 'conover', 'wilcoxon-holm'. Got 'tukey'"),
    ("correction", "fdr", "The 'correction' option must be one of 'holm', 'bonferroni'. Got 'fdr'"),
    ("missing", "mean", "The 'missing' option must be one of 'drop', 'worst'. Got 'mean'"),
    ("unit", "seed", "The 'unit' option must be one of 'dataset', 'dataset-seed'. Got 'seed'"),
])
def test_compare_option_errors(option, value, message):
    with pytest.raises(ValueError, match=message):
        compare(five_datasets(), **{option: value})


def test_compare_needs_three_methods_and_two_complete_blocks():
    with pytest.raises(ValueError, match="A comparison needs at least three methods. Got 2."):
        compare(five_datasets().query("method != 'c'"))
    one = five_datasets().query("dataset == 'v'")
    with pytest.raises(ValueError, match="A comparison needs at least two datasets with a value for every method"):
        compare(one)


def test_compare_is_invariant_to_permuting_methods_and_rows():
    table = long(random_matrix(7, n=15, k=4))
    a = compare(table, posthoc="conover")
    shuffled = table.sample(frac=1.0, random_state=1).replace({"m0": "z0"})
    b = compare(shuffled, posthoc="conover")
    key = lambda r: sorted(zip(r.pairs["p_adjusted"].round(12), r.pairs["cliffs_delta"].abs().round(12)))
    assert key(a) == key(b)


def test_significance_and_comparison_import_no_scipy_stats():
    # The dashboard imports srdash.analysis.significance at start; scipy.stats costs it 0.5 s.
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys; import srdash.analysis.significance, srdash.analysis.comparison; "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "False"


def test_cd_diagram_from_a_wilcoxon_comparison():
    from srdash.figures.integrity import critical_difference_figure

    # a > c > b on every dataset of 8: Wilcoxon exact p = 2/256 per pair, Holm x3 / x2 / x1 -> all < 0.05:
    # every pair differs, so no bar; the title names the post-hoc; no CD bar for a p-value post-hoc
    rows = [{"method": m, "dataset": f"d{i}", "r2_test": v - 0.01 * i}
            for i in range(8) for m, v in (("a", 0.9), ("b", 0.5), ("c", 0.7))]
    result = compare(pd.DataFrame(rows), posthoc="wilcoxon-holm")
    assert result.groups == () and result.critical_difference is None
    fig = critical_difference_figure(result)
    subtitle = fig.layout.title.subtitle.text.replace("<br>", " ")
    assert "Wilcoxon signed-rank test per pair, Holm-corrected" in subtitle
    assert not [a for a in fig.layout.annotations if str(a.text).startswith("CD =")]
    # Nemenyi keeps its CD bar: CD(k=3, N=8) = 2.343 * sqrt(12/48) = 1.1715
    nemenyi = compare(pd.DataFrame(rows), posthoc="nemenyi")
    assert nemenyi.critical_difference == pytest.approx(2.343 * 0.5)
    assert [a.text for a in critical_difference_figure(nemenyi).layout.annotations
            if str(a.text).startswith("CD =")] == ["CD = 1.171"]


@pytest.mark.realdata
def test_compare_on_srbench_blackbox_agrees_with_scipy_and_scikit_posthocs():
    from pathlib import Path

    sp = pytest.importorskip("scikit_posthocs")
    path = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench_results" / \
        "blackbox_results.csv"
    if not path.exists():
        pytest.skip(f"real data absent: {path}")
    table = pd.read_csv(path)
    result = compare(table, posthoc="conover", correction="holm")
    wide = table.pivot(index="dataset", columns="algorithm", values="r2_test")
    complete = wide.dropna()  # 15 cells missing: 107 complete datasets of 122
    omnibus = result.omnibus.set_index("test")
    assert omnibus.loc["Friedman", "blocks"] == 107 and omnibus.loc["Skillings-Mack", "blocks"] == 122
    assert omnibus.loc["Friedman", "statistic"] == pytest.approx(
        stats.friedmanchisquare(*complete.to_numpy().T).statistic, rel=1e-12)
    expected = sp.posthoc_conover_friedman(complete.to_numpy(), p_adjust="holm")
    expected.index = expected.columns = list(complete.columns)
    got = result.p_values.loc[list(complete.columns), list(complete.columns)]
    off = ~np.eye(len(got), dtype=bool)
    assert got.to_numpy()[off] == pytest.approx(expected.to_numpy()[off], rel=1e-9)
    assert result.mean_ranks["method"].iloc[0] == "*Operon"
