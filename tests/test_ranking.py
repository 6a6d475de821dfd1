"""Golden and invariance tests of the ranking engine (srdash.judging.ranking)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dataclasses import replace

from srdash.errors import CriterionWithoutData, RulesError, SrdashError
from srdash.judging.ranking import judge, place_from_scores, rank_within_dataset, weighted_harmonic_mean
from srdash.judging.rules import list_presets, load_rules, parse_rules

DATA = Path(__file__).parent / "data"


def golden_basic() -> pd.DataFrame:
    return pd.read_csv(DATA / "golden_basic.csv")


def accuracy_and_simplicity() -> "Rules":
    """srbench2022's accuracy and simplicity criteria only: the rules of a table without a property."""
    rules = load_rules("srbench2022")
    return replace(rules, criteria=tuple(c for c in rules.criteria if c.name != "property"))


def scores(verdict) -> dict[str, float]:
    return dict(zip(verdict.leaderboard["method"], verdict.leaderboard["score"]))


# ---------------------------------------------------------------------------
# Golden: tests/data/golden_basic.csv under the published criteria
# (median over runs, average ranks for ties, K = 4 methods, 1 = worst, 4 = best).
#
# d1 (D has no row: DNF, positions 1 on every criterion)
#   A  r2 .9 .95 .92 -> median .92   simp -1,-1,-1.2 -> -1.0   prop 1,1,0 -> 1
#   B  r2 .9204 .9196 .5 -> per run rounded .920 .920 .5 -> median .92 (ties A)
#                                     simp -0.5               prop 0
#   C  r2 .99                        simp -2,-2.1,-1.9 -> -2.0  prop 1
#   accuracy:   D 1, A/B tie on positions 2,3 -> 2.5 each, C 4
#   simplicity: D 1, C 2, A 3, B 4
#   property:   D 1, B 2, A/C tie on 3,4 -> 3.5
#   hmean: A (2.5,3,3.5) = 3/(1/2.5+1/3+1/3.5) = 2.943925
#          B (2.5,4,2)   = 3/(0.4+0.25+0.5)    = 2.608696
#          C (4,2,3.5)   = 3/(0.25+0.5+1/3.5)  = 2.896552
#          D (1,1,1)     = 1
# d2
#   A  r2 .8 .8 missing -> median of (.8,.8,-inf) = .8   simp -1   prop .5
#   B  r2 .85 .86 .87 -> .86          simp -0.7                  prop .5
#   C  r2 .7       simp missing,-1.5,-1.5 -> median -1.5        prop 1
#   D  r2 .95 .97 -> median .96 (2 runs only)  simp -1.2,-1.4 -> -1.3   prop 0,1 -> .5
#   accuracy:   C 1, A 2, B 3, D 4
#   simplicity: C 1, D 2, A 3, B 4
#   property:   A/B/D tie on 1,2,3 -> 2, C 4
#   hmean: A (2,3,2) = 2.25;  B (3,4,2) = 2.769231;  C (1,1,4) = 1.333333;  D (4,2,2) = 2.4
# final = mean of the two datasets:
#   A 2.596963, B 2.688963, C 2.114943, D 1.7  -> B, A, C, D
# ---------------------------------------------------------------------------
GOLDEN_BASIC_PUBLISHED = {"A": 2.596963, "B": 2.688963, "C": 2.114943, "D": 1.7}

# The same file under srbench2022-as-run (the organisers' notebook: simplicity min-max
# normalised over the whole table, mean over runs with missing run values skipped, only the
# mean R2 rounded, rank = K - dense rank with dense rank 1 = best, K = 4, a DNF left out):
# simplicity over the table: min -2.1, max -0.5, n(s) = (s + 2.1) / 1.6
# d1 (D DNF: not ranked, d1 not in D's mean):
#     A r2 mean(.9,.95,.92)=.923  simp n(-1.0667)=.6458  prop .667
#     B r2 mean(.9204,.9196,.5)=.78  simp n(-.5)=1  prop 0;  C .99, n(-2)=.0625, 1
#     accuracy C3 A2 B1; simplicity B3 A2 C1; property C3 A2 B1
#     A (2,2,2)=2; B (1,3,1)=3/(1+1/3+1)=1.285714; C (3,1,3)=3/(1/3+1+1/3)=1.8
# d2: the missing run values are skipped by the mean:
#     A r2 .8, simp n(-1)=.6875, prop .5; B .86, n(-.7)=.875, .5; C .7, n(-1.5)=.375, 1;
#     D .96, mean(n(-1.2), n(-1.4))=.5, .5
#     accuracy D3 B2 A1 C0; simplicity B3 A2 D1 C0; property C3, A/B/D dense 2 -> 2
#     A (1,2,2)=1.5; B (2,3,2)=2.25; C (0,0,3)=0; D (3,1,2)=3/(1/3+1+1/2)=1.636364
# final (mean over the datasets with results): A 1.75, B 1.767857, C 0.9, D 1.636364 (d2 only)
#     -> B, A, D, C
GOLDEN_BASIC_AS_RUN = {"A": 1.75, "B": 1.767857, "C": 0.9, "D": 1.636364}


def test_golden_basic_published_criteria():
    verdict = judge(golden_basic(), load_rules("srbench2022"))
    assert list(verdict.leaderboard["method"]) == ["B", "A", "C", "D"]
    assert list(verdict.leaderboard["place"]) == [1, 2, 3, 4]
    for method, expected in GOLDEN_BASIC_PUBLISHED.items():
        assert scores(verdict)[method] == pytest.approx(expected, abs=1e-6)


def test_golden_basic_per_dataset_ranks_and_dnf():
    per = judge(golden_basic(), load_rules("srbench2022")).per_dataset.set_index(["dataset", "method"])
    assert per.loc[("d1", "A"), "accuracy"] == 0.92
    assert per.loc[("d1", "B"), "accuracy"] == 0.92  # .9204 and .9196 round to .920 per run
    assert per.loc[("d1", "A"), "accuracy_rank"] == 2.5
    assert per.loc[("d1", "B"), "accuracy_rank"] == 2.5
    assert per.loc[("d1", "D"), "status"] == "DNF"
    assert np.isnan(per.loc[("d1", "D"), "accuracy"])
    assert per.loc[("d1", "D"), ["accuracy_rank", "simplicity_rank", "property_rank"]].tolist() == [1, 1, 1]
    assert per.loc[("d2", "C"), "simplicity"] == -1.5  # missing run counted worst, median unaffected
    assert per.loc[("d2", "D"), "runs"] == 2
    assert per.loc[("d2", "A"), "property_rank"] == 2.0  # three-way tie on positions 1..3


def test_golden_basic_as_run_preset():
    verdict = judge(golden_basic(), load_rules("srbench2022-as-run"))
    assert list(verdict.leaderboard["method"]) == ["B", "A", "D", "C"]
    for method, expected in GOLDEN_BASIC_AS_RUN.items():
        assert scores(verdict)[method] == pytest.approx(expected, abs=1e-6)
    per = verdict.per_dataset.set_index(["dataset", "method"])
    assert per.loc[("d2", "C"), "accuracy_rank"] == 0  # the last method gets 0 ...
    assert per.loc[("d2", "C"), "dataset_score"] == 0  # ... and with it a harmonic mean of 0
    assert np.isnan(per.loc[("d1", "D"), "accuracy_rank"])  # a DNF is left out, not ranked last
    assert np.isnan(per.loc[("d1", "D"), "dataset_score"])


def test_golden_basic_problems_list_dnf_and_missing_values():
    problems = judge(golden_basic(), load_rules("srbench2022")).problems
    dnf = problems[problems["kind"] == "DNF"]
    assert dnf[["method", "dataset"]].values.tolist() == [["D", "d1"]]
    missing = problems[problems["kind"] == "missing value"]
    assert sorted(missing["method"]) == ["A", "C"]


def test_harmonic_mean_punishes_one_bad_rank():
    # Two methods, three datasets... one dataset, two criteria, K = 3:
    # X is best on accuracy (3) and worst on simplicity (1): hmean 2/(1/3+1) = 1.5
    # Y is middle on both (2, 2): hmean 2. The arithmetic mean would tie them at 2.
    # Z is worst on accuracy (1) and best on simplicity (3): 1.5.
    table = pd.DataFrame({"method": ["X", "Y", "Z"], "dataset": "d", "run": 0,
                          "r2_test": [0.9, 0.8, 0.7], "simplicity": [-2.0, -1.5, -1.0]})
    verdict = judge(table, accuracy_and_simplicity())
    assert scores(verdict) == pytest.approx({"X": 1.5, "Y": 2.0, "Z": 1.5})
    assert list(verdict.leaderboard["place"]) == [1, 2, 2]
    assert list(verdict.leaderboard["method"]) == ["Y", "X", "Z"]


def test_missing_criterion_stops_the_verdict():
    # No silent gaps: srbench2022 ranks the property; a table without it gets no verdict.
    table = golden_basic().drop(columns="property")
    with pytest.raises(CriterionWithoutData, match=r"Criterion 'property' of the rules 'srbench2022' has no data: "
                                                   r"the column 'property' is missing\. It is measured 'column' "
                                                   r".*add the column to the results") as caught:
        judge(table, load_rules("srbench2022"))
    assert caught.value.criteria == ("property",)
    with pytest.raises(CriterionWithoutData, match="(?s)the column 'property' is empty.*mark it `optional = true`"):
        judge(table.assign(property=np.nan), load_rules("srbench2022"))


def test_optional_criterion_is_left_out_with_a_warning():
    table = golden_basic().drop(columns="property")
    text = load_rules("srbench2022").text.replace('column = "property"\n', 'column = "property"\noptional = true\n')
    verdict = judge(table, parse_rules(text))
    assert [c.name for c in verdict.criteria] == ["accuracy", "simplicity"]
    assert "property_rank" not in verdict.leaderboard.columns
    assert any("Criterion 'property' has no data (column 'property' is missing or empty); it is optional"
               in w for w in verdict.warnings)


def test_measured_criterion_without_data_says_how_to_supply_it():
    rules = load_rules("srbench2023-track1-as-run")
    table = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.5, 0.6]})
    with pytest.raises(CriterionWithoutData, match=r"Criterion 'size' .* measured 'tree-nodes' \(Nodes of the sympy "
                                                   r"expression tree .*\): give the runs' model strings"):
        judge(table, rules)


def test_no_criterion_with_data_is_an_error():
    table = pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0], "rmse": [1.0]})
    with pytest.raises(CriterionWithoutData, match="Criterion 'accuracy' of the rules 'srbench2022' has no data"):
        judge(table, load_rules("srbench2022"))
    everything_optional = parse_rules('[[criteria]]\nname = "a"\ncolumn = "r2_test"\noptional = true\n')
    with pytest.raises(SrdashError, match="None of the criteria of the rules 'rules' has data"):
        judge(table, everything_optional)


def test_sympy_version_warning_names_both_versions():
    verdict = judge(golden_basic(), load_rules("srbench2022"))
    warning = [w for w in verdict.warnings if "sympy" in w]
    assert warning and "sympy 1.10.1" in warning[0] and f"sympy {verdict.provenance['sympy_version']}" in warning[0]


def test_lower_is_better_criterion():
    rules = parse_rules("""
[[criteria]]
name = "error"
column = "rmse"
direction = "lower"
""")
    table = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0, "rmse": [3.0, 1.0, np.nan]})
    verdict = judge(table, rules)
    # b has the smallest error -> rank 3; a -> 2; c's missing value is the worst -> 1
    assert scores(verdict) == {"a": 2.0, "b": 3.0, "c": 1.0}


def test_weighted_harmonic_mean_definition():
    # sum(w) / sum(w / r) = (1 + 3) / (1/2 + 3/4) = 4 / 1.25 = 3.2
    assert weighted_harmonic_mean(np.array([2.0, 4.0]), np.array([1.0, 3.0])) == pytest.approx(3.2)


@pytest.mark.parametrize("method, expected", [
    # values 5, 5, 3, NaN(DNF), 1 -> ordered worst..best: DNF(1), 1(2), 3(3), 5/5(4,5)
    ("average", [4.5, 4.5, 3.0, 1.0, 2.0]),
    ("min", [4.0, 4.0, 3.0, 1.0, 2.0]),
    ("max", [5.0, 5.0, 3.0, 1.0, 2.0]),
    ("dense", [4.0, 4.0, 3.0, 1.0, 2.0]),
    # dense from the best: 5 -> 1, 3 -> 2, 1 -> 3, DNF -> 4; rank = K(5) - that
    ("k-minus-dense", [4.0, 4.0, 3.0, 1.0, 2.0]),
])
def test_tie_rules(method, expected):
    values = pd.Series([5.0, 5.0, 3.0, np.nan, 1.0])
    ranks = rank_within_dataset(values, pd.Series(["d"] * 5), method=method, n_methods=5)
    assert ranks.tolist() == expected


def test_k_minus_dense_with_two_dnfs_and_gaps():
    # K = 5; dense from best: 9 -> 1, 7 -> 2, DNF,DNF -> 3, so ranks 4, 3, 2, 2 ... and 9 twice
    values = pd.Series([9.0, 7.0, np.nan, np.nan, 9.0])
    ranks = rank_within_dataset(values, pd.Series(["d"] * 5), method="k-minus-dense", n_methods=5)
    assert ranks.tolist() == [4.0, 3.0, 2.0, 2.0, 4.0]


def test_places_share_ties():
    assert place_from_scores([1.0, 1.0 + 1e-12, 0.5]).tolist() == [1, 1, 3]


def test_rank_method_error_message():
    with pytest.raises(RulesError, match="the 'rank_method' option must be one of 'average', 'min', 'max', "
                                         "'dense', 'k-minus-dense', 'dense-from-best'. Got 'mean'"):
        load_rules("srbench2022").with_options(rank_method="mean")


# ---------------------------------------------------------------------------
# Invariance, over every rank-harmonic preset and random competitions
# ---------------------------------------------------------------------------
RANK_PRESETS = [p for p in list_presets() if load_rules(p).rule_kind.judges_runs]


def random_competition(seed: int, *, n_methods=6, n_datasets=5, n_runs=4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_methods):
        for d in range(n_datasets):
            if rng.random() < 0.08:
                continue  # a DNF cell
            for r in range(n_runs):
                rows.append({
                    "method": f"m{m}", "dataset": f"d{d}", "run": r,
                    # coarse values so that ties happen
                    "r2_test": np.round(rng.uniform(0.5, 1.0), 2),
                    "simplicity": -np.round(rng.uniform(0.5, 2.5), 1),
                    "property": rng.choice([0.0, 0.5, 1.0]),
                    "trust": float(rng.integers(1, 6)),
                    "size": float(rng.integers(3, 9)),  # lower is better (srbench2023-track1)
                    "jury_score": np.round(rng.uniform(1, 5), 1),   # the srbench2023-track2 preset's column
                })
    return pd.DataFrame(rows)


def canonical(verdict) -> pd.DataFrame:
    return verdict.leaderboard.sort_values("method").reset_index(drop=True)


@pytest.mark.parametrize("preset", RANK_PRESETS)
@pytest.mark.parametrize("seed", range(5))
def test_permuting_rows_methods_datasets_changes_nothing(preset, seed):
    rules = load_rules(preset)
    table = random_competition(seed)
    reference = canonical(judge(table, rules))
    shuffled = table.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    pd.testing.assert_frame_equal(canonical(judge(shuffled, rules)), reference)
    # renaming methods/datasets so that their sorted order is reversed
    renamed = table.assign(method=table["method"].map(lambda m: f"z{9 - int(m[1:])}"),
                           dataset=table["dataset"].map(lambda d: f"q{9 - int(d[1:])}"))
    back = judge(renamed, rules).leaderboard.copy()
    back["method"] = back["method"].map(lambda m: f"m{9 - int(m[1:])}")
    pd.testing.assert_frame_equal(back.sort_values("method").reset_index(drop=True), reference)


@pytest.mark.parametrize("preset", RANK_PRESETS)
@pytest.mark.parametrize("seed", range(5))
def test_scaling_all_weights_changes_nothing(preset, seed):
    names = [c.name for c in load_rules(preset).criteria]
    rules = load_rules(preset).with_options(weights=dict(zip(names, [1.0, 2.0, 0.5])))
    scaled = rules.with_options(weights=dict(zip(names, [7.0, 14.0, 3.5])))
    table = random_competition(seed)
    a, b = canonical(judge(table, rules)), canonical(judge(table, scaled))
    pd.testing.assert_frame_equal(a, b)


# K - dense rank (the as-run rule) is NOT monotone: see the test below. The
# published rules and the draft are.
MONOTONE_PRESETS = [p for p in RANK_PRESETS if load_rules(p).rank_method != "k-minus-dense"]


@pytest.mark.parametrize("preset", MONOTONE_PRESETS)
@pytest.mark.parametrize("seed", range(8))
def test_improving_one_method_never_lowers_its_place(preset, seed):
    rules = load_rules(preset)
    rng = np.random.default_rng(100 + seed)
    table = random_competition(seed)
    before = judge(table, rules).leaderboard.set_index("method")["place"]
    for _ in range(5):
        method = f"m{rng.integers(6)}"
        dataset = f"d{rng.integers(5)}"
        column = rng.choice([c.column for c in rules.criteria])
        rows = (table["method"] == method) & (table["dataset"] == dataset)
        if not rows.any():
            continue
        criterion = next(c for c in rules.criteria if c.column == column)
        step = 0.3 if criterion.direction == "higher" else -0.3
        improved = table.copy()
        improved.loc[rows, column] = improved.loc[rows, column] + step
        if criterion.domain is not None:  # beyond its domain a value is a problem, counted as the worst
            improved.loc[rows, column] = improved.loc[rows, column].clip(*criterion.domain)
        after = judge(improved, rules).leaderboard.set_index("method")["place"]
        assert after[method] <= before[method], (method, dataset, column)


def test_uniform_weights_equal_unweighted():
    table = random_competition(3)
    plain = judge(table, load_rules("srbench2022"))
    uniform = judge(table, load_rules("srbench2022").with_options(
        weights={"accuracy": 0.2, "simplicity": 0.2, "property": 0.2}))
    pd.testing.assert_frame_equal(plain.leaderboard, uniform.leaderboard)


def test_judge_does_not_mutate_its_input():
    table = golden_basic()
    copy = table.copy()
    judge(table, load_rules("srbench2022"))
    pd.testing.assert_frame_equal(table, copy)


def test_methods_argument_adds_a_method_without_results():
    verdict = judge(golden_basic(), load_rules("srbench2022"), methods=["A", "B", "C", "D", "E"])
    assert verdict.n_methods == 5
    row = verdict.leaderboard.set_index("method").loc["E"]
    assert row["dnf"] == 2 and row["place"] == 5


# ---------------------------------------------------------------------------
# Golden: tests/data/golden_presets.csv, one dataset, 3 runs, 3 methods (K = 3),
# built so that the three SRBench 2022 presets crown three different winners.
# Simplicity (-1.0) and property (1.0) are equal for everyone, so only accuracy
# separates the methods:  P .9 .9 .1   Q .8 .8 .8   R .95 .5 .85
#
# srbench2022 (median, average ties): medians P .9, R .85, Q .8
#   accuracy ranks P 3, R 2, Q 1; simplicity and property all tied -> 2
#   P 3/(1/3+1/2+1/2) = 2.25;  R (2,2,2) = 2;  Q 3/(1+1/2+1/2) = 1.5   -> P, R, Q
# srbench2022-as-run (mean, K - dense): means Q .8, R .767, P .633
#   accuracy Q 3-1 = 2, R 3-2 = 1, P 3-3 = 0; ties -> dense 1 -> 2
#   Q (2,2,2) = 2;  R (1,2,2) = 1.5;  P (0,2,2) = 0                     -> Q, R, P
# srbench2022-draft (rank per run, mean of ranks; a run needs r2 > .5 * .95 = .475):
#   run 0: R .95 -> 3, P .9 -> 2, Q .8 -> 1
#   run 1: P .9 -> 3, Q .8 -> 2, R .5 -> 1   (.5 passes)
#   run 2: P .1 fails -> worst on all criteria: P 1; R .85 -> 3, Q .8 -> 2
#   accuracy mean ranks: P 2, Q 5/3, R 7/3
#   simplicity = property: runs 0, 1 all tied (2); run 2 P 1, Q/R tie on 2,3 -> 2.5
#     P 5/3, Q 13/6, R 13/6
#   P 3/(1/2 + 3/5 + 3/5)          = 3/1.7      = 1.764706
#   Q 3/(3/5 + 6/13 + 6/13)        = 3/1.523077 = 1.969697
#   R 3/(3/7 + 6/13 + 6/13)        = 3/1.351648 = 2.219512          -> R, Q, P
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("preset, order, expected", [
    ("srbench2022", ["P", "R", "Q"], {"P": 2.25, "R": 2.0, "Q": 1.5}),
    ("srbench2022-as-run", ["Q", "R", "P"], {"Q": 2.0, "R": 1.5, "P": 0.0}),
    ("srbench2022-draft", ["R", "Q", "P"], {"R": 2.219512, "Q": 1.969697, "P": 1.764706}),
])
def test_three_presets_three_winners(preset, order, expected):
    verdict = judge(pd.read_csv(DATA / "golden_presets.csv"), load_rules(preset))
    assert list(verdict.leaderboard["method"]) == order
    for method, value in expected.items():
        assert scores(verdict)[method] == pytest.approx(value, abs=1e-6)


def test_draft_threshold_needs_its_column():
    table = pd.read_csv(DATA / "golden_presets.csv")
    table["simplicity"] = -1.0
    text = load_rules("srbench2022-draft").text.replace('min_relative = { column = "r2_test"',
                                                        'min_relative = { column = "r2"')
    with pytest.raises(SrdashError, match="min_relative uses the column 'r2', which the table does not have"):
        judge(table, parse_rules(text))


def test_min_relative_must_be_well_formed():
    with pytest.raises(RulesError, match=r"\[filters\] min_relative must be a table with keys 'column'"):
        parse_rules('[filters]\nmin_relative = { column = "r2_test" }\n[[criteria]]\nname = "a"\ncolumn = "b"')


def test_k_minus_dense_is_not_monotone():
    # A finding about the rule the 2022 organisers' notebook used. K = 3, two
    # criteria a and b (higher is better), one dataset:
    #        a  b     a: dense from best X1 Z2 Y3 -> ranks X 2, Z 1, Y 0
    #   X    3  3     b: dense from best X1 Y2 Z3 -> ranks X 2, Y 1, Z 0
    #   Y    1  2     hmean X 2, Y hmean(0,1) = 0, Z hmean(1,0) = 0 -> places X 1, Y 2, Z 2
    #   Z    2  1
    # Z improves a from 2 to 3 and ties X: a has one level less, so Y moves up:
    #   a: X,Z 1, Y 2 -> ranks X 2, Z 2, Y 1;   hmean X 2, Y (1,1) = 1, Z (2,0) = 0
    # Z improved and fell from a shared second place to third.
    rules = parse_rules("""
[ranking]
rank_method = "k-minus-dense"
[[criteria]]
name = "a"
column = "a"
[[criteria]]
name = "b"
column = "b"
""")
    table = pd.DataFrame({"method": list("XYZ"), "dataset": "d", "run": 0,
                          "a": [3.0, 1.0, 2.0], "b": [3.0, 2.0, 1.0]})
    before = judge(table, rules).leaderboard.set_index("method")["place"]
    improved = table.assign(a=[3.0, 1.0, 3.0])
    after = judge(improved, rules).leaderboard.set_index("method")["place"]
    assert before.to_dict() == {"X": 1, "Y": 2, "Z": 2}
    assert after.to_dict() == {"X": 1, "Y": 2, "Z": 3}


def test_compare_verdicts_flags_the_places_that_differ():
    # golden_presets.csv: three presets, three winners (see test_three_presets_three_winners)
    table = pd.read_csv(DATA / "golden_presets.csv")
    from srdash.judging.ranking import compare_verdicts

    compared = compare_verdicts([judge(table, load_rules(p))
                                 for p in ("srbench2022", "srbench2022-as-run", "srbench2022-draft")])
    places = compared.set_index("method")
    assert places.loc["P", ["place:srbench2022", "place:srbench2022-as-run", "place:srbench2022-draft"]].tolist() \
        == [1, 3, 3]
    assert places.loc["R", ["place:srbench2022", "place:srbench2022-as-run", "place:srbench2022-draft"]].tolist() \
        == [2, 2, 1]
    assert places["differs"].tolist() == [True, True, True]
    with pytest.raises(SrdashError, match="differently named rules"):
        compare_verdicts([judge(table, load_rules("srbench2022"))] * 2)
