"""The demo's formulas: a model is an intercept plus coefficient * term, optionally over a fixed denominator.

Each term carries its text and a numpy function of the same formula, so a model string and its
predictions cannot disagree; no string is ever evaluated. exp, log and tanh go through
:mod:`srdash.demo.exact` (mpmath), whose values do not depend on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from srdash.demo import exact

__all__ = ["Columns", "Term", "Model", "round_sig", "make_model", "monomial", "variable", "applied", "erf_term",
           "scaled", "sum_term", "feature_names", "r2_score"]

#: Feature name -> values (one split of a dataset).
Columns = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Term:
    text: str  # never a top-level sum, so "c*text" needs no parentheses
    features: frozenset
    evaluate: Callable[[Columns], np.ndarray] = field(compare=False)


@dataclass(frozen=True)
class Model:
    intercept: float
    terms: tuple  # of (coefficient, Term)
    denominator: Term | None = None
    intercept_first: bool = True

    @property
    def features(self) -> frozenset:
        used = [t.features for c, t in self.terms if c != 0]
        if self.denominator is not None:
            used.append(self.denominator.features)
        return frozenset().union(*used)

    def text(self) -> str:
        parts = [(c, t.text) for c, t in self.terms if c != 0]
        if self.intercept != 0 or not parts:
            constant = (self.intercept, None)
            parts = [constant] + parts if self.intercept_first else parts + [constant]
        pieces = []
        for coefficient, term in parts:
            size = abs(coefficient)
            body = repr(size) if term is None else term if size == 1 else f"{size!r}*{term}"
            sign = "-" if coefficient < 0 else "+"
            pieces.append((f"-{body}" if sign == "-" else body) if not pieces else f" {sign} {body}")
        numerator = "".join(pieces)
        if self.denominator is None:
            return numerator
        return f"({numerator})/({self.denominator.text})"

    def predict(self, columns: Columns) -> np.ndarray:
        n = len(next(iter(columns.values())))
        value = np.full(n, self.intercept, dtype=float)
        for coefficient, term in self.terms:
            if coefficient != 0:
                value = value + coefficient * term.evaluate(columns)
        if self.denominator is not None:
            value = value / self.denominator.evaluate(columns)
        return value


def round_sig(value: float, digits: int | None) -> float:
    """``value`` rounded to ``digits`` significant digits (None: unchanged); -0.0 becomes 0.0."""
    value = float(value) if digits is None else float(f"{value:.{digits}g}")
    return value + 0.0


def make_model(intercept, coefficients, terms, *, digits, denominator=None, intercept_first=True,
           drop_zeros=False) -> Model:
    pairs = tuple((round_sig(c, digits), t) for c, t in zip(coefficients, terms))
    if drop_zeros:
        pairs = tuple((c, t) for c, t in pairs if c != 0)
    return Model(round_sig(intercept, digits), pairs, denominator, intercept_first)


def monomial(features: tuple, powers) -> Term:
    """``x1*x2``, ``x3**2``...: the canonical text shared by every method."""
    factors = [(f, int(p)) for f, p in zip(features, powers) if p]
    text = "*".join(f if p == 1 else f"{f}**{p}" for f, p in factors)

    def evaluate(columns, factors=tuple(factors)):
        value = columns[factors[0][0]] ** factors[0][1]
        for name, power in factors[1:]:
            value = value * columns[name] ** power
        return value

    return Term(text, frozenset(f for f, _ in factors), evaluate)


def variable(name: str) -> Term:
    return Term(name, frozenset([name]), lambda columns: columns[name])


def applied(function: str, inner: Term) -> Term:
    # exp, log and tanh through mpmath (numpy's differ in the last bits with the CPU's SIMD extensions)
    numpy_function = {"sin": np.sin, "cos": np.cos, "exp": exact.exp, "tanh": exact.tanh, "log": exact.log}[function]
    return Term(f"{function}({inner.text})", inner.features,
                 lambda columns: numpy_function(inner.evaluate(columns)))


def erf_term(scale: float, name: str) -> Term:
    from scipy.special import erf

    return Term(f"erf({scale!r}*{name})", frozenset([name]), lambda columns: erf(scale * columns[name]))


def scaled(scale: float, inner: Term) -> Term:
    return Term(f"{scale!r}*{inner.text}", inner.features, lambda columns: scale * inner.evaluate(columns))


def sum_term(a: Term, b: Term) -> Term:
    """``a + b`` as an argument of a function (so written without outer parentheses)."""
    return Term(f"{a.text} + {b.text}", a.features | b.features,
                 lambda columns: a.evaluate(columns) + b.evaluate(columns))


def feature_names(n: int, prefix: str = "x") -> tuple:
    return tuple(f"{prefix}{i}" for i in range(1, n + 1))


def r2_score(y: np.ndarray, prediction: np.ndarray) -> float:
    """Coefficient of determination ``1 - SS_res / SS_tot`` (as scikit-learn's r2_score)."""
    residual = np.sum((y - prediction) ** 2)
    total = np.sum((y - np.mean(y)) ** 2)
    return float(1.0 - residual / total)
