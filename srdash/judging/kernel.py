"""The ranking kernel: arrays in, ranks and scores out.

One implementation of the arithmetic of rank-harmonic judging, shared by
:func:`srdash.judging.ranking.judge`, the bootstrap
(:mod:`srdash.analysis.robustness`) and weight sensitivity
(:mod:`srdash.analysis.sensitivity`):

- :func:`rank_higher_better` ranks along the last axis (1 = worst, K = best)
  under the tie rules ``average``, ``min``, ``max``, ``dense`` and
  ``k-minus-dense`` and ``dense-from-best``, comparing values exactly or within a
  tolerance; ``-inf`` (a missing value, a failed run or a DNF) ranks last, tied;
- :func:`weighted_harmonic_mean` combines criteria ranks into a dataset score;
- :func:`scores_from_ranks` and :func:`scores_many` average dataset scores into
  final scores, for one or many weight vectors; a (method, dataset) whose ranks are
  all NaN (a DNF left out) is left out of the method's mean.

It is tested against the reference definitions (``scipy.stats.rankdata``, the
harmonic-mean formula) in ``tests/test_kernel.py``, not checked at run time.

Examples
--------
>>> values = np.array([[0.9, 0.9, 0.5, -np.inf]])
>>> rank_higher_better(values, "average").tolist()
[[3.5, 3.5, 2.0, 1.0]]
>>> rank_higher_better(values, "k-minus-dense", n_methods=4).tolist()
[[3.0, 3.0, 2.0, 1.0]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["RANK_METHODS", "rank_higher_better", "weighted_harmonic_mean", "scores_from_ranks", "scores_many",
           "scores_over_all"]

#: Tie rules of :func:`rank_higher_better`.
RANK_METHODS = ("average", "min", "max", "dense", "k-minus-dense", "dense-from-best")

# Weight vectors scored at once by scores_many (bounds the memory of one block).
_BLOCK = 128


def rank_higher_better(values: np.ndarray, method: str = "average", *, n_methods: int | None = None,
                       tolerance: float = 0.0) -> np.ndarray:
    """Ranks along the last axis, higher values better: 1 = worst, K = best.

    Parameters
    ----------
    values : array of shape (..., K)
        Oriented so that higher is better; ``-inf`` for missing values (worst,
        tied). NaN is not allowed (orient and fill first).
    method : {'average', 'min', 'max', 'dense', 'k-minus-dense', 'dense-from-best'}
        Tie rule. ``average``/``min``/``max``: tied values get the average,
        lowest or highest of the positions they occupy; ``dense``: 1 for the
        worst value, +1 for each better distinct value; ``k-minus-dense``: K
        minus the dense rank counted from the best value (the best gets K - 1,
        the worst can get 0); ``dense-from-best``: K + 1 minus that dense rank
        (the best gets K).
    n_methods : int, optional
        K for ``k-minus-dense`` (default: the length of the last axis).
    tolerance : float
        0 (the default): values tie only when they are equal as floats.
        Otherwise a value ties with its neighbour in sorted order when they are
        at most ``tolerance`` apart, so a chain of close values is one tie.

    Returns
    -------
    ndarray of float, same shape

    Notes
    -----
    One sort per row: tied values form runs of the sorted row; ``min`` is the
    run's first position, ``max`` its last, ``dense`` the run's number.

    Examples
    --------
    >>> rank_higher_better(np.array([0.3, 0.1 + 0.2, 0.5]), "dense").tolist()
    [1.0, 2.0, 3.0]
    >>> rank_higher_better(np.array([0.3, 0.1 + 0.2, 0.5]), "dense", tolerance=1e-9).tolist()
    [1.0, 1.0, 2.0]
    """
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, axis=-1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=-1)
    width = values.shape[-1]
    starts = np.ones(values.shape, dtype=bool)
    if tolerance > 0:
        with np.errstate(invalid="ignore"):
            gap = ordered[..., 1:] - ordered[..., :-1]               # -inf - -inf is NaN: one run
        starts[..., 1:] = (gap > tolerance) | (np.isinf(ordered[..., 1:]) & (ordered[..., 1:] != ordered[..., :-1]))
    else:
        starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]  # -inf == -inf: one run
    ends = np.ones(values.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    position = np.broadcast_to(np.arange(width), values.shape)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, width - 1), axis=-1), axis=-1), axis=-1)
    if method == "min":
        sorted_rank = first + 1.0
    elif method == "max":
        sorted_rank = last + 1.0
    elif method == "average":
        sorted_rank = (first + last) / 2.0 + 1.0
    elif method in ("dense", "k-minus-dense", "dense-from-best"):
        dense = np.cumsum(starts, axis=-1)
        if method == "dense":
            sorted_rank = dense.astype(float)
        else:
            k = width if n_methods is None else n_methods
            # dense-from-best (SRBench 2023 as run): K + 1 minus the dense rank from the best
            sorted_rank = k - (dense[..., -1:] - dense + 1.0) + (method == "dense-from-best")
    else:
        listed = ", ".join(f"'{m}'" for m in RANK_METHODS)
        raise ValueError(f"The 'method' option must be one of {listed}. Got {method!r}.")
    ranks = np.empty(values.shape)
    np.put_along_axis(ranks, order, sorted_rank, axis=-1)
    return ranks


def rank_range(method: str, n_methods: int) -> tuple[float, float]:
    """The lowest and highest rank :func:`rank_higher_better` can give K methods.

    1 to K, except ``k-minus-dense`` (0 to K - 1: the best gets K - 1). Ties can
    narrow the range (with ``dense``, the best gets the number of distinct values).

    Examples
    --------
    >>> rank_range("average", 6), rank_range("k-minus-dense", 6), rank_range("dense-from-best", 6)
    ((1.0, 6.0), (0.0, 5.0), (1.0, 6.0))
    """
    if method not in RANK_METHODS:
        listed = ", ".join(f"'{m}'" for m in RANK_METHODS)
        raise ValueError(f"The 'method' option must be one of {listed}. Got {method!r}.")
    if method == "k-minus-dense":
        return 0.0, float(n_methods - 1)
    return 1.0, float(n_methods)


def weighted_harmonic_mean(ranks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted harmonic mean along the last axis.

    ``sum(w) / sum(w / r)``, over the entries with ``w > 0``. A rank of 0 with
    a positive weight gives 0 (the limit of the formula), as in the
    ``k-minus-dense`` rule where the last method can get rank 0.

    Parameters
    ----------
    ranks : array of shape (..., n_criteria)
        Non-negative ranks.
    weights : array of shape (n_criteria,)
        Non-negative weights, at least one positive.

    Examples
    --------
    >>> weighted_harmonic_mean(np.array([1.0, 2.0, 4.0]), np.ones(3)).round(4)
    np.float64(1.7143)
    >>> float(weighted_harmonic_mean(np.array([0.0, 3.0]), np.ones(2)))
    0.0
    >>> float(weighted_harmonic_mean(np.array([2.0, 8.0]), np.array([1.0, 0.0])))
    2.0
    """
    ranks = np.asarray(ranks, dtype=float)
    weights = np.asarray(weights, dtype=float)
    active = weights > 0
    r = ranks[..., active]
    w = weights[active]
    with np.errstate(divide="ignore"):
        inverse = np.where(r > 0, w / np.where(r > 0, r, 1.0), np.inf)
    total = inverse.sum(axis=-1)
    return np.where(np.isinf(total), 0.0, w.sum() / total)


def _left_out(ranks: np.ndarray) -> np.ndarray:
    """(methods, datasets) mask of the cells left out (every rank NaN: a DNF under ``dnf = "left-out"``)."""
    return np.isnan(ranks).all(axis=-1)


def scores_from_ranks(rank_matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Final scores from a (methods, datasets, criteria) array of ranks.

    The mean over datasets of the weighted harmonic mean over criteria. A
    (method, dataset) whose ranks are all NaN is left out (the rules'
    ``dnf = "left-out"``): the mean is over the datasets the method has ranks on.

    Examples
    --------
    >>> ranks = np.array([[[2.0, 1.0]], [[1.0, 2.0]]])  # 2 methods, 1 dataset, 2 criteria
    >>> scores_from_ranks(ranks, np.array([1.0, 1.0])).round(4).tolist()
    [1.3333, 1.3333]
    >>> ranks = np.array([[[2.0, 2.0], [np.nan, np.nan]]])  # the second dataset left out
    >>> scores_from_ranks(ranks, np.array([1.0, 1.0])).tolist()
    [2.0]
    """
    rank_matrix = np.asarray(rank_matrix, dtype=float)
    dataset_scores = weighted_harmonic_mean(rank_matrix, weights)
    left_out = _left_out(rank_matrix)
    if not left_out.any():
        return dataset_scores.mean(axis=-1)
    kept = (~left_out).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):  # no dataset with ranks at all: 0 (as judge scores it)
        return np.where(kept > 0, np.where(left_out, 0.0, dataset_scores).sum(axis=-1) / kept, 0.0)


def scores_over_all(rank_matrix: np.ndarray, weight_matrix: np.ndarray) -> np.ndarray:
    """Scores under ``[ranking] score = "harmonic-over-all"``, for many weight vectors at once.

    One weighted harmonic mean of every (dataset, criterion) rank of a method:
    ``D * sum(w) / sum_d sum_c w[c] / r[d, c]`` (0 when a rank with a positive weight is 0).

    Parameters
    ----------
    rank_matrix : array of shape (methods, datasets, criteria)
    weight_matrix : array of shape (n_vectors, criteria)

    Returns
    -------
    ndarray of shape (n_vectors, methods)

    Examples
    --------
    >>> ranks = np.array([[[1.0, 1.0], [3.0, 3.0]]])  # 1 method, 2 datasets, 2 criteria
    >>> scores_over_all(ranks, np.array([[1.0, 1.0]])).tolist()  # 4 / (1 + 1 + 1/3 + 1/3)
    [[1.5]]
    """
    ranks = np.asarray(rank_matrix, dtype=float)
    weights = np.asarray(weight_matrix, dtype=float)
    kept = (~_left_out(ranks)).sum(axis=1)  # (methods,): datasets with ranks (all, unless DNFs are left out)
    inverse = np.where(ranks > 0, 1.0 / np.where(ranks > 0, ranks, 1.0), 0.0).sum(axis=1)  # (methods, criteria)
    zero = (ranks <= 0).any(axis=1).astype(float)
    total = np.einsum("nc,mc->nm", weights, inverse)
    hits_zero = np.einsum("nc,mc->nm", (weights > 0).astype(float), zero) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = kept[None, :] * weights.sum(axis=1)[:, None] / total
    return np.where(hits_zero | (kept[None, :] == 0), 0.0, scores)


def scores_many(rank_matrix: np.ndarray, weight_matrix: np.ndarray) -> np.ndarray:
    """:func:`scores_from_ranks` for many weight vectors at once.

    Parameters
    ----------
    rank_matrix : array of shape (methods, datasets, criteria)
    weight_matrix : array of shape (n_vectors, criteria)
        Non-negative rows, each with a positive entry (validated by the caller).

    Returns
    -------
    ndarray of shape (n_vectors, methods)

    Examples
    --------
    >>> ranks = np.array([[[2.0, 1.0]], [[1.0, 2.0]]])
    >>> scores_many(ranks, np.array([[1.0, 0.0], [1.0, 1.0]])).round(4).tolist()
    [[2.0, 1.0], [1.3333, 1.3333]]
    """
    n_methods, n_datasets, n_criteria = rank_matrix.shape
    left_out = _left_out(rank_matrix).reshape(-1)
    kept = (~left_out).reshape(n_methods, n_datasets).sum(axis=1)
    ranks = rank_matrix.reshape(-1, n_criteria)
    inverse = np.where(ranks > 0, 1.0 / np.where(ranks > 0, ranks, 1.0), 0.0)
    zero = (ranks <= 0).astype(float)
    has_zero = bool(zero.any())
    out = np.empty((len(weight_matrix), n_methods))
    for start in range(0, len(weight_matrix), _BLOCK):
        block = weight_matrix[start:start + _BLOCK]
        denominator = np.zeros((len(inverse), len(block)))  # (cells, vectors)
        for c in range(n_criteria):  # few criteria: plain outer products beat BLAS and einsum here
            denominator += np.multiply.outer(inverse[:, c], block[:, c])
        with np.errstate(divide="ignore", invalid="ignore"):
            hmean = block.sum(axis=1) / denominator
        if has_zero:  # a rank 0 with a positive weight makes the harmonic mean 0 (its limit)
            hmean[np.einsum("ic,nc->in", zero, (block > 0).astype(float)) > 0] = 0.0
        if left_out.any():  # DNFs left out: the mean over the datasets each method has ranks on
            hmean[left_out] = 0.0
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = hmean.reshape(n_methods, n_datasets, -1).sum(axis=1) / kept[:, None]
            out[start:start + len(block)] = np.where(kept[:, None] > 0, mean, 0.0).T
        else:
            out[start:start + len(block)] = hmean.reshape(n_methods, n_datasets, -1).mean(axis=1).T
    return out
