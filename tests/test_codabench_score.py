"""The scoring program run the way Codabench's compute worker runs it (compute_worker.py, codabench@c7dbc75).

A temporary root stands for the container's /app: ``program`` (the bundle's scoring program, the working
directory), ``input/ref`` (the task's reference data), ``input/res`` (the unzipped submission) and
``output``. The command is the one in the bundle's ``metadata.yaml`` with /app replaced by the root,
run under the phase's ``execution_time_limit``.
"""

from __future__ import annotations

import datetime
import json
import os
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from srdash.codabench.columns import FAILED_VALUE
from srdash.codabench.bundle import write_bundle
from srdash.judging.competition import load_competition

REPO = Path(__file__).resolve().parents[1]

# Three methods, two datasets, two runs: the tiny competition every Codabench test uses.
TINY_RESULTS = """\
method,dataset,run,model,r2_test,property
Alpha,d1,0,x1 + 2*x2,0.91,1.0
Alpha,d1,1,x1 + 2.1*x2,0.9,0.0
Alpha,d2,0,x1*x1,0.5,0.2
Alpha,d2,1,x1*x1 + 1,0.6,0.3
Beta,d1,0,-x1,0.3,0.0
Beta,d1,1,sin(x1) + x2,0.8,1.0
Beta,d2,0,x1,0.7,0.5
Beta,d2,1,exp(x1),0.75,0.4
Gamma,d1,0,x2,0.2,0.0
Gamma,d1,1,x2 + 1,0.25,0.0
Gamma,d2,0,x1 + x1*x1,0.95,0.9
Gamma,d2,1,x1 + x1*x1 + 0.5,0.97,0.9
"""


def tiny_competition(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.csv").write_text(TINY_RESULTS, encoding="utf-8")
    path = folder / "competition.toml"
    path.write_text('title = "Tiny"\nresults = "results.csv"\nrules = "srbench2022"\n', encoding="utf-8")
    return path


def tiny_bundle(tmp_path: Path) -> Path:
    competition = load_competition(tiny_competition(tmp_path / "competition"))
    return write_bundle(competition, tmp_path / "bundle.zip", start=datetime.date(2027, 1, 1))


def run_like_worker(bundle: Path, submission: bytes | dict | None, root: Path, *, phase: int = 1,
                    in_process: bool = False):
    """Lay out ``root`` as the worker does, run the metadata command; (returncode, stderr, output folder).

    ``submission``: the zip's bytes, or ``{name: text}`` of its files, or None (nothing submitted).
    ``in_process``: call the program's entry point here instead of the command's two new interpreters (the
    shim and ``python -m srdash.codabench.score``): for the tests that need the scores and the messages, not the
    process. The sample submission, the attack, a predictions file and the missing srdash keep the real command."""
    with zipfile.ZipFile(bundle) as archive:
        document = yaml.safe_load(archive.read("competition.yaml"))
        task = document["tasks"][document["phases"][phase]["tasks"][0]]
        for member in archive.namelist():
            for folder, target in ((task["scoring_program"], root / "program"),
                                   (task["reference_data"], root / "input" / "ref")):
                if member.startswith(folder + "/"):
                    destination = target / member[len(folder) + 1:]
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    destination.write_bytes(archive.read(member))
    res, output = root / "input" / "res", root / "output"
    res.mkdir(parents=True)
    output.mkdir()
    if isinstance(submission, dict):
        for name, text in submission.items():
            (res / name).write_text(text, encoding="utf-8")
    elif submission is not None:
        (root / "submission.zip").write_bytes(submission)
        with zipfile.ZipFile(root / "submission.zip") as archive:
            archive.extractall(res)
    if in_process:
        import contextlib
        import io

        from srdash.codabench.score import main as score_main

        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            code = score_main([str(root / "input"), str(output)])
        return code, stderr.getvalue(), output
    command = yaml.safe_load((root / "program" / "metadata.yaml").read_text())["command"]
    argv = [sys.executable if part == "python3" else part.replace("/app", str(root))
            for part in shlex.split(command)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    limit = document["phases"][phase]["execution_time_limit"]
    done = subprocess.run(argv, cwd=root / "program", env=env, capture_output=True, text=True, timeout=limit)
    return done.returncode, done.stderr, output


def sample_submission(bundle: Path) -> bytes:
    with zipfile.ZipFile(bundle) as archive:
        return archive.read("sample_submission/results.csv")


def column_keys(bundle: Path) -> list:
    with zipfile.ZipFile(bundle) as archive:
        document = yaml.safe_load(archive.read("competition.yaml"))
    return [c["key"] for c in document["leaderboards"][0]["columns"]]


def check_output(bundle: Path, output: Path) -> dict:
    """What the worker and the leaderboard need of any run: returns the scores."""
    scores = json.loads((output / "scores.json").read_text())
    assert list(scores) == column_keys(bundle)
    assert all(isinstance(v, float) and abs(v) <= FAILED_VALUE for v in scores.values())
    assert not (output / "metadata").exists()
    html = (output / "detailed_results.html").read_text()
    for reference in ("http:", "https:", "src=", "href=", "@import", "url("):
        assert reference not in html
    return scores


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return tiny_bundle(tmp_path_factory.mktemp("bundle"))


def test_sample_submission_scores_like_srdash(bundle, tmp_path):
    code, stderr, output = run_like_worker(bundle, {"results.csv": sample_submission(bundle).decode()}, tmp_path)
    assert code == 0, stderr
    scores = check_output(bundle, output)
    # Alpha (the sample: first method by name): d1 accuracy = median(0.91, 0.90) = 0.905; d2 = median(0.5, 0.6)
    # = 0.55; simplicity of x1 + 2*x2 (5 components) = round(-log5(5), 1) = -1.0; property medians 0.5 and 0.25.
    assert scores == {"datasets_ok": 2.0, "accuracy__d1": 0.905, "simplicity__d1": -1.0, "property__d1": 0.5,
                      "accuracy__d2": 0.55, "simplicity__d2": -0.8, "property__d2": 0.25}
    assert "Alpha" in (output / "detailed_results.html").read_text()
    assert (output / "results.csv").read_text().count("Alpha,") == 4


HOSTILE = {
    # a model that does not parse (and is an attack): as srbench2022 says, the worst simplicity; its reported
    # accuracy is kept (the rules take test R2 from the results when no data is given)
    "unparsable": ("method,dataset,run,model,r2_test,property\nX,d1,0,__import__('os').system('echo PWNED'),0.9,1\n"
                   "X,d2,0,x1,0.5,0.5\n", {"simplicity__d1": -FAILED_VALUE, "accuracy__d1": 0.9,
                                          "accuracy__d2": 0.5, "datasets_ok": 1.0}, "rejected"),
    # a missing dataset (d2): DNF, the worst value on its every column
    "missing dataset": ("method,dataset,run,model,r2_test,property\nX,d1,0,x1,0.9,1\n",
                        {"accuracy__d2": -FAILED_VALUE, "property__d2": -FAILED_VALUE, "accuracy__d1": 0.9,
                         "datasets_ok": 1.0}, "DNF"),
    # a NaN accuracy: the worst value there, never a best one
    "nan": ("method,dataset,run,model,r2_test,property\nX,d1,0,x1,nan,1\nX,d2,0,x1,0.5,0.5\n",
            {"accuracy__d1": -FAILED_VALUE, "property__d1": 1.0, "datasets_ok": 1.0},
            "missing value"),
    # an empty file: nothing can be scored; every column failed
    "empty": ("", {"accuracy__d1": -FAILED_VALUE, "datasets_ok": 0.0}, "file"),
    # two methods in one submission
    "two methods": ("method,dataset,run,model,r2_test,property\nX,d1,0,x1,0.9,1\nY,d2,0,x1,0.5,0.5\n",
                    {"accuracy__d1": -FAILED_VALUE, "datasets_ok": 0.0}, "a submission is one method"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_submissions_score_as_failed(bundle, tmp_path, case):
    text, expected, shown = HOSTILE[case]
    # the attack runs as the worker runs it (the real command); the other cases need only the scores
    code, stderr, output = run_like_worker(bundle, {"results.csv": text}, tmp_path, in_process=case != "unparsable")
    assert code == 0, stderr
    assert "Traceback" not in stderr
    scores = check_output(bundle, output)
    assert {k: scores[k] for k in expected} == expected
    html = (output / "detailed_results.html").read_text()
    assert shown in html
    assert "PWNED" not in stderr


def test_a_submission_without_results_csv_is_failed_and_says_why(bundle, tmp_path):
    code, stderr, output = run_like_worker(bundle, {"predictions.txt": "1\n2\n"}, tmp_path, in_process=True)
    assert code == 0, stderr
    scores = check_output(bundle, output)
    assert scores["datasets_ok"] == 0.0 and scores["property__d2"] == -FAILED_VALUE
    assert "must hold a file named &#x27;results.csv&#x27;" in (output / "detailed_results.html").read_text() \
        or "must hold a file named &#39;results.csv&#39;" in (output / "detailed_results.html").read_text()


def test_html_in_a_method_name_is_shown_as_text(bundle, tmp_path):
    text = "method,dataset,run,model,r2_test,property\n<script>x</script>,d1,0,x1,0.9,1\n"
    code, stderr, output = run_like_worker(bundle, {"results.csv": text}, tmp_path, in_process=True)
    html = (output / "detailed_results.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_the_program_says_so_when_srdash_is_missing(bundle, tmp_path):
    program = tmp_path / "program"
    with zipfile.ZipFile(bundle) as archive:
        program.mkdir()
        (program / "score.py").write_bytes(archive.read("scoring_program/score.py"))
    # -I: isolated mode, neither PYTHONPATH nor the venv's srdash... the venv has srdash installed, so hide it by
    # running with a site-less interpreter (-S) and an empty path.
    done = subprocess.run([sys.executable, "-I", "-S", str(program / "score.py"), str(tmp_path / "in"),
                           str(tmp_path / "out")], cwd=program, capture_output=True, text=True)
    assert done.returncode == 1
    assert "srdash is not installed in this image" in done.stderr
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------------------------- prediction-file competitions

def prediction_bundle(folder: Path) -> tuple[Path, dict]:
    from srdash.codabench.predictions import write_prediction_bundle
    from srdash.demo.predictions import write_demo_predictions

    options = write_demo_predictions(folder / "demo", samples=40)
    path = write_prediction_bundle(folder / "predictions.zip", targets_preliminary=options["targets_preliminary"],
                                   targets_final=options["targets_final"], metrics=options["metrics"],
                                   sample=folder / "demo" / "submissions" / "forest-1.txt",
                                   start=datetime.date(2027, 1, 1))
    return path, options


@pytest.fixture(scope="module")
def predictions(tmp_path_factory):
    return prediction_bundle(tmp_path_factory.mktemp("predictions"))


@pytest.mark.parametrize("phase, subset", [(0, "preliminary"), (1, "final")])
def test_a_predictions_file_scores_what_srdash_predictions_score_says(predictions, tmp_path, phase, subset):
    import pandas as pd

    from srdash.io.predictions import read_targets
    from srdash.judging.predictions import score_submissions

    bundle, options = predictions
    sample = Path(options["targets_final"]).parent / "submissions" / "forest-1.txt"
    # the final phase through the real command, the preliminary one in process (the scores are the claim)
    code, stderr, output = run_like_worker(bundle, {"predictions.txt": sample.read_text()}, tmp_path, phase=phase,
                                           in_process=subset == "preliminary")
    assert code == 0, stderr
    scores = check_output(bundle, output)
    direct = score_submissions(pd.DataFrame({"team": ["forest"], "file": [str(sample)]}),
                               read_targets(options["targets_preliminary"], options["targets_final"]),
                               metric="rmse", extra_metrics=["mae"]).submissions.iloc[0]
    assert scores == {"rmse": direct[f"rmse_{subset}"], "mae": direct[f"mae_{subset}"]}
    assert (output / "predictions.txt").read_bytes() == sample.read_bytes()


def test_a_refused_predictions_file_scores_the_worst_value_and_says_where(predictions, tmp_path):
    bundle, options = predictions
    lines = (Path(options["targets_final"]).parent / "submissions" / "forest-1.txt").read_text().splitlines()
    lines[4] = "n/a"
    code, stderr, output = run_like_worker(bundle, {"predictions.txt": "\n".join(lines) + "\n"}, tmp_path, in_process=True)
    assert code == 0, stderr
    # rmse and mae are lower-is-better: the worst value is +1e9
    assert check_output(bundle, output) == {"rmse": FAILED_VALUE, "mae": FAILED_VALUE}
    html = (output / "detailed_results.html").read_text()
    assert "row 5: &#x27;n/a&#x27; is not a number" in html and "failed" in html
    assert not (output / "predictions.txt").exists()


def test_a_scoring_image_with_another_srdash_says_so(bundle, tmp_path):
    import json as _json

    copy = tmp_path / "old.zip"
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(copy, "w") as out:
        for name in source.namelist():
            data = source.read(name)
            if name == "reference_data/srdash.json":
                data = _json.dumps({**_json.loads(data), "srdash_version": "0.0.1"}).encode()
            out.writestr(name, data)
    code, stderr, output = run_like_worker(copy, {"results.csv": sample_submission(bundle).decode()}, tmp_path / "r", in_process=True)
    assert code == 0 and "The bundle was written by srdash 0.0.1; this image runs srdash" in stderr
    assert check_output(copy, output)["accuracy__d1"] == 0.905  # still scored


def test_broken_reference_data_stops_with_a_message_and_no_scores(bundle, tmp_path):
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(broken, "w") as out:
        for name in source.namelist():
            out.writestr(name, b"{not json" if name == "reference_data/srdash.json" else source.read(name))
    code, stderr, output = run_like_worker(broken, {"results.csv": sample_submission(bundle).decode()}, tmp_path, in_process=True)
    assert code == 1
    assert "srdash could not score this submission: The reference data has no readable srdash.json" in stderr
    assert "Traceback" not in stderr and not (output / "scores.json").exists()


def test_with_the_data_in_the_reference_a_claimed_accuracy_is_replaced_by_srdash_s(tmp_path):
    from srdash.demo.competition import cached_demo
    from srdash.io.loading import load_results

    paths = cached_demo()
    bundle = write_bundle(load_competition(paths["competition"]), tmp_path / "demo.zip",
                          start=datetime.date(2027, 1, 1))
    row = load_results(paths["results"]).table.query("method == 'LinearRegression' and dataset == 'noise_base'"
                                                     " and run == 0").iloc[0]
    text = f"method,dataset,run,model,r2_test,property\nLiar,noise_base,0,{row['model']},0.999,0.999\n"
    code, stderr, output = run_like_worker(bundle, {"results.csv": text}, tmp_path / "run", in_process=True)
    assert code == 0, stderr
    scores = check_output(bundle, output)
    # The demo's own r2_test of this model (computed by the demo generator on the test split), rounded to 3
    # decimals as srbench2022 does; the property of a noise dataset is its test R2 too.
    assert scores["accuracy__noise_base"] == round(row["r2_test"], 3) == 0.294
    assert scores["property__noise_base"] == 0.294
    assert scores["datasets_ok"] == 1.0 and scores["accuracy__noise_easy"] == -FAILED_VALUE  # the others: DNF
