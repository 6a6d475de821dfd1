"""Performance profiles as SRBench 2025 reports them (srdash.analysis.profiles): the linear AUC beside
the exact one, AUC per seed with median / min / max, the per-dataset AUC table. Hand-derived."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from srdash.analysis.profiles import performance_profiles

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench_results"


def golden() -> pd.DataFrame:
    # 2 datasets x 2 seeds. a: d1 (seed 0) 0.2, d1 (1) 0.6, d2 (0) 1.0, d2 (1) -0.5; b: d1 (0) 0.9 only.
    return pd.DataFrame({"method": ["a"] * 4 + ["b"], "dataset": ["d1", "d1", "d2", "d2", "d1"],
                         "random_state": [0, 1, 0, 1, 0], "r2_test": [0.2, 0.6, 1.0, -0.5, 0.9]})


def test_linear_auc_golden():
    # a over its 4 pairs (P = 4): values -0.5 (below 0: reaches no threshold), 0.2, 0.6, 1.0 ->
    # points (u, share(u)): (0.2, 3/4), (0.6, 2/4), (1, 1/4), and the end (0, share(0) = 3/4).
    # Trapezoids: 0.2 * .75 = 0.15; 0.4 (.75 + .5)/2 = 0.25; 0.4 (.5 + .25)/2 = 0.15 -> 0.55.
    # Exact (step) area: mean of the clipped values = 1.8 / 4 = 0.45; the linear one is larger by
    # half of each step after a gap: 0.4 * .25/2 + 0.4 * .25/2 = 0.1.
    # b: one value 0.9 of P = 4: points (0, 1/4), (0.9, 1/4), (1, 0): 0.9 * .25 + 0.1 * .25/2 = 0.2375.
    auc = performance_profiles(golden()).auc.set_index("method")
    assert auc["auc"].to_dict() == pytest.approx({"a": 0.45, "b": 0.225})
    assert auc["auc_linear"].to_dict() == pytest.approx({"a": 0.55, "b": 0.2375})


def test_auc_per_seed_then_median_min_max():
    # The seed column is found as 'random_state'. Per seed P = 2 datasets.
    # a, seed 0: d1 0.2, d2 1.0 -> exact (0.2 + 1) / 2 = 0.6; linear: points (0, 1), (0.2, 1), (1, 1/2):
    #   0.2 * 1 + 0.8 * (1 + .5)/2 = 0.8
    # a, seed 1: d1 0.6, d2 -0.5 (reaches nothing) -> exact 0.3; linear: (0, 1/2), (0.6, 1/2), (1, 0):
    #   0.6 * .5 + 0.4 * .5/2 = 0.4
    # b, seed 0: 0.9 -> exact 0.45; linear (0, 1/2), (0.9, 1/2), (1, 0): 0.45 + 0.025 = 0.475; seed 1: 0.
    profiles = performance_profiles(golden())
    per_seed = profiles.per_seed.set_index(["method", "seed"])
    assert per_seed["auc"].to_dict() == pytest.approx({("a", "0"): 0.6, ("a", "1"): 0.3,
                                                       ("b", "0"): 0.45, ("b", "1"): 0.0})
    assert per_seed["auc_linear"].to_dict() == pytest.approx({("a", "0"): 0.8, ("a", "1"): 0.4,
                                                              ("b", "0"): 0.475, ("b", "1"): 0.0})
    auc = profiles.auc.set_index("method")
    # median over 2 seeds = their mean: a 0.45 (min 0.3, max 0.6); b 0.225 (0, 0.45); linear a 0.6
    assert auc.loc["a", ["auc_seed_median", "auc_seed_min", "auc_seed_max"]].tolist() == pytest.approx(
        [0.45, 0.3, 0.6])
    assert auc.loc["b", ["auc_seed_median", "auc_seed_min", "auc_seed_max"]].tolist() == pytest.approx(
        [0.225, 0.0, 0.45])
    assert auc.loc["a", "auc_linear_seed_median"] == pytest.approx(0.6)
    assert auc["seeds"].tolist() == [2, 2]


def test_per_seed_median_differs_from_the_pooled_auc():
    # 3 seeds, one dataset: a 1.0, 0.0, 0.0 -> per-seed AUCs 1, 0, 0: median 0 but pooled AUC 1/3
    table = pd.DataFrame({"method": "a", "dataset": "d", "seed": [0, 1, 2], "r2_test": [1.0, 0.0, 0.0]})
    auc = performance_profiles(table).auc.iloc[0]
    assert auc["auc"] == pytest.approx(1 / 3) and auc["auc_seed_median"] == 0.0 and auc["auc_seed_max"] == 1.0


def test_per_dataset_auc_table():
    # P = 2 runs per dataset. a on d1: (0.2 + 0.6)/2 = 0.4; on d2: (1 + 0)/2 = 0.5; b on d1: 0.9/2 = 0.45,
    # on d2 no value: 0. Linear a on d1: points (0, 1), (0.2, 1), (0.6, 1/2), (1, 0):
    # 0.2 + 0.4 * .75 + 0.4 * .25 = 0.6
    per_dataset = performance_profiles(golden()).per_dataset.set_index(["method", "dataset"])
    assert per_dataset["auc"].to_dict() == pytest.approx({("a", "d1"): 0.4, ("a", "d2"): 0.5,
                                                          ("b", "d1"): 0.45, ("b", "d2"): 0.0})
    assert per_dataset.loc[("a", "d1"), "auc_linear"] == pytest.approx(0.6)
    assert per_dataset["pairs"].unique().tolist() == [2]


def test_lower_is_better_linear_auc_is_the_mirror():
    # rmse on [0, 4], lower better: 1 and 3 mirror to 3 and 1 on [0, 4]; P = 2.
    # linear: points (0, 1), (1, 1), (3, 1/2), (4, 0): 1 + 2 * .75 + 1 * .25 = 2.75, / 4 = 0.6875
    table = pd.DataFrame({"method": ["a", "a"], "dataset": ["d1", "d2"], "rmse": [1.0, 3.0]})
    auc = performance_profiles(table, value="rmse", direction="lower", bounds=(0, 4)).auc.iloc[0]
    assert auc["auc"] == pytest.approx(0.5) and auc["auc_linear"] == pytest.approx(0.6875)


@pytest.mark.realdata
def test_linear_auc_runs_about_half_a_step_higher_on_srbench():
    path = REALDATA / "blackbox_results.csv"
    if not path.exists():
        pytest.skip(f"real data absent: {path}")
    auc = performance_profiles(pd.read_csv(path)).auc
    difference = auc["auc_linear"] - auc["auc"]
    # 122 datasets: each step is 1/122 (more with ties), half a step per gap over a range of
    # at most 1 -> about 1/244 = 0.0041
    assert (difference > 0).all()
    assert 0.003 < float(np.median(difference)) < 0.0045


def test_cli_profiles_by_seed_and_dataset(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    path = tmp_path / "runs.csv"
    golden().to_csv(path, index=False)
    out = CliRunner().invoke(main, ["analyse", "profiles", str(path), "--by", "dataset", "-o", str(tmp_path / "d.csv")])
    assert out.exit_code == 0, out.output
    assert "largest AUC: a (0.4500 exact, 0.5500 linear; median over 2 seed(s) 0.4500)" in out.output
    table = pd.read_csv(tmp_path / "d.csv")
    assert table.columns.tolist() == ["method", "dataset", "auc", "auc_linear", "pairs"] and len(table) == 4
    out = CliRunner().invoke(main, ["analyse", "profiles", str(path), "--by", "seed", "-o", str(tmp_path / "s.csv")])
    assert out.exit_code == 0 and pd.read_csv(tmp_path / "s.csv")["seed"].tolist() == [0, 1, 0, 1]


def test_auc_heatmap_shows_the_per_dataset_table():
    from srdash.figures.lineage import auc_heatmap

    profiles = performance_profiles(golden())
    fig = auc_heatmap(profiles)
    # rows best first (a, b), columns d1, d2: the per-dataset AUCs derived above
    assert list(fig.data[0].y) == ["a", "b"] and list(fig.data[0].x) == ["d1", "d2"]
    assert np.asarray(fig.data[0].z).ravel().tolist() == pytest.approx([0.4, 0.5, 0.45, 0.0])
    assert auc_heatmap(profiles, definition="linear").data[0].z[0][0] == pytest.approx(0.6)
    with pytest.raises(ValueError, match="The 'definition' option must be one of 'exact', 'linear'. Got 'area'"):
        auc_heatmap(profiles, definition="area")
