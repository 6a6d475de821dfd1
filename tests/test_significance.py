"""Tests of the Friedman and Nemenyi tests (srdash.analysis.significance)."""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from srdash.errors import SrdashError
from srdash.judging.ranking import judge
from srdash.judging.rules import parse_rules
from srdash.analysis.significance import critical_difference, q_alpha, significance

ACCURACY = parse_rules('[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"\ndecimals = 3')


def competition(values: dict[str, list[float]]) -> pd.DataFrame:
    """A per-run table: one run per (method, dataset); NaN = no row (DNF)."""
    rows = [{"method": m, "dataset": f"d{i:02d}", "run": 0, "r2_test": v}
            for m, column in values.items() for i, v in enumerate(column) if not np.isnan(v)]
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# Friedman statistic = scipy.stats.friedmanchisquare
# ---------------------------------------------------------------------------
# Hand case without ties, 3 methods on 4 datasets (rank 3 = best):
#   d1 a3 b2 c1 | d2 a3 b1 c2 | d3 a3 b2 c1 | d4 a2 b3 c1
#   rank sums a 11, b 8, c 5
#   chi2 = 12/(N k (k+1)) * sum R^2 - 3 N (k+1) = 12/48 * (121 + 64 + 25) - 48 = 52.5 - 48 = 4.5
#   p = P(chi2_2 > 4.5) = exp(-4.5/2) = 0.105399
HAND = pd.DataFrame({"a": [3.0, 3.0, 3.0, 2.0], "b": [2.0, 1.0, 2.0, 3.0], "c": [1.0, 2.0, 1.0, 1.0]},
                    index=["d1", "d2", "d3", "d4"])


def test_friedman_hand_case():
    result = significance(HAND)
    assert result.statistic == pytest.approx(4.5)
    assert result.p_value == pytest.approx(math.exp(-2.25))
    assert result.df == 2
    expected = stats.friedmanchisquare(*[HAND[c] for c in HAND.columns])
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-12)


def test_friedman_with_ties_equals_scipy():
    # ties within datasets exercise the tie correction 1 - sum(t^3 - t) / (N k (k^2 - 1))
    scores = pd.DataFrame({
        "a": [0.9, 0.8, 0.7, 0.7, 0.95, 0.6],
        "b": [0.9, 0.6, 0.7, 0.8, 0.90, 0.6],
        "c": [0.5, 0.8, 0.7, 0.6, 0.85, 0.6],
        "d": [0.4, 0.5, 0.9, 0.5, 0.80, 0.7],
    })
    result = significance(scores)
    expected = stats.friedmanchisquare(*[scores[c] for c in scores.columns])
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-12)


def test_friedman_on_a_verdict_uses_the_dataset_scores():
    table = competition({"a": [0.9, 0.9, 0.8, 0.7, 0.9], "b": [0.8, 0.7, 0.9, 0.6, 0.5],
                         "c": [0.1, 0.2, 0.3, 0.8, 0.4]})
    verdict = judge(table, ACCURACY)
    matrix = verdict.per_dataset.pivot(index="dataset", columns="method", values="dataset_score")
    expected = stats.friedmanchisquare(*[matrix[c] for c in matrix.columns])
    result = significance(verdict)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.winner == verdict.winner == "a"


def test_iman_davenport_correction():
    # F_F = (N - 1) chi2 / (N (k - 1) - chi2) = 3 * 4.5 / (8 - 4.5) = 3.857143, df (2, 6)
    result = significance(HAND)
    assert result.iman_davenport == pytest.approx(3 * 4.5 / 3.5)
    assert result.iman_davenport_p_value == pytest.approx(stats.f.sf(3 * 4.5 / 3.5, 2, 6))


def test_all_ties_give_a_zero_statistic_with_a_note():
    result = significance(pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, 2.0]}))
    assert result.statistic == 0.0 and result.p_value == 1.0
    assert any("ties all methods" in n for n in result.notes)


# ---------------------------------------------------------------------------
# Critical difference = q_alpha * sqrt(k (k+1) / (6 N)), q_alpha from Demšar (2006), Table 5(a)
# ---------------------------------------------------------------------------
# The values below are copied from the table (two-tailed Nemenyi test).
DEMSAR_TABLE = {
    (0.05, 2): 1.960, (0.05, 3): 2.343, (0.05, 4): 2.569, (0.05, 5): 2.728, (0.05, 6): 2.850,
    (0.05, 7): 2.949, (0.05, 8): 3.031, (0.05, 9): 3.102, (0.05, 10): 3.164,
    (0.10, 2): 1.645, (0.10, 3): 2.052, (0.10, 4): 2.291, (0.10, 5): 2.459, (0.10, 6): 2.589,
    (0.10, 7): 2.693, (0.10, 8): 2.780, (0.10, 9): 2.855, (0.10, 10): 2.920,
}


@pytest.mark.parametrize("alpha, k", sorted(DEMSAR_TABLE))
@pytest.mark.parametrize("n", [4, 14, 122])
def test_critical_difference_uses_the_tabulated_q(alpha, k, n):
    q = DEMSAR_TABLE[(alpha, k)]
    assert q_alpha(k, alpha=alpha) == (q, "Demšar (2006), Table 5(a)")
    assert critical_difference(k, n, alpha=alpha) == pytest.approx(q * math.sqrt(k * (k + 1) / (6 * n)), rel=1e-12)


@pytest.mark.parametrize("alpha, k", sorted(DEMSAR_TABLE))
def test_computed_q_reproduces_the_table(alpha, k):
    # studentized range quantile (infinite df) / sqrt(2): the formula behind the table
    computed = stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)
    assert computed == pytest.approx(DEMSAR_TABLE[(alpha, k)], abs=1.5e-3)


def test_q_beyond_the_table_is_computed():
    value, source = q_alpha(21)
    assert source == "studentized range / sqrt(2)"
    assert value == pytest.approx(stats.studentized_range.ppf(0.95, 21, np.inf) / math.sqrt(2))
    assert q_alpha(4, alpha=0.01)[1] == "studentized range / sqrt(2)"


def test_demsar_worked_example():
    # Demšar (2006), section 3.2.4: k = 4, N = 14, CD = 2.569 * sqrt(20 / 84) = 1.25
    assert critical_difference(4, 14) == pytest.approx(1.2536, abs=1e-4)


def test_result_critical_difference_matches_the_formula():
    # HAND: k = 3, N = 4: CD = 2.343 * sqrt(12 / 24) = 1.656755
    result = significance(HAND)
    assert result.q_alpha == 2.343
    assert result.critical_difference == pytest.approx(2.343 * math.sqrt(0.5))


# ---------------------------------------------------------------------------
# Nemenyi post-hoc: pairs, groups, the sentence on the winner
# ---------------------------------------------------------------------------
def dominated(n_datasets: int) -> pd.DataFrame:
    """a always first, b always second, c and d alternate third and fourth."""
    return pd.DataFrame({"a": [4.0] * n_datasets, "b": [3.0] * n_datasets,
                         "c": [2.0, 1.0] * (n_datasets // 2), "d": [1.0, 2.0] * (n_datasets // 2)})


def test_mean_ranks_pairs_and_groups():
    # mean ranks a 4, b 3, c 1.5, d 1.5; N = 20, k = 4: CD = 2.569 * sqrt(20 / 120) = 1.048797
    result = significance(dominated(20))
    assert result.mean_ranks.to_dict("list") == {"method": ["a", "b", "c", "d"], "mean_rank": [4.0, 3.0, 1.5, 1.5]}
    assert result.critical_difference == pytest.approx(2.569 * math.sqrt(20 / 120))
    pairs = result.pairwise.set_index(["method_a", "method_b"])
    assert not pairs.loc[("a", "b"), "significant"]          # 1.0 <= 1.049
    assert pairs.loc[("b", "c"), "significant"]              # 1.5 > 1.049
    assert not pairs.loc[("c", "d"), "significant"]
    assert result.groups == (("a", "b"), ("c", "d"))


def test_pairwise_p_value_agrees_with_the_critical_difference():
    # off the table (alpha = 0.07), q is computed from the same distribution as the p-values
    result = significance(dominated(20), alpha=0.07)
    assert ((result.pairwise["p_value"] < 0.07) == result.pairwise["significant"]).all()


def test_statement_when_the_winner_is_significantly_better():
    # with 60 datasets CD = 2.569 * sqrt(20 / 360) = 0.6055 < 1.0, the a-b difference
    result = significance(dominated(60))
    assert result.rejected
    assert result.statement.startswith("The winner, a, is significantly better than the runner-up, b (Nemenyi test")
    assert "difference 1.000 > critical difference 0.606" in result.statement
    # the mean ranks are not a leaderboard column: the sentence says what they are
    assert "the methods ranked by dataset score on each dataset, 4 = best, have mean ranks 4.000 and 3.000" \
        in result.statement
    assert result.winner_significant
    assert result.beside_bootstrap.endswith("here both find the winner ahead.")


def test_statement_when_nemenyi_does_not_separate_them():
    result = significance(dominated(20))
    assert result.rejected
    assert result.statement.startswith("The winner, a, is not significantly better than the runner-up, b (Nemenyi")
    assert not result.winner_significant
    # beside a bootstrap P(win) of 1.00 for a: both hold, and the page says why
    assert "a P(win) near 1 beside 'not significantly better' means the winner is consistently ahead" \
        in result.beside_bootstrap
    assert "any of the 6 pairs of 4 methods on 20 datasets (critical difference 1.049)" in result.beside_bootstrap


def test_statement_when_friedman_does_not_reject():
    result = significance(HAND)
    assert not result.rejected
    assert "the Friedman test does not reject that all 3 methods perform alike" in result.statement
    # the sentence names its post-hoc test even when the omnibus test stops it
    assert result.statement.endswith("so the Nemenyi post-hoc test declares no pair different.")


def test_winner_and_runner_up_come_from_the_leaderboard():
    table = competition({"a": [0.9, 0.9, 0.9, 0.1], "b": [0.5, 0.5, 0.5, 0.9], "c": [0.1, 0.1, 0.1, 0.5]})
    verdict = judge(table, ACCURACY)
    result = significance(verdict)
    assert (result.winner, result.runner_up) == tuple(verdict.leaderboard["method"][:2])


# ---------------------------------------------------------------------------
# DNF rule
# ---------------------------------------------------------------------------
def test_dnf_ranks_last_tied_among_dnfs():
    # d00: b and c have no result (DNF): ranks a 3, b/c 1.5 each
    table = competition({"a": [0.9, 0.5, 0.6], "b": [np.nan, 0.7, 0.8], "c": [np.nan, 0.6, 0.1]})
    result = significance(judge(table, ACCURACY), dnf="worst")
    # d01: b 3, c 2, a 1;  d02: b 3, a 2, c 1  -> mean ranks a 2, b 2.5, c 1.5
    assert dict(zip(result.mean_ranks["method"], result.mean_ranks["mean_rank"])) == {"b": 2.5, "a": 2.0, "c": 1.5}
    assert result.n_datasets == 3


def test_dnf_drop_leaves_out_datasets_with_a_dnf():
    table = competition({"a": [0.9, 0.5, 0.6], "b": [np.nan, 0.7, 0.8], "c": [np.nan, 0.6, 0.1]})
    result = significance(judge(table, ACCURACY), dnf="drop")
    assert result.n_datasets == 2
    assert any("1 dataset(s) with a DNF left out" in n for n in result.notes)


def test_a_dnf_on_every_dataset_ranks_last():
    table = competition({"a": [0.9, 0.5, 0.6], "b": [0.1, 0.7, 0.8]})
    verdict = judge(table, ACCURACY, methods=["a", "b", "z"])
    result = significance(verdict)
    assert result.mean_ranks["method"].iloc[-1] == "z" and result.mean_ranks["mean_rank"].iloc[-1] == 1.0


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [0, 1, -0.1, "0.05", True])
def test_alpha_error(alpha):
    with pytest.raises(SrdashError, match="The 'alpha' option must be a number strictly between 0 and 1. Got"):
        significance(HAND, alpha=alpha)


def test_dnf_option_error():
    with pytest.raises(SrdashError, match="The 'dnf' option must be one of 'worst', 'drop'. Got 'ignore'."):
        significance(HAND, dnf="ignore")


def test_too_few_methods_or_datasets():
    with pytest.raises(SrdashError, match=r"at least 2 methods and 2 datasets; got 1 method\(s\) and 4 dataset\(s\)."):
        significance(HAND[["a"]])
    with pytest.raises(SrdashError, match=r"got 3 method\(s\) and 1 dataset\(s\)."):
        significance(HAND.iloc[:1])


def test_too_few_after_dropping_dnf_datasets():
    scores = pd.DataFrame({"a": [1.0, 2.0], "b": [np.nan, 1.0]})
    with pytest.raises(SrdashError, match=r"after leaving out the datasets with a DNF \(dnf='drop'\)"):
        significance(scores, dnf="drop")


def test_q_alpha_and_critical_difference_errors():
    with pytest.raises(SrdashError, match="The Nemenyi test needs at least 2 methods. Got k = 1."):
        q_alpha(1)
    with pytest.raises(SrdashError, match="The critical difference needs at least 1 dataset. Got N = 0."):
        critical_difference(3, 0)


def test_wrong_input_type():
    with pytest.raises(SrdashError, match="significance\\(\\) takes a Verdict or a DataFrame .* Got list."):
        significance([[1, 2], [2, 1]])


def test_an_underflowing_p_value_is_written_as_a_bound():
    # chi2 = 2.7 N for this pattern (mean ranks 4, 3, 1.5, 1.5); N = 1000 gives p ~ exp(-1350)
    result = significance(dominated(1000))
    assert result.p_value == 0.0
    assert "p < 1e-300" in result.test_label


# ---------------------------------------------------------------------------
# Critical difference diagram
# ---------------------------------------------------------------------------
def test_cd_diagram_prints_the_test_alpha_and_cd_and_draws_them_to_scale():
    from srdash.figures.integrity import critical_difference_figure

    result = significance(dominated(20))
    figure = critical_difference_figure(result)
    assert figure.layout.title.text == "Critical difference diagram"  # one line that fits a phone
    title = figure.layout.title.subtitle.text.replace("<br>", " ")  # the test and the sentence, wrapped
    assert "Friedman chi2 = " in title and "Nemenyi post-hoc, alpha = 0.05" in title
    assert f"CD = {result.critical_difference:.3f}" in title.replace("<br>", " ")
    assert html.escape(result.statement, quote=False) in title.replace("<br>", " ")
    cd_bar = [t for t in figure.data if t.y is not None and tuple(t.y) == (0.6, 0.6)][0]
    assert cd_bar.x[0] - cd_bar.x[1] == pytest.approx(result.critical_difference)
    group_bars = [t for t in figure.data if t.line.color == "#d62728"]
    assert len(group_bars) == len(result.groups) == 2
    # best (rank k) on the left: the x axis runs from k down to 1
    assert figure.layout.xaxis.range[0] > figure.layout.xaxis.range[1]


def test_cd_diagram_escapes_method_names():
    from srdash.figures.integrity import critical_difference_figure

    scores = dominated(4).rename(columns={"a": "<b>evil</b>"})
    labels = [a.text for a in critical_difference_figure(significance(scores)).layout.annotations]
    assert any(text.startswith("&lt;b&gt;evil&lt;/b&gt;") for text in labels)
    assert not any("<b>evil" in text for text in labels)


@pytest.mark.parametrize("k", [2, 3, 7, 10, 21, 40])
def test_studentized_range_matches_scipy(k):
    # srdash integrates the range distribution itself (scipy.stats costs the dashboard 0.5 s of import);
    # it must agree with scipy's studentized_range (df = inf) in absolute terms and in the tails.
    from scipy import stats

    from srdash.analysis.significance import studentized_range_isf, studentized_range_sf

    for q in (0.05, 0.5, 1.0, 2.0, 3.0, 4.5, 6.0, 8.0):
        expected = stats.studentized_range.sf(q, k, np.inf)
        assert studentized_range_sf(q, k) == pytest.approx(expected, rel=1e-6, abs=1e-12)
    assert studentized_range_isf(0.05, k) == pytest.approx(stats.studentized_range.ppf(0.95, k, np.inf), abs=1e-9)
