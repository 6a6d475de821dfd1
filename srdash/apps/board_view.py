"""The dashboard's leaderboard: the rank resolution, the failures by type, and the switch between the views.

The dashboard calls :func:`leaderboard_panel_html` wherever it shows a verdict and puts
:func:`failure_view_switch` beside the leaderboard; both go through
:func:`srdash.analysis.board.shown_leaderboard`, as ``srdash score`` and the report do.

The leaderboard's panel and the significance sentence (:func:`significance_panel_html`) are kept in srdash's
cache (:func:`srdash.analysis.kept.kept_text`), keyed by the per-run table, the rules, the verdict's tables,
srdash's code and the versions of the libraries that compute them: the first kernel to show a verdict computes
them (a bootstrap of the places, the Friedman and Nemenyi tests with scipy.special), every later visitor's kernel
reads them. So are the page's figures (:func:`kept_figure`), as the plain JSON their panel sends: a kernel that
reads them builds no plotly figure (plotly's validators: 14 MB and 0.05 s a kernel).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import sqlite3
import warnings
from dataclasses import replace

import ipywidgets as widgets
import pandas as pd
import plotly
import plotly.io as pio

from srdash.analysis.board import shown_leaderboard
from srdash.analysis.failures import FAILURE_VIEWS
from srdash.analysis.kept import kept_text
from srdash.apps.verdict_text import significance_html
from srdash.errors import SrdashError
from srdash.figures.escape import html_text
from srdash.figures.leaderboard import leaderboard_html, rank_heatmap, simplicity_curve
from srdash.judging.kept_verdict import kept_judgement
from srdash.judging.pipeline import prepared_from_snapshot

__all__ = ["failure_view_switch", "leaderboard_panel_html", "significance_panel_html", "keep_first_page",
           "kept_figure", "kept_verdict_figure", "rank_heatmap_figure", "simplicity_curve_figure"]


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
    return _kept_html("leaderboard panel", result, {"view": view},
                      lambda: _leaderboard_panel_html(result, verdict, view))


def significance_panel_html(result, verdict) -> str:
    """:func:`srdash.apps.verdict_text.significance_html` of ``verdict``, kept as the leaderboard's panel is
    (``result``: the judged competition whose main verdict it is; None: computed, not kept)."""
    if result is None or result.verdict is not verdict:
        return significance_html(verdict)
    return _kept_html("significance sentence", result, {}, lambda: significance_html(verdict))


def _verdict_digest(verdict) -> str | None:
    """SHA-256 of what a panel reads of a verdict besides the runs and the rules (None: not hashable)."""
    digest = hashlib.sha256()
    try:
        for frame in (verdict.leaderboard, verdict.per_dataset, verdict.problems):
            digest.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
            digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    except (TypeError, ValueError):   # e.g. an unhashable cell
        return None
    digest.update(repr(([c.name for c in verdict.criteria], int(verdict.n_methods))).encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _libraries() -> dict[str, str]:
    """The versions a kept panel or figure depends on beyond srdash's code, numpy and pandas (analysis.kept's key):
    plotly (a figure's JSON) and scipy (the tests' p-values), the latter by its version file, without importing it."""
    spec = importlib.util.find_spec("scipy")
    scipy = ""
    if spec is not None and spec.origin:
        try:
            with open(os.path.join(os.path.dirname(spec.origin), "version.py"), "rb") as handle:
                scipy = hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            scipy = spec.origin
    return {"plotly": plotly.__version__, "scipy": scipy}


def _kept_html(name: str, result, settings: dict, compute) -> str:
    """``compute()``, kept in srdash's cache under the runs, the rules, the verdict's tables and ``settings``."""
    digest = _verdict_digest(result.verdict)
    cache = result.competition.simplification.cache
    if digest is None or cache is False or result.runs is None:
        return compute()
    try:
        return kept_text(f"dashboard {name}", result.runs, result.verdict.rules, compute,
                         settings={**settings, "verdict": digest, **_libraries()}, cache=cache)
    except (OSError, sqlite3.Error):   # an unusable cache: computed as without one
        return compute()


def kept_figure(name: str, compute, *, runs, rules, cache, settings: dict | None = None) -> dict:
    """The figure ``compute()`` draws, as the plain dict a :class:`~srdash.apps.panels.FigurePanel` sends (its
    JSON, unvalidated, as the panel writes it), kept in srdash's cache under ``name``, ``runs``, ``rules`` and
    ``settings`` (:func:`srdash.analysis.kept.kept_text`; ``cache`` as there, False: none).

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> kept_figure("example", lambda: go.Figure(layout={"title": {"text": "Ranks"}}), runs=None, rules=None,
    ...             cache=False)["layout"]["title"]
    {'text': 'Ranks'}
    """
    def drawn() -> str:
        return pio.to_json(compute(), validate=False)

    if cache is False or runs is None:
        return json.loads(drawn())
    try:
        return json.loads(kept_text(f"dashboard figure: {name}", runs, rules, drawn,
                                    settings={**(settings or {}), **_libraries()}, cache=cache))
    except (OSError, sqlite3.Error):   # an unusable cache: drawn as without one
        return json.loads(drawn())


def kept_verdict_figure(name: str, result, verdict, compute, *, settings: dict | None = None) -> dict:
    """:func:`kept_figure` of a figure of ``verdict`` (``result``: the judged competition whose main verdict it
    is; otherwise drawn, not kept), keyed by the verdict's tables too."""
    digest = None if result is None or result.verdict is not verdict else _verdict_digest(verdict)
    if digest is None:
        return json.loads(pio.to_json(compute(), validate=False))
    return kept_figure(name, compute, runs=result.runs, rules=verdict.rules,
                       cache=result.competition.simplification.cache, settings={**(settings or {}), "verdict": digest})


def rank_heatmap_figure(result, verdict, *, criterion: str | None = None) -> dict:
    """:func:`srdash.figures.leaderboard.rank_heatmap` of ``verdict``, kept (:func:`kept_verdict_figure`)."""
    return kept_verdict_figure("rank heatmap", result, verdict, lambda: rank_heatmap(verdict, criterion=criterion),
                               settings={"criterion": criterion})


def simplicity_curve_figure(runs, competition) -> dict:
    """:func:`srdash.figures.leaderboard.simplicity_curve` of ``runs`` (``competition``'s), kept
    (:func:`kept_figure`)."""
    return kept_figure("simplicity curve", lambda: simplicity_curve(runs), runs=runs, rules=competition.rules,
                       cache=competition.simplification.cache)


def _leaderboard_panel_html(result, verdict, view: str) -> str:
    try:
        shown = shown_leaderboard(result, view=view)
    except SrdashError as error:  # e.g. rank-mean rules have no delivered view: said, not hidden
        return (leaderboard_html(verdict, explain=False)
                + f"<div class='srdash-note srdash-view-refused'>{html_text(str(error))}</div>")
    return leaderboard_html(verdict, explain=False, shown=shown)


def keep_first_page(competition) -> bool:
    """Judge ``competition`` from its snapshot as a visitor's dashboard first does, and keep the verdict, the
    leaderboard's panel, the significance sentence and the two figures for every visitor (``srdash serve`` calls
    it once, after preparing); False when there is no snapshot to judge.

    The verdict is :func:`~srdash.judging.kept_verdict.kept_judgement` of the competition under its own rules and
    options (the dashboard's first choice), with a real-world track that cannot be judged left out, as the
    dashboard does. Rules that judge submissions have no dashboard: nothing is kept for them (False).
    """
    if competition.rules.rule_kind.judges_submissions:   # no dashboard: their meta-scores open in the sensitivity view
        return False
    found = prepared_from_snapshot(competition)
    if found is None:
        return False
    rules = competition.rules
    rules = rules.with_options(run_aggregation=rules.run_aggregation, rank_method=rules.rank_method)
    prepared = replace(found.prepared, competition=replace(found.prepared.competition, rules=rules))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the dashboard replays the preparation's notes itself
        result = kept_judgement(prepared, refused_realworld="warn")
        leaderboard_panel_html(result, result.verdict)
        significance_panel_html(result, result.verdict)
        rank_heatmap_figure(result, result.verdict)
        runs = result.runs
        if runs is not None and "components" in runs.columns and runs["components"].notna().any():
            simplicity_curve_figure(runs, competition)
    return True
