"""Places under many weight vectors at once: weights drawn uniformly from the simplex, each ranking's
Kendall tau to the official one, and the probability of each place (:func:`place_probabilities`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from srdash.errors import SrdashError
from srdash.analysis.sensitivity.rescorer import Rescorer

__all__ = ["SCORE_DECIMALS", "places_many", "sample_weights", "kendall_tau", "PlaceProbabilities",
           "place_probabilities"]

#: Places compare scores rounded to this many decimals (as place_from_scores does).
SCORE_DECIMALS = 9
# Weight vectors scored per block in vectorised re-scoring (bounds memory).
_BLOCK = 128


def sample_weights(n_weights: int, samples: int, *, seed: int = 0) -> np.ndarray:
    """Weight vectors drawn uniformly from the simplex (a flat Dirichlet), reproducibly.

    Parameters
    ----------
    n_weights : int
    samples : int
    seed : int
        Seed of :func:`numpy.random.default_rng`: the same seed gives the same vectors.

    Returns
    -------
    ndarray of shape (samples, n_weights)
        Non-negative rows summing to 1.

    Examples
    --------
    >>> w = sample_weights(3, 4, seed=1)
    >>> w.shape, bool(np.allclose(w.sum(axis=1), 1)), bool((sample_weights(3, 4, seed=1) == w).all())
    ((4, 3), True, True)
    """
    if not isinstance(samples, (int, np.integer)) or samples < 1:
        raise SrdashError(f"The number of samples must be a positive integer. Got {samples!r}.")
    if n_weights < 1:
        raise SrdashError(f"Need at least one weight. Got {n_weights!r}.")
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(n_weights), size=int(samples))


def places_many(scores: np.ndarray) -> np.ndarray:
    """Row-wise places (1 = best, ties share the smallest), as
    :func:`srdash.judging.ranking.place_from_scores` does: scores equal to :data:`SCORE_DECIMALS`
    decimals share a place.

    Examples
    --------
    >>> places_many(np.array([[2.0, 1.0, 2.0], [0.5, 1.5, 1.0]])).tolist()
    [[1, 3, 1], [3, 1, 2]]
    """
    rounded = np.round(scores, SCORE_DECIMALS)
    places = np.empty(rounded.shape, dtype=np.int32)
    for start in range(0, len(rounded), _BLOCK):
        block = rounded[start:start + _BLOCK]
        places[start:start + _BLOCK] = 1 + (block[:, None, :] > block[:, :, None]).sum(axis=2)
    return places


def kendall_tau(rankings: np.ndarray, reference: Sequence[float]) -> np.ndarray:
    """Kendall's tau-b of each ranking (row) to a reference ranking.

    Parameters
    ----------
    rankings : array of shape (n_rankings, n_items) or (n_items,)
        Places or scores (any monotone scale; ties allowed).
    reference : array of shape (n_items,)

    Returns
    -------
    ndarray of shape (n_rankings,)
        1 = same order, -1 = reversed; NaN when a ranking is all ties.

    Examples
    --------
    >>> kendall_tau(np.array([[1, 2, 3], [3, 2, 1], [1, 3, 2]]), [1, 2, 3]).round(4).tolist()
    [1.0, -1.0, 0.3333]
    """
    rankings = np.atleast_2d(np.asarray(rankings, dtype=float))
    reference = np.asarray(reference, dtype=float)
    i, j = np.triu_indices(len(reference), k=1)
    ref_sign = np.sign(reference[i] - reference[j])
    out = np.empty(len(rankings))
    for start in range(0, len(rankings), _BLOCK):
        block = rankings[start:start + _BLOCK]
        sign = np.sign(block[:, i] - block[:, j])
        concordance = (sign * ref_sign).sum(axis=1)
        untied = np.count_nonzero(sign, axis=1) * np.count_nonzero(ref_sign)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start:start + len(block)] = concordance / np.sqrt(untied)
    return out


@dataclass(frozen=True, eq=False)
class PlaceProbabilities:
    """Places over weight vectors sampled uniformly from the simplex.

    Attributes
    ----------
    table : DataFrame
        One row per competitor in official order: the competitor, ``official_place``,
        ``p_win`` (probability of place 1, shared places included), ``mean_place``
        and ``place_1`` ... ``place_K`` (probability of each place).
    weights : ndarray of shape (samples, n_weights)
    places : ndarray of shape (samples, n_methods)
        In :attr:`Rescorer.methods` order.
    kendall_tau : ndarray of shape (samples,)
        Tau-b of each sampled ranking to the official one.
    seed : int
    methods, weight_names : tuple of str
    entity : str
    """

    table: pd.DataFrame
    weights: np.ndarray
    places: np.ndarray
    kendall_tau: np.ndarray
    seed: int
    methods: tuple[str, ...]
    weight_names: tuple[str, ...]
    entity: str = "method"

    @property
    def samples(self) -> int:
        return len(self.weights)


def place_probabilities(rescorer: Rescorer, *, samples: int = 10_000, seed: int = 0) -> PlaceProbabilities:
    """Probability of each place for each competitor, over weights uniform on the simplex.

    Parameters
    ----------
    rescorer : Rescorer
    samples : int
        Number of weight vectors.
    seed : int
        The same seed gives the same vectors and the same table.

    Returns
    -------
    PlaceProbabilities

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import accuracy_or_simplicity
    >>> result = place_probabilities(accuracy_or_simplicity(), samples=1000, seed=0)
    >>> result.table[["method", "official_place", "p_win", "place_1", "place_2"]].round(2)
      method  official_place  p_win  place_1  place_2
    0      a               1    0.5      0.5      0.5
    1      b               1    0.5      0.5      0.5
    """
    weights = sample_weights(rescorer.n_weights, samples, seed=seed)
    places = places_many(rescorer._scores_many(weights))
    official = rescorer.official_places
    tau = kendall_tau(places, official)
    n = len(rescorer.methods)
    counts = np.stack([(places == p).mean(axis=0) for p in range(1, n + 1)], axis=1)
    table = pd.DataFrame({rescorer.entity: list(rescorer.methods), "official_place": official,
                          "p_win": counts[:, 0], "mean_place": places.mean(axis=0)})
    for p in range(1, n + 1):
        table[f"place_{p}"] = counts[:, p - 1]
    table = table.sort_values(["official_place", "mean_place", rescorer.entity], kind="stable").reset_index(drop=True)
    return PlaceProbabilities(table=table, weights=weights, places=places, kendall_tau=tau, seed=int(seed),
                              methods=rescorer.methods, weight_names=rescorer.weight_names, entity=rescorer.entity)
