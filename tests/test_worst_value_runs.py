"""SRBench 2025's failed-run policy through the rules options: ``missing_run_value = "worst-value"``
(a missing value is the worst value of the table: min R2, max size) and ``runs_per_dataset``
(missing runs count as runs without any value). Golden cases derived by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from srdash.errors import RulesError
from srdash.judging.ranking import aggregate_runs, judge
from srdash.judging.rules import load_rules, parse_rules


def rules(ranking: str = "", *, aggregation: str = "mean") -> object:
    return parse_rules(f"""
name = "srbench2025-runs"
[ranking]
run_aggregation = "{aggregation}"
{ranking}
[[criteria]]
name = "accuracy"
column = "r2_test"
direction = "higher"
[[criteria]]
name = "size"
column = "model_size"
direction = "lower"
""")


def table(rows):
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "r2_test", "model_size"])


# a: d1 runs 0.9/10 and (missing)/(missing); b: d1 runs 0.5/30 and 0.7/20. Table worst: R2 0.5, size 30.
ROWS = [("a", "d1", 0, 0.9, 10), ("a", "d1", 1, np.nan, np.nan),
        ("b", "d1", 0, 0.5, 30), ("b", "d1", 1, 0.7, 20)]


def test_worst_value_fills_min_r2_and_max_size():
    # worst-value: a's run 1 becomes R2 0.5 (the table's min), size 30 (the table's max).
    # mean: a R2 (0.9 + 0.5) / 2 = 0.7, size (10 + 30) / 2 = 20; b R2 0.6, size 25.
    out = aggregate_runs(table(ROWS), rules('missing_run_value = "worst-value"'))
    a = out.set_index("method").loc["a"]
    assert a["accuracy"] == pytest.approx(0.7) and a["size"] == pytest.approx(20.0) and a["runs"] == 2
    # 'worst' (the default) puts the missing run below every value: the means are -inf and +inf
    out = aggregate_runs(table(ROWS), rules())
    a = out.set_index("method").loc["a"]
    assert a["accuracy"] == -np.inf and a["size"] == np.inf
    # 'skipped': the mean of the measured run only
    out = aggregate_runs(table(ROWS), rules('missing_run_value = "skipped"'))
    assert out.set_index("method").loc["a", "accuracy"] == pytest.approx(0.9)


def test_worst_value_changes_the_verdict():
    # worst-value: a (R2 0.7 > 0.6: rank 2; size 20 < 25: rank 2) wins on both -> a first.
    # worst: a's R2 -inf and size +inf rank last on both -> b first.
    by_value = judge(table(ROWS), rules('missing_run_value = "worst-value"'))
    by_default = judge(table(ROWS), rules())
    assert by_value.leaderboard["method"].tolist() == ["a", "b"]
    assert by_default.leaderboard["method"].tolist() == ["b", "a"]
    assert rules('missing_run_value = "worst-value"').sha256 != rules().sha256
    problems = by_value.problems
    detail = problems[problems["kind"] == "missing value"]["detail"].tolist()
    assert detail and all(d.endswith("counted as the worst value of the table") for d in detail)


def test_runs_per_dataset_adds_the_missing_runs():
    # 3 runs expected. a has 1 run (0.9 / 10) on d1: 2 missing runs, filled with the worst of the
    # table (R2 0.5, size 30): median R2 of (0.9, 0.5, 0.5) = 0.5, median size of (10, 30, 30) = 30.
    # b has 2 runs (0.5/30, 0.7/20) + 1 missing -> median R2 (0.5, 0.7, 0.5) = 0.5, size (30, 20, 30) = 30.
    rows = [("a", "d1", 0, 0.9, 10), ("b", "d1", 0, 0.5, 30), ("b", "d1", 1, 0.7, 20), ("c", "d1", 0, 0.6, 15),
            ("c", "d1", 1, 0.6, 15), ("c", "d1", 2, 0.6, 15)]
    r = rules('missing_run_value = "worst-value"\nruns_per_dataset = 3', aggregation="median")
    out = aggregate_runs(table(rows), r).set_index("method")
    assert out.loc["a", "accuracy"] == pytest.approx(0.5) and out.loc["a", "size"] == pytest.approx(30)
    assert out.loc["b", "accuracy"] == pytest.approx(0.5) and out.loc["b", "size"] == pytest.approx(30)
    assert out.loc["c", "accuracy"] == pytest.approx(0.6) and out["runs"].to_dict() == {"a": 1, "b": 2, "c": 3}
    verdict = judge(table(rows), r)
    missing = verdict.problems[verdict.problems["kind"] == "missing run"]
    assert missing.set_index("method")["detail"].to_dict() == {
        "a": "2 of the 3 runs missing; each counted as the worst value of the table",
        "b": "1 of the 3 runs missing; each counted as the worst value of the table"}
    # without runs_per_dataset a's single run is its median: 0.9
    assert aggregate_runs(table(rows), rules('missing_run_value = "worst-value"', aggregation="median")
                          ).set_index("method").loc["a", "accuracy"] == pytest.approx(0.9)
    # with 'worst' (rank n + 1), a's 2 missing of 3 runs make its median -inf
    assert aggregate_runs(table(rows), rules("runs_per_dataset = 3", aggregation="median")
                          ).set_index("method").loc["a", "accuracy"] == -np.inf


def test_worst_value_dnf_and_runs_together_are_one_mechanism():
    # SRBench 2025: dnf = worst-value too. d2 has only b (0.8 / 5): a and c are DNF there and get the
    # table's worst per-run values (R2 0.5, size 30), exactly like a missing run.
    rows = [("a", "d1", 0, 0.9, 10), ("b", "d1", 0, 0.5, 30), ("c", "d1", 0, 0.6, 15), ("b", "d2", 0, 0.8, 5)]
    r = rules('dnf = "worst-value"\nmissing_run_value = "worst-value"\nruns_per_dataset = 1')
    out = aggregate_runs(table(rows), r).set_index(["dataset", "method"])
    assert out.loc[("d2", "a"), "accuracy"] == pytest.approx(0.5) and out.loc[("d2", "a"), "size"] == 30
    assert out.loc[("d2", "a"), "status"] == "DNF"


def test_runs_per_dataset_is_in_the_hash_only_when_set():
    plain = rules('missing_run_value = "skipped"')
    assert plain.sha256 == plain.with_options(runs_per_dataset=0).sha256
    assert plain.with_options(runs_per_dataset=30).sha256 != plain.sha256
    # a preset's hash is unchanged by the new option's existence
    preset = load_rules("srbench2022-as-run")
    assert preset.runs_per_dataset == 0 and preset.sha256 == preset.with_options(runs_per_dataset=None).sha256


@pytest.mark.parametrize("value", [-1, 2.5, True, "30"])
def test_runs_per_dataset_errors(value):
    with pytest.raises(RulesError, match="'runs_per_dataset' must be a whole number >= 0"):
        rules().with_options(runs_per_dataset=value)


def test_rank_mean_refuses_runs_per_dataset():
    with pytest.raises(RulesError, match="cannot be combined with runs_per_dataset"):
        rules("runs_per_dataset = 30", aggregation="rank-mean")


def test_missing_run_value_error_lists_worst_value():
    with pytest.raises(RulesError, match="'missing_run_value' option must be one of 'worst', 'skipped', "
                                         "'worst-value'. Got 'min'"):
        rules('missing_run_value = "min"')
