"""Group means with Kahan-compensated sums, in row order: one arithmetic whatever pandas does.

pandas' ``groupby().mean()`` is not one arithmetic. pandas 1.3-2.x sums each group's
values in row order with Kahan compensation (``group_mean`` in ``pandas/_libs/groupby.pyx``);
pandas 3.1 takes ``numpy.add.reduceat`` (an uncompensated sum) instead when the groups'
rows are contiguous and no value is NaN. The two can differ in the last binary digit, and
a rule that compares means exactly (SRBench 2022 as run) then ranks two methods apart in
one and tied in the other. srdash therefore computes every mean over runs and over
datasets here, as pandas' Kahan loop did for the SRBench 2022 organisers:

- per group, the values in row order, NaN skipped: ``y = v - c; t = s + y; c = (t - s) - y; s = t``;
- the mean is ``s / n``, n the number of values that are not NaN (NaN when n = 0);
- a compensation that is not finite (an infinite value was added) is reset to 0, so a
  sum holding -inf stays -inf (pandas >= 2.1, GH#53606; pandas 1.3 turned it into NaN).

Examples
--------
>>> values = np.array([[0.5], [0.25], [1.0], [np.nan]])
>>> group_mean(values, np.array([0, 0, 1, 1]), 2)[:, 0].tolist()  # NaN skipped
[0.375, 1.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["group_mean", "kahan_sum"]


def kahan_sum(values: np.ndarray) -> float:
    """Kahan-compensated sum of a 1-d array in its order, NaN skipped (see the module's steps).

    Examples
    --------
    >>> kahan_sum(np.array([0.1] * 10))  # a plain left-to-right sum gives 0.9999999999999999
    1.0
    """
    column = np.asarray(values, dtype=float).reshape(-1, 1)
    return float(group_mean(column, np.zeros(len(column), dtype=np.intp), 1, divide=False)[0, 0])


def group_mean(values: np.ndarray, groups: np.ndarray, n_groups: int, *, divide: bool = True) -> np.ndarray:
    """Mean of each column per group, with Kahan-compensated sums in row order.

    Parameters
    ----------
    values : array of shape (n_rows, n_columns)
        Floats; NaN values are skipped.
    groups : array of shape (n_rows,)
        The group (0 to ``n_groups - 1``) of each row; a group's rows are summed in the
        order they have here.
    n_groups : int
    divide : bool
        False: the compensated sums (NaN skipped; 0 for a group without values).

    Returns
    -------
    ndarray of shape (n_groups, n_columns)
        NaN where a group has no value that is not NaN.

    Examples
    --------
    The ten values of 0.1 sum to 1.0 with compensation (0.9999999999999999 without):

    >>> group_mean(np.full((10, 1), 0.1), np.zeros(10, dtype=int), 1, divide=False).tolist()
    [[1.0]]
    >>> group_mean(np.array([[1.0], [-np.inf], [2.0]]), np.zeros(3, dtype=int), 1).tolist()
    [[-inf]]
    """
    values = np.asarray(values, dtype=float)
    groups = np.asarray(groups, dtype=np.intp)
    order = np.argsort(groups, kind="stable")  # keeps each group's rows in their order
    sorted_groups = groups[order]
    sorted_values = values[order]
    sizes = np.bincount(sorted_groups, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    position = np.arange(len(order)) - starts[sorted_groups]  # 0 for a group's first row, 1 for its second ...
    # the p-th rows of all groups side by side, without padding (memory stays O(rows) whatever the group sizes)
    by_position = np.argsort(position, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(position))))
    total = np.zeros((n_groups, values.shape[1]))
    compensation = np.zeros_like(total)
    count = np.zeros(total.shape, dtype=np.int64)
    with np.errstate(invalid="ignore"):  # inf - inf in a compensation is reset below
        for p in range(len(bounds) - 1):  # one step of every group's loop at once
            rows = by_position[bounds[p]:bounds[p + 1]]
            group = sorted_groups[rows]  # distinct: one row per group at each position
            value, before, carried = sorted_values[rows], total[group], compensation[group]
            present = ~np.isnan(value)
            y = value - carried
            t = before + y
            step = (t - before) - y
            step[~np.isfinite(step)] = 0.0
            compensation[group] = np.where(present, step, carried)
            total[group] = np.where(present, t, before)
            count[group] += present
    if not divide:
        return total
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)
