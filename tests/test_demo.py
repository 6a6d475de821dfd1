"""Tests of the demo competition (srdash.demo.competition) and the `srdash demo` command."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from click.testing import CliRunner

from srdash.demo.competition import DEMO_DATASETS, DEMO_METHODS, HOSTILE_MODEL, cached_demo, demo_competition, demo_folder, write_demo
from srdash.errors import SrdashError
from srdash.io.loading import Results, load_results


_HOSTILE_FILE = Path("/tmp/srdash-pwned")


@pytest.fixture(scope="module")
def demo() -> Results:
    return demo_competition(seed=0)


@pytest.fixture(scope="module")
def demo_seed_1() -> Results:
    """Seed 1's demo, for the tests of another seed and of ``srdash demo --seed 1`` (generated once)."""
    return demo_competition(seed=1)


@pytest.fixture(scope="module")
def writing(tmp_path_factory) -> dict:
    """The demo (seed 0) written once for the module, and whether the hostile model's marker file existed before."""
    existed = _HOSTILE_FILE.exists()
    return {"paths": write_demo(tmp_path_factory.mktemp("demo"), seed=0), "marker_existed": existed}


@pytest.fixture(scope="module")
def written(writing) -> dict:
    return writing["paths"]


@pytest.fixture(scope="module")
def another_process(tmp_path_factory) -> dict:
    """One fresh interpreter, with another hash seed, imports srdash and generates the demo (saying whether
    sympy was imported before and after), then writes it: two checks for the cost of one interpreter.

    It generates once: write_demo is handed the generation just made (generate_demo, what demo_competition
    returns the table of), instead of generating it again (2.7 CPU-s); writing it imports sympy (the
    descriptions are validated), so the check of sympy comes before."""
    folder = tmp_path_factory.mktemp("demo-another-process")
    code = ("import sys, srdash; before = 'sympy' in sys.modules\n"
            "import srdash.demo.competition, srdash.demo.folder, srdash.io.loading\n"
            "generated = srdash.demo.folder.generate_demo(0)\n"
            "print(before, 'sympy' in sys.modules)\n"
            "srdash.demo.folder.generate_demo = lambda seed: generated if seed == 0 else sys.exit('seed')\n"
            f"srdash.demo.competition.write_demo({str(folder)!r}, seed=0)\n")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": "123"}).stdout
    before, after = output.split()
    return {"folder": folder, "sympy_before": before, "sympy_after": after}


# --------------------------------------------------------------------------- determinism


def test_the_same_seed_gives_the_same_table_byte_for_byte(demo, written):
    # the module's write_demo generated seed 0 a second time in this process (its own generate_demo call): read
    # back, its table is this one to the last bit (floats are written with repr's 17 digits, which round-trip)
    again = load_results(written["results"], datasets=written["datasets"])
    pdt.assert_frame_equal(again.table, demo.table, check_exact=True)
    assert again.table.to_csv(index=False) == demo.table.to_csv(index=False)
    assert dict(again.features) == dict(demo.features)


def test_another_process_writes_the_same_bytes(written, another_process):
    # A fresh interpreter with another hash seed: no dependence on set order or state.
    tmp_path = another_process["folder"]
    for name, path in written.items():
        if name == "trust":  # SQLite records when each entry was made: the same entries, not the same bytes
            from srdash.judging.trust import TrustStore

            with TrustStore(path, read_only=True) as one, TrustStore(tmp_path / path.name, read_only=True) as two:
                assert one.entries().drop(columns="updated_at", errors="ignore").equals(
                    two.entries().drop(columns="updated_at", errors="ignore"))
            continue
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), name


def test_another_seed_gives_other_data_and_models_with_the_same_structure(demo, demo_seed_1):
    other = demo_seed_1.table
    assert not other["r2_test"].equals(demo.table["r2_test"])
    assert (other["model"] != demo.table["model"]).mean() > 0.5
    assert sorted(other["dataset"].unique()) == sorted(demo.table["dataset"].unique())
    assert sorted(other["method"].unique()) == sorted(demo.table["method"].unique())


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True])
def test_a_bad_seed_is_refused(seed):
    with pytest.raises(SrdashError, match=r"The 'seed' option must be a non-negative integer\. Got "):
        demo_competition(seed=seed)


# --------------------------------------------------------------------------- shape


def test_the_table_has_the_canonical_columns(demo):
    assert list(demo.table.columns) == ["method", "dataset", "run", "model", "r2_test", "property"]
    assert demo.table["r2_test"].dtype == np.float64 and demo.table["property"].dtype == np.float64
    assert demo.sources == ()
    # It is its own canonical form: loading it again changes nothing.
    pdt.assert_frame_equal(load_results(demo.table).table, demo.table)


def test_shape_of_the_competition(demo):
    table = demo.table
    assert table["dataset"].nunique() >= 8 and set(table["dataset"]) == set(DEMO_DATASETS)
    assert table["method"].nunique() >= 6 and set(table["method"]) == set(DEMO_METHODS)
    runs = table.groupby(["method", "dataset"]).size()
    assert runs.max() == 10
    assert (runs == 10).mean() >= 0.9
    assert 500 <= len(table) <= 700
    assert table["r2_test"].notna().all() and table["property"].notna().all()
    assert table["model"].notna().all()


def test_exactly_one_dnf_cell(demo):
    table = demo.table
    grid = pd.MultiIndex.from_product([DEMO_METHODS, DEMO_DATASETS], names=["method", "dataset"])
    present = pd.MultiIndex.from_frame(table[["method", "dataset"]].drop_duplicates())
    assert list(grid.difference(present)) == [("GreedyGP", "exact_formula_hard")]


def test_the_flaky_method_misses_some_runs(demo):
    runs = demo.table.query("method == 'GreedyGP'").groupby("dataset").size()
    assert (runs < 10).sum() == 3
    assert demo.table.query("method != 'GreedyGP'").groupby(["method", "dataset"]).size().eq(10).all()


def test_the_hostile_model_is_present_exactly_once(demo):
    hostile = demo.table[demo.table["model"] == HOSTILE_MODEL]
    assert len(hostile) == 1
    assert hostile[["method", "dataset"]].values.tolist() == [["GreedyGP", "exact_formula_easier"]]
    assert demo.table["model"].str.contains("__import__", regex=False).sum() == 1


def test_generating_the_demo_never_runs_the_hostile_model(writing):
    # the module's write_demo generates as demo_competition does (both are generate_demo), then writes
    assert writing["marker_existed"] or not _HOSTILE_FILE.exists()


def test_model_strings_are_many_and_realistically_duplicated(demo):
    table = demo.table
    assert 250 <= table["model"].nunique() < len(table)
    # Deterministic fits give the same string every run; bootstrapped ones differ;
    # the costly methods converge to one of three solutions per dataset.
    per_cell = table.groupby(["method", "dataset"])["model"].nunique()
    assert per_cell.xs("LinearRegression").eq(1).all()
    assert per_cell.xs("MeanBaseline").eq(1).all()
    assert per_cell.xs("PolyRidge").eq(3).all()
    assert per_cell.xs("ExactSR").eq(10).all()


def test_features_are_known_for_every_dataset(demo):
    assert set(demo.features) == set(DEMO_DATASETS)
    assert demo.features["exact_formula_easier"] == tuple(f"x{i}" for i in range(1, 11))
    assert demo.features["noise_base"] == ("x1",)
    assert demo.features["extrapolation_easy"] == ("x",)


def test_demo_does_not_import_sympy(another_process):
    # importing and running the demo added no sympy (in a fresh interpreter)
    assert another_process["sympy_after"] == another_process["sympy_before"]


# --------------------------------------------------------------------------- values


def test_linear_regression_r2_is_recomputed_independently(demo, written):
    from sklearn.linear_model import LinearRegression
    from sklearn.metrics import r2_score

    table = demo.table.query("method == 'LinearRegression'")
    for dataset in DEMO_DATASETS:
        train, test = pd.read_csv(written[f"{dataset}_train"]), pd.read_csv(written[f"{dataset}_test"])
        features = [c for c in train.columns if c != "y"]
        assert features == list(demo.features[dataset])
        fitted = LinearRegression().fit(train[features], train["y"])
        expected = r2_score(test["y"], fitted.predict(test[features]))
        values = table.loc[table["dataset"] == dataset, "r2_test"]
        assert len(values) == 10
        np.testing.assert_allclose(values, expected, rtol=1e-9, atol=1e-9, err_msg=dataset)


_FUNCTIONS = {"sin": np.sin, "cos": np.cos, "exp": np.exp, "tanh": np.tanh, "log": np.log}
_OPERATORS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide,
              ast.Pow: np.power}


def evaluate_model(text: str, data: pd.DataFrame) -> np.ndarray:
    """Evaluate a model string on data by walking its syntax tree (never ``eval``).

    Only numbers, the data's columns, + - * / ** and sin/cos/exp/tanh/log are
    allowed; anything else fails the test.
    """
    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name) and node.id in data.columns and node.id != "y":
            return data[node.id].to_numpy()
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
                and len(node.args) == 1 and not node.keywords):
            return _FUNCTIONS[node.func.id](walk(node.args[0]))
        raise AssertionError(f"unexpected syntax {ast.dump(node)} in {text!r}")

    return np.broadcast_to(walk(ast.parse(text, mode="eval")), (len(data),))


def test_every_r2_is_that_of_the_model_string_on_the_test_data(demo, written):
    from sklearn.metrics import r2_score

    tests = {d: pd.read_csv(written[f"{d}_test"]) for d in DEMO_DATASETS}
    checked = 0
    for row in demo.table.itertuples():
        if row.model == HOSTILE_MODEL:
            continue
        test = tests[row.dataset]
        expected = r2_score(test["y"], evaluate_model(row.model, test))
        assert row.r2_test == pytest.approx(expected, rel=1e-9, abs=1e-9), (row.method, row.dataset, row.run)
        checked += 1
    assert checked == len(demo.table) - 1


def test_the_exact_method_finds_the_noiseless_exact_formula(demo):
    runs = demo.table.query("method == 'ExactSR' and dataset == 'exact_formula_easier'")
    assert (runs["r2_test"] > 0.99).all()
    assert runs["property"].isin([0.0, 1.0]).all() and runs["property"].sum() >= 5
    assert runs["model"].str.contains("x1*x2", regex=False).all()


def test_the_constant_method_has_no_skill(demo):
    runs = demo.table.query("method == 'MeanBaseline'")
    assert (runs["r2_test"] <= 0.01).all()
    assert runs["model"].str.fullmatch(r"-?\d+(\.\d+)?(e[-+]\d+)?").all()


def test_properties_follow_the_dataset_kind(demo, written):
    table = demo.table.merge(pd.read_csv(written["datasets"])[["dataset", "kind"]], on="dataset")
    exact = table[table["kind"] == "exact_formula"]
    assert exact["property"].isin([0.0, 1.0]).all()
    selection = table[table["kind"] == "feature_selection"]
    assert selection["property"].between(0, 1).all()
    # LinearRegression uses every feature, so none of the 5 irrelevant ones is absent.
    assert (selection.loc[selection["method"] == "LinearRegression", "property"] == 0.0).all()
    scored_by_r2 = table[table["kind"].isin(["noise", "extrapolation"])]
    pdt.assert_series_equal(scored_by_r2["property"], scored_by_r2["r2_test"], check_names=False)


def test_noise_lowers_what_the_exact_method_can_reach(demo):
    medians = (demo.table.query("method == 'ExactSR' and dataset.str.startswith('noise_')")
               .groupby("dataset")["r2_test"].median())
    assert medians["noise_base"] > medians["noise_easy"] > medians["noise_medium"] > medians["noise_hard"]


# --------------------------------------------------------------------------- files


def test_write_demo_writes_every_file(written):
    assert list(written)[:4] == ["results", "datasets", "descriptions", "qualification"]
    # results, datasets, descriptions, qualification, two files per dataset, competition.toml, trust.sqlite
    assert len(written) == 4 + 2 * len(DEMO_DATASETS) + 2
    assert all(path.is_file() for path in written.values())
    from srdash.judging.competition import load_competition

    competition = load_competition(written["competition"])
    assert competition.results == (written["results"].resolve(),)
    assert competition.descriptions == written["descriptions"].resolve()
    assert competition.qualification.results == written["qualification"].resolve()
    datasets = pd.read_csv(written["datasets"])
    assert list(datasets.columns[:6]) == ["dataset", "features", "kind", "n_train", "n_test", "ground_truth"]
    easier = datasets.set_index("dataset").loc["exact_formula_easier"]
    assert easier["ground_truth"] == "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1"
    for row in datasets.itertuples():
        train, test = pd.read_csv(written[f"{row.dataset}_train"]), pd.read_csv(written[f"{row.dataset}_test"])
        assert list(train.columns) == row.features.split() + ["y"] == list(test.columns)
        assert (len(train), len(test)) == (row.n_train, row.n_test)


def test_written_results_load_back_to_the_same_competition(demo, written):
    loaded = load_results(written["results"], datasets=written["datasets"])
    pdt.assert_frame_equal(loaded.table, demo.table)
    assert dict(loaded.features) == dict(demo.features)


def test_write_demo_into_a_file_is_a_clear_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    # write_demo generates before it makes the folder: a generation that is never written costs 2.7 CPU-s here
    monkeypatch.setattr("srdash.demo.folder.generate_demo", lambda seed: (None, None, ()))
    with pytest.raises(SrdashError, match=r"Cannot write the demo competition to "):
        write_demo(blocker)


# --------------------------------------------------------------------------- command line


def test_demo_command_is_registered_in_the_srdash_group_and_writes_and_lists_the_files(tmp_path, demo_seed_1):
    from srdash.cli import main

    result = CliRunner().invoke(main, ["demo", "-o", str(tmp_path / "out"), "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "Wrote the demo competition (seed 1)" in result.output
    assert str(tmp_path / "out" / "results.csv") in result.output
    assert "srdash score" in result.output
    assert (tmp_path / "out" / "datasets.csv").is_file()
    written = pd.read_csv(tmp_path / "out" / "results.csv")
    expected = demo_seed_1.table
    assert len(written) == len(expected) and written["model"].tolist() == expected["model"].tolist()


def test_demo_help_explains_outputs_and_defaults():
    from srdash.cli import main

    result = CliRunner().invoke(main, ["demo", "--help"])
    assert result.exit_code == 0
    for text in ("results.csv", "datasets.csv", "_train.csv", "--seed", "default: 0", "required"):
        assert text in result.output


def test_demo_command_needs_an_output_folder():
    from srdash.cli.demo import demo as demo_command

    result = CliRunner().invoke(demo_command, [])
    assert result.exit_code == 2
    assert "Missing option '-o' / '--output'" in result.output


def test_demo_command_refuses_a_negative_seed(tmp_path):
    from srdash.cli.demo import demo as demo_command

    result = CliRunner().invoke(demo_command, ["-o", str(tmp_path), "--seed", "-1"])
    assert result.exit_code == 2
    assert "-1 is not in the range 0<=x<=4294967295" in result.output


# --------------------------------------------------------------------------- descriptions and qualification


def test_written_descriptions_describe_every_demo_dataset(written):
    from srdash.io.datasets import load_dataset_table

    table = load_dataset_table(written["descriptions"])  # validated: every truth parses, every file exists
    assert table.names == DEMO_DATASETS
    kinds = {spec.name: spec.property for spec in table}
    assert [kinds[d] for d in DEMO_DATASETS] == ["exact"] * 4 + ["feature_absence"] + ["noise"] * 4 + \
        ["extrapolation"]
    assert table["featureselection_easy"].irrelevant == ("x2", "x4", "x6", "x8", "x10")
    assert table.noise_groups()["noise"] == (("noise_base", 0.0), ("noise_easy", 0.05), ("noise_medium", 0.1),
                                             ("noise_hard", 0.15))
    assert table["extrapolation_easy"].truth == "erf(0.22*x) + 0.17*sin(5.5*x)"


def test_demo_ground_truths_fit_their_data(written):
    """Evaluated as models, the described truths reproduce the noiseless data (R2 = 1)."""
    from srdash.io.datasets import load_dataset_table
    from srdash.judging.evaluation import evaluate_runs

    table = load_dataset_table(written["descriptions"])
    runs = pd.DataFrame({"method": "truth", "dataset": list(table.names), "model": [s.truth for s in table]})
    metrics = evaluate_runs(runs, table).metrics.set_index("dataset")["r2"]
    for name in ("exact_formula_easier", "exact_formula_hard", "featureselection_easy", "noise_base"):
        assert metrics[name] == pytest.approx(1.0, abs=1e-9)
    # noise_hard: 15 % of the variance is noise, so R2 is about 0.85
    assert metrics["noise_hard"] == pytest.approx(0.85, abs=0.05)


def test_demo_qualification_excludes_the_constant_method(written):
    from srdash.judging.qualification import qualify

    stage = pd.read_csv(written["qualification"])
    assert stage.groupby("method").size().to_dict() == {m: 9 for m in DEMO_METHODS}  # 3 datasets x 3 runs
    qualification = qualify(stage)
    # MeanBaseline predicts the training mean (test R2 -0.005, -0.005, -0.011 on the three
    # datasets). LinearRegression's R2 is 0.205 and 0.184 on qualification_1 and _3 (6 losses for
    # the mean) but -0.028 on qualification_2, whose terms are even in each feature or a product
    # (a line explains none of it): 3 wins there. 3 wins < 6 losses: not qualified. The others
    # fit the nonlinear targets better than a line everywhere.
    assert qualification.not_qualified == ("MeanBaseline",)
    row = qualification.table.set_index("method").loc["MeanBaseline"]
    assert (row["wins"], row["ties"], row["losses"]) == (3, 0, 6)
    assert set(qualification.qualified) == set(DEMO_METHODS) - {"MeanBaseline", "LinearRegression"}


def test_cached_demo_is_written_once_per_version_and_seed(tmp_path, monkeypatch, written):
    first = cached_demo(cache_dir=tmp_path)
    folder = demo_folder(cache_dir=tmp_path)
    assert first["results"] == folder / "results.csv" and first["descriptions"].is_file()
    # the shipped files equal what the generator writes for seed 0 (the module's write_demo)
    assert pd.read_csv(first["results"]).equals(pd.read_csv(written["results"]))
    # The second call reads the manifest and writes nothing (write_demo would fail here).
    monkeypatch.setattr("srdash.demo.cached.write_demo", lambda *a, **k: pytest.fail("the demo was written again"))
    assert cached_demo(cache_dir=tmp_path) == first
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == [folder.name]  # no scratch
    assert (tmp_path / "complexity.sqlite").is_file()  # the demo's prepared results, seeded (srdash.demo.prepared)

