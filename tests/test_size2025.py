"""The SRBench 2025 model size is srdash's ``rounded-nodes`` measure: the nodes of the sympy tree of
the model as submitted (sympy's automatic evaluation only, no simplification) after every float c is
rounded (|c| < 1e-4 -> 0, any other c to 3 decimals). Each case counted by hand."""

import pytest

from srdash.expressions.measures import ROUND_DECIMALS, ROUND_TO_ZERO_BELOW, measure_model


def test_the_constants_are_the_2025_definition():
    assert (ROUND_TO_ZERO_BELOW, ROUND_DECIMALS) == (1e-4, 3)


@pytest.mark.parametrize("text, nodes, as_submitted", [
    # 1e-4 itself is not below 1e-4: rounded to 3 decimals it is 0.000, and 0.000*x1 vanishes on
    # evaluation: x0 (1 node). As submitted: Add(Mul(0.0001, x1), x0) = 5 nodes.
    ("0.0001*x1 + x0", 1, 5),
    # -0.00049 -> -0.000 -> the term vanishes: x0
    ("-0.00049*x1 + x0", 1, 5),
    # 0.0005 -> 0.001 (kept): Add(Mul(0.001, x1), x0) = 5 nodes
    ("0.0005*x1 + x0", 5, 5),
    # 2.0004 -> 2.0, still a Float node: Mul(2.0, x0) = 3 nodes (rounding removes no node here)
    ("2.0004*x0", 3, 3),
    # exp(0.00001*x0) -> exp(0) = 1 on evaluation: Add(1, x1) = 3 nodes; as submitted
    # Add(exp(Mul(1e-5, x0)), x1) = 1 + (1 + 3) + 1 = 6
    ("exp(0.00001*x0) + x1", 3, 6),
    # No simplification: sin(x0)**2 + cos(x0)**2 stays Add(Pow(sin(x0), 2), Pow(cos(x0), 2)):
    # 1 + 4 + 4 = 9 nodes (simplify would give 1)
    ("sin(x0)**2 + cos(x0)**2", 9, 9),
    # Automatic evaluation is not simplification but does apply: x0*x0 is built as Pow(x0, 2): 3 nodes
    ("x0*x0 + 1.23456", 5, 5),
])
def test_rounded_nodes_by_hand(text, nodes, as_submitted):
    assert measure_model(text, "rounded-nodes") == nodes
    assert measure_model(text, "tree-nodes") == as_submitted


def test_simplification_is_not_part_of_the_2025_size():
    assert measure_model("sin(x0)**2 + cos(x0)**2", "simplified-components") == 1
