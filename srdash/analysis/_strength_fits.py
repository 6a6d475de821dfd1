"""Plackett-Luce and Bradley-Terry fits of many weightings at once (the jury model's numerical core).

Plackett-Luce (:func:`fit_stages`): each ranking's choice stages (who is left, who is picked), Newton's
method on all the fits of a chunk at once; the Hessian's sum over the distinct sets is built one fit
at a time (no (sets, n, n) array: 18,000 stages of 300 methods would need 13 GB).

Bradley-Terry: :mod:`srdash.analysis.jury_model` fits Bradley-Terry strengths to the pairwise preferences its
rankings imply, once per bootstrap redraw. A ranking of m methods implies about m²/2 comparisons:
60 judges ranking 100 methods on 3 datasets imply 900,000, and one row per comparison (its stage of
"who is left, who is picked", dense over the methods) took 4.7 GB and 50 s. Here the comparisons
are never listed: each ranking is an (n, n) table of wins (1 for "above", 1/2 each way for a tie),
each fit's wins are a weighted sum of those tables, and Newton's method runs on the (n, n) tables
of the fits, a chunk of fits at a time (at most :data:`CHUNK_VALUES` numbers per array). The
log-posterior is the same sum as Plackett-Luce's with one stage per comparison, so the strengths are
the same maximum.

Cost: time grows as fits x iterations x (stages x n² + n³) for Plackett-Luce and fits x (rankings x n²
+ iterations x n³) for Bradley-Terry (see :mod:`srdash.analysis.costs`, which bounds them); memory as
:data:`CHUNK_VALUES` plus rankings x n² numbers at most.
"""

from __future__ import annotations

import contextlib
from typing import Sequence

import numpy as np

from srdash.errors import SrdashError

__all__ = ["CHUNK_VALUES", "bradley_terry_tables", "chunks", "fit_stages", "fit_tables", "one_blas_thread",
           "ranking_tables", "stages"]

#: The most numbers one array of a chunk of fits holds (fits x n x n): 16 MB of float64.
CHUNK_VALUES = 2_000_000
NOT_CONVERGED = ("The strengths did not converge in {max_iter} iterations; give a prior above 0 (a method every "
                 "judge puts first, or last, has no finite maximum-likelihood strength).")
NO_MAXIMUM = ("The strengths have no finite maximum-likelihood estimate: some method is never picked before "
              "another that is picked before it (e.g. first, or last, in every ranking). Give a prior above 0.")


def one_blas_thread():
    """A context in which BLAS uses one thread: on the (n, n) systems of these fits, more threads cost more
    than they give (a 100 x 100 solve: 9 ms with OpenBLAS's threads on 2 busy cores, 0.05 ms with one).
    threadpoolctl comes with scikit-learn; without it, nothing changes."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn, a dependency, requires it
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def chunks(n_fits: int, n_items: int) -> list[slice]:
    """Slices of the fits, each small enough that (fits, n, n) holds at most :data:`CHUNK_VALUES` numbers."""
    size = max(1, CHUNK_VALUES // max(1, n_items * n_items))
    return [slice(start, min(start + size, n_fits)) for start in range(0, n_fits, size)]


def ranking_tables(rankings: Sequence[Sequence], n_items: int, rows: slice) -> np.ndarray:
    """The win tables of ``rankings[rows]``, flattened: (rankings, n * n), ``[i * n + j]`` = wins of i over j
    (1 when i is ranked above j, 1/2 when they tie)."""
    chosen = rankings[rows]
    tables = np.zeros((len(chosen), n_items, n_items))
    for r, groups in enumerate(chosen):
        items = np.array([int(i) for g in groups for i in g], dtype=int)
        level = np.array([a for a, g in enumerate(groups) for _ in g], dtype=int)
        above = (level[:, None] < level[None, :]) + 0.5 * (level[:, None] == level[None, :])
        np.fill_diagonal(above, 0.0)
        tables[r][np.ix_(items, items)] = above
    return tables.reshape(len(chosen), n_items * n_items)


def bradley_terry_tables(rankings: Sequence[Sequence], n_items: int, draws: np.ndarray, *, prior: float,
                         tol: float, max_iter: int) -> np.ndarray:
    """Bradley-Terry centred log-strengths (B, n), one row per row of ``draws`` (B, rankings): how often each
    ranking counts in that fit."""
    result = np.zeros((draws.shape[0], n_items))
    ranking_rows = chunks(len(rankings), n_items)
    for fits in chunks(draws.shape[0], n_items):
        wins = np.zeros((fits.stop - fits.start, n_items * n_items))
        for rows in ranking_rows:  # a chunk of rankings' tables at a time
            wins += draws[fits, rows] @ ranking_tables(rankings, n_items, rows)
        result[fits] = fit_tables(wins.reshape(-1, n_items, n_items), prior=prior, tol=tol, max_iter=max_iter)
    return result


def _objective(theta: np.ndarray, wins: np.ndarray, games: np.ndarray, prior: float) -> np.ndarray:
    # each unordered pair once: games is symmetric, so half of the sum over ordered pairs
    log_sums = np.logaddexp(theta[:, :, None], theta[:, None, :])
    return ((wins.sum(axis=2) * theta).sum(axis=1) - 0.5 * (games * log_sums).sum(axis=(1, 2))
            + prior * (theta - np.exp(theta)).sum(axis=1))


def _check_estimable(wins: np.ndarray) -> None:
    """Without a prior, the maximum-likelihood strengths exist only when the "beat" graph is strongly
    connected (Hunter 2004, assumption 1); a tie counts both ways."""
    n_items = wins.shape[1]
    for table in wins:
        reach = (table > 0) | np.eye(n_items, dtype=bool)
        for _ in range(max(1, int(np.ceil(np.log2(max(n_items, 2)))))):
            reach = reach | ((reach.astype(float) @ reach.astype(float)) > 0)
        if not reach.all():
            raise SrdashError(NO_MAXIMUM)


def _newton_step(theta, value, hessian, gradient, objective):
    """One Newton step of every fit, halved per fit until the objective does not go down (backtracking).

    Returns the new ``(theta, value, largest move)``, or None when a Hessian is singular.
    """
    try:
        step = -np.linalg.solve(hessian, gradient[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        return None
    size = np.ones(theta.shape[0])
    for _ in range(60):
        trial = theta + size[:, None] * step
        new_value = objective(trial)
        worse = ~(new_value >= value - 1e-12 * np.abs(value))
        if not worse.any():
            break
        size = np.where(worse, size / 2, size)
    return trial, new_value, np.abs(size[:, None] * step).max()


def fit_tables(wins: np.ndarray, *, prior: float, tol: float, max_iter: int) -> np.ndarray:
    """Centred Bradley-Terry log-strengths (B, n) from win tables (B, n, n): ``wins[b, i, j]`` = weight of
    "i beat j" in fit b.

    The log-posterior ``sum_i W_i theta_i - sum_{i<j} G_ij log(e^theta_i + e^theta_j) + prior sum_i (theta_i -
    e^theta_i)`` (``W_i`` the wins of i, ``G = wins + wins'`` the games) is concave; its maximum is found by
    Newton's method with a backtracking line search, steps orthogonal to the common shift when ``prior = 0``.
    """
    n_fits, n_items = wins.shape[0], wins.shape[1]
    if prior == 0:
        _check_estimable(wins)
    games = wins + wins.transpose(0, 2, 1)
    total_wins = wins.sum(axis=2)
    theta = np.zeros((n_fits, n_items))
    value = _objective(theta, wins, games, prior)
    eye = np.eye(n_items)
    for _ in range(max_iter):
        share = 1.0 / (1.0 + np.exp(theta[:, None, :] - theta[:, :, None]))   # P(i beats j) (B, n, n)
        strengths = np.exp(theta)
        gradient = total_wins - (games * share).sum(axis=2) + prior * (1.0 - strengths)
        curvature = games * share * share.transpose(0, 2, 1)
        hessian = curvature - (curvature.sum(axis=2) + prior * strengths)[:, :, None] * eye[None]
        if prior == 0:
            hessian = hessian - 1.0                                   # steps orthogonal to the common shift
        moved = _newton_step(theta, value, hessian, gradient, lambda t: _objective(t, wins, games, prior))
        if moved is None:
            break
        theta, value, largest = moved
        if not np.isfinite(theta).all():
            break
        if largest <= tol:
            return theta - theta.mean(axis=1, keepdims=True)
    raise SrdashError(NOT_CONVERGED.format(max_iter=max_iter))


# --------------------------------------------------------------------------- Plackett-Luce: choice stages


def stages(rankings: Sequence[Sequence], n_items: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each ranking's choice stages: who is left (0/1 rows), who is picked (counts), which ranking.

    A ranking is a sequence of items (best first); an item may be a tuple or list of tied items.
    A last stage with one item left is skipped (it contributes w/w = 1).
    """
    left_rows, picked_rows, owner = [], [], []
    for r, ranking in enumerate(rankings):
        groups = [tuple(g) if isinstance(g, (tuple, list, np.ndarray)) else (g,) for g in ranking]
        items = [int(i) for g in groups for i in g]
        if len(set(items)) != len(items):
            raise SrdashError(f"Ranking #{r + 1} names an item more than once: {list(ranking)!r}.")
        if any(i < 0 or i >= n_items for i in items):
            raise SrdashError(f"Ranking #{r + 1} names an item outside 0..{n_items - 1}: {list(ranking)!r}.")
        remaining = set(items)
        for group in groups:
            if len(remaining) == 1 and len(group) == 1:
                break
            left = np.zeros(n_items)
            left[list(remaining)] = 1.0
            picked = np.zeros(n_items)
            picked[[int(i) for i in group]] = 1.0
            left_rows.append(left)
            picked_rows.append(picked)
            owner.append(r)
            remaining -= {int(i) for i in group}
    if not left_rows:
        return np.zeros((0, n_items)), np.zeros((0, n_items)), np.zeros(0, dtype=int)
    return np.array(left_rows), np.array(picked_rows), np.array(owner)


def _log_sums(theta: np.ndarray, left_sets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per fit: the strengths scaled by the largest (B, n), the sums of the scaled strengths left in each
    set (B, U) and the logs of the unscaled sums (B, U)."""
    top = theta.max(axis=1, keepdims=True)
    scaled = np.exp(theta - top)
    totals = scaled @ left_sets.T
    return scaled, totals, np.log(totals) + top


def _stage_objective(theta, wins, cost, left_sets, prior) -> np.ndarray:
    _, _, log_sums = _log_sums(theta, left_sets)
    return (wins * theta).sum(axis=1) - (cost * log_sums).sum(axis=1) + prior * (theta - np.exp(theta)).sum(axis=1)


def _check_stages_estimable(left: np.ndarray, picked: np.ndarray, weights: np.ndarray) -> None:
    """Without a prior, the maximum-likelihood strengths exist only when every item can be reached from every
    other through "was picked before" (Hunter 2004, assumption 1): the comparison graph is strongly connected."""
    n_items = left.shape[1]
    for row in weights:
        counted = row > 0
        # i -> j: i was picked while j was left (a tie: both ways, Breslow's term bounds their ratio)
        beaten = (picked[counted] > 0).astype(float).T @ (left[counted] > 0).astype(float) > 0
        reach = beaten | np.eye(n_items, dtype=bool)
        for _ in range(max(1, int(np.ceil(np.log2(max(n_items, 2)))))):
            reach = reach | ((reach.astype(float) @ reach.astype(float)) > 0)
        if not reach.all():
            raise SrdashError(NO_MAXIMUM)


def fit_stages(left: np.ndarray, picked: np.ndarray, weights: np.ndarray, *, prior: float, tol: float,
         max_iter: int) -> np.ndarray:
    """The strengths of many weightings at once: (B, n) centred log-strengths.

    ``left`` (S, n): who is left at each stage; ``picked`` (S, n): who is picked there (a tie group:
    several); ``weights`` (B, S): how often each stage counts in each fit. The log-posterior

        sum_i wins_i theta_i - sum_s weight_s |picked_s| log sum_{j left at s} e^theta_j
                            + prior sum_i (theta_i - e^theta_i)

    is concave; its maximum is the fixed point of Hunter's MM with choix's prior,
    ``w_i = (wins_i + prior) / (denominator_i + prior)`` (whose strengths sum to n). It is found by
    Newton's method with a backtracking line search (a few iterations where MM takes thousands).
    With ``prior = 0`` the strengths are defined up to a common shift; each step is taken
    orthogonal to it.
    """
    n_fits, n_items = weights.shape[0], left.shape[1]
    if prior == 0:
        _check_stages_estimable(left, picked, weights)
    wins = weights @ picked                                       # (B, n)
    # stages with the same methods left share their log-sum term: one column per distinct set (the pairs
    # of Bradley-Terry repeat across rankings)
    left_sets, which = np.unique(left, axis=0, return_inverse=True)
    which = np.asarray(which).reshape(-1)
    members = np.zeros((len(left), len(left_sets)))
    members[np.arange(len(left)), which] = 1.0
    cost = (weights * picked.sum(axis=1)[None, :]) @ members      # (B, U): picks made from each set
    theta = np.zeros((n_fits, n_items))
    value = _stage_objective(theta, wins, cost, left_sets, prior)
    ones = np.ones((n_items, n_items))
    eye = np.eye(n_items)
    for _ in range(max_iter):
        scaled, totals, _ = _log_sums(theta, left_sets)
        strengths = np.exp(theta)
        expected = scaled * ((cost / totals) @ left_sets)          # sum over sets of cost * share (B, n)
        gradient = wins - expected + prior * (1.0 - strengths)
        # sum over sets of cost / total^2 * (members' outer product), a fit at a time: no (sets, n, n) array
        roots = np.sqrt(cost) / totals
        outer = np.stack([scaled_sets.T @ scaled_sets for scaled_sets in (left_sets * root[:, None] for root in roots)])
        hessian = (outer * scaled[:, :, None] * scaled[:, None, :]
                   - (expected + prior * strengths)[:, :, None] * eye[None])
        if prior == 0:
            hessian = hessian - ones[None]                        # steps orthogonal to the common shift
        moved = _newton_step(theta, value, hessian, gradient,
                             lambda t: _stage_objective(t, wins, cost, left_sets, prior))
        if moved is None:
            break
        theta, value, largest = moved
        if not np.isfinite(theta).all():
            break
        if largest <= tol:
            return theta - theta.mean(axis=1, keepdims=True)
    raise SrdashError(NOT_CONVERGED.format(max_iter=max_iter))
