"""Resources (srdash.analysis.resources): training times, time fronts, runs over a budget."""

from pathlib import Path

import pandas as pd
import pytest

from srdash.analysis.resources import over_budget, time_fronts, training_times
from srdash.errors import ValidationError

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench_results"


def small() -> pd.DataFrame:
    return pd.DataFrame({
        "method": ["fast", "fast", "slow", "slow", "mid", "mid"],
        "dataset": ["d1", "d2"] * 3,
        "r2_test": [0.5, 0.6, 0.9, 0.9, 0.4, 0.5],
        "model_size": [10, 10, 50, 50, 5, 5],
        "training time (s)": [1.0, 3.0, 100.0, 300.0, 10.0, 20.0],
    })


def test_training_times_golden():
    table = training_times(small()).table.set_index("method")
    # fast: median(1, 3) = 2, quartiles 1.5 and 2.5 (linear interpolation)
    assert table.loc["fast", ["median", "q25", "q75", "min", "max", "runs"]].tolist() == [2, 1.5, 2.5, 1, 3, 2]
    assert table.index.tolist() == ["fast", "mid", "slow"]


def test_time_fronts():
    accuracy_time, size_time = time_fronts(small(), n_bootstrap=0)
    # medians: fast (0.55, 2 s), slow (0.9, 200 s), mid (0.45, 15 s): mid is dominated by fast
    assert accuracy_time.table.set_index("method")["front"].to_dict() == {"fast": 1, "slow": 1, "mid": 2}
    assert accuracy_time.names == ("accuracy", "time")
    # size-time, both lower is better: fast (10, 2), mid (5, 15) trade off; slow (50, 200) dominated
    assert size_time.table.set_index("method")["front"].to_dict() == {"fast": 1, "mid": 1, "slow": 2}


def test_over_budget():
    result = over_budget(small(), budget=50)
    assert result.table[["method", "dataset"]].values.tolist() == [["slow", "d2"], ["slow", "d1"]]
    assert result.table["over"].tolist() == [6.0, 2.0]
    assert result.per_method.set_index("method")["over"].to_dict() == {"fast": 0, "mid": 0, "slow": 2}
    with pytest.raises(ValueError, match="The 'budget' option must be a positive number of seconds. Got -1"):
        over_budget(small(), budget=-1)
    with pytest.raises(ValidationError, match=r"the column 'training time \(s\)' is missing"):
        training_times(small().drop(columns="training time (s)"))


@pytest.mark.realdata
def test_srbench_blackbox_resources():
    path = REALDATA / "blackbox_results.csv"
    if not path.is_file():
        pytest.skip(f"real data absent: {path}")
    table = pd.read_csv(path)
    times = training_times(table).table
    assert len(times) == 21 and (times["q25"] <= times["median"]).all() and (times["median"] <= times["q75"]).all()
    accuracy_time, _ = time_fronts(table, n_bootstrap=0)
    assert 1 in set(accuracy_time.table["front"]) and len(accuracy_time.table) == 21
    # a stated budget of 48 hours per run
    budget = over_budget(table, budget=48 * 3600)
    assert (budget.table["training time (s)"] > 48 * 3600).all()
    assert budget.per_method["runs"].sum() == len(table)
