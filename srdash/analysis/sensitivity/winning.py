"""Targeted search: weights under which a given competitor wins, or a statement that none exist
(:func:`find_winning_weights`; a linear program where the score is linear in the weights, a search
otherwise, and the answer says which)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from srdash.errors import SrdashError
from srdash.analysis.sensitivity.places import SCORE_DECIMALS, sample_weights
from srdash.analysis.sensitivity.rescorer import Rescorer

__all__ = ["WinningWeights", "find_winning_weights"]

# A lead smaller than this is a tie (places compare scores rounded to SCORE_DECIMALS).
_TIE = 10.0 ** -SCORE_DECIMALS


@dataclass(frozen=True)
class WinningWeights:
    """The answer to "which weights would make this method win?".

    Attributes
    ----------
    method : str
    status : {'found', 'impossible', 'not found'}
        ``impossible`` is proved (by the linear program, or because another
        competitor is at least as good on every component); ``not found`` means
        the search failed, which is not a proof.
    weights : Mapping of str to float or None
        Normalised to sum 1: among the weights found, those closest to the
        official ones.
    margin : float
        The method's lead over the runner-up at ``weights`` (the best reachable
        lead, negative if it trails, when nothing was found).
    approach : str
        ``'linear program'`` or a description of the search.
    explanation : str
        One or two sentences for the reader.
    """

    method: str
    status: str
    weights: Mapping[str, float] | None
    margin: float
    approach: str
    explanation: str

    @property
    def exists(self) -> bool | None:
        """True (found), False (proved impossible) or None (not found by search)."""
        return {"found": True, "impossible": False}.get(self.status)


def _margins(scores: np.ndarray, index: int) -> np.ndarray:
    others = np.delete(scores, index, axis=1)
    return scores[:, index] - others.max(axis=1)


def _dominator(rescorer: Rescorer, index: int) -> str | None:
    """A competitor at least as good as ``index`` on every component (then ``index`` can never lead)."""
    mine = rescorer.components[index]
    fixed = rescorer.fixed_scores
    for j, other in enumerate(rescorer.methods):
        if j == index:
            continue
        if rescorer.linear:
            both_fixed = not np.isnan(fixed[index]) and not np.isnan(fixed[j])
            neither_fixed = np.isnan(fixed[index]) and np.isnan(fixed[j])
            if (both_fixed and fixed[j] >= fixed[index]) or (neither_fixed and (rescorer.components[j] >= mine).all()):
                return other
        elif (rescorer.components[j] >= mine).all():
            return other
    return None


def find_winning_weights(rescorer: Rescorer, method: str, *, samples: int = 20_000, seed: int = 0) -> WinningWeights:
    """Weights under which ``method`` is alone in first place, or a statement that none exist.

    Normalised-weighted rules (linear in the weights on the simplex): a linear
    program maximises the method's lead over every other competitor; if the
    best lead is positive, a second linear program finds the winning weights
    closest (L1) to the official ones. The answer is exact.

    Rank-harmonic rules (not linear): a search over ``samples`` weight vectors
    drawn uniformly from the simplex plus its corners, edge midpoints and the
    official weights, then a local refinement (Nelder-Mead) of the best one.
    "Impossible" is stated only with a proof: another method whose rank is at
    least as high on every dataset and criterion; otherwise a failed search
    says "not found".

    Parameters
    ----------
    rescorer : Rescorer
    method : str
    samples : int
        Search size (rank-harmonic rules).
    seed : int

    Returns
    -------
    WinningWeights

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules

    Ranks (3 = best): a (accuracy 3, simplicity 2), b (1, 3), c (2, 1); a wins with equal weights.

    >>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0,
    ...                      "r2_test": [0.9, 0.4, 0.5], "simplicity": [-1.0, -0.5, -2.0]})
    >>> from srdash.demo.examples import accuracy_and_simplicity_rules
    >>> rescorer = Rescorer.from_verdict(judge(runs, accuracy_and_simplicity_rules()))
    >>> rescorer.leaderboard()["method"].tolist()
    ['a', 'b', 'c']
    >>> answer = find_winning_weights(rescorer, "b", samples=200)
    >>> answer.status, answer.weights["simplicity"] > answer.weights["accuracy"]
    ('found', True)
    >>> answer = find_winning_weights(rescorer, "c", samples=200)
    >>> answer.status, answer.explanation
    ('impossible', "No weights make 'c' win: 'a' ranks at least as high on every dataset and criterion, so it scores at least as high under any weights.")
    """
    if method not in rescorer.methods:
        raise SrdashError(f"Unknown {rescorer.entity} '{method}'. Known: {', '.join(rescorer.methods)}.")
    index = rescorer.methods.index(method)
    names = rescorer.weight_names
    official = rescorer.official_weights / rescorer.official_weights.sum()
    if len(rescorer.methods) == 1:
        return WinningWeights(method, "found", MappingProxyType(dict(zip(names, official.tolist()))), math.inf,
                              "none needed", f"'{method}' is the only competitor.")
    if rescorer.linear:
        return _winning_weights_lp(rescorer, index, official)
    return _winning_weights_search(rescorer, index, official, samples=samples, seed=seed)


def _linear_terms(rescorer: Rescorer) -> tuple[np.ndarray, np.ndarray]:
    """Score_j(w) = a_j . w + b_j for w on the simplex."""
    fixed = ~np.isnan(rescorer.fixed_scores)
    a = np.where(fixed[:, None], 0.0, rescorer.components)
    b = np.where(fixed, rescorer.fixed_scores, 0.0)
    return a, b


def _winning_weights_lp(rescorer: Rescorer, index: int, official: np.ndarray) -> WinningWeights:
    from scipy.optimize import linprog

    method = rescorer.methods[index]
    names = rescorer.weight_names
    a, b = _linear_terms(rescorer)
    others = [j for j in range(len(rescorer.methods)) if j != index]
    c = len(names)
    # variables: w (c), t ; maximise t subject to (a_j - a_x) . w + t <= b_x - b_j, sum w = 1, w >= 0
    a_ub = np.hstack([a[others] - a[index], np.ones((len(others), 1))])
    b_ub = b[index] - b[others]
    a_eq = np.hstack([np.ones((1, c)), np.zeros((1, 1))])
    result = linprog(np.r_[np.zeros(c), -1.0], A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0],
                     bounds=[(0, None)] * c + [(None, None)], method="highs")
    if result.status != 0:  # pragma: no cover - the problem is always feasible and bounded
        raise SrdashError(f"The linear program failed: {result.message}")
    best_lead = -float(result.fun)
    if best_lead <= _TIE:
        rival = _dominator(rescorer, index)
        why = f" '{rival}' is at least as good on every meta-score." if rival else ""
        what = "at best tie for first place" if best_lead > -_TIE else f"at best trail the leader by {-best_lead:.4g}"
        return WinningWeights(method, "impossible", None, best_lead, "linear program",
                              f"No weights make '{method}' win: the linear program shows it can {what}.{why}")
    target = min(best_lead / 2, max(best_lead / 100, 1e-6))
    # closest to the official weights (L1): variables w (c), d (c); minimise sum d
    a_ub2 = np.vstack([
        np.hstack([a[others] - a[index], np.zeros((len(others), c))]),
        np.hstack([np.eye(c), -np.eye(c)]),
        np.hstack([-np.eye(c), -np.eye(c)]),
    ])
    b_ub2 = np.r_[b[index] - b[others] - target, official, -official]
    closest = linprog(np.r_[np.zeros(c), np.ones(c)], A_ub=a_ub2, b_ub=b_ub2,
                      A_eq=np.hstack([np.ones((1, c)), np.zeros((1, c))]), b_eq=[1.0],
                      bounds=[(0, None)] * (2 * c), method="highs")
    weights = np.clip(closest.x[:c], 0, None) if closest.status == 0 else np.clip(result.x[:c], 0, None)
    weights = weights / weights.sum()
    margin = float(_margins(rescorer._scores_many(weights[None, :]), index)[0])
    if margin <= _TIE:  # numerical edge: fall back to the max-lead weights
        weights = np.clip(result.x[:c], 0, None)
        weights = weights / weights.sum()
        margin = float(_margins(rescorer._scores_many(weights[None, :]), index)[0])
    distance = float(np.abs(weights - official).sum())
    return WinningWeights(method, "found", MappingProxyType(dict(zip(names, weights.tolist()))), margin,
                          "linear program",
                          f"'{method}' wins with these weights (the winning weights closest to the official "
                          f"ones, L1 distance {distance:.3g} on the simplex); its largest possible lead is "
                          f"{best_lead:.4g}.")


def _winning_weights_search(rescorer: Rescorer, index: int, official: np.ndarray, *, samples: int,
                            seed: int) -> WinningWeights:
    from scipy.optimize import minimize

    method = rescorer.methods[index]
    names = rescorer.weight_names
    c = len(names)
    corners = np.eye(c)
    midpoints = np.array([(corners[i] + corners[j]) / 2 for i, j in itertools.combinations(range(c), 2)]).reshape(-1, c)
    candidates = np.vstack([official[None, :], corners, midpoints, sample_weights(c, samples, seed=seed)])
    approach = (f"search ({len(candidates)} weight vectors: uniform samples from the simplex, its corners, edge "
                "midpoints and the official weights; then a local refinement)")
    margins = _margins(rescorer._scores_many(candidates), index)
    winning = margins > _TIE
    if not winning.any():
        start = candidates[int(np.argmax(margins))]

        def loss(z: np.ndarray) -> float:
            w = np.exp(z - z.max())
            return -float(_margins(rescorer._scores_many((w / w.sum())[None, :]), index)[0])

        refined = minimize(loss, np.log(np.clip(start, 1e-6, None)), method="Nelder-Mead",
                           options={"maxiter": 200 * c, "xatol": 1e-6, "fatol": 1e-12})
        w = np.exp(refined.x - refined.x.max())
        w = w / w.sum()
        lead = -float(refined.fun)
        if lead > _TIE:
            candidates, margins, winning = w[None, :], np.array([lead]), np.array([True])
        else:
            best_lead = float(max(margins.max(), lead))
            rival = _dominator(rescorer, index)
            if rival is not None:
                # a prediction competition's teams are ranked on metrics, with no datasets
                where = "every metric" if rescorer.entity == "team" else "every dataset and criterion"
                return WinningWeights(method, "impossible", None, best_lead, approach,
                                      f"No weights make '{method}' win: '{rival}' ranks at least as high on "
                                      f"{where}, so it scores at least as high under any weights.")
            return WinningWeights(method, "not found", None, best_lead, approach,
                                  f"The search found no weights under which '{method}' wins (best lead "
                                  f"{best_lead:.4g}). This is a search, not a proof.")
    distances = np.abs(candidates[winning] - official).sum(axis=1)
    choice = int(np.argmin(distances))
    weights = candidates[winning][choice]
    margin = float(margins[winning][choice])
    return WinningWeights(method, "found", MappingProxyType(dict(zip(names, weights.tolist()))), margin, approach,
                          f"'{method}' wins with these weights (the closest to the official ones among those found, "
                          f"L1 distance {distances[choice]:.3g} on the simplex); lead over the runner-up {margin:.4g}.")
