"""`srdash init` writes a competition file that `srdash score` accepts, on the shapes organisers have:
SRBench's black-box results (no property: rules that say so), SRBench 2023 (models, dataset files, a
published table: descriptions drafted, the preset that reproduces the table chosen), SRBench 2025's
per-run table; or it exits non-zero saying what to add."""

import gzip
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))


def _init(folder: Path, *extra: str):
    return CliRunner().invoke(main, ["init", str(folder), *extra])


def _score(folder: Path):
    outcome = CliRunner().invoke(main, ["score", str(folder / "competition.toml"), "--jobs", "1",
                                        "-o", str(folder / "board.csv")])
    board = pd.read_csv(folder / "board.csv") if (folder / "board.csv").exists() else None
    return outcome, board


# -- SRBench black-box shape: algorithm, dataset, r2_test, model_size; no property -----------------------

def _blackbox_folder(folder: Path) -> Path:
    folder.mkdir()
    rows = [("A", "d1", 0.9, 5), ("B", "d1", 0.8, 25), ("C", "d1", 0.7, 1),
            ("A", "d2", 0.9, 5), ("B", "d2", 0.8, 25)]              # C has no result on d2: a DNF
    pd.DataFrame(rows, columns=["algorithm", "dataset", "r2_test", "model_size"]).assign(
        rmse_test=0.1, **{"training time (s)": 10.0}).to_csv(folder / "blackbox_results.csv", index=False)
    # SRBench's ground-truth table (per noise level, no model or size) and its Pareto table: not results
    pd.DataFrame({"algorithm": ["A"], "dataset": ["feynman_I_6_2"], "target_noise": [0.0],
                  "accuracy_solution": [1.0]}).to_csv(folder / "groundtruth.csv", index=False)
    pd.DataFrame({"algorithm": ["A"], "r2_test": [0.9], "model_size": [5], "g1": [0]}).to_csv(
        folder / "pareto_published.csv", index=False)
    return folder


def test_init_on_blackbox_results_drafts_rules_without_property_and_score_accepts_them(tmp_path):
    folder = _blackbox_folder(tmp_path / "bb")
    outcome = _init(folder)
    assert outcome.exit_code == 0, outcome.output
    text = (folder / "competition.toml").read_text()
    assert 'results = "blackbox_results.csv"' in text
    assert 'rules = "rules.toml"' in text and "without its property criterion" in text
    assert "groundtruth.csv has method and dataset columns but no model or model size" in outcome.output
    rules = (folder / "rules.toml").read_text()
    assert 'name = "srbench2022-no-property"' in rules and 'column = "property"' not in rules
    scored, board = _score(folder)
    assert scored.exit_code == 0, scored.output
    # srbench2022 without property: accuracy (r2, 3 decimals) and simplicity round(-log5(size), 1), ranks K = 3 best
    # d1: acc A 3, B 2, C 1; simplicity A -1 (2), B -2 (1), C 0 (3) -> hmean A 2.4, B 4/3, C 1.5
    # d2: C DNF, the worst value (rank 1); acc A 3, B 2; simplicity A 3, B 2 -> A 3, B 2, C 1
    # mean: A (2.4 + 3)/2 = 2.7, B (4/3 + 2)/2 = 5/3, C (1.5 + 1)/2 = 1.25
    assert board.set_index("method")["score"].to_dict() == pytest.approx({"A": 2.7, "B": 5 / 3, "C": 1.25})
    # one definition of 'datasets': those with a result of the method; the DNF counted apart
    assert board.set_index("method").loc["C", ["datasets", "dnf"]].tolist() == [1, 1]
    assert "2 datasets judged; in the leaderboard 'datasets' counts those where the method has a result" \
        in scored.output


@pytest.mark.realdata
def test_init_on_srbench_blackbox_realdata(tmp_path):
    source = REALDATA / "srbench_results"
    if not source.is_dir():
        pytest.skip(f"real data absent: {source}")
    folder = tmp_path / "srbench_results"
    shutil.copytree(source, folder)
    outcome = _init(folder)
    assert outcome.exit_code == 0, outcome.output
    assert 'results = "blackbox_results.csv"' in (folder / "competition.toml").read_text()
    scored, board = _score(folder)
    assert scored.exit_code == 0, scored.output
    assert len(board) == 21   # 21 methods on 122 datasets; *AIFeynman has no result on 15
    assert board.set_index("method").loc["*AIFeynman", ["datasets", "dnf"]].tolist() == [107, 15]
    assert "122 datasets judged" in scored.output


# -- SRBench 2023 shape: team, dataset, model; one data file per dataset; the published table -------------

def _data(folder: Path) -> pd.DataFrame:
    # y = x0 + x1 exactly; mean(y) = 2.2, total sum of squares 10.8
    return pd.DataFrame({"x0": [0.0, 1, 2, 3, 4], "x1": [0.0, 0, 1, 0, 0], "y": [0.0, 1, 3, 3, 4]})


def _srbench2023_folder(folder: Path) -> Path:
    folder.mkdir()
    data = _data(folder)
    data.to_csv(folder / "dataset_1.csv", index=False)
    with gzip.open(folder / "dataset_2.csv.gz", "wt") as handle:
        data.to_csv(handle, index=False)
    models = {"a": "x0", "b": "x1", "c": "x0 + x1"}
    pd.DataFrame([(team, f"dataset_{i}", model) for i in (1, 2) for team, model in models.items()],
                 columns=["team", "dataset", "model"]).to_csv(folder / "track1_models.csv", index=False)
    # R2: c 1; a 1 - 1/10.8; b 1 - 30/10.8 < 0 -> accuracy points c 3, a 2, b 1 on each dataset
    # size (tree nodes): a 1, b 1, c 3 (Add(x0, x1)) -> a and b tied best
    #   as run (dense): a 3, b 3, c 2;  the guide's words (ties use up places): a 3, b 3, c 1
    # harmonic mean of the four points: as run a 2/(1/2 + 1/3) = 2.4, b 2/(1 + 1/3) = 1.5, c 2/(1/3 + 1/2) = 2.4
    #                                   guide  a 2.4, b 1.5, c 2/(1/3 + 1) = 1.5
    (folder / "published_track1.csv").write_text(
        "track,place,team,method,score\n"
        "track1,1,a,Method A,2.400000\ntrack1,1,c,Method C,2.400000\ntrack1,3,b,Method B,1.500000\n")
    return folder


def test_init_on_srbench2023_shape_drafts_descriptions_and_the_preset_that_reproduces_the_table(tmp_path):
    folder = _srbench2023_folder(tmp_path / "s23")
    outcome = _init(folder)
    assert outcome.exit_code == 0, outcome.output
    text = (folder / "competition.toml").read_text()
    assert 'results = "track1_models.csv"' in text            # the published table is not a results file
    assert 'descriptions = "datasets.yaml"' in text
    assert 'rules = "srbench2023-track1-as-run"   # reproduces published_track1.csv' in text
    # the published scores have 6 decimals: tolerance half a unit of the 6th
    assert ("# audit it: srdash audit competition.toml --published published_track1.csv --tolerance 5e-07 "
            "(with published_track1.csv's 'team' column as 'method')") in text
    assert "published_track1.csv is a published leaderboard (track, place, team, method, score)" in outcome.output
    # the guide's reading, tried too, and how far it lies: a 2.4, b 1.5, c 1.5 places a 1, b 2, c 2, so c
    # lies 0.9 below its published 2.4 and is placed 2 (not 1), b is placed 2 (not 3)
    assert ("preset srbench2023-track1 against published_track1.csv: 2 of 3 methods differ: scores up to 0.9 "
            "apart, 2 place(s) differ.") in outcome.output
    assert "preset srbench2022 against published_track1.csv: not tried: nothing supplies 'property'" in outcome.output
    descriptions = (folder / "datasets.yaml").read_text()
    assert '- {name: "dataset_1", target: "y", files: {test: "dataset_1.csv"}}' in descriptions
    assert '- {name: "dataset_2", target: "y", files: {test: "dataset_2.csv.gz"}}' in descriptions
    scored, board = _score(folder)
    assert scored.exit_code == 0, scored.output
    published = pd.read_csv(folder / "published_track1.csv").set_index("team")
    mine = board.set_index("method")
    assert mine["score"].round(6).to_dict() == published["score"].to_dict()
    assert mine["place"].to_dict() == published["place"].to_dict()


@pytest.mark.realdata
def test_init_on_srbench2023_realdata_reproduces_the_published_table(tmp_path):
    source = REALDATA / "srbench2023"
    if not source.is_dir():
        pytest.skip(f"real data absent: {source}")
    folder = tmp_path / "srbench2023"
    shutil.copytree(source, folder)
    outcome = _init(folder)
    assert outcome.exit_code == 0, outcome.output
    assert 'rules = "srbench2023-track1-as-run"   # reproduces' in (folder / "competition.toml").read_text()
    scored, board = _score(folder)
    assert scored.exit_code == 0, scored.output
    published = pd.read_csv(folder / "published_track1.csv")
    assert board["method"].tolist() == published["team"].tolist()
    assert board["score"].round(6).tolist() == published["score"].tolist()
    assert board["place"].tolist() == published["place"].tolist()


# -- what cannot be judged yet: exit non-zero, saying what to add ------------------------------------------

def test_init_flags_a_method_name_that_looks_like_a_typo(tmp_path):
    folder = _blackbox_folder(tmp_path / "bb")
    table = pd.read_csv(folder / "blackbox_results.csv")
    table.loc[(table["algorithm"] == "B") & (table["dataset"] == "d2"), "algorithm"] = "b"   # B on d1, b on d2
    table.to_csv(folder / "blackbox_results.csv", index=False)
    outcome = _init(folder)
    assert outcome.exit_code == 0, outcome.output
    assert ("Warning: Method 'B' (1 dataset) looks like 'b' (1 dataset) and the two never share a dataset"
            in outcome.output)


def test_init_says_what_to_add_when_the_results_cannot_be_judged(tmp_path):
    folder = tmp_path / "noacc"
    folder.mkdir()
    # a model size but no accuracy at all, and no data to measure one on
    pd.DataFrame({"algorithm": ["A", "B"], "dataset": "d1", "model_size": [3, 5], "r2": [0.5, 0.6]}).to_csv(
        folder / "results.csv", index=False)
    outcome = _init(folder)
    assert outcome.exit_code == 2
    assert "competition.toml cannot be judged yet: Criterion 'accuracy' of the rules 'srbench2022-no-property' " \
           "has no data: the column 'r2_test' is missing." in outcome.output
    assert "Did you mean 'r2'?" in outcome.output and "Add what is missing" in outcome.output


def test_init_without_results_writes_nothing(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    _data(folder).to_csv(folder / "dataset_1.csv", index=False)
    outcome = _init(folder)
    assert outcome.exit_code == 2 and "Error: no results in" in outcome.output
    assert not (folder / "competition.toml").exists()


def test_init_does_not_overwrite_a_drafted_file(tmp_path):
    folder = _blackbox_folder(tmp_path / "bb")
    (folder / "rules.toml").write_text("# mine\n")
    outcome = _init(folder)
    assert outcome.exit_code == 2 and "rules.toml exists; use --force to overwrite it." in outcome.output
    assert (folder / "rules.toml").read_text() == "# mine\n" and not (folder / "competition.toml").exists()
    assert _init(folder, "--force").exit_code == 0
    assert 'name = "srbench2022-no-property"' in (folder / "rules.toml").read_text()


# -- SRBench 2025's per-run table (eco2AI columns), with SRBench's model_size = -1 -------------------------

SRBENCH2025_COLUMNS = ["algorithm", "dataset", "random_state", "r2_train", "r2_test", "mse_train", "mse_test",
                       "mae_train", "mae_test", "model", "model_size", "training time (s)", "duration(s)",
                       "power_consumption(kWh)", "CO2_emissions(kg)", "CPU_name"]


def _srbench2025_folder(folder: Path) -> Path:
    folder.mkdir()
    models = {"A": ("x1 + 1", 3, 0.9), "B": ("x1*x2 + 0.5", 5, 0.95), "C": ("x1", 1, 0.5)}
    rows = []
    for dataset in ("d1", "d2"):
        for method, (model, size, r2) in models.items():
            for run in range(30):                                  # the srbench2025 rules expect 30 runs
                rows.append([method, dataset, run, r2, r2, 0.1, 0.1, 0.1, 0.1, model, size, 1.0, 1.0, 0.001,
                             0.0004, "cpu"])
    table = pd.DataFrame(rows, columns=SRBENCH2025_COLUMNS)
    # one run's model sympy could not read: SRBench wrote model_size = -1
    failed = (table["algorithm"] == "C") & (table["dataset"] == "d2") & (table["random_state"] == 0)
    table.loc[failed, ["model", "model_size"]] = ["x1 +", -1]
    table.to_csv(folder / "results.csv", index=False)
    pd.DataFrame({"dataset": ["d1", "d2"], "features": ["x1 x2", "x1 x2"]}).to_csv(folder / "datasets.csv",
                                                                                  index=False)
    return folder


def test_init_on_srbench2025_per_run_table_and_model_size_minus_one(tmp_path):
    folder = _srbench2025_folder(tmp_path / "s25")
    outcome = _init(folder)
    assert outcome.exit_code == 0, outcome.output
    text = (folder / "competition.toml").read_text()
    assert 'rules = "srbench2025"' in text and 'datasets = "datasets.csv"' in text
    # row 151: d1's 3 x 30 runs, then d2's A and B (60 rows), then C's run 0
    with pytest.warns(UserWarning, match=r"results\.csv, column 'model_size': -1 in row 151, SRBench's mark of a "
                                         r"size sympy could not count, is read as unknown"):
        from srdash.judging.competition import load_competition
        from srdash.judging.pipeline import judge_competition

        result = judge_competition(load_competition(folder / "competition.toml"))
    # per dataset (K = 3, higher rank better): accuracy B 3, A 2, C 1; size (tree nodes, lower better)
    # C 1 node -> 3, A 3 -> 2, B 5 -> 1; harmonic mean A 2/(1/2 + 1/2) = 2, B 2/(1/3 + 1) = 1.5, C 2/(1 + 1/3) = 1.5.
    # C's unreadable run on d2 counts as the worst size, 1 of its 30: the median stays 1 node
    board = result.verdict.leaderboard.set_index("method")
    assert board["score"].to_dict() == pytest.approx({"A": 2.0, "B": 1.5, "C": 1.5})
    problems = result.problems
    failed = problems[(problems["method"] == "C") & (problems["dataset"] == "d2")]
    assert failed["run"].tolist() == [0] and failed["kind"].iloc[0] in {"parse_error", "rejected"}
    scored, _ = _score(folder)
    assert scored.exit_code == 0, scored.output


# -- a prediction competition: not a competition file; init says which command judges it ------------------

def test_init_on_a_prediction_folder_says_which_command_judges_it(tmp_path, monkeypatch):
    folder = tmp_path / "regression"
    shutil.copytree(Path(__file__).parent / "data" / "predictions" / "regression", folder)
    outcome = _init(folder)
    assert outcome.exit_code == 2 and not (folder / "competition.toml").exists()
    command = "srdash predictions score submissions.csv --targets-csv targets.csv --metric rmse -o board.csv"
    assert "holds a prediction competition (targets and files of predictions)" in outcome.output
    assert f"Judge it with (from that folder; choose the metric: rmse, mae, r2 or accuracy):\n  {command}" \
        in outcome.output
    monkeypatch.chdir(folder)   # the command it gives runs as given
    judged = CliRunner().invoke(main, command.split()[1:])
    assert judged.exit_code == 0, judged.output
    assert pd.read_csv(folder / "board.csv")["team"].nunique() == 4


def test_init_output_elsewhere_names_the_files_relative_to_it(tmp_path):
    folder = _blackbox_folder(tmp_path / "bb")
    target = tmp_path / "elsewhere" / "competition.toml"
    target.parent.mkdir()
    outcome = _init(folder, "-o", str(target))
    assert outcome.exit_code == 0, outcome.output
    text = target.read_text()
    assert 'results = "../bb/blackbox_results.csv"' in text and 'rules = "../bb/rules.toml"' in text
    assert 'title = "bb"' in text
    scored = CliRunner().invoke(main, ["score", str(target), "--jobs", "1"])
    assert scored.exit_code == 0, scored.output
