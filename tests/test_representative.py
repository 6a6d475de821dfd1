"""Representative runs (srdash.judging.representative): which run of a method an expert reviews."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest

from srdash.errors import RulesError, SrdashError
from srdash.judging.representative import (
    find_test_file,
    load_test_data,
    representative_choice,
    representative_runs,
)
from srdash.judging.rules import load_rules


def runs_of(r2, *, components=None, runs=None, method="m", dataset="d") -> pd.DataFrame:
    n = len(r2)
    return pd.DataFrame({
        "method": method, "dataset": dataset,
        "run": list(range(n)) if runs is None else runs,
        "r2_test": r2,
        "components": [5.0] * n if components is None else components,
        "model": [f"model {i}" for i in range(n)],
    })


def chosen_run(table: pd.DataFrame, **options) -> int:
    picked = representative_runs(table, **options)
    assert len(picked) == 1
    return int(picked["run"].iloc[0])


# --------------------------------------------------------------------------- closest to the median


def test_odd_number_of_runs_picks_the_median_run():
    # r2 0.50 0.90 0.70 0.60 0.80 -> sorted .5 .6 .7 .8 .9, median .7 = run 2
    assert chosen_run(runs_of([0.5, 0.9, 0.7, 0.6, 0.8])) == 2


def test_even_number_of_runs_ties_go_to_fewer_components():
    # r2 .1 .2 .3 .4 -> median .25; runs 1 (.2) and 2 (.3) are both .05 away
    # (0.25 - 0.2 and 0.3 - 0.25 differ in the last float bit: the tie must hold)
    table = runs_of([0.1, 0.2, 0.3, 0.4], components=[1, 9, 4, 1])
    assert chosen_run(table) == 2
    assert representative_runs(table)["r2_reference"].iloc[0] == pytest.approx(0.25)


def test_even_number_of_runs_full_tie_goes_to_the_lower_run():
    # same distance and components: the lower run number wins, whatever the row order
    table = runs_of([0.1, 0.2, 0.3, 0.4], components=[5, 7, 7, 5])
    assert chosen_run(table) == 1
    assert chosen_run(table.iloc[::-1]) == 1


def test_equal_values_tie_on_components_then_run():
    # three runs at the median .7: run 3 has the fewest components
    table = runs_of([0.7, 0.7, 0.5, 0.7, 0.9], components=[9, 8, 1, 3, 1])
    assert chosen_run(table) == 3
    # unknown components count as infinitely many
    table = runs_of([0.7, 0.7, 0.7], components=[np.nan, 3, 3])
    assert chosen_run(table) == 1


def test_values_are_rounded_to_the_criterion_decimals_before_comparing():
    # rounded to 3 decimals: .700 .700 .200 -> median .700; runs 0 and 1 tie, run 0 has fewer components
    # unrounded: median .7001 is run 1 itself
    table = runs_of([0.7004, 0.7001, 0.2], components=[1, 9, 9])
    assert chosen_run(table) == 0
    assert chosen_run(table, decimals=None) == 1


def test_missing_accuracy_counts_as_the_worst_value():
    # (.5, missing, .9): the missing run is -inf, so the median is .5 (run 0), as in the ranking
    assert chosen_run(runs_of([0.5, np.nan, 0.9])) == 0
    # (.5, missing): the median is (-inf + .5) / 2 = -inf, so the failed run represents the method
    picked = representative_runs(runs_of([0.5, np.nan]))
    assert int(picked["run"].iloc[0]) == 1
    assert np.isnan(picked["r2_reference"].iloc[0])


def test_missing_runs_and_dnf():
    # method a has runs 0 and 2 only (run 1 missing); method b has no run at all on d2 (DNF)
    table = pd.concat([
        runs_of([0.3, 0.6], runs=[0, 2], method="a", dataset="d1"),
        runs_of([0.8], method="b", dataset="d1"),
        runs_of([0.4, 0.5, 0.6], method="a", dataset="d2"),
    ], ignore_index=True)
    picked = representative_runs(table)
    assert list(zip(picked["dataset"], picked["method"], picked["run"], picked["n_runs"])) == [
        ("d1", "a", 0, 2),   # median .45: .3 and .6 both .15 away, same components -> lower run
        ("d1", "b", 0, 1),
        ("d2", "a", 1, 3),
    ]


def test_single_run_is_its_own_representative():
    assert chosen_run(runs_of([0.42])) == 0


# --------------------------------------------------------------------------- best run and rules


def test_best_run_choice():
    assert chosen_run(runs_of([0.5, 0.9, 0.7]), choice="best") == 1
    # tie on the best value: fewer components
    assert chosen_run(runs_of([0.9, 0.5, 0.9], components=[7, 1, 3]), choice="best") == 2


def test_choice_comes_from_the_rules():
    assert representative_choice(load_rules("srbench2022-realworld")) == "closest-to-median"
    assert representative_choice(load_rules("srbench2022-draft")) == "best"
    rules = load_rules("srbench2022-realworld")
    bare = replace(rules, sections=MappingProxyType({}))
    assert representative_choice(bare) == "closest-to-median"


def test_invalid_choice_is_refused():
    rules = load_rules("srbench2022-realworld")
    bad = replace(rules, sections=MappingProxyType({"representative": {"choice": "worst"}}))
    with pytest.raises(RulesError, match=r"\[representative\]: the 'choice' option must be one of "
                                         r"'closest-to-median', 'best', 'closest-to-median-unrounded'. Got 'worst'."):
        representative_choice(bad)
    typo = replace(rules, sections=MappingProxyType({"representative": {"choise": "best"}}))
    with pytest.raises(RulesError, match=r"unknown key\(s\) choise in \[representative\]"):
        representative_choice(typo)
    with pytest.raises(RulesError, match="the 'choice' option must be one of"):
        representative_runs(runs_of([0.5]), choice="median")


def test_missing_column_is_named():
    with pytest.raises(SrdashError, match=r"no column\(s\) 'r2_test'. Columns: 'method', 'dataset'"):
        representative_runs(pd.DataFrame({"method": ["a"], "dataset": ["d"]}))


def test_input_is_not_modified_and_order_does_not_matter():
    table = pd.concat([runs_of([0.1, 0.5, 0.3, 0.9], method=m, dataset=d)
                       for m in ("a", "b") for d in ("d1", "d2")], ignore_index=True)
    before = table.copy()
    picked = representative_runs(table)
    pd.testing.assert_frame_equal(table, before)
    shuffled = representative_runs(table.sample(frac=1, random_state=3))
    pd.testing.assert_frame_equal(picked, shuffled)


# --------------------------------------------------------------------------- test data


def test_find_test_file_prefers_exact_names(tmp_path):
    (tmp_path / "d1_test.csv").write_text("x,y\n1,2\n")
    (tmp_path / "d1_extra_test.csv").write_text("x,y\n1,2\n")
    assert find_test_file(tmp_path, "d1").name == "d1_test.csv"
    # two candidates by substring and no exact name: refuse to guess
    (tmp_path / "a_cases_test.csv").write_text("x,y\n1,2\n")
    (tmp_path / "b_cases_test.csv").write_text("x,y\n1,2\n")
    assert find_test_file(tmp_path, "cases") is None
    assert find_test_file(tmp_path / "nowhere", "d1") is None


def test_load_test_data_target_date_and_features(tmp_path):
    path = tmp_path / "d_test.csv"
    path.write_text("date,x1,flag,y,note\n2021-01-01,1,0,3,a\n2021-01-02,2,1,5,b\n")
    data = load_test_data(path)
    assert data.target.name == "y"            # a column called y is the target, wherever it is
    assert list(data.features.columns) == ["x1", "flag"]   # text column 'note' ignored
    assert data.dates is not None and data.dates.iloc[0].day == 1
    assert data.columns["x1"].tolist() == [1.0, 2.0]


def test_load_test_data_errors(tmp_path):
    empty = tmp_path / "e_test.csv"
    empty.write_text("x,y\n")
    with pytest.raises(SrdashError, match=r"e_test.csv' needs a header, a target column and at least one row"):
        load_test_data(empty)
    text = tmp_path / "t_test.csv"
    text.write_text("x,y\n1,a\n")
    with pytest.raises(SrdashError, match=r"the target column 'y' has no numbers"):
        load_test_data(text)
    with pytest.raises(SrdashError, match="Cannot read the test data"):
        load_test_data(tmp_path / "missing.csv")


def test_only_the_candidates_are_prepared():
    # runs 1 and 2 tie at the median (.25 away on both sides); `prepare` sees only them and its
    # components (computed there, as prepare_runs would) break the tie
    table = runs_of([0.1, 0.2, 0.3, 0.4]).drop(columns="components")
    seen = []

    def prepare(candidates: pd.DataFrame) -> pd.DataFrame:
        seen.append(candidates["run"].tolist())
        return candidates.assign(components=[9.0, 4.0])

    picked = representative_runs(table, prepare=prepare)
    assert seen == [[1, 2]]
    assert picked[["run", "components", "n_runs"]].values.tolist() == [[2, 4.0, 4]]
    assert picked["r2_reference"].iloc[0] == pytest.approx(0.25)
