"""SRBench 2025's own per-metric mean ranks (srdash.analysis.srbench2025) equal those of its collate script
(the transcription in tests/srbench2025_collate.py) exactly: by hand, on the 2025-scale demo, on seeded random
tables with failed runs, missing runs and DNFs, and on SRBench's published black-box results."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from srbench2025_collate import collate_mean_ranks

from srdash.analysis.srbench2025 import srbench2025_mean_ranks
from srdash.errors import ValidationError

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"


def records(table: pd.DataFrame) -> list[dict]:
    """One record per row, as the collate script builds them from the JSON files (NaN: no value written)."""
    columns = ["algorithm", "dataset", "random_state", "r2_test", "model_size"]
    return table[[c for c in columns if c in table.columns]].to_dict("records")


def assert_same_ranks(table: pd.DataFrame) -> pd.DataFrame:
    """srdash's ranks of ``table`` equal the reference's, bit for bit (NaN where the reference has NaN)."""
    ours = srbench2025_mean_ranks(table).table.set_index("method")
    theirs = collate_mean_ranks(records(table)).set_index("algorithm")
    theirs.index = theirs.index.astype(str)
    assert sorted(ours.index) == sorted(theirs.index)
    for column in ("r2_test_avg_rank", "model_size_avg_rank"):
        a = ours[column].reindex(theirs.index).to_numpy(dtype=float)
        b = theirs[column].to_numpy(dtype=float)
        assert np.array_equal(a, b, equal_nan=True), (column, a - b)
    return ours


def test_by_hand():
    # d1: a 0.9 (runs 0.9, 0.8, 1.0 -> median 0.9), b 0.8 (its second run failed: median of 0.8 alone),
    #     c 0.9 -> r2 ranks (higher best, ties average): a 1.5, c 1.5, b 3
    # d2: a 0.5, b DNF (no row), c every run failed (NaN rows) -> a alone: rank 1; b and c unranked
    # d3: a 0.1, b 0.7, c 0.7 -> b 1.5, c 1.5, a 3
    # mean r2 ranks: a (1.5 + 1 + 3) / 3 = 1.8333..., b (3 + 1.5) / 2 = 2.25, c (1.5 + 1.5) / 2 = 1.5
    # sizes: d1 a 10, b 4, c 4 -> b, c 1.5, a 3; d2 a 7 -> 1; d3 a -1 (SRBench's "cannot count"), b 9, c 2 ->
    #        a 1, c 2, b 3; means: a (3 + 1 + 1) / 3 = 1.666..., b (1.5 + 3) / 2 = 2.25, c (1.5 + 2) / 2 = 1.75
    nan = np.nan
    rows = [("a", "d1", 0.9, 10), ("a", "d1", 0.8, 10), ("a", "d1", 1.0, 10), ("b", "d1", 0.8, 4),
            ("b", "d1", nan, nan), ("c", "d1", 0.9, 4),
            ("a", "d2", 0.5, 7), ("c", "d2", nan, nan), ("c", "d2", nan, nan),
            ("a", "d3", 0.1, -1), ("b", "d3", 0.7, 9), ("c", "d3", 0.7, 2)]
    table = pd.DataFrame(rows, columns=["algorithm", "dataset", "r2_test", "model_size"])
    ranks = srbench2025_mean_ranks(table)
    got = ranks.table.set_index("method")
    assert got["r2_test_avg_rank"].to_dict() == pytest.approx({"a": 11 / 6, "b": 2.25, "c": 1.5})
    assert got["model_size_avg_rank"].to_dict() == pytest.approx({"a": 5 / 3, "b": 2.25, "c": 1.75})
    assert got["r2_test_datasets"].to_dict() == {"a": 3, "b": 2, "c": 2}
    assert ranks.table["method"].tolist() == ["c", "a", "b"]  # best mean r2 rank first
    assert ranks.metrics == (("r2_test", "higher"), ("model_size", "lower"))
    assert ranks.notes[0].startswith("r2_test: 2 method(s) unranked on some of the 3 datasets (no value there: "
                                     "a DNF or every run failed): b (1), c (1).")
    assert ranks.notes[2].startswith("model_size: 1 run(s) have a negative size")
    assert_same_ranks(table.assign(random_state=0))


def test_a_failed_run_is_the_same_as_no_row():
    # the script never sees a failed run (no JSON file); srdash's table may hold it as a row of empty cells
    table = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "dataset": "d",
                          "r2_test": [0.5, np.nan, 0.6, 0.4], "model_size": [3, np.nan, 5, 5]})
    kept = srbench2025_mean_ranks(table).table
    dropped = srbench2025_mean_ranks(table.dropna()).table
    pd.testing.assert_frame_equal(kept, dropped)
    # a: median 0.5 of its one run; b: median 0.5 of 0.6 and 0.4: tied, 1.5 each
    assert kept["r2_test_avg_rank"].tolist() == [1.5, 1.5]


@pytest.fixture(scope="module")
def demo():
    from srdash.demo.srbench2025 import demo_2025_table

    return demo_2025_table()


def test_the_2025_scale_demo_equals_the_collate_script(demo):
    ours = assert_same_ranks(demo)
    # Bayes-2 failed every run on 3 of the 24 datasets: its means cover 21 datasets
    assert ours.loc["Bayes-2", "r2_test_datasets"] == 21 and ours.loc["GP-1", "r2_test_datasets"] == 24
    assert ours["r2_test_avg_rank"].between(1, 25).all()


def test_the_demo_without_its_failed_rows(demo):
    # the failed runs as the script would see them: absent
    assert_same_ranks(demo.dropna(subset=["r2_test", "model_size"]))


def random_table(seed: int) -> pd.DataFrame:
    """5-8 methods x 4-9 datasets x up to 5 runs; R2 rounded to 1 decimal and sizes small integers (ties);
    failed runs (empty cells), missing runs (no row), DNFs (no row at all for a pair), pairs whose every run
    failed, runs with an R2 but no size, sizes of -1, and R2 of -inf."""
    rng = np.random.default_rng(seed)
    n_methods, n_datasets = int(rng.integers(5, 9)), int(rng.integers(4, 10))
    rows = []
    for m in range(n_methods):
        for d in range(n_datasets):
            fate = rng.random()
            if fate < 0.08:  # DNF: nothing written
                continue
            runs = int(rng.integers(1, 6))
            for seed_ in range(runs):
                r2 = round(float(rng.uniform(-0.5, 1.0)), 1)
                size = float(rng.integers(-1, 8)) if rng.random() < 0.9 else np.nan
                if fate < 0.15 or rng.random() < 0.1:  # every run of the pair failed, or this run did
                    r2, size = np.nan, np.nan
                elif rng.random() < 0.02:
                    r2 = -np.inf
                rows.append({"algorithm": f"m{m}", "dataset": f"d{d}", "random_state": seed_, "r2_test": r2,
                             "model_size": size})
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed)  # row order must not matter


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_equal_the_collate_script(seed):
    table = random_table(seed)
    assert_same_ranks(table)
    assert_same_ranks(table.dropna(subset=["r2_test", "model_size"], how="all"))


def test_random_tables_have_what_they_claim():
    # the tables above do exercise unranked pairs, ties and negative sizes
    tables = [random_table(seed) for seed in range(40)]
    notes = [note for t in tables for note in srbench2025_mean_ranks(t).notes]
    assert sum("unranked" in note for note in notes) > 20
    assert sum("negative size" in note for note in notes) > 20
    ties = [srbench2025_mean_ranks(t).per_dataset["r2_test_rank"] % 1 == 0.5 for t in tables]
    assert sum(int(t.sum()) for t in ties) > 40


@pytest.mark.skipif(not (REALDATA / "srbench_results" / "blackbox_results.csv").is_file(),
                    reason="../shared/realdata/srbench_results is absent")
def test_srbench_published_blackbox_results():
    # 21 methods x 122 datasets, one row per pair, 15 pairs missing (real DNFs)
    table = pd.read_csv(REALDATA / "srbench_results" / "blackbox_results.csv")
    ours = assert_same_ranks(table)
    assert len(ours) == table["algorithm"].nunique()
    assert (ours["r2_test_datasets"] < table["dataset"].nunique()).any()


def test_errors_name_the_file_the_column_and_what_exists():
    table = pd.DataFrame({"algorithm": ["a"], "dataset": ["d"], "r2": [0.5]})
    with pytest.raises(ValidationError, match=r"results\.csv, column 'r2_test': the column 'r2_test' is missing "
                                              r"\(accuracy\); columns: algorithm, dataset, r2\.") as error:
        srbench2025_mean_ranks(table, source="results.csv")
    assert "column 'model_size': the column 'model_size' is missing (size)" in str(error.value)
    assert len(error.value.problems) == 2
    with pytest.raises(ValidationError, match=r"the column 'task' is missing \(dataset\)"):
        srbench2025_mean_ranks(table, accuracy="r2", size=None, dataset="task")


def test_errors_name_the_row_of_a_bad_cell():
    table = pd.DataFrame({"algorithm": ["a", "b", ""], "dataset": ["d", "d", "d"],
                          "r2_test": ["0.5", "=cmd()", "0.1"], "model_size": [3, 4, 5]})
    with pytest.raises(ValidationError, match=r"r\.csv, row 3, column 'algorithm': the method name is empty") as error:
        srbench2025_mean_ranks(table, source="r.csv")
    assert ("r.csv, row 2, column 'r2_test': not a number: '=cmd()'; expected a number, or an empty cell"
            in str(error.value))


def test_a_hostile_table_gets_a_short_error():
    # 10,000 bad cells: 20 listed, and the count said
    table = pd.DataFrame({"algorithm": "a", "dataset": "d", "r2_test": ["x"] * 10_000, "model_size": 1})
    with pytest.raises(ValidationError, match=r"mean ranks; the first 20 of 10000 shown \(20 problems\)") as error:
        srbench2025_mean_ranks(table)
    assert len(error.value.problems) == 20


def test_missing_value_words_are_empty_cells():
    # as srdash's loader reads them: 'None', 'NA', 'null' are no value; b's median is then its 0.4 alone
    table = pd.DataFrame({"algorithm": ["a", "b", "b", "b"], "dataset": "d",
                          "r2_test": pd.Series(["0.5", "None", " null ", "0.4"], dtype=object),
                          "model_size": pd.Series([1, "NA", 2, "n/a"], dtype=object)})
    ranks = srbench2025_mean_ranks(table).table.set_index("method")
    assert ranks["r2_test_avg_rank"].to_dict() == {"a": 1.0, "b": 2.0}
    assert ranks["model_size_avg_rank"].to_dict() == {"a": 1.0, "b": 2.0}


def test_accuracy_only_and_other_columns():
    table = pd.DataFrame({"method": ["a", "b"], "task": ["t", "t"], "score_r2": [0.2, 0.4]})
    ranks = srbench2025_mean_ranks(table, accuracy="score_r2", size=None, dataset="task")
    # 'r2' in the name: higher is better, b first
    assert ranks.table.columns.tolist() == ["method", "score_r2_avg_rank", "score_r2_datasets"]
    assert ranks.table["method"].tolist() == ["b", "a"] and ranks.metrics == (("score_r2", "higher"),)
