"""What a model string may say and how large it may grow: the whitelist of :func:`parse_model`.

The functions, operators and constants a model may use (:data:`ALLOWED_FUNCTIONS`), each with its
numbers of arguments, and the budgets checked on every node as it is built (digits, integer powers,
pairwise arguments, helpers' sizes, depth, chains), before sympy computes with it.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Iterable

import sympy

from srdash.errors import ModelRejected

__all__ = ["ALLOWED_FUNCTIONS", "MAX_LITERAL_DIGITS", "MAX_LITERAL_EXPONENT"]


def checked_power(base, exponent):
    """``base ** exponent`` (sympy), refusing numeric powers too costly to compute.

    sympy carries a numeric exponent into a product's numeric factors
    (``(c*x)**n`` computes ``c**n``), into powers of numbers and into the
    branches of a Piecewise: those numbers are checked as well.
    """
    if getattr(exponent, "is_Number", False):
        for number, power in _raised_numbers(base, exponent):
            _check_numeric_power(number, power)
    return operator.pow(base, exponent)


def _raised_numbers(base, exponent):
    """The (number, exponent) pairs sympy may compute for ``base ** exponent``."""
    if getattr(base, "is_Number", False):
        yield base, exponent
    elif getattr(base, "is_Pow", False) and base.base.is_Number and base.exp.is_Number:
        yield base.base, base.exp * exponent
    elif getattr(base, "is_Mul", False):
        for factor in base.args:
            yield from _raised_numbers(factor, exponent)
    elif isinstance(base, sympy.Piecewise):
        for branch, _ in base.args:
            yield from _raised_numbers(branch, exponent)


def _check_numeric_power(base, exponent) -> None:
    """Refuse ``base ** exponent`` (two sympy Numbers) when computing it would be too costly."""
    size = _power_size(base, exponent)
    size_text = "more than 1e300" if math.isinf(size) else f"about {size:.2g}"
    if base.is_Rational and exponent.is_Rational and size > _MAX_DIGITS:
        raise ModelRejected(
            f"The power {shortened(base)}**{shortened(exponent)} would be a number with {size_text} "
            f"digits; numeric powers are limited to {_MAX_DIGITS:,} digits.")
    if size > 1e300:  # a float result; sympy needs ~log2(size) bits to compute it
        raise ModelRejected(
            f"The power {shortened(base)}**{shortened(exponent)} would have {size_text} digits; "
            f"sympy would take too long to evaluate it.")
    if not exponent.is_Integer and (_is_huge(base) or _is_huge(exponent)):
        raise ModelRejected(
            f"The power {shortened(base)}**{shortened(exponent)} has a number beyond the float64 range "
            f"(about 1.8e308) and a fractional exponent; sympy would take too long to evaluate it.")


def _log10_abs(number) -> float:
    """log10 of the absolute value of a non-zero finite sympy Number, for any size."""
    if number.is_Rational:
        return math.log10(abs(number.p)) - math.log10(number.q)
    sign, mantissa, exponent, bits = number._mpf_
    return math.log10(mantissa) + exponent * math.log10(2)


def _power_size(base, exponent) -> float:
    """About ``|log10(base ** exponent)|``: the number of digits of the result."""
    if not (base.is_finite and exponent.is_finite) or base.is_zero or exponent.is_zero:
        return 0.0
    log_base = abs(_log10_abs(base))
    if log_base == 0:
        return 0.0
    log_size = _log10_abs(exponent) + math.log10(log_base)
    return math.inf if log_size > 300 else 10**log_size


def _is_huge(value) -> bool:
    """A sympy number beyond the float64 range (numerator or denominator > 2**1024).

    sympy evaluates functions of such numbers numerically (floats) or looks
    for perfect powers (rationals), which takes minutes to forever.
    """
    if isinstance(value, sympy.Rational):
        return max(abs(value.p), value.q).bit_length() > 1024
    if isinstance(value, sympy.Float):
        sign, mantissa, exponent, bits = value._mpf_
        return bool(mantissa) and exponent + bits > 1025
    return False


# Cheap on numbers of any size; the other functions evaluate them numerically.
_SIZE_INDEPENDENT = frozenset({"abs", "Abs", "sign", "min", "max", "Min", "Max", "log"})


def checked_call(name: str, function: Callable) -> Callable:
    """``function`` wrapped so that its arguments are checked against the size budgets before sympy computes."""
    if name in _SIZE_INDEPENDENT:
        return function

    def call(*arguments):
        for argument in arguments:
            if _is_huge(argument):
                raise ModelRejected(
                    f"{name}() is applied to {shortened(argument, 20)}, a number beyond the float64 range "
                    f"(about 1.8e308); sympy would take too long to evaluate it.")
        return function(*arguments)

    return call


# name -> (function, minimum number of arguments, maximum number or None)
FUNCTIONS: dict[str, tuple[Callable, int, int | None]] = {
    "sin": (sympy.sin, 1, 1),
    "cos": (sympy.cos, 1, 1),
    "tan": (sympy.tan, 1, 1),
    "cot": (sympy.cot, 1, 1),
    "sec": (sympy.sec, 1, 1),
    "csc": (sympy.csc, 1, 1),
    "asin": (sympy.asin, 1, 1),
    "acos": (sympy.acos, 1, 1),
    "atan": (sympy.atan, 1, 1),
    "arcsin": (sympy.asin, 1, 1),
    "arccos": (sympy.acos, 1, 1),
    "arctan": (sympy.atan, 1, 1),
    "atan2": (sympy.atan2, 2, 2),
    "sinh": (sympy.sinh, 1, 1),
    "cosh": (sympy.cosh, 1, 1),
    "tanh": (sympy.tanh, 1, 1),
    "asinh": (sympy.asinh, 1, 1),
    "acosh": (sympy.acosh, 1, 1),
    "atanh": (sympy.atanh, 1, 1),
    "arcsinh": (sympy.asinh, 1, 1),
    "arccosh": (sympy.acosh, 1, 1),
    "arctanh": (sympy.atanh, 1, 1),
    "exp": (sympy.exp, 1, 1),
    "log": (sympy.log, 1, 2),
    "sqrt": (sympy.sqrt, 1, 1),
    # Python's abs() and pow(), exactly what parse_expr would call.
    "abs": (operator.abs, 1, 1),
    "Abs": (sympy.Abs, 1, 1),
    "pow": (checked_power, 2, 2),
    "sign": (sympy.sign, 1, 1),
    # The error function (the SRBench 2022 extrapolation ground truth); evaluated with scipy.special.erf.
    "erf": (sympy.erf, 1, 1),
    # parse_expr would call Python's min/max, which fail on symbols: sympy's Min/Max instead.
    "min": (sympy.Min, 2, None),
    "max": (sympy.Max, 2, None),
    "Min": (sympy.Min, 2, None),
    "Max": (sympy.Max, 2, None),
    # Aliases and helpers that real SR packages emit (class 7 of issue 14), each a sympy
    # object or a plain arithmetic function: ln (sympy's own alias of log); PySR/Operon
    # square and cube; gplearn's prefix form add(mul(X0, X1), ...); the 2023 entries'
    # Piecewise with its conditions and factor_terms. gplearn's div/log/sqrt/inv are
    # "protected" in gplearn itself; like SRBench, the model is read as plain arithmetic.
    "ln": (sympy.log, 1, 2),
    "square": (lambda x: checked_power(x, sympy.Integer(2)), 1, 1),
    "cube": (lambda x: checked_power(x, sympy.Integer(3)), 1, 1),
    "add": (operator.add, 2, 2),
    "sub": (operator.sub, 2, 2),
    "mul": (operator.mul, 2, 2),
    "div": (operator.truediv, 2, 2),
    "neg": (operator.neg, 1, 1),
    "inv": (lambda x: sympy.Integer(1) / x, 1, 1),
    "factor_terms": (sympy.factor_terms, 1, 1),
    "Piecewise": (sympy.Piecewise, 1, None),
    "ITE": (sympy.ITE, 3, 3),
    "And": (sympy.And, 2, None),
    "Or": (sympy.Or, 2, None),
    "Not": (sympy.Not, 1, 1),
    "Eq": (sympy.Eq, 2, 2),
    "Ne": (sympy.Ne, 2, 2),
    "re": (sympy.re, 1, 1),
    "im": (sympy.im, 1, 1),
    "floor": (sympy.floor, 1, 1),
    "ceiling": (sympy.ceiling, 1, 1),
}

# Only when re-reading sympy's own printed output (see latex_of): nothing beyond
# the functions above any more (kept as a hook).
PRINTED_FUNCTIONS: dict[str, tuple[Callable, int, int | None]] = {}

# Calls whose sympy evaluation compares its arguments pairwise (cost grows about as
# n**2.3 in the number of flattened arguments): they share a budget of n**2 per model.
PAIRWISE = frozenset({"min", "max", "Min", "Max", "Piecewise", "And", "Or"})
# A tenth of a second of sympy work at most (docs/decisions/2026-11-expression-budgets.md).
MAX_PAIRWISE_WORK = 600
# Algebraic helpers (factor_terms) cost more than linear time in their argument's
# size: at most this many nodes in all (docs/decisions/2026-11-expression-budgets.md).
MAX_HELPER_NODES = 2_000
HELPERS = frozenset({"factor_terms"})
# Nesting depth of the syntax tree (sympy's printers recurse; Python's own parser
# stops at 200 nested parentheses, but '**' chains and unary signs nest without them).
MAX_DEPTH = 100

#: Function names a model may call (``^`` is read as a power, like ``**``).
ALLOWED_FUNCTIONS = tuple(sorted(FUNCTIONS, key=str.lower))

# Names that mean a sympy constant unless they are feature names.
CONSTANTS = {"pi": sympy.pi, "E": sympy.E, "oo": sympy.oo, "zoo": sympy.zoo, "nan": sympy.nan, "I": sympy.I}

UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
OPERATOR_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.BitXor: "^",
    ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitAnd: "&", ast.Invert: "~", ast.Not: "not",
}
COMPARISONS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}

# Numbers (powers, products) are limited to this many decimal digits.
_MAX_DIGITS = 10_000
# Sums and products are evaluated left to right like Python would, which costs
# about n**2/2 term operations for an n-term chain. Past this budget a model is
# refused (products) or its remaining sums are built in one go (see _sum).
MAX_CHAIN_WORK = 50_000  # a few hundred factors (docs/decisions/2026-11-expression-budgets.md)
# Integer powers of a non-number: sympy's assumptions and polynomial algorithms turn x**k, and exp(a + k)
# (E**k * E**a), into dense polynomials of degree k, in work no signal stops; a degree of 1,000 stays
# cheap (docs/decisions/2026-11-expression-budgets.md).
_MAX_INTEGER_POWER = 1_000

NUMBER_KEY = object()

#: Float literals may have at most this many significant digits (float64 holds 17;
#: real SR output has at most 17). Cost grows faster than linearly with them.
MAX_LITERAL_DIGITS = 100
#: Float literals' decimal exponents (as written, and of the value: ``0.001e1002``
#: is 1e999) may lie between minus and plus this. sympy turns a literal into an
#: exact rational first, in C code no signal stops; every float64 value is
#: within the bound (docs/decisions/2026-11-expression-budgets.md).
MAX_LITERAL_EXPONENT = 1_000
_FLOAT_LITERAL = re.compile(r"(?P<whole>[0-9_]*)(?:\.(?P<fraction>[0-9_]*))?(?:[eE](?P<exponent>[+-]?[0-9_]+))?")


def check_float_literal(text: str) -> None:
    """Refuse a float literal whose exact value is costly to build (too many digits, huge exponent).

    ``text`` is Python's float literal syntax (already accepted by :mod:`ast`):
    digits with optional underscores, an optional fraction and exponent.
    """
    match = _FLOAT_LITERAL.fullmatch(text)
    if match is None:  # cannot happen after ast; refuse rather than guess
        raise ModelRejected(f"The number {shortened(text)} is not a plain decimal literal.")
    whole = match["whole"].replace("_", "").lstrip("0")
    fraction = (match["fraction"] or "").replace("_", "")
    exponent_text = (match["exponent"] or "0").replace("_", "")
    significant = (whole + fraction).lstrip("0")
    if len(exponent_text.lstrip("+-").lstrip("0")) > 6:
        exponent = leading = math.inf
    else:
        exponent = int(exponent_text)
        # Decimal exponent of the leading significant digit (as decimal.Decimal.adjusted()).
        leading = (exponent + len(whole) - 1 if whole else
                   exponent - (len(fraction) - len(fraction.lstrip("0"))) - 1 if significant else 0)
    worst = max(exponent, leading, key=abs)
    if abs(worst) > MAX_LITERAL_EXPONENT:
        shown = shortened(exponent_text, 20) if math.isinf(worst) else f"{worst:,}"
        raise ModelRejected(
            f"The number {shortened(text)} has a decimal exponent of {shown}; number literals are "
            f"limited to exponents from -{MAX_LITERAL_EXPONENT:,} to {MAX_LITERAL_EXPONENT:,} (float64 ranges "
            f"over about 1e-324 to 1.8e308).")
    if len(significant) > MAX_LITERAL_DIGITS:
        raise ModelRejected(
            f"The number {shortened(text)} has {len(significant):,} significant digits; number literals are "
            f"limited to {MAX_LITERAL_DIGITS} (float64 holds about 17).")


def shortened(value, limit: int = 40) -> str:
    """``str(value)`` cut to ``limit`` characters (with '...'), for messages."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def listed_names(names: Iterable[str], limit: int = 30) -> str:
    """The names joined by commas, the first ``limit`` of them and how many in all, for messages."""
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown}, ... ({len(names)} in all)"



def checked_operand(value, *, number: bool = False):
    """A value used by an operator or a function other than Piecewise: never a tuple.

    With ``number``, for arithmetic: never a condition either (sympy would raise a
    TypeError that says less).
    """
    if isinstance(value, tuple):
        raise ModelRejected(f"Tuples are only allowed as the (value, condition) pairs of Piecewise; "
                            f"found {shortened(value)}.")
    if number and isinstance(value, sympy.logic.boolalg.Boolean) and not isinstance(value, sympy.Expr):
        raise ModelRejected(f"'{shortened(value)}' is a condition, not a number; conditions are only allowed "
                            f"inside Piecewise, ITE, And, Or and Not.")
    return value


def _integer_powers(expression):
    """``(power, k)``: the integer degrees sympy's polynomial algorithms would give ``expression`` itself.

    ``x**(k/q)`` has degree ``k`` (in ``x**(1/q)``); ``exp(c*a + k)`` degree ``c`` and ``k`` (in ``E**a`` and ``E``).
    """
    if expression.is_Pow and expression.exp.is_Rational and not expression.base.is_Number:
        yield expression, expression.exp.p
    elif isinstance(expression, sympy.exp):
        for term in sympy.Add.make_args(expression.args[0]):
            coefficient = term.as_coeff_Mul()[0]
            if coefficient.is_Rational:
                yield expression, coefficient.p


def check_powers(value) -> None:
    """Refuse a built node, or one of its arguments (a product combines its factors' powers into new
    ones), whose integer degree exceeds :data:`_MAX_INTEGER_POWER`, before sympy computes with it."""
    if not isinstance(value, sympy.Expr):
        return
    for node in (value, *value.args):
        for power, degree in _integer_powers(node):
            if abs(degree) > _MAX_INTEGER_POWER:
                raise ModelRejected(
                    f"The model has {shortened(power)}, an integer power of {abs(degree):,} (written out, or from a "
                    f"whole number in an exponent); the limit is {_MAX_INTEGER_POWER:,}: sympy would compute with "
                    f"polynomials of that degree.")


def check_number(value) -> None:
    """Refuse exact numbers too long to compute with (floats stay cheap at any size)."""
    if isinstance(value, sympy.Rational) and max(abs(value.p), value.q).bit_length() > _MAX_DIGITS * 3.33:
        raise ModelRejected(f"The model computes a number with more than {_MAX_DIGITS:,} digits.")


#: CPU seconds after which parsing, LaTeX or the symbolic part of an evaluation is
