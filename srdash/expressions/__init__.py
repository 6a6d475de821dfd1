"""Model strings: safe parsing and SRBench 2022 complexity (the only module importing sympy).

Model strings come from competitors and are untrusted. :func:`parse_model` never
hands them to ``eval``, ``sympy.parse_expr`` or ``sympify`` (all of which run
Python code): it parses them with :mod:`ast`, checks every node against a
whitelist and builds the sympy expression itself, without recursion.

:func:`complexity_table` reproduces the SRBench 2022 complexity procedure
(``competition-2022/experiment/metrics/evaluation.py`` of cavalab/srbench):
``sympy.simplify`` under a time limit, then every float rounded to 3 decimals
(floats below 0.001 in absolute value replaced by 0), then ``components`` = the
number of nodes of ``sympy.preorder_traversal`` of the result and
``simplicity = round(-log(components) / log(5), 1)``. The sympy work runs in
worker processes (see :mod:`srdash.expressions._timelimit`) so the time limit is hard and
holds from any thread, and results are cached on disk (see :mod:`srdash.cache`).
"""

from __future__ import annotations

import ast
import math
import operator
import re
import signal
import sqlite3
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
import sympy

from srdash import cache as _cache
from srdash.expressions._numeric import compile_numeric, numeric_values
from srdash.expressions._timelimit import (DEFAULT_MEMORY_LIMIT, SoftTimeLimitExceeded, WorkerPool, soft_time_limit,
                                          thread_cpu_limit)
from srdash.errors import ModelRejected

# pandas is imported inside the functions that build tables: worker processes
# import this module and do not need it (it would add ~0.3 s to each start).

__all__ = [
    "ALLOWED_FUNCTIONS",
    "STATUSES",
    "complexity_table",
    "evaluate_model",
    "latex_of",
    "parse_model",
    "simplicity_from_components",
]

#: Values of the ``status`` column of :func:`complexity_table`.
STATUSES = ("ok", "timeout", "simplify_error", "rejected", "parse_error")

#: Columns of :func:`complexity_table`, in order.
COLUMNS = ("components", "simplicity", "simplified", "status", "reason", "seconds", "features_used")

# Bump when anything that changes a computed result changes (invalidates the cache).
# 2: undefined models rejected; 3: timeouts count CPU time only (a worker killed on the wall clock of a busy
# machine was cached as one)
_PROCEDURE = "srbench2022-complexity/3"


# ---------------------------------------------------------------------------
# Safe parsing
# ---------------------------------------------------------------------------


def _power(base, exponent):
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
            f"The power {_short(base)}**{_short(exponent)} would be a number with {size_text} "
            f"digits; numeric powers are limited to {_MAX_DIGITS:,} digits.")
    if size > 1e300:  # a float result; sympy needs ~log2(size) bits to compute it
        raise ModelRejected(
            f"The power {_short(base)}**{_short(exponent)} would have {size_text} digits; "
            f"sympy would take too long to evaluate it.")
    if not exponent.is_Integer and (_is_huge(base) or _is_huge(exponent)):
        raise ModelRejected(
            f"The power {_short(base)}**{_short(exponent)} has a number beyond the float64 range "
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


def _checked_call(name: str, function: Callable) -> Callable:
    if name in _SIZE_INDEPENDENT:
        return function

    def call(*arguments):
        for argument in arguments:
            if _is_huge(argument):
                raise ModelRejected(
                    f"{name}() is applied to {_short(argument, 20)}, a number beyond the float64 range "
                    f"(about 1.8e308); sympy would take too long to evaluate it.")
        return function(*arguments)

    return call


# name -> (function, minimum number of arguments, maximum number or None)
_FUNCTIONS: dict[str, tuple[Callable, int, int | None]] = {
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
    "pow": (_power, 2, 2),
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
    "square": (lambda x: _power(x, sympy.Integer(2)), 1, 1),
    "cube": (lambda x: _power(x, sympy.Integer(3)), 1, 1),
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
_PRINTED_FUNCTIONS: dict[str, tuple[Callable, int, int | None]] = {}

# Calls whose sympy evaluation compares its arguments pairwise (cost grows about as
# n**2.3 in the number of flattened arguments): they share a budget of n**2 per model.
_PAIRWISE = frozenset({"min", "max", "Min", "Max", "Piecewise", "And", "Or"})
# About 0.1 s of sympy work (24 arguments of one max, or 11 nested binary max).
_MAX_PAIRWISE_WORK = 600
# Algebraic helpers (factor_terms) cost more than linear time in their argument's
# size: at most this many nodes in all (about 0.1 s; the 2023 entries use ~50).
_MAX_HELPER_NODES = 2_000
_HELPERS = frozenset({"factor_terms"})
# Nesting depth of the syntax tree (sympy's printers recurse; Python's own parser
# stops at 200 nested parentheses, but '**' chains and unary signs nest without them).
_MAX_DEPTH = 100

#: Function names a model may call (``^`` is read as a power, like ``**``).
ALLOWED_FUNCTIONS = tuple(sorted(_FUNCTIONS, key=str.lower))

# Names that mean a sympy constant unless they are feature names.
_CONSTANTS = {"pi": sympy.pi, "E": sympy.E, "oo": sympy.oo, "zoo": sympy.zoo, "nan": sympy.nan, "I": sympy.I}

_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_OPERATOR_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.BitXor: "^",
    ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitAnd: "&", ast.Invert: "~", ast.Not: "not",
}
_COMPARISONS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}

# Numbers (powers, products) are limited to this many decimal digits.
_MAX_DIGITS = 10_000
# Sums and products are evaluated left to right like Python would, which costs
# about n**2/2 term operations for an n-term chain. Past this budget a model is
# refused (products) or its remaining sums are built in one go (see _sum).
_MAX_CHAIN_WORK = 50_000  # about 0.15 s of left-to-right products (316 factors)
# Integer powers of a non-number: sympy's assumptions and polynomial algorithms turn x**k, and exp(a + k)
# (E**k * E**a), into dense polynomials of degree k. cosh(tanh(x1**509477 + 1) + 1) took 10 s of CPU in
# cosh's own evaluation (is its argument zero? a gcd of degree 509,477); a degree of 1,000 costs
# milliseconds. e**1000 and x**1000 are beyond float64 for most inputs anyway.
_MAX_INTEGER_POWER = 1_000

_NUMBER_KEY = object()

#: Float literals may have at most this many significant digits (float64 holds 17;
#: real SR output has at most 17). Cost grows faster than linearly with them.
MAX_LITERAL_DIGITS = 100
#: Float literals' decimal exponents (as written, and of the value: ``0.001e1002``
#: is 1e999) may lie between minus and plus this. sympy turns a literal into an
#: exact rational first, in C code no signal stops: ``2e300000`` takes 6 s,
#: ``2e9999999`` more than 400 s; ``1e1000`` takes 0.1 ms (float64 itself ends
#: near 1e-324 and 1.8e308, so every float64 value is accepted, and more).
MAX_LITERAL_EXPONENT = 1_000
_FLOAT_LITERAL = re.compile(r"(?P<whole>[0-9_]*)(?:\.(?P<fraction>[0-9_]*))?(?:[eE](?P<exponent>[+-]?[0-9_]+))?")


def _check_float_literal(text: str) -> None:
    """Refuse a float literal whose exact value is costly to build (too many digits, huge exponent).

    ``text`` is Python's float literal syntax (already accepted by :mod:`ast`):
    digits with optional underscores, an optional fraction and exponent.
    """
    match = _FLOAT_LITERAL.fullmatch(text)
    if match is None:  # cannot happen after ast; refuse rather than guess
        raise ModelRejected(f"The number {_short(text)} is not a plain decimal literal.")
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
        shown = _short(exponent_text, 20) if math.isinf(worst) else f"{worst:,}"
        raise ModelRejected(
            f"The number {_short(text)} has a decimal exponent of {shown}; number literals are "
            f"limited to exponents from -{MAX_LITERAL_EXPONENT:,} to {MAX_LITERAL_EXPONENT:,} (float64 ranges "
            f"over about 1e-324 to 1.8e308).")
    if len(significant) > MAX_LITERAL_DIGITS:
        raise ModelRejected(
            f"The number {_short(text)} has {len(significant):,} significant digits; number literals are "
            f"limited to {MAX_LITERAL_DIGITS} (float64 holds about 17).")


def _short(value, limit: int = 40) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _list_names(names: Iterable[str], limit: int = 30) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown}, ... ({len(names)} in all)"


def _node_text(node: ast.AST) -> str:
    try:
        return _short(ast.unparse(node))
    except Exception:  # noqa: BLE001 - only used in messages
        return type(node).__name__


class _Builder:
    """Checks an ``ast`` tree and builds the sympy expression, without recursion."""

    def __init__(self, text: str, features: frozenset | None, max_nodes: int, printed: bool):
        self.text = text
        self.encoded = text.encode("utf-8")
        self.features = features
        self.max_nodes = max_nodes
        self.printed = printed
        self.functions = dict(_FUNCTIONS, **_PRINTED_FUNCTIONS) if printed else _FUNCTIONS
        self.symbols: dict[str, sympy.Symbol] = {}
        self.chain_work = 0
        self.pairwise_work = 0
        self.helper_nodes = 0

    # -- checking: ast -> program (postfix list of instructions) ---------------
    def compile(self, tree: ast.Expression) -> list[tuple]:
        program: list[tuple] = []
        stack: list[tuple] = [("node", tree.body, 1)]
        nodes = 0
        while stack:
            kind, item, depth = stack.pop()
            if kind == "emit":
                program.append(item)
                continue
            node = item
            nodes += 1
            if nodes > self.max_nodes:
                raise ModelRejected(f"The model has more than {self.max_nodes:,} nodes; it is too large to score.")
            if depth > _MAX_DEPTH:
                raise ModelRejected(f"The model is nested more than {_MAX_DEPTH} levels deep; it is too deep "
                                    f"to score.")
            node_type = type(node)
            deeper = depth + 1
            if node_type is ast.Constant:
                program.append(("value", self._constant(node)))
            elif node_type is ast.Name:
                program.append(("value", self._variable(node.id)))
            elif node_type is ast.UnaryOp:
                if type(node.op) in _UNARY:
                    stack.append(("emit", ("unary", _UNARY[type(node.op)]), 0))
                elif type(node.op) is ast.Invert:
                    stack.append(("emit", ("unary", operator.invert), 0))
                else:
                    raise self._operator_rejected(node.op)
                # Signs fold into the operand (sympy keeps no node for them): no extra depth.
                stack.append(("node", node.operand, depth))
            elif node_type is ast.BinOp:
                operands = self._binary(node, stack)
                nodes += len(operands) - 2  # the other operator nodes of a chain
                for operand in reversed(operands):
                    stack.append(("node", operand, deeper))
            elif node_type is ast.Call:
                function, arguments = self._call(node)
                name = node.func.id
                stack.append(("emit", ("call", _checked_call(name, function), len(arguments), name), 0))
                for argument in reversed(arguments):
                    stack.append(("node", argument, deeper))
            elif node_type is ast.Tuple:
                stack.append(("emit", ("tuple", len(node.elts)), 0))
                for element in reversed(node.elts):
                    stack.append(("node", element, deeper))
            elif node_type is ast.Compare and len(node.ops) == 1 and type(node.ops[0]) in _COMPARISONS:
                stack.append(("emit", ("binary", _COMPARISONS[type(node.ops[0])]), 0))
                stack.append(("node", node.comparators[0], deeper))
                stack.append(("node", node.left, deeper))
            else:
                raise self._node_rejected(node)
        return program

    def _constant(self, node: ast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None or value is Ellipsis:
            if isinstance(value, bool):
                return sympy.true if value else sympy.false
            raise ModelRejected(
                f"'{value}' is not a number; a model may only contain numbers, variables, "
                f"the operators + - * / ** ^ and the allowed functions.")
        if isinstance(value, (str, bytes)):
            raise ModelRejected(f"Strings are not allowed in a model (found {_node_text(node)}).")
        if isinstance(value, complex):
            raise ModelRejected(f"Complex literals are not allowed in a model (found {_node_text(node)}); "
                                f"write I for the imaginary unit.")
        if isinstance(value, int):
            return sympy.Integer(value)
        if isinstance(value, float):
            # Float from the literal's own text, as parse_expr's auto_number does:
            # the precision follows the number of digits written. sympy converts
            # the text to an exact rational first (C big-integer code no signal
            # stops): the literal's size is bounded before sympy sees it.
            text = self._literal_text(node)
            _check_float_literal(text)
            return sympy.Float(text)
        raise self._node_rejected(node)

    def _literal_text(self, node: ast.AST) -> str:
        if node.lineno == node.end_lineno == 1:
            return self.encoded[node.col_offset:node.end_col_offset].decode("utf-8")
        return ast.get_source_segment(self.text, node)

    def _variable(self, name: str):
        if name.startswith("_"):
            raise ModelRejected(f"Names starting with '_' are not allowed in a model: '{name}'.")
        if self.features is not None and name in self.features:
            return self._symbol(name)
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in self.functions:
            raise ModelRejected(f"'{name}' is a function and cannot be used as a variable; "
                                f"call it as {name}(...).")
        if self.features is not None:
            raise ModelRejected(
                f"Unknown variable '{name}'. The features of this dataset are: "
                f"{_list_names(sorted(self.features)) or '(none)'}.")
        return self._symbol(name)

    def _symbol(self, name: str) -> sympy.Symbol:
        symbol = self.symbols.get(name)
        if symbol is None:
            symbol = self.symbols[name] = sympy.Symbol(name)
        return symbol

    def _binary(self, node: ast.BinOp, stack: list) -> list[ast.AST]:
        op = type(node.op)
        if op in (ast.Add, ast.Sub):
            operands, ops = _left_chain(node, (ast.Add, ast.Sub))
            stack.append(("emit", ("sum", tuple(o is ast.Sub for o in ops)), 0))
            return operands
        if op in (ast.Mult, ast.Div):
            operands, ops = _left_chain(node, (ast.Mult, ast.Div))
            stack.append(("emit", ("product", tuple(o is ast.Div for o in ops)), 0))
            return operands
        if op is ast.Pow:
            stack.append(("emit", ("binary", _power), 0))
            return [node.left, node.right]
        if op in (ast.BitAnd, ast.BitOr):
            stack.append(("emit", ("binary", operator.and_ if op is ast.BitAnd else operator.or_), 0))
            return [node.left, node.right]
        raise self._operator_rejected(node.op)

    def _call(self, node: ast.Call) -> tuple[Callable, list[ast.AST]]:
        if not isinstance(node.func, ast.Name):
            if isinstance(node.func, (ast.Attribute, ast.Subscript, ast.Lambda)):
                raise self._node_rejected(node.func)
            raise ModelRejected(f"Only the allowed functions may be called, by name; "
                                f"{_node_text(node)} is not allowed.")
        name = node.func.id
        if name.startswith("_"):
            raise ModelRejected(f"Names starting with '_' are not allowed in a model: '{name}'.")
        if name not in self.functions:
            raise ModelRejected(f"Unknown function '{name}'. Allowed functions: {', '.join(ALLOWED_FUNCTIONS)}.")
        if node.keywords:
            keyword = node.keywords[0].arg
            shown = f"{keyword}=..." if keyword else "**..."
            raise ModelRejected(f"Keyword arguments ('{shown}') are not allowed in a model: {_node_text(node)}.")
        for argument in node.args:
            if isinstance(argument, ast.Starred):
                raise self._node_rejected(argument)
        function, least, most = self.functions[name]
        count = len(node.args)
        if count < least or (most is not None and count > most):
            if most is None:
                expected = f"at least {least} arguments"
            elif least == most:
                expected = f"{least} argument{'s' if least != 1 else ''}"
            else:
                expected = f"{least} to {most} arguments"
            raise ModelRejected(f"{name}() takes {expected}; got {count} in {_node_text(node)}.")
        return function, node.args

    def _operator_rejected(self, op: ast.AST) -> ModelRejected:
        symbol = _OPERATOR_SYMBOLS.get(type(op), type(op).__name__)
        return ModelRejected(f"The operator '{symbol}' is not allowed in a model; "
                             f"allowed operators: + - * / ** ^ (read as **).")

    def _node_rejected(self, node: ast.AST) -> ModelRejected:
        text = _node_text(node)
        if isinstance(node, ast.Attribute):
            return ModelRejected(f"Attribute access ('.{node.attr}') is not allowed in a model: {text}.")
        if isinstance(node, ast.Subscript):
            return ModelRejected(f"Subscripts ('[...]') are not allowed in a model: {text}.")
        if isinstance(node, ast.Lambda):
            return ModelRejected(f"Lambda functions are not allowed in a model: {text}.")
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return ModelRejected(f"Comprehensions are not allowed in a model: {text}.")
        if isinstance(node, ast.Starred):
            return ModelRejected(f"Starred arguments ('*...') are not allowed in a model: {text}.")
        if isinstance(node, ast.Compare):
            return ModelRejected(f"Comparisons are not allowed in a model: {text}.")
        if isinstance(node, ast.BoolOp):
            return ModelRejected(f"Boolean operators ('and', 'or') are not allowed in a model: {text}.")
        if isinstance(node, ast.IfExp):
            return ModelRejected(f"Conditional expressions ('... if ... else ...') are not allowed in a model: {text}.")
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
            return ModelRejected(f"Lists, tuples, sets and dictionaries are not allowed in a model: {text}.")
        if isinstance(node, ast.NamedExpr):
            return ModelRejected(f"Assignments (':=') are not allowed in a model: {text}.")
        if isinstance(node, (ast.JoinedStr, ast.FormattedValue)):
            return ModelRejected(f"Strings are not allowed in a model (found {text}).")
        return ModelRejected(f"{type(node).__name__} expressions are not allowed in a model: {text}.")

    # -- building: program -> sympy --------------------------------------------
    def execute(self, program: list[tuple]):
        values: list = []
        for instruction in program:
            kind = instruction[0]
            if kind == "value":
                values.append(instruction[1])
                continue
            if kind == "unary":
                function = instruction[1]
                result = function(_operand(values.pop(), number=function is not operator.invert))
            elif kind == "binary":
                function = instruction[1]
                number = function is _power
                right = _operand(values.pop(), number=number)
                result = function(_operand(values.pop(), number=number), right)
            elif kind == "sum":
                negated = instruction[1]
                operands = [_operand(value, number=True) for value in values[-len(negated):]]
                del values[-len(negated):]
                result = self._sum(operands, negated)
            elif kind == "product":
                divided = instruction[1]
                operands = [_operand(value, number=True) for value in values[-len(divided):]]
                del values[-len(divided):]
                result = self._product(operands, divided)
            elif kind == "call":
                count, name = instruction[2], instruction[3]
                arguments = values[len(values) - count:]
                del values[len(values) - count:]
                if name == "Piecewise":
                    for argument in arguments:
                        if not (isinstance(argument, tuple) and len(argument) == 2):
                            raise ModelRejected(f"Each argument of Piecewise must be a pair (value, condition); "
                                                f"got {_short(argument)}.")
                        _operand(argument[0]), _operand(argument[1])
                else:
                    arguments = [_operand(argument) for argument in arguments]
                if name in _PAIRWISE:
                    self._spend_pairwise(name, arguments)
                elif name in _HELPERS:
                    self.helper_nodes += sum(_count_components(argument) for argument in arguments)
                    if self.helper_nodes > _MAX_HELPER_NODES:
                        raise ModelRejected(
                            f"{name}() is applied to expressions of {self.helper_nodes:,} nodes in all; the limit "
                            f"is {_MAX_HELPER_NODES:,} (its cost grows faster than the expression's size).")
                result = instruction[1](*arguments)
            else:  # "tuple"
                count = instruction[1]
                result = tuple(values[len(values) - count:])
                del values[len(values) - count:]
            _check_number(result)
            _check_powers(result)
            values.append(result)
        (expression,) = values
        if isinstance(expression, tuple):
            raise ModelRejected("A model must be one expression, not a tuple; tuples are only allowed as the "
                                "(value, condition) pairs of Piecewise.")
        if not isinstance(expression, sympy.Expr):
            raise ModelRejected(f"The model is a condition ({_short(expression)}), not a value; conditions are "
                                f"only allowed inside Piecewise, ITE, And, Or and Not.")
        return expression

    def _spend_pairwise(self, name: str, arguments: list) -> None:
        # sympy flattens Max(Max(a, b), c) into Max(a, b, c): count the flattened arguments.
        size = sum(len(a.args) if type(a) in (sympy.Min, sympy.Max, sympy.And, sympy.Or) else 1
                   for a in arguments)
        self.pairwise_work += size * size
        if self.pairwise_work > _MAX_PAIRWISE_WORK:
            raise ModelRejected(
                f"The model's {name}() calls compare too many arguments ({name}() with {size} arguments "
                f"once nested calls are merged); sympy compares them pairwise, so a model may have at most "
                f"about {int(_MAX_PAIRWISE_WORK ** 0.5)} such arguments in all.")

    def _spend(self, length: int) -> bool:
        self.chain_work += length * (length - 1) // 2
        return self.chain_work <= _MAX_CHAIN_WORK

    def _sum(self, operands: list, negated: tuple[bool, ...]):
        # Python evaluates a - b + c as (a - b) + c; sympy's a - b is Add(a, -b).
        terms = [operands[0]] + [-term if minus else term for term, minus in zip(operands[1:], negated[1:])]
        if len(terms) > 2 and (_sum_is_order_free(terms) or not self._spend(len(terms))):
            # Same result as left to right, in O(n log n) instead of O(n**2).
            # (Past the work budget this also covers sums whose float
            # coefficients could differ in the last bit; documented.)
            return sympy.Add(*terms)
        result = operands[0]
        for term, minus in zip(operands[1:], negated[1:]):
            result = result - term if minus else result + term
        return result

    def _product(self, operands: list, divided: tuple[bool, ...]):
        # No shortcut: Mul(a, b, c) differs from (a*b)*c when a number meets a sum.
        if not self._spend(len(operands)):
            raise ModelRejected(
                f"The model's products are too long to evaluate left to right like Python (one has "
                f"{len(operands)} factors); it is too large to score.")
        result = operands[0]
        for factor, divide in zip(operands[1:], divided[1:]):
            result = result / factor if divide else result * factor
        return result


def _left_chain(node: ast.BinOp, ops: tuple[type, ...]) -> tuple[list[ast.AST], list[type | None]]:
    """Operands and operators of ``a op b op c ...`` (left-associative), left to right."""
    operands: list[ast.AST] = []
    operators: list[type | None] = []
    while isinstance(node, ast.BinOp) and type(node.op) in ops:
        operands.append(node.right)
        operators.append(type(node.op))
        node = node.left
    operands.append(node)
    operators.append(None)
    operands.reverse()
    operators.reverse()
    return operands, operators


def _sum_is_order_free(terms: list) -> bool:
    """Whether ``Add(*terms)`` is exactly the left-to-right sum of ``terms``.

    sympy's ``Add`` collects the numbers and the coefficients of like terms;
    only float rounding can make the collection order matter. It cannot when
    every collected value is a sum of at most two numbers (addition is
    commutative) or of exact rationals only. Infinities, ``nan``, float zeros
    and unevaluated numeric powers take special paths in ``Add.flatten``: not
    order-free.
    """
    collected: dict[Any, tuple[int, bool]] = {}
    for term in terms:
        for part in term.args if term.is_Add else (term,):
            if part is sympy.S.ComplexInfinity:
                return False
            if part.is_Number:
                if part.is_Float and part.is_zero:
                    return False  # sympy's 0 + 0.0 is the exact 0, but 7 + 0.0 is 7.0
                key, coefficient = _NUMBER_KEY, part
            elif part.is_Mul:
                coefficient, key = part.as_coeff_Mul()
            elif part.is_Pow and part.base.is_Number:
                return False
            else:
                key, coefficient = part, sympy.S.One
            if not coefficient.is_finite:
                return False
            count, exact = collected.get(key, (0, True))
            count, exact = count + 1, exact and coefficient.is_Rational
            if count > 2 and not exact:
                return False
            collected[key] = (count, exact)
    return True


def _operand(value, *, number: bool = False):
    """A value used by an operator or a function other than Piecewise: never a tuple.

    With ``number``, for arithmetic: never a condition either (sympy would raise a
    TypeError that says less).
    """
    if isinstance(value, tuple):
        raise ModelRejected(f"Tuples are only allowed as the (value, condition) pairs of Piecewise; "
                            f"found {_short(value)}.")
    if number and isinstance(value, sympy.logic.boolalg.Boolean) and not isinstance(value, sympy.Expr):
        raise ModelRejected(f"'{_short(value)}' is a condition, not a number; conditions are only allowed "
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


def _check_powers(value) -> None:
    """Refuse a built node, or one of its arguments (a product combines its factors' powers into new
    ones), whose integer degree exceeds :data:`_MAX_INTEGER_POWER`, before sympy computes with it."""
    if not isinstance(value, sympy.Expr):
        return
    for node in (value, *value.args):
        for power, degree in _integer_powers(node):
            if abs(degree) > _MAX_INTEGER_POWER:
                raise ModelRejected(
                    f"The model has {_short(power)}, an integer power of {abs(degree):,} (written out, or from a "
                    f"whole number in an exponent); the limit is {_MAX_INTEGER_POWER:,}: sympy would compute with "
                    f"polynomials of that degree.")


def _check_number(value) -> None:
    """Refuse exact numbers too long to compute with (floats stay cheap at any size)."""
    if isinstance(value, sympy.Rational) and max(abs(value.p), value.q).bit_length() > _MAX_DIGITS * 3.33:
        raise ModelRejected(f"The model computes a number with more than {_MAX_DIGITS:,} digits.")


#: CPU seconds after which parsing, LaTeX or the symbolic part of an evaluation is
#: stopped when it runs in a main thread (a backstop: the structural limits of the
#: parser keep honest and hostile models far below it).
BACKSTOP_SECONDS = 10.0


@contextmanager
def _bounded(what: str):
    """Stop the work inside after :data:`BACKSTOP_SECONDS` of CPU time, in any thread.

    In a main thread the limit is a CPU-time signal (``soft_time_limit``); in
    any other thread (a web server's or the review's worker threads) a watchdog
    thread reading this thread's CPU clock (``thread_cpu_limit``).
    Inside a worker whose task already runs under a CPU-time limit there is no
    second timer (it would replace the outer one). Neither interrupts one long
    C call: the parser's structural limits (node count, depth, digits, number
    literals, pairwise arguments) keep every single step small.
    """
    if threading.current_thread() is not threading.main_thread():
        limit = thread_cpu_limit(BACKSTOP_SECONDS)
    elif signal.getitimer(signal.ITIMER_PROF)[0] > 0:
        yield
        return
    else:
        limit = soft_time_limit(BACKSTOP_SECONDS, clock="cpu")
    try:
        with limit:
            yield
    except SoftTimeLimitExceeded:
        raise ModelRejected(f"{what} took more than {BACKSTOP_SECONDS:g} s of CPU time; the model is "
                            f"too costly to process.") from None


def _undefined_reason(expression) -> str:
    """Why a parsed model has no finite value anywhere it is used, or "" if it may have one.

    ``zoo`` (complex infinity, from a division by zero or ``log(0)``), ``nan`` and
    ``oo`` make every prediction undefined or infinite: such a model is a
    problem counted as the worst value, never scored as a tiny model.
    """
    found = [name for name, atom in (("zoo", sympy.zoo), ("nan", sympy.nan), ("oo", sympy.oo),
                                     ("-oo", -sympy.oo)) if expression.has(atom)]
    if not found:
        return ""
    return (f"The model's value is undefined or not finite: it contains {', '.join(found)} (e.g. from a "
            f"division by zero or log(0)); it counts as the worst value.")


def parse_model(
    text: str,
    *,
    features: Collection[str] | None = None,
    max_length: int = 20_000,
    max_nodes: int = 10_000,
) -> sympy.Expr:
    """Parse an untrusted model string into a sympy expression, safely.

    The string is parsed with :mod:`ast` and never evaluated: only numbers,
    variable names, unary ``+ -``, binary ``+ - * / **`` (and ``^``, read as a
    power), and calls of :data:`ALLOWED_FUNCTIONS` are accepted, plus, for the
    conditions of ``Piecewise``/``ITE``/``And``/``Or``/``Not``, the comparisons
    ``< <= > >=``, ``& | ~``, ``True``/``False`` and ``(value, condition)`` pairs
    (a model that is itself a condition or a tuple is refused). The aliases and
    helpers real SR packages emit are included: ``ln``, gplearn's ``add``,
    ``sub``, ``mul``, ``div``, ``neg``, ``inv``, PySR's ``square``, ``cube``,
    sympy's ``factor_terms``. Line breaks are spaces; ``#`` is refused (a
    comment would silently cut the model short). The sympy
    operations are applied in the same order as sympy's own string parser
    (with each feature a ``Symbol``) would apply them, so the
    result is the expression SRBench built for the same string. Differences,
    all on strings sympy's parser could not read sensibly: ``^`` is a power,
    ``min``/``max`` are sympy's ``Min``/``Max``, ``arcsin`` & co. are aliases of
    ``asin`` & co., names that are sympy objects other than the constants below
    (e.g. ``S``, ``N``, ``gamma``) are plain variables.

    Names resolve to, in order: a feature; the constants ``pi``, ``E``, ``oo``,
    ``zoo``, ``nan``, ``I``; an error for a function name; a new variable (only
    when ``features`` is None, otherwise an error).

    Parameters
    ----------
    text : str
        The model, e.g. ``"0.4*x1*x2 - 1.5*x1 + 1"``.
    features : collection of str, optional, keyword-only
        The dataset's feature names. When given, any other variable name is
        refused. When None, every name is accepted as a variable.
    max_length : int, keyword-only
        Longer strings are refused (status ``rejected``).
    max_nodes : int, keyword-only
        Strings whose syntax tree has more nodes are refused.

    Returns
    -------
    sympy.Expr
        The expression, built with sympy's automatic evaluation (as ``parse_expr``).

    Raises
    ------
    ModelRejected
        With ``status='parse_error'`` for empty strings and syntax errors,
        ``status='rejected'`` for everything outside the whitelist, numeric
        powers with more than 10,000 digits, functions and fractional powers of
        numbers beyond the float64 range (sympy would evaluate them for minutes),
        and strings or trees over the size limits: length, nodes, nesting depth
        (100), pairwise arguments of ``min``/``max``/``Piecewise``/``And``/``Or``
        (sympy compares them pairwise: about 24 in all), nodes given to
        ``factor_terms`` (2,000), factors of one product (316), or more than 10 s
        of CPU time in a main thread. ``reason`` says why.

    Examples
    --------
    >>> parse_model("0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1", features=["x1", "x2"])
    0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1
    >>> parse_model("x^2 + sqrt(abs(x))")
    x**2 + sqrt(Abs(x))
    >>> parse_model("__import__('os').system('ls')")
    Traceback (most recent call last):
    ...
    srdash.errors.ModelRejected: Attribute access ('.system') is not allowed in a model: __import__('os').system.
    >>> parse_model("x1 + x9", features=["x1", "x2"])
    Traceback (most recent call last):
    ...
    srdash.errors.ModelRejected: Unknown variable 'x9'. The features of this dataset are: x1, x2.
    """
    read = _syntax_tree(text, features=features, max_length=max_length)
    with _bounded("Parsing the model"):
        return _build(read, max_nodes=max_nodes, printed=False)


def _parse(text, *, features, max_length, max_nodes, printed):
    return _build(_syntax_tree(text, features=features, max_length=max_length), max_nodes=max_nodes,
                  printed=printed)


class _SyntaxTree(NamedTuple):
    text: str
    tree: ast.Expression
    features: frozenset | None


def _syntax_tree(text, *, features, max_length) -> _SyntaxTree:
    """Python's syntax tree of a model string (linear in its length, run outside any time limit).

    The callers start their CPU-time limit after this step: an exception delivered
    while CPython's compiler runs Python code (a garbage-collector callback) leaves
    the compiler's state inconsistent (``SystemError``).
    """
    if not isinstance(text, str):
        raise TypeError(f"A model must be a string. Got {type(text).__name__}.")
    feature_set = _feature_set(features)
    if len(text) > max_length:
        raise ModelRejected(f"The model is {len(text):,} characters long; the limit is {max_length:,}.")
    # '^' means power, with the precedence of '**' (as sympy's convert_xor):
    # rewrite it before parsing. Python's '^' (xor) binds looser than '+'.
    text = text.strip().replace("^", "**")
    if "#" in text:
        # A comment would silently cut the model short ('x1 # + x2' is x1).
        raise ModelRejected("Comments ('#') are not allowed in a model.")
    # A model printed over several lines (e.g. a long rational function) is one expression.
    text = " ".join(text.splitlines())
    if not text:
        raise ModelRejected("empty model", status="parse_error")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        if exc.offset is None:
            where = ""
        else:
            where = f" (line {exc.lineno}, column {exc.offset})" if exc.offset else " at the end of the model"
        raise ModelRejected(f"The model is not valid syntax: {exc.msg}{where}.", status="parse_error") from None
    except (RecursionError, MemoryError):
        raise ModelRejected("The model is nested too deeply for Python's parser.", status="parse_error") from None
    except ValueError as exc:  # null bytes, integer literals over 4300 digits
        raise ModelRejected(f"The model cannot be parsed: {_short(exc, 120)}.", status="parse_error") from None
    return _SyntaxTree(text, tree, feature_set)


def _build(read: _SyntaxTree, *, max_nodes, printed):
    """The sympy expression of a checked syntax tree (see :func:`parse_model`)."""
    builder = _Builder(read.text, read.features, max_nodes, printed)
    program = builder.compile(read.tree)
    try:
        return builder.execute(program)
    except ModelRejected:
        raise
    except (RecursionError, MemoryError) as exc:
        raise ModelRejected(f"The model is too deeply nested or too large for sympy ({type(exc).__name__}).") from None
    except Exception as exc:  # noqa: BLE001 - sympy refusing an operation (e.g. TypeError)
        raise ModelRejected(f"sympy cannot build this model: {type(exc).__name__}: {_short(exc, 200)}") from None


def _feature_set(features) -> frozenset | None:
    if features is None:
        return None
    if isinstance(features, str):
        raise TypeError(f"features must be a collection of names such as ['x1', 'x2'], not the string {features!r}.")
    names = frozenset(features)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"Feature names must be strings. Got {name!r}.")
    return names


# ---------------------------------------------------------------------------
# SRBench 2022 complexity
# ---------------------------------------------------------------------------


def _round_floats(ex1, dec=3):
    """The organisers' ``round_floats``, reproduced literally (including its quirks:
    it walks the *original* expression and substitutes into the running one)."""
    ex2 = ex1
    for a in sympy.preorder_traversal(ex1):
        if isinstance(a, sympy.Float):
            if abs(a) < 10 ** (-dec):
                ex2 = ex2.subs(a, sympy.Integer(0))
            else:
                ex2 = ex2.subs(a, round(a, dec))
    return ex2


def _count_components(expression) -> int:
    return sum(1 for _ in sympy.preorder_traversal(expression))


def simplicity_from_components(components):
    """SRBench 2022 simplicity: ``round(-log(components) / log(5), 1)``.

    Computed as the organisers did, ``-numpy.round(numpy.log(c) / numpy.log(5), 1)``
    (numpy rounds halves to even). Higher is simpler: 1 component gives 0,
    5 give -1, 25 give -2.

    Parameters
    ----------
    components : float or array_like
        Number of nodes of the simplified, rounded model (>= 1). NaN (unknown)
        gives NaN.

    Returns
    -------
    float or numpy.ndarray
        A float for scalar input, an array of the same shape otherwise.

    Raises
    ------
    ValueError
        If a component count is below 1.

    Examples
    --------
    >>> simplicity_from_components(3)  # x1 + x2: Add, x1, x2
    -0.7
    >>> simplicity_from_components([1, 5, 25, float("nan")])
    array([ 0., -1., -2., nan])
    """
    values = np.asarray(components, dtype=float)
    below = values < 1  # NaN compares False
    if below.any():
        raise ValueError(f"components must be at least 1 (a model has at least one node). "
                         f"Got {values[below].flat[0]:g}.")
    with np.errstate(divide="ignore", invalid="ignore"):
        result = -np.round(np.log(values) / np.log(5), 1) + 0.0  # + 0.0 turns -0.0 into 0.0
    return float(result) if result.ndim == 0 else result


@dataclass(frozen=True)
class _Settings:
    """Everything a worker needs besides the model (picklable)."""

    timeout: float = 10.0
    decimals: int = 3
    max_length: int = 20_000
    max_nodes: int = 10_000
    simplify: bool = True
    #: Replaces ``sympy.simplify`` (tests only); must be importable by the workers.
    simplifier: Callable | None = None
    #: What is counted (:mod:`srdash.expressions.measures`): the SRBench 2022 components of the
    #: simplified model, or the nodes of the tree as submitted or after rounding its floats.
    measure: str = "simplified-components"

    @property
    def grace(self) -> float:
        """Extra time beyond ``timeout`` for parsing, rounding and counting."""
        return max(2.0, 0.5 * self.timeout)

    @property
    def hard_limit(self) -> float:
        """CPU seconds of one model's task after which the parent kills its worker.

        The soft limits inside the task and this hard limit all count the task's
        own CPU time, so that a loaded machine does not change a verdict; the hard
        limit stops work stuck where the soft limits cannot reach it (one long C
        call), after the soft ones have had their chance.
        """
        return self.timeout + self.grace

    def cache_identity(self) -> dict:
        return {
            # measures' procedure 2: timeouts count CPU time only (as _PROCEDURE 3)
            "procedure": _PROCEDURE if self.measure == "simplified-components" else f"srdash-measure/{self.measure}/2",
            "sympy": sympy.__version__,
            # not the time limit: each cached row records its own (srdash.cache)
            "decimals": self.decimals,
            "max_length": self.max_length,
            "max_nodes": self.max_nodes,
        }


class _Outcome(NamedTuple):
    status: str
    components: float
    simplified: str
    reason: str
    features_used: str
    seconds: float = math.nan
    cacheable: bool = False
    cpu_seconds: float = math.nan
    from_cache: bool = False


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _complexity_task(model: str, features: tuple[str, ...] | None, settings: _Settings) -> tuple:
    """Complexity of one model; runs in a worker process (main thread, so SIGALRM works).

    Returns the fields of :class:`_Outcome` without ``seconds``.
    """
    # str() of an expression with an integer over 4300 digits raises ValueError
    # otherwise; numbers are bounded by the parser (and the time limit).
    if hasattr(sys, "set_int_max_str_digits"):  # Python >= 3.10.7
        sys.set_int_max_str_digits(0)
    # CPU time of this worker: the same model gets the same outcome on a busy machine
    budget_end = time.process_time() + settings.timeout + settings.grace / 2

    def remaining() -> float:
        return max(0.05, budget_end - time.process_time())

    nan = math.nan
    as_submitted = settings.measure != "simplified-components"
    if as_submitted and isinstance(model, str):
        model = model.replace("\n", "")  # as parse_submitted_model (and sympify) read it
    try:
        with soft_time_limit(remaining(), clock="cpu"):
            expression = _parse(model, features=features, max_length=settings.max_length,
                                max_nodes=settings.max_nodes, printed=False)
    except ModelRejected as exc:
        return (exc.status, nan, "", exc.reason, "", True)
    except SoftTimeLimitExceeded:
        return ("timeout", nan, "", f"Building the expression took longer than "
                f"{settings.timeout + settings.grace / 2:g} s.", "", False)
    if as_submitted:
        from srdash.expressions.measures import count_nodes

        try:
            with soft_time_limit(remaining(), clock="cpu"):
                counted, nodes = count_nodes(expression, settings.measure)
                text = str(counted)
        except SoftTimeLimitExceeded:
            return ("timeout", nan, "", f"Counting the nodes did not finish within {settings.timeout:g} s.",
                    "", False)
        except Exception as exc:  # noqa: BLE001 - RecursionError, MemoryError, sympy errors
            return ("simplify_error", nan, "", _clip(f"Counting the nodes failed ({type(exc).__name__}: {exc})."),
                    "", not isinstance(exc, MemoryError))
        return ("ok", float(nodes), text, "", "", True)
    undefined = _undefined_reason(expression)
    if undefined:
        return ("rejected", nan, "", undefined, "", True)

    status, reason, cacheable = "ok", "", True
    simplified = expression
    if settings.simplify:
        simplify = settings.simplifier or sympy.simplify
        try:
            with soft_time_limit(min(settings.timeout, remaining()), clock="cpu"):
                simplified = simplify(expression)
        except SoftTimeLimitExceeded:
            status, cacheable = "timeout", False
            reason = (f"sympy.simplify did not finish within {settings.timeout:g} s; components "
                      f"counted on the unsimplified expression (as SRBench 2022 did).")
        except MemoryError:
            status, cacheable = "simplify_error", False
            reason = ("sympy.simplify ran out of memory (worker memory limit); components counted "
                      "on the unsimplified expression.")
        except Exception as exc:  # noqa: BLE001 - SRBench kept the unsimplified model on any error
            status = "simplify_error"
            reason = _clip(f"sympy.simplify failed ({type(exc).__name__}: {exc}); components counted on "
                           f"the unsimplified expression (as SRBench 2022 did).")
    try:
        with soft_time_limit(remaining(), clock="cpu"):
            rounded = _round_floats(simplified, settings.decimals)
            components = _count_components(rounded)
            text = str(rounded)
            used = " ".join(sorted(symbol.name for symbol in rounded.free_symbols))
    except SoftTimeLimitExceeded:
        return ("timeout", nan, "", (reason + " " if reason else "") + "Rounding and counting the "
                "expression did not finish in time.", "", False)
    except Exception as exc:  # noqa: BLE001 - RecursionError, MemoryError, sympy errors
        return ("simplify_error", nan, "", _clip(f"Rounding and counting the expression failed "
                f"({type(exc).__name__}: {exc})."), "", cacheable and not isinstance(exc, MemoryError))
    return (status, float(components), text, reason, used, cacheable)


def _timed_complexity_task(model: str, features: tuple[str, ...] | None, settings: _Settings) -> tuple:
    """:func:`_complexity_task` plus the CPU seconds the worker spent on it (cached with the result)."""
    # sympy's cache would make a model's CPU time (and so a timeout) depend on what the worker did before
    sympy.core.cache.clear_cache()
    start = time.process_time()
    return (*_complexity_task(model, features, settings), time.process_time() - start)


@dataclass(frozen=True)
class _NotAString:
    """Stands for a model value that is not a string (refused without a worker)."""

    type_name: str


def _model_texts(models) -> tuple[list, Any]:
    import pandas as pd

    if isinstance(models, str):
        raise TypeError("models must be a sequence of model strings, not a single string; "
                        "wrap it in a list.")
    index = models.index if isinstance(models, pd.Series) else pd.RangeIndex(len(models))
    texts: list = []
    for value in (models.tolist() if isinstance(models, pd.Series) else list(models)):
        if isinstance(value, str):
            texts.append(value)
        elif value is None or value is pd.NA or value is pd.NaT:
            texts.append(None)
        elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
            # a constant model that pandas read as a number
            texts.append(None if math.isnan(value) else str(value))
        else:
            texts.append(_NotAString(type(value).__name__))
    return texts, index


def _feature_lists(features, count: int) -> list[tuple[str, ...] | None]:
    if features is None:
        return [None] * count
    if isinstance(features, str):
        raise TypeError(f"features must be a collection of names such as ['x1', 'x2'] (or one "
                        f"collection per model), not the string {features!r}.")
    entries = list(features)
    if all(isinstance(entry, str) for entry in entries):
        if any(len(entry.split()) > 1 for entry in entries):
            raise TypeError("features looks like one space-separated string per model; give one collection "
                            "of names per model instead, e.g. [text.split() for text in features].")
        shared = tuple(sorted(set(entries)))
        return [shared] * count
    if len(entries) != count:
        raise ValueError(f"features has {len(entries)} entries but there are {count} models; give one "
                         f"collection of names for all models or one per model.")
    result = []
    for entry in entries:
        if entry is None or (isinstance(entry, float) and math.isnan(entry)):
            result.append(None)
        elif isinstance(entry, str):
            raise TypeError(f"Each entry of features must be a collection of names or None, not the "
                            f"string {entry!r}.")
        else:
            result.append(tuple(sorted(set(_feature_set(entry)))))
    return result


def complexity_table(
    models,
    *,
    features=None,
    timeout: float = 10.0,
    jobs: int = 1,
    cache=None,
    progress: Callable[[int, int, dict], None] | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    scheduler=None,
    retry_timeouts: bool = False,
    _measure: str = "simplified-components",
):
    """SRBench 2022 complexity of each model string, under a hard time limit.

    For each model: parse safely (:func:`parse_model`), ``sympy.simplify`` it
    within ``timeout`` seconds (on timeout or error the unsimplified expression
    is kept, as SRBench did), round every float to 3 decimals (floats below
    0.001 in absolute value become 0), count the nodes of
    ``sympy.preorder_traversal``, and compute
    ``simplicity = round(-log(components) / log(5), 1)``.

    The sympy work runs in ``jobs`` worker processes (also for ``jobs=1``), so
    the limit holds from any thread. The limit counts the CPU time the worker
    spent on the model (not its start, not the wall clock), so that the outcome
    does not depend on the machine's load. A worker whose model has used
    ``timeout + grace`` seconds of CPU time (grace = max(2 s, timeout / 2)) is
    killed and replaced; the model gets status ``timeout`` and the components of its
    unsimplified expression, counted by a fresh worker (NaN if that fails too).
    Each worker's memory is capped (``memory_limit``). A failing model never
    stops the others. Identical (model, features) pairs are computed
    once; results are cached on disk (see :mod:`srdash.cache`).

    Parameters
    ----------
    models : sequence of str or pandas.Series
        Model strings; None/NaN means a missing model.
    features : None, collection of str, or sequence of (collection of str or None), keyword-only
        Allowed variable names: None (any name), one collection for every
        model, or one entry per model.
    timeout : float, keyword-only
        Seconds allowed for ``sympy.simplify`` on one model (SRBench: 10).
    jobs : int, keyword-only
        Number of worker processes.
    cache : None, False, path or srdash.cache.ComplexityCache, keyword-only
        None: the default cache file (``$SRDASH_CACHE_DIR`` or the user cache
        directory); a path: that SQLite file; False: no cache. Timeouts are
        cached with their limit: the same or a shorter limit reuses them, a
        longer one computes them again.
    progress : callable, optional, keyword-only
        Called as ``progress(done, total, counts_by_status)`` as results arrive
        (``done`` and ``total`` count rows).
    memory_limit : int or None, keyword-only
        Bytes of address space each worker may use beyond its size after
        start-up (default 4 GiB): a runaway simplification then fails with
        ``MemoryError`` (status ``simplify_error``, not cached).
    scheduler : None, False, str or distributed.Client, keyword-only
        Run the workers on a Dask cluster instead (same task, limits and
        results; ``jobs`` is then ignored): an address ``tcp://HOST:PORT`` or a
        client. None: the ``SRDASH_SCHEDULER`` environment variable if set, else
        local processes; False: local processes. See :mod:`srdash.expressions.distributed`.
    retry_timeouts : bool, keyword-only
        Compute cached timeouts again even under the same limit.

    Returns
    -------
    pandas.DataFrame
        Same index and order as ``models``, columns:

        - ``components`` (float): node count; NaN when the model was refused or
          could not be counted.
        - ``simplicity`` (float): from ``components``; NaN when it is NaN.
        - ``simplified`` (str): the rounded simplified expression ("" if none).
        - ``status`` (str): one of :data:`STATUSES`: ``ok``; ``timeout``
          (simplify ran out of time: unsimplified expression counted);
          ``simplify_error`` (simplify raised: unsimplified expression counted);
          ``rejected`` (outside the whitelist, too large, or undefined or not
          finite everywhere, e.g. ``1/0 + x1``: no components, the worst
          simplicity); ``parse_error``
          (empty or not valid syntax).
        - ``reason`` (str): why, "" when ``ok``.
        - ``seconds`` (float): time spent computing the model (when it was
          computed, for cached results).
        - ``features_used`` (str): sorted, space-separated variables of the
          simplified model (a feature that cancels out is not used).

        ``table.attrs["cache"]`` says how many rows came from the cache
        (``{"rows": ..., "from_cache": ..., "computed": ...}``, ``computed``
        counting distinct computations).

    Examples
    --------
    >>> table = complexity_table(["x1 + x2", "x1/x1 + 0.0004*x2", "open('f')"], cache=False)
    >>> table[["components", "simplicity", "simplified", "status"]]
       components  simplicity simplified    status
    0         3.0        -0.7    x1 + x2        ok
    1         1.0         0.0          1        ok
    2         NaN         NaN             rejected
    >>> table["features_used"].tolist()
    ['x1 x2', '', '']
    >>> table.loc[2, "reason"].split(". ")[0]
    "Unknown function 'open'"
    """
    texts, index = _model_texts(models)
    feature_lists = _feature_lists(features, len(texts))
    if not (isinstance(timeout, (int, float)) and 0 < timeout < math.inf):
        raise ValueError(f"The 'timeout' option must be a positive number of seconds. Got {timeout!r}.")
    if not (isinstance(jobs, (int, np.integer)) and not isinstance(jobs, bool) and jobs >= 1):
        raise ValueError(f"The 'jobs' option must be a positive integer. Got {jobs!r}.")
    settings = _Settings(timeout=float(timeout), measure=_measure)
    outcomes = _compute(list(zip(texts, feature_lists)), settings, jobs=int(jobs), cache=cache,
                        progress=progress, memory_limit=memory_limit, scheduler=scheduler,
                        retry_timeouts=retry_timeouts)
    table = _as_table(outcomes, index)
    computed = {pair for pair, outcome in zip(zip(texts, feature_lists), outcomes)
                if not outcome.from_cache and isinstance(pair[0], str)}
    table.attrs["cache"] = {"rows": len(outcomes), "from_cache": sum(o.from_cache for o in outcomes),
                            "computed": len(computed)}
    return table


def _as_table(outcomes: Sequence[_Outcome], index):
    import pandas as pd

    components = np.array([o.components for o in outcomes], dtype=float)
    return pd.DataFrame(
        {
            "components": components,
            "simplicity": simplicity_from_components(components),
            "simplified": [o.simplified for o in outcomes],
            "status": [o.status for o in outcomes],
            "reason": [o.reason for o in outcomes],
            "seconds": np.array([o.seconds for o in outcomes], dtype=float),
            "features_used": [o.features_used for o in outcomes],
        },
        index=index,
        columns=list(COLUMNS),
    )


def _open_cache(cache) -> tuple[_cache.ComplexityCache | None, bool]:
    """The cache to use and whether we opened it (and must close it)."""
    if cache is False:
        return None, False
    if isinstance(cache, _cache.ComplexityCache):
        return cache, False
    if cache is None or cache is True:
        store = _cache.ComplexityCache()
    else:
        store = _cache.ComplexityCache(cache)
    return store, True


def _worker_pool(settings: _Settings, *, processes: int, memory_limit, scheduler):
    """Local worker processes, or a Dask cluster when a scheduler is given or configured."""
    if scheduler is not False:
        from srdash.expressions.distributed import DaskWorkerPool, resolve_scheduler

        resolved = resolve_scheduler(scheduler)
        if resolved is not None:
            return DaskWorkerPool(_timed_complexity_task, scheduler=resolved, time_limit=settings.hard_limit,
                                  memory_limit=memory_limit, warm_up=_warm_up)
    return WorkerPool(_timed_complexity_task, processes=processes, time_limit=settings.hard_limit,
                      memory_limit=memory_limit, keep_spares=True, warm_up=_warm_up)


def _warm_up() -> None:
    """Run once by each new worker before its first task: sympy's lazy imports and first-call set-up (about
    0.1 s of CPU) would otherwise count against the first model's time limit, and only where a worker is new."""
    expression = parse_model("exp(x1)/(x2 + 1) + log(x1**2) + sin(x1)*cos(x2) + sqrt(x1) + 0.5*x1*x2")
    _round_exactly(sympy.simplify(expression))
    _count_components(_round_floats(expression))
    bool(expression.is_constant(simplify=False))


def _compute(pairs, settings: _Settings, *, jobs: int, cache, progress, memory_limit,
             scheduler=False, retry_timeouts: bool = False) -> list[_Outcome]:
    """Outcomes for (model, features) pairs: cache, then workers; each distinct pair once."""
    rows_of: dict[tuple, list[int]] = {}
    for row, pair in enumerate(pairs):
        rows_of.setdefault(pair, []).append(row)
    results: dict[tuple, _Outcome] = {}
    counts: Counter = Counter()
    done = 0
    total = len(pairs)

    def record(pair, outcome: _Outcome) -> None:
        nonlocal done
        results[pair] = outcome
        done += len(rows_of[pair])
        counts[outcome.status] += len(rows_of[pair])

    for pair in rows_of:
        if pair[0] is None:
            record(pair, _Outcome("parse_error", math.nan, "", "empty model", "", 0.0, False))
        elif isinstance(pair[0], _NotAString):
            record(pair, _Outcome("rejected", math.nan, "", f"The model is not a string "
                                  f"(got {pair[0].type_name}).", "", 0.0, False))

    store, owned = _open_cache(cache)
    keys: dict[tuple, str] = {}
    pending_writes: list[tuple[str, dict]] = []
    try:
        if store is not None:
            identity = settings.cache_identity()
            keys = {pair: _cache.cache_key(pair[0], pair[1], identity) for pair in rows_of if pair not in results}
            try:
                found = store.get_many(keys.values(), limit=settings.timeout,
                                       retry_timeouts=True if retry_timeouts else None)
            except (sqlite3.Error, OSError) as exc:
                warnings.warn(f"The complexity cache {store.path} cannot be read ({exc}); continuing "
                              f"without it.", RuntimeWarning, stacklevel=3)
                store, found = None, {}
            for pair, key in keys.items():
                entry = found.get(key)
                if entry is not None:
                    record(pair, _Outcome(entry["status"], entry["components"], entry["simplified"],
                                          entry["reason"], entry["features_used"], entry["seconds"], False,
                                          entry["cpu_seconds"], True))
        if progress is not None:
            progress(done, total, dict(counts))

        missing = [pair for pair in rows_of if pair not in results]
        if missing:
            with _worker_pool(settings, processes=min(jobs, len(missing)), memory_limit=memory_limit,
                              scheduler=scheduler) as pool:
                for pair in missing:
                    pool.submit((pair, None, 0.0), pair[0], pair[1], settings)
                for result in pool.results():
                    pair, first_failure, first_seconds = result.task_id
                    if first_failure is None and result.outcome in ("killed", "died"):
                        # Count the unsimplified expression in a fresh worker, as after a soft timeout.
                        pool.submit((pair, result, result.seconds), pair[0], pair[1],
                                    replace(settings, simplify=False))
                        continue
                    outcome = _outcome_of(result, first_failure, first_seconds, settings)
                    record(pair, outcome)
                    # A timeout is kept with its limit, also a hard kill (the CPU-time limit plus a grace:
                    # work stuck where no signal reaches, e.g. in C): recomputing it would cost the
                    # whole limit on every scoring and every dashboard kernel. The cache
                    # answers it under the same or a shorter limit only; --retry-timeouts computes it again.
                    if store is not None and (outcome.cacheable or outcome.status == "timeout"):
                        pending_writes.append((keys[pair], {"model": pair[0], **outcome._asdict()}))
                        if len(pending_writes) >= 200:
                            _write(store, pending_writes, limit=settings.timeout)
                    if progress is not None:
                        progress(done, total, dict(counts))
    finally:
        if store is not None:
            _write(store, pending_writes, limit=settings.timeout)
            if owned:
                store.close()
    return [results[pair] for pair in pairs]


def _outcome_of(result, first_failure, first_seconds: float, settings: _Settings) -> _Outcome:
    seconds = result.seconds + first_seconds
    if result.outcome == "returned":
        outcome = _Outcome(*result.value[:5], seconds, result.value[5], result.value[6])
    elif result.outcome == "raised":
        outcome = _Outcome("simplify_error", math.nan, "", _clip(f"Internal error in the worker: {result.error}"),
                           "", seconds, False)
    else:
        outcome = _Outcome("simplify_error", math.nan, "", f"The worker failed again: {result.error}.",
                           "", seconds, False)
    if first_failure is None:
        return outcome
    if first_failure.outcome == "killed":
        status = "timeout"
        what = (f"The model used {settings.hard_limit:g} s of CPU time without finishing (time limit "
                f"{settings.timeout:g} s) and its worker was killed")
    else:
        status = "simplify_error"
        what = f"The worker processing the model died ({first_failure.error.removeprefix('the worker process died ')})"
    if outcome.status == "ok":
        return _Outcome(status, outcome.components, outcome.simplified,
                        f"{what}; components counted on the unsimplified expression.",
                        outcome.features_used, seconds, False)
    if outcome.status in ("rejected", "parse_error"):
        return outcome._replace(seconds=seconds)
    return _Outcome(status, math.nan, "", _clip(f"{what}; counting the unsimplified expression failed too: "
                                                 f"{outcome.reason}"), "", seconds, False)


def _write(store, pending: list, *, limit: float | None = None, kind: str = "complexity") -> None:
    if not pending:
        return
    try:
        store.put_many(pending, kind=kind, limit=limit)
    except (sqlite3.Error, OSError) as exc:
        warnings.warn(f"Could not write to the complexity cache {store.path} ({exc}).", RuntimeWarning,
                      stacklevel=4)
    pending.clear()


# ---------------------------------------------------------------------------
# Helpers for other modules (which must not import sympy)
# ---------------------------------------------------------------------------


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
    read = _syntax_tree(simplified_text, features=features, max_length=200_000)
    with _bounded("Writing the model as LaTeX"):
        expression = _build(read, max_nodes=50_000, printed=True)
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
    read = _syntax_tree(text, features=features, max_length=20_000)
    with _bounded("Preparing the model for evaluation"):
        expression = _build(read, max_nodes=10_000, printed=False)
        undefined = _undefined_reason(expression)
        if undefined:
            raise ModelRejected(undefined)
        symbols = sorted(expression.free_symbols, key=lambda symbol: symbol.name)
        missing = [symbol.name for symbol in symbols if symbol.name not in arrays]
        if missing:
            raise ModelRejected(f"The model uses {', '.join(repr(m) for m in missing)} but the data has no "
                                f"such column. Columns: {_list_names(sorted(arrays)) or '(none)'}.")
        function = _compiled(symbols, expression)

    def with_floats():  # e.g. an integer too large for float: evaluate with floats throughout
        with _bounded("Preparing the model for evaluation"):
            return _compiled(symbols, expression.evalf())

    return numeric_values(function, [arrays[symbol.name] for symbol in symbols], length, fallback=with_floats)


def _compiled(symbols, expression):
    """``compile_numeric`` with every failure (printing, code generation) turned into a refusal."""
    try:
        return compile_numeric(symbols, expression)
    except ModelRejected:
        raise
    except Exception as exc:  # noqa: BLE001 - KeyError for zoo, RecursionError, SyntaxError, ...
        raise ModelRejected(f"The model cannot be compiled for numeric evaluation: {type(exc).__name__}: "
                            f"{_short(exc, 200)}") from None


# ==========================================================================================
# Exact re-discovery: symbolic equivalence with a ground truth (SRBench 2022 rule).
# Section appended for srdash.judging.properties (the exact-formula property); public:
# equivalent_models, equivalence_table. Every symbolic step is a WorkerPool task under a
# hard time limit, so a hanging simplification can never block the caller.
# ==========================================================================================

__all__ += ["equivalent_models", "equivalence_table"]


def _round_exactly(expression):
    """Floats rounded to 3 decimals as in the 2022 scorer (below 0.001 -> 0), but as exact decimals.

    The 2022 ``round_floats`` used sympy's ``round(Float, 3)``, which also cuts the binary
    precision (0.4 becomes 0.4000244140625): a model equal to the truth only after expanding,
    ``(0.4*x1 + 2.5)*(x2 - 3.75) + 10.375``, then differs from it by 9.155e-5*x1 and is not
    equivalent. Exact decimals (0.4 -> 2/5) keep every later step exact.
    """
    replacements = {}
    for node in sympy.preorder_traversal(expression):
        if isinstance(node, sympy.Float):
            value = round(float(node), 3)
            replacements[node] = sympy.Integer(0) if abs(float(node)) < 1e-3 else sympy.Rational(repr(value))
    return expression.xreplace(replacements) if replacements else expression


def _shown_expression(expression, limit: int = 300) -> str:
    text = str(expression)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _not_finite(expression) -> bool:
    return bool(expression.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo))


def _is_constant(expression, *, simplify: bool) -> bool:
    """``expression.is_constant()`` as a bool: None ("cannot tell") and errors count as False."""
    if _not_finite(expression):
        # truth - zoo is zoo, which sympy calls constant: a model that is not finite is never equivalent
        return False
    try:
        return bool(expression.is_constant(simplify=simplify))
    except (TypeError, ValueError, ZeroDivisionError, NotImplementedError, AttributeError):
        return False


def _equivalence_step(step: str, payload):
    """One symbolic step of the equivalence check; runs in a worker process.

    ``simplify``: (text, features) -> the parsed, simplified expression with floats
    rounded as in the 2022 scorer. ``quick``: (truth, model) -> why they are equivalent
    ("" if not shown) from the unsimplified difference and ratio. ``difference`` /
    ``ratio``: the same after ``sympy.simplify`` of the difference / ratio.
    """
    # sympy's cache would make a step's CPU time (and so a timeout) depend on what the worker did before
    sympy.core.cache.clear_cache()
    if step == "simplify":
        text, features = payload
        return _round_exactly(sympy.simplify(parse_model(text, features=features)))
    truth, model = payload
    if step == "quick":
        difference, ratio = truth - model, model / truth
        for name, value in (("truth - model", difference), ("model / truth", ratio)):
            if _is_constant(value, simplify=False):
                return f"{name} = {value} is constant" if not value.free_symbols else f"{name} is constant"
        return ""
    reduced = sympy.simplify(truth - model if step == "difference" else model / truth)
    if not _is_constant(reduced, simplify=True):
        return ""
    return f"{'truth - model' if step == 'difference' else 'model / truth'} simplifies to the constant {reduced}"


_SAMPLE_POINTS = 64


def _numerically_different(truth, model) -> bool:
    """True when sample points prove that neither ``truth - model`` nor ``model / truth`` is constant.

    A cheap first look, in this process, before the symbolic steps (which run in
    workers under the time limit): both simplified, rounded expressions are
    evaluated at seeded random points in [-4, 4]; where both are finite and real,
    a difference or ratio that varies by more than 1e-6 of the values' size cannot
    be a constant, so the model is not equivalent whatever sympy would say. Any
    doubt (too few usable points, an error) returns False and leaves the verdict
    to the symbolic steps: this can only save time, never change a verdict.
    """
    symbols = sorted(truth.free_symbols | model.free_symbols, key=lambda symbol: symbol.name)
    if not symbols:
        return False
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-4.0, 4.0, _SAMPLE_POINTS) for _ in symbols]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = [np.broadcast_to(np.asarray(compile_numeric(symbols, e)(*inputs), dtype=complex),
                                      (_SAMPLE_POINTS,)) for e in (truth, model)]
    except Exception:  # noqa: BLE001 - any doubt: leave it to sympy
        return False
    t, m = values
    usable = np.isfinite(t) & np.isfinite(m) & (t.imag == 0) & (m.imag == 0)
    if usable.sum() < _SAMPLE_POINTS // 4:
        return False
    t, m = t.real[usable], m.real[usable]
    size = float(np.max(np.abs(t)) + np.max(np.abs(m)))
    if not np.isfinite(size) or size == 0:
        return False
    difference_varies = np.ptp(t - m) > 1e-6 * size
    away_from_zero = np.abs(t) > 1e-6 * size
    if away_from_zero.sum() < _SAMPLE_POINTS // 4:
        return False
    ratio = m[away_from_zero] / t[away_from_zero]
    ratio_varies = np.ptp(ratio) > 1e-6 * max(float(np.max(np.abs(ratio))), 1e-12)
    return bool(difference_varies and ratio_varies)


def equivalence_table(
    models: Sequence[str | None],
    truths: Sequence[str],
    *,
    features=None,
    timeout: float = 10.0,
    jobs: int = 1,
    progress: Callable[[int, int, dict], None] | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    cache=False,
    retry_timeouts: bool = False,
) -> list[tuple[bool, str]]:
    """Is each model equivalent to its ground truth? The SRBench 2022 exact re-discovery rule.

    As the organisers' ``symbolic_equivalence`` (``competition-2022/experiment/metrics/
    evaluation.py`` of cavalab/srbench): the model and the truth are parsed (safely,
    :func:`parse_model`), simplified with ``sympy.simplify`` and their floats rounded to
    3 decimals (below 0.001 they become 0), here as exact decimals (0.4 -> 2/5) so that
    no binary rounding error survives in the difference. The model is equivalent when the simplified
    model is not 0 and ``truth - model`` or ``model / truth`` is a constant: first
    checked with ``is_constant(simplify=False)`` on the unsimplified difference and ratio,
    then on ``sympy.simplify`` of the difference, then of the ratio. So ``f + 2`` and
    ``3*f`` are equivalent to ``f``; ``3*f + 1`` is not.

    Differences from the 2022 code: the 2022 rounding (sympy's ``round(Float, 3)``) also
    cut the floats' binary precision, so that a model equal to the truth only after
    expanding, e.g. ``(0.4*x1 + 2.5)*(x2 - 3.75) + 10.375`` for ``0.4*x1*x2 - 1.5*x1 +
    2.5*x2 + 1``, kept a residue 9.155e-5*x1 and was *not* equivalent; with exact decimals
    it is. Every step
    (simplifying the model, the truth, the difference, the ratio, the quick check) has
    its own hard limit of ``timeout`` seconds of the CPU time it uses (never the wall clock: a
    busy machine does not turn a check into a timeout), and **a timeout means not equivalent** (the 2022 code went on
    with the unsimplified model); a model that is not finite (``zoo``, ``nan``, ``oo``, e.g.
    ``1/0 + x1``) is not equivalent (in 2022, ``truth - zoo = zoo`` counted as constant).

    Parameters
    ----------
    models : sequence of str or None
        Untrusted model strings; None or "" is a missing model (not equivalent).
    truths : sequence of str
        The ground truth of each model (same length).
    features : None, collection of str, or sequence of (collection of str or None), keyword-only
        Allowed variable names: as in :func:`complexity_table`.
    timeout : float, keyword-only
        Hard limit of each symbolic step, in seconds of the CPU time it uses (the 2022 scorer: 10, on
        the wall clock).
    jobs : int, keyword-only
        Worker processes.
    progress : callable, optional, keyword-only
        ``progress(done, total, counts)`` as verdicts arrive; ``counts`` has the keys
        ``equivalent``, ``not equivalent`` and ``timeout``.
    memory_limit : int or None, keyword-only
        Address-space limit of each worker in bytes.
    cache : False, None, path or srdash.cache.ResultCache, keyword-only
        Where verdicts are kept (kind ``equivalence``, keyed by model, truth,
        features and sympy version; a verdict reached under a limit is reused
        under a longer one, a timeout under the same or a shorter one). False
        (the default): no cache; None: the default cache file.
    retry_timeouts : bool, keyword-only
        Check again the pairs whose cached verdict is a timeout.

    Returns
    -------
    list of (bool, str)
        Per model: equivalent or not, and why (the detail says which step timed out).

    Examples
    --------
    >>> f = "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1"
    >>> verdicts = equivalence_table([f"{f} + 2", f"3*({f})", f"3*({f}) + 1", "x2 - x2"], [f] * 4)
    >>> [ok for ok, _ in verdicts]
    [True, True, False, False]
    >>> verdicts[3][1]
    'not equivalent: the simplified model is 0'
    """
    models, truths = list(models), list(truths)
    if len(models) != len(truths):
        raise ValueError(f"models and truths must have the same length. Got {len(models)} and {len(truths)}.")
    if features is None or (isinstance(features, Collection) and not isinstance(features, str)
                            and all(isinstance(f, str) for f in features)):
        features = [features] * len(models)
    features = [tuple(f) if f is not None else None for f in features]
    if len(features) != len(models):
        raise ValueError(f"features must be None, one collection, or one entry per model. Got {len(features)} "
                         f"entries for {len(models)} models.")
    verdicts: list[tuple[bool, str] | None] = [None] * len(models)
    store, owned = _open_cache(cache)
    try:
        keys, found = _cached_verdicts(store, models, truths, features, timeout=timeout,
                                       retry_timeouts=retry_timeouts)
        for index, verdict in found.items():
            verdicts[index] = verdict
        _equivalence_work(models, truths, features, verdicts, timeout=timeout, jobs=jobs, progress=progress,
                          memory_limit=memory_limit, done_before=dict(found))
        if store is not None:
            pending = [(keys[index], {"status": "timeout" if "time limit" in detail else "ok",
                                      "equivalent": bool(equivalent), "detail": detail})
                       for index, (equivalent, detail) in enumerate(verdicts)
                       if index in keys and index not in found and "could not be processed" not in detail]
            _write(store, pending, limit=timeout, kind="equivalence")
    finally:
        if store is not None and owned:
            store.close()
    return verdicts


# 2: a step's limit counts its CPU time (the wall clock of a busy machine made timeouts); fixed-name numeric code
_EQUIVALENCE_PROCEDURE = "srbench2022-equivalence/2"


def _cached_verdicts(store, models, truths, features, *, timeout, retry_timeouts) -> tuple[dict, dict]:
    """({index: key} of the checks worth caching, {index: (equivalent, detail)} found in ``store``)."""
    if store is None:
        return {}, {}
    keys = {index: _cache.cache_key(model, features[index], {"procedure": _EQUIVALENCE_PROCEDURE,
                                                               "sympy": sympy.__version__, "truth": truths[index]})
            for index, model in enumerate(models) if isinstance(model, str) and model.strip()
            and isinstance(truths[index], str)}
    try:
        entries = store.get_many(keys.values(), kind="equivalence", limit=timeout,
                                 retry_timeouts=True if retry_timeouts else None)
    except (sqlite3.Error, OSError) as exc:
        warnings.warn(f"The cache {store.path} cannot be read ({exc}); continuing without it.", RuntimeWarning,
                      stacklevel=4)
        return {}, {}
    found = {index: (bool(entries[key]["equivalent"]), str(entries[key]["detail"]))
             for index, key in keys.items() if key in entries}
    return keys, found


def _equivalence_work(models, truths, features, verdicts, *, timeout, jobs, progress, memory_limit,
                      done_before) -> None:
    """Fill the missing ``verdicts`` (None) in worker processes."""
    simplified: dict[tuple, Any] = {}   # (text, features) -> expression, or why it failed (str)
    waiting: dict[tuple, list[int]] = {}
    pairs: dict[int, tuple] = {}        # index -> (truth, model) expressions
    counts = {"equivalent": 0, "not equivalent": 0, "timeout": 0}
    for equivalent, detail in done_before.values():
        counts["equivalent" if equivalent else "timeout" if "time limit" in detail else "not equivalent"] += 1
    for index, model in enumerate(models):
        if verdicts[index] is None and (not isinstance(model, str) or not model.strip()):
            verdicts[index] = (False, "not equivalent: the run has no model")
            counts["not equivalent"] += 1
    if all(verdict is not None for verdict in verdicts):
        if progress is not None:
            progress(len(models), len(models), dict(counts))
        return

    def settle(index: int, equivalent: bool, detail: str) -> None:
        verdicts[index] = (equivalent, detail)
        counts["equivalent" if equivalent else "timeout" if "time limit" in detail else "not equivalent"] += 1
        if progress is not None:
            progress(sum(counts.values()), len(models), dict(counts))

    def failure(result) -> str:
        if result.outcome == "killed":
            return f"took longer than the time limit of {timeout:g} s"
        if result.outcome == "raised" and result.error.startswith("ModelRejected: "):
            return f"was refused: {result.error[len('ModelRejected: '):]}"
        return f"could not be processed ({result.error})"

    with WorkerPool(_equivalence_step, processes=max(1, int(jobs)), time_limit=timeout,
                    memory_limit=memory_limit, keep_spares=True, warm_up=_warm_up) as pool:

        def need(key: tuple, index: int) -> None:
            if key in simplified:
                return
            if key not in waiting:
                waiting[key] = []
                pool.submit(("simplify", key), "simplify", key)
            waiting[key].append(index)

        def advance(index: int) -> None:
            truth_key, model_key = (truths[index], features[index]), (models[index], features[index])
            if verdicts[index] is not None or truth_key not in simplified or model_key not in simplified:
                return
            for key, what in ((truth_key, "the ground truth"), (model_key, "the model")):
                if isinstance(simplified[key], str):
                    return settle(index, False, f"not equivalent: {what} {simplified[key]}")
            truth, model = simplified[truth_key], simplified[model_key]
            if model == 0:
                return settle(index, False, "not equivalent: the simplified model is 0")
            if _not_finite(model):
                return settle(index, False, f"not equivalent: the simplified model is not finite ({model})")
            if _numerically_different(truth, model):
                shown = f"simplified model {_shown_expression(model)}, ground truth {_shown_expression(truth)}"
                return settle(index, False, "not equivalent: neither truth - model nor model / truth is constant "
                                            f"(they vary at {_SAMPLE_POINTS} sample points; {shown})")
            pairs[index] = (truth, model)
            pool.submit(("quick", index), "quick", (truth, model))

        for index, model in enumerate(models):
            if verdicts[index] is not None:
                continue
            if not isinstance(model, str) or not model.strip():
                settle(index, False, "not equivalent: the run has no model")
                continue
            need((truths[index], features[index]), index)
            need((model, features[index]), index)
        for result in pool.results():
            step, key = result.task_id
            if step == "simplify":
                simplified[key] = (result.value if result.outcome == "returned" else
                                   f"simplifying it {failure(result)}" if result.outcome == "killed"
                                   else failure(result))
                for index in waiting.pop(key):
                    advance(index)
                continue
            index = key
            truth, model = pairs[index]
            shown = f"simplified model {_shown_expression(model)}, ground truth {_shown_expression(truth)}"
            if result.outcome != "returned":
                what = "difference and ratio" if step == "quick" else step
                settle(index, False, f"not equivalent: checking the {what} {failure(result)} ({shown})")
            elif result.value:
                settle(index, True, f"equivalent: {result.value}")
            elif step != "ratio":
                following = "difference" if step == "quick" else "ratio"
                pool.submit((following, index), following, (truth, model))
            else:
                settle(index, False, f"not equivalent: neither truth - model nor model / truth is constant "
                                     f"({shown})")


def equivalent_models(model_text: str, truth_text: str, *, features: Collection[str] | None = None,
                      timeout: float = 10.0) -> tuple[bool, str]:
    """Is one model equivalent to a ground truth (SRBench 2022 rule)? See :func:`equivalence_table`.

    Each call starts a worker process (about a second): check many models with
    :func:`equivalence_table`, which shares its workers.

    Returns
    -------
    (bool, str)
        Equivalent or not, and why; a step that overruns ``timeout`` gives not equivalent.

    Examples
    --------
    >>> equivalent_models("(0.4*x1 + 2.5)*(x2 - 3.75) + 10.375", "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1")
    (True, 'equivalent: truth - model is constant')
    """
    return equivalence_table([model_text], [truth_text], features=features, timeout=timeout)[0]


# ==========================================================================================
# Models as submitted to SRBench 2023 ("sympy-compatible expressions", scored with sympify).
# Section appended for the 2023 track-1 rules; public: parse_submitted_model, tree_size,
# evaluate_expression, expression_tree. The whitelist is parse_model's (it covers the 2023 vocabulary).
# ==========================================================================================

__all__ += ["parse_submitted_model", "tree_size", "evaluate_expression", "expression_tree"]

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
                            f"column. Columns: {_list_names(sorted(arrays)) or '(none)'}.")
    with _bounded("Preparing the model for evaluation"):  # as evaluate_model: code generation is bounded too
        function = _compiled(symbols, expression)
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
