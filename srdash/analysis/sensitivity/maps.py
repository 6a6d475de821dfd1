"""The data of the weight figures: the winner over a grid of the simplex of three weights
(:func:`ternary_winner_map`) and the places as one weight sweeps a range (:func:`weight_sweep`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from srdash.errors import RulesError, SrdashError
from srdash.analysis.sensitivity.places import places_many
from srdash.analysis.sensitivity.rescorer import Rescorer

__all__ = ["TernaryMap", "ternary_winner_map", "WeightSweep", "weight_sweep"]


@dataclass(frozen=True, eq=False)
class TernaryMap:
    """The winner at every point of a regular grid over the simplex of three weights.

    Attributes
    ----------
    weights : ndarray of shape (points, 3)
        Normalised weight vectors.
    winners : tuple of str
        The winner at each point; tied winners joined by " = ".
    weight_names, weight_labels : tuple of str
    official : ndarray of shape (3,)
        The official weights, normalised.
    official_winner : str
    """

    weights: np.ndarray
    winners: tuple[str, ...]
    weight_names: tuple[str, ...]
    weight_labels: tuple[str, ...]
    official: np.ndarray
    official_winner: str

    def share(self, winner: str) -> float:
        """Share of the grid points where ``winner`` wins."""
        return float(np.mean([w == winner for w in self.winners]))


def _winner_names(methods: Sequence[str], places: np.ndarray) -> list[str]:
    return [" = ".join(m for m, p in zip(methods, row) if p == 1) for row in places]


def ternary_winner_map(rescorer: Rescorer, *, resolution: int = 30) -> TernaryMap:
    """Who wins where, over the whole simplex of exactly three weights.

    Parameters
    ----------
    rescorer : Rescorer
        With exactly three weights.
    resolution : int
        Grid steps per side: ``(resolution + 1) * (resolution + 2) / 2`` points.

    Raises
    ------
    SrdashError
        When the rules do not have exactly three weights.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.5, 0.7],
    ...                      "simplicity": [-2.0, -0.5, -1.0], "property": [0.1, 0.2, 0.9]})
    >>> tmap = ternary_winner_map(Rescorer.from_verdict(judge(runs, load_rules("srbench2022"))), resolution=4)
    >>> len(tmap.winners), tmap.winners[0], tmap.official_winner
    (15, 'c', 'c')
    """
    if rescorer.n_weights != 3:
        raise SrdashError(f"A ternary map needs exactly three weights; these rules have {rescorer.n_weights} "
                          f"({', '.join(rescorer.weight_names)}).")
    if not isinstance(resolution, (int, np.integer)) or resolution < 1:
        raise SrdashError(f"The resolution must be a positive integer. Got {resolution!r}.")
    grid = np.array([(i, j, resolution - i - j) for i in range(resolution + 1) for j in range(resolution + 1 - i)],
                    dtype=float) / resolution
    places = places_many(rescorer._scores_many(grid))
    official = rescorer.official_weights / rescorer.official_weights.sum()
    official_winner = _winner_names(rescorer.methods, rescorer.official_places[None, :])[0]
    return TernaryMap(weights=grid, winners=tuple(_winner_names(rescorer.methods, places)),
                      weight_names=rescorer.weight_names, weight_labels=rescorer.weight_labels,
                      official=official, official_winner=official_winner)


@dataclass(frozen=True, eq=False)
class WeightSweep:
    """Places as one weight varies and the others stay fixed (input of a bump chart).

    Attributes
    ----------
    weight_name, weight_label : str
        The varied weight.
    values : ndarray of shape (points,)
    places : ndarray of shape (points, n_methods)
        Float, NaN where every weight is 0.
    methods : tuple of str
    current : float
        The varied weight's current value.
    weights : ndarray
        The full current weight vector.
    """

    weight_name: str
    weight_label: str
    values: np.ndarray
    places: np.ndarray
    methods: tuple[str, ...]
    current: float
    weights: np.ndarray


def weight_sweep(rescorer: Rescorer, name: str, *, weights=None, maximum: float | None = None,
                 points: int = 41) -> WeightSweep:
    """Places of every competitor as the weight ``name`` goes from 0 to ``maximum``.

    Parameters
    ----------
    rescorer : Rescorer
    name : str
        One of :attr:`Rescorer.weight_names`.
    weights : optional
        The other weights (default: official).
    maximum : float, optional
        Default: three times the largest official weight.
    points : int

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import accuracy_or_simplicity
    >>> sweep = weight_sweep(accuracy_or_simplicity(), "accuracy", points=3)
    >>> sweep.values.tolist(), sweep.places.tolist()
    ([0.0, 1.5, 3.0], [[2.0, 1.0], [1.0, 2.0], [1.0, 2.0]])
    """
    if name not in rescorer.weight_names:
        raise RulesError(f"Unknown weight '{name}'. Weights: {', '.join(rescorer.weight_names)}.")
    base = rescorer.weights_from(weights)
    index = rescorer.weight_names.index(name)
    top = float(maximum) if maximum is not None else 3.0 * float(rescorer.official_weights.max())
    values = np.linspace(0.0, top, int(points))
    matrix = np.repeat(base[None, :], len(values), axis=0)
    matrix[:, index] = values
    valid = matrix.sum(axis=1) > 0
    places = np.full((len(values), len(rescorer.methods)), np.nan)
    if valid.any():
        places[valid] = places_many(rescorer._scores_many(matrix[valid]))
    return WeightSweep(weight_name=name, weight_label=rescorer.weight_labels[index], values=values,
                       places=places, methods=rescorer.methods, current=float(base[index]), weights=base)
