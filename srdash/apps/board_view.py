"""The dashboard's leaderboard: the rank resolution, the failures by type, and the switch between the views.

The dashboard calls :func:`leaderboard_panel_html` wherever it shows a verdict and puts
:func:`failure_view_switch` beside the leaderboard; both go through
:func:`srdash.analysis.board.shown_leaderboard`, as ``srdash score`` and the report do.
"""

from __future__ import annotations

import ipywidgets as widgets

from srdash.analysis.board import shown_leaderboard
from srdash.analysis.failures import FAILURE_VIEWS
from srdash.errors import SrdashError
from srdash.figures.escape import html_text
from srdash.figures.leaderboard import leaderboard_html

__all__ = ["failure_view_switch", "leaderboard_panel_html"]


def failure_view_switch() -> widgets.ToggleButtons:
    """Two buttons: "failures as the rules count them" (the verdict) and "only where the method delivered".

    Examples
    --------
    >>> [label for label, _ in failure_view_switch().options]
    ['failures as the rules count them', 'only where the method delivered']
    """
    switch = widgets.ToggleButtons(
        options=[(words, key) for key, words in FAILURE_VIEWS.items()], value="as-ruled",
        tooltips=["The verdict: each failed run counts as the rules say (worst value, DNF last).",
                  "Each method judged again on the runs it delivered; nothing filled in (docs/rules.md)."],
        style={"button_width": "auto"}, layout=widgets.Layout(flex_flow="row wrap", width="auto"))
    switch.add_class("srdash-failure-view")
    return switch


def leaderboard_panel_html(result, verdict, *, view: str = "as-ruled") -> str:
    """The leaderboard of ``verdict`` with its resolution and failures (``result``'s, when it is its verdict).

    Parameters
    ----------
    result : CompetitionResult or None
        The judged competition whose main verdict is ``verdict``; None (or another verdict) shows the
        verdict's own columns only.
    verdict : Verdict
    view : {'as-ruled', 'delivered'}
        See :func:`srdash.analysis.board.shown_leaderboard`.

    Returns
    -------
    str
        HTML; a view that cannot be shown says why under the verdict's leaderboard.
    """
    if result is None or result.verdict is not verdict:
        return leaderboard_html(verdict, explain=False)
    try:
        shown = shown_leaderboard(result, view=view)
    except SrdashError as error:  # e.g. rank-mean rules have no delivered view: said, not hidden
        return (leaderboard_html(verdict, explain=False)
                + f"<div class='srdash-note srdash-view-refused'>{html_text(str(error))}</div>")
    return leaderboard_html(verdict, explain=False, shown=shown)
