"""End to end: three submissions scored by the scoring program, exported in the shape of Codabench's download
(``collect_leaderboard_data`` / ``results`` and ``download_many``, codabench@c7dbc75), collected, judged."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.codabench.collect import collect_export
from srdash.errors import SrdashError, ValidationError
from srdash.judging.competition import competition_from_options
from srdash.judging.pipeline import judge_competition
from test_codabench_score import TINY_RESULTS, column_keys, run_like_worker, tiny_bundle

# Owner names as Codabench has them: one with a '-' (the Username column is '<owner>-<submission id>').
OWNERS = {"Alpha": "alpha-lab", "Beta": "beta_user", "Gamma": "gamma"}
PHASE_ID, TASK_ID = 12, 34


def _submission(method: str) -> str:
    lines = TINY_RESULTS.splitlines()
    return "\n".join([lines[0], *(line for line in lines[1:] if line.startswith(method + ","))]) + "\n"


def _export(bundle: Path, root: Path, submissions) -> Path:
    """Codabench's download for ``submissions`` [(owner, id, results text)]: the phase's leaderboard CSV and
    each submission's scoring result zip (the output folder plus the worker's ``metadata``)."""
    export = root / "export"
    export.mkdir()
    with zipfile.ZipFile(bundle) as archive:
        import yaml

        document = yaml.safe_load(archive.read("competition.yaml"))
    titles = {c["key"]: c["title"] for c in document["leaderboards"][0]["columns"]}
    task_name = document["tasks"][1]["name"]
    rows = []
    for owner, submission_id, text in submissions:
        code, stderr, output = run_like_worker(bundle, {"results.csv": text}, root / f"run{submission_id}",
                                               in_process=True)
        assert code == 0, stderr
        (output / "metadata").write_text("exitCode: 0\nelapsedTime: 3.1\n")  # what the worker adds
        name = f"res_{submission_id}_{owner}_PhaseId{PHASE_ID}_2027-02-03:10-00_submission.zip"
        with zipfile.ZipFile(export / name, "w") as out:
            for path in sorted(output.iterdir()):
                out.write(path, path.name)
        scores = json.loads((output / "scores.json").read_text())
        rows.append({"Username": f"{owner}-{submission_id}", "fact_sheet_answers": "",
                     **{f"{task_name}({TASK_ID})-{titles[k]}": v for k, v in scores.items()}})
    with open(export / f"Results - Final({PHASE_ID}).csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return export


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    bundle = tiny_bundle(root)
    submissions = [(OWNERS[m], str(100 + i), _submission(m)) for i, m in enumerate(OWNERS)]
    return bundle, _export(bundle, root, submissions)


def test_collected_verdict_equals_srdash_score_and_collecting_twice_gives_one_fingerprint(scored, tmp_path):
    _, export = scored
    runner = CliRunner()
    fingerprints, texts = [], []
    for attempt in ("first", "second"):
        out = tmp_path / attempt / "results.csv"
        out.parent.mkdir()
        result = runner.invoke(main, ["codabench", "collect", str(export), "-o", str(out)])
        assert result.exit_code == 0, result.output
        texts.append(out.read_bytes())
        fingerprints.append(judge_competition(competition_from_options(out, rules="srbench2022", jobs=1)))
    assert texts[0] == texts[1]
    assert fingerprints[0].fingerprint == fingerprints[1].fingerprint
    # srdash score on the same three methods' results, named by their owners.
    direct = tmp_path / "direct.csv"
    direct.write_text(TINY_RESULTS.replace("Alpha,", "alpha-lab,").replace("Beta,", "beta_user,")
                      .replace("Gamma,", "gamma,"))
    expected = judge_competition(competition_from_options(direct, rules="srbench2022", jobs=1)).verdict.leaderboard
    got = fingerprints[0].verdict.leaderboard
    pd.testing.assert_frame_equal(got[["place", "method", "score"]], expected[["place", "method", "score"]])
    assert sorted(got["method"]) == ["alpha-lab", "beta_user", "gamma"]
    # The same through the command an organiser runs: `srdash score` writes the same leaderboard.
    boards = []
    for source in (tmp_path / "first" / "results.csv", direct):
        board = tmp_path / f"{source.parent.name}-leaderboard.csv"
        result = runner.invoke(main, ["score", str(source), "--rules", "srbench2022", "-o", str(board)])
        assert result.exit_code == 0, result.output
        boards.append(board.read_text())
    assert boards[0] == boards[1]


def test_an_owner_with_several_submissions_is_one_method_per_submission(scored, tmp_path):
    _, export = scored
    # The same scored outputs, re-owned: ann made submissions 7 and 8, bob 9 (only names decide ownership).
    owners = {"100": ("ann", "7"), "101": ("ann", "8"), "102": ("bob", "9")}
    again = tmp_path / "again"
    again.mkdir()
    for path in export.glob("res_*.zip"):
        old_id, old_owner = path.name.split("_")[1], path.name.split("_PhaseId")[0].split("_", 2)[2]
        owner, new_id = owners[old_id]
        (again / path.name.replace(f"res_{old_id}_{old_owner}_", f"res_{new_id}_{owner}_")).write_bytes(
            path.read_bytes())
    (again / f"Results - Final({PHASE_ID}).csv").write_text("Username,fact_sheet_answers\nann-7,\nann-8,\nbob-9,\n")
    collected = collect_export(again)
    assert collected.methods == ["ann-7", "ann-8", "bob"]
    assert collected.problems == ()


def test_missing_scoring_results_are_listed_and_left_out(scored, tmp_path):
    _, export = scored
    partial = tmp_path / "partial"
    partial.mkdir()
    for path in export.iterdir():
        if not path.name.startswith("res_101_"):
            (partial / path.name).write_bytes(path.read_bytes())
    collected = collect_export(partial)
    assert sorted(collected.table["method"].unique()) == ["alpha-lab", "gamma"]
    assert collected.problems == ("beta_user-101: 0 scoring results named res_101_beta_user_PhaseId12_*.zip "
                                  "(one expected); left out",)


def test_collect_refuses_ambiguous_or_bad_exports(scored, tmp_path):
    _, export = scored
    two = tmp_path / "two"
    two.mkdir()
    for path in export.iterdir():
        (two / path.name).write_bytes(path.read_bytes())
    (two / "Results - Development(11).csv").write_text("Username\n")
    with pytest.raises(SrdashError, match=r"Several leaderboard export in .* give --phase"):
        collect_export(two)
    assert collect_export(two, phase="Final").phase == f"Results - Final({PHASE_ID}).csv"
    assert collect_export(two, phase=str(PHASE_ID)).table["method"].nunique() == 3
    (two / "Results - Final(12).csv").write_text("Username,x\nnobody,1\n")
    with pytest.raises(ValidationError, match=r"row 1, column 'Username'.*expected '<owner>-<submission id>'"):
        collect_export(two, phase="Final")
    with pytest.raises(SrdashError, match=r"must be a folder"):
        collect_export(two / "Results - Final(12).csv")


def test_a_scoring_result_without_results_csv_is_left_out_with_the_reason(scored, tmp_path):
    _, export = scored
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in export.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    victim = next(copy.glob("res_102_*.zip"))
    with zipfile.ZipFile(victim, "w") as out:
        out.writestr("scores.json", "{}")
    collected = collect_export(copy)
    assert sorted(collected.table["method"].unique()) == ["alpha-lab", "beta_user"]
    assert "gamma-102: " in collected.problems[0] and "no results.csv" in collected.problems[0]


def test_a_prediction_competition_is_collected_into_a_listing_that_srdash_predictions_scores(tmp_path):
    from srdash.io.predictions import read_targets
    from srdash.judging.predictions import score_submissions
    from test_codabench_score import prediction_bundle

    bundle, options = prediction_bundle(tmp_path)
    files = Path(options["targets_final"]).parent / "submissions"
    export = tmp_path / "export"
    export.mkdir()
    rows = []
    for submission_id, (owner, name) in enumerate([("ann", "forest-1.txt"), ("bob", "linear-1.txt")], start=5):
        code, stderr, output = run_like_worker(bundle, {"predictions.txt": (files / name).read_text()},
                                               tmp_path / f"run{submission_id}", in_process=True)
        assert code == 0, stderr
        (output / "metadata").write_text("exitCode: 0\n")
        with zipfile.ZipFile(export / f"res_{submission_id}_{owner}_PhaseId{PHASE_ID}_2027-02-03:10-00_p.zip",
                             "w") as out:
            for path in sorted(output.iterdir()):
                out.write(path, path.name)
        rows.append(f"{owner}-{submission_id},")
    (export / f"Results - Final({PHASE_ID}).csv").write_text("Username,fact_sheet_answers\n" + "\n".join(rows) + "\n")
    result = CliRunner().invoke(main, ["codabench", "collect", str(export), "-o", str(tmp_path / "collected")])
    assert result.exit_code == 0, result.output
    listing = tmp_path / "collected" / "listing.csv"
    assert listing.read_text().splitlines() == ["team,file", "ann,submissions/5.txt", "bob,submissions/6.txt"]
    targets = read_targets(options["targets_preliminary"], options["targets_final"])
    collected = score_submissions(listing, targets, metric="rmse").final_leaderboard
    direct = score_submissions(pd.DataFrame({"team": ["ann", "bob"], "file": [str(files / "forest-1.txt"),
                                                                              str(files / "linear-1.txt")]}),
                               targets, metric="rmse").final_leaderboard
    pd.testing.assert_frame_equal(collected[["place", "team", "score"]], direct[["place", "team", "score"]])


def test_cli_bundle_predictions(tmp_path):
    from srdash.demo.predictions import write_demo_predictions

    options = write_demo_predictions(tmp_path / "demo", samples=40)
    args = ["codabench", "bundle-predictions", "--targets-preliminary", options["targets_preliminary"],
            "--targets-final", options["targets_final"], "--metric", "rmse", "--sample",
            str(tmp_path / "demo" / "submissions" / "forest-1.txt"), "-o", str(tmp_path / "p.zip")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, [*args[:-2], "-o", str(tmp_path / "p.zip"), "--metric", "nonsense"])
    assert result.exit_code == 1 and "nonsense" in result.output
