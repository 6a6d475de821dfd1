"""LaTeX of model strings, for pages and reports (which must not import sympy)."""

from __future__ import annotations

import re
from collections.abc import Collection

import sympy

from srdash.errors import ModelRejected
from srdash.expressions.parse import bounded, build_expression, syntax_tree

__all__ = ["latex_of"]


def latex_of(simplified_text: str, *, features: Collection[str] | None = None) -> str:
    """LaTeX of a model string, typically the ``simplified`` column.

    The string is re-parsed with the safe parser (which here also reads the
    ``Piecewise``, ``Eq``, comparisons and the few other forms sympy prints),
    never evaluated.

    Parameters
    ----------
    simplified_text : str
        A model string.
    features : collection of str, optional, keyword-only
        As in :func:`parse_model`.

    Returns
    -------
    str
        LaTeX (without surrounding ``$``).

    Raises
    ------
    ModelRejected
        If the string is refused by the safe parser.

    Examples
    --------
    >>> print(latex_of("0.4*x1*x2 + sqrt(x1)"))
    \\sqrt{x_{1}} + 0.4 x_{1} x_{2}
    >>> print(latex_of("2*value_cases_14 + x_1", features=["value_cases_14", "x_1"]))
    2 \\mathrm{value\\_cases\\_14} + x_{1}
    >>> print(latex_of("Piecewise((0, Eq(x1, 0)), (x1/Abs(x1), True))"))
    \\begin{cases} 0 & \\text{for}\\: x_{1} = 0 \\\\\\frac{x_{1}}{\\left|{x_{1}}\\right|} & \\text{otherwise} \\end{cases}
    """
    read = syntax_tree(simplified_text, features=features, max_length=200_000)
    with bounded("Writing the model as LaTeX"):
        expression = build_expression(read, max_nodes=50_000, printed=True)
        names = {symbol: _latex_name(symbol.name) for symbol in expression.free_symbols}
        try:
            return sympy.latex(expression, symbol_names={s: n for s, n in names.items() if n is not None})
        except (RecursionError, MemoryError, ValueError, TypeError) as exc:
            raise ModelRejected(f"sympy cannot write this model as LaTeX ({type(exc).__name__}).") from None


# `x_1`, `x1`, `alpha_2`: sympy's own subscript; any other name with an underscore is
# written upright and whole (sympy would make `value_cases_14` into value_{cases14}).
_SUBSCRIPTED_NAME = re.compile(r"[A-Za-z]+_?[0-9]*")


def _latex_name(name: str) -> str | None:
    """LaTeX of a feature name that sympy would mangle, else None (sympy's rendering is right)."""
    if "_" not in name or _SUBSCRIPTED_NAME.fullmatch(name):
        return None
    return r"\mathrm{" + name.replace("_", r"\_") + "}"
