"""Inputs checked before any expensive work: a missing criterion column is refused at once, naming the
columns that look like it; a method or dataset name that is probably a typo is flagged in the verdict."""

import sqlite3
import time

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.demo.prepared import shipped_demo_files
from srdash.errors import CriterionWithoutData
from srdash.judging.checks import (SIMILAR_NAME, check_criterion_columns, similar_name_problems, similar_names,
                                   typing_distance)
from srdash.judging.competition import competition_from_options
from srdash.judging.pipeline import judge_competition
from srdash.judging.rules import load_rules


@pytest.fixture
def no_simplification(monkeypatch):
    """Fail the test if any model is simplified or measured: the refusal must come before that work."""
    import srdash.expressions
    import srdash.expressions.measures

    def forbidden(*args, **kwargs):
        raise AssertionError("a model was simplified or measured before the input was checked")

    monkeypatch.setattr(srdash.expressions, "complexity_table", forbidden)
    monkeypatch.setattr(srdash.expressions.measures, "measure_table", forbidden)


def _cache_rows(folder) -> int:
    """Rows in every table of the cache files under ``folder`` (0 when there is none)."""
    total = 0
    for path in folder.glob("*.sqlite"):
        with sqlite3.connect(path) as connection:
            tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            total += sum(connection.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables)
    return total


def test_demo_with_r2_test_renamed_is_refused_at_once_naming_r2(tmp_path, monkeypatch, no_simplification):
    # the demo's 684 runs give model strings only: judging them would simplify every model first
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(cache))
    names, files = shipped_demo_files()   # the demo's files as `srdash demo` writes them (seed 0)
    header, rest = files[names["results"]].decode().split("\n", 1)
    assert header == "method,dataset,run,model,r2_test,property" and rest.count("\n") == 684
    (tmp_path / "results.csv").write_text(header.replace("r2_test", "r2") + "\n" + rest)
    started = time.monotonic()
    outcome = CliRunner().invoke(main, ["score", str(tmp_path / "results.csv")])
    elapsed = time.monotonic() - started
    assert outcome.exit_code == 1, outcome.output
    assert ("Error: Criterion 'accuracy' of the rules 'srbench2022' has no data: the column 'r2_test' is missing. "
            f"{tmp_path / 'results.csv'}, column 'r2_test': not among the columns 'method', 'dataset', 'run', "
            "'model', 'r2', 'property'. Did you mean 'r2'?") in outcome.output
    assert _cache_rows(cache) == 0   # nothing was computed, so nothing was kept
    assert elapsed < 5   # loose: the work refused before (simplifying 684 models) took minutes


def test_missing_column_message_from_the_library(tmp_path):
    table = pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0], "components": [3.0], "R2 Test": [0.9],
                          "property": [1.0]})
    with pytest.raises(CriterionWithoutData, match=r"Criterion 'accuracy' of the rules 'srbench2022' has no data: the "
                                                   r"column 'r2_test' is missing\. results\.csv, column 'r2_test': "
                                                   r"not among the columns .*'R2 Test'.*\. Did you mean 'R2 Test'\?"
                                                   r" It is measured 'column'") as caught:
        check_criterion_columns(table, load_rules("srbench2022"), sources=["results.csv"])
    assert caught.value.criteria == ("accuracy",)


def test_a_column_nothing_looks_like_gets_no_guess():
    table = pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0], "components": [3.0], "r2_test": [0.9]})
    with pytest.raises(CriterionWithoutData, match=r"Criterion 'property' of the rules 'srbench2022' has no data: "
                                                   r"the column 'property' is missing\. The results, column "
                                                   r"'property': not among the columns 'method', 'dataset', 'run', "
                                                   r"'components', 'r2_test'\. It is measured 'column'") as caught:
        check_criterion_columns(table, load_rules("srbench2022"))
    assert "did you mean" not in str(caught.value)


def test_columns_the_pipeline_computes_are_not_refused():
    rules = load_rules("srbench2022")
    # simplicity comes from the models; with descriptions, r2_test and property come from the data files
    models = pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0], "model": ["x1"]})
    check_criterion_columns(models, rules, has_descriptions=True)
    with pytest.raises(CriterionWithoutData, match="the column 'r2_test' is missing"):
        check_criterion_columns(models, rules, has_descriptions=False)
    # 2023: size counted on the model, accuracy measured on the data (refused later if there are no files)
    check_criterion_columns(models, load_rules("srbench2023-track1"))


def test_similar_names_and_typing_distance():
    assert typing_distance("ExcatSR", "ExactSR") == 1          # a swap is one slip
    assert typing_distance("kitten", "sitting") == 3           # the textbook Levenshtein example
    assert similar_names("r2_test", ["method", "r2", "property", "R2_TEST"]) == ["R2_TEST", "r2"]
    assert similar_names("property", ["r2_test", "model"]) == []


def _typo_results() -> pd.DataFrame:
    # ExactSR on d1, d2; its typo ExcatSR on d3 only; pysr everywhere (components given: nothing simplified)
    rows = [("ExactSR", "d1"), ("ExactSR", "d2"), ("ExcatSR", "d3"), ("pysr", "d1"), ("pysr", "d2"), ("pysr", "d3")]
    return pd.DataFrame({"method": [m for m, _ in rows], "dataset": [d for _, d in rows], "run": 0,
                         "components": [5.0, 3.0, 4.0, 9.0, 9.0, 9.0], "r2_test": [0.9, 0.8, 0.7, 0.5, 0.5, 0.5],
                         "property": 1.0})


def test_a_typo_in_a_method_name_is_flagged_not_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path))
    _typo_results().to_csv(tmp_path / "results.csv", index=False)
    result = judge_competition(competition_from_options(tmp_path / "results.csv", jobs=1, cache=False))
    flagged = result.problems[result.problems["kind"] == SIMILAR_NAME]
    assert flagged["method"].tolist() == ["ExcatSR"]
    assert flagged["detail"].iloc[0].startswith("Method 'ExcatSR' (1 dataset) looks like 'ExactSR' (2 datasets)")
    assert any("'ExcatSR'" in w for w in result.verdict.warnings)
    assert len(result.verdict.leaderboard) == 3   # judged as given: flagged, not merged or refused
    outcome = CliRunner().invoke(main, ["score", str(tmp_path / "results.csv"), "--no-cache", "--jobs", "1"])
    assert outcome.exit_code == 0, outcome.output
    assert "Warning: Method 'ExcatSR' (1 dataset) looks like 'ExactSR'" in outcome.output
    assert "1 similar name" in outcome.output


def test_names_that_meet_or_differ_by_a_digit_are_not_flagged():
    table = pd.DataFrame({"method": ["ExactSR", "ExcatSR", "gp1", "gp2", "Operon", "operon"],
                          "dataset": ["d1", "d1", "dataset_1", "dataset_2", "dataset_3", "feynman_I_10_7"]})
    found = similar_name_problems(table)
    # ExactSR and ExcatSR share d1 (two methods); gp1/gp2 and dataset_1/dataset_2 differ by a digit;
    # 'Operon' and 'operon' fold alike and never meet: flagged
    assert found["method"].dropna().tolist() == ["Operon"]
    assert found["dataset"].dropna().tolist() == []


def test_a_typo_in_a_dataset_name_is_flagged():
    table = pd.DataFrame({"method": ["a", "b", "a", "b", "c"],
                          "dataset": ["noise_hard", "noise_hard", "noise_easy", "noise_easy", "Noise Hard"]})
    found = similar_name_problems(table)
    assert found["dataset"].tolist() == ["Noise Hard"]
    assert "Dataset 'Noise Hard' (1 method) looks like 'noise_hard' (2 methods)" in found["detail"].iloc[0]


def test_many_names_are_compared_by_folding_only(monkeypatch):
    import srdash.judging.checks as checks

    monkeypatch.setattr(checks, "MAX_NAMES_COMPARED", 3)
    # 4 methods, each on its own dataset: 'm-one' and 'M One' fold alike; 'abcdef'/'abcdeg' are one slip apart
    table = pd.DataFrame({"method": ["m-one", "M One", "abcdef", "abcdeg"], "dataset": ["d1", "d2", "d3", "d4"]})
    assert similar_name_problems(table)["method"].tolist() == ["M One"]
    monkeypatch.setattr(checks, "MAX_NAMES_COMPARED", 10)
    assert similar_name_problems(table)["method"].tolist() == ["M One", "abcdef"]
