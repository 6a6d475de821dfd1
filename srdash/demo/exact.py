"""Machine-independent numbers for the demo generator: exact least squares and significant-digit rounding.

The demo's files are part of its verdict fingerprint (their SHA-256), so the generator must
write the same bytes on every machine. A fit through BLAS/LAPACK (scikit-learn's
``LinearRegression``, ``numpy.linalg.lstsq``) or a float computed with SIMD-dispatched
functions can differ in the last bits from one CPU or BLAS kernel to another. Two remedies:

* :func:`exact_least_squares` solves ordinary least squares exactly in rationals (every
  float is a dyadic rational, so the normal equations are exact integers over powers of
  two) and rounds each coefficient correctly to a float: the same bits everywhere.
* :func:`exp`, :func:`log` and :func:`tanh` compute with mpmath (pure Python integers),
  rounded to float64, instead of numpy's SIMD code paths. (numpy's float64 ``sin`` and ``cos``
  gave the same bits with and without AVX2 and AVX512 here, and stay numpy's.)

The other fits (BLAS) write their constants rounded to 6 significant digits, far above the
last bit.

Examples
--------
``y = 1 + 2 x`` on floats that hold these values exactly: the solution is exact, not merely close.

>>> intercept, coefficients = exact_least_squares(np.array([[0.5], [1.5], [-2.0]]), np.array([2.0, 4.0, -3.0]))
>>> intercept, coefficients.tolist()
(1.0, [2.0])
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from srdash.errors import SrdashError

__all__ = ["exact_least_squares", "exp", "log", "tanh"]


def _integers(values: np.ndarray) -> tuple[list[int], int]:
    """``values`` as integers over one common power of two: ``values = integers / scale`` exactly."""
    ratios = [float(v).as_integer_ratio() for v in values]
    scale = max(denominator for _, denominator in ratios)  # powers of two: each divides the largest
    return [numerator * (scale // denominator) for numerator, denominator in ratios], scale


def _solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """Gauss-Jordan elimination in rationals (exact)."""
    n = len(rhs)
    rows = [row[:] + [value] for row, value in zip(matrix, rhs)]
    for column in range(n):
        pivot = next((r for r in range(column, n) if rows[r][column] != 0), None)
        if pivot is None:
            raise SrdashError("The least-squares problem is singular: a feature is constant or a combination of "
                              "the others.")
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column][column]
        rows[column] = [v / lead for v in rows[column]]
        for r in range(n):
            if r != column and rows[r][column] != 0:
                factor = rows[r][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column])]
    return [row[n] for row in rows]


def exact_least_squares(matrix: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Ordinary least squares with an intercept (what ``LinearRegression`` fits), solved exactly.

    Parameters
    ----------
    matrix : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)

    Returns
    -------
    intercept : float
    coefficients : ndarray of shape (n_features,)
        The exact solution of the normal equations, each correctly rounded to a float: the
        same bits on every machine.

    Raises
    ------
    SrdashError
        When the normal equations are singular.

    Examples
    --------
    >>> exact_least_squares(np.array([[1.0], [1.0]]), np.array([1.0, 2.0]))
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The least-squares problem is singular: a feature is constant or a combination of the others.
    """
    matrix = np.asarray(matrix, dtype=float)
    columns = [_integers(np.ones(len(matrix)))] + [_integers(matrix[:, j]) for j in range(matrix.shape[1])]
    target, target_scale = _integers(np.asarray(y, dtype=float))
    gram = [[Fraction(sum(a * b for a, b in zip(ci, cj)), si * sj) for cj, sj in columns] for ci, si in columns]
    rhs = [Fraction(sum(a * b for a, b in zip(ci, target)), si * target_scale) for ci, si in columns]
    solution = [float(v) for v in _solve(gram, rhs)]  # int / int: correctly rounded
    return solution[0], np.array(solution[1:])


def _mpmath_context():
    import mpmath  # installed with sympy; pure Python (or GMP) integers: the same bits on every CPU

    context = mpmath.MPContext()  # its own precision, whatever the global context is set to
    context.prec = 53
    return context


_CONTEXT = None


#: Values already computed, per function: the generator evaluates the same terms on bootstrap samples of the
#: same rows again and again (about 9 in 10 evaluations are repeats). A pure function's memo, bounded.
_MEMO: dict[str, dict[float, float]] = {}
_MEMO_LIMIT = 2_000_000


def _elementwise(name: str, values) -> np.ndarray:
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = _mpmath_context()
    function = getattr(_CONTEXT, name)
    memo = _MEMO.setdefault(name, {})
    if len(memo) > _MEMO_LIMIT:
        memo.clear()
    array = np.asarray(values, dtype=float)
    out = []
    for value in array.reshape(-1).tolist():
        known = memo.get(value)
        if known is None:
            if name == "log" and not value > 0:  # numpy's answers outside the domain, not mpmath's complex
                known = -np.inf if value == 0 else np.nan
            else:
                known = float(function(_CONTEXT.mpf(value)))
            memo[value] = known
        out.append(known)
    return np.array(out, dtype=float).reshape(array.shape)


def exp(values) -> np.ndarray:
    """``numpy.exp`` with the same bits on every machine (mpmath, correctly rounded to float64).

    numpy's float64 ``exp`` and ``log`` take other code paths with and without AVX512, ``tanh``
    with and without AVX2/FMA3, and differ in the last bits.

    Examples
    --------
    >>> exp([0.0, 1.0]).tolist(), log([1.0, 0.0, -1.0]).tolist()[:2], tanh([0.0]).tolist()
    ([1.0, 2.718281828459045], [0.0, -inf], [0.0])
    """
    return _elementwise("exp", values)


def log(values) -> np.ndarray:
    """``numpy.log`` with the same bits on every machine (see :func:`exp`); NaN below 0, -inf at 0."""
    return _elementwise("log", values)


def tanh(values) -> np.ndarray:
    """``numpy.tanh`` with the same bits on every machine (see :func:`exp`)."""
    return _elementwise("tanh", values)
