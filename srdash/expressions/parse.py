"""Safe parsing of untrusted model strings into sympy expressions.

Model strings come from competitors and are untrusted. :func:`parse_model` never
hands them to ``eval``, ``sympy.parse_expr`` or ``sympify`` (all of which run
Python code): it parses them with :mod:`ast`, checks every node against a
whitelist and builds the sympy expression itself, without recursion, with structural
budgets (nodes, depth, digits, pairwise arguments, helpers' sizes, integer powers)
checked on every node as it is built.
"""

from __future__ import annotations

import ast
import operator
import signal
import threading
from collections.abc import Callable, Collection
from contextlib import contextmanager
from typing import Any, NamedTuple

import sympy

from srdash.errors import ModelRejected
from srdash.expressions._timelimit import SoftTimeLimitExceeded, soft_time_limit, thread_cpu_limit
from srdash.expressions.vocabulary import (COMPARISONS, CONSTANTS, FUNCTIONS, HELPERS, MAX_CHAIN_WORK, MAX_DEPTH,
                                           MAX_HELPER_NODES, MAX_PAIRWISE_WORK, NUMBER_KEY, OPERATOR_SYMBOLS,
                                           PAIRWISE, PRINTED_FUNCTIONS, UNARY, ALLOWED_FUNCTIONS,
                                           MAX_LITERAL_DIGITS, MAX_LITERAL_EXPONENT, check_float_literal,
                                           check_number, check_powers, checked_call, listed_names, checked_operand,
                                           checked_power, shortened)

# ALLOWED_FUNCTIONS and the MAX_LITERAL_* limits are vocabulary.py's, named here beside the parser they bound.
__all__ = ["ALLOWED_FUNCTIONS", "BACKSTOP_SECONDS", "MAX_LITERAL_DIGITS", "MAX_LITERAL_EXPONENT", "parse_model"]



def _node_text(node: ast.AST) -> str:
    try:
        return shortened(ast.unparse(node))
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
        self.functions = dict(FUNCTIONS, **PRINTED_FUNCTIONS) if printed else FUNCTIONS
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
            if depth > MAX_DEPTH:
                raise ModelRejected(f"The model is nested more than {MAX_DEPTH} levels deep; it is too deep "
                                    f"to score.")
            node_type = type(node)
            deeper = depth + 1
            if node_type is ast.Constant:
                program.append(("value", self._constant(node)))
            elif node_type is ast.Name:
                program.append(("value", self._variable(node.id)))
            elif node_type is ast.UnaryOp:
                if type(node.op) in UNARY:
                    stack.append(("emit", ("unary", UNARY[type(node.op)]), 0))
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
                stack.append(("emit", ("call", checked_call(name, function), len(arguments), name), 0))
                for argument in reversed(arguments):
                    stack.append(("node", argument, deeper))
            elif node_type is ast.Tuple:
                stack.append(("emit", ("tuple", len(node.elts)), 0))
                for element in reversed(node.elts):
                    stack.append(("node", element, deeper))
            elif node_type is ast.Compare and len(node.ops) == 1 and type(node.ops[0]) in COMPARISONS:
                stack.append(("emit", ("binary", COMPARISONS[type(node.ops[0])]), 0))
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
            check_float_literal(text)
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
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in self.functions:
            raise ModelRejected(f"'{name}' is a function and cannot be used as a variable; "
                                f"call it as {name}(...).")
        if self.features is not None:
            raise ModelRejected(
                f"Unknown variable '{name}'. The features of this dataset are: "
                f"{listed_names(sorted(self.features)) or '(none)'}.")
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
            stack.append(("emit", ("binary", checked_power), 0))
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
        symbol = OPERATOR_SYMBOLS.get(type(op), type(op).__name__)
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
                result = function(checked_operand(values.pop(), number=function is not operator.invert))
            elif kind == "binary":
                function = instruction[1]
                number = function is checked_power
                right = checked_operand(values.pop(), number=number)
                result = function(checked_operand(values.pop(), number=number), right)
            elif kind == "sum":
                negated = instruction[1]
                operands = [checked_operand(value, number=True) for value in values[-len(negated):]]
                del values[-len(negated):]
                result = self._sum(operands, negated)
            elif kind == "product":
                divided = instruction[1]
                operands = [checked_operand(value, number=True) for value in values[-len(divided):]]
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
                                                f"got {shortened(argument)}.")
                        checked_operand(argument[0]), checked_operand(argument[1])
                else:
                    arguments = [checked_operand(argument) for argument in arguments]
                if name in PAIRWISE:
                    self._spend_pairwise(name, arguments)
                elif name in HELPERS:
                    self.helper_nodes += sum(count_components(argument) for argument in arguments)
                    if self.helper_nodes > MAX_HELPER_NODES:
                        raise ModelRejected(
                            f"{name}() is applied to expressions of {self.helper_nodes:,} nodes in all; the limit "
                            f"is {MAX_HELPER_NODES:,} (its cost grows faster than the expression's size).")
                result = instruction[1](*arguments)
            else:  # "tuple"
                count = instruction[1]
                result = tuple(values[len(values) - count:])
                del values[len(values) - count:]
            check_number(result)
            check_powers(result)
            values.append(result)
        (expression,) = values
        if isinstance(expression, tuple):
            raise ModelRejected("A model must be one expression, not a tuple; tuples are only allowed as the "
                                "(value, condition) pairs of Piecewise.")
        if not isinstance(expression, sympy.Expr):
            raise ModelRejected(f"The model is a condition ({shortened(expression)}), not a value; conditions are "
                                f"only allowed inside Piecewise, ITE, And, Or and Not.")
        return expression

    def _spend_pairwise(self, name: str, arguments: list) -> None:
        # sympy flattens Max(Max(a, b), c) into Max(a, b, c): count the flattened arguments.
        size = sum(len(a.args) if type(a) in (sympy.Min, sympy.Max, sympy.And, sympy.Or) else 1
                   for a in arguments)
        self.pairwise_work += size * size
        if self.pairwise_work > MAX_PAIRWISE_WORK:
            raise ModelRejected(
                f"The model's {name}() calls compare too many arguments ({name}() with {size} arguments "
                f"once nested calls are merged); sympy compares them pairwise, so a model may have at most "
                f"about {int(MAX_PAIRWISE_WORK ** 0.5)} such arguments in all.")

    def _spend(self, length: int) -> bool:
        self.chain_work += length * (length - 1) // 2
        return self.chain_work <= MAX_CHAIN_WORK

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
                key, coefficient = NUMBER_KEY, part
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


#: stopped when it runs in a main thread (a backstop: the structural limits of the
#: parser keep honest and hostile models far below it).
BACKSTOP_SECONDS = 10.0


@contextmanager
def bounded(what: str):
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


def undefined_reason(expression) -> str:
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
    read = syntax_tree(text, features=features, max_length=max_length)
    with bounded("Parsing the model"):
        return build_expression(read, max_nodes=max_nodes, printed=False)


def parse_checked(text, *, features, max_length, max_nodes, printed):
    """A model string's sympy expression through the whitelist and the structural budgets (no time limit:
    the callers hold one); :func:`parse_model` is this under the CPU-time backstop."""
    return build_expression(syntax_tree(text, features=features, max_length=max_length), max_nodes=max_nodes,
                            printed=printed)


class _SyntaxTree(NamedTuple):
    text: str
    tree: ast.Expression
    features: frozenset | None


def syntax_tree(text, *, features, max_length) -> _SyntaxTree:
    """Python's syntax tree of a model string (linear in its length, run outside any time limit).

    The callers start their CPU-time limit after this step: an exception delivered
    while CPython's compiler runs Python code (a garbage-collector callback) leaves
    the compiler's state inconsistent (``SystemError``).
    """
    if not isinstance(text, str):
        raise TypeError(f"A model must be a string. Got {type(text).__name__}.")
    feature_set = feature_set_of(features)
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
        raise ModelRejected(f"The model cannot be parsed: {shortened(exc, 120)}.", status="parse_error") from None
    return _SyntaxTree(text, tree, feature_set)


def build_expression(read: _SyntaxTree, *, max_nodes, printed):
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
        raise ModelRejected(f"sympy cannot build this model: {type(exc).__name__}: {shortened(exc, 200)}") from None


def feature_set_of(features) -> frozenset | None:
    """The allowed feature names as a frozenset (None: any name), refusing a string or non-string names."""
    if features is None:
        return None
    if isinstance(features, str):
        raise TypeError(f"features must be a collection of names such as ['x1', 'x2'], not the string {features!r}.")
    names = frozenset(features)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"Feature names must be strings. Got {name!r}.")
    return names


def count_components(expression) -> int:
    """SRBench 2022's model size: the nodes of the expression tree in preorder."""
    return sum(1 for _ in sympy.preorder_traversal(expression))
