"""`srdash analyse compare RESULTS --metric ...`, end to end through click's CliRunner."""

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main


@pytest.fixture()
def results(tmp_path):
    # 4 datasets x 2 seeds; on every run a > b > c (a ~0.9, b ~0.6, c ~0.45)
    rows = []
    for i in range(4):
        for seed in (0, 1):
            for method, base in (("a", 0.9), ("b", 0.6), ("c", 0.45)):
                rows.append({"algorithm": method, "dataset": f"d{i}", "random_state": seed,
                             "r2_test": base - 0.01 * i - 0.005 * seed})
    path = tmp_path / "results.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def run(*args):
    return CliRunner().invoke(main, ["analyse", *map(str, args)])


def test_compare_writes_the_tables_and_the_summary(results, tmp_path):
    out = tmp_path / "cmp.csv"
    outcome = run("compare", results, "--metric", "r2_test", "--unit", "dataset-seed", "--posthoc", "nemenyi",
                  "-o", out)
    assert outcome.exit_code == 0, outcome.output
    pairs = pd.read_csv(out)
    assert {"p_adjusted", "significant", "cliffs_delta", "cliffs_magnitude", "cohens_d"} <= set(pairs.columns)
    omnibus = pd.read_csv(tmp_path / "cmp.omnibus.csv").set_index("test")
    # 8 (dataset, seed) blocks, each ranking a > b > c: chi2 = 12/(8*3*4) * (24^2+16^2+8^2) - 3*8*4 = 16
    assert omnibus.loc["Friedman", "blocks"] == 8
    assert omnibus.loc["Friedman", "statistic"] == pytest.approx(16.0)
    ranks = pd.read_csv(tmp_path / "cmp.mean_ranks.csv")
    assert ranks["method"].tolist() == ["a", "b", "c"]
    summary = (tmp_path / "cmp.summary.txt").read_text()
    assert "over 8 (dataset, seed) pairs" in summary and "Nemenyi post-hoc test" in summary
    # CD(k=3, N=8) = 2.343 * sqrt(12/48) = 1.1715: a-c (2) differs, a-b and b-c (1) do not
    assert "a is significantly better than c" in summary
    assert "Critical-difference groups: {a, b}; {b, c}" in summary


def test_compare_prints_without_output_and_names_bonferroni(results):
    outcome = run("compare", results, "--correction", "bonferroni")
    assert outcome.exit_code == 0, outcome.output
    assert "Wilcoxon signed-rank test per pair, Bonferroni-corrected" in outcome.output
    assert "over 4 datasets" in outcome.output and "Pairs:" in outcome.output


def test_pairwise_takes_unit_and_correction(results, tmp_path):
    outcome = run("pairwise", results, "--unit", "dataset-seed", "--correction", "bonferroni", "-o", tmp_path / "p.csv")
    assert outcome.exit_code == 0, outcome.output
    assert "over (dataset, seed) blocks, Bonferroni-corrected over 3 pairs" in outcome.output
    # 8 runs all a > b: exact p = 2 / 2^8 = 0.0078125, Bonferroni * 3
    pairs = pd.read_csv(tmp_path / "p.csv").set_index(["method_a", "method_b"])
    assert pairs.loc[("a", "b"), "p_adjusted"] == pytest.approx(3 * 2 / 2 ** 8)
    assert pairs.loc[("a", "b"), "datasets"] == 8


def test_compare_refuses_to_write_onto_its_input(results, tmp_path):
    outcome = run("compare", results, "-o", results)
    assert outcome.exit_code == 2 and "is the input" in outcome.output
    # -o r.csv would write its summary to r.summary.txt: refused when that is the input
    sidecar_input = tmp_path / "r.summary.txt"
    sidecar_input.write_bytes(results.read_bytes())
    outcome = run("compare", sidecar_input, "-o", tmp_path / "r.csv")
    assert outcome.exit_code == 2 and "r.summary.txt' is the input" in outcome.output
    assert sidecar_input.read_bytes() == results.read_bytes()


def test_compare_clean_errors(results, tmp_path):
    outcome = run("compare", results, "--metric", "mse_test")
    assert outcome.exit_code == 1 and "the column 'mse_test' is missing" in outcome.output
    two = pd.read_csv(results).query("algorithm != 'c'")
    path = tmp_path / "two.csv"
    two.to_csv(path, index=False)
    outcome = run("compare", path)
    assert outcome.exit_code == 1 and "A comparison needs at least three methods. Got 2." in outcome.output


def test_compare_split_by_friedman_datasets(tmp_path):
    # 3 Friedman datasets where a > b > c, 3 others where c > b > a. friedman_dataset is derived from
    # the names ('_fri_'). Per group every block ranks alike: chi2 = 12/(3*3*4) (9^2+6^2+3^2) - 3*3*4 = 6.
    rows = []
    for i in range(3):
        for name, values in ((f"60{i}_fri_c0_100_5", (0.9, 0.6, 0.3)), (f"10{i}_other", (0.3, 0.6, 0.9))):
            rows += [{"algorithm": m, "dataset": name, "r2_test": v} for m, v in zip("abc", values)]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    out = tmp_path / "cmp.csv"
    outcome = run("compare", path, "--split", "friedman_dataset", "--posthoc", "nemenyi", "-o", out)
    assert outcome.exit_code == 0, outcome.output
    ranks = pd.read_csv(tmp_path / "cmp.mean_ranks.csv")
    assert ranks.columns[0] == "friedman_dataset"
    best = ranks.groupby("friedman_dataset")["method"].first().to_dict()
    assert best == {False: "c", True: "a"}
    omnibus = pd.read_csv(tmp_path / "cmp.omnibus.csv").query("test == 'Friedman'")
    assert omnibus["statistic"].tolist() == pytest.approx([6.0, 6.0])
    summary = (tmp_path / "cmp.summary.txt").read_text()
    assert "friedman_dataset = False: 3 methods were compared" in summary
    assert "friedman_dataset = True: 3 methods were compared" in summary


def test_compare_split_errors(results, tmp_path):
    outcome = run("compare", results, "--split", "noise")
    assert outcome.exit_code == 1 and "the column 'noise' is missing" in outcome.output
    table = pd.read_csv(results)
    table["group"] = range(len(table))  # not constant within a dataset
    path = tmp_path / "g.csv"
    table.to_csv(path, index=False)
    outcome = run("compare", path, "--split", "group")
    assert outcome.exit_code == 1 and "The column 'group' must hold one value per dataset" in outcome.output
