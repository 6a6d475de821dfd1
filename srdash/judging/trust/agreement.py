"""Agreement statistics of the judges: trust positions from ratings, and Kendall's W.

Trust positions run from 1 (most trusted), unlike the criteria ranks of the ranking engine
(K = best); the names here that say "ranks" (:func:`ranks_from_ratings`) are trust positions.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from srdash.errors import SrdashError
from srdash.judging.trust.settings import check_option

__all__ = ["ranks_from_ratings", "kendalls_w"]


def ranks_from_ratings(ratings: Sequence[float], *, method: str = "average") -> np.ndarray:
    """Trust ranks (1 = most trusted) from ratings (higher = more trust), ties shared.

    Parameters
    ----------
    ratings : sequence of numbers
        One rating per model, none missing.
    method : {'average', 'min', 'max', 'dense'}
        How tied ratings share ranks (as :func:`scipy.stats.rankdata`):
        ``average`` gives each the mean of the positions they occupy.

    Examples
    --------
    Two models rated 4 occupy positions 2 and 3, so each gets 2.5:

    >>> ranks_from_ratings([5, 4, 4, 1]).tolist()
    [1.0, 2.5, 2.5, 4.0]
    >>> ranks_from_ratings([5, 4, 4, 1], method="min").tolist()
    [1.0, 2.0, 2.0, 4.0]
    >>> ranks_from_ratings([2, None])
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: Every model needs a rating to be ranked; 1 of 2 have none.
    """
    import pandas as pd

    check_option("method", method, ("average", "min", "max", "dense"))
    values = pd.to_numeric(pd.Series(list(ratings), dtype=object), errors="coerce").astype(float)
    if values.isna().any():
        raise SrdashError(f"Every model needs a rating to be ranked; {int(values.isna().sum())} of "
                          f"{len(values)} have none.")
    return values.rank(method=method, ascending=False).to_numpy(dtype=float)


def kendalls_w(ranks: np.ndarray) -> float:
    """Kendall's coefficient of concordance W of m judges ranking n models.

    ``W = 12 S / (m^2 (n^3 - n) - m sum_j T_j)`` with ``S`` the sum of squared
    deviations of the models' rank sums from their mean and
    ``T_j = sum (t^3 - t)`` over the groups of ``t`` tied ranks of judge ``j``
    (the tie correction). W is 1 when the judges agree perfectly and 0 when
    there is no agreement at all.

    Parameters
    ----------
    ranks : array of shape (m, n)
        Each row one judge's ranks (ties allowed, e.g. from ratings).

    Returns
    -------
    float
        NaN when W is undefined: fewer than 2 judges or 2 models, or every
        judge tying every model.

    Examples
    --------
    Three judges ranking four models; rank sums 4, 6, 8, 12 (mean 7.5), so
    S = 12.25 + 2.25 + 0.25 + 20.25 = 35 and W = 12 * 35 / (3**2 * (4**3 - 4)) = 0.7778:

    >>> round(kendalls_w(np.array([[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]])), 4)
    0.7778
    >>> kendalls_w(np.array([[1, 2, 3], [3, 2, 1]]))
    0.0
    """
    ranks = np.asarray(ranks, dtype=float)
    if ranks.ndim != 2 or ranks.shape[0] < 2 or ranks.shape[1] < 2:
        return float("nan")
    m, n = ranks.shape
    sums = ranks.sum(axis=0)
    s = float(((sums - sums.mean()) ** 2).sum())
    ties = 0.0
    for row in ranks:
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts ** 3 - counts).sum())
    denominator = m ** 2 * (n ** 3 - n) - m * ties
    return float(12 * s / denominator) if denominator > 0 else float("nan")
