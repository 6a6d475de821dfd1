"""A jury model: the judges' rankings as Plackett-Luce and Bradley-Terry strengths, with honest uncertainty.

The official real-world (or jury) verdict is the rules': a mean of the judges' ranks or
scores. This module is the second opinion an organiser can show beside it:

* **Plackett-Luce** (:func:`plackett_luce`): each judge's order of the methods on a dataset
  is one ranking (partial: only the methods that judge ranked there). A method's strength
  ``w`` is the weight with which it is picked first among those left; ties (shared ranks)
  follow Breslow's rule: every method of a tied group is picked from the same set (the
  group and everything ranked below it). Strengths are shown as centred log-strengths
  (their mean is 0; higher = more trusted).
* **Bradley-Terry** (:func:`bradley_terry`): the pairwise preferences the same rankings
  imply (i above j in one ranking: one win of i over j; a tie: half a win each).
* Both estimates are the fixed point of Hunter's (2004) minorisation-maximisation with choix's
  prior, ``w_i = (wins_i + prior) / (denominator_i + prior)`` (``prior`` pseudo-wins and
  pseudo-comparisons per method; the strengths then sum to the number of methods): the maximum
  of a concave log-posterior, found by Newton's method with a line search. With a prior, a
  method every judge puts first keeps a finite strength; ``prior = 0`` is the maximum-likelihood
  estimate, which exists only when every method is reachable from every other through "was
  ranked above" (refused otherwise, with the reason).
* **Intervals**: a bootstrap over the rankings (each judge's order on a dataset is drawn with
  replacement, ``n_bootstrap`` times, seeded): the 2.5 and 97.5 percentiles of each
  strength, and the share of redraws in which each method is the strongest.
* **Krippendorff's alpha** (:func:`krippendorff_alpha`, ordinal by default) of the judges'
  ranks per dataset and over all datasets (units: the (dataset, method) entries), with a
  bootstrap interval over units, beside Kendall's W.
* **Judges**: how much each judge agrees with the others (Spearman's rho between their ranks
  and the other judges' mean ranks, averaged over datasets), their severity on a rating scale
  (mean of their rating minus the other judges' mean rating of the same entry: below 0, a
  severe judge; undefined for ranks) and whether leaving them out changes the model's first
  method.

Examples
--------
Two judges rank three methods on one dataset; ``a`` is first twice, ``c`` last twice:

>>> import pandas as pd
>>> ranks = pd.DataFrame({"judge": ["ann"] * 3 + ["bob"] * 3, "dataset": "d",
...                       "method": ["a", "b", "c"] * 2, "rank": [1.0, 2.0, 3.0, 1.0, 3.0, 2.0]})
>>> model = jury_model(ranks, n_bootstrap=50)
>>> model.consensus[["method", "pl_rank", "bt_rank"]]
  method  pl_rank  bt_rank
0      a      1.0      1.0
1      b      2.5      2.5
2      c      2.5      2.5
>>> model.first
('a',)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from srdash.analysis import costs
from srdash.analysis._strength_fits import NO_MAXIMUM as _NO_MAXIMUM, NOT_CONVERGED as _NOT_CONVERGED
from srdash.analysis._strength_fits import (bradley_terry_tables, chunks, fit_stages, fit_tables, stages,
                                            one_blas_thread)
from srdash.errors import SrdashError
from srdash.judging.trust import kendalls_w, realworld_verdict, review_settings, trust_summary
from srdash.judging.representative import representative_choice, representative_runs
from srdash.judging.rules import load_rules

__all__ = ["plackett_luce", "bradley_terry", "krippendorff_alpha", "JuryModel", "jury_model",
           "trust_jury_model", "rubric_jury_model", "leave_one_judge_out", "realworld_jury_model",
           "jury_model_text", "LEVELS"]

#: Levels of measurement :func:`krippendorff_alpha` knows.
LEVELS = ("nominal", "ordinal", "interval")
#: Default prior (choix's ``alpha``): pseudo-wins and pseudo-comparisons per method.
DEFAULT_PRIOR = 0.1
_TOL = 1e-12
_MAX_ITER = 200
_DECIMALS = 9  # strengths equal to this many decimals share a rank


# --------------------------------------------------------------------------- fitting


def plackett_luce(rankings: Sequence[Sequence], n_items: int, *, prior: float = 0.0, tol: float = _TOL,
                  max_iter: int = _MAX_ITER) -> np.ndarray:
    """Plackett-Luce log-strengths from rankings (partial, with ties): the fixed point of Hunter's MM.

    A strict ranking ``i1 > i2 > ... > ik`` has probability
    ``prod_j w_ij / (w_ij + ... + w_ik)``. A tied group (a tuple in the ranking) is picked
    from the set left before it, each of its items as if it had been picked first there
    (Breslow's rule). Items a ranking leaves out are not compared (partial rankings).

    Parameters
    ----------
    rankings : sequence of sequences
        Each ranking lists item indices, best first; an element may be a tuple of tied items.
    n_items : int
    prior : float, keyword-only
        choix's ``alpha``: 0 gives the maximum-likelihood estimate (which exists only when each
        item is both above and below some other), above 0 a MAP estimate that stays finite.
    tol, max_iter : keyword-only
        Convergence: Newton's steps below ``tol`` (each strength).

    Returns
    -------
    ndarray of shape (n_items,)
        Centred log-strengths (mean 0, higher = stronger), as ``choix.mm_rankings`` returns them.

    Examples
    --------
    Two items, ``a > b`` twice and ``b > a`` once: the likelihood ``p^2 (1 - p)`` with
    ``p = w_a / (w_a + w_b)`` peaks at p = 2/3, so w_a = 2 w_b and the centred log-strengths
    are +-log(2)/2 = +-0.3466:

    >>> plackett_luce([[0, 1], [0, 1], [1, 0]], 2).round(4).tolist()
    [0.3466, -0.3466]

    A tie between the two counts as one pick of each from both (Breslow), ``p (1 - p)``;
    with one more ``a > b`` the likelihood is again ``p^2 (1 - p)``:

    >>> plackett_luce([[(0, 1)], [0, 1]], 2).round(4).tolist()
    [0.3466, -0.3466]
    """
    left, picked, _ = stages(rankings, n_items)
    if not len(left):
        return np.zeros(n_items)
    return fit_stages(left, picked, np.ones((1, len(left))), prior=prior, tol=tol, max_iter=max_iter)[0]


def bradley_terry(comparisons: Sequence[Sequence], n_items: int, *, weights: Sequence[float] | None = None,
                  prior: float = 0.0, tol: float = _TOL, max_iter: int = _MAX_ITER) -> np.ndarray:
    """Bradley-Terry log-strengths from pairwise comparisons: the fixed point of Hunter's MM.

    ``P(i beats j) = w_i / (w_i + w_j)``; each comparison is ``(winner, loser)``, counted
    ``weight`` times (a tie: the two orders, half a win each).

    Parameters
    ----------
    comparisons : sequence of (winner, loser)
    n_items : int
    weights : sequence of float, optional
        How much each comparison counts (default 1).
    prior, tol, max_iter : keyword-only
        As for :func:`plackett_luce` (``prior`` is choix's ``alpha``).

    Returns
    -------
    ndarray of shape (n_items,)
        Centred log-strengths, as ``choix.mm_pairwise`` returns them.

    Examples
    --------
    ``a`` beats ``b`` three times and loses once: ``w_a / w_b = 3``, so +-log(3)/2:

    >>> bradley_terry([(0, 1)] * 3 + [(1, 0)], 2).round(4).tolist()
    [0.5493, -0.5493]
    """
    pairs = np.asarray(comparisons, dtype=int).reshape(-1, 2)
    if not len(pairs):
        return np.zeros(n_items)
    counts = np.ones(len(pairs)) if weights is None else np.asarray(weights, dtype=float)
    wins = np.zeros((n_items, n_items))
    np.add.at(wins, (pairs[:, 0], pairs[:, 1]), counts)
    return fit_tables(wins[None], prior=prior, tol=tol, max_iter=max_iter)[0]


# --------------------------------------------------------------------------- agreement


def krippendorff_alpha(values, *, level: str = "ordinal") -> float:
    """Krippendorff's alpha of judges (rows) rating units (columns); NaN = no value.

    ``alpha = 1 - D_o / D_e`` from the coincidence matrix ``o_ck`` of the pairable values
    (units with at least two values): ``D_o = sum o_ck d_ck / n`` and
    ``D_e = sum n_c n_k d_ck / (n (n - 1))``, with the ordinal distance
    ``d_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``, the interval distance ``(c - k)^2``
    or the nominal ``c != k`` (Krippendorff 2011, "Computing Krippendorff's alpha-reliability").

    Parameters
    ----------
    values : array of shape (judges, units)
    level : {'nominal', 'ordinal', 'interval'}, keyword-only

    Returns
    -------
    float
        1 = perfect agreement, 0 = as by chance; NaN when undefined (fewer than two pairable
        values, or a single value everywhere).

    Examples
    --------
    Krippendorff's worked example (4 coders, 12 units; 2011, section C), ordinal: 0.815.

    >>> nan = float("nan")
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(krippendorff_alpha(data), 3), round(krippendorff_alpha(data, level="interval"), 3)
    (0.815, 0.849)
    """
    if level not in LEVELS:
        raise SrdashError(f"The 'level' option must be one of {', '.join(map(repr, LEVELS))}. Got {level!r}.")
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim != 2:
        raise SrdashError(f"values must be a 2-D array (judges x units). Got shape {matrix.shape}.")
    return _alpha(matrix, level)


def _alpha(matrix: np.ndarray, level: str) -> float:
    given = ~np.isnan(matrix)
    pairable = given.sum(axis=0) >= 2
    matrix, given = matrix[:, pairable], given[:, pairable]
    if not given.any():
        return float("nan")
    domain = np.unique(matrix[given])
    if len(domain) < 2:
        return float("nan")
    index = np.searchsorted(domain, np.where(given, matrix, domain[0]))
    counts = np.zeros((matrix.shape[1], len(domain)))              # units x values
    for row_index, row_given in zip(index, given):
        np.add.at(counts, (np.nonzero(row_given)[0], row_index[row_given]), 1.0)
    m = counts.sum(axis=1)
    coincidence = (counts / (m - 1)[:, None]).T @ counts - np.diag((counts / (m - 1)[:, None]).sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        distance = 1.0 - np.eye(len(domain))
    elif level == "interval":
        distance = (domain[:, None] - domain[None, :]) ** 2
    else:
        cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
        low = np.minimum.outer(np.arange(len(domain)), np.arange(len(domain)))
        high = np.maximum.outer(np.arange(len(domain)), np.arange(len(domain)))
        between = cumulative[high + 1] - cumulative[low]
        distance = (between - (n_c[low] + n_c[high]) / 2) ** 2
    expected = float((np.outer(n_c, n_c) * distance).sum())
    if expected <= 0:
        return float("nan")
    return float(1.0 - (n - 1) * float((coincidence * distance).sum()) / expected)


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True, eq=False)
class JuryModel:
    """The jury model of some judges' rankings: strengths with intervals, agreement, judges.

    Attributes
    ----------
    consensus : DataFrame
        One row per method, strongest first: ``pl_strength`` (Plackett-Luce centred
        log-strength), ``pl_low``/``pl_high`` (95% bootstrap interval), ``pl_first`` (share
        of redraws in which it is the strongest), ``pl_rank`` (1 = strongest; equal strengths
        share the mean position), ``bt_strength``, ``bt_low``, ``bt_high``, ``bt_rank``
        (Bradley-Terry, the same), ``rankings`` (in how many rankings it appears) and
        ``mean_rank`` (its mean rank over them, 1 = best: what the rules' mean sees).
    agreement : DataFrame
        Per dataset and over ``all`` datasets: ``judges``, ``units`` (entries with two
        values or more), ``kendalls_w`` (judges who ranked every method of the dataset; NaN
        over all), ``alpha`` (Krippendorff's, of the ranks), ``alpha_low``, ``alpha_high``
        (95% bootstrap interval over the units).
    judges : DataFrame
        One row per judge: ``rankings``, ``agreement`` (mean Spearman rho with the other
        judges' mean ranks; NaN alone), ``severity`` (mean rating minus the others' mean
        rating of the same entries; NaN for ranks), ``first_without`` (the Plackett-Luce
        first method without this judge) and ``changes`` (it differs from the model's).
    verdict_without : DataFrame or None
        When the model is of a real-world track (:func:`realworld_jury_model`): the official
        verdict's winner with each judge left out (``left_out``, ``winner``, ``score``,
        ``changes``; the first row leaves nobody out).
    n_bootstrap, seed, prior, level : the options used.
    notes : tuple of str
        What the reader should know (one judge, a dataset with one ranking...).
    """

    consensus: pd.DataFrame
    agreement: pd.DataFrame
    judges: pd.DataFrame
    verdict_without: pd.DataFrame | None = None
    n_bootstrap: int = 200
    seed: int = 0
    prior: float = DEFAULT_PRIOR
    level: str = "ordinal"
    notes: tuple[str, ...] = field(default=())

    @property
    def first(self) -> tuple[str, ...]:
        """The methods with the largest Plackett-Luce strength (several: a tie)."""
        table = self.consensus
        if table.empty:
            return ()
        return tuple(sorted(table.loc[table["pl_rank"] == table["pl_rank"].min(), "method"].astype(str)))


_RANK_COLUMNS = ("judge", "dataset", "method", "rank")


def _check_ranks(ranks: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in _RANK_COLUMNS if c not in ranks.columns]
    if missing:
        raise SrdashError(f"The judges' ranks need the columns {', '.join(_RANK_COLUMNS)}; missing: "
                          f"{', '.join(missing)}. Columns: {', '.join(map(str, ranks.columns))}.")
    table = ranks.copy()
    for column in ("judge", "dataset", "method"):
        table[column] = table[column].astype(str)
    table["rank"] = pd.to_numeric(table["rank"], errors="coerce").astype(float)
    table = table[table["rank"].notna()]
    if "value" not in table.columns:
        table["value"] = np.nan
    table["value"] = pd.to_numeric(table["value"], errors="coerce").astype(float)
    repeated = table.duplicated(["judge", "dataset", "method"])
    if repeated.any():
        row = table[repeated].iloc[0]
        raise SrdashError(f"Judge {row['judge']!r} ranks {row['method']!r} on {row['dataset']!r} more than once.")
    return table.sort_values(["judge", "dataset", "rank", "method"], ignore_index=True)


def _rankings(table: pd.DataFrame, index: dict[str, int]) -> tuple[list, list[tuple[str, str]]]:
    """One ranking (tie groups, best first) per (judge, dataset)."""
    rankings, keys = [], []
    for key, group in table.groupby(["judge", "dataset"], sort=True):
        groups = [tuple(index[m] for m in g["method"]) for _, g in group.groupby("rank", sort=True)]
        if sum(len(g) for g in groups) >= 2:
            rankings.append(groups)
            keys.append(key)
    return rankings, keys


def _said(stage, done: str) -> None:
    if stage is not None:
        stage(f"  done: {done}")


def _positions(strengths: np.ndarray) -> np.ndarray:
    """Rank 1 = strongest; strengths equal to 9 decimals share the mean position."""
    return pd.Series(np.round(strengths, _DECIMALS)).rank(ascending=False, method="average").to_numpy()


def _fit_many(rankings: list, n_items: int, draws: np.ndarray, *, prior: float) -> tuple[np.ndarray, np.ndarray]:
    """Plackett-Luce and Bradley-Terry strengths for each row of ``draws`` (how often each ranking counts)."""
    left, picked, owner = stages(rankings, n_items)
    pl = np.zeros((len(draws), n_items))
    for fits in chunks(len(draws), n_items):  # (fits, n, n) arrays of a bounded size
        pl[fits] = fit_stages(left, picked, draws[fits][:, owner], prior=prior, tol=1e-10, max_iter=_MAX_ITER)
    bt = bradley_terry_tables(rankings, n_items, draws, prior=prior, tol=1e-10, max_iter=_MAX_ITER)
    return pl, bt


def jury_model(ranks: pd.DataFrame, *, n_bootstrap: int = 200, seed: int = 0, prior: float = DEFAULT_PRIOR,
               level: str = "ordinal", stage=None) -> JuryModel:
    """Fit the jury model to the judges' ranks: consensus strengths with intervals, agreement, judges.

    Parameters
    ----------
    ranks : DataFrame
        ``judge``, ``dataset``, ``method``, ``rank`` (1 = best within the judge's ranking of
        the dataset; ties share a rank) and optionally ``value`` (the rating or score behind
        the rank, for the judges' severity).
    n_bootstrap : int, keyword-only
        Redraws of the rankings for the intervals (0: none; the intervals are then NaN).
    seed : int, keyword-only
    prior : float, keyword-only
        Pseudo-wins per method (choix's ``alpha``; see the module's notes).
    level : {'nominal', 'ordinal', 'interval'}, keyword-only
        Krippendorff's alpha's level of measurement of the ranks.
    stage : callable, optional, keyword-only
        Called with a sentence before the fits (what they are, about how long) and as each part ends.
        The bootstrap is cut past :data:`srdash.analysis.costs.MAX_MODEL_WORK` (a note says so).

    Returns
    -------
    JuryModel

    Examples
    --------
    >>> ranks = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob"], "dataset": "d",
    ...                       "method": ["a", "b", "a", "b"], "rank": [1, 2, 2, 1]})
    >>> model = jury_model(ranks, n_bootstrap=20)
    >>> model.consensus["pl_strength"].tolist(), model.first
    ([0.0, 0.0], ('a', 'b'))
    >>> round(float(model.agreement["alpha"].iloc[0]), 3)   # they disagree completely
    -0.5
    """
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 0:
        raise SrdashError(f"n_bootstrap must be a whole number of at least 0. Got {n_bootstrap!r}.")
    if not (isinstance(prior, (int, float)) and not isinstance(prior, bool) and np.isfinite(prior) and prior >= 0):
        raise SrdashError(f"The 'prior' option must be a number of at least 0. Got {prior!r}.")
    if level not in LEVELS:
        raise SrdashError(f"The 'level' option must be one of {', '.join(map(repr, LEVELS))}. Got {level!r}.")
    if prior == 0 and n_bootstrap:
        raise SrdashError("The bootstrap needs a prior above 0: a redraw of the rankings can leave a method "
                          "without a defeat, and then without a finite maximum-likelihood strength.")
    with one_blas_thread():  # small systems: BLAS threads only slow them down
        table = _check_ranks(ranks)
        methods = sorted(set(table["method"]))
        index = {m: i for i, m in enumerate(methods)}
        rankings, keys = _rankings(table, index)
        notes = []
        rng = np.random.default_rng(seed)
        n = len(methods)
        n_bootstrap = costs.bounded_redraws(rankings, n, len(set(table["judge"])), n_bootstrap, notes,
                                            stage=stage)
        if rankings:
            draws = np.ones((1, len(rankings)))
            if n_bootstrap:
                picks = rng.integers(0, len(rankings), size=(n_bootstrap, len(rankings)))
                draws = np.vstack([draws, np.apply_along_axis(np.bincount, 1, picks, minlength=len(rankings))])
            pl, bt = _fit_many(rankings, n, draws.astype(float), prior=prior)
            _said(stage, f"fitted the rankings and {n_bootstrap} redraws")
        else:
            pl = bt = np.zeros((1, n))
            notes.append("No judge ranked two methods or more: every method has the same strength.")
        consensus = pd.DataFrame({"method": methods, "pl_strength": pl[0], "bt_strength": bt[0]})
        for name, fitted in (("pl", pl), ("bt", bt)):
            redraws = fitted[1:]
            consensus[f"{name}_low"] = np.percentile(redraws, 2.5, axis=0) if len(redraws) else np.nan
            consensus[f"{name}_high"] = np.percentile(redraws, 97.5, axis=0) if len(redraws) else np.nan
            consensus[f"{name}_rank"] = _positions(fitted[0])
        if len(pl) > 1:
            best = np.round(pl[1:], _DECIMALS) == np.round(pl[1:], _DECIMALS).max(axis=1, keepdims=True)
            consensus["pl_first"] = (best / best.sum(axis=1, keepdims=True)).mean(axis=0)   # a tie shares the redraw
        else:
            consensus["pl_first"] = np.nan
        stats = table.groupby("method")["rank"].agg(["size", "mean"])
        consensus["rankings"] = consensus["method"].map(stats["size"]).fillna(0).astype(int)
        consensus["mean_rank"] = consensus["method"].map(stats["mean"]).astype(float)
        consensus = consensus[["method", "pl_strength", "pl_low", "pl_high", "pl_first", "pl_rank", "bt_strength",
                               "bt_low", "bt_high", "bt_rank", "rankings", "mean_rank"]]
        consensus = consensus.sort_values(["pl_rank", "method"], ignore_index=True)
        judges = sorted(set(table["judge"]))
        if len(judges) < 2:
            notes.append("One judge: agreement, Krippendorff's alpha and leaving a judge out need two judges or more.")
        agreement = _agreement(table, rng, n_bootstrap=n_bootstrap, level=level)
        _said(stage, "Krippendorff's alpha and its interval")
        judge_table = _judges(table, rankings, keys, methods, pl[0], prior=prior)
        _said(stage, "each judge left out")
        return JuryModel(consensus=consensus, agreement=agreement, judges=judge_table, n_bootstrap=int(n_bootstrap),
                         seed=int(seed), prior=float(prior), level=level, notes=tuple(notes))


def _agreement(table: pd.DataFrame, rng, *, n_bootstrap: int, level: str) -> pd.DataFrame:
    rows = []
    scopes = [(str(d), g) for d, g in table.groupby("dataset", sort=True)]
    if len(scopes) > 1:
        scopes.append(("all", table))
    for scope, group in scopes:
        matrix = group.pivot_table(index="judge", columns=["dataset", "method"], values="rank", aggfunc="first")
        values = matrix.to_numpy(dtype=float)
        units = int(((~np.isnan(values)).sum(axis=0) >= 2).sum())
        alpha = _alpha(values, level)
        low = high = float("nan")
        if n_bootstrap and units >= 2 and np.isfinite(alpha):
            redraws = [_alpha(values[:, rng.integers(0, values.shape[1], values.shape[1])], level)
                       for _ in range(n_bootstrap)]
            redraws = np.array([r for r in redraws if np.isfinite(r)])
            if len(redraws):
                low, high = float(np.percentile(redraws, 2.5)), float(np.percentile(redraws, 97.5))
        w = float("nan")
        if scope != "all":
            complete = group.pivot(index="judge", columns="method", values="rank").dropna()
            w = kendalls_w(complete.to_numpy())
        rows.append((scope, int(group["judge"].nunique()), units, w, alpha, low, high))
    return pd.DataFrame(rows, columns=["dataset", "judges", "units", "kendalls_w", "alpha", "alpha_low",
                                       "alpha_high"])


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    a = pd.Series(a).rank().to_numpy()
    b = pd.Series(b).rank().to_numpy()
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def _without_each_judge(rankings: list, keys: list, judges: list, n_items: int, *, prior: float) -> dict:
    """Plackett-Luce strengths without each judge's rankings (None: no finite strengths), judges with some
    ranking left: one set of stages, each judge's rankings weighted 0 in their fit."""
    owners = [key[0] for key in keys]
    kept = [judge for judge in judges if len(judges) >= 2 and any(owner != judge for owner in owners)]
    if not kept:
        return {}
    left, picked, owner = stages(rankings, n_items)
    weights = np.array([[owners[r] != judge for r in owner] for judge in kept], dtype=float)
    try:
        fitted = np.zeros((len(kept), n_items))
        for fits in chunks(len(kept), n_items):
            fitted[fits] = fit_stages(left, picked, weights[fits], prior=prior, tol=1e-10, max_iter=_MAX_ITER)
        return dict(zip(kept, fitted))
    except SrdashError:  # one of them has no finite strengths: each alone says which
        found = {}
        for judge, row in zip(kept, weights):
            try:
                found[judge] = fit_stages(left, picked, row[None], prior=prior, tol=1e-10, max_iter=_MAX_ITER)[0]
            except SrdashError:
                found[judge] = None
        return found


def _judges(table: pd.DataFrame, rankings: list, keys: list, methods: list, strengths: np.ndarray, *,
            prior: float) -> pd.DataFrame:
    judges = sorted(set(table["judge"]))
    first = tuple(methods[i] for i in np.nonzero(_positions(strengths) == _positions(strengths).min())[0]) \
        if len(methods) else ()
    without = _without_each_judge(rankings, keys, judges, len(methods), prior=prior)
    rows = []
    for judge in judges:
        mine = table[table["judge"] == judge]
        others = table[table["judge"] != judge]
        rhos = []
        for dataset, group in mine.groupby("dataset"):
            consensus = others[others["dataset"] == dataset].groupby("method")["rank"].mean()
            shared = group[group["method"].isin(consensus.index)]
            if len(shared) >= 2:
                rhos.append(_spearman(shared["rank"].to_numpy(), consensus[shared["method"]].to_numpy()))
        rhos = [r for r in rhos if np.isfinite(r)]
        offsets = []
        rated = mine[mine["value"].notna()]
        if len(rated):
            reference = others[others["value"].notna()].groupby(["dataset", "method"])["value"].mean()
            for row in rated.itertuples():
                if (row.dataset, row.method) in reference.index:
                    offsets.append(row.value - reference[(row.dataset, row.method)])
        first_without = ()
        if without.get(judge) is not None:
            positions = _positions(without[judge])
            first_without = tuple(methods[i] for i in np.nonzero(positions == positions.min())[0])
        elif judge in without:
            first_without = ("(no finite strengths without this judge: give a prior above 0)",)
        rows.append((judge, int(sum(1 for key in keys if key[0] == judge)), float(np.mean(rhos)) if rhos else np.nan,
                     float(np.mean(offsets)) if offsets else np.nan, " = ".join(first_without),
                     bool(first_without) and first_without != first))
    return pd.DataFrame(rows, columns=["judge", "rankings", "agreement", "severity", "first_without", "changes"])


# --------------------------------------------------------------------------- adapters


def trust_jury_model(entries: pd.DataFrame, models=None, *, settings=None, **options) -> JuryModel:
    """The jury model of trust entries (ranks or ratings), as :func:`srdash.judging.trust.trust_summary`
    reads them: only complete and valid entries count; a rating is also the judge's ``value``.

    Examples
    --------
    >>> entries = pd.DataFrame({"judge": ["ann"] * 2 + ["bob"] * 2, "dataset": "d", "method": ["a", "b"] * 2,
    ...                         "kind": "rating", "value": [5.0, 3.0, 4.0, 1.0]})
    >>> model = trust_jury_model(entries, n_bootstrap=0)
    >>> model.first, model.judges[["judge", "severity"]].values.tolist()   # ann rates 1.5 above bob
    (('a',), [['ann', 1.5], ['bob', -1.5]])
    """
    summary = trust_summary(entries, models, settings=settings)
    ranks = summary.judge_ranks
    table = pd.DataFrame({"judge": ranks["judge"], "dataset": ranks["dataset"], "method": ranks["method"],
                          "rank": ranks["trust_rank"],
                          "value": ranks["value"].where(ranks["kind"] == "rating")})
    return jury_model(table, **options)


def rubric_jury_model(summary, **options) -> JuryModel:
    """The jury model of a rubric jury (:class:`srdash.judging.jury.JurySummary`): each juror's weighted
    scores of a dataset's entries become their ranking (higher score = rank 1), the score their ``value``.

    Examples
    --------
    >>> from srdash.judging.jury import Rubric, RubricCriterion, jury_summary
    >>> scores = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob"], "dataset": "d", "method": ["a", "b"] * 2,
    ...                        "criterion": "insight", "score": [5.0, 2.0, 4.0, 4.0]})
    >>> model = rubric_jury_model(jury_summary(scores, Rubric((RubricCriterion("insight"),))), n_bootstrap=0)
    >>> model.first, model.judges["severity"].tolist()
    (('a',), [-0.5, 0.5])
    """
    scores = summary.juror_scores
    rank = scores.groupby(["judge", "dataset"])["score"].rank(ascending=False, method="average")
    table = pd.DataFrame({"judge": scores["judge"], "dataset": scores["dataset"], "method": scores["method"],
                          "rank": rank, "value": scores["score"]})
    return jury_model(table, **options)


def leave_one_judge_out(runs: pd.DataFrame, entries: pd.DataFrame, rules, *, settings=None,
                        methods: Sequence[str] | None = None) -> pd.DataFrame:
    """The real-world verdict's winner with each judge's entries left out.

    Each verdict is :func:`srdash.judging.trust.realworld_verdict` (the official one) of the
    entries of the other judges.

    Returns
    -------
    DataFrame
        ``left_out`` (``"nobody"`` first, then each judge whose removal leaves entries: with one
        judge, only the first row), ``winner`` (``a = b``: a tie), ``score`` and ``changes`` (the
        winner differs from the official one).

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.8, 0.8],
    ...                      "simplicity": -1.0})
    >>> entries = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob", "cy", "cy"], "dataset": "d",
    ...                         "method": ["a", "b"] * 3, "kind": "rank", "value": [1.0, 2.0, 1.0, 2.0, 2.0, 1.0]})
    >>> leave_one_judge_out(runs, entries, "srbench2022-realworld")[["left_out", "winner", "changes"]]
      left_out winner  changes
    0   nobody      a    False
    1      ann  a = b     True
    2      bob  a = b     True
    3       cy      a    False
    """
    def winner(chosen: pd.DataFrame) -> tuple[str, float]:
        verdict = realworld_verdict(runs, chosen, rules, settings=settings, methods=methods)
        board = verdict.leaderboard
        top = board[board["place"] == board["place"].min()]
        return " = ".join(sorted(top["method"].astype(str))), float(top["score"].iloc[0])

    official, score = winner(entries)
    rows = [("nobody", official, score, False)]
    for judge in sorted(set(entries["judge"].astype(str))):
        kept = entries[entries["judge"].astype(str) != judge]
        if not kept["value"].notna().any():
            continue                      # the only judge: nobody's entries would be left
        name, value = winner(kept)
        rows.append((judge, name, value, name != official))
    return pd.DataFrame(rows, columns=["left_out", "winner", "score", "changes"])


def realworld_jury_model(runs: pd.DataFrame, entries: pd.DataFrame, rules, *, settings=None,
                         methods: Sequence[str] | None = None, **options) -> JuryModel:
    """The jury model of a real-world track's trust entries, with the verdict's leave-one-judge-out.

    The arguments are :func:`srdash.judging.trust.realworld_verdict`'s: the models under review
    are the representative runs the verdict judges, and every verdict is the official one.

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.8, 0.8],
    ...                      "simplicity": -1.0})
    >>> entries = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob"], "dataset": "d",
    ...                         "method": ["a", "b"] * 2, "kind": "rank", "value": [1.0, 2.0, 1.0, 2.0]})
    >>> model = realworld_jury_model(runs, entries, "srbench2022-realworld", n_bootstrap=0)
    >>> model.first, model.verdict_without["changes"].tolist()
    (('a',), [False, False, False])
    """
    from dataclasses import replace

    rules = load_rules(rules)
    settings = settings or review_settings(rules)
    accuracy = next((c for c in rules.criteria if c.column == "r2_test"), None)
    representatives = representative_runs(runs, choice=representative_choice(rules),
                                          decimals=accuracy.decimals if accuracy else 3)
    model = trust_jury_model(entries, representatives, settings=settings, **options)
    without = leave_one_judge_out(runs, entries, rules, settings=settings, methods=methods)
    return replace(model, verdict_without=without)


def jury_model_text(model: JuryModel) -> str:
    """The jury model as plain text (``srdash trust jury --model`` prints it).

    Examples
    --------
    With a prior of 0.1, w_a = (2 + 0.1) / (1 + 0.1) and w_b = 0.1 / 1.1 (strengths summing to 2):
    log(21) / 2 = 1.522.

    >>> ranks = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob"], "dataset": "d",
    ...                       "method": ["a", "b"] * 2, "rank": [1, 2, 1, 2]})
    >>> print(jury_model_text(jury_model(ranks, n_bootstrap=0)))  # doctest: +NORMALIZE_WHITESPACE
    Jury model (a second opinion; the official verdict is the rules'): Plackett-Luce and Bradley-Terry
    strengths (centred log-strengths, higher = more trusted; prior 0.1, no bootstrap).
      a: Plackett-Luce +1.522 (rank 1), Bradley-Terry +1.522 (rank 1); mean rank 1.00 over 2 rankings
      b: Plackett-Luce -1.522 (rank 2), Bradley-Terry -1.522 (rank 2); mean rank 2.00 over 2 rankings
    Agreement on d: Kendall's W 1.000; Krippendorff's alpha (ordinal) 1.000 over 2 judges
    Judge ann: agreement with the others (Spearman) 1.00; without ann the model's first is a
    Judge bob: agreement with the others (Spearman) 1.00; without bob the model's first is a
    """
    def interval(low, high) -> str:
        return f" [{low:+.3f}, {high:+.3f}]" if np.isfinite(low) and np.isfinite(high) else ""

    boot = f"95% intervals from {model.n_bootstrap} redraws of the rankings" if model.n_bootstrap else "no bootstrap"
    lines = ["Jury model (a second opinion; the official verdict is the rules'): Plackett-Luce and Bradley-Terry",
             f"strengths (centred log-strengths, higher = more trusted; prior {model.prior:g}, {boot})."]
    for row in model.consensus.itertuples():
        first = f", first in {row.pl_first:.0%} of redraws" if np.isfinite(row.pl_first) else ""
        lines.append(f"  {row.method}: Plackett-Luce {row.pl_strength:+.3f}{interval(row.pl_low, row.pl_high)} "
                     f"(rank {row.pl_rank:g}{first}), Bradley-Terry {row.bt_strength:+.3f}"
                     f"{interval(row.bt_low, row.bt_high)} (rank {row.bt_rank:g}); mean rank {row.mean_rank:.2f} over "
                     f"{row.rankings} rankings")
    for row in model.agreement.itertuples():
        w = "undefined" if not np.isfinite(row.kendalls_w) else f"{row.kendalls_w:.3f}"
        alpha = "undefined" if not np.isfinite(row.alpha) else f"{row.alpha:.3f}"
        ci = f" [{row.alpha_low:.3f}, {row.alpha_high:.3f}]" if np.isfinite(row.alpha_low) else ""
        where = "all datasets" if row.dataset == "all" else row.dataset
        lines.append(f"Agreement on {where}: " + (f"Kendall's W {w}; " if row.dataset != "all" else "")
                     + f"Krippendorff's alpha ({model.level}) {alpha}{ci} over {row.judges} judge"
                     + ("s" if row.judges != 1 else ""))
    for row in model.judges.itertuples():
        parts = []
        if np.isfinite(row.agreement):
            parts.append(f"agreement with the others (Spearman) {row.agreement:.2f}")
        if np.isfinite(row.severity):
            parts.append(f"severity {row.severity:+.2f} ({'severe' if row.severity < 0 else 'lenient'} "
                         "against the others' mean)" if row.severity else "severity 0")
        if row.first_without:
            parts.append(f"without {row.judge} the model's first is {row.first_without}"
                         + (" (changes)" if row.changes else ""))
        if parts:
            lines.append(f"Judge {row.judge}: " + "; ".join(parts))
    if model.verdict_without is not None:
        official = model.verdict_without.iloc[0]
        lines.append(f"Official real-world winner: {official['winner']}")
        for row in model.verdict_without.iloc[1:].itertuples():
            lines.append(f"  without {row.left_out}: {'changes to ' + row.winner if row.changes else 'stays'}")
    lines += [f"Note: {note}" for note in model.notes]
    return "\n".join(lines)
