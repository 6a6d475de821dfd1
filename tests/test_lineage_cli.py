"""`srdash analyse KIND INPUT -o OUT.csv`, end to end through click's CliRunner."""

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main


@pytest.fixture()
def results(tmp_path):
    table = pd.DataFrame({
        "algorithm": ["a", "b", "c"] * 4,
        "dataset": [f"d{i}" for i in range(4) for _ in range(3)],
        "r2_test": [0.9, 0.6, 0.5, 0.8, 0.7, 0.4, 0.95, 0.65, 0.45, 0.85, 0.6, 0.5],
        "model_size": [30, 5, 8] * 4,
        "training time (s)": [100.0, 1.0, 10.0] * 4,
    })
    path = tmp_path / "results.csv"
    table.to_csv(path, index=False)
    return path


def run(*args):
    return CliRunner().invoke(main, ["analyse", *map(str, args)])


def test_pareto_csv(results, tmp_path):
    out = tmp_path / "pareto.csv"
    outcome = run("pareto", results, "-o", out, "-B", 50)
    assert outcome.exit_code == 0, outcome.output
    table = pd.read_csv(out)
    assert table.columns.tolist()[:4] == ["method", "accuracy", "size", "front"]
    assert {"accuracy_low", "accuracy_high", "size_low", "size_high"} <= set(table.columns)
    # a: (0.875, 30), b: (0.625, 5), c: (0.475, 8): c is dominated by b
    assert table.set_index("method")["front"].to_dict() == {"a": 1, "b": 1, "c": 2}
    assert "front 1 (non-dominated, value space): a, b" in outcome.output


def test_rank_space_and_other_kinds(results, tmp_path):
    assert run("pareto", results, "--space", "rank", "-B", 0, "-o", tmp_path / "r.csv").exit_code == 0
    assert pd.read_csv(tmp_path / "r.csv").set_index("method").loc["a", "accuracy"] == 1.0
    assert run("profiles", results, "-o", tmp_path / "p.csv").exit_code == 0
    assert pd.read_csv(tmp_path / "p.csv")["method"].tolist() == ["a", "b", "c"]
    outcome = run("pairwise", results, "--test", "conover", "-o", tmp_path / "c.csv")
    assert outcome.exit_code == 0 and "Friedman chi2 = 8" in outcome.output
    assert len(pd.read_csv(tmp_path / "c.csv")) == 3
    outcome = run("resources", results, "--budget", 50, "-o", tmp_path / "t.csv")
    assert outcome.exit_code == 0, outcome.output
    assert pd.read_csv(tmp_path / "t.csv").set_index("method")["runs_over_budget"].to_dict() == {"a": 4, "b": 0, "c": 0}


def test_recovery_of_model_strings(tmp_path):
    path = tmp_path / "models.csv"
    pd.DataFrame({"model": ["x1 + 2", "x1*x2"], "true_model": ["x1", "x1"], "r2_test": [0.9, 0.9]}).to_csv(path)
    outcome = run("recovery", path, "-o", tmp_path / "out.csv")
    assert outcome.exit_code == 0, outcome.output
    assert pd.read_csv(tmp_path / "out.csv")["solution"].tolist() == [True, False]


def test_clean_errors(results, tmp_path):
    outcome = run("pareto", results, "--size", "nodes")
    assert outcome.exit_code == 1
    assert "the column 'nodes' is missing" in outcome.output and "Traceback" not in outcome.output
    outcome = run("resources", results, "--time", "seconds")
    assert outcome.exit_code == 1 and "the column 'seconds' is missing" in outcome.output
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    outcome = run("profiles", bad)
    assert outcome.exit_code == 1 and "Cannot read the table" in outcome.output
    assert run("fronts", results).exit_code == 2  # not a KIND
