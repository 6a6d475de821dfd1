"""Issue 36: moving code between modules changes no number. The leaderboards and per-dataset tables
of the built-in demo and of the SRBench black-box results are pinned here as digests of their exact
values (every float by its shortest round-trip repr), taken on main before the rooms were split
(commit bfa2637). Columns added later (place intervals, failures by type) are not part of the pin:
only the columns that existed then are compared."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
BLACKBOX = REALDATA / "srbench_results" / "blackbox_results.csv"

LEADERBOARD = ["place", "method", "score", "accuracy_rank", "simplicity_rank", "property_rank", "datasets",
               "dnf"]
PER_DATASET = ["dataset", "method", "status", "runs", "accuracy", "simplicity", "property", "accuracy_rank",
               "simplicity_rank", "property_rank", "dataset_score"]

# Digests on bfa2637 (see digest() for the serialisation).
PINNED = {
    "demo/leaderboard": "500b3555d1f2381e",
    "demo/per_dataset": "6f1b8bfdc515248b",
    "blackbox/leaderboard": "a5e662e26f5d1264",
    "blackbox/per_dataset": "6a016693fd0349a6",
}


def digest(frame: pd.DataFrame, columns: list[str], key: list[str]) -> str:
    """sha256 of the table's cells (only ``columns`` that exist, rows sorted by ``key``), floats by repr."""
    kept = [c for c in columns if c in frame.columns]
    rows = frame[kept].sort_values(key, kind="mergesort").itertuples(index=False)
    text = "\n".join([",".join(kept)] + [",".join(repr(v) if isinstance(v, float) else str(v) for v in row)
                                          for row in rows])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def score(args: list[str], out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    result = CliRunner().invoke(main, ["score", *args, "-o", str(out / "leaderboard.csv"),
                                       "--per-dataset", str(out / "per_dataset.csv")])
    assert result.exit_code == 0, result.output
    return pd.read_csv(out / "leaderboard.csv"), pd.read_csv(out / "per_dataset.csv")


def test_the_demo_tables_are_unchanged_by_the_move(tmp_path):
    assert CliRunner().invoke(main, ["demo", "-o", str(tmp_path / "demo")]).exit_code == 0
    leaderboard, per_dataset = score([str(tmp_path / "demo" / "competition.toml")], tmp_path)
    assert digest(leaderboard, LEADERBOARD, ["method"]) == PINNED["demo/leaderboard"]
    assert digest(per_dataset, PER_DATASET, ["dataset", "method"]) == PINNED["demo/per_dataset"]


@pytest.mark.realdata
@pytest.mark.skipif(not BLACKBOX.exists(), reason=f"real data not found at {BLACKBOX}")
def test_the_blackbox_tables_are_unchanged_by_the_move(tmp_path):
    from srdash.judging.rules import load_rules

    rules = tmp_path / "srbench2022-blackbox.toml"
    rules.write_text(load_rules("srbench2022").text.replace('column = "property"\n',
                                                            'column = "property"\noptional = true\n'))
    leaderboard, per_dataset = score([str(BLACKBOX), "--rules", str(rules)], tmp_path)
    assert digest(leaderboard, LEADERBOARD, ["method"]) == PINNED["blackbox/leaderboard"]
    assert digest(per_dataset, PER_DATASET, ["dataset", "method"]) == PINNED["blackbox/per_dataset"]
