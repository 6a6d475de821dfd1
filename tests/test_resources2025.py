"""Time, energy and CO2 of SRBench 2025 runs (eco2AI's columns): per-method medians and totals,
in srdash.analysis.resources and `srdash analyse resources`. Hand-computed."""

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis.resources import resource_summary
from srdash.cli import main
from srdash.errors import ValidationError


def runs() -> pd.DataFrame:
    # a: 3 runs, b: 2 runs; b's second run has no energy record (NaN)
    return pd.DataFrame({
        "algorithm": ["a", "a", "a", "b", "b"], "dataset": ["d1", "d1", "d2", "d1", "d2"],
        "random_state": [0, 1, 0, 0, 0],
        "training time (s)": [100.0, 300.0, 200.0, 4000.0, 5000.0],
        "duration(s)": [110.0, 310.0, 210.0, 4010.0, 5010.0],
        "power_consumption(kWh)": [0.01, 0.03, 0.02, 0.5, None],
        "CO2_emissions(kg)": [0.004, 0.012, 0.008, 0.2, None],
        "CPU_name": ["Xeon", "Xeon", "EPYC", "EPYC", "EPYC"], "GPU_name": [None] * 5,
    })


def test_medians_and_totals_by_hand():
    summary = resource_summary(runs())
    table = summary.table.set_index("method")
    # a energy: median of (0.01, 0.03, 0.02) = 0.02, total 0.06; b: median and total of (0.5) = 0.5
    assert table.loc["a", "power_consumption(kWh) median"] == pytest.approx(0.02)
    assert table.loc["a", "power_consumption(kWh) total"] == pytest.approx(0.06)
    assert table.loc["b", ["power_consumption(kWh) median", "power_consumption(kWh) total"]].tolist() == \
        pytest.approx([0.5, 0.5])
    # time: a median 200, total 600; b median 4500, total 9000; sorted by median time (a first)
    assert table.loc["a", ["training time (s) median", "training time (s) total"]].tolist() == [200.0, 600.0]
    assert table.loc["b", "training time (s) total"] == 9000.0
    assert summary.table["method"].tolist() == ["a", "b"]
    # totals over every run: CO2 0.004 + 0.012 + 0.008 + 0.2 = 0.224 kg; energy 0.56 kWh
    assert summary.totals["CO2_emissions(kg)"] == pytest.approx(0.224)
    assert summary.totals["power_consumption(kWh)"] == pytest.approx(0.56)
    # the hardware: the most frequent CPU (a: Xeon 2 of 3); no GPU name recorded
    assert table.loc["a", "CPU_name"] == "Xeon" and table.loc["b", "CPU_name"] == "EPYC"
    assert table["GPU_name"].isna().all()


def test_missing_resource_column_is_named():
    with pytest.raises(ValidationError, match="the column 'energy' is missing"):
        resource_summary(runs(), columns=["energy"])


def test_cli_resources_with_energy_and_the_one_hour_line(tmp_path):
    path = tmp_path / "runs.csv"
    runs().to_csv(path, index=False)
    out = CliRunner().invoke(main, ["analyse", "resources", str(path), "--budget", "3600", "-o", str(tmp_path / "r.csv")])
    assert out.exit_code == 0, out.output
    table = pd.read_csv(tmp_path / "r.csv").set_index("method")
    assert table.loc["b", "runs_over_budget"] == 2 and table.loc["a", "runs_over_budget"] == 0
    assert table.loc["a", "CO2_emissions(kg) total"] == pytest.approx(0.024)
    # b's second run has no energy record: not counted, and said so
    assert ("totals over every run: duration(s) 9650, power_consumption(kWh) 0.56 (1 run without a value, not "
            "counted), CO2_emissions(kg) 0.224 (1 run without a value, not counted)") in out.output
    # without a training-time column, eco2AI's columns alone are summarised
    runs().drop(columns="training time (s)").to_csv(path, index=False)
    out = CliRunner().invoke(main, ["analyse", "resources", str(path)])
    assert out.exit_code == 0 and "totals over every run: duration(s) 9650" in out.output
