"""The verdict fingerprint is the verdict's identity (issue: one identity).

The same inputs (by content), rules and versions give the same fingerprint in any folder; anything that
changes the verdict, an input byte, a rule or the sympy version, changes it. Scores do not depend on the
order of rows or on the names of methods.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.judging import provenance
from srdash.judging.competition import competition_from_options, load_competition
from srdash.judging.pipeline import judge_competition


def _competition(folder: Path) -> Path:
    """Four methods on three datasets, two runs each, sizes given (nothing to simplify), a dataset table in a
    sub-folder: every input named relative to the competition file."""
    rng = np.random.default_rng(7)
    rows = [{"method": method, "dataset": dataset, "run": run, "r2_test": round(float(rng.uniform(0.5, 1)), 4),
             "components": int(rng.integers(3, 40)), "property": round(float(rng.uniform(0, 1)), 3)}
            for method in ("alpha", "beta", "gamma", "delta") for dataset in ("d1", "d2", "d3") for run in (0, 1)]
    folder.mkdir(parents=True)
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    (folder / "competition.toml").write_text('title = "Moves"\nresults = "results.csv"\nrules = "srbench2022"\n'
                                             '[simplification]\ncache = false\njobs = 1\n')
    return folder / "competition.toml"


def _fingerprint(competition: Path) -> str:
    return judge_competition(load_competition(competition)).fingerprint


def test_the_same_files_in_another_folder_give_the_same_fingerprint(tmp_path):
    first = _competition(tmp_path / "one")
    copies = [tmp_path / "two words" / "x", tmp_path / "a" / "b" / "c" / "deeper"]
    for copy in copies:
        shutil.copytree(first.parent, copy)
    fingerprints = {_fingerprint(first), *(_fingerprint(copy / "competition.toml") for copy in copies)}
    assert len(fingerprints) == 1
    # the command line says the same, and the provenance names no absolute path
    result = CliRunner().invoke(main, ["score", str(copies[1] / "competition.toml"), "-o", str(tmp_path / "lb.csv")])
    assert result.exit_code == 0, result.output
    assert re.search(r"full: ([0-9a-f]{64})", result.output).group(1) in fingerprints
    sidecar = (tmp_path / "lb.csv.provenance.json").read_text()
    assert str(tmp_path) not in sidecar and '"input_sha256:results:results.csv"' in sidecar


def test_plain_arguments_and_the_competition_file_name_inputs_alike(tmp_path):
    # `srdash score results.csv` names its inputs relative to the results' folder: the same entries as a
    # competition file beside them
    competition = _competition(tmp_path / "c")
    from_file = judge_competition(load_competition(competition))
    from_options = judge_competition(competition_from_options(tmp_path / "c" / "results.csv", cache=False, jobs=1))
    keys = lambda result: sorted(k for k in result.provenance if k.startswith("input"))  # noqa: E731
    assert keys(from_file) == keys(from_options) == ["input_sha256:results:results.csv"]


def test_workers_and_cache_do_not_change_the_fingerprint_and_an_input_byte_does(tmp_path):
    competition = _competition(tmp_path / "c")
    base = judge_competition(load_competition(competition))
    text = competition.read_text().replace("jobs = 1", "jobs = 2")
    competition.write_text(text.replace("cache = false", f'cache = "{tmp_path / "cache.sqlite"}"'))
    assert _fingerprint(competition) == base.fingerprint
    # one property value moved in its last digit: the same places, another input, another fingerprint
    results = pd.read_csv(tmp_path / "c" / "results.csv")
    results.loc[0, "property"] += 0.0001
    results.to_csv(tmp_path / "c" / "results.csv", index=False)
    assert _fingerprint(competition) != base.fingerprint


def test_the_rules_and_the_sympy_version_change_the_fingerprint(tmp_path, monkeypatch):
    competition = _competition(tmp_path / "c")
    base = _fingerprint(competition)
    competition.write_text(competition.read_text().replace('"srbench2022"', '"srbench2022-draft"'))
    assert _fingerprint(competition) != base
    competition.write_text(competition.read_text().replace('"srbench2022-draft"', '"srbench2022"'))
    assert _fingerprint(competition) == base
    running = provenance.versions()
    monkeypatch.setattr(provenance, "versions", lambda **_: {**running, "sympy": "1.10.1"})
    assert _fingerprint(competition) != base


def test_shuffled_rows_and_renamed_methods_give_the_same_scores(tmp_path):
    competition = _competition(tmp_path / "c")
    base = judge_competition(load_competition(competition)).verdict.leaderboard.set_index("method")["score"]
    results = pd.read_csv(tmp_path / "c" / "results.csv")
    results.sample(frac=1.0, random_state=3).to_csv(tmp_path / "c" / "results.csv", index=False)
    shuffled = judge_competition(load_competition(competition)).verdict.leaderboard.set_index("method")["score"]
    pd.testing.assert_series_equal(shuffled.sort_index(), base.sort_index())
    # names that sort the other way round (lexical tie-breaks must not matter)
    renamed = {"alpha": "zz", "beta": "yy", "gamma": "xx", "delta": "ww"}
    results.assign(method=results["method"].map(renamed)).to_csv(tmp_path / "c" / "results.csv", index=False)
    board = judge_competition(load_competition(competition)).verdict.leaderboard
    scores = board.assign(method=board["method"].map({v: k for k, v in renamed.items()})).set_index("method")
    pd.testing.assert_series_equal(scores["score"].sort_index(), base.sort_index())


@pytest.mark.parametrize("move", ["rename", "deeper"])
def test_a_report_publishes_inputs_by_relative_path(tmp_path, move):
    competition = _competition(tmp_path / "c")
    target = tmp_path / ("renamed folder" if move == "rename" else "x/y/z")
    shutil.move(str(competition.parent), str(target))
    result = CliRunner().invoke(main, ["report", str(target / "competition.toml"), "-o", str(tmp_path / "r.html"),
                                       "--samples", "20"])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text()
    assert str(tmp_path) not in html
    assert 'data-key="input_sha256:results:results.csv"' in html and 'data-key="verdict_fingerprint"' in html
    assert html.count("Verdict fingerprint:") == 1 and 'data-key="block_sha256"' not in html
