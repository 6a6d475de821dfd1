"""Issue 36, item 1: one command reads and checks the dataset descriptions once, where the competition
enters, and hands the table to every step (the files it protects, the results' features, the synthetic
track, the data files' hashes): `srdash score` on the demo reads them once and parses each ground truth once,
on a cold and on a warm cache, with the leaderboard unchanged; `srdash report` too."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import srdash.expressions
import srdash.io.descriptions
from srdash.cli import main
from srdash.judging.competition import competition_from_options
from srdash.judging.inputs import CompetitionInputs, inputs_for, read_inputs
from test_move_unchanged import LEADERBOARD, PINNED, digest  # tests/ is on sys.path (pytest prepends it)

# The demo's descriptions.yaml describes 10 datasets (4 exact_formula, featureselection_easy,
# extrapolation_easy and 4 noise levels), each with a `truth`: one read parses 10 ground truths.
DEMO_TRUTHS = 10


@pytest.fixture
def counted(monkeypatch):
    """Count the reads of a dataset table (``read_source``, by source, wherever srdash's modules imported
    it by name) and the ground truths parsed (the descriptions reader's calls of ``parse_model``: the
    models are parsed elsewhere)."""
    reads: list[str] = []
    truths: list[str] = []
    read_source, parse_model = srdash.io.descriptions.read_source, srdash.expressions.parse_model

    def counting_read(source, *args, **kwargs):
        reads.append(str(source))
        return read_source(source, *args, **kwargs)

    def counting_parse(text, *args, **kwargs):
        if sys._getframe(1).f_globals["__name__"] == srdash.io.descriptions.__name__:
            truths.append(text)
        return parse_model(text, *args, **kwargs)

    for module in [m for name, m in sys.modules.items() if name.startswith("srdash") and m is not None]:
        if getattr(module, "read_source", None) is read_source:
            monkeypatch.setattr(module, "read_source", counting_read)
    monkeypatch.setattr(srdash.expressions, "parse_model", counting_parse)
    return reads, truths


@pytest.fixture
def demo(tmp_path, monkeypatch) -> Path:
    """The demo written by `srdash demo` into a fresh cache, which it seeds with the models' complexities:
    the first judging prepares the whole competition (as --no-cache does, without simplifying 684 models
    for minutes), the second reads the prepared competition from the cache."""
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))
    outcome = CliRunner().invoke(main, ["demo", "-o", str(tmp_path / "demo")])
    assert outcome.exit_code == 0, outcome.output
    return tmp_path / "demo"


def _score(demo: Path, out: Path) -> pd.DataFrame:
    outcome = CliRunner().invoke(main, ["score", str(demo / "competition.toml"), "-o", str(out)])
    assert outcome.exit_code == 0, outcome.output
    return pd.read_csv(out)


def test_score_reads_and_parses_the_descriptions_once_cold_and_warm_and_never_stale(demo, tmp_path, counted):
    reads, truths = counted
    descriptions = str(demo / "descriptions.yaml")
    for run in ("cold", "warm"):  # cold: prepared from the files; warm: the prepared competition from the cache
        reads.clear(), truths.clear()
        leaderboard = _score(demo, tmp_path / f"{run}.csv")
        assert reads == [descriptions], run   # main read it 3 times cold (the files to protect, the results'
        assert len(truths) == DEMO_TRUTHS, run  # features, the track), 30 ground truths parsed
        # the leaderboard pinned by test_move_unchanged (taken on main before the rooms were split)
        assert digest(leaderboard, LEADERBOARD, ["method"]) == PINNED["demo/leaderboard"], run
    # `srdash report` the same (on the warm cache: what it adds is rendering)
    reads.clear(), truths.clear()
    outcome = CliRunner().invoke(main, ["report", str(demo / "competition.toml"), "-o", str(tmp_path / "r.html"),
                                        "--samples", "20"])
    assert outcome.exit_code == 0, outcome.output
    assert reads == [descriptions] and len(truths) == DEMO_TRUTHS
    # never kept across runs: the file edited after the warm run is read again, and its error reported
    # once, with file, row and column
    path = demo / "descriptions.yaml"
    path.write_text(path.read_text().replace("  noise_level: 0.0\n", "  noise_levl: 0.0\n", 1))
    reads.clear()
    outcome = CliRunner().invoke(main, ["score", str(demo / "competition.toml")])
    assert outcome.exit_code == 1, outcome.output
    message = f"'{path}', row 1, column 'noise_levl': unknown key in dataset 'exact_formula_easier'."
    assert outcome.output.count(message) == 1, outcome.output
    assert reads == [descriptions]


def test_inputs_read_from_other_descriptions_are_refused(tmp_path):
    (tmp_path / "results.csv").write_text("method,dataset,r2_test,components\na,d,0.5,3\n")
    competition = competition_from_options(tmp_path / "results.csv")
    assert inputs_for(competition, None) == read_inputs(competition) == CompetitionInputs(descriptions_path=None)
    with pytest.raises(ValueError, match=r"The 'inputs' must be read from the competition's descriptions "
                                         r"\(None\)\. Got inputs read from other\.yaml\."):
        inputs_for(competition, CompetitionInputs(descriptions_path=Path("other.yaml")))
