"""Pairwise tests (srdash.analysis.pairwise): equal to scipy and scikit-posthocs on the same
inputs, hand-derived cases, and the SRBench black-box results."""

from pathlib import Path

import itertools
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from srdash.analysis.pairwise import friedman_conover, holm, wilcoxon_holm
from srdash.errors import ValidationError
from score_matrices import long, random_matrix

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench_results"


def test_holm_golden():
    # sorted: 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 = 0.04 -> non-decreasing: 0.06
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.6, 0.5]).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_equals_scipy_and_holm_equals_statsmodels(seed):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    matrix = random_matrix(seed)
    result = wilcoxon_holm(long(matrix))
    expected = [stats.wilcoxon(matrix[a], matrix[b]).pvalue for a, b in itertools.combinations(matrix.columns, 2)]
    assert result.pairs["p_value"].tolist() == pytest.approx(expected, rel=1e-12)
    adjusted = multitest.multipletests(expected, method="holm")[1]
    assert result.pairs["p_adjusted"].tolist() == pytest.approx(adjusted.tolist(), rel=1e-12)
    # the square matrix is symmetric with 1 on the diagonal
    square = result.p_values.to_numpy()
    assert np.allclose(square, square.T) and (np.diag(square) == 1).all()


@pytest.mark.parametrize("seed", range(3))
def test_conover_equals_scikit_posthocs(seed):
    sp = pytest.importorskip("scikit_posthocs")
    matrix = random_matrix(seed).round(1)  # rounding makes ties within datasets
    result = friedman_conover(long(matrix))
    expected = sp.posthoc_conover_friedman(matrix.to_numpy())
    square = result.p_values.to_numpy()
    off = ~np.eye(len(square), dtype=bool)
    assert square[off] == pytest.approx(expected.to_numpy()[off], rel=1e-10)
    holm_adjusted = sp.posthoc_conover_friedman(matrix.to_numpy(), p_adjust="holm").to_numpy()
    assert friedman_conover(long(matrix), p_adjust="holm").p_values.to_numpy()[off] == pytest.approx(
        holm_adjusted[off], rel=1e-10)
    friedman = stats.friedmanchisquare(*matrix.to_numpy().T)
    assert (result.statistic, result.p_value) == pytest.approx((friedman.statistic, friedman.pvalue))


def test_identical_methods_and_missing_values():
    matrix = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0, 3.0], "c": [0.5, np.nan, 0.1]},
                          index=["x", "y", "z"])
    result = wilcoxon_holm(long(matrix))
    pairs = result.pairs.set_index(["method_a", "method_b"])
    assert pairs.loc[("a", "b"), "p_value"] == 1.0 and pairs.loc[("a", "b"), "better"] == ""
    assert pairs.loc[("a", "c"), "datasets"] == 2 and pairs.loc[("a", "c"), "better"] == "a"
    assert "a and b have no differing dataset; p = 1." in result.notes
    conover = friedman_conover(long(matrix))
    assert conover.n_datasets == 2
    assert conover.notes == ("1 dataset(s) with a missing value left out (the Friedman test needs every "
                             "method on every dataset).",)


def test_pairwise_errors():
    table = long(random_matrix(0, k=2))
    with pytest.raises(ValueError, match="The Friedman test needs at least three methods. Got 2"):
        friedman_conover(table)
    with pytest.raises(ValueError, match="Pairwise tests need at least two methods. Got 1"):
        wilcoxon_holm(table[table["method"] == "m0"])
    with pytest.raises(ValueError, match="The 'p_adjust' option must be None, 'holm' or 'bonferroni'. Got 'BY'"):
        friedman_conover(table, p_adjust="BY")
    with pytest.raises(ValidationError, match="the column 'r2_test' is missing"):
        wilcoxon_holm(table.drop(columns="r2_test"))


@pytest.mark.realdata
def test_srbench_blackbox_pairwise_equal_scipy_and_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    path = REALDATA / "blackbox_results.csv"
    if not path.is_file():
        pytest.skip(f"real data absent: {path}")
    table = pd.read_csv(path)
    matrix = table.pivot(index="dataset", columns="algorithm", values="r2_test").sort_index(axis=1)
    result = wilcoxon_holm(table)
    assert len(result.pairs) == 21 * 20 // 2
    for row in result.pairs.sample(20, random_state=0).itertuples():
        both = matrix[[row.method_a, row.method_b]].dropna()
        assert row.p_value == pytest.approx(stats.wilcoxon(both.iloc[:, 0], both.iloc[:, 1]).pvalue, rel=1e-12)
    conover = friedman_conover(table)
    complete = matrix.dropna()
    assert conover.n_datasets == len(complete) == 107
    expected = sp.posthoc_conover_friedman(complete.to_numpy())
    off = ~np.eye(21, dtype=bool)
    assert conover.p_values.to_numpy()[off] == pytest.approx(expected.to_numpy()[off], rel=1e-9, abs=1e-300)
