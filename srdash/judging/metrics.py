"""Metrics of prediction-file competitions: accuracy, R², RMSE and MAE, and their registry.

Each metric says which way is better (``*_score`` higher, ``*_error`` lower) and
is computed by :mod:`sklearn.metrics`, behind srdash's validation of the
arrays (same length, non-empty, finite) and its documented rule for R² of a
constant target (a warning and NaN).

Examples
--------
>>> get_metric("rmse").direction, get_metric("r2").direction
('lower', 'higher')
>>> r2_score([1.0, 3.0, 5.0], [1.0, 3.0, 6.0])  # 1 - 1/8
0.875
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping, Sequence

import numpy as np

from srdash.errors import Problem, SrdashError, ValidationError

# --------------------------------------------------------------------------- metrics


class UndefinedMetricWarning(RuntimeWarning):
    """A metric is undefined for the given input and NaN is returned."""


def _check_pair(y_true, y_pred, name: str) -> tuple[np.ndarray, np.ndarray]:
    problems = []
    arrays = []
    for label, values in (("y_true", y_true), ("y_pred", y_pred)):
        try:
            array = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            problems.append(Problem(label, None, None, "must be numbers (an array-like of floats)."))
            continue
        if array.ndim != 1 or array.size == 0:
            problems.append(Problem(label, None, None, f"must be a non-empty 1-D array. Got shape {array.shape}."))
        elif not np.isfinite(array).all():
            problems.append(Problem(label, None, None, "must be finite (no NaN or infinite values)."))
        arrays.append(array)
    if not problems and arrays[0].shape != arrays[1].shape:
        problems.append(Problem("y_pred", None, None,
                                f"has {arrays[1].size} values but y_true has {arrays[0].size}; "
                                "give one prediction per sample."))
    if problems:
        raise ValidationError(problems, header=f"Cannot compute {name}")
    return arrays[0], arrays[1]


def _accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn import metrics

    return float(metrics.accuracy_score(y_true, y_pred))


def _r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    # srdash's documented rule for a constant target (a warning and NaN), before sklearn's own
    # convention (a score of 0 or 1) can apply.
    if np.all(y_true == y_true[0]):
        warnings.warn("R2 is undefined when all targets are equal; returning NaN.", UndefinedMetricWarning,
                      stacklevel=3)
        return float("nan")
    from sklearn import metrics

    return float(metrics.r2_score(y_true, y_pred))


def _rmse(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn import metrics

    return float(np.sqrt(metrics.mean_squared_error(y_true, y_pred)))


def _mae(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn import metrics

    return float(metrics.mean_absolute_error(y_true, y_pred))


def accuracy_score(y_true, y_pred) -> float:
    """Share of correctly classified samples (higher is better).

    ``accuracy = (1/n) * sum_i [y_true_i == y_pred_i]``. Class labels must be
    integer-valued (``1`` and ``1.0`` are the same label).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Integer class labels.

    Returns
    -------
    float
        Between 0 and 1.

    Raises
    ------
    ValidationError
        If the arrays differ in length, are empty, not finite or not integer-valued.

    Examples
    --------
    >>> accuracy_score([0, 1, 2, 2], [0, 2, 2, 2])
    0.75
    """
    y_true, y_pred = _check_pair(y_true, y_pred, "accuracy_score")
    for label, values in (("y_true", y_true), ("y_pred", y_pred)):
        if not np.array_equal(values, np.round(values)):
            raise ValidationError([Problem(label, None, None, "class labels must be integers for accuracy.")],
                                  header="Cannot compute accuracy_score")
    return _accuracy(y_true, y_pred)


def r2_score(y_true, y_pred) -> float:
    """Coefficient of determination R² (higher is better, 1 = perfect).

    ``R2 = 1 - sum_i (y_true_i - y_pred_i)**2 / sum_i (y_true_i - mean(y_true))**2``.
    It is undefined when all targets are equal: a :class:`UndefinedMetricWarning`
    is issued and NaN returned (the competition scorer refuses such targets
    up front instead).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
        At most 1; unbounded below.

    Examples
    --------
    >>> r2_score([1.0, 3.0, 5.0], [1.0, 3.0, 6.0])  # 1 - 1/8
    0.875
    """
    y_true, y_pred = _check_pair(y_true, y_pred, "r2_score")
    return _r2(y_true, y_pred)


def root_mean_squared_error(y_true, y_pred) -> float:
    """Root mean squared error (lower is better).

    ``RMSE = sqrt((1/n) * sum_i (y_true_i - y_pred_i)**2)``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
        Non-negative.

    Examples
    --------
    >>> root_mean_squared_error([0.0, 0.0, 0.0, 0.0], [1.0, -1.0, 1.0, -1.0])
    1.0
    """
    y_true, y_pred = _check_pair(y_true, y_pred, "root_mean_squared_error")
    return _rmse(y_true, y_pred)


def mean_absolute_error(y_true, y_pred) -> float:
    """Mean absolute error (lower is better).

    ``MAE = (1/n) * sum_i |y_true_i - y_pred_i|``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
        Non-negative.

    Examples
    --------
    >>> mean_absolute_error([0.0, 0.0, 0.0], [3.0, 0.0, 0.0])
    1.0
    """
    y_true, y_pred = _check_pair(y_true, y_pred, "mean_absolute_error")
    return _mae(y_true, y_pred)


@dataclass(frozen=True)
class Metric:
    """A metric of prediction competitions.

    Attributes
    ----------
    name : str
        scikit-learn style name: ``*_score`` is higher-is-better, ``*_error`` lower.
    short_name : str
        Name on the command line and in column names (``rmse_final``).
    label : str
        Human-readable name.
    direction : {'higher', 'lower'}
        Which values are better.
    function : callable
        ``function(y_true, y_pred) -> float``, validating its input.
    integer_labels : bool
        Whether targets and predictions must be integer class labels.
    """

    name: str
    short_name: str
    label: str
    direction: str
    function: Callable[..., float] = field(repr=False)
    integer_labels: bool = False
    _compute: Callable[[np.ndarray, np.ndarray], float] = field(repr=False, compare=False, default=None)

    def best_of(self, values: Sequence[float]) -> int:
        """Position of the best value (the first one among equals).

        Examples
        --------
        >>> get_metric("rmse").best_of([0.3, 0.1, 0.1])
        1
        """
        oriented = np.asarray(values, dtype=float)
        oriented = oriented if self.direction == "higher" else -oriented
        return int(np.argmax(np.where(np.isnan(oriented), -np.inf, oriented)))


METRICS: Mapping[str, Metric] = MappingProxyType({
    m.name: m for m in (
        Metric("accuracy_score", "accuracy", "Accuracy", "higher", accuracy_score, True, _accuracy),
        Metric("r2_score", "r2", "R²", "higher", r2_score, False, _r2),
        Metric("root_mean_squared_error", "rmse", "RMSE", "lower", root_mean_squared_error, False, _rmse),
        Metric("mean_absolute_error", "mae", "MAE", "lower", mean_absolute_error, False, _mae),
    )
})
"""Registry of metrics by name (``accuracy_score``, ``r2_score``, ``root_mean_squared_error``,
``mean_absolute_error``)."""


def get_metric(name: str | Metric) -> Metric:
    """The metric called ``name`` (full or short name).

    Examples
    --------
    >>> get_metric("rmse").name, get_metric("rmse").direction
    ('root_mean_squared_error', 'lower')
    >>> get_metric("r2_score").short_name
    'r2'
    """
    if isinstance(name, Metric):
        return name
    for metric in METRICS.values():
        if name in (metric.name, metric.short_name):
            return metric
    allowed = [m.short_name for m in METRICS.values()] + list(METRICS)
    listed = ", ".join(f"'{a}'" for a in allowed)
    raise SrdashError(f"The 'metric' option must be one of {listed}. Got {name!r}.")


