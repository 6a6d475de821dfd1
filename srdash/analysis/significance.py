"""Is the winner significantly better? Friedman and Nemenyi tests over datasets.

The datasets of a competition are the sample; the per-dataset scores of a
verdict are the observations. Following Demšar (2006):

1. **Friedman test**. On each of the N datasets the k methods are ranked by
   their dataset score (ties share the average rank; here rank k = best, as
   everywhere in srdash). With ``R_j`` the rank sum of method j,

   .. math:: \\chi^2_F = \\frac{12}{N k (k+1)} \\sum_j R_j^2 - 3 N (k+1),

   divided by the tie correction ``1 - sum(t^3 - t) / (N k (k^2 - 1))`` (t =
   size of each group of tied scores), exactly as
   :func:`scipy.stats.friedmanchisquare`. Under the null hypothesis that all
   methods perform alike it is chi-square distributed with k - 1 degrees of
   freedom. The Iman-Davenport correction ``F_F = (N-1) chi2 / (N(k-1) - chi2)``
   (F distributed with k-1 and (k-1)(N-1) degrees of freedom) is reported too.
2. **Nemenyi post-hoc test**. Two methods differ significantly when their
   mean ranks differ by more than the critical difference

   .. math:: CD = q_\\alpha \\sqrt{\\frac{k (k+1)}{6 N}},

   ``q_alpha`` being the studentized range statistic (infinite degrees of
   freedom) divided by sqrt(2). For k <= 10 and alpha in {0.05, 0.10} the
   value is taken from Demšar (2006), Table 5(a); otherwise it is computed
   from the studentized range distribution with infinite degrees of freedom
   (:func:`studentized_range_sf`, which reproduces that table to 0.001 and
   :data:`scipy.stats.studentized_range` to 1e-9; srdash computes it itself
   because importing scipy.stats costs the dashboard half a second).

DNF rule: a (method, dataset) without any result ranks last on that dataset,
tied with the other DNFs of the dataset (``dnf='worst'``, the rule srdash
applies everywhere), or datasets with any DNF are left out (``dnf='drop'``).

Reference: J. Demšar, "Statistical Comparisons of Classifiers over Multiple
Data Sets", Journal of Machine Learning Research 7 (2006) 1-30.

Examples
--------
>>> import pandas as pd
>>> scores = pd.DataFrame({"a": [3.0, 3.0, 3.0, 2.0], "b": [2.0, 1.0, 2.0, 3.0],
...                        "c": [1.0, 2.0, 1.0, 1.0]}, index=["d1", "d2", "d3", "d4"])
>>> result = significance(scores)
>>> round(result.statistic, 3), round(result.p_value, 4), round(result.critical_difference, 3)
(4.5, 0.1054, 1.657)
>>> print(result.statement)
The winner, a, is not significantly better than the runner-up, b: the Friedman test does not reject that all 3 methods perform alike on these 4 datasets (chi2 = 4.500, p = 0.105 >= alpha = 0.05), so the Nemenyi post-hoc test declares no pair different.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.errors import SrdashError
from srdash.judging.ranking import Verdict

__all__ = ["Significance", "significance", "q_alpha", "critical_difference", "DNF_RULES", "DEMSAR_Q",
           "groups_from_p_values", "cliffs_delta", "cohens_d", "magnitude", "SkillingsMack", "skillings_mack",
           "EFFECT_THRESHOLDS"]

#: Magnitude labels of the effect sizes: {measure: (negligible below, small below, medium below)};
#: Cohen (1988) for d, Romano et al. (2006) for Cliff's delta (the thresholds autorank uses).
EFFECT_THRESHOLDS = {"cohens_d": (0.2, 0.5, 0.8), "cliffs_delta": (0.147, 0.33, 0.474)}

#: How DNF cells enter the tests (see the module docstring).
DNF_RULES = ("worst", "drop")

#: Critical values q_alpha of the two-tailed Nemenyi test, Demšar (2006), Table 5(a):
#: {alpha: (q for k = 2, 3, ..., 10)}.
DEMSAR_Q = {
    0.05: (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164),
    0.10: (1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920),
}
_DEMSAR = "Demšar (2006), Table 5(a)"


@dataclass(frozen=True)
class Significance:
    """Friedman test and Nemenyi post-hoc comparison of a competition's methods.

    Attributes
    ----------
    statistic, p_value : float
        Friedman's chi-square (tie-corrected) and its p-value.
    df : int
        k - 1.
    iman_davenport, iman_davenport_p_value : float
        The Iman-Davenport F statistic and its p-value.
    n_datasets, n_methods : int
        N and k.
    alpha : float
    rejected : bool
        Whether the Friedman test rejects "all methods alike" at ``alpha``.
    q_alpha : float
    q_alpha_source : str
        ``"Demšar (2006), Table 5(a)"`` or ``"studentized range / sqrt(2)"``.
    critical_difference : float
        ``q_alpha * sqrt(k (k+1) / (6 N))``, in mean-rank units.
    mean_ranks : DataFrame
        ``method``, ``mean_rank`` (k = best, 1 = worst), best first.
    pairwise : DataFrame
        One row per pair: ``method_a``, ``method_b`` (a has the better mean
        rank), ``difference`` (of mean ranks, >= 0), ``significant``
        (difference > CD) and the Nemenyi ``p_value``.
    groups : tuple of tuple of str
        Maximal sets of methods, consecutive in mean rank, whose mean ranks
        differ by at most CD (the bars of a critical difference diagram).
    winner, runner_up : str
        First and second of the leaderboard (or of the mean score).
    statement : str
        One sentence saying whether the winner is significantly better than
        the runner-up.
    dnf : str
        The DNF rule applied (see :data:`DNF_RULES`).
    notes : tuple of str
    winner_significant : bool
        Whether the winner is significantly better than the runner-up (what ``statement`` says).
    """

    statistic: float
    p_value: float
    df: int
    iman_davenport: float
    iman_davenport_p_value: float
    n_datasets: int
    n_methods: int
    alpha: float
    rejected: bool
    q_alpha: float
    q_alpha_source: str
    critical_difference: float
    mean_ranks: pd.DataFrame
    pairwise: pd.DataFrame
    groups: tuple[tuple[str, ...], ...]
    winner: str
    runner_up: str
    statement: str
    dnf: str
    notes: tuple[str, ...] = ()
    winner_significant: bool = False

    @property
    def beside_bootstrap(self) -> str:
        """How this test and the bootstrap's P(win) both hold: they answer different questions."""
        pairs = self.n_methods * (self.n_methods - 1) // 2
        how = ("P(win) (Rank uncertainty) counts how often the winner stays first on the mean score when the "
               "datasets and runs are redrawn; it is a frequency, not a test. This test asks whether a gap in mean "
               f"rank exceeds what chance allows for any of the {pairs} pairs of {self.n_methods} methods on "
               f"{self.n_datasets} datasets (critical difference {self.critical_difference:.3f})")
        if self.winner_significant:
            return how + ": here both find the winner ahead."
        return (how + ": a P(win) near 1 beside 'not significantly better' means the winner is consistently ahead "
                "on these datasets, by a gap too small for a test that guards every pair at once.")

    @property
    def test_label(self) -> str:
        """A one-line description of the tests, for figure captions."""
        return (f"Friedman chi2 = {self.statistic:.3f}, {p_text(self.p_value)}; Nemenyi post-hoc, "
                f"alpha = {self.alpha:g}, CD = {self.critical_difference:.3f} "
                f"(k = {self.n_methods}, N = {self.n_datasets})")


def q_alpha(k: int, *, alpha: float = 0.05) -> tuple[float, str]:
    """Critical value of the two-tailed Nemenyi test for k methods.

    ``q_alpha`` is the (1 - alpha) quantile of the studentized range with k
    groups and infinite degrees of freedom, divided by sqrt(2). Defined for
    k >= 2 and 0 < alpha < 1.

    Returns
    -------
    value : float
    source : str
        ``"Demšar (2006), Table 5(a)"`` for k <= 10 and alpha 0.05 or 0.10 (the
        tabulated value), otherwise ``"studentized range / sqrt(2)"``.

    Examples
    --------
    >>> q_alpha(4)
    (2.569, 'Demšar (2006), Table 5(a)')
    >>> value, source = q_alpha(21)
    >>> round(value, 3), source
    (3.569, 'studentized range / sqrt(2)')
    >>> q_alpha(1)
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The Nemenyi test needs at least 2 methods. Got k = 1.
    """
    check_alpha(alpha)
    if int(k) != k or k < 2:
        raise SrdashError(f"The Nemenyi test needs at least 2 methods. Got k = {k!r}.")
    k = int(k)
    for tabulated, values in DEMSAR_Q.items():
        if np.isclose(alpha, tabulated) and k <= 1 + len(values):
            return values[k - 2], _DEMSAR
    return float(studentized_range_isf(alpha, k) / np.sqrt(2.0)), "studentized range / sqrt(2)"


def critical_difference(k: int, n: int, *, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of mean ranks, ``q_alpha * sqrt(k (k+1) / (6 n))``.

    Parameters
    ----------
    k : int
        Number of methods (>= 2).
    n : int
        Number of datasets (>= 1).
    alpha : float
        Significance level; see :func:`q_alpha`.

    Examples
    --------
    Demšar (2006), section 3.2.4: 4 classifiers, 14 data sets, alpha = 0.05,
    CD = 2.569 * sqrt(4 * 5 / (6 * 14)) = 1.25:

    >>> round(critical_difference(4, 14), 2)
    1.25
    """
    if int(n) != n or n < 1:
        raise SrdashError(f"The critical difference needs at least 1 dataset. Got N = {n!r}.")
    value, _ = q_alpha(k, alpha=alpha)
    return float(value * np.sqrt(k * (k + 1) / (6.0 * n)))


def significance(scores: Verdict | pd.DataFrame, *, alpha: float = 0.05, dnf: str = "worst") -> Significance:
    """Friedman test and Nemenyi post-hoc test over the per-dataset scores.

    Parameters
    ----------
    scores : Verdict or DataFrame
        A verdict (its ``per_dataset`` dataset scores are used, DNF cells
        marked by their status), or a table with one row per dataset and one
        column per method holding scores where higher is better (NaN = DNF).
    alpha : float
        Significance level, 0 < alpha < 1.
    dnf : {'worst', 'drop'}
        ``worst``: a DNF cell ranks last on its dataset, tied with the other
        DNFs there; ``drop``: leave out every dataset with a DNF.

    Returns
    -------
    Significance

    Raises
    ------
    SrdashError
        Fewer than 2 methods or 2 datasets (after ``dnf='drop'``), or an
        invalid option.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"x": [5.0, 4.0, 5.0, 5.0, 4.0], "y": [1.0, 2.0, 1.0, 1.0, 1.0],
    ...                       "z": [2.0, 1.0, 2.0, 2.0, 2.0]})
    >>> result = significance(table)
    >>> result.mean_ranks.to_dict("list")
    {'method': ['x', 'z', 'y'], 'mean_rank': [3.0, 1.8, 1.2]}
    >>> print(result.statement)
    The winner, x, is not significantly better than the runner-up, z (Nemenyi test over 5 datasets, alpha = 0.05: the methods ranked by dataset score on each dataset, 3 = best, have mean ranks 3.000 and 1.800, difference 1.200 <= critical difference 1.482).
    >>> print(result.beside_bootstrap)
    P(win) (Rank uncertainty) counts how often the winner stays first on the mean score when the datasets and runs are redrawn; it is a frequency, not a test. This test asks whether a gap in mean rank exceeds what chance allows for any of the 3 pairs of 3 methods on 5 datasets (critical difference 1.482): a P(win) near 1 beside 'not significantly better' means the winner is consistently ahead on these datasets, by a gap too small for a test that guards every pair at once.
    """
    check_alpha(alpha)
    if dnf not in DNF_RULES:
        raise SrdashError(f"The 'dnf' option must be one of {', '.join(repr(r) for r in DNF_RULES)}. Got {dnf!r}.")
    matrix, order = _score_matrix(scores)
    notes: list[str] = []
    if dnf == "drop":
        complete = matrix.notna().all(axis=1)
        if not complete.all():
            notes.append(f"{int((~complete).sum())} dataset(s) with a DNF left out (dnf='drop').")
        matrix = matrix[complete]
    n_datasets, n_methods = matrix.shape
    if n_methods < 2 or n_datasets < 2:
        raise SrdashError(f"The significance tests need at least 2 methods and 2 datasets; got {n_methods} "
                          f"method(s) and {n_datasets} dataset(s)"
                          + (" after leaving out the datasets with a DNF (dnf='drop')." if dnf == "drop" else "."))
    methods = list(matrix.columns)
    values = matrix.to_numpy(dtype=float)
    values = np.where(np.isnan(values), -np.inf, values)  # DNF: last, tied among DNFs
    ranks = pd.DataFrame(values).rank(axis=1, method="average").to_numpy()  # average ranks, k = best

    statistic, ties_only = friedman_statistic(ranks)
    if ties_only:
        notes.append("Every dataset ties all methods: the Friedman statistic is 0.")
    df = n_methods - 1
    from scipy import special  # lazy: scipy (0.15-0.25 s with numpy.f2py; a served page reads kept values)

    p_value = float(special.chdtrc(df, statistic))  # chi-square survival function
    iman, iman_p = iman_davenport_test(statistic, n_datasets, n_methods)
    q, source = q_alpha(n_methods, alpha=alpha)
    cd = float(q * np.sqrt(n_methods * (n_methods + 1) / (6.0 * n_datasets)))

    mean_rank = pd.Series(ranks.mean(axis=0), index=methods)
    ranked = mean_rank.sort_values(ascending=False, kind="stable")
    mean_ranks = pd.DataFrame({"method": ranked.index, "mean_rank": ranked.to_numpy()})
    pairwise = nemenyi_pairs(ranked, n_methods, n_datasets, cd)
    groups = _groups(ranked, cd)
    winner, runner_up = order[0], order[1]
    statement = _statement(winner, runner_up, mean_rank, cd, alpha, p_value, statistic, n_methods, n_datasets)
    return Significance(
        statistic=float(statistic), p_value=p_value, df=df,
        iman_davenport=iman, iman_davenport_p_value=iman_p,
        n_datasets=n_datasets, n_methods=n_methods, alpha=float(alpha), rejected=bool(p_value < alpha),
        q_alpha=float(q), q_alpha_source=source, critical_difference=cd,
        mean_ranks=mean_ranks, pairwise=pairwise, groups=groups,
        winner=winner, runner_up=runner_up, statement=statement, dnf=dnf, notes=tuple(notes),
        winner_significant=bool(p_value < alpha
                                and float(mean_rank[winner]) - float(mean_rank[runner_up]) > cd),
    )


def check_alpha(alpha) -> None:
    """Refuse a significance level that is not a number strictly between 0 and 1."""
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or not 0 < alpha < 1:
        raise SrdashError(f"The 'alpha' option must be a number strictly between 0 and 1. Got {alpha!r}.")


def _score_matrix(scores) -> tuple[pd.DataFrame, list[str]]:
    """(datasets x methods matrix with NaN for DNF, methods in leaderboard order)."""
    if isinstance(scores, Verdict):
        per = scores.per_dataset
        value = per["dataset_score"].where(per["status"] != "DNF")
        matrix = (per.assign(value=value).pivot(index="dataset", columns="method", values="value")
                  .sort_index(axis=0).sort_index(axis=1))
        return matrix, list(scores.leaderboard["method"])
    if not isinstance(scores, pd.DataFrame):
        raise SrdashError("significance() takes a Verdict or a DataFrame with one row per dataset and one "
                          f"column per method. Got {type(scores).__name__}.")
    matrix = scores.apply(pd.to_numeric, errors="coerce").astype(float)
    mean = matrix.fillna(-np.inf).mean(axis=0) if len(matrix) else matrix.mean(axis=0)
    order = list(mean.sort_values(ascending=False, kind="stable").index)
    return matrix, order


def friedman_statistic(ranks: np.ndarray) -> tuple[float, bool]:
    """Tie-corrected Friedman chi-square of an (N, k) rank matrix, as scipy.stats.friedmanchisquare."""
    n, k = ranks.shape
    ties = 0.0
    for row in ranks:
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts ** 3 - counts).sum())
    correction = 1.0 - ties / (n * k * (k * k - 1))
    if correction <= 0:
        return 0.0, True
    rank_sums = ranks.sum(axis=0)
    statistic = (12.0 / (n * k * (k + 1)) * float((rank_sums ** 2).sum()) - 3.0 * n * (k + 1)) / correction
    return max(statistic, 0.0), False


def iman_davenport_test(chi2: float, n: int, k: int) -> tuple[float, float]:
    """Iman and Davenport's F statistic from Friedman's chi-square over n datasets and k methods, and its p-value."""
    denominator = n * (k - 1) - chi2
    if denominator <= 0:
        return float("inf"), 0.0
    f = (n - 1) * chi2 / denominator
    from scipy import special  # lazy: scipy

    return float(f), float(special.fdtrc(k - 1, (k - 1) * (n - 1), f))  # F survival function


def nemenyi_pairs(ranked: pd.Series, k: int, n: int, cd: float) -> pd.DataFrame:
    """Every pair of methods by mean rank: the difference, whether it exceeds the critical difference ``cd``,
    and the Nemenyi p-value (the studentized range of k means over n datasets)."""
    scale = np.sqrt(k * (k + 1) / (6.0 * n))
    names = list(ranked.index)
    pairs = [(a, b, float(ranked[a] - ranked[b])) for i, a in enumerate(names) for b in names[i + 1:]]
    # one integration for every pair at once (the same sums as studentized_range_sf, pair by pair)
    p_values = studentized_range_sf_many(np.array([d for _, _, d in pairs]) / scale * np.sqrt(2.0), k)
    rows = [{"method_a": a, "method_b": b, "difference": difference, "significant": difference > cd,
             "p_value": float(min(max(p, 0.0), 1.0))} for (a, b, difference), p in zip(pairs, p_values)]
    return pd.DataFrame(rows, columns=["method_a", "method_b", "difference", "significant", "p_value"])


_GRID = np.linspace(-12.0, 12.0, 4801)  # z: the normal density is below 1e-31 outside
_DENSITY = np.exp(-0.5 * _GRID ** 2) / np.sqrt(2.0 * np.pi)


def studentized_range_sf(q: float, k: int) -> float:
    """P(R > q) for the range R of ``k`` independent standard normal values (infinite degrees of freedom).

    With Phi the normal distribution function and phi its density,
    ``P(R <= q) = k * integral phi(z) (Phi(z + q) - Phi(z))^(k-1) dz``; since
    ``k * integral phi(z) (1 - Phi(z))^(k-1) dz = 1``, the survival function is
    ``k * integral phi(z) (a^(k-1) - b^(k-1)) dz`` with ``a = 1 - Phi(z)``,
    ``b = Phi(z + q) - Phi(z)`` and ``a - b = 1 - Phi(z + q)``, summed as
    ``(a - b) * sum_i a^i b^(k-2-i)``: accurate for small tail probabilities
    too. The integral is a trapezoid sum over z in [-12, 12] (step 0.005),
    exact to about 1e-12 for this smooth, fast-decaying integrand.

    Examples
    --------
    >>> round(studentized_range_sf(3.314, 3), 4)  # Demsar's q_0.05 for k = 3 is 2.343 = 3.314 / sqrt(2)
    0.05
    >>> studentized_range_sf(0.0, 4)
    1.0
    """
    k = int(k)
    if k < 2:
        raise SrdashError(f"The studentized range needs at least 2 values. Got k = {k!r}.")
    return float(studentized_range_sf_many(np.array([q], dtype=float), k)[0])


#: Values of q integrated at once (the grid's 4,801 points each), to bound the memory of many pairs
#: (docs/decisions/2026-11-significance-at-scale.md).
_Q_CHUNK = 256
#: Above this many methods the sum ``sum_i a^i b^(k-2-i)`` (k - 2 products per grid point) is taken in closed form.
_HORNER_UP_TO = 50


def studentized_range_sf_many(q: np.ndarray, k: int) -> np.ndarray:
    """:func:`studentized_range_sf` of every value of ``q`` (1 where q <= 0), :data:`_Q_CHUNK` values at a time;
    the sum ``sum_i a^i b^(k-2-i)`` is accumulated by Horner's rule (``total = total * b + a^i``) up to
    :data:`_HORNER_UP_TO` methods. Above, ``(a - b) * sum = a^(k-1) - b^(k-1)`` is taken as
    ``-a^(k-1) expm1((k-1) log1p(-(a-b)/a))``, accurate also where a and b are close, in a few operations
    instead of 2(k - 2) (300 methods, 44,850 pairs: 6e10 products)."""
    q, inverse = np.unique(np.asarray(q, dtype=float), return_inverse=True)  # pairs often share a difference
    out = np.ones(q.shape, dtype=float)
    positive = np.nonzero(q > 0)[0]
    from scipy import special  # lazy: scipy

    a = special.ndtr(-_GRID)[None, :]
    with np.errstate(under="ignore"):
        top = a ** (k - 1)
    for start in range(0, len(positive), _Q_CHUNK):
        chosen = positive[start:start + _Q_CHUNK]
        gap = special.ndtr(-(_GRID[None, :] + q[chosen][:, None]))
        if k <= _HORNER_UP_TO:
            b = np.clip(a - gap, 0.0, None)
            # sum_{i=0}^{k-2} a^i b^(k-2-i), by Horner in b: ((a^0) b + a^1) b + ... + a^(k-2)
            total = np.ones_like(b)
            power = np.ones_like(a)
            for _ in range(k - 2):
                power = power * a
                total = total * b + power
            integrand = gap * total
        else:
            with np.errstate(divide="ignore", under="ignore"):
                integrand = -top * np.expm1((k - 1) * np.log1p(-np.minimum(gap / a, 1.0)))
        values = k * np.trapezoid(_DENSITY[None, :] * integrand, _GRID, axis=1)
        out[chosen] = np.clip(values, 0.0, 1.0)
    return out[inverse.reshape(-1)]


def studentized_range_isf(alpha: float, k: int) -> float:
    """The q with ``studentized_range_sf(q, k) == alpha`` (bisection to 1e-12)."""
    low, high = 0.0, 1.0
    while studentized_range_sf(high, k) > alpha:
        high *= 2.0
    for _ in range(80):
        middle = 0.5 * (low + high)
        if studentized_range_sf(middle, k) > alpha:
            low = middle
        else:
            high = middle
        if high - low < 1e-12:
            break
    return 0.5 * (low + high)


def _groups(ranked: pd.Series, cd: float) -> tuple[tuple[str, ...], ...]:
    names, values = list(ranked.index), ranked.to_numpy()
    groups, last_end = [], -1
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and values[i] - values[j + 1] <= cd:
            j += 1
        if j > i and j > last_end:
            groups.append(tuple(names[i:j + 1]))
            last_end = j
    return tuple(groups)


def p_text(p: float) -> str:
    """'p = 0.105', 'p = 3.2e-05', or 'p < 1e-300' when the p-value underflows."""
    if p < 1e-300:
        return "p < 1e-300"
    return f"p = {p:.3f}" if p >= 0.001 else f"p = {p:.1e}"


def _statement(winner, runner_up, mean_rank, cd, alpha, p_value, statistic, k, n) -> str:
    if p_value >= alpha:
        return (f"The winner, {winner}, is not significantly better than the runner-up, {runner_up}: the Friedman "
                f"test does not reject that all {k} methods perform alike on these {n} datasets (chi2 = "
                f"{statistic:.3f}, {p_text(p_value)} >= alpha = {alpha:g}), so the Nemenyi post-hoc test declares no pair "
                "different.")
    a, b = float(mean_rank[winner]), float(mean_rank[runner_up])
    difference = a - b
    # The mean ranks are not a leaderboard column: say what they are.
    detail = (f"(Nemenyi test over {n} datasets, alpha = {alpha:g}: the methods ranked by dataset score on each "
              f"dataset, {k} = best, have mean ranks {a:.3f} and {b:.3f}, difference {difference:.3f} "
              f"{'>' if difference > cd else '<='} critical difference {cd:.3f})")
    if difference > cd:
        return f"The winner, {winner}, is significantly better than the runner-up, {runner_up} {detail}."
    return f"The winner, {winner}, is not significantly better than the runner-up, {runner_up} {detail}."


def groups_from_p_values(order, p_values: pd.DataFrame, *, alpha: float = 0.05) -> tuple[tuple[str, ...], ...]:
    """The bars of a critical-difference diagram drawn from any post-hoc's p-values.

    ``order`` lists the methods by mean rank, best first. A group is a maximal run of
    consecutive methods in that order of which no two differ significantly
    (``p_values.loc[a, b] >= alpha`` for every pair in the run); runs inside an
    earlier run and single methods are left out. With the Nemenyi p-values this gives
    the groups of :func:`significance` (a pair differs exactly when its mean ranks
    differ by more than the critical difference); with Wilcoxon-Holm or Conover
    p-values, whose decisions need not follow the mean ranks, a method can be left out
    of a bar its neighbours share.

    Parameters
    ----------
    order : sequence of str
    p_values : DataFrame
        Square matrix of (adjusted) p-values indexed and labelled by method.
    alpha : float, keyword-only

    Examples
    --------
    a-b and b-c do not differ, a-c does: two bars, (a, b) and (b, c).

    >>> import pandas as pd
    >>> p = pd.DataFrame([[1, .2, .01], [.2, 1, .3], [.01, .3, 1]], index=list("abc"), columns=list("abc"))
    >>> groups_from_p_values(["a", "b", "c"], p)
    (('a', 'b'), ('b', 'c'))
    """
    check_alpha(alpha)
    names = [str(name) for name in order]
    missing = [name for name in names if name not in p_values.index or name not in p_values.columns]
    if missing:
        raise SrdashError(f"The p-value matrix has no row or column for {', '.join(map(repr, missing))}; "
                          f"it has {', '.join(map(repr, map(str, p_values.index)))}.")
    alike = p_values.loc[names, names].to_numpy(dtype=float) >= alpha
    groups, last_end = [], -1
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and alike[i:j + 2, j + 1].all():
            j += 1
        if j > i and j > last_end:
            groups.append(tuple(names[i:j + 1]))
            last_end = j
    return tuple(groups)


def cliffs_delta(x, y) -> float:
    """Cliff's delta of two samples: ``(#{x_i > y_j} - #{x_i < y_j}) / (n_x n_y)``, in [-1, 1].

    Positive when the values of ``x`` tend to be larger. NaN values are left out; NaN
    when either sample is then empty.

    Examples
    --------
    Of the 3 x 2 pairs, (3 > 1), (3 > 2), (2 > 1) are larger, (1 < 2) smaller, two tie:

    >>> cliffs_delta([1, 2, 3], [1, 2])
    0.3333333333333333
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if not x.size or not y.size:
        return float("nan")
    # counted by sorting, O(n log n) rather than all n_x n_y signs (docs/decisions/2026-11-significance-at-scale.md);
    # the counts are whole numbers, so the quotient is the same float
    ordered = np.sort(y)
    above = np.searchsorted(ordered, x, side="left").sum()               # y_j < x_i
    below = y.size * x.size - np.searchsorted(ordered, x, side="right").sum()  # y_j > x_i
    return float((above - below) / (x.size * y.size))


def cohens_d(x, y) -> float:
    """Cohen's d of two samples with the pooled standard deviation (as autorank).

    ``d = (mean(x) - mean(y)) / s``, ``s**2 = ((n_x - 1) s_x**2 + (n_y - 1) s_y**2) / (n_x + n_y - 2)``
    with the sample variances ``s_x**2``, ``s_y**2`` (ddof = 1). NaN values are left out;
    NaN with fewer than 2 values in all; with ``s = 0``, 0 when the means are equal and
    +-inf otherwise.

    Examples
    --------
    Means 2 and 4, both variances 1: d = -2 / 1.

    >>> cohens_d([1, 2, 3], [3, 4, 5])
    -2.0
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    nx, ny = x.size, y.size
    if nx < 1 or ny < 1 or nx + ny < 3:
        return float("nan")
    squares = (((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()) / (nx + ny - 2)
    difference = float(x.mean() - y.mean())
    if squares <= 0:
        return 0.0 if difference == 0 else float(np.copysign(np.inf, difference))
    return float(difference / np.sqrt(squares))


def magnitude(effect: float, measure: str) -> str:
    """'negligible', 'small', 'medium' or 'large' for ``|effect|`` (see :data:`EFFECT_THRESHOLDS`).

    Examples
    --------
    >>> magnitude(0.3, "cliffs_delta"), magnitude(-0.3, "cohens_d"), magnitude(0.474, "cliffs_delta")
    ('small', 'small', 'large')
    """
    if measure not in EFFECT_THRESHOLDS:
        raise SrdashError(f"The effect-size measure must be one of 'cohens_d', 'cliffs_delta'. Got {measure!r}.")
    if effect != effect:  # NaN
        return ""
    size = abs(effect)
    for label, bound in zip(("negligible", "small", "medium"), EFFECT_THRESHOLDS[measure]):
        if size < bound:
            return label
    return "large"


@dataclass(frozen=True)
class SkillingsMack:
    """The Skillings-Mack test of k methods over blocks with missing values.

    Attributes
    ----------
    statistic, p_value : float
        SM and its chi-square (k - 1 degrees of freedom) p-value.
    df : int
    adjusted_sums : Series
        ``A_j`` per method (positive: ranked above the middle of its blocks).
    n_blocks : int
        Blocks with at least two values (the others carry no information).
    n_methods : int
    missing : int
        Cells without a value in those blocks.
    """

    statistic: float
    p_value: float
    df: int
    adjusted_sums: pd.Series
    n_blocks: int
    n_methods: int
    missing: int


def skillings_mack(matrix: pd.DataFrame) -> SkillingsMack:
    """Skillings-Mack test (Friedman's test when some blocks lack a method).

    ``matrix`` has one row per block and one column per method (NaN = missing). In block
    i with ``k_i`` values, the values are ranked 1..k_i (average ranks for ties) and a
    missing cell gets the middle rank ``(k_i + 1) / 2``. The adjusted rank sum of method
    j is ``A_j = sum_i sqrt(12 / (k_i + 1)) (r_ij - (k_i + 1) / 2)``; under the null
    hypothesis its covariance is ``Sigma`` with ``Sigma_jt = -lambda_jt`` (j != t) and
    ``Sigma_jj = sum_{t != j} lambda_jt``, ``lambda_jt`` being the number of blocks with
    both j and t. ``SM = A' Sigma^- A`` (``Sigma^-`` a generalised inverse; Sigma has rank
    k - 1 when the design is connected) is compared with chi-square, k - 1 degrees of
    freedom. Blocks with fewer than two values are left out. With complete blocks and no
    ties SM equals Friedman's statistic.

    Reference: J. H. Skillings and G. A. Mack, "On the use of a Friedman-type statistic
    in balanced and unbalanced block designs", Technometrics 23 (1981) 171-177.

    Examples
    --------
    Two blocks rank (a, b, c) as (3, 2, 1) (weight sqrt(12/4) = sqrt(3), centred ranks
    +1, 0, -1); a third has only a and c, a above c (weight sqrt(12/3) = 2, centred ranks
    +1/2, b at the middle 0, -1/2). So ``A = t (1, 0, -1)`` with ``t = 2 sqrt(3) + 1``;
    lambda_ab = 2, lambda_ac = 3, lambda_bc = 2, and ``Sigma x = A`` for ``x = (t/8, 0, -t/8)``,
    so ``SM = A'x = t**2 / 4 = (13 + 4 sqrt(3)) / 4 = 4.9821``:

    >>> import pandas as pd
    >>> m = pd.DataFrame({"a": [3.0, 3.0, 2.0], "b": [2.0, 2.0, None], "c": [1.0, 1.0, 1.0]})
    >>> result = skillings_mack(m)
    >>> round(result.statistic, 4), result.df, result.missing
    (4.9821, 2, 1)
    """
    values = matrix.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    observed = ~np.isnan(values)
    keep = observed.sum(axis=1) >= 2
    values, observed = values[keep], observed[keep]
    n_blocks, k = values.shape
    if k < 2 or n_blocks < 1:
        raise SrdashError(f"The Skillings-Mack test needs at least 2 methods and 1 block with two values; got "
                          f"{k} method(s) and {n_blocks} such block(s).")
    counts = observed.sum(axis=1)
    ranks = pd.DataFrame(values).rank(axis=1, method="average").to_numpy()
    middle = (counts + 1) / 2.0
    centred = np.where(observed, ranks, middle[:, None]) - middle[:, None]
    sums = (np.sqrt(12.0 / (counts + 1))[:, None] * centred).sum(axis=0)
    both = observed.T.astype(float) @ observed.astype(float)  # lambda_jt, with the counts on the diagonal
    sigma = -both
    np.fill_diagonal(sigma, 0.0)
    np.fill_diagonal(sigma, -sigma.sum(axis=1))
    statistic = float(max(sums @ np.linalg.pinv(sigma) @ sums, 0.0))
    df = k - 1
    from scipy import special  # lazy: scipy

    return SkillingsMack(statistic=statistic, p_value=float(special.chdtrc(df, statistic)), df=df,
                         adjusted_sums=pd.Series(sums, index=list(map(str, matrix.columns))),
                         n_blocks=int(n_blocks), n_methods=int(k), missing=int((~observed).sum()))
