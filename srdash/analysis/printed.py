"""Numbers a sentence prints, chosen so that the claim holds at the printed precision.

A certificate that says "at weights accuracy 0.573, simplicity 0.427 *Operon leads" is read
by people who will judge the competition again at exactly 0.573 and 0.427. A point found by
a search and then rounded can fall on the other side of a crossing, so the weights printed
here are rounded *and judged again as printed*: the fewest decimals (at least three) whose
rounded point still makes the method win, trying the nearest rounding and the rounding away
from the official weights (deeper into the winning region); the margin printed is the one
judged at the printed weights. Scores printed side by side get the digits that tell apart
the values the verdict tells apart (scores compared to 9 decimals).

Examples
--------
>>> score_texts([14.7035861, 14.7032311, 13.2])
['14.704', '14.703', '13.2']
>>> score_texts([2.5, 2.25])
['2.5', '2.25']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping, Sequence

import numpy as np

__all__ = ["score_texts", "PrintedWeights", "printed_winning_weights", "SCORE_DECIMALS", "FEWEST_DECIMALS",
           "MOST_DECIMALS"]

#: Scores are compared to this many decimals (as :func:`srdash.judging.ranking.place_from_scores`).
SCORE_DECIMALS = 9
#: Weights are printed with at least this many decimals...
FEWEST_DECIMALS = 3
#: ... and at most this many; past it, with every digit of the float (``repr``).
MOST_DECIMALS = 12


def score_texts(values: Sequence[float], *, digits: int = 4) -> list[str]:
    """Each value with ``digits`` significant digits, or more where two values that differ
    (to :data:`SCORE_DECIMALS` decimals) would print alike.

    Parameters
    ----------
    values : sequence of float
    digits : int
        The fewest significant digits.

    Returns
    -------
    list of str

    Examples
    --------
    >>> score_texts([1.5, 1.5, 1.25], digits=2)
    ['1.5', '1.5', '1.2']
    >>> score_texts([1.2501, 1.2504], digits=2)
    ['1.2501', '1.2504']
    """
    values = [float(v) for v in values]
    rounded = [round(v, SCORE_DECIMALS) if math.isfinite(v) else v for v in values]
    for g in range(digits, 18):
        texts = [f"{v:.{g}g}" for v in values]
        if all(texts[i] != texts[j] for i in range(len(values)) for j in range(i)
               if rounded[i] != rounded[j]):
            return texts
    return [repr(v) for v in values]  # pragma: no cover - 17 significant digits tell every float apart


@dataclass(frozen=True)
class PrintedWeights:
    """Weights as printed, under which ``method`` is first alone when judged at exactly those values.

    Attributes
    ----------
    method : str
    text : Mapping of str to str
        Each weight as printed.
    weights : Mapping of str to float
        The printed values (``float(text)``), the weights judged.
    margin : float
        The method's lead over the runner-up, judged at ``weights``.
    distance : float
        L1 distance on the simplex between ``weights`` (normalised) and the official weights.
    decimals : int or None
        Decimals printed (None: every digit of the float).
    judgings : int
        How many times the competition was judged to choose the point.
    """

    method: str
    text: Mapping[str, str]
    weights: Mapping[str, float]
    margin: float
    distance: float
    decimals: int | None
    judgings: int

    @property
    def margin_text(self) -> str:
        """The margin to 4 significant digits (correctly rounded from the judged float)."""
        return f"{self.margin:.4g}"


def _candidates(found: np.ndarray, official: np.ndarray):
    """Printed points to try, fewest decimals first: nearest rounding, then rounding away from the
    official weights (the search's point lies just past a crossing on the way from them)."""
    for decimals in range(FEWEST_DECIMALS, MOST_DECIMALS + 1):
        scale = 10 ** decimals
        nearest = [round(v * scale) for v in found]
        away = [math.ceil(v * scale) if v > o else math.floor(v * scale) if v < o else round(v * scale)
                for v, o in zip(found, official)]
        for units in (nearest, away):
            yield decimals, [f"{u / scale:.{decimals}f}" for u in units]
    yield None, [repr(float(v)) for v in found]


def printed_winning_weights(scores_at: Callable[[Mapping[str, float]], np.ndarray], methods: Sequence[str],
                            method: str, found: Mapping[str, float], *, official: Mapping[str, float]
                            ) -> PrintedWeights | None:
    """The fewest-decimals rounding of ``found`` under which ``method`` is first alone, judged as printed.

    Parameters
    ----------
    scores_at : callable
        Weights (criterion name -> value) -> every method's score, in the order of ``methods``,
        judged from the data (not estimated).
    methods : sequence of str
    method : str
        The method that should win.
    found : Mapping of str to float
        The point a search found (on the simplex).
    official : Mapping of str to float
        The official weights (any scale).

    Returns
    -------
    PrintedWeights or None
        None when no rounding, nor the found point itself, makes ``method`` first alone.

    Examples
    --------
    Two methods whose scores cross where the first weight is 0.5731: the point found, 0.57312,
    rounds to 0.573 (the other side); the rounding away from the official 0.5 wins.

    >>> def scores_at(w):
    ...     share = w["x"] / (w["x"] + w["y"])
    ...     return np.array([share, 0.5731])
    >>> printed = printed_winning_weights(scores_at, ["a", "b"], "a", {"x": 0.57312, "y": 0.42688},
    ...                                   official={"x": 1, "y": 1})
    >>> dict(printed.text), printed.margin_text
    ({'x': '0.574', 'y': '0.426'}, '0.0009')
    """
    names = list(found)
    point = np.array([found[n] for n in names], dtype=float)
    reference = np.array([official[n] for n in names], dtype=float)
    reference = reference / reference.sum()
    index = list(methods).index(method)
    judgings = 0
    tried: set[tuple[str, ...]] = set()
    for decimals, texts in _candidates(point, reference):
        values = [float(t) for t in texts]
        if tuple(texts) in tried or min(values) < 0 or sum(values) <= 0:
            continue
        tried.add(tuple(texts))
        weights = dict(zip(names, values))
        scores = np.asarray(scores_at(weights), dtype=float)
        judgings += 1
        rounded = np.round(scores, SCORE_DECIMALS)
        others = np.delete(rounded, index)
        if others.size and rounded[index] > others.max():
            margin = float(scores[index] - np.delete(scores, index).max())
            simplex = np.array(values) / sum(values)
            return PrintedWeights(method, MappingProxyType(dict(zip(names, texts))), MappingProxyType(weights),
                                  margin, float(np.abs(simplex - reference).sum()), decimals, judgings)
    return None
