"""Numeric code for a parsed model: the same values to the last bit in any process.

``sympy.lambdify(..., dummify=True)`` names the variables ``Dummy_<n>`` from sympy's
process-wide counter, and the printer orders a sum's terms by those names: when the
counter crosses 100, 1000, ... the same terms are added in another order, and a model's
values (and its R²) change in the last bits with the history of the process. Here the
variables are renamed ``_x0, _x1, ...`` (in the order of the features' names) before
the code is generated without dummies: the names cannot clash with anything the
generated code uses (the parser refuses names starting with ``_``), and the printed term
order depends on the expression alone.

Every operation of the generated code is elementwise (numpy ufuncs, ``select``, a
reduction across a call's arguments), so a row's value does not depend on the other
rows or their order; the inputs are made contiguous float64 arrays so that every call
takes the same numpy loop.
"""

from __future__ import annotations

import warnings
from typing import Callable, Sequence

import numpy as np
import sympy

from srdash.errors import ModelRejected

__all__ = ["compile_numeric", "numeric_values"]

_NAME = "_x{}"


def compile_numeric(symbols: Sequence[sympy.Symbol], expression: sympy.Expr) -> Callable:
    """A numpy function of ``symbols`` (positional, in that order) computing ``expression``.

    The generated code is fixed by the expression and the order of ``symbols``: no
    process-global state (sympy's ``Dummy`` counter) enters it.

    Parameters
    ----------
    symbols : sequence of sympy.Symbol
        The arguments, in order (the callers sort them by name).
    expression : sympy.Expr
        The parsed model; its free symbols are among ``symbols``.

    Returns
    -------
    callable
        ``function(*arrays)``.

    Examples
    --------
    >>> x, y = sympy.symbols("numpy exp")  # names that would clash with the generated code
    >>> compile_numeric([x, y], x + 2 * y)(np.array([1.0]), np.array([2.0]))
    array([5.])
    """
    renamed = {symbol: sympy.Symbol(_NAME.format(i), **symbol.assumptions0) for i, symbol in enumerate(symbols)}
    fixed = expression.xreplace(renamed)
    # numpy has no erf: scipy.special's (vectorised) for expressions that use it.
    modules = ["scipy", "numpy"] if fixed.has(sympy.erf) else "numpy"
    return sympy.lambdify(list(renamed.values()), fixed, modules=modules, dummify=False)


def numeric_values(function: Callable, inputs: Sequence[np.ndarray], length: int, *,
                   fallback: Callable[[], Callable] | None = None) -> np.ndarray:
    """``function(*inputs)`` as a float array of shape ``(length,)``, or :class:`ModelRejected`.

    Floating-point warnings are silenced (invalid operations give NaN or inf); complex
    values with a non-zero imaginary part become NaN; a constant is broadcast. When the
    call fails on a number Python cannot handle (an integer too large for a float) and
    ``fallback`` is given, the function ``fallback()`` returns is called instead.
    """
    arrays = [np.ascontiguousarray(values, dtype=float) for values in inputs]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            values = function(*arrays)
        except (OverflowError, TypeError, ValueError, ZeroDivisionError) as exc:
            if fallback is None:
                raise _not_evaluable(exc) from None
            try:
                values = fallback()(*arrays)
            except ModelRejected:
                raise
            except Exception as again:  # noqa: BLE001 - never a traceback for one model
                raise _not_evaluable(again) from None
        except Exception as exc:  # noqa: BLE001
            raise _not_evaluable(exc) from None
        try:
            values = np.asarray(values)
            if np.iscomplexobj(values):
                values = np.where(values.imag == 0, values.real, np.nan)
            values = values.astype(float)
        except OverflowError:
            raise ModelRejected("The model's values are beyond the float64 range (about 1.8e308); "
                                "it counts as the worst value.") from None
        except (TypeError, ValueError) as exc:
            raise ModelRejected(f"The model's values are not numbers: {type(exc).__name__}: "
                                f"{_short(exc)}") from None
    return np.broadcast_to(values, (length,)).copy()


def _not_evaluable(exc: BaseException) -> ModelRejected:
    return ModelRejected(f"The model cannot be evaluated numerically: {type(exc).__name__}: {_short(exc)}")


def _short(value, limit: int = 200) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
