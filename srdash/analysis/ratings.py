"""Ratings and rates of a living leaderboard: Elo from a Bradley-Terry fit, win-rate, improvability and
the shares of first, second and third places, with bootstrap intervals over datasets.

Each dataset is a tournament: every two methods with a value there meet once; the better value wins,
equal values tie (half a win each). From the table of wins ``W[i, j]`` (summed over datasets; ties as
1/2 to each side) the Bradley-Terry strengths θ maximise the penalised log-likelihood

    Σ_{i≠j} W[i, j] · log σ(θ_i - θ_j)  -  α · Σ_i θ_i²,      σ(t) = 1 / (1 + e^(-t)),

(choix's ``opt_pairwise`` objective; α = :data:`REGULARIZATION` = 1e-3 keeps θ finite when a method wins
or loses every meeting; the penalty also centres θ on 0). Newton's method solves it to a gradient norm
below 1e-10. The Elo rating is ``1000 + 400 / ln(10) · (θ_i - θ_anchor)``: 400/ln 10 ≈ 173.7 Elo points
per logit unit, so 400 points are odds of 10 to 1, and the anchor method scores 1000 exactly.

Win-rate
    the share of a method's meetings it wins, ties counting 1/2: ``Σ_j W[i, j] / Σ_j (W[i, j] + W[j, i])``.
Improvability (TabArena's definition, ``1 - best error / error``, 0 when both are 0)
    on each dataset, the error of a method is its distance to the metric's optimum
    (``optimum - value`` when higher is better, ``value - optimum`` when lower is), and its
    improvability ``(error - best error) / error``: the share of its error the dataset's best method
    removes (0 for the best; 1 when the best is perfect or the method has no value). Averaged over datasets.
First, second, third places
    the share of datasets on which a method's rank is 1, 2 or 3 (rank by the ``min`` rule: methods
    tied for first all get 1, the next one 3; a missing value ranks last).

A missing value (no run, or a non-finite one) is worse than any value: the method loses every meeting
with a method that has a value; two missing values do not meet. Runs of one (method, dataset) are
combined by their median.

Intervals: B bootstrap resamples of the datasets (with replacement, a seeded
:class:`numpy.random.Generator`); each resample is refitted with the same anchor method; the bounds are
the 2.5 and 97.5 percentiles (the anchor's own Elo interval is [1000, 1000] by construction).

Examples
--------
>>> import pandas as pd
>>> runs = pd.DataFrame({"method": list("abcabcabc"), "dataset": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3,
...                      "r2": [0.9, 0.8, 0.5, 0.7, 0.9, 0.6, 0.95, 0.85, 0.85]})
>>> r = ratings(runs, metric="r2", n_bootstrap=0, anchor="c")
>>> r.table[["method", "win_rate", "first_share", "improvability"]].round(4)
  method  win_rate  first_share  improvability
0      a    0.8333       0.6667         0.2222
1      b    0.5833       0.3333         0.3889
2      c    0.0833       0.0000         0.7389
>>> float(r.table.loc[r.table["method"] == "c", "elo"].iloc[0])
1000.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.analysis._tables import median_by_dataset
from srdash.errors import SrdashError

__all__ = ["Ratings", "ratings", "bradley_terry", "ELO_PER_LOGIT", "ANCHOR_ELO", "REGULARIZATION"]

#: Elo points per logit unit of Bradley-Terry strength (400 points = odds of 10 to 1).
ELO_PER_LOGIT = 400.0 / math.log(10.0)
#: The anchor method's rating.
ANCHOR_ELO = 1000.0
#: α of the penalty α·Σθ² (choix's ``alpha``): keeps strengths finite for an unbeaten method.
REGULARIZATION = 1e-3
#: Interval bounds, in percent.
_LEVELS = (2.5, 97.5)


@dataclass(frozen=True)
class Ratings:
    """Ratings and rates per method, best Elo first.

    Attributes
    ----------
    table : pandas.DataFrame
        ``method``, ``elo``, ``elo_low``, ``elo_high``, ``win_rate`` (with ``_low``/``_high``),
        ``improvability`` (with ``_low``/``_high``), ``first_share``, ``second_share``,
        ``third_share``, ``datasets`` (with a value), ``anchor`` (bool).
    anchor : str
        The method rated 1000.
    metric, direction : str
    optimum : float
        The metric's best possible value (improvability's error is measured from it).
    n_bootstrap, seed : int
    regularization : float
    n_datasets : int
    notes : tuple of str
    """

    table: pd.DataFrame
    anchor: str
    metric: str
    direction: str
    optimum: float
    n_bootstrap: int
    seed: int
    regularization: float
    n_datasets: int
    notes: tuple = ()


def bradley_terry(wins, *, regularization: float = REGULARIZATION, tol: float = 1e-10,
                  max_iter: int = 200) -> np.ndarray:
    """Bradley-Terry strengths from a table of wins, by Newton's method.

    Parameters
    ----------
    wins : array-like, shape (k, k)
        ``wins[i, j]``: how often i beat j (ties counted 1/2 each way; need not be integers).
    regularization : float, keyword-only
        α > 0 of the penalty α·Σθ² (choix's ``alpha``).
    tol : float, keyword-only
        Stop when the gradient's largest component is below this.
    max_iter : int, keyword-only

    Returns
    -------
    numpy.ndarray, shape (k,)
        The strengths θ (natural-log odds scale; they sum to 0).

    Examples
    --------
    >>> bradley_terry([[0, 3], [1, 0]]).round(4)  # 3 wins to 1: θ_0 - θ_1 ≈ ln 3 = 1.0986 (α shrinks it a little)
    array([ 0.5486, -0.5486])
    """
    wins = np.asarray(wins, dtype=float)
    meetings = wins + wins.T
    theta = np.zeros(len(wins))
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))  # p[i, j]: chance that i beats j
        gradient = (meetings * p - wins).sum(axis=1) + 2 * regularization * theta
        if np.max(np.abs(gradient)) < tol:
            break
        curvature = meetings * p * (1 - p)
        hessian = np.diag(curvature.sum(axis=1)) - curvature + 2 * regularization * np.eye(len(wins))
        theta = theta - np.linalg.solve(hessian, gradient)
    return theta


def meeting_outcomes(oriented: np.ndarray) -> np.ndarray:
    """Each method's share of each meeting, dataset by dataset; summed over datasets, the wins ``W`` of the
    module's description.

    Parameters
    ----------
    oriented : ndarray of shape (n_datasets, n_methods)
        The values, higher is better (negate a lower-is-better metric); NaN: no value.

    Returns
    -------
    ndarray of shape (n_datasets, n_methods, n_methods)
        ``out[d, i, j]``: i's share of its meeting with j on dataset d: 1 for a win, 1/2 for a tie, 0 for a
        loss; 0 when they do not meet (i = j, or neither has a value). A value beats a missing one.

    Examples
    --------
    >>> meeting_outcomes(np.array([[0.9, 0.9, np.nan]]))[0].tolist()
    [[0.0, 0.5, 1.0], [0.5, 0.0, 1.0], [0.0, 0.0, 0.0]]
    """
    filled = np.where(np.isnan(oriented), -np.inf, oriented)
    a, b = filled[:, :, None], filled[:, None, :]
    out = (a > b) + 0.5 * (a == b)
    both_missing = np.isnan(oriented)[:, :, None] & np.isnan(oriented)[:, None, :]
    out[both_missing] = 0.0
    out[:, np.arange(oriented.shape[1]), np.arange(oriented.shape[1])] = 0.0
    return out


def _improvability(errors: np.ndarray) -> np.ndarray:
    """Per (dataset, method): ``1 - best error / error`` (0 when both are 0; 1 for a missing value)."""
    best = np.nanmin(errors, axis=1, keepdims=True)
    filled = np.where(np.isnan(errors), np.inf, errors)
    with np.errstate(invalid="ignore", divide="ignore"):
        improv = 1.0 - best / filled
    return np.where(np.isnan(improv), 0.0, improv)


def ratings(table: pd.DataFrame, *, metric: str, method: str = "method", dataset: str = "dataset",
            direction: str = "higher", optimum: float | None = None, anchor: str | None = None,
            n_bootstrap: int = 1000, seed: int = 0, regularization: float = REGULARIZATION,
            source: str = "<table>") -> Ratings:
    """Elo ratings (Bradley-Terry), win-rates, improvability and place shares, with bootstrap intervals.

    The formulas are in the module's docstring.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per (method, dataset) or per run.
    metric : str, keyword-only
        The column compared on each dataset.
    method, dataset : str, keyword-only
        Column names.
    direction : {"higher", "lower"}, keyword-only
        Which values are better.
    optimum : float, keyword-only
        The metric's best possible value, for improvability. Default: 1 when higher is better (R²),
        0 when lower is better (an error).
    anchor : str, keyword-only
        The method rated 1000. Default: the median-rated method (the one at place ceil(k/2) of the k
        methods ordered by strength, ties by name).
    n_bootstrap : int, keyword-only
        B resamples of the datasets for the intervals (0: no intervals, NaN bounds).
    seed : int, keyword-only
    regularization : float, keyword-only
        α of the Bradley-Terry penalty.
    source : str, keyword-only
        The table's file, for messages.

    Returns
    -------
    Ratings

    Raises
    ------
    SrdashError
        When a column is missing, a value is beyond the optimum, the anchor is unknown or fewer than
        two methods remain.
    ValueError
        When an option is out of range.
    """
    if direction not in ("higher", "lower"):
        raise ValueError(f"The 'direction' option must be one of 'higher', 'lower'. Got {direction!r}.")
    if int(n_bootstrap) != n_bootstrap or n_bootstrap < 0:
        raise ValueError(f"The 'n_bootstrap' option must be an integer >= 0. Got {n_bootstrap!r}.")
    if not (np.isfinite(regularization) and regularization > 0):
        raise ValueError(f"The 'regularization' option must be a number > 0. Got {regularization!r}.")
    wide = median_by_dataset(table, metric=metric, method=method, dataset=dataset, source=source)
    notes = []
    empty = wide.isna().all(axis=1)
    if empty.any():
        notes.append(f"{int(empty.sum())} dataset(s) without any value left out: {', '.join(wide.index[empty][:5])}"
                     + (" ..." if empty.sum() > 5 else "") + ".")
        wide = wide.loc[~empty]
    methods = list(wide.columns)
    if len(methods) < 2:
        raise SrdashError(f"{source}: ratings need at least two methods with a value. Got {len(methods)}.")
    if anchor is not None and anchor not in methods:
        raise SrdashError(f"The 'anchor' option must name a method of {source}. Got {anchor!r}; methods: "
                          f"{', '.join(methods)}.")
    if optimum is None:
        optimum = 1.0 if direction == "higher" else 0.0
    sign = 1.0 if direction == "higher" else -1.0
    values = wide.to_numpy(dtype=float)
    errors = sign * (optimum - values)
    beyond = np.argwhere(errors < 0)
    if len(beyond):
        d, m = beyond[0]
        raise SrdashError(f"{source}: the {metric!r} of {methods[m]!r} on {wide.index[d]!r} "
                          f"({float(values[d, m])!r}) is better than the optimum {optimum!r}: give the metric's "
                          "best possible value with the 'optimum' option.")
    oriented = sign * values
    outcomes = meeting_outcomes(oriented)
    improv = _improvability(errors)
    ranks = pd.DataFrame(oriented).rank(axis=1, ascending=False, method="min", na_option="bottom").to_numpy()

    def fit(weights):
        wins = np.tensordot(weights, outcomes, axes=1)
        meetings = wins + wins.T
        with np.errstate(invalid="ignore", divide="ignore"):
            win_rate = wins.sum(axis=1) / meetings.sum(axis=1)
        return bradley_terry(wins, regularization=regularization), win_rate, weights @ improv / weights.sum()

    n = len(wide)
    theta, win_rate, improvability = fit(np.ones(n))
    if anchor is None:
        order = sorted(range(len(methods)), key=lambda i: (-theta[i], methods[i]))
        anchor = methods[order[math.ceil(len(methods) / 2) - 1]]
    a = methods.index(anchor)
    elo = ANCHOR_ELO + ELO_PER_LOGIT * (theta - theta[a])
    bounds = {name: np.full((2, len(methods)), np.nan) for name in ("elo", "win_rate", "improvability")}
    if n_bootstrap:
        rng = np.random.default_rng(seed)
        draws = {name: np.empty((int(n_bootstrap), len(methods))) for name in bounds}
        for b in range(int(n_bootstrap)):
            weights = np.bincount(rng.integers(0, n, size=n), minlength=n).astype(float)
            t, w, i = fit(weights)
            draws["elo"][b], draws["win_rate"][b], draws["improvability"][b] = (
                ANCHOR_ELO + ELO_PER_LOGIT * (t - t[a]), w, i)
        bounds = {name: np.nanpercentile(d, _LEVELS, axis=0) for name, d in draws.items()}
    out = pd.DataFrame({"method": methods, "elo": elo, "elo_low": bounds["elo"][0], "elo_high": bounds["elo"][1],
                        "win_rate": win_rate, "win_rate_low": bounds["win_rate"][0],
                        "win_rate_high": bounds["win_rate"][1], "improvability": improvability,
                        "improvability_low": bounds["improvability"][0],
                        "improvability_high": bounds["improvability"][1],
                        "first_share": (ranks == 1).mean(axis=0), "second_share": (ranks == 2).mean(axis=0),
                        "third_share": (ranks == 3).mean(axis=0),
                        "datasets": (~np.isnan(values)).sum(axis=0), "anchor": [m == anchor for m in methods]})
    out = out.sort_values(["elo", "method"], ascending=[False, True], kind="mergesort").reset_index(drop=True)
    return Ratings(out, anchor, metric, direction, float(optimum), int(n_bootstrap), int(seed),
                   float(regularization), n, tuple(notes))
