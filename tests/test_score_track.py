"""`srdash score --descriptions`: a synthetic track judged from raw model strings and data files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from click.testing import CliRunner

from srdash.cli import main
from srdash.io.datasets import write_property_datasets


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
    # the progress bar follows the work: simplifying, then checking the equivalences
    assert "simplifying models" in result.stderr and "scoring the datasets' properties: exact re-discovery" in result.stderr
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


# --------------------------------------------------------------------------- the qualification stage first


def _stage(tmp_path):
    # Head to head per (dataset, run), R2 rounded to 3 decimals (srdash.judging.qualification):
    #   Good : 0.90 > 0.50, 0.80 > 0.60 -> 2 wins, 0 losses -> qualified
    #   Flat : 0.00 < 0.50, 0.00 < 0.60 -> 0 wins, 2 losses -> not qualified (a constant model)
    pd.DataFrame({"method": ["LinearRegression", "LinearRegression", "Good", "Good", "Flat", "Flat"],
                  "dataset": ["q1", "q2"] * 3, "run": 0,
                  "r2_test": [0.50, 0.60, 0.90, 0.80, 0.00, 0.00]}).to_csv(tmp_path / "qualification.csv",
                                                                            index=False)
    # The track: components given, so nothing is simplified. Flat is the best on it, so
    # its exclusion changes the winner: without Flat, Good leads (higher r2 and simpler
    # than LinearRegression on both datasets).
    pd.DataFrame({
        "method": ["Good", "LinearRegression", "Flat"] * 2, "dataset": ["d1"] * 3 + ["d2"] * 3,
        "r2_test": [0.9, 0.7, 0.99, 0.8, 0.6, 0.99], "components": [5, 9, 1, 5, 9, 1],
        "property": 0.5,  # the same for all: srbench2022 ranks it, and it decides nothing here
    }).to_csv(tmp_path / "track.csv", index=False)


def test_score_runs_the_qualification_first_and_excludes_who_fails(tmp_path):
    _stage(tmp_path)
    result = CliRunner().invoke(main, ["score", str(tmp_path / "track.csv"), "--qualification",
                                       str(tmp_path / "qualification.csv"), "-o", str(tmp_path / "lb.csv")])
    assert result.exit_code == 0, result.output
    leaderboard = pd.read_csv(tmp_path / "lb.csv")
    assert leaderboard["method"].tolist() == ["Good", "LinearRegression"]
    # the verdicts and the rule are printed, the exclusion stated on stderr
    assert "not qualified" in result.stderr and "Rule: A method qualifies when" in result.stderr
    assert ("Warning: Excluded from the track (did not qualify against LinearRegression): Flat (2 runs left out). "
            "Qualification rule: A method qualifies when") in result.stderr
    provenance = json.loads((tmp_path / "lb.csv.provenance.json").read_text())
    assert provenance["qualification_excluded"] == "Flat"
    assert provenance["qualification_qualified"] == "Good"
    assert any(key.startswith("input_sha256:") and key.endswith("qualification.csv") for key in provenance)


def test_keep_unqualified_only_flags(tmp_path):
    _stage(tmp_path)
    result = CliRunner().invoke(main, ["score", str(tmp_path / "track.csv"), "--qualification",
                                       str(tmp_path / "qualification.csv"), "--keep-unqualified",
                                       "-o", str(tmp_path / "lb.csv")])
    assert result.exit_code == 0, result.output
    # Flat stays, and wins the track (simplest and most accurate on both datasets)
    assert pd.read_csv(tmp_path / "lb.csv")["method"].tolist()[0] == "Flat"
    assert "Did not qualify against LinearRegression but kept in the track: Flat." in result.stderr
    provenance = json.loads((tmp_path / "lb.csv.provenance.json").read_text())
    assert provenance["qualification_flagged"] == "Flat" and provenance["qualification_excluded"] == ""


def test_score_fits_the_qualification_baseline_from_the_data(tmp_path):
    """A constant model loses to the LinearRegression that srdash fits; the exact line ties it."""
    _stage(tmp_path)
    data = tmp_path / "qdata"
    data.mkdir()
    a = np.linspace(-3, 3, 40)
    pd.DataFrame({"a": a, "b": np.cos(a), "target": 2 * a + np.cos(a) ** 2}).to_csv(data / "q1.csv", index=False)
    # LinearRegression on (a, b) misses the square: R2 = 0.974 and 0.985 on the seeds' test
    # splits (measured). "Good" has the exact formula (R2 = 1.000, a win on both seeds); "Flat"
    # predicts a constant (R2 = -inf, the worst value: a loss on both).
    pd.DataFrame({"method": ["Good", "Good", "Flat", "Flat"], "dataset": "q1", "run": [0, 1, 0, 1],
                  "model": ["2*a + b**2"] * 2 + ["0.5"] * 2}).to_csv(tmp_path / "qmodels.csv", index=False)
    result = CliRunner().invoke(main, ["score", str(tmp_path / "track.csv"), "--qualification",
                                       str(tmp_path / "qmodels.csv"), "--qualification-data", str(data)])
    assert result.exit_code == 0, result.output
    assert "Excluded from the track (did not qualify against LinearRegression): Flat (2 runs left out)." in result.stderr
    assert "Flat" not in result.stdout and "Good" in result.stdout
    verdicts = {line.split()[0]: line for line in result.stderr.splitlines() if line.split()[:1] in (["Good"], ["Flat"])}
    assert verdicts["Good"].split()[3:6] == ["2", "0", "0"] and verdicts["Good"].endswith(" qualified")
    assert verdicts["Flat"].split()[3:6] == ["0", "0", "2"] and verdicts["Flat"].endswith("not qualified")


def test_qualification_options_are_checked(tmp_path):
    _stage(tmp_path)
    result = CliRunner().invoke(main, ["score", str(tmp_path / "track.csv"), "--keep-unqualified"])
    assert result.exit_code == 2
    assert "--qualification-data and --keep-unqualified need --qualification" in result.output


def test_a_rejected_model_is_listed_once_among_the_track_problems(tmp_path):
    from srdash.judging.evaluation import evaluate_runs

    table = write_property_datasets(tmp_path, seed=0)
    hostile = "__import__('os').system('true')"
    runs = pd.DataFrame({"method": ["a", "b"], "dataset": "exact_easy", "run": 0, "model": [hostile, hostile],
                         "status": ["rejected", "ok"]})
    problems = evaluate_runs(runs, table).problems
    # a's model was refused by prepare_runs (status 'rejected'): the verdict lists it, the
    # evaluation does not list it again. b's status does not say so: its refusal is listed.
    assert problems[["kind", "method"]].values.tolist() == [["rejected", "b"]]
    # without prepare_runs' status, every refusal is the evaluation's to list
    assert len(evaluate_runs(runs.drop(columns="status"), table).problems) == 2
