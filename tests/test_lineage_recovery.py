"""Ground-truth recovery (srdash.analysis.recovery): the symbolic-solution rule and solution rates."""

from pathlib import Path

import pandas as pd
import pytest

from srdash.analysis.recovery import (normalised_edit_distances, solution_rates, symbolic_solutions,
                                     tree_edit_distance)
from srdash.errors import ValidationError

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench_results"
TRUTH = "x1*sin(x2) + 0.5*x1**2"


def test_symbolic_solution_rule():
    table = pd.DataFrame({
        "model": [
            "x1*sin(x2) + 0.5*x1**2 + 3.25",      # truth + constant: truth - model = -3.25
            "2.5*x1*sin(x2) + 1.25*x1**2",        # truth * 2.5: model / truth = 2.5
            "x1*sin(x2) + 0.5*x1**2 + 0.1*x2",    # not a solution: the difference depends on x2
            "x1*sin(x2) + 0.5*x1**2",             # the truth itself, but R2 below the gate: not checked
            "0.5*x1*sin(x2) + 0.5*x1**2",         # neither difference nor ratio is constant
        ],
        "true_model": TRUTH,
        "r2_test": [0.99, 0.97, 0.95, 0.5, 0.9],
    })
    result = symbolic_solutions(table).table
    assert result["solution"].tolist() == [True, True, False, False, False]
    assert result["checked"].tolist() == [True, True, True, False, True]
    assert result["detail"].iloc[3] == "not checked: R² = 0.5 is not above the gate 0.5"
    assert result["detail"].iloc[0].startswith("equivalent")
    assert "model" in result.columns  # input columns kept, input not mutated
    assert "solution" not in table.columns


def test_floats_rounded_as_srbench_did():
    # 0.5004 rounds to 0.5 (3 decimals): a solution; 0.51 does not
    table = pd.DataFrame({"model": ["x1*sin(x2) + 0.5004*x1**2", "x1*sin(x2) + 0.51*x1**2"],
                          "true_model": TRUTH, "r2_test": [0.999, 0.999]})
    assert symbolic_solutions(table).table["solution"].tolist() == [True, False]


def test_recovery_errors():
    with pytest.raises(ValidationError, match="the column 'true_model' is missing"):
        symbolic_solutions(pd.DataFrame({"model": ["x"], "r2_test": [1.0]}))


def test_solution_rates_golden():
    # method A at noise 0: rates 100 and 50 -> 75; at noise 0.01: 0 and 10 -> 5.
    # method B, booleans counted as 100/0: noise 0: True, False, False -> 33.33...
    table = pd.DataFrame({"algorithm": ["A", "A", "A", "A"], "target_noise": [0, 0, 0.01, 0.01],
                          "symbolic_solution_rate_(%)": [100.0, 50.0, 0.0, 10.0]})
    rates = solution_rates(table, n_bootstrap=0).table
    assert rates[["noise", "rate"]].values.tolist() == [[0.0, 75.0], [0.01, 5.0]]
    flags = pd.DataFrame({"method": "B", "target_noise": 0.0, "solution": [True, False, False]})
    rates = solution_rates(flags, n_bootstrap=500).table
    assert rates["rate"].iloc[0] == pytest.approx(100 / 3)
    assert 0 <= rates["low"].iloc[0] <= rates["rate"].iloc[0] <= rates["high"].iloc[0] <= 100


@pytest.mark.realdata
def test_srbench_groundtruth_solution_rates():
    path = REALDATA / "groundtruth.csv"
    if not path.is_file():
        pytest.skip(f"real data absent: {path}")
    table = pd.read_csv(path)
    rates = solution_rates(table, n_bootstrap=200).table
    assert set(rates["noise"]) == {0.0, 0.001, 0.01}
    assert rates["method"].nunique() == table["algorithm"].nunique() == 14
    # the same means as a plain groupby
    expected = table.groupby(["algorithm", "target_noise"])["symbolic_solution_rate_(%)"].mean()
    got = rates.set_index(["method", "noise"])["rate"]
    assert got.sort_index().to_numpy() == pytest.approx(expected.sort_index().to_numpy())
    # methods ordered by mean rate over noise levels, best first; AIFeynman leads SRBench's figure
    assert rates["method"].iloc[0] == "AIFeynman"
    assert (rates["low"] <= rates["rate"] + 1e-9).all() and (rates["rate"] <= rates["high"] + 1e-9).all()


# -- normalised tree edit distance (SRSD) --------------------------------------------------------

def leaf(name):
    return (name, ())


def test_tree_edit_distance_zhang_shasha_example():
    # The example of Zhang and Shasha's paper: f(d(a, c(b)), e) -> f(c(d(a, b)), e):
    # delete c under d (b moves up) and insert c above d: 2 edits.
    first = ("f", (("d", (leaf("a"), ("c", (leaf("b"),)))), leaf("e")))
    second = ("f", (("c", (("d", (leaf("a"), leaf("b"))),)), leaf("e")))
    assert tree_edit_distance(first, second) == tree_edit_distance(second, first) == 2
    assert tree_edit_distance(first, first) == 0
    # from one leaf to a 6-node tree: relabel the root and insert 5 nodes
    assert tree_edit_distance(leaf("z"), first) == 6


def test_normalised_edit_distance_rules():
    table = normalised_edit_distances(["x1*sin(x2)", "open('f')", "x1 + x2 + x3 + x4 + x5 + x6"],
                                      ["x1*sin(x2)"] * 3, simplify=False)
    # identical: 0; a refused model: 1 with the reason; a very different model: capped at 1
    assert table["ned"].tolist() == [0.0, 1.0, 1.0]
    assert "Unknown function 'open'" in table["detail"].iloc[1]
    assert table["distance"].iloc[2] > table["truth_nodes"].iloc[2]
    with pytest.raises(ValueError, match="models and truths must have the same length. Got 1 and 2"):
        normalised_edit_distances(["x1"], ["x1", "x2"])
