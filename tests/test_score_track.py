"""`srdash score --descriptions`: a synthetic track judged from raw model strings and data files."""

from __future__ import annotations

import pandas as pd
from click.testing import CliRunner

from srdash.cli import main
from srdash.datasets import write_property_datasets


def test_score_from_raw_models_and_descriptions(tmp_path, monkeypatch):
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))
    table = write_property_datasets(tmp_path / "data", seed=1)
    rows = []
    for spec in table:
        # the ground truth itself (with a wrong supplied r2_test, which must be recomputed
        # and reported), and a straight line that is worse on every property
        rows.append({"method": "Truth", "dataset": spec.name, "model": spec.truth, "r2_test": 0.123})
        rows.append({"method": "Line", "dataset": spec.name, "model": "1.5*x1 + 0.5"})
    pd.DataFrame(rows).to_csv(tmp_path / "results.csv", index=False)
    result = CliRunner().invoke(main, [
        "score", str(tmp_path / "results.csv"), "--descriptions", str(tmp_path / "data" / "datasets.yaml"),
        "-o", str(tmp_path / "lb.csv"), "--per-dataset", str(tmp_path / "per.csv"),
        "--problems", str(tmp_path / "problems.csv"), "--no-cache"])
    assert result.exit_code == 0, result.output
    leaderboard = pd.read_csv(tmp_path / "lb.csv")
    assert list(leaderboard["method"]) == ["Truth", "Line"]
    assert "property_rank" in leaderboard.columns
    per = pd.read_csv(tmp_path / "per.csv").set_index(["dataset", "method"])
    # exact re-discovery: the truth is equivalent to itself, the line is not
    assert per.loc[("exact_hard", "Truth"), "property"] == 1.0
    assert per.loc[("exact_hard", "Line"), "property"] == 0.0
    # the supplied r2_test (0.123) was recomputed: the noiseless truth fits perfectly
    assert per.loc[("exact_easy", "Truth"), "accuracy"] == 1.0
    problems = pd.read_csv(tmp_path / "problems.csv")
    assert (problems["method"] == "Truth").sum() >= len(table)  # one mismatch report per dataset
