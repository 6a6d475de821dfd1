"""The sizes counted on a parsed model without simplifying it: the measures' registry (MODEL_MEASURES).

``tree-nodes`` counts the tree as submitted, ``rounded-nodes`` after rounding its floats; the
``simplified-components`` entry runs SRBench 2022's procedure (:mod:`srdash.expressions.complexity`,
whose worker task calls :func:`count_nodes` for the other two). :mod:`srdash.expressions.measures`
re-exports these names beside measure_model and measure_table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy

from srdash.expressions.submitted import parse_submitted_model, tree_size  # noqa: F401 - parse_submitted_model: the doctest

__all__ = ["ModelMeasure", "MODEL_MEASURES", "ROUND_DECIMALS", "ROUND_TO_ZERO_BELOW", "count_nodes"]

#: ``rounded-nodes``: floats smaller than this in absolute value become 0 ...
ROUND_TO_ZERO_BELOW = 1e-4
#: ... and the others are rounded to this many decimals.
ROUND_DECIMALS = 3


@dataclass(frozen=True)
class ModelMeasure:
    """A size counted on one model string.

    Attributes
    ----------
    name : str
        The rules' ``measure`` (see :data:`srdash.judging.measures.MEASURES`).
    simplifies : bool
        Whether ``sympy.simplify`` runs (only ``simplified-components``).
    count : callable or None
        ``count(expression) -> (counted expression, nodes)`` on the parsed,
        unsimplified expression; None for ``simplified-components``, which runs the
        SRBench 2022 procedure of :func:`srdash.expressions.complexity_table`.
    """

    name: str
    simplifies: bool
    count: Callable | None = None


def _rounded(expression) -> sympy.Expr:
    """Every float rounded at once (|c| < 1e-4: 0; else 3 decimals); sympy's automatic evaluation
    then drops the terms and factors that became 0."""
    floats = {node for node in sympy.preorder_traversal(expression) if isinstance(node, sympy.Float)}
    replaced = {c: sympy.Integer(0) if abs(c) < ROUND_TO_ZERO_BELOW else sympy.Float(round(float(c), ROUND_DECIMALS))
                for c in floats}
    return expression.xreplace(replaced) if replaced else expression


def _tree_nodes(expression) -> tuple:
    return expression, tree_size(expression)


def _rounded_nodes(expression) -> tuple:
    rounded = _rounded(expression)
    return rounded, tree_size(rounded)


MODEL_MEASURES: Mapping[str, ModelMeasure] = {
    m.name: m for m in (
        ModelMeasure("simplified-components", simplifies=True),
        ModelMeasure("tree-nodes", simplifies=False, count=_tree_nodes),
        ModelMeasure("rounded-nodes", simplifies=False, count=_rounded_nodes),
    )
}


def count_nodes(expression, measure: str) -> tuple:
    """``(counted expression, nodes)`` of a parsed expression under a measure that does not simplify.

    Examples
    --------
    >>> count_nodes(parse_submitted_model("2.00004*x0"), "rounded-nodes")
    (2.0*x0, 3)
    """
    return MODEL_MEASURES[measure].count(expression)
