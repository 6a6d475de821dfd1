"""Performance profiles (srdash.analysis.profiles): golden AUC, curves, directions, real data."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from srdash.analysis.profiles import performance_profiles
from srdash.errors import ValidationError

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench_results"


def golden() -> pd.DataFrame:
    # Two datasets x two runs = 4 pairs. a: 0.2, 0.6, 1.0, -0.5; b: 0.9 on one pair only
    # (its other three pairs are missing: never reached).
    return pd.DataFrame({
        "method": ["a"] * 4 + ["b"],
        "dataset": ["d1", "d1", "d2", "d2", "d1"],
        "run": [0, 1, 0, 1, 0],
        "r2_test": [0.2, 0.6, 1.0, -0.5, 0.9],
    })


def test_auc_golden():
    # AUC on [0, 1] = mean over the 4 pairs of clip(value, 0, 1):
    # a: (0.2 + 0.6 + 1.0 + 0) / 4 = 0.45; the same as the area under its step function,
    #    3/4 on [0, 0.2], 2/4 on (0.2, 0.6], 1/4 on (0.6, 1]: 0.15 + 0.2 + 0.1 = 0.45
    # b: 0.9 / 4 = 0.225
    profiles = performance_profiles(golden())
    assert profiles.auc.set_index("method")["auc"].to_dict() == pytest.approx({"a": 0.45, "b": 0.225})
    assert profiles.auc["method"].tolist() == ["a", "b"]
    assert profiles.auc.set_index("method").loc["b", ["reached", "pairs"]].tolist() == [1, 4]


def test_curve_values():
    curves = performance_profiles(golden(), points=5).curves  # thresholds 0, .25, .5, .75, 1
    a = curves[curves["method"] == "a"]["share"].tolist()
    # >= 0: 0.2, 0.6, 1.0 -> 3/4; >= .25: 0.6, 1.0 -> 2/4; >= .5: 2/4; >= .75: 1/4; >= 1: 1/4
    assert a == [0.75, 0.5, 0.5, 0.25, 0.25]


def test_lower_is_better_and_bounds():
    table = pd.DataFrame({"method": ["a", "a"], "dataset": ["d1", "d2"], "rmse": [1.0, 3.0]})
    # on [0, 4], lower is better: mean of (4 - clip(v)) / 4 = (3/4 + 1/4) / 2 = 0.5
    profiles = performance_profiles(table, value="rmse", direction="lower", bounds=(0, 4))
    assert profiles.auc["auc"].tolist() == [0.5]


def test_auc_matches_a_fine_trapezoid():
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"method": "a", "dataset": np.arange(50), "r2_test": rng.uniform(-0.2, 1.0, 50)})
    profiles = performance_profiles(table, points=20001)
    share = profiles.curves["share"].to_numpy()
    t = profiles.curves["threshold"].to_numpy()
    trapezoid = float(((share[1:] + share[:-1]) / 2 * np.diff(t)).sum())
    assert profiles.auc["auc"].iloc[0] == pytest.approx(trapezoid, abs=1e-3)


def test_profile_errors():
    with pytest.raises(ValidationError, match="the column 'r2_test' is missing"):
        performance_profiles(golden().drop(columns="r2_test"))
    with pytest.raises(ValueError, match=r"The 'bounds' option must be \(lo, hi\) with lo < hi. Got \(1, 0\)"):
        performance_profiles(golden(), bounds=(1, 0))
    with pytest.raises(ValueError, match="The 'direction' option must be one of 'higher', 'lower'"):
        performance_profiles(golden(), direction="up")


@pytest.mark.realdata
def test_srbench_blackbox_profiles():
    path = REALDATA / "blackbox_results.csv"
    if not path.is_file():
        pytest.skip(f"real data absent: {path}")
    profiles = performance_profiles(pd.read_csv(path))
    auc = profiles.auc.set_index("method")
    assert len(auc) == 21 and (auc["pairs"] == 122).all()
    assert auc["auc"].idxmax() == "*Operon"
    # AIFeynman has 15 missing datasets, which never reach a threshold
    assert auc.loc["*AIFeynman", "reached"] == 107
    # each curve is non-increasing in the threshold
    for _, curve in profiles.curves.groupby("method"):
        assert (np.diff(curve["share"].to_numpy()) <= 0).all()
