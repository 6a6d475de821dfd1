"""Machine-independent numbers for the demo generator: exact least squares and significant-digit rounding.

The demo's files are part of its verdict fingerprint (their SHA-256), so the generator must
write the same bytes on every machine. A fit through BLAS/LAPACK (scikit-learn's
``LinearRegression``, ``numpy.linalg.lstsq``) or a float computed with SIMD-dispatched
functions can differ in the last bits from one CPU or BLAS kernel to another. Two remedies:

* :func:`exact_least_squares` solves ordinary least squares exactly in rationals (every
  float is a dyadic rational, so the normal equations are exact integers over powers of
  two) and rounds each coefficient correctly to a float: the same bits everywhere.
* :func:`round_significant` rounds what is written to the digits it means, far above the
  last bit, so a last-bit difference cannot cross a rounding boundary in practice.

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

__all__ = ["exact_least_squares", "round_significant"]


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


def round_significant(values, digits: int) -> np.ndarray:
    """Each value rounded to ``digits`` significant digits (through its decimal text); -0.0 becomes 0.0.

    Examples
    --------
    >>> round_significant([0.4348113467418584, -0.0, 123456.789], 8).tolist()
    [0.43481135, 0.0, 123456.79]
    """
    return np.array([float(f"{float(v):.{digits}g}") + 0.0 for v in np.ravel(values)]).reshape(np.shape(values))
