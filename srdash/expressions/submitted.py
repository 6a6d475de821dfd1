"""Models as submitted to SRBench 2023 ("sympy-compatible expressions", scored with sympify).

For the 2023 track-1 rules: parsed through :func:`srdash.expressions.parse.parse_model`'s whitelist
(it covers the 2023 vocabulary), sized as trees, evaluated on data.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np
import sympy

from srdash.errors import ModelRejected
from srdash.expressions._numeric import numeric_values
from srdash.expressions.evaluate import compiled_function
from srdash.expressions.parse import bounded, parse_model
from srdash.expressions.vocabulary import listed_names

__all__ = ["parse_submitted_model", "tree_size", "evaluate_expression", "expression_tree"]


def parse_submitted_model(
    text: str,
    *,
    features: Collection[str] | None = None,
    max_length: int = 20_000,
    max_nodes: int = 10_000,
) -> sympy.Expr:
    """Parse a model string as SRBench 2023's scorer read it, safely.

    The 2023 scorer called ``sympify`` on each submitted string (which executes Python);
    this reads the same strings with :func:`parse_model`'s whitelist, widened as far as
    the 2023 submissions need: line breaks are removed first (``sympify`` does), and
    ``Piecewise((expression, condition), ...)`` with comparisons and ``True``, ``ITE`` and
    ``factor_terms`` are accepted. Calls are evaluated as ``sympify`` evaluates them
    (``factor_terms(...)`` is applied), so the tree is the one the 2023 scorer counted.

    Parameters
    ----------
    text : str
        The model as submitted.
    features, max_length, max_nodes : keyword-only
        As in :func:`parse_model`.

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ModelRejected
        As :func:`parse_model`.

    Examples
    --------
    >>> parse_submitted_model("Piecewise((x0, x0 > 0), (1, True)) +\\n 2^x1")
    2**x1 + Piecewise((x0, x0 > 0), (1, True))
    >>> parse_submitted_model("__import__('os')")
    Traceback (most recent call last):
    ...
    srdash.errors.ModelRejected: Names starting with '_' are not allowed in a model: '__import__'.
    """
    if isinstance(text, str):
        text = text.replace("\n", "")
    return parse_model(text, features=features, max_length=max_length, max_nodes=max_nodes)


def tree_size(expression) -> int:
    """Number of nodes of a sympy expression tree (its ``preorder_traversal``), as built.

    The SRBench 2023 size: no simplification; every node counts once (a number, a
    symbol, an operation with its arguments). Note that sympy stores ``x - y`` as
    ``x + (-1)*y`` and ``x/y`` as ``x*y**(-1)``.

    Examples
    --------
    >>> tree_size(parse_model("x1 + 2*x2"))  # Add(x1, Mul(2, x2))
    5
    >>> tree_size(parse_model("x1 - x2"))    # Add(x1, Mul(-1, x2))
    5
    """
    return sum(1 for _ in sympy.preorder_traversal(expression))


def evaluate_expression(expression, columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """Predictions of an already parsed expression on data (see :func:`evaluate_model`).

    Parameters
    ----------
    expression : sympy.Expr
        From :func:`parse_model` or :func:`parse_submitted_model`.
    columns : mapping of str to array_like
        Data by variable name, all of the same length.

    Returns
    -------
    numpy.ndarray
        Float array; non-finite and complex values as in :func:`evaluate_model`.

    Raises
    ------
    ModelRejected
        If a variable has no column or the expression cannot be evaluated.

    Examples
    --------
    >>> import numpy as np
    >>> expr = parse_submitted_model("Piecewise((x0, x0 > 0), (1, True))")
    >>> evaluate_expression(expr, {"x0": np.array([-2.0, 3.0])})
    array([1., 3.])
    """
    arrays = {name: np.asarray(values, dtype=float) for name, values in columns.items()}
    lengths = {array.shape[0] if array.ndim else 1 for array in arrays.values()}
    if len(lengths) > 1:
        raise ValueError(f"All columns must have the same length. Got lengths {sorted(lengths)}.")
    length = lengths.pop() if lengths else 1
    symbols = sorted(expression.free_symbols, key=lambda symbol: symbol.name)
    missing = [symbol.name for symbol in symbols if symbol.name not in arrays]
    if missing:
        raise ModelRejected(f"The model uses {', '.join(repr(m) for m in missing)} but the data has no such "
                            f"column. Columns: {listed_names(sorted(arrays)) or '(none)'}.")
    with bounded("Preparing the model for evaluation"):  # as evaluate_model: code generation is bounded too
        function = compiled_function(symbols, expression)
    return numeric_values(function, [arrays[symbol.name] for symbol in symbols], length)


def expression_tree(expression) -> tuple:
    """The labelled, ordered tree of a sympy expression, as nested ``(label, children)`` tuples.

    Labels as in the SRSD benchmark's tree edit distance: every number is ``'c'``, a
    symbol is its name, any other node the name of its sympy class (``Add``, ``Mul``,
    ``Pow``, ``sin``, ...); children in sympy's argument order. Built without recursion.

    Examples
    --------
    >>> expression_tree(parse_model("2.5*sin(x1)"))
    ('Mul', (('c', ()), ('sin', (('x1', ()),))))
    """
    frames = [[expression, 0, []]]
    while True:
        node, position, children = frames[-1]
        if position < len(node.args):
            frames[-1][1] += 1
            frames.append([node.args[position], 0, []])
            continue
        frames.pop()
        label = "c" if node.is_Number or node.is_NumberSymbol else node.name if node.is_Symbol \
            else type(node).__name__
        built = (label, tuple(children))
        if not frames:
            return built
        frames[-1][2].append(built)
