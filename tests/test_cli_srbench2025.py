"""`srdash analyse srbench2025 RESULTS -o FILE`: SRBench 2025's own mean ranks, end to end through CliRunner."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from srbench2025_collate import collate_mean_ranks

from srdash.cli import main


def run(*args):
    return CliRunner().invoke(main, ["analyse", *map(str, args)])


@pytest.fixture(scope="module")
def demo_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo2025")
    outcome = CliRunner().invoke(main, ["demo", "--scale", "2025", "-o", str(folder)])
    assert outcome.exit_code == 0, outcome.output
    return folder / "results.csv"


def test_the_demo_through_the_cli_equals_the_collate_script(demo_results, tmp_path):
    out = tmp_path / "ranks.csv"
    outcome = run("srbench2025", demo_results, "-o", out)
    assert outcome.exit_code == 0, outcome.output
    written = pd.read_csv(out)
    assert written.columns.tolist() == ["method", "r2_test_avg_rank", "model_size_avg_rank", "r2_test_datasets",
                                        "model_size_datasets"]
    assert len(written) == 25
    # the reference reads the same file as the script reads its records
    results = pd.read_csv(demo_results)
    theirs = collate_mean_ranks(results[["algorithm", "dataset", "random_state", "r2_test", "model_size"]]
                                .to_dict("records")).set_index("algorithm")
    ours = written.set_index("method").reindex(theirs.index)
    # to_csv writes floats with repr, which round-trips: the values read back are the computed ones
    for column in ("r2_test_avg_rank", "model_size_avg_rank"):
        assert np.array_equal(ours[column].to_numpy(), theirs[column].to_numpy())
    # best mean rank first; Bayes-2's three DNF datasets are named in a note
    assert written["r2_test_avg_rank"].is_monotonic_increasing
    assert "SRBench 2025's own mean ranks (its collate script's computation; 1 = best); best: r2_test " \
           + written["method"].iloc[0] in outcome.output
    assert "Bayes-2 (3)" in outcome.output and f"Wrote {out} (25 rows)" in outcome.output


def test_printed_without_output(tmp_path):
    path = tmp_path / "r.csv"
    # d1: a 0.9 beats b 0.5; sizes a 20, b 4. d2: only b (a's runs all failed): b ranked 1 among one
    pd.DataFrame({"algorithm": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"],
                  "r2_test": [0.9, 0.5, None, 0.1], "model_size": [20, 4, None, 9]}).to_csv(path, index=False)
    outcome = run("srbench2025", path)
    assert outcome.exit_code == 0, outcome.output
    # a: r2 rank 1 on d1 only -> 1; b: (2 + 1) / 2 = 1.5. Sizes: a 2; b (1 + 1) / 2 = 1
    lines = [line.split() for line in outcome.output.splitlines() if line.strip().startswith(("a ", "b "))]
    assert lines == [["a", "1", "2", "1", "1"], ["b", "1.5", "1", "2", "2"]]
    assert "best: r2_test a, model_size b" in outcome.output


def test_missing_column_names_the_file_and_lists_the_columns(tmp_path):
    path = tmp_path / "results.csv"
    pd.DataFrame({"algorithm": ["a"], "dataset": ["d"], "r2_test": [0.5], "size": [3]}).to_csv(path, index=False)
    outcome = run("srbench2025", path)
    assert outcome.exit_code == 1
    assert f"{path}, column 'model_size': the column 'model_size' is missing (size); columns: algorithm, dataset, " \
           "r2_test, size." in outcome.output
    # the right column named by option
    assert run("srbench2025", path, "--size", "size").exit_code == 0


def test_bad_cell_names_file_row_and_column(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("algorithm,dataset,r2_test,model_size\na,d,0.5,3\nb,d,oops,4\n")
    outcome = run("srbench2025", path)
    assert outcome.exit_code == 1
    assert f"{path}, row 2, column 'r2_test': not a number: 'oops'" in outcome.output
