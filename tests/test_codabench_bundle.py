"""Bundles srdash writes pass the offline validator (written from Codabench's unpacker and leaderboard
serializer, codabench@c7dbc75); broken bundles show each problem; the leaderboard's columns and scores."""

from __future__ import annotations

import datetime
import io
import math
import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from srdash.cli import main
from srdash.codabench.bundle import write_bundle
from srdash.codabench.columns import FAILED_VALUE, KEY_LIMIT, finite_score, leaderboard_columns
from srdash.codabench.validate import validate_bundle
from srdash.judging.competition import load_competition
from srdash.judging.rules import load_rules
from test_codabench_score import tiny_bundle, tiny_competition


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return tiny_bundle(tmp_path_factory.mktemp("bundle"))


def _rewritten(bundle: Path, target: Path, *, edit=None, drop=(), empty=()) -> Path:
    """A copy of ``bundle`` with competition.yaml edited, members dropped or emptied."""
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(target, "w") as out:
        document = yaml.safe_load(source.read("competition.yaml"))
        if edit is not None:
            edit(document)
        for name in source.namelist():
            if name in drop:
                continue
            data = b"" if name in empty else source.read(name)
            out.writestr(name, yaml.safe_dump(document).encode() if name == "competition.yaml" else data)
    return target


def test_the_tiny_bundle_has_no_problem(bundle):
    assert validate_bundle(bundle) == []


def test_the_demo_bundle_has_no_problem_and_keeps_test_data_hidden(tmp_path):
    from srdash.demo.competition import cached_demo

    # Writing the demo's bundle copies files only (no model is simplified): under a second measured.
    path = write_bundle(load_competition(cached_demo()["competition"]), tmp_path / "demo.zip",
                        start=datetime.date(2027, 1, 1))
    assert validate_bundle(path) == []
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        document = yaml.safe_load(archive.read("competition.yaml"))
    public = [n for n in names if n.startswith("public_data/")]
    assert public and all(n.endswith("_train.csv") for n in public)
    assert "reference_data/descriptions/descriptions.yaml" in names
    assert any(n.endswith("_test.csv") and n.startswith("reference_data/") for n in names)
    # The demo: 10 datasets x 3 criteria (accuracy, simplicity, property) + datasets_ok.
    assert len(document["leaderboards"][0]["columns"]) == 31


def test_the_bundle_is_the_same_byte_for_byte(tmp_path):
    competition = load_competition(tiny_competition(tmp_path / "c"))
    a = write_bundle(competition, tmp_path / "a.zip", start=datetime.date(2027, 1, 1))
    b = write_bundle(competition, tmp_path / "b.zip", start=datetime.date(2027, 1, 1))
    assert a.read_bytes() == b.read_bytes()


def test_the_bundle_says_the_verdict_is_srdash_s_and_how_to_provide_srdash(bundle):
    with zipfile.ZipFile(bundle) as archive:
        evaluation = archive.read("pages/evaluation.md").decode()
        overview = archive.read("pages/overview.md").decode()
        metadata = yaml.safe_load(archive.read("scoring_program/metadata.yaml"))
    assert "computed by srdash" in overview and "published by the organiser" in overview
    assert "pip install srdash==" in evaluation
    assert metadata == {"command": "python3 /app/program/score.py /app/input /app/output"}


BROKEN = {
    "missing page": (dict(drop=("pages/data.md",)), r"pages\[2\]: 'pages/data.md' is not in the bundle"),
    "empty terms": (dict(empty=("pages/terms.md",)), r"terms: 'pages/terms.md' is empty"),
    "missing logo": (dict(drop=("logo.png",)), r"image: 'logo.png' is not in the bundle"),
    "no metadata.yaml": (dict(drop=("scoring_program/metadata.yaml",)),
                         r"tasks\[0\].scoring_program: 'scoring_program' has no metadata.yaml"),
    "duplicate column key": (dict(edit=lambda d: d["leaderboards"][0]["columns"][2].update(key="accuracy__d1")),
                             r"columns must have unique keys. Repeated: accuracy__d1"),
    "duplicate column index": (dict(edit=lambda d: d["leaderboards"][0]["columns"][2].update(index=1)),
                               r"columns must have unique indexes. Repeated: 1"),
    "phase dates out of order": (dict(edit=lambda d: d["phases"][1].update(start="2027-01-15")),
                                 r"Phases must be sequential: phase 'Final' starts before phase 'Development'"),
    "phase without end": (dict(edit=lambda d: d["phases"][0].pop("end")),
                          r"phase 'Development' must have an end because a phase comes after it"),
    "same day": (dict(edit=lambda d: d["phases"][1].update(start=d["phases"][0]["end"])),
                 r"Phases' dates conflict"),
    "no version": (dict(edit=lambda d: d.pop("version")), r"'version' must be 2"),
    "no leaderboards": (dict(edit=lambda d: d.pop("leaderboards")), r"'leaderboards' is missing or empty"),
    "long key": (dict(edit=lambda d: d["leaderboards"][0]["columns"][1].update(key="k" * 37)),
                 r"'key' must be text of 1 to 36 characters"),
    "bad sorting": (dict(edit=lambda d: d["leaderboards"][0]["columns"][1].update(sorting="up")),
                    r"'sorting' must be 'desc' or 'asc'. Got 'up'"),
    "unknown task": (dict(edit=lambda d: d["phases"][1].update(tasks=[7])), r"task 7 is no task's index"),
    "duplicate column title": (dict(edit=lambda d: d["leaderboards"][0]["columns"][2].update(title="d1: accuracy")),
                               r"columns with the same title become one column of the results download. "
                               r"Repeated: d1: accuracy"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_each_broken_bundle_problem_is_found(bundle, tmp_path, case):
    options, message = BROKEN[case]
    problems = validate_bundle(_rewritten(bundle, tmp_path / "broken.zip", **options))
    assert len(problems) >= 1
    assert any(__import__("re").search(message, p) for p in problems), problems


def test_a_bundle_that_is_not_a_zip_or_has_no_competition_yaml(bundle, tmp_path):
    (tmp_path / "x.zip").write_text("no zip")
    assert "is not a readable zip" in validate_bundle(tmp_path / "x.zip")[0]
    assert validate_bundle(_rewritten(bundle, tmp_path / "n.zip", drop=("competition.yaml",))) == \
        ["The bundle has no competition.yaml at its root."]


def test_columns_keys_are_unique_and_short_even_for_long_or_clashing_names():
    criteria = load_rules("srbench2022").criteria
    datasets = ["a-b", "a_b", "x" * 60, "x" * 60 + "y"]
    columns = leaderboard_columns(criteria, datasets)
    keys = [c.key for c in columns]
    assert len(set(keys)) == len(keys) == 1 + 3 * 4
    assert all(len(c.key) <= KEY_LIMIT and len(c.title) <= KEY_LIMIT for c in columns)
    assert len({c.title for c in columns}) == len(columns)  # 'x'*60 and 'x'*60+'y' truncate alike: hashed apart
    assert keys[1:4] == ["accuracy__a_b", "simplicity__a_b", "property__a_b"]
    assert keys[4].startswith("accuracy__a_b_")  # 'a_b' cleans to the same text: a hash tells them apart


def test_finite_score_puts_failures_on_the_worst_side_and_below_1e10():
    assert finite_score(math.nan, higher_is_better=True) == -FAILED_VALUE
    assert finite_score(-math.inf, higher_is_better=True) == -FAILED_VALUE
    assert finite_score(math.inf, higher_is_better=False) == FAILED_VALUE
    assert finite_score(-1e300, higher_is_better=True) > -FAILED_VALUE  # a real value beats a failure
    assert finite_score(1e300, higher_is_better=False) < FAILED_VALUE
    assert finite_score(0.25, higher_is_better=False) == 0.25


def test_cli_bundle_and_validate(tmp_path):
    competition = tiny_competition(tmp_path / "c")
    runner = CliRunner()
    result = runner.invoke(main, ["codabench", "bundle", str(competition), "-o", str(tmp_path / "b.zip"),
                                  "--start", "2027-01-01"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["codabench", "validate", str(tmp_path / "b.zip")])
    assert result.exit_code == 0 and "no problem found" in result.output
    result = runner.invoke(main, ["codabench", "bundle", str(competition), "-o", str(tmp_path / "b.zip"),
                                  "--start", "1st of May"])
    assert result.exit_code == 2 and "The '--start' option must be a date YYYY-MM-DD. Got '1st of May'." in \
        result.output
    result = runner.invoke(main, ["codabench", "bundle", str(competition), "-o", str(tmp_path / "b.zip"),
                                  "--sample-method", "Nobody"])
    assert result.exit_code == 1 and "The 'sample_method' option must be one of the results' methods" in \
        result.output
    result = runner.invoke(main, ["codabench", "bundle", str(competition), "-o", str(tmp_path / "c" / "results.csv")])
    assert result.exit_code != 0 and "results.csv" in result.output


def test_cli_validate_lists_problems(bundle, tmp_path):
    broken = _rewritten(bundle, tmp_path / "broken.zip", drop=("logo.png",))
    result = CliRunner().invoke(main, ["codabench", "validate", str(broken)])
    assert result.exit_code == 1
    assert "image: 'logo.png' is not in the bundle" in result.output and "1 problem(s)" in result.output


def test_the_prediction_demo_bundle_has_no_problem(tmp_path):
    from test_codabench_score import prediction_bundle

    bundle, _ = prediction_bundle(tmp_path)
    assert validate_bundle(bundle) == []
    with zipfile.ZipFile(bundle) as archive:
        document = yaml.safe_load(archive.read("competition.yaml"))
        final = __import__("json").loads(archive.read("reference_data_final/srdash.json"))
    assert [(c["key"], c["sorting"]) for c in document["leaderboards"][0]["columns"]] == [("rmse", "asc"),
                                                                                         ("mae", "asc")]
    assert [p["name"] for p in document["phases"]] == ["Development", "Final"]
    assert final["subset"] == "final"


def test_a_prediction_bundle_refuses_a_sample_srdash_refuses(tmp_path):
    from srdash.codabench.predictions import write_prediction_bundle
    from srdash.demo.predictions import write_demo_predictions
    from srdash.errors import ValidationError

    options = write_demo_predictions(tmp_path / "demo", samples=40)
    (tmp_path / "bad.txt").write_text("1\n2\n")
    with pytest.raises(ValidationError, match=r"bad.txt"):
        write_prediction_bundle(tmp_path / "p.zip", targets_preliminary=options["targets_preliminary"],
                                targets_final=options["targets_final"], metrics=["rmse"], sample=tmp_path / "bad.txt")
    with pytest.raises(Exception, match=r"The 'metrics' option must name at least one metric. Got none."):
        write_prediction_bundle(tmp_path / "p.zip", targets_preliminary=options["targets_preliminary"],
                                targets_final=options["targets_final"], metrics=[], sample=tmp_path / "bad.txt")


def test_meta_score_rules_have_no_per_dataset_bundle(tmp_path):
    from srdash.errors import SrdashError
    from srdash.judging.competition import competition_from_options

    (tmp_path / "r.csv").write_text("method,dataset,run,model,r2_test\nA,d1,0,x1,0.5\n")
    competition = competition_from_options(tmp_path / "r.csv", rules="evalrs2022")
    with pytest.raises(SrdashError, match=r"The rules 'evalrs2022' score submissions with weighted meta-scores"):
        write_bundle(competition, tmp_path / "b.zip")


def test_cli_bundle_says_the_demo_s_qualification_and_real_world_track_stay_with_the_organiser(tmp_path):
    from srdash.demo.competition import cached_demo

    result = CliRunner().invoke(main, ["codabench", "bundle", str(cached_demo()["competition"]), "-o",
                                       str(tmp_path / "demo.zip"), "--start", "2027-01-01"])
    assert result.exit_code == 0, result.output
    assert "Note: the qualification stage compares methods; it is not run on Codabench" in result.output
    assert "Note: the real-world track compares methods" in result.output
