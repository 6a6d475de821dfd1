"""The weight-sensitivity view: sliders, live leaderboard and bump chart, global analysis.

Everything expensive (reading, simplifying models, ranking) happens once, when
the :class:`~srdash.analysis.sensitivity.Rescorer` is built. Moving a slider only
re-scores (:meth:`Rescorer.scores`), rewrites the leaderboard table and redraws
the bump chart (a plain figure in a :class:`~srdash.apps.panels.FigurePanel`). The
place-probability heatmap, the Kendall tau histogram and the ternary winner map
depend on the sampled weights only, not on the sliders: they are drawn once
(and again on "Resample") as static figures in output areas.
"""

from __future__ import annotations

import contextlib
import functools
import os
from typing import Callable, Mapping

import ipywidgets as widgets
import numpy as np
import traitlets

from srdash.demo.competition import cached_demo
from srdash.figures.assets import stylesheet
from srdash.figures.escape import html_text
from srdash.figures.sensitivity import (
    Vocabulary,
    alternatives_html,
    bump_chart,
    kendall_tau_histogram,
    leaderboard_html,
    place_probability_heatmap,
    ternary_note,
    ternary_winner_figure,
    winning_weights_html,
)
from srdash.analysis.sensitivity import (
    Rescorer,
    find_winning_weights,
    irrelevant_alternatives,
    place_probabilities,
    rescorer_of,
    ternary_winner_map,
    weight_sweep,
)
from srdash.apps.panels import (BackgroundApp, FigurePanel, LogPanel,
                                logged)
from srdash.judging.competition import competition_from_json, load_competition
from srdash.judging.pipeline import judge_competition
from srdash.apps.shared import shared_view

__all__ = ["SensitivityView"]

_STYLE = {"description_width": "initial"}
# Slider range: 0 to this many times the largest official weight.
_SLIDER_SPAN = 3.0
_SLIDER_STEP = 0.05
_SWEEP_POINTS = 41


def _section(title: str, *children: widgets.Widget, note: str = "") -> widgets.VBox:
    header = f"<h3 style='margin:14px 0 4px 0'>{html_text(title)}</h3>"
    if note:
        header += f"<div class='srdash-note' style='color:#555;font-size:12px'>{html_text(note)}</div>"
    return widgets.VBox([widgets.HTML(header), *children])


class SensitivityView(BackgroundApp):
    """How the verdict moves with the weights, for any rules.

    Parameters
    ----------
    rescorer : Rescorer or callable returning one, optional
        The competition, judged once. A callable (e.g.
        ``functools.partial(load_rescorer, path, rules)``) runs in a background
        thread, so that the page shows at once.
    samples : int
        Weight vectors sampled for the place probabilities.
    seed : int
        Seed of the sampling.
    source : str
        What is being judged, shown under the title.
    stage, progress : callable, optional
        Told what is computed when a competition is shown (``stage(text)``) and how far it has got
        (``progress(done, total, counts)``): the dashboard shows them while the view opens.
    cache : path, None or False
        Share the table of the competition judged without each method under the official weights with
        every other visitor through srdash's cache (a folder or file; None: the default one; False, the
        default: compute it here; see :mod:`srdash.apps.shared`). Only for a rescorer with its runs.
    show_title : bool
        Show the view's own heading (an app that embeds the view under a
        heading of its own passes False: one heading, not two).
    served : bool
        See :class:`~srdash.apps.panels.BackgroundApp` (False, the default: a notebook, at once).

    Attributes
    ----------
    rescorer : traitlet (Rescorer or None)
    weights : traitlet (tuple of float)
        The current weights, in ``rescorer.weight_names`` order; the sliders
        are linked to it. Set it from Python to drive the view.
    swept : traitlet (str)
        The weight the bump chart varies (the last slider moved).
    order : traitlet (tuple of str), read-only
        The competitors in current leaderboard order.
    busy : traitlet (bool)
        True while loading or sampling; the controls are frozen.
    vocabulary : traitlet (Vocabulary or None)
        The words of the view: what the competitors are and what each weight
        weighs. None (the default): the rules' own (criteria of methods,
        :meth:`Vocabulary.of_rules`); the predictions app passes
        ``vocabulary=Vocabulary.of_prediction_metrics(rescorer)`` (metrics of
        teams, no datasets).

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0,
    ...                      "r2_test": [0.9, 0.4, 0.5], "simplicity": [-1.0, -0.5, -2.0]})
    >>> from srdash.demo.examples import accuracy_and_simplicity_rules
    >>> view = SensitivityView(Rescorer.from_verdict(judge(runs, accuracy_and_simplicity_rules())), samples=200)
    >>> view.order
    ('a', 'b', 'c')
    >>> view.weights = (0.2, 1.0)
    >>> view.order
    ('b', 'a', 'c')
    >>> view.weights = (0.0, 0.0)
    >>> "At least one weight must be > 0" in view.log_panel.text()
    True
    """

    rescorer = traitlets.Instance(Rescorer, allow_none=True, help="The competition, judged once.")
    weights = traitlets.Tuple(help="Current weights, in rescorer.weight_names order.")
    swept = traitlets.Unicode("", help="The weight varied by the bump chart.")
    order = traitlets.Tuple(read_only=True, help="Competitors in current leaderboard order.")
    vocabulary = traitlets.Instance(Vocabulary, allow_none=True,
                                    help="What the competitors and the weights are called (None: the rules' words).")

    def __init__(self, rescorer: Rescorer | Callable[[], Rescorer] | None = None, *, samples: int = 2000,
                 seed: int = 0, source: str = "", served: bool = False,
                 log_panel: LogPanel | None = None, show_title: bool = True, stage=None, progress=None,
                 cache=False, **kwargs):
        self._syncing = False
        self._init_app(served=served, log_panel=log_panel)
        self._sliders: dict[str, widgets.FloatSlider] = {}
        self._bump: FigurePanel | None = None
        self._found_weights: Mapping[str, float] | None = None
        self._cache = cache
        self._showing = False   # a competition is being shown: the weights' observers leave it to the end
        self._report = (stage, progress)

        self.title = widgets.HTML("<h2 style='margin:4px 0'>Weight sensitivity</h2>",
                                  layout=widgets.Layout(display=None if show_title else "none"))
        self.status = widgets.HTML("<div class='srdash-note'>Loading the competition…</div>")
        self.explanation = widgets.HTML()
        self.sliders = widgets.VBox([])
        self.sliders.add_class("srdash-weight-sliders")
        self.shares = widgets.HTML()
        self.reset_button = widgets.Button(description="Official weights", icon="undo",
                                           tooltip="Put every slider back to the rules' weight")
        self.leaderboard = widgets.HTML(layout=widgets.Layout(max_height="520px", overflow="auto",
                                                              max_width="100%"))
        self.leaderboard.add_class("srdash-sensitivity-leaderboard-panel")
        self.bump_area = widgets.Box([], layout=widgets.Layout(flex="1 1 auto", min_width="300px", max_width="100%"))
        self.alternatives = widgets.HTML(layout=widgets.Layout(max_height="360px", overflow="auto", max_width="100%"))
        self.alternatives.add_class("srdash-alternatives-panel")
        for table in (self.leaderboard, self.alternatives):   # wider than a phone: an edge shadow says so
            table.add_class("srdash-scroll")
        self.samples_input = widgets.BoundedIntText(value=int(samples), min=10, max=200_000, step=1000,
                                                    description="Samples", style=_STYLE,
                                                    layout=widgets.Layout(width="200px"))
        self.seed_input = widgets.IntText(value=int(seed), description="Seed", style=_STYLE,
                                          layout=widgets.Layout(width="160px"))
        self.resample_button = widgets.Button(description="Resample", icon="refresh")
        self.summary = widgets.HTML()
        self.heatmap = FigurePanel()
        self.tau = FigurePanel()
        self.ternary = FigurePanel()
        self.target_picker = widgets.Dropdown(description="Make this win", style=_STYLE,
                                              layout=widgets.Layout(width="420px", max_width="100%"))
        # its label's width (a fixed 148 px read "Find we..." on a phone); the row wraps instead
        self.target_button = widgets.Button(description="Find weights", icon="search",
                                            layout=widgets.Layout(width="auto"))
        self.apply_button = widgets.Button(description="Apply these weights", icon="check", disabled=True,
                                          layout=widgets.Layout(width="auto"))
        self.target_result = widgets.HTML()
        self.target_result.add_class("srdash-target-result")
        self._controls = (self.reset_button, self.samples_input, self.seed_input, self.resample_button,
                          self.target_picker, self.target_button)

        self.reset_button.on_click(self._on_reset_click)
        self.resample_button.on_click(self._on_resample_click)
        self.target_button.on_click(self._on_target_click)
        self.apply_button.on_click(self._on_apply_click)

        source_line = f"<div style='color:#555'>Judging: {html_text(source)}</div>" if source else ""
        self._source_line = source_line
        super().__init__([
            widgets.HTML(f"<style>{stylesheet()}</style>"),
            self.title,
            self.page_ready,
            self.status,
            self.explanation,
            _section("Weights", self.sliders, widgets.HBox([self.reset_button, self.shares]),
                     note="Scaling every weight changes nothing; the shares are the weights normalised to sum 1."),
            _section("Leaderboard under these weights",
                     widgets.HBox([self.leaderboard, self.bump_area],
                                  layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start"))),
            _section("Does the verdict depend on who takes part?", self.alternatives,
                     note="Each competitor is removed in turn and the others judged again under the current "
                          "weights."),
            _section("All weights at once", widgets.HBox([self.samples_input, self.seed_input,
                                                          self.resample_button],
                                                         layout=widgets.Layout(flex_flow="row wrap")),
                     self.summary, self.heatmap, self.tau, self.ternary,
                     note="Weight vectors drawn uniformly from the simplex (every weight share equally likely)."),
            _section("Which weights would make a competitor win?",
                     widgets.HBox([self.target_picker, self.target_button, self.apply_button],
                                  layout=widgets.Layout(flex_flow="row wrap", grid_gap="4px")),
                     self.target_result),
            *([_section("Log", self.log_panel)] if self._own_log else []),
        ], **kwargs)
        self.add_class("srdash-sensitivity")

        if isinstance(rescorer, Rescorer):
            self.rescorer = rescorer
        elif callable(rescorer):
            self._start_background(self._load_in_background, rescorer, name="srdash-sensitivity-load")
        else:
            self.status.value = "<div class='srdash-note'>No competition to analyse.</div>"

    # ------------------------------------------------------------------ construction from the environment

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, **kwargs) -> "SensitivityView":
        """The view ``srdash serve --view sensitivity`` asks for: the competition in ``SRDASH_COMPETITION``.

        Without it, the built-in demo competition. Judging runs in the
        background; errors are reported in the view's log, never raised.

        Examples
        --------
        >>> import json
        >>> from srdash.judging.competition import competition_from_options
        >>> text = competition_from_options("nowhere.csv", rules="evalrs2022").to_json()
        >>> view = SensitivityView.from_environment({"SRDASH_COMPETITION": text}, served=False)
        >>> view.wait(30)
        True
        >>> "Error while loading the competition" in view.log_panel.text()
        True
        """
        env = os.environ if environ is None else environ
        text = env.get("SRDASH_COMPETITION", "").strip()
        if text:
            return cls.from_competition(competition_from_json(text), **kwargs)
        return cls.from_competition(load_competition(cached_demo()["competition"]), **kwargs)

    @classmethod
    def from_competition(cls, competition, *, samples: int = 2000, seed: int = 0, **kwargs) -> "SensitivityView":
        """The view of a competition: judged by the one pipeline in the background, so its official order is
        the competition's verdict (:func:`srdash.judging.pipeline.judge_competition`)."""
        kwargs.setdefault("served", True)
        view = cls(None, samples=samples, seed=seed, source=f"{competition.title} ({competition.source})", **kwargs)
        view._start_background(view._load_in_background, lambda: rescorer_of(judge_competition(competition)),
                         name="srdash-sensitivity-load")
        return view


    def _load_in_background(self, loader: Callable[[], Rescorer]) -> None:
        def failed() -> None:
            self.status.value = ("<div class='srdash-note' style='color:#b00'>The competition could not be "
                                 "loaded; see the log below.</div>")

        self._load(loader, done=lambda rescorer: setattr(self, "rescorer", rescorer), failed=failed,
                   context="loading the competition")

    # ------------------------------------------------------------------ building the view for a competition

    @traitlets.observe("rescorer")
    @logged("showing the competition")
    def _on_rescorer_change(self, change) -> None:
        rescorer: Rescorer | None = change["new"]
        if rescorer is None:
            return
        entity = rescorer.entity
        words = self._words()
        rules = rescorer.rules
        n = len(rescorer.methods)
        self.title.value = f"<h2 style='margin:4px 0'>Weight sensitivity: {html_text(rules.title or rules.name)}</h2>"
        notes = "".join(f"<div class='srdash-warning' style='color:#8a6d00'>⚠ {html_text(w)}</div>"
                        for w in rescorer.verdict.warnings)
        fingerprint = rescorer.verdict.provenance.get("verdict_fingerprint", "")
        stamp = (f"<div class='srdash-fingerprint'>Official verdict fingerprint: <code class='srdash-fingerprint-value'>"
                 f"{html_text(fingerprint[:12])}</code></div>") if fingerprint else ""
        self.status.value = (self._source_line + f"<div class='srdash-note'>{html_text(words.competitors(n))}, "
                             f"{html_text(words.weights(rescorer.n_weights))}. Places: 1 = best.</div>"
                             + stamp + notes)
        self.explanation.value = f"<div class='srdash-note'>{html_text(words.explanation)}</div>"
        top = _SLIDER_SPAN * float(rescorer.official_weights.max())
        sliders = {}
        # One label width for every slider: equal weights sit at the same place (and the track stays on a
        # narrow screen, the label above it rather than squeezing it).
        label_width = f"{max(len(label) for label in rescorer.weight_labels) + 2}ch"
        for name, label, value in zip(rescorer.weight_names, rescorer.weight_labels, rescorer.official_weights):
            slider = widgets.FloatSlider(value=float(value), min=0.0, max=top, step=_SLIDER_STEP,
                                         description=label, continuous_update=True, readout_format=".2f",
                                         style={"description_width": label_width},
                                         layout=widgets.Layout(width="100%", max_width="640px"))
            slider.add_class("srdash-weight-slider")
            slider.add_class(f"srdash-weight-{name}")
            slider.observe(functools.partial(self._on_slider_change, name), names="value")
            sliders[name] = slider
        self._sliders = sliders
        self.sliders.children = tuple(sliders.values())
        self.target_picker.options = list(rescorer.methods)
        # default: the official runner-up (the winner already wins)
        official_order = rescorer.leaderboard()[entity].tolist()
        self.target_picker.value = official_order[1] if n > 1 else official_order[0]
        self.target_result.value = ""
        self.apply_button.disabled = True

        first = rescorer.weight_names[int(np.argmax(rescorer.official_weights))]
        # A plain figure, redrawn whole when a slider moves (a few traces: a redraw is cheap). Not a
        # plotly FigureWidget: that is an anywidget shipping its own 4 MB copy of plotly.js, and an
        # anywidget not loaded within 2 s (a phone, a busy machine) drops every later update
        # (anywidget 0.11: its model's `ready` promise is rejected by a 2 s timer).
        self._bump = FigurePanel(layout=widgets.Layout(width="100%"))
        self._bump.add_class("srdash-bump")
        self.bump_area.children = (self._bump,)
        steps = 3 if rescorer.n_weights == 3 else 2
        # the leaderboard, bump chart and alternatives are computed once, below (not again by each observer)
        self._showing = True
        try:
            with self.hold_trait_notifications():
                self.swept = first
                self.weights = tuple(float(w) for w in rescorer.official_weights)
        finally:
            self._showing = False
        self._sync_sliders()
        self._say(f"the leaderboard under the official weights, and without each of the {words.competitors(n)}",
                  0, steps)
        self._refresh()
        self._say(f"{int(self.samples_input.value):,} weight vectors sampled", 1, steps)
        self._sample()
        if rescorer.n_weights == 3:
            self._say("the winner over the triangle of weights", 2, steps)
            self.ternary.show(ternary_winner_figure(ternary_winner_map(rescorer)))
        else:
            self.ternary.message(ternary_note(rescorer.n_weights, words))
        self._say("", steps, steps)

    def _say(self, text: str, done: int, total: int) -> None:
        """What the view computes now (``text``, when given) and how far it has got, to its ``stage`` and
        ``progress`` callbacks."""
        stage, progress = self._report
        if stage is not None and text:
            stage(text)
        if progress is not None:
            progress(done, total, {})

    def _words(self) -> Vocabulary:
        return self.vocabulary if self.vocabulary is not None else Vocabulary.of_rules(self.rescorer)

    @traitlets.observe("vocabulary")
    @logged("changing the words")
    def _on_vocabulary_change(self, change) -> None:
        if self.rescorer is not None:
            self._on_rescorer_change({"new": self.rescorer})

    # ------------------------------------------------------------------ live re-scoring

    def _on_slider_change(self, name: str, change) -> None:
        if self._syncing:
            return
        with self.hold_trait_notifications():
            self.swept = name
            self.weights = tuple(float(s.value) for s in self._sliders.values())

    @traitlets.validate("weights")
    def _validate_weights(self, proposal):
        return tuple(float(w) for w in proposal["value"])

    @traitlets.observe("weights")
    @logged("re-scoring with the new weights")
    def _on_weights_change(self, change) -> None:
        if self.rescorer is None or not self.weights or self._showing:
            return
        self._sync_sliders()
        self._refresh()

    @traitlets.observe("swept")
    @logged("drawing the bump chart")
    def _on_swept_change(self, change) -> None:
        if self.rescorer is None or not self.weights or self._showing:
            return
        self._update_bump(self.rescorer.weights_from(list(self.weights)))

    def _sync_sliders(self) -> None:
        """Show the weights on the sliders without feeding the change back."""
        self._syncing = True
        try:
            for slider, value in zip(self._sliders.values(), self.weights):
                if slider.value != value:
                    slider.value = value
        finally:
            self._syncing = False

    def _refresh(self) -> None:
        rescorer = self.rescorer
        weights = rescorer.weights_from(list(self.weights))  # raises a clear error for all zeros
        board = rescorer.leaderboard(weights)
        words = self._words()
        self.leaderboard.value = leaderboard_html(board, entity=rescorer.entity, competitor=words.competitor)
        self.set_trait("order", tuple(board[rescorer.entity]))
        shares = weights / weights.sum()
        self.shares.value = ("<span class='srdash-note' style='color:#555'>shares: " + ", ".join(
            f"{html_text(label)} {share:.0%}" for label, share in zip(rescorer.weight_labels, shares)) + "</span>")
        self._update_bump(weights)
        self.alternatives.value = self._alternatives_html(weights, words)

    def _alternatives_html(self, weights: np.ndarray, words: Vocabulary) -> str:
        """The competition judged without each competitor in turn, under ``weights``: the official weights'
        table is the same for every visitor of a served competition, computed once (:mod:`srdash.apps.shared`)."""
        rescorer = self.rescorer

        def compute() -> dict:
            return {"html": alternatives_html(irrelevant_alternatives(rescorer, weights=weights),
                                              entity=words.competitor)}

        if self._cache is False or rescorer.runs is None or not np.array_equal(weights, rescorer.official_weights):
            return compute()["html"]
        return shared_view("weight sensitivity: without each competitor", rescorer.runs, rescorer.verdict.rules,
                           compute, settings={"competitor": words.competitor}, cache=self._cache)["html"]

    def _update_bump(self, weights: np.ndarray) -> None:
        if self._bump is None:
            return
        name = self.swept or self.rescorer.weight_names[0]
        top = float(self._sliders[name].max) if name in self._sliders else None
        sweep = weight_sweep(self.rescorer, name, weights=weights, points=_SWEEP_POINTS, maximum=top)
        self._bump.show(bump_chart(sweep))

    @logged("resetting the weights")
    def _on_reset_click(self, _button) -> None:
        if self.rescorer is not None:
            self.weights = tuple(float(w) for w in self.rescorer.official_weights)

    # ------------------------------------------------------------------ global analysis

    @traitlets.observe("busy")
    def _on_busy_change(self, change) -> None:
        for control in (*self._controls, *self._sliders.values()):
            control.disabled = change["new"]

    @contextlib.contextmanager
    def _frozen(self):
        self.busy = True
        try:
            yield
        finally:
            self.busy = False

    @logged("sampling weights")
    def _on_resample_click(self, _button) -> None:
        self._sample()

    def _sample(self) -> None:
        rescorer = self.rescorer
        if rescorer is None:
            return
        with self._frozen():
            result = place_probabilities(rescorer, samples=int(self.samples_input.value),
                                         seed=int(self.seed_input.value))
            table = result.table
            official_winners = table[table["official_place"] == 1][rescorer.entity].tolist()
            p_official = float(table[table["official_place"] == 1]["p_win"].max())
            tau = result.kendall_tau[np.isfinite(result.kendall_tau)]
            favourite = table.sort_values("p_win", ascending=False, kind="stable").iloc[0]
            self.summary.value = (
                "<div class='srdash-sampling-summary'>"
                f"Over {result.samples:,} weight vectors: the official winner "
                f"{html_text(' = '.join(map(str, official_winners)))} is first in {p_official:.0%} of them; "
                f"most often first: {html_text(str(favourite[rescorer.entity]))} ({favourite['p_win']:.0%}). "
                f"Kendall τ to the official ranking: mean {tau.mean() if len(tau) else float('nan'):.3f}.</div>")
            self.heatmap.show(place_probability_heatmap(result, competitor=self._words().competitor))
            self.tau.show(kendall_tau_histogram(result))

    # ------------------------------------------------------------------ targeted search

    @logged("searching for winning weights")
    def _on_target_click(self, _button) -> None:
        rescorer = self.rescorer
        if rescorer is None or self.target_picker.value is None:
            return
        with self._frozen():
            answer = find_winning_weights(rescorer, self.target_picker.value)
        self._found_weights = answer.weights
        self.apply_button.disabled = answer.weights is None
        self.target_result.value = winning_weights_html(
            answer, labels=dict(zip(rescorer.weight_names, rescorer.weight_labels)))

    @logged("applying the weights found")
    def _on_apply_click(self, _button) -> None:
        if self._found_weights is None or self.rescorer is None:
            return
        found = np.array([self._found_weights[name] for name in self.rescorer.weight_names])
        # same shares, scaled so that the largest weight equals the largest official one (within the sliders)
        self.weights = tuple(found * float(self.rescorer.official_weights.max()) / found.max())
