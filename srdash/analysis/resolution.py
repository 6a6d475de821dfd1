"""Rank resolution: each method's place interval and the methods tied with the winner.

Every leaderboard (``srdash score``, the dashboard, the report, the notebook) shows, per method,

- ``places``: its place interval. The verdict is bootstrapped by
  :func:`srdash.analysis.robustness.bootstrap` (datasets, and runs within datasets where there are
  several; the same redraws, engines and ranking kernel as ``srdash robustness``). In each draw a
  method occupies the span of places of its score: ``lo = 1 + (methods scoring above it)`` to
  ``hi = lo + (methods tied with it) - 1`` (scores compared at 9 decimals, as the verdict's places),
  ranked by :func:`srdash.judging.kernel.rank_higher_better` with the ``max`` and ``min`` tie rules.
  The interval is the shortest ``[a, b]`` that holds the whole span of at least ``confidence`` of the
  draws (ties broken by the larger share, then the better places); ``places_share`` is that share,
  exactly (draws counted, divided by their number), so "places 1–2 in at least 95 % of 1,000 draws" is
  true as printed.
- ``tied_with_winner``: ``'first'`` for the methods at place 1; ``'yes'`` for a method the post-hoc
  does not tell apart from a method at place 1, ``'no'`` otherwise. The test is the Friedman test with
  the Nemenyi post-hoc over the per-dataset scores (:func:`srdash.analysis.significance.significance`,
  ``dnf = 'worst'``): when Friedman does not reject at ``alpha``, no pair differs and every method is
  tied with the winner; otherwise a method is tied when its mean rank is within the critical difference
  of the winner's.

First place is *resolved* when a single method holds place 1 and no method is tied with it.
:attr:`RankResolution.sentence` says so, under every leaderboard, with the test, alpha and the
winner's place interval.

Examples
--------
Three methods on six datasets; a wins five, b one (hand derivation in tests/test_resolution.py):

>>> import pandas as pd
>>> from srdash.demo.examples import accuracy_rules
>>> from srdash.judging.ranking import judge
>>> r2 = {"a": [.9, .9, .9, .9, .9, .1], "b": [.5, .5, .5, .5, .5, .9], "c": [.1, .1, .1, .1, .1, .5]}
>>> runs = pd.DataFrame([{"method": m, "dataset": f"d{i}", "run": 0, "r2_test": v}
...                      for m, values in r2.items() for i, v in enumerate(values)])
>>> resolution = rank_resolution(judge(runs, accuracy_rules()), runs, n_bootstrap=200)
>>> resolution.table[["method", "places", "tied_with_winner"]]
  method places tied_with_winner
0      a    1–2            first
1      b    1–2              yes
2      c      3               no
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.analysis.robustness import SCORE_DECIMALS, bootstrap, runs_are_vectorised
from srdash.analysis.significance import Significance, significance
from srdash.errors import SrdashError
from srdash.judging.kernel import rank_higher_better
from srdash.judging.ranking import Verdict

__all__ = ["RankResolution", "rank_resolution", "RESOLUTION_COLUMNS", "TEST_NAME"]

#: The columns :func:`rank_resolution` adds to a leaderboard.
RESOLUTION_COLUMNS = ("places", "places_share", "tied_with_winner")
#: The post-hoc named in every sentence.
TEST_NAME = "Friedman test, Nemenyi post-hoc"
# Tied methods listed by name in the sentence; more are counted.
_NAMED = 5


@dataclass(frozen=True)
class RankResolution:
    """How far a leaderboard's places are resolved.

    Attributes
    ----------
    table : DataFrame
        One row per method in leaderboard order: ``method``, ``place`` (of the verdict),
        ``places`` (the interval as text, ``'1–3'`` or ``'2'``), ``places_low``, ``places_high``,
        ``places_share`` (share of draws whose span lies in the interval, >= ``confidence``) and
        ``tied_with_winner`` (``'first'``, ``'yes'`` or ``'no'``; ``''`` when there is no test).
    winners : tuple of str
        The methods at place 1.
    tied : tuple of str
        The other methods tied with them by the post-hoc.
    resolved : bool
        One method at place 1 and none tied with it.
    sentence : str
        What the leaderboard says under it.
    alpha, confidence : float
    n_bootstrap, seed : int
    resample : str
        What the bootstrap redrew (``'datasets'``, ``'runs'``, ``'datasets and runs'``).
    significance : Significance or None
        The test (None with fewer than 2 methods or 2 datasets).
    notes : tuple of str
    """

    table: pd.DataFrame
    winners: tuple[str, ...]
    tied: tuple[str, ...]
    resolved: bool
    sentence: str
    alpha: float
    confidence: float
    n_bootstrap: int
    seed: int
    resample: str
    significance: Significance | None = None
    notes: tuple[str, ...] = ()

    def columns(self) -> pd.DataFrame:
        """``method`` and the :data:`RESOLUTION_COLUMNS`, to merge into a leaderboard."""
        return self.table[["method", *RESOLUTION_COLUMNS]]


def rank_resolution(verdict: Verdict, runs: pd.DataFrame, *, n_bootstrap: int = 1000, seed: int = 0,
                    alpha: float = 0.05, confidence: float = 0.95) -> RankResolution:
    """Place intervals and the tie group of the winner (the module docstring defines both).

    Parameters
    ----------
    verdict : Verdict
        The verdict (``rank-harmonic`` rules) whose leaderboard is shown.
    runs : DataFrame
        The per-run table it was judged from (``CompetitionResult.runs``).
    n_bootstrap : int
        Bootstrap draws (>= 1); datasets, and runs where a dataset has several, are redrawn (runs only
        under rules whose redraws are not judged one by one,
        :func:`srdash.analysis.robustness.runs_are_vectorised`; a note says so otherwise).
    seed : int
        Seed of the draws (>= 0): same inputs and seed, same intervals.
    alpha : float
        Level of the Friedman and Nemenyi tests, in (0, 1).
    confidence : float
        Least share of draws an interval holds, in (0, 1).

    Returns
    -------
    RankResolution

    Raises
    ------
    SrdashError
        For an option out of range (named, with its range), as
        :func:`srdash.analysis.robustness.bootstrap` does.
    """
    methods = list(verdict.leaderboard["method"])
    places = verdict.leaderboard["place"].to_numpy()
    winners = tuple(m for m, p in zip(methods, places) if p == 1)
    test, notes = None, []
    if len(methods) >= 2 and verdict.per_dataset["dataset"].nunique() >= 2:
        test = significance(verdict, alpha=alpha)  # checks alpha
    else:
        notes.append("No test: the Friedman and Nemenyi tests need at least 2 methods and 2 datasets.")
    resample = "both"
    several_runs = "run" in runs.columns and bool(runs.groupby(["dataset", "method"]).size().gt(1).any())
    if several_runs and not runs_are_vectorised(verdict.rules):
        # such rules are judged again per redraw of the runs (0.02-0.5 s each): a leaderboard cannot wait
        resample = "datasets"
        notes.append(f"Runs were not redrawn: the rules '{verdict.rules.name}' (or the view) would be judged "
                     "again for every draw; the place intervals redraw the datasets (`srdash robustness` redraws "
                     "both).")
    boot = bootstrap(runs, verdict.rules, n_bootstrap=n_bootstrap, seed=seed, confidence=confidence,
                     methods=methods, resample=resample)
    if list(boot.verdict.leaderboard["method"]) != methods:
        raise SrdashError("The runs given do not judge to the verdict given: pass the per-run table the "
                          "verdict was judged from (CompetitionResult.runs).")
    scores = boot.scores[methods].to_numpy(dtype=float)
    low, high, share = _intervals(scores, confidence)
    tied_column, tied = _tied_with_winner(methods, winners, test)
    table = pd.DataFrame({
        "method": methods,
        "place": places,
        "places": [f"{a}" if a == b else f"{a}–{b}" for a, b in zip(low, high)],
        "places_low": low,
        "places_high": high,
        "places_share": share,
        "tied_with_winner": tied_column,
    })
    resolved = len(winners) == 1 and test is not None and not tied
    resolution = RankResolution(
        table=table, winners=winners, tied=tied, resolved=resolved, sentence="", alpha=float(alpha),
        confidence=float(confidence), n_bootstrap=int(n_bootstrap), seed=int(seed), resample=boot.resample,
        significance=test, notes=tuple(notes) + boot.notes)
    return _with_sentence(resolution)


def _intervals(scores: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(B, K) draws' scores -> per method the shortest place interval holding ``confidence`` of the spans."""
    n_draws, n_methods = scores.shape
    rounded = np.round(scores, SCORE_DECIMALS)
    # rank K = best: the 'max' rank of a tied group is its best position, 'min' its worst
    best = n_methods + 1 - rank_higher_better(rounded, "max").astype(int)   # (B, K) places 1..K
    worst = n_methods + 1 - rank_higher_better(rounded, "min").astype(int)
    needed = math.ceil(confidence * n_draws - 1e-9)
    low = np.empty(n_methods, dtype=int)
    high = np.empty(n_methods, dtype=int)
    share = np.empty(n_methods)
    for m in range(n_methods):
        counts = np.zeros((n_methods + 1, n_methods + 1), dtype=np.int64)
        np.add.at(counts, (best[:, m], worst[:, m]), 1)
        # held[a, b] = draws whose span [lo, hi] has lo >= a and hi <= b
        held = np.cumsum(np.cumsum(counts[::-1], axis=0)[::-1], axis=1)
        found = None
        for length in range(n_methods):
            a = np.arange(1, n_methods + 1 - length)
            inside = held[a, a + length]
            if inside.max() >= needed:
                pick = int(np.argmax(inside))  # the largest share; argmax keeps the better places on ties
                found = (int(a[pick]), int(a[pick] + length), int(inside[pick]))
                break
        low[m], high[m], share[m] = found[0], found[1], found[2] / n_draws
    return low, high, share


def _tied_with_winner(methods, winners, test):
    if test is None:
        return ["first" if m in winners else "" for m in methods], ()
    if not test.rejected:
        tied = tuple(m for m in methods if m not in winners)
    else:
        differs = {frozenset((a, b)) for a, b, s in test.pairwise[["method_a", "method_b", "significant"]]
                   .itertuples(index=False) if s}
        tied = tuple(m for m in methods if m not in winners
                     and any(frozenset((m, w)) not in differs for w in winners))
    return ["first" if m in winners else "yes" if m in tied else "no" for m in methods], tied


def _listed(names) -> str:
    names = list(names)
    if len(names) > _NAMED:
        return ", ".join(names[:_NAMED]) + f" and {len(names) - _NAMED} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _with_sentence(r: RankResolution) -> RankResolution:
    from dataclasses import replace

    first = r.table.iloc[0]
    where = f"place {first['places']}" if first["places_low"] == first["places_high"] else f"places {first['places']}"
    draws = (f"{where} in at least {r.confidence * 100:g} % of {r.n_bootstrap:,} bootstrap draws of "
             f"the {r.resample}")
    if len(r.winners) > 1:
        head = f"{_listed(r.winners)} share first place; first place is not resolved"
    else:
        head = f"{r.winners[0]} is first"
    test = f"({TEST_NAME}, α = {r.alpha:g})"
    if r.significance is None:
        body = f"{head}; first place is not tested (fewer than 2 methods or 2 datasets); {draws}."
    elif r.resolved:
        body = f"{head}; first place is resolved: no method is tied with it {test}; {draws}."
    elif not r.tied:
        body = f"{head}; no other method is tied with them {test}; {draws}."
    else:
        verb = "is" if len(r.tied) == 1 else "are"
        lead, them = (head, "them") if len(r.winners) > 1 else (f"{head}; first place is not resolved", "it")
        body = f"{lead}: {_listed(r.tied)} {verb} tied with {them} {test}; {draws}."
    return replace(r, sentence=body)
