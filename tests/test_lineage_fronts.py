"""Pareto fronts (srdash.analysis.fronts): golden cases with ties, duplicates and missing
values, bootstrap intervals, and the 21 SRBench methods on the black-box results."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from srdash.analysis.fronts import front_numbers, pareto_fronts
from srdash.errors import ValidationError

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench_results"


def test_front_numbers_ties_and_duplicates():
    # A (0.9, 10) and B (0.9, 12) tie on accuracy; A is smaller, so A dominates B.
    # C and D are the same point (0.8, 5): neither dominates the other, and nothing dominates
    # them (A is more accurate but larger). E (0.7, 20) is dominated by all.
    # Front 1 = {A, C, D}; without them B dominates E: front 2 = {B}, front 3 = {E}.
    points = np.array([[0.9, 10], [0.9, 12], [0.8, 5], [0.8, 5], [0.7, 20]])
    assert front_numbers(points, directions=("higher", "lower")).tolist() == [1, 2, 1, 1, 3]


def test_front_numbers_all_duplicates_and_nan():
    points = np.array([[1.0, 1.0], [1.0, 1.0], [np.nan, 2.0]])
    # duplicates share front 1; a point with a missing coordinate goes after the last front
    assert front_numbers(points, directions=("lower", "lower")).tolist() == [1, 1, 2]


def small_table() -> pd.DataFrame:
    # d1: r2 a .9, b .8, c .7; size a 10, b 5, c 5.  d2: r2 a .6, b .9, c missing; size a 3, b 4, c missing.
    return pd.DataFrame({
        "method": ["a", "b", "c", "a", "b", "c"],
        "dataset": ["d1"] * 3 + ["d2"] * 3,
        "r2_test": [0.9, 0.8, 0.7, 0.6, 0.9, np.nan],
        "model_size": [10, 5, 5, 3, 4, np.nan],
    })


def test_value_space_medians_skip_missing_values():
    # a: accuracy median(.9, .6) = .75, size median(10, 3) = 6.5; b: .85, 4.5; c: .7, 5 (d1 only)
    # b dominates a (.85 > .75, 4.5 < 6.5) and c (.85 > .7, 4.5 < 5); a and c trade off (a more
    # accurate, c smaller): front 1 = {b}, front 2 = {a, c}.
    fronts = pareto_fronts(small_table(), n_bootstrap=0)
    table = fronts.table.set_index("method")
    assert table.loc["a", ["accuracy", "size"]].tolist() == pytest.approx([0.75, 6.5])
    assert table.loc["c", ["accuracy", "size", "datasets"]].tolist() == pytest.approx([0.7, 5.0, 1])
    assert table["front"].to_dict() == {"b": 1, "a": 2, "c": 2}
    assert fronts.front(1) == ("b",)


def test_rank_space_missing_ranks_last():
    # Ranks, 1 = best, ties average, missing last:
    # d1 accuracy a1 b2 c3; d1 size b, c tie -> 1.5, 1.5, a 3.  d2 accuracy b1 a2 c3 (missing); size a1 b2 c3.
    # medians: a (1.5, 2), b (1.5, 1.75), c (3, 2.25). b dominates a (tie on accuracy, better size),
    # a dominates c: fronts b 1, a 2, c 3.
    table = pareto_fronts(small_table(), space="rank", n_bootstrap=0).table.set_index("method")
    assert table.loc[["a", "b", "c"], "accuracy"].tolist() == [1.5, 1.5, 3.0]
    assert table.loc[["a", "b", "c"], "size"].tolist() == [2.0, 1.75, 2.25]
    assert table["front"].to_dict() == {"b": 1, "a": 2, "c": 3}


def test_bootstrap_intervals_bracket_the_median_and_are_reproducible():
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"method": np.repeat(["a", "b"], 30), "dataset": np.tile(np.arange(30), 2),
                          "r2_test": rng.uniform(0, 1, 60), "model_size": rng.integers(1, 50, 60)})
    first = pareto_fronts(table, n_bootstrap=200, seed=1).table
    again = pareto_fronts(table, n_bootstrap=200, seed=1).table
    pd.testing.assert_frame_equal(first, again)
    assert (first["accuracy_low"] <= first["accuracy"]).all() and (first["accuracy"] <= first["accuracy_high"]).all()
    assert (first["size_low"] < first["size_high"]).all()
    # one dataset: every resample is that dataset, the interval is the point
    one = pareto_fronts(table[table["dataset"] == 0], n_bootstrap=50).table
    assert (one["accuracy_low"] == one["accuracy"]).all() and (one["size_high"] == one["size"]).all()


def test_fronts_errors():
    with pytest.raises(ValidationError, match="the column 'model_size' is missing; columns: method, dataset, r2_test"):
        pareto_fronts(small_table().drop(columns="model_size"))
    with pytest.raises(ValueError, match="The 'space' option must be one of 'value', 'rank'. Got 'ranks'"):
        pareto_fronts(small_table(), space="ranks")
    with pytest.raises(ValueError, match="The 'size_direction' option must be one of 'higher', 'lower'. Got 'less'"):
        pareto_fronts(small_table(), size_direction="less")
    with pytest.raises(ValueError, match="The 'confidence' option must be between 0 and 1. Got 95"):
        pareto_fronts(small_table(), confidence=95)


def test_arguments_are_not_mutated():
    table = small_table()
    before = table.copy()
    pareto_fronts(table, n_bootstrap=10, space="rank")
    pd.testing.assert_frame_equal(table, before)


@pytest.fixture(scope="module")
def blackbox():
    path = REALDATA / "blackbox_results.csv"
    if not path.is_file():
        pytest.skip(f"real data absent: {path}")
    return pd.read_csv(path)


@pytest.mark.realdata
@pytest.mark.parametrize("space", ["value", "rank"])
def test_srbench_blackbox_fronts(blackbox, space):
    fronts = pareto_fronts(blackbox, space=space, n_bootstrap=200)
    table = fronts.table
    assert len(table) == 21 and table["method"].is_unique
    # SRBench's headline: Operon, GP-GOMEA and DSR are non-dominated (accuracy vs size)
    assert fronts.front(1) == ("*DSR", "*GP-GOMEA", "*Operon")
    # every method after front 1 is dominated by a method of the previous front
    sign = np.array([1.0, -1.0]) if space == "value" else np.array([-1.0, -1.0])
    for _, row in table[table["front"] > 1].iterrows():
        previous = table[table["front"] == row["front"] - 1][["accuracy", "size"]].to_numpy() * sign
        point = row[["accuracy", "size"]].to_numpy(dtype=float) * sign
        assert ((previous >= point).all(axis=1) & (previous > point).any(axis=1)).any(), row["method"]
    # AIFeynman has results on 107 of the 122 datasets (15 missing cells)
    assert table.set_index("method").loc["*AIFeynman", "datasets"] == 107
