"""The predictions app: preliminary and final leaderboards, the shake-up slope chart, rejected submissions.

Reading and scoring the submission files (possibly hundreds of files of
100,000 lines) runs once, in a background thread, with a progress bar, so that
the page shows at once. Choosing another metric only re-ranks the already
scored submissions (:meth:`PredictionResult.ranked_by`) and redraws two tables,
the shake-up table and the slope chart (a ``go.Figure`` in an output area:
plotly.js loads once). Every team name, submission name and reason is
HTML-escaped (:mod:`srdash.figures.predictions`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import tempfile
from typing import Callable, Mapping

import ipywidgets as widgets
import traitlets

from srdash.analysis.sensitivity import rescorer_of
from srdash.demo.predictions import write_demo_predictions
from srdash.apps.sensitivity import SensitivityView
from srdash.figures.assets import stylesheet
from srdash.figures.escape import html_text
from srdash.errors import SrdashError
from srdash.figures.predictions import (NUMBERS_NOTE, leaderboard_table_html, notes_html, rejected_table_html,
                                       shakeup_table_html)
from srdash.figures.sensitivity import Vocabulary
from srdash.io.predictions import SUBSETS
from srdash.judging.predictions import PredictionResult, score_from_options
from srdash.figures.predictions import shakeup_figure
from srdash.apps.panels import BackgroundApp, FigurePanel, logged

__all__ = ["PredictionsDashboard", "COMBINED"]

#: Value of :attr:`PredictionsDashboard.ranking` for the combined (several-metric) leaderboards.
COMBINED = "combined"
_SENSITIVITY_SAMPLES = 1000


def _section(title: str, *children: widgets.Widget, note: str = "", css_class: str = "") -> widgets.VBox:
    header = f"<h3 style='margin:14px 0 4px 0'>{html_text(title)}</h3>"
    if note:
        header += f"<div class='srdash-note' style='color:#555;font-size:12px'>{html_text(note)}</div>"
    box = widgets.VBox([widgets.HTML(header), *children])
    if css_class:
        box.add_class(css_class)
    return box


def _demo_result(progress: Callable[[int, int], None] | None = None) -> PredictionResult:
    """Score the built-in demo prediction competition (written to a temporary folder, removed after)."""
    with tempfile.TemporaryDirectory(prefix="srdash-predictions-demo-") as folder:
        return score_from_options(write_demo_predictions(folder), progress=progress)


class PredictionsDashboard(BackgroundApp):
    """A prediction-file competition: leaderboards on both subsets, the shake-up and what was rejected.

    Parameters
    ----------
    result : PredictionResult or callable, optional
        The scored competition, or a callable ``loader(progress=...)``
        returning one (e.g. ``functools.partial(score_from_options, options)``),
        run in a background thread with a progress bar.
    source : str, keyword-only
        What is being judged, shown under the title.
    served : bool, keyword-only
        The scores are shown once a browser has displayed the page (see
        :class:`~srdash.apps.panels.PageReady`); False (default, a notebook):
        at once; ``from_environment`` (served pages) sets it.

    Attributes
    ----------
    result : traitlet (PredictionResult or None)
        The competition; setting it redraws the app.
    ranking : traitlet (str)
        What ranks the leaderboards: a scored metric's short name (``'rmse'``)
        or ``'combined'`` (several metrics, the combined leaderboards; the
        default then). The metric selector is linked to it.
    busy : traitlet (bool)
        True while scoring; the controls are frozen.
    preliminary_order, final_order : traitlet (tuple of str), read-only
        The teams in the shown leaderboards' order.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.predictions import Targets, score_submissions
    >>> targets = Targets.from_arrays([0.0] * 4, ["preliminary"] * 2 + ["final"] * 2)
    >>> listing = pd.DataFrame({"team": ["a", "b", "c"], "file": ["a", "b", "c"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"a": [0, 3, 0, 3], "b": [2, 2, 2, 2], "c": [1, 2.5, 1, 2.5]})
    >>> app = PredictionsDashboard(result)
    >>> app.ranking, app.final_order
    ('combined', ('c', 'a', 'b'))
    >>> app.ranking = "mae"
    >>> app.final_order
    ('a', 'c', 'b')
    >>> app.ranking = "r2"
    >>> "The metric 'r2' was not scored" in app.log_panel.text()
    True
    """

    result = traitlets.Instance(PredictionResult, allow_none=True, help="The scored competition.")
    ranking = traitlets.Unicode("", help="A scored metric's short name, or 'combined'.")
    preliminary_order = traitlets.Tuple(read_only=True, help="Teams in the preliminary leaderboard's order.")
    final_order = traitlets.Tuple(read_only=True, help="Teams in the final leaderboard's order.")

    def __init__(self, result: PredictionResult | Callable[..., PredictionResult] | None = None, *,
                 source: str = "", served: bool = False, **kwargs):
        self._init_app(served=served)
        self._syncing = False
        self._source_line = (f"<div class='srdash-pred-source' style='color:#555'>Judging: {html_text(source)}"
                             "</div>") if source else ""

        self.title = widgets.HTML("<h2 style='margin:4px 0'>Prediction competition</h2>")
        self.status = widgets.HTML(self._source_line)
        self.status.add_class("srdash-pred-status")
        self.progress_bar = widgets.IntProgress(value=0, min=0, max=1, bar_style="info",
                                                layout=widgets.Layout(width="260px"))
        self.progress_label = widgets.HTML("")
        self.progress = widgets.HBox([self.progress_bar, self.progress_label],
                                     layout=widgets.Layout(align_items="center"))
        self.progress.add_class("srdash-progress")
        self.selector = widgets.ToggleButtons(options=[], description="Rank by",
                                              style={"description_width": "initial"},
                                              layout=widgets.Layout(display="none"))
        self.selector.add_class("srdash-pred-ranking")
        self.explanation = widgets.HTML()
        # wider than a phone: they scroll inside their box, a shadow at the edge that has more (srdash.css)
        self.preliminary_table = widgets.HTML(layout=widgets.Layout(min_width="0", max_width="100%", overflow="auto"))
        self.final_table = widgets.HTML(layout=widgets.Layout(min_width="0", max_width="100%", overflow="auto"))
        self.preliminary_table.add_class("srdash-pred-preliminary-panel")
        self.final_table.add_class("srdash-pred-final-panel")
        self.chart = FigurePanel(layout=widgets.Layout(width="100%"))
        self.chart.add_class("srdash-pred-chart")
        # 420 px wide when there is room, the window's width on a phone
        self.chart_area = widgets.Box([self.chart], layout=widgets.Layout(flex="1 1 420px", min_width="0"))
        self.shakeup_table = widgets.HTML(layout=widgets.Layout(min_width="0", max_width="100%", overflow="auto"))
        for table in (self.preliminary_table, self.final_table, self.shakeup_table):
            table.add_class("srdash-scroll")
        self.rejected = widgets.HTML()
        self.rejected.add_class("srdash-pred-rejected-panel")
        self.warnings = widgets.HTML()
        self.warnings.add_class("srdash-pred-warnings")
        self.sensitivity_button = widgets.Button(description="Analyse the metric weights", icon="balance-scale",
                                                 layout=widgets.Layout(width="auto"),
                                                 tooltip="How the combined final verdict moves with the weights")
        self.sensitivity_area = widgets.VBox([])
        self.sensitivity_section = _section(
            "Weight sensitivity of the combined final leaderboard", self.sensitivity_button, self.sensitivity_area,
            note="The metrics' weights in the combination, moved one at a time and sampled from the simplex.",
            css_class="srdash-pred-sensitivity")
        self.sensitivity_section.layout.display = "none"

        self.selector.observe(self._on_selector_change, names="value")
        self.sensitivity_button.on_click(self._on_sensitivity_click)

        super().__init__([
            widgets.HTML(f"<style>{stylesheet()}</style>"),
            self.title,
            self.status,
            self.progress,
            self.page_ready,
            self.selector,
            self.explanation,
            _section("Leaderboards", widgets.HBox([self.preliminary_table, self.final_table],
                                                  layout=widgets.Layout(flex_flow="row wrap",
                                                                        align_items="flex-start",
                                                                        grid_gap="24px")),
                     note="Place 1 = best; equal scores share the smallest place. The preliminary leaderboard "
                          "was shown during the competition; the final one decides it. " + NUMBERS_NOTE),
            _section("Shake-up", widgets.HBox([self.chart_area, self.shakeup_table],
                                              layout=widgets.Layout(flex_flow="row wrap",
                                                                    align_items="flex-start")),
                     note="Each team's preliminary place → final place. Change = preliminary minus final place "
                          "(positive = moved up)."),
            _section("Rejected submissions", self.rejected,
                     note="A rejected submission does not count; the team's other submissions still do. Rows "
                          "are lines of the submitted file (data rows for CSV files)."),
            self.warnings,
            self.sensitivity_section,
            _section("Log", self.log_panel),
        ], **kwargs)
        self.add_class("srdash-predictions")

        if isinstance(result, PredictionResult):
            self.result = result
        elif callable(result):
            self.load(result)
        else:
            self.progress.layout.display = "none"

    # ------------------------------------------------------------------ construction from the environment

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, **kwargs) -> "PredictionsDashboard":
        """The app a notebook asks for through ``SRDASH_PREDICTIONS``.

        ``SRDASH_PREDICTIONS`` holds the JSON options of
        :func:`srdash.judging.predictions.score_from_options` (written by
        ``srdash predictions serve``). Without it the app opens the built-in
        demo prediction competition (:mod:`srdash.demo.predictions`). Scoring
        runs in the background; bad options are reported in the app's log,
        never raised.

        Examples
        --------
        >>> app = PredictionsDashboard.from_environment({"SRDASH_PREDICTIONS": "[1, 2]"}, served=False)
        >>> app.wait(30)
        True
        >>> print(app.log_panel.text().strip())
        Error while reading SRDASH_PREDICTIONS: SRDASH_PREDICTIONS must be a JSON object of prediction options (srdash predictions serve writes it). Got '[1, 2]'.
        """
        env = os.environ if environ is None else environ
        kwargs.setdefault("served", True)
        raw = env.get("SRDASH_PREDICTIONS", "").strip()
        if not raw:
            app = cls(None, source="the built-in demo prediction competition", **kwargs)
            app.load(_demo_result)
            return app
        try:
            options = json.loads(raw)
            if not isinstance(options, dict):
                raise ValueError
        except ValueError:
            shown = raw if len(raw) <= 80 else raw[:77] + "..."
            app = cls(None, **kwargs)
            app.log_panel.report(SrdashError(f"SRDASH_PREDICTIONS must be a JSON object of prediction options "
                                             f"(srdash predictions serve writes it). Got {shown!r}."),
                                 context="reading SRDASH_PREDICTIONS")
            return app
        app = cls(None, source=str(options.get("submissions", "")), **kwargs)
        app.load(functools.partial(score_from_options, options))
        return app

    def load(self, loader: Callable[..., PredictionResult]) -> None:
        """Score in a background thread: ``loader(progress=callback)`` returns the result."""
        self.progress.layout.display = None
        self._show_progress(0, 0)
        self._start_background(self._load_in_background, loader, name="srdash-predictions-load")


    def _show_progress(self, done: int, total: int) -> None:
        self.progress_bar.max = max(int(total), 1)
        self.progress_bar.value = int(done)
        self.progress_label.value = (f"Reading and scoring submissions: {int(done)} / {int(total)}" if total
                                     else "Reading the targets and the submissions…")

    def _load_in_background(self, loader: Callable[..., PredictionResult]) -> None:
        def done(result: PredictionResult) -> None:
            self.progress_bar.bar_style = "success"
            self.progress_bar.value = self.progress_bar.max
            n = len(result.submissions)
            self.progress_label.value = f"Scored {n} submission{'s' if n != 1 else ''}."
            self.result = result

        def failed() -> None:
            self.progress_bar.bar_style = "danger"
            self.progress_label.value = ("<span style='color:#b00'>The competition could not be scored; see the "
                                         "log below.</span>")

        self._load(lambda: loader(progress=self._show_progress), done=done, failed=failed,
                   context="scoring the submissions")

    # ------------------------------------------------------------------ drawing

    @traitlets.observe("result")
    @logged("showing the competition")
    def _on_result_change(self, change) -> None:
        result: PredictionResult | None = change["new"]
        if result is None:
            return
        n_submissions = len(result.submissions)
        n_rejected = len(result.rejected)
        metrics = ", ".join(f"{m.label} ({m.direction} is better)" for m in result.metrics)
        self.status.value = (self._source_line + "<div class='srdash-note'>"
                             f"{len(result.teams)} teams, {n_submissions} submissions ({n_rejected} rejected). "
                             f"Metrics: {html_text(metrics)}. Counted submission per team: rule "
                             f"'{html_text(result.rule)}'"
                             + (f" by {html_text(result.metrics[0].label)}" if result.rule != "last" else "")
                             + ".</div>"
                             "<div class='srdash-fingerprint'>Verdict fingerprint: <code class='srdash-fingerprint-"
                             f"value'>{html_text(result.fingerprint[:12])}</code> (the same in <code>srdash "
                             "predictions score</code> and the report for the same verdict)</div>")
        self.rejected.value = rejected_table_html(result.rejected)
        notes = list(result.warnings)
        if result.combined is not None:
            for verdict in result.combined.verdicts.values():
                notes += [w for w in verdict.warnings if w not in notes]
        self.warnings.value = notes_html(notes)
        options = [(m.label, m.short_name) for m in result.metrics]
        if result.combined is not None:
            options.insert(0, ("Combined", COMBINED))
        wanted = self.ranking if self.ranking in dict(options).values() else options[0][1]
        self._syncing = True  # new options reset the selector's value: not a choice of the user
        try:
            self.selector.options = options
        finally:
            self._syncing = False
        self.selector.layout.display = None if len(options) > 1 else "none"
        self.sensitivity_section.layout.display = None if result.combined is not None else "none"
        self.sensitivity_area.children = ()
        if wanted == self.ranking:
            self._draw()
        else:
            self.ranking = wanted

    def _on_selector_change(self, change) -> None:
        if not self._syncing and change["new"] is not None and change["new"] != self.ranking:
            self.ranking = change["new"]

    @traitlets.observe("ranking")
    @logged("ranking the leaderboards")
    def _on_ranking_change(self, change) -> None:
        if self.result is None:
            return
        self._draw()

    def _draw(self) -> None:
        result = self.result
        ranking = self.ranking or result.metric.short_name
        if ranking == COMBINED:
            if result.combined is None:
                raise SrdashError("There is no combined leaderboard: only one metric was scored.")
            shown = result.combined
            explanation = f"Combined leaderboards: {shown.description}. Ranks: higher is better."
            captions = {s: f"{s.capitalize()} leaderboard (combined; score higher is better)" for s in SUBSETS}
        else:
            shown = result.ranked_by(ranking)
            metric = shown.metric
            explanation = f"Ranked by {metric.label} ({metric.direction} is better)."
            captions = {s: f"{s.capitalize()} leaderboard ({metric.label}, {metric.direction} is better)"
                        for s in SUBSETS}
        if self.selector.value != ranking:
            self.selector.value = ranking
        self.explanation.value = f"<div class='srdash-note srdash-pred-explanation'>{html_text(explanation)}</div>"
        self.preliminary_table.value = leaderboard_table_html(shown.preliminary_leaderboard, subset="preliminary",
                                                              caption=captions["preliminary"])
        self.final_table.value = leaderboard_table_html(shown.final_leaderboard, subset="final",
                                                        caption=captions["final"])
        self.shakeup_table.value = shakeup_table_html(shown.shakeup)
        self.chart.show(shakeup_figure(shown))
        self.set_trait("preliminary_order", tuple(shown.preliminary_leaderboard["team"]))
        self.set_trait("final_order", tuple(shown.final_leaderboard["team"]))

    # ------------------------------------------------------------------ weight sensitivity

    @traitlets.observe("busy")
    def _on_busy_change(self, change) -> None:
        self.selector.disabled = change["new"]
        self.sensitivity_button.disabled = change["new"]

    @contextlib.contextmanager
    def _frozen(self):
        self.busy = True
        try:
            yield
        finally:
            self.busy = False

    @logged("analysing the metric weights")
    def _on_sensitivity_click(self, _button) -> None:
        if self.result is None or self.result.combined is None:
            return
        with self._frozen():
            rescorer = rescorer_of(self.result.combined, subset="final")
            # teams and metrics, not methods and datasets
            view = SensitivityView(rescorer, samples=_SENSITIVITY_SAMPLES, source="the combined final leaderboard",
                                   vocabulary=Vocabulary.of_prediction_metrics(rescorer), log_panel=self.log_panel,
                                   show_title=False)
        self.sensitivity_area.children = (view,)
