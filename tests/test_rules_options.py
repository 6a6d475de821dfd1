"""The rank-harmonic rules options on normalisation, rounding, ties, DNFs and missing values.

Each option has a small golden competition whose expected verdict is derived by hand in a
comment, a test of its error message, and a test that changing it changes ``Rules.sha256``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from srdash.errors import RulesError
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules, parse_rules


def rules_text(ranking: str = "", criterion: str = "", *, second: bool = False) -> str:
    """One criterion ``x`` (column ``x``, higher is better), optionally a second ``y``."""
    text = f"""
name = "options"
[ranking]
run_aggregation = "mean"
rank_method = "average"
{ranking}
[[criteria]]
name = "x"
column = "x"
{criterion}
"""
    if second:
        text += '\n[[criteria]]\nname = "y"\ncolumn = "y"\n'
    return text


def runs(rows: list[tuple]) -> pd.DataFrame:
    columns = ["method", "dataset", "run", "x", "y"][: len(rows[0])]
    return pd.DataFrame(rows, columns=columns)


def scores(verdict) -> dict[str, float]:
    return dict(zip(verdict.leaderboard["method"], verdict.leaderboard["score"]))


def cell(verdict, dataset: str, method: str, column: str) -> float:
    return verdict.per_dataset.set_index(["dataset", "method"]).loc[(dataset, method), column]


# ---------------------------------------------------------------------------
# normalisation = "min-max-table", with decimals = 1 rounded after aggregation.
# x over the whole table: d1 a 0, b 10; d2 a 4.1, b 4.3 -> min 0, max 10, n(v) = v / 10.
#   normalised: d2 a .41 -> .4, b .43 -> .4: a tie (average ranks 1.5, 1.5); d1 a 1, b 2.
#   scores: a (1 + 1.5) / 2 = 1.25, b (2 + 1.5) / 2 = 1.75.
#   not normalised: d2 a 4.1, b 4.3 stay apart: a 1, b 2 on both datasets -> a 1, b 2.
# ---------------------------------------------------------------------------
NORMALISATION_RUNS = [("a", "d1", 0, 0.0), ("b", "d1", 0, 10.0), ("a", "d2", 0, 4.1), ("b", "d2", 0, 4.3)]


@pytest.mark.parametrize("normalisation, expected", [("min-max-table", {"a": 1.25, "b": 1.75}),
                                                     ("none", {"a": 1.0, "b": 2.0})])
def test_normalisation_golden(normalisation, expected):
    rules = parse_rules(rules_text(criterion=f'decimals = 1\nrounding = "after-aggregation"\n'
                                             f'normalisation = "{normalisation}"'))
    verdict = judge(runs(NORMALISATION_RUNS), rules)
    assert scores(verdict) == pytest.approx(expected, abs=1e-12)
    if normalisation == "min-max-table":
        assert cell(verdict, "d2", "a", "x") == 0.4


def test_normalisation_of_one_value_is_zero():
    # max == min: every finite value becomes 0 (rather than 0 / 0)
    rules = parse_rules(rules_text(criterion='normalisation = "min-max-table"'))
    verdict = judge(runs([("a", "d1", 0, 3.0), ("b", "d1", 0, 3.0)]), rules)
    assert cell(verdict, "d1", "a", "x") == 0.0


# ---------------------------------------------------------------------------
# rounding, decimals = 0, mean over the runs 0.4, 0.4, 1.4 of one method:
#   never:             mean 2.2 / 3 = 0.7333
#   per-run:           0, 0, 1 -> mean 1/3 = 0.3333
#   after-aggregation: 0.7333 -> 1
#   both:              1/3 -> 0
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("rounding, expected", [("never", 2.2 / 3), ("per-run", 1 / 3),
                                                ("after-aggregation", 1.0), ("both", 0.0)])
def test_rounding_golden(rounding, expected):
    rules = parse_rules(rules_text(criterion=f'decimals = 0\nrounding = "{rounding}"'))
    verdict = judge(runs([("a", "d", 0, 0.4), ("a", "d", 1, 0.4), ("a", "d", 2, 1.4)]), rules)
    assert cell(verdict, "d", "a", "x") == pytest.approx(expected, abs=1e-12)


# ---------------------------------------------------------------------------
# ties: a 0.3, b 0.1 + 0.2 (= 0.30000000000000004), c 0.5, average ranks, K = 3.
#   exact: a 1, b 2, c 3, and a warning that a and b are equal to 12 digits but ranked apart.
#   tolerance 1e-9: a and b tie on positions 1, 2 -> 1.5 each; c 3; no warning.
#   tolerance 0.7 on 0.0, 0.6, 1.2: each is within 0.7 of its neighbour, so the chain is one
#   tie on positions 1..3 -> 2 each (although 0.0 and 1.2 are 1.2 apart).
# ---------------------------------------------------------------------------
NOISE_RUNS = [("a", "d", 0, 0.3), ("b", "d", 0, 0.1 + 0.2), ("c", "d", 0, 0.5)]


def test_exact_ties_rank_float_noise_apart_with_a_warning():
    verdict = judge(runs(NOISE_RUNS), parse_rules(rules_text()))
    assert scores(verdict) == {"a": 1.0, "b": 2.0, "c": 3.0}
    noise = [w for w in verdict.warnings if w.startswith("Float-noise tie")]
    assert noise == ["Float-noise tie ranked apart on dataset 'd', criterion 'x': values equal to 12 significant "
                     "digits were compared exactly: 'b' 0.30000000000000004 (rank 2), 'a' 0.3 (rank 1)."]


def test_tolerance_ties_float_noise_without_warning():
    verdict = judge(runs(NOISE_RUNS), parse_rules(rules_text('ties = "tolerance"\ntie_tolerance = 1e-9')))
    assert scores(verdict) == {"a": 1.5, "b": 1.5, "c": 3.0}
    assert not [w for w in verdict.warnings if w.startswith("Float-noise tie")]


def test_tolerance_ties_chain():
    rules = parse_rules(rules_text('ties = "tolerance"\ntie_tolerance = 0.7'))
    verdict = judge(runs([("a", "d", 0, 0.0), ("b", "d", 0, 0.6), ("c", "d", 0, 1.2)]), rules)
    assert scores(verdict) == {"a": 2.0, "b": 2.0, "c": 2.0}


# ---------------------------------------------------------------------------
# dnf: d1 a .9, b .8, c .7; d2 a .6, b .5, c has no run (DNF); average ranks, K = 3.
#   last:        d1 a 3 b 2 c 1; d2 a 3 b 2 c 1       -> a 3, b 2, c 1
#   left-out:    d2 ranks a and b only: a 2, b 1;      -> a (3+2)/2 = 2.5, b (2+1)/2 = 1.5,
#                c's mean is over d1 only               -> c 1
#   worst-value: c gets the worst value of the table, min(.9,.8,.7,.6,.5) = .5, and ties with b
#                on d2 (positions 1, 2 -> 1.5 each)     -> a 3, b (2+1.5)/2 = 1.75, c (1+1.5)/2 = 1.25
# ---------------------------------------------------------------------------
DNF_RUNS = [("a", "d1", 0, 0.9), ("b", "d1", 0, 0.8), ("c", "d1", 0, 0.7), ("a", "d2", 0, 0.6),
            ("b", "d2", 0, 0.5)]


@pytest.mark.parametrize("dnf, expected", [("last", {"a": 3.0, "b": 2.0, "c": 1.0}),
                                           ("left-out", {"a": 2.5, "b": 1.5, "c": 1.0}),
                                           ("worst-value", {"a": 3.0, "b": 1.75, "c": 1.25})])
def test_dnf_golden(dnf, expected):
    verdict = judge(runs(DNF_RUNS), parse_rules(rules_text(f'dnf = "{dnf}"')))
    assert scores(verdict) == pytest.approx(expected, abs=1e-12)
    detail = verdict.problems.loc[verdict.problems["kind"] == "DNF", "detail"].tolist()
    assert len(detail) == 1 and {"last": "ranked last", "left-out": "left out",
                                 "worst-value": "worst value of the table"}[dnf] in detail[0]


def test_dnf_left_out_with_harmonic_over_all():
    # ranks as under dnf = "left-out" above: a (3, 2) -> 2 / (1/3 + 1/2) = 2.4; b (2, 1) -> 2 / (1/2 + 1) = 4/3;
    # c is left out on d2, so its harmonic mean is over d1's rank only: 1
    rules = parse_rules(rules_text('dnf = "left-out"\nscore = "harmonic-over-all"'))
    assert scores(judge(runs(DNF_RUNS), rules)) == pytest.approx({"a": 2.4, "b": 4 / 3, "c": 1.0}, abs=1e-12)


# ---------------------------------------------------------------------------
# missing_run_value: a's runs x = 0.2 and missing, b's 0.5, one dataset.
#   worst:   a's mean of (0.2, -inf) is -inf
#   skipped: a's mean is 0.2 (the missing run is left out of the mean)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("missing, expected", [("worst", -np.inf), ("skipped", 0.2)])
def test_missing_run_value_golden(missing, expected):
    rules = parse_rules(rules_text(f'missing_run_value = "{missing}"'))
    verdict = judge(runs([("a", "d", 0, 0.2), ("a", "d", 1, np.nan), ("b", "d", 0, 0.5)]), rules)
    assert cell(verdict, "d", "a", "x") == expected


# ---------------------------------------------------------------------------
# missing_rank, with missing_run_value = "skipped" and k-minus-dense ranks, K = 3, one dataset:
#   x: a has no value (both runs missing), b .5, c .7;  y: a .9, b .8, c .7
#   worst: x ranked as the worst value: dense from best c 1, b 2, a 3 -> c 2, b 1, a 0
#          y: a 2, b 1, c 0 -> hmean a (0, 2) = 0, b (1, 1) = 1, c (2, 0) = 0
#   best:  x: a not ranked, counts K = 3; c 2, b 1
#          -> a (3, 2) = 2 / (1/3 + 1/2) = 2.4, b 1, c 0
# ---------------------------------------------------------------------------
MISSING_RANK_RUNS = [("a", "d", 0, np.nan, 0.9), ("a", "d", 1, np.nan, 0.9), ("b", "d", 0, 0.5, 0.8),
                     ("c", "d", 0, 0.7, 0.7)]


@pytest.mark.parametrize("missing_rank, expected, a_rank", [("worst", {"a": 0.0, "b": 1.0, "c": 0.0}, 0.0),
                                                            ("best", {"a": 2.4, "b": 1.0, "c": 0.0}, 3.0)])
def test_missing_rank_golden(missing_rank, expected, a_rank):
    rules = parse_rules(rules_text(f'rank_method = "k-minus-dense"\nmissing_run_value = "skipped"\n'
                                   f'missing_rank = "{missing_rank}"', second=True).replace(
        'rank_method = "average"\n', ""))
    verdict = judge(runs(MISSING_RANK_RUNS), rules)
    assert scores(verdict) == pytest.approx(expected, abs=1e-12)
    assert cell(verdict, "d", "a", "x_rank") == a_rank


def test_value_outside_domain_is_worst_even_when_missing_values_are_skipped():
    # R2 = 1.5 is not a measurement: it counts as the worst value, it is not skipped
    rules = parse_rules(rules_text('missing_run_value = "skipped"', 'domain = [-inf, 1.0]'))
    verdict = judge(runs([("a", "d", 0, 0.2), ("a", "d", 1, 1.5), ("b", "d", 0, 0.5)]), rules)
    assert cell(verdict, "d", "a", "x") == -np.inf


# ---------------------------------------------------------------------------
# Errors, in the house wording
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("line, message", [
    ('ties = "close"', "the 'ties' option must be one of 'exact', 'tolerance'. Got 'close'."),
    ('dnf = "worst"', "the 'dnf' option must be one of 'last', 'left-out', 'worst-value'. Got 'worst'."),
    ('missing_rank = "k"', "the 'missing_rank' option must be one of 'worst', 'best'. Got 'k'."),
    ('missing_run_value = "drop"', "the 'missing_run_value' option must be one of 'worst', 'skipped', 'worst-value'. Got 'drop'."),
    ('ties = "tolerance"', "ties = 'tolerance' needs a 'tie_tolerance' > 0. Got 0.0."),
    ('tie_tolerance = 0.1', r"a 'tie_tolerance' \(0.1\) needs ties = 'tolerance'"),
    ('ties = "tolerance"\ntie_tolerance = -1', "'tie_tolerance' must be a finite number >= 0 and at most 1,000,000. Got -1."),
    ('dnfs = "last"', r"unknown key 'dnfs' in \[ranking\]. Allowed keys: dataset_order, dnf, missing_rank, "),
])
def test_ranking_option_errors(line, message):
    with pytest.raises(RulesError, match=message):
        parse_rules(rules_text(line))


@pytest.mark.parametrize("line, message", [
    ('rounding = "late"', "criterion 'x': the 'rounding' option must be one of 'both', 'per-run', "
                          "'after-aggregation', 'never'. Got 'late'."),
    ('normalisation = "z"', "criterion 'x': the 'normalisation' option must be one of 'none', 'min-max-table'. "
                            "Got 'z'."),
])
def test_criterion_option_errors(line, message):
    with pytest.raises(RulesError, match=message):
        parse_rules(rules_text(criterion=line))


def test_rank_mean_refuses_the_dnf_and_missing_value_options():
    with pytest.raises(RulesError, match="run_aggregation = 'rank-mean' ranks each run, a missing run or DNF as the "
                                         "worst; it cannot be combined with dnf other than the default."):
        load_rules("srbench2022-draft").with_options(dnf="left-out")


def test_with_options_rejects_unknown_options():
    with pytest.raises(RulesError, match="Unknown option"):
        load_rules("srbench2022").with_options(dnfs="last")


# ---------------------------------------------------------------------------
# The fingerprint
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("option, value", [("ties", "tolerance"), ("dnf", "left-out"), ("dnf", "worst-value"),
                                           ("missing_rank", "best"), ("missing_run_value", "skipped")])
def test_every_ranking_option_changes_the_fingerprint(option, value):
    rules = load_rules("srbench2022")
    extra = {"tie_tolerance": 1e-9} if option == "ties" else {}
    changed = rules.with_options(**{option: value}, **extra)
    assert changed.sha256 != rules.sha256
    assert changed.with_options(**{option: getattr(rules, option)}, tie_tolerance=0.0).sha256 == rules.sha256


@pytest.mark.parametrize("option, value", [("rounding", "per-run"), ("rounding", "after-aggregation"),
                                           ("rounding", "never"), ("normalisation", "min-max-table")])
def test_every_criterion_option_changes_the_fingerprint(option, value):
    rules = load_rules("srbench2022")
    changed = replace(rules, criteria=(replace(rules.criteria[0], **{option: value}),) + rules.criteria[1:])
    assert changed.sha256 != rules.sha256


def test_defaults_keep_the_applied_rules_of_older_files():
    # Stating the defaults does not change what is hashed beyond the text: the same effective rules.
    plain = parse_rules(rules_text())
    stated = parse_rules(rules_text('ties = "exact"\ndnf = "last"\nmissing_rank = "worst"\n'
                                    'missing_run_value = "worst"', 'rounding = "both"\nnormalisation = "none"'))
    assert plain._effective() == stated._effective()
    assert not stated.uses_extended_options
