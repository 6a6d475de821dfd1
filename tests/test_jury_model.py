"""The jury model (srdash.analysis.jury_model) against reference libraries and hand-derived cases.

choix (Plackett-Luce, Bradley-Terry by MM and by iterative Luce spectral ranking) and
krippendorff (Krippendorff's alpha) are in the ``test`` extra; each comparison is within 1e-6.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from srdash.analysis.jury_model import (bradley_terry, jury_model, jury_model_text, krippendorff_alpha,
                                        leave_one_judge_out, plackett_luce, realworld_jury_model,
                                        rubric_jury_model, trust_jury_model)
from srdash.errors import SrdashError

choix = pytest.importorskip("choix")
krippendorff = pytest.importorskip("krippendorff")


def _random_rankings(seed: int, *, n_items: int = 6, n_rankings: int = 40) -> list[list[int]]:
    """Partial strict rankings (3 to n items each) drawn from a Plackett-Luce model with spread strengths."""
    rng = np.random.default_rng(seed)
    strengths = np.exp(rng.normal(0, 1, n_items))
    rankings = []
    for _ in range(n_rankings):
        shown = list(rng.choice(n_items, size=rng.integers(3, n_items + 1), replace=False))
        order = []
        while shown:
            p = strengths[shown] / strengths[shown].sum()
            order.append(shown.pop(rng.choice(len(shown), p=p)))
        rankings.append([int(i) for i in order])
    return rankings


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plackett_luce_equals_choix_maximum_likelihood(seed):
    rankings = _random_rankings(seed)
    ours = plackett_luce(rankings, 6)
    by_mm = choix.mm_rankings(6, rankings, alpha=0.0, tol=1e-13, max_iter=200_000)
    by_ilsr = choix.ilsr_rankings(6, rankings, alpha=0.0, tol=1e-13, max_iter=10_000)  # another algorithm
    np.testing.assert_allclose(ours, by_mm, atol=1e-6, rtol=0)
    np.testing.assert_allclose(ours, by_ilsr, atol=1e-6, rtol=0)


def test_plackett_luce_with_a_prior_equals_choix_map_estimate():
    # a method first in every ranking: no finite maximum-likelihood strength, a finite MAP one
    rankings = [[0, 1, 2], [0, 2, 1], [0, 1, 3], [0, 3, 2, 1]]
    np.testing.assert_allclose(plackett_luce(rankings, 4, prior=0.1),
                               choix.mm_rankings(4, rankings, alpha=0.1, tol=1e-13, max_iter=200_000),
                               atol=1e-6, rtol=0)
    with pytest.raises(SrdashError, match="no finite maximum-likelihood estimate.*Give a prior above 0"):
        plackett_luce(rankings, 4)
    with pytest.raises(SrdashError, match="The bootstrap needs a prior above 0"):
        jury_model(_ranks({("ann", "d"): ["a", "b"], ("bob", "d"): ["b", "a"]}), prior=0.0)


@pytest.mark.parametrize("prior", [0.0, 0.5])
def test_bradley_terry_equals_choix(prior):
    rng = np.random.default_rng(3)
    pairs = [tuple(int(v) for v in rng.choice(5, size=2, replace=False)) for _ in range(60)]
    np.testing.assert_allclose(bradley_terry(pairs, 5, prior=prior),
                               choix.mm_pairwise(5, pairs, alpha=prior, tol=1e-13, max_iter=200_000),
                               atol=1e-6, rtol=0)


def test_a_tie_is_half_a_win_each_way_in_bradley_terry():
    # a beats b once and they tie once: as weights, a has 1 + 1/2 wins, b has 1/2, so w_a / w_b = 3
    # and the centred log-strengths are +-log(3)/2 = +-0.549306
    strengths = bradley_terry([(0, 1), (0, 1), (1, 0)], 2, weights=[1.0, 0.5, 0.5])
    np.testing.assert_allclose(strengths, [np.log(3) / 2, -np.log(3) / 2], atol=1e-9)


@pytest.mark.parametrize("level", ["ordinal", "interval", "nominal"])
@pytest.mark.parametrize("seed", [0, 1])
def test_krippendorff_alpha_equals_the_krippendorff_package(level, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 6, size=(4, 25)).astype(float)
    values[rng.random(values.shape) < 0.25] = np.nan
    expected = krippendorff.alpha(reliability_data=values, level_of_measurement=level)
    assert krippendorff_alpha(values, level=level) == pytest.approx(expected, abs=1e-6)


def test_krippendorff_alpha_hand_derived_golden_case():
    # Two judges, three units: (1, 1), (2, 3), (3, 2). Coincidences: o_11 = 2, o_23 = o_32 = 2, so
    # n_1 = n_2 = n_3 = 2 and n = 6. Ordinal distances d_ck = (sum_{g=c..k} n_g - (n_c + n_k)/2)^2:
    # d_12 = (4 - 2)^2 = 4, d_23 = 4, d_13 = (6 - 2)^2 = 16. Observed sum o d = 2*4 + 2*4 = 16;
    # expected sum n_c n_k d = 2 * (4*4 + 4*4 + 4*16) = 192. alpha = 1 - (n - 1) * 16 / 192 = 7/12.
    assert krippendorff_alpha([[1, 2, 3], [1, 3, 2]]) == pytest.approx(7 / 12, abs=1e-12)
    # Krippendorff's published example (2011, "Computing Krippendorff's alpha-reliability"): ordinal 0.815
    nan = np.nan
    data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    assert round(krippendorff_alpha(data), 3) == 0.815
    with pytest.raises(SrdashError, match="The 'level' option must be one of 'nominal', 'ordinal', 'interval'. "
                                          "Got 'ratio'"):
        krippendorff_alpha(data, level="ratio")


def _ranks(rows: dict[tuple[str, str], list[str]]) -> pd.DataFrame:
    """(judge, dataset) -> methods best first, as a table of ranks."""
    return pd.DataFrame([(j, d, m, float(r)) for (j, d), order in rows.items() for r, m in enumerate(order, 1)],
                        columns=["judge", "dataset", "method", "rank"])


def test_the_model_on_hand_derived_rankings_and_leaving_each_judge_out():
    # Three judges, one dataset, two methods. ann and bob put a first, cy puts b first.
    # Plackett-Luce (= Bradley-Terry for two methods), prior 0: p = w_a/(w_a + w_b) maximises p^2 (1 - p),
    # p = 2/3, strengths +-log(2)/2 = +-0.346574. Without ann (or bob): one ranking each way, a tie (0, 0);
    # without cy: a always first, no finite MLE (said so), but the MAP with the default prior 0.1 ranks a first.
    ranks = _ranks({("ann", "d"): ["a", "b"], ("bob", "d"): ["a", "b"], ("cy", "d"): ["b", "a"]})
    mle = jury_model(ranks, n_bootstrap=0, prior=0.0)
    strengths = dict(zip(mle.consensus["method"], mle.consensus["pl_strength"]))
    assert strengths["a"] == pytest.approx(np.log(2) / 2, abs=1e-9)
    assert mle.judges.set_index("judge").loc["cy", "first_without"].startswith("(no finite strengths")
    model = jury_model(ranks, n_bootstrap=0)
    assert model.consensus["bt_strength"].tolist() == pytest.approx(model.consensus["pl_strength"].tolist())
    assert model.first == ("a",)
    judges = model.judges.set_index("judge")
    assert judges.loc["ann", "first_without"] == "a = b" and judges.loc["ann", "changes"]
    assert judges.loc["cy", "first_without"] == "a" and not judges.loc["cy", "changes"]
    # cy's ranks are the opposite of the others' mean: Spearman -1; ann agrees with (bob, cy)'s mean? their mean
    # ranks a 1.5, b 1.5: a tie, so ann's rho is undefined and left out
    assert judges.loc["cy", "agreement"] == pytest.approx(-1.0)
    assert np.isnan(judges.loc["ann", "agreement"])


def test_bootstrap_intervals_hold_the_estimate_and_are_seeded():
    rankings = _random_rankings(5, n_items=4, n_rankings=24)
    ranks = _ranks({(f"judge{r % 6}", f"d{r // 6}"): [f"m{i}" for i in ranking]
                    for r, ranking in enumerate(rankings)})
    one = jury_model(ranks, n_bootstrap=100, seed=7)
    again = jury_model(ranks, n_bootstrap=100, seed=7)
    pd.testing.assert_frame_equal(one.consensus, again.consensus)
    pd.testing.assert_frame_equal(one.agreement, again.agreement)
    table = one.consensus
    assert ((table["pl_low"] <= table["pl_strength"] + 1e-9) & (table["pl_strength"] <= table["pl_high"] + 1e-9)).all()
    assert (table["pl_low"] < table["pl_high"]).all()                      # redraws do move the strengths
    assert table["pl_first"].sum() == pytest.approx(1.0)
    assert set(one.agreement["dataset"]) == {"d0", "d1", "d2", "d3", "all"}
    finite = one.agreement.dropna(subset=["alpha_low"])
    assert ((finite["alpha_low"] <= finite["alpha_high"])).all() and len(finite)


def test_krippendorff_alpha_of_the_model_is_the_packages_on_the_ranks():
    ranks = _ranks({("ann", "d"): ["a", "b", "c", "e"], ("bob", "d"): ["b", "a", "c", "e"],
                    ("cy", "d"): ["a", "c", "b", "e"]})
    model = jury_model(ranks, n_bootstrap=0)
    matrix = ranks.pivot(index="judge", columns="method", values="rank").to_numpy()
    row = model.agreement.iloc[0]
    assert row["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=matrix,
                                                            level_of_measurement="ordinal"), abs=1e-6)
    # Kendall's W beside it: rank sums a 4, b 6, c 8, e 12 (mean 7.5): S = 12.25 + 2.25 + 0.25 + 20.25 = 35,
    # W = 12 * 35 / (3^2 * (4^3 - 4)) = 0.777778
    assert row["kendalls_w"] == pytest.approx(12 * 35 / 540)


def test_severity_of_ratings_and_the_rubric_jury():
    # ann rates 5 and 3, bob 4 and 1 the same two models: ann is 1 and 2 above bob, 1.5 on average
    entries = pd.DataFrame({"judge": ["ann"] * 2 + ["bob"] * 2, "dataset": "d", "method": ["a", "b"] * 2,
                            "kind": "rating", "value": [5.0, 3.0, 4.0, 1.0]})
    model = trust_jury_model(entries, n_bootstrap=0)
    assert model.judges.set_index("judge")["severity"].to_dict() == {"ann": 1.5, "bob": -1.5}
    assert "severity -1.50 (severe against the others' mean)" in jury_model_text(model)
    ranks_only = trust_jury_model(entries.assign(kind="rank", value=[1.0, 2.0, 1.0, 2.0]), n_bootstrap=0)
    assert ranks_only.judges["severity"].isna().all()                   # ranks have no severity
    from srdash.judging.jury import Rubric, RubricCriterion, jury_summary

    scores = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob"], "dataset": "d", "method": ["a", "b"] * 2,
                           "criterion": "insight", "score": [5.0, 2.0, 4.0, 1.0]})
    jury = rubric_jury_model(jury_summary(scores, Rubric((RubricCriterion("insight"),))), n_bootstrap=0)
    assert jury.first == ("a",) and jury.judges["severity"].tolist() == [1.0, -1.0]


def test_leave_one_judge_out_of_the_real_world_verdict():
    # Equal accuracy and simplicity: trust decides. Mean trust ranks: a (1 + 1 + 2)/3 = 4/3, b 5/3: a wins.
    # Without ann (or bob): a (1 + 2)/2 = b = 1.5, a tie; without cy: a 1, b 2, a wins.
    runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.8, 0.8], "simplicity": -1.0})
    entries = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob", "cy", "cy"], "dataset": "d",
                            "method": ["a", "b"] * 3, "kind": "rank", "value": [1.0, 2.0, 1.0, 2.0, 2.0, 1.0]})
    table = leave_one_judge_out(runs, entries, "srbench2022-realworld")
    assert table.set_index("left_out")["winner"].to_dict() == {"nobody": "a", "ann": "a = b", "bob": "a = b",
                                                               "cy": "a"}
    model = realworld_jury_model(runs, entries, "srbench2022-realworld", n_bootstrap=0)
    assert model.verdict_without["changes"].tolist() == [False, True, True, False]
    assert "without ann: changes to a = b" in jury_model_text(model)


def test_refusals_name_the_option_or_column():
    with pytest.raises(SrdashError, match="need the columns judge, dataset, method, rank; missing: rank"):
        jury_model(pd.DataFrame({"judge": ["a"], "dataset": ["d"], "method": ["m"]}))
    with pytest.raises(SrdashError, match="n_bootstrap must be a whole number of at least 0. Got -1"):
        jury_model(_ranks({("ann", "d"): ["a", "b"]}), n_bootstrap=-1)
    with pytest.raises(SrdashError, match="The 'prior' option must be a number of at least 0. Got -0.5"):
        jury_model(_ranks({("ann", "d"): ["a", "b"]}), prior=-0.5)
    with pytest.raises(SrdashError, match="Judge 'ann' ranks 'a' on 'd' more than once"):
        jury_model(pd.concat([_ranks({("ann", "d"): ["a", "b"]})] * 2))
    with pytest.raises(SrdashError, match="Ranking #1 names an item more than once"):
        plackett_luce([[0, 0]], 2)
    one_judge = jury_model(_ranks({("ann", "d"): ["a", "b"]}), n_bootstrap=10)
    assert any("One judge" in note for note in one_judge.notes)
    assert np.isnan(one_judge.agreement["alpha"].iloc[0])


def test_trust_jury_model_prints_the_jury_model(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main
    from srdash.judging.jury import rubric_from_rules
    from srdash.judging.trust import TrustStore

    rubric = rubric_from_rules("srbench2023-track2")
    # ann scores a 5 and b 3 on every criterion, bob a 4 and b 2: both put a first
    with TrustStore(tmp_path / "trust.sqlite", seed=5) as store:
        for judge, values in (("ann", {"a": 5, "b": 3}), ("bob", {"a": 4, "b": 2})):
            for method, value in values.items():
                for criterion in rubric.criteria:
                    store.record_score(judge, "d", method, criterion.name, value, rubric=rubric)
    result = CliRunner().invoke(main, ["trust", "jury", "--store", str(tmp_path / "trust.sqlite"), "--rules",
                                       "srbench2023-track2", "--model"])
    assert result.exit_code == 0, result.output
    assert "Jury model (a second opinion" in result.output
    assert "  a: Plackett-Luce +" in result.output and "  b: Plackett-Luce -" in result.output
    # ann is 1 above bob on both: severity +1 and -1; each agrees with the other (rho 1)
    assert "Judge ann: agreement with the others (Spearman) 1.00; severity +1.00 (lenient" in result.output
    assert "Judge bob: agreement with the others (Spearman) 1.00; severity -1.00 (severe" in result.output
    assert "Agreement on d: Kendall's W 1.000; Krippendorff's alpha (ordinal) 1.000" in result.output


EXPERT_SCORES = Path("../shared/realdata/srbench2022/expert_scores.csv")


@pytest.mark.realdata
@pytest.mark.skipif(not EXPERT_SCORES.exists(), reason=f"real data not found at {EXPERT_SCORES}")
def test_the_model_of_the_2022_experts_ratings():
    # one expert rating 9 finalists 1-5 on three tasks, with ties: QLattice has the best mean rank (1.83)
    # and is the strongest; LassoCV is rated lowest on every task and is the weakest
    table = pd.read_csv(EXPERT_SCORES)
    entries = pd.DataFrame({"judge": "expert", "dataset": table["task"], "method": table["method"], "kind": "rating",
                            "value": table["expert_score"].astype(float)})
    model = trust_jury_model(entries, n_bootstrap=50)
    consensus = model.consensus
    assert model.first == ("QLattice",) and consensus["method"].iloc[-1] == "LassoCV"
    assert consensus.sort_values("mean_rank")["method"].iloc[0] == "QLattice"
    assert np.isfinite(consensus[["pl_low", "pl_high", "bt_low", "bt_high"]].to_numpy()).all()
    assert model.agreement["alpha"].isna().all()          # one judge: no agreement to measure
