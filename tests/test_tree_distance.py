"""The normalised tree edit distance (graded recovery, SRSD): hand-computed trees, and apted and zss as
references on more than 50 model/ground-truth pairs."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.errors import ModelRejected
from srdash.expressions import parse_submitted_model, tree_size
from srdash.expressions.measures import TRUTH_MEASURES
from srdash.analysis.recovery import normalised_edit_distances
from srdash.expressions import expression_tree
from srdash.expressions.tree_distance import (MAX_TREE_NODES, TreeTooLarge, normalised_distance,
                                              normalised_tree_edit_distance, tree_edit_distance)
from srdash.judging.measures import measure
from srdash.judging.ranking import judge
from srdash.judging.rules import parse_rules

# Ground truths in the style of the Feynman and Strogatz datasets, and models near and far from them.
EXPRESSIONS = [
    "x0*x1",
    "x0*x1/x2",
    "x0*x1**2/2",
    "exp(-x0**2/2)/sqrt(2*pi)",
    "x0*sin(x1)",
    "x0*cos(x1) + x2*sin(x1)",
    "x0/(4*pi*x1*x2**2)",
    "sqrt(x0**2 + x1**2)",
    "x0*x1*x2*(1/x3 - 1/x4)",
    "log(x0/x1)*x2",
    "1.0001*x0*x1 + 0.3",
    "x0 + x1 - x2",
    "tanh(x0)*x1 + 2.5",
    "x0**3 - 2*x0 + sin(x1*x0)",
]


def _reference_zss(a, b):
    zss = pytest.importorskip("zss")

    def node(tree):
        out = zss.Node(tree[0])
        for child in tree[1]:
            out.addkid(node(child))
        return out

    return zss.simple_distance(node(a), node(b))


def _reference_apted(a, b):
    apted = pytest.importorskip("apted")
    from apted.helpers import Tree

    def bracket(tree):
        return "{" + tree[0] + "".join(bracket(child) for child in tree[1]) + "}"

    return apted.APTED(Tree.from_text(bracket(a)), Tree.from_text(bracket(b))).compute_edit_distance()


def _tree(text):
    return expression_tree(parse_submitted_model(text))


# ---------------------------------------------------------------------------
# Hand-computed trees
# ---------------------------------------------------------------------------
def test_tree_labels_numbers_const_symbols_by_name_functions_by_class():
    # 3*sin(x0): Mul(3, sin(x0)); every number (and pi, E) is "c", as SRSD labels numbers alike
    assert _tree("3*sin(x0)") == ("Mul", (("c", ()), ("sin", (("x0", ()),))))
    assert _tree("pi*x0") == ("Mul", (("c", ()), ("x0", ())))


@pytest.mark.parametrize(("a", "b", "distance", "why"), [
    ("x0*x1", "x0*x1", 0, "the same tree"),
    ("x0 + x1", "x0*x1", 1, "relabel the root Add -> Mul"),
    ("2*x0", "3.7*x0", 0, "constants' values do not count: both Mul(Const, x0)"),
    ("x0", "2*x0", 2, "insert Mul above x0 and its Const child"),
    ("sin(x0)", "cos(x1)", 2, "relabel sin -> cos and x0 -> x1"),
    ("x0 + x1 + x2", "x0 + x1", 1, "delete the leaf x2 of the Add"),
    # Add(x0, sin(x1)) [Add, x0, sin, x1] vs Mul(x0, cos(x1)) [Mul, x0, cos, x1]: relabel root and sin
    ("x0 + sin(x1)", "x0*cos(x1)", 2, "relabel Add -> Mul and sin -> cos"),
])
def test_distance_on_hand_computed_trees(a, b, distance, why):
    assert tree_edit_distance(parse_submitted_model(a), parse_submitted_model(b)) == distance, why


def test_normalised_distance_divides_by_the_truths_nodes_and_caps_at_one():
    # truth x0 + sin(x1): Add, x0, sin, x1 = 4 nodes; the model adds Mul and Const above x0: 2/4
    assert normalised_tree_edit_distance("2.5*x0 + sin(x1)", "x0 + sin(x1)") == 0.5
    assert tree_size(parse_submitted_model("x0 + sin(x1)")) == 4
    # truth x0 (1 node) against a 7-node model: d = 6 > 1, capped at 1
    assert normalised_tree_edit_distance("exp(x1)*cos(x2) + 1", "x0") == 1.0
    assert normalised_tree_edit_distance("x0*x1/x2", "x0*x1/x2") == 0.0


def test_simplification_as_the_rules_do_before_measuring():
    # (x0**2 - x1**2)/(x0 - x1) simplifies to x0 + x1: exact recovery once simplified ...
    assert normalised_tree_edit_distance("(x0**2 - x1**2)/(x0 - x1)", "x0 + x1") == 0.0
    # ... and not as submitted: Mul(Add(Pow(x0,2), Mul(-1,Pow(x1,2))), Pow(Add(x0, Mul(-1,x1)), -1)) vs Add(x0, x1)
    assert normalised_tree_edit_distance("(x0**2 - x1**2)/(x0 - x1)", "x0 + x1", simplify=False) == 1.0
    # a float below 0.001 is rounded to 0 (SRBench 2022): the term disappears
    assert normalised_tree_edit_distance("x0*x1 + 0.0004*x2", "x0*x1") == 0.0


def test_hostile_strings_are_refused_by_the_whitelist():
    with pytest.raises(ModelRejected, match=r"Attribute access \('\.system'\) is not allowed in a model"):
        normalised_tree_edit_distance("__import__('os').system('echo PWNED')", "x0")


def test_trees_above_the_cap_are_refused():
    big = " + ".join(f"x{i}*x{i + 1}" for i in range(60))  # Add of 60 Mul(x, x): 1 + 60*3 = 181 nodes
    assert tree_size(parse_submitted_model(big)) > MAX_TREE_NODES
    with pytest.raises(TreeTooLarge, match=f"The first tree has 181 nodes, more than the {MAX_TREE_NODES}"):
        tree_edit_distance(parse_submitted_model(big), parse_submitted_model("x0"))
    with pytest.raises(TreeTooLarge, match="The second tree has 181 nodes"):
        normalised_tree_edit_distance("x0", big, simplify=False)


# ---------------------------------------------------------------------------
# References: zss (Zhang-Shasha, SRSD's) and apted on 91 pairs
# ---------------------------------------------------------------------------
PAIRS = list(combinations(EXPRESSIONS, 2))


def test_enough_reference_pairs():
    assert len(PAIRS) >= 50


@pytest.mark.parametrize("reference", [_reference_zss, _reference_apted], ids=["zss", "apted"])
def test_distance_equals_the_reference_libraries(reference):
    mismatches = []
    for model, truth in PAIRS:
        a, b = _tree(model), _tree(truth)
        ours, theirs = tree_edit_distance(a, b), reference(a, b)
        if ours != theirs:
            mismatches.append((model, truth, ours, theirs))
    assert not mismatches


def test_distance_is_a_symmetric_metric_on_the_pairs():
    for model, truth in PAIRS[:20]:
        a, b = _tree(model), _tree(truth)
        assert tree_edit_distance(a, b) == tree_edit_distance(b, a)
        assert tree_edit_distance(a, a) == 0


# ---------------------------------------------------------------------------
# A measure the rules can name, and its door
# ---------------------------------------------------------------------------
def _runs():
    return pd.DataFrame({
        "method": ["a", "a", "b", "b"], "dataset": ["feynman_1", "feynman_2"] * 2,
        "r2_test": [0.99, 0.98, 0.97, 0.99],
        "model": ["2.5*x0 + sin(x1)", "x0*x1", "x0 + sin(x1)", "open(x0)"],
        "true_model": ["x0 + sin(x1)", "x0*x1", "x0 + sin(x1)", "x0*x1"]})


def test_cli_tree_distance_writes_the_column(tmp_path):
    source, out = tmp_path / "runs.csv", tmp_path / "distances.csv"
    _runs().to_csv(source, index=False)
    result = CliRunner().invoke(main, ["analyse", "tree-distance", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out)
    # a: 2/4 (see the hand-computed case) and 0; b: 0, and a refused model, which counts as 1 (the worst)
    assert written["tree_edit_distance"].tolist() == [0.5, 0.0, 0.0, 1.0]
    assert written["truth_nodes"].tolist() == [4, 3, 4, 3]
    assert "Unknown function 'open'" in written["detail"].iloc[3]
    assert "for 4 models, 0 = exact recovery; 1 with a reason in 'detail'" in result.output


def test_cli_tree_distance_needs_the_ground_truth(tmp_path):
    source = tmp_path / "runs.csv"
    _runs().drop(columns="true_model").to_csv(source, index=False)
    result = CliRunner().invoke(main, ["analyse", "tree-distance", str(source)])
    assert result.exit_code != 0
    assert "tree-distance needs the columns model and true_model; no column 'true_model'." in result.output


def test_trees_beyond_the_cap_in_a_table():
    big = " + ".join(f"x{i}*x{i + 1}" for i in range(60))  # 181 nodes
    middle = " + ".join(f"x{i}*x{i + 1}" for i in range(40))  # 121 nodes: within the cap, the truth
    table = normalised_edit_distances([big, big], ["x0*x1", middle], simplify=False)
    # against a 3-node truth, d >= 181 - 3 >= 3: NED 1 without the distance; against 121 nodes: unknown
    assert table["ned"].iloc[0] == 1.0 and np.isnan(table["distance"].iloc[0])
    assert "NED is 1: the model has at least twice the truth's nodes." in table["detail"].iloc[0]
    assert np.isnan(table["ned"].iloc[1])
    assert table["detail"].iloc[1].startswith("The first tree has 181 nodes, more than the 150")
    assert normalised_distance(_tree(big), _tree("x0*x1")) == 1.0


def test_rules_can_name_the_measure():
    rules = parse_rules('name = "graded"\n[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"\n'
                        '[[criteria]]\nname = "recovery"\ncolumn = "tree_edit_distance"\ndirection = "lower"\n'
                        'measure = "tree-edit-distance"\n')
    assert rules.criteria[1].measure == "tree-edit-distance"
    assert measure("tree-edit-distance").needs_truth and not measure("tree-edit-distance").from_model
    assert TRUTH_MEASURES["tree-edit-distance"]("x0*x1", "x0*x1") == 0.0
    runs = _runs().iloc[:3].assign(tree_edit_distance=[0.5, 0.0, 0.0])
    verdict = judge(runs.drop(columns=["model", "true_model"]), rules)
    assert set(verdict.leaderboard["method"]) == {"a", "b"}
