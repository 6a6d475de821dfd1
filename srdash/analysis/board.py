"""The leaderboard every door shows: the verdict's table, its rank resolution and its failures by type.

``srdash score``, the dashboard, the report and the notebook call :func:`shown_leaderboard` on a
:class:`srdash.judging.pipeline.CompetitionResult` and render what it returns; none of them computes a
column of its own. The verdict itself (and so its fingerprint) is not changed: the columns are added to
a copy of its leaderboard.

Columns added after the verdict's (``place``, ``method``, ``score``, mean ranks, ``datasets``, ``dnf``):
``places``, ``places_share``, ``tied_with_winner`` (:mod:`srdash.analysis.resolution`), then
``timed_out``, ``did_not_parse``, ``non_finite``, ``missing``, ``imputed``
(:mod:`srdash.analysis.failures`; did-not-finish is ``dnf``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from srdash.analysis.failures import FAILURE_COLUMNS, FAILURE_VIEWS, delivered_runs, delivered_verdict, \
    failures_by_type
from srdash.analysis.resolution import RESOLUTION_COLUMNS, RankResolution, rank_resolution
from srdash.errors import SrdashError
from srdash.judging.ranking import Verdict

__all__ = ["ShownLeaderboard", "shown_leaderboard", "ADDED_COLUMNS"]

#: The columns :func:`shown_leaderboard` adds to the verdict's leaderboard, in order.
ADDED_COLUMNS = (*RESOLUTION_COLUMNS, *FAILURE_COLUMNS)


@dataclass(frozen=True)
class ShownLeaderboard:
    """A leaderboard as shown: the table, the verdict it shows, its resolution and its view.

    Attributes
    ----------
    table : DataFrame
        The verdict's leaderboard followed by :data:`ADDED_COLUMNS` (the resolution's columns empty
        when there is none).
    verdict : Verdict
        The verdict shown: the competition's (``view='as-ruled'``) or the one judged on what each method
        delivered (``view='delivered'``).
    resolution : RankResolution or None
        None when ``n_bootstrap`` is 0.
    view : str
        A key of :data:`srdash.analysis.failures.FAILURE_VIEWS`.
    sentence : str
        What stands under the leaderboard: the view, then the resolution's sentence.
    """

    table: pd.DataFrame
    verdict: Verdict
    resolution: RankResolution | None
    view: str
    sentence: str


def shown_leaderboard(result, *, view: str = "as-ruled", n_bootstrap: int = 1000, seed: int = 0,
                      alpha: float = 0.05, confidence: float = 0.95) -> ShownLeaderboard | None:
    """The main track's leaderboard with its place intervals, tie group and failures by type.

    Parameters
    ----------
    result : CompetitionResult
        The judged competition.
    view : {'as-ruled', 'delivered'}
        ``as-ruled``: the verdict, failures counted as the rules say; ``delivered``: judged again on the
        runs each method delivered (:func:`srdash.analysis.failures.delivered_verdict`).
    n_bootstrap : int
        Bootstrap draws of the place intervals (0: no resolution).
    seed, alpha, confidence
        As :func:`srdash.analysis.resolution.rank_resolution`.

    Returns
    -------
    ShownLeaderboard or None
        None when the rules judge submissions (meta-scores: no runs, no failures by type).

    Raises
    ------
    SrdashError
        An unknown view (the message lists the views), or as the functions it calls.
    """
    if view not in FAILURE_VIEWS:
        listed = ", ".join(f"'{v}'" for v in FAILURE_VIEWS)
        raise SrdashError(f"The 'view' option must be one of {listed}. Got {view!r}.")
    verdict = result.verdict
    if not isinstance(verdict, Verdict) or result.runs is None or verdict.rules.rule_kind.judges_submissions:
        return None
    runs = result.runs
    shown = verdict
    if view == "delivered":
        shown = delivered_verdict(runs, verdict)
        runs = delivered_runs(runs, verdict)
    resolution = None
    if n_bootstrap:
        resolution = rank_resolution(shown, runs, n_bootstrap=n_bootstrap, seed=seed, alpha=alpha,
                                     confidence=confidence)
    table = shown.leaderboard.copy()
    if resolution is not None:
        table = table.merge(resolution.columns(), on="method", how="left", validate="one_to_one")
    else:
        for column in RESOLUTION_COLUMNS:
            table[column] = ""
    table = table.merge(failures_by_type(verdict), on="method", how="left", validate="one_to_one")
    view_words = (f"View: {FAILURE_VIEWS[view]}" + (
        " (each method judged on the runs it delivered: model read, every criterion a finite number; "
        "datasets without one left out of its mean; nothing filled in)." if view == "delivered" else
        " (a failed run counts as the rules say; beside each method, its failed runs by type, its datasets "
        "without any run (DNF) and whether a value was filled in for them (imputed))."))
    sentence = view_words if resolution is None else f"{resolution.sentence} {view_words}"
    return ShownLeaderboard(table=table, verdict=shown, resolution=resolution, view=view, sentence=sentence)
