"""Predictions of a safely parsed model on data columns (fixed-name numpy code, no ``eval``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np

from srdash.errors import ModelRejected
from srdash.expressions._numeric import compile_numeric, numeric_values
from srdash.expressions.parse import bounded, build_expression, syntax_tree, undefined_reason
from srdash.expressions.vocabulary import listed_names, shortened

__all__ = ["evaluate_model"]


def evaluate_model(
    text: str,
    columns: Mapping[str, np.ndarray],
    *,
    features: Collection[str] | None = None,
) -> np.ndarray:
    """Predictions of a model string on data, vectorised with numpy.

    The string is parsed safely (:func:`parse_model`) and the resulting sympy
    expression compiled with ``sympy.lambdify(..., modules="numpy")``, its variables
    renamed ``_x0, _x1, ...`` so that the code, and the values to the last bit, do not
    depend on the process's history; the raw string is never evaluated. Every row is
    computed elementwise: its value does not depend on the other rows. Floating-point
    warnings are silenced: invalid operations give NaN or inf, complex values with a
    non-zero imaginary part give NaN.

    Parameters
    ----------
    text : str
        The model.
    columns : mapping of str to array_like
        Data by variable name, all of the same length n.
    features : collection of str, optional, keyword-only
        As in :func:`parse_model`.

    Returns
    -------
    numpy.ndarray
        Float array of shape (n,) (a constant model is broadcast; n = 1 when
        ``columns`` is empty).

    Raises
    ------
    ModelRejected
        If the model is refused, uses a variable missing from ``columns``, or
        cannot be evaluated numerically.
    ValueError
        If the columns differ in length.

    Examples
    --------
    >>> import numpy as np
    >>> evaluate_model("2*x1 + log(x2)", {"x1": np.array([1.0, 2.0]), "x2": np.array([1.0, -1.0])})
    array([ 2., nan])
    >>> evaluate_model("3.5", {"x1": np.zeros(3)})
    array([3.5, 3.5, 3.5])
    """
    arrays = {name: np.asarray(values) for name, values in columns.items()}
    lengths = {array.shape[0] if array.ndim else 1 for array in arrays.values()}
    if len(lengths) > 1:
        raise ValueError(f"All columns must have the same length. Got lengths {sorted(lengths)}.")
    length = lengths.pop() if lengths else 1
    read = syntax_tree(text, features=features, max_length=20_000)
    with bounded("Preparing the model for evaluation"):
        expression = build_expression(read, max_nodes=10_000, printed=False)
        undefined = undefined_reason(expression)
        if undefined:
            raise ModelRejected(undefined)
        symbols = sorted(expression.free_symbols, key=lambda symbol: symbol.name)
        missing = [symbol.name for symbol in symbols if symbol.name not in arrays]
        if missing:
            raise ModelRejected(f"The model uses {', '.join(repr(m) for m in missing)} but the data has no "
                                f"such column. Columns: {listed_names(sorted(arrays)) or '(none)'}.")
        function = compiled_function(symbols, expression)

    def with_floats():  # e.g. an integer too large for float: evaluate with floats throughout
        with bounded("Preparing the model for evaluation"):
            return compiled_function(symbols, expression.evalf())

    return numeric_values(function, [arrays[symbol.name] for symbol in symbols], length, fallback=with_floats)


def compiled_function(symbols, expression):
    """``compile_numeric`` with every failure (printing, code generation) turned into a refusal."""
    try:
        return compile_numeric(symbols, expression)
    except ModelRejected:
        raise
    except Exception as exc:  # noqa: BLE001 - KeyError for zoo, RecursionError, SyntaxError, ...
        raise ModelRejected(f"The model cannot be compiled for numeric evaluation: {type(exc).__name__}: "
                            f"{shortened(exc, 200)}") from None
