"""The judging dashboard: one ipywidgets box over one competition.

The dashboard takes a :class:`~srdash.judging.competition.Competition` and nothing else: a caller
with plain options builds one with :func:`~srdash.judging.competition.competition_from_options`,
as ``srdash score`` does. The expensive step, :func:`srdash.judging.pipeline.prepare_competition`
(loading, the qualification stage, measuring what the rules declare, evaluating the models on the
datasets' files, scoring the properties), runs once, in a background thread with a progress bar, or
not at all when the competition's snapshot is in the cache. Changing the rules, the run aggregation
or the tie rule re-judges the prepared competition with
:func:`srdash.judging.pipeline.judge_prepared` (milliseconds), so the verdict and its fingerprint
are ``srdash score``'s under the options shown. A verdict judged before from the same snapshot is read back
instead (:func:`srdash.judging.kept_verdict.kept_judgement`; ``srdash serve`` keeps it, with the page's first
panels and figures, for every visitor: :func:`srdash.apps.board_view.keep_first_page`).
"""

from __future__ import annotations

import collections
import contextlib
import html
import os
import re
import threading
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Mapping

import ipywidgets as widgets
import pandas as pd
import traitlets

from srdash.demo.competition import cached_demo
from srdash.apps.properties import PropertyView, QualificationView
from srdash.figures.escape import html_text
from srdash.errors import SrdashError
from srdash.figures.assets import stylesheet
from srdash.apps.board_view import (failure_view_switch, leaderboard_panel_html, rank_heatmap_figure,
                                    significance_panel_html, simplicity_curve_figure)
from srdash.figures.leaderboard import problems_html, scoring_html, warnings_html
from srdash.judging import snapshot
from srdash.judging.competition import Competition, competition_from_json, load_competition
from srdash.judging.kept_verdict import kept_judgement
from srdash.judging.pipeline import prepare_competition, prepared_from_snapshot
from srdash.judging.ranking import Verdict
from srdash.judging.representative import representative_choice
from srdash.judging.rules import RANK_METHODS, RUN_AGGREGATIONS, Rules, load_rules
from srdash.apps.panels import (BackgroundApp, FigurePanel, ProgressPanel,
                                   logged)
from srdash.apps.more_views import (CERTIFICATE_VIEW_TITLE, COMPARISON_VIEW_TITLE, LINEAGE_VIEW_TITLE,  # noqa: F401
                                    PROPERTY_VIEW_TITLE, QUALIFICATION_VIEW_TITLE, RESOURCES_VIEW_TITLE,
                                    more_views, refresh_view)
from srdash.apps.view_panels import ViewPanels
from srdash.apps.view_progress import ViewProgress
from srdash.apps.verdict_text import (RANK_METHOD_LABELS, options_note_html, provenance_html,  # noqa: F401
                                      significance_html, view_failed_html)
from srdash.apps.rules_choice import (measures_key, missing_columns, preset_options, refusal_html, rules_set_note_html,
                                      run_presets)

__all__ = ["Dashboard"]

_AGGREGATION_TOOLTIPS = {
    "median": "median of each method's runs on a dataset (published rules)",
    "mean": "mean of each method's runs on a dataset",
    "rank-mean": "rank the methods within each run, then average the ranks",
}
_CONTROL_STYLE = {"description_width": "initial"}
_TOGGLE_STYLE = {"description_width": "initial", "button_width": "auto"}
_TAGS = re.compile(r"<[^>]*>")
_OPEN_TO_COMPUTE = "<div class='srdash-note'>Open to compute.</div>"   # each panel of "More views" until opened


def _labelled(text: str, control: widgets.Widget) -> widgets.HBox:
    """A control with its label on the same line (a ToggleButtons' own description wraps)."""
    # flex "0 0 auto": the label keeps its whole text on a narrow (phone) screen; the row wraps instead
    label = widgets.Label(text, layout=widgets.Layout(margin="0 8px 0 0", flex="0 0 auto", width="auto"))
    return widgets.HBox([label, control], layout=widgets.Layout(align_items="center", margin="0 24px 0 0",
                                                                flex_flow="row wrap", max_width="100%"))


def _section(title: str, *children: widgets.Widget, note: str = "") -> widgets.VBox:
    header = f"<h3 style='margin:14px 0 4px 0'>{html_text(title)}</h3>"
    if note:
        header += (f"<div class='srdash-note' style='color:#555;font-size:12px;line-height:1.4'>"
                   f"{html_text(note)}</div>")
    return widgets.VBox([widgets.HTML(header), *children])


#: Seconds a served dashboard waits for another process (``srdash serve``) that is preparing its
#: competition, to show it at once from the snapshot rather than prepare it in the background.
SERVED_SNAPSHOT_WAIT = 15.0


class Dashboard(BackgroundApp):
    """Leaderboard, per-dataset ranks, simplicity curve and problems of a competition.

    Parameters
    ----------
    competition : Competition
        What is judged: results, rules, descriptions, qualification stage, real-world track and
        simplification settings (:func:`srdash.judging.competition.load_competition`, or
        :func:`~srdash.judging.competition.competition_from_options` for plain options).
    source : str
        What is being judged, shown under the title (default: the competition's source).
    start : bool
        Start preparing the competition at once (else call :meth:`start`).
    served : bool
        See :class:`~srdash.apps.panels.BackgroundApp` (False, the default: a notebook, at once).
    snapshot_wait : float
        A competition whose preparation is in the cache is shown at once (see
        :meth:`start`). When another process is preparing it right now (``srdash
        serve`` does, while Voilà starts), wait up to this many seconds for it
        first (0, the default: do not wait; served pages wait
        :data:`SERVED_SNAPSHOT_WAIT`).

    Attributes
    ----------
    rules_name, run_aggregation, rank_method, heatmap_criterion : traitlets
        The state the controls are linked to; set them from Python to drive the
        dashboard.
    runs : traitlet (DataFrame or None)
        The prepared per-run table, cached: every re-judging starts from it.
    verdict : traitlet (Verdict or None), read-only
        The current verdict.
    busy : traitlet (bool)
        True while the background preparation runs; the controls are frozen.
    competition : Competition
        The competition as given (the controls judge it under other rules and options).
    result : CompetitionResult or None
        The current verdict with its fingerprint, as ``srdash score`` gives it under the options shown.
    timings : dict
        Seconds spent preparing and judging.
    property_scores : PropertyScores or None
        The track's property scores (with dataset descriptions), once prepared.
    qualification : Qualification or None
        The qualification stage's outcome, once prepared.
    qualification_notes : tuple of str
        Who was excluded (or flagged) after the qualification, and why.

    Examples
    --------
    >>> import tempfile
    >>> from srdash.judging.competition import competition_from_options
    >>> folder = Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"],
    ...               "r2_test": [0.9, 0.8, 0.5, 0.7], "components": [3, 9, 5, 30],
    ...               "property": 1.0}).to_csv(folder / "results.csv", index=False)
    >>> app = Dashboard(competition_from_options(folder / "results.csv", jobs=1, cache=False))
    >>> app.wait(120)
    True
    >>> app.verdict.winner
    'a'
    >>> app.rank_method = "min"
    >>> app.verdict.rules.rank_method
    'min'
    """

    rules_name = traitlets.Unicode("", help="Rules preset name or rules file path.")
    run_aggregation = traitlets.Enum(RUN_AGGREGATIONS, default_value="median", help="How runs are combined.")
    rank_method = traitlets.Enum(RANK_METHODS, default_value="average", help="How ties are ranked.")
    heatmap_criterion = traitlets.Unicode("", help="Criterion whose ranks the heatmap shows ('' = dataset score).")
    runs = traitlets.Instance(pd.DataFrame, allow_none=True, help="The prepared per-run table (cached).")
    verdict = traitlets.Instance(Verdict, allow_none=True, read_only=True, help="The current verdict.")
    refusal = traitlets.Unicode("", read_only=True,
                                help="Why no verdict is shown ('' while one is): the text where the leaderboard was.")

    def __init__(
        self,
        competition: Competition,
        *,
        source: str = "",
        start: bool = True,
        served: bool = False,
        snapshot_wait: float = 0.0,
        **kwargs,
    ):
        if not isinstance(competition, Competition):
            raise TypeError(f"The 'competition' argument must be a Competition (load_competition, or "
                            f"competition_from_options for plain options). Got {type(competition).__name__}.")
        self._competition = competition
        self._prepared = None              # PreparedCompetition, when built from a competition
        self._prepared_by_measures: dict[tuple, object] = {}   # measures_key(rules) -> PreparedCompetition
        self._generation = 0               # counts verdicts shown and withdrawn: a late figure of an old one is dropped
        self._adopting_rules = False       # the controls are being set to the chosen rules' options
        self._replacing_runs = False       # self.runs follows the prepared competition of other rules
        self._relabelling = False          # the Rules dropdown's labels change, not the choice
        self._withdrawn = False            # the page says why there is no verdict (_withdraw_verdict)
        self.result = None                 # CompetitionResult of the current options (competition only)
        rules = competition.rules
        source = source or competition.source
        trust_store = None if competition.realworld is None else str(competition.realworld.store)
        self._realworld = trust_store is not None
        self.property_scores = None
        self.qualification = None
        self.qualification_notes: tuple[str, ...] = ()
        self._rules: Rules | None = None
        self._deferred = 0          # > 0 inside _one_rejudge(): re-judge once at the end
        self._stale = False
        self._replacing_criteria = False
        self._judging = threading.RLock()  # the background thread and callbacks both judge
        self._init_app(served=served)
        self._snapshot_wait = float(snapshot_wait)
        self._constructed = time.monotonic()
        self.timings: dict[str, float] = {}

        self.progress = ProgressPanel()
        self.title = widgets.HTML()
        self.options_note = widgets.HTML()
        self.options_note.add_class("srdash-options-note")
        self.warnings = widgets.HTML()
        # "How is this scored?": the rules' description and the criteria with data, closed, under the leaderboard
        self.scoring = widgets.HTML()
        self.scoring.add_class("srdash-scoring-panel")
        self.leaderboard = widgets.HTML("<div class='srdash-note'>Waiting for the results…</div>")
        self.leaderboard.add_class("srdash-leaderboard-panel")
        self._failure_view = failure_view_switch()   # the leaderboard as the rules count failures, or as delivered
        self._failure_view.observe(self._on_failure_view_change, names="value")
        self.problems = widgets.HTML("<div class='srdash-note'>Waiting for the results…</div>",
                                     layout=widgets.Layout(max_height="600px", overflow="auto"))
        self.problems.add_class("srdash-problems-panel")
        # served, the two figures below the leaderboard are drawn once the visitor scrolls near them: a phone's
        # first screen is the leaderboard, and plotly's first figure costs the browser about a second
        served = bool(self._work.served)
        self.heatmap = FigurePanel(when_near=served)
        self.heatmap.add_class("srdash-heatmap-panel")   # larger cells on a phone, scrolling sideways (srdash.css)
        self.curve = FigurePanel(when_near=served)
        self.heatmap.message("The per-dataset ranks appear when the models have been simplified.")
        self.curve.message("The simplicity curve appears when the models have been simplified.")

        self.significance = widgets.HTML()
        self.significance.add_class("srdash-significance")
        self.provenance = widgets.HTML()
        self.provenance.add_class("srdash-provenance")
        # Further views (sensitivity, uncertainty, audit, real-world track): built
        # when first opened, refreshed when the verdict changes.
        track_views = []
        if competition.descriptions is not None:
            track_views.append((PROPERTY_VIEW_TITLE, self._build_property_view))
        if competition.qualification is not None:
            track_views.append((QUALIFICATION_VIEW_TITLE, self._build_qualification_view))
        self._view_builders = {title: build for title, build in track_views + more_views(trust_store, self)}
        self._views: dict[str, widgets.Widget] = {}
        self.more = ViewPanels(self._view_builders, note_html=_OPEN_TO_COMPUTE)
        self.more.observe(self._on_more_selected, names="selected_index")

        self._rules_picker = widgets.Dropdown(description="Rules", style=_CONTROL_STYLE,
                                              layout=widgets.Layout(width="auto"))
        self._aggregation_picker = widgets.ToggleButtons(
            options=list(RUN_AGGREGATIONS), style=_TOGGLE_STYLE,
            tooltips=[_AGGREGATION_TOOLTIPS.get(a, a) for a in RUN_AGGREGATIONS])
        self._rank_method_picker = widgets.Dropdown(
            options=[(RANK_METHOD_LABELS.get(m, m), m) for m in RANK_METHODS], description="Ties",
            style=_CONTROL_STYLE, layout=widgets.Layout(width="auto"))
        self._criterion_picker = widgets.ToggleButtons(options=[("dataset score", "")], style=_TOGGLE_STYLE)
        self._rules_picker.add_class("srdash-rules")
        self._aggregation_picker.add_class("srdash-aggregation")
        self._rank_method_picker.add_class("srdash-rank-method")
        self._criterion_picker.add_class("srdash-heatmap-criterion")
        # beside the controls: what choosing the rules set (a preset fixes "Ties", say, and says so here)
        self.controls_note = widgets.HTML(layout=widgets.Layout(margin="2px 0"))
        self._criterion_row = _labelled("Show", self._criterion_picker)   # hidden while there is no verdict
        self.controls_note.add_class("srdash-controls-note")
        self._controls = (self._rules_picker, self._aggregation_picker, self._rank_method_picker, self._failure_view)
        for control in self._controls:
            control.layout.width = "auto"
            control.layout.margin = "2px 24px 2px 0"
        self._rules_picker.layout.max_width = "100%"   # a long label must not push it past a phone's screen

        self._presets = run_presets()
        # a rules file is offered by its path (the dropdown loads it again from there), a preset by its name
        reference = rules.source if rules.source and not rules.source.startswith("preset:") else rules.name
        self._rules_file = None if reference in self._presets else (Path(reference).name, reference)
        self._offer_rules(None)
        self._rules_picker.value = reference
        self._rules = rules

        source_line = (f"<div class='srdash-source' title='{html_text(source)}'>Judging: {html_text(source)}</div>"
                       if source else "")
        self._source_line = source_line
        super().__init__(
            [
                widgets.HTML(f"<style>{stylesheet()}</style>"),
                # The first screen (a phone's too): the title, the leaderboard and its fingerprint; then what
                # excluded whom, how it is scored, and the controls to judge it otherwise.
                self.title,
                self.progress,
                self.page_ready,
                _section("Leaderboard", self.leaderboard, self.provenance, self._failure_view),
                self.options_note,
                self.warnings,
                self.scoring,
                widgets.HBox([self._rules_picker, _labelled("Runs combined by", self._aggregation_picker),
                              self._rank_method_picker, self.controls_note],
                             layout=widgets.Layout(flex_flow="row wrap", align_items="center")),
                self.significance,
                _section("Per-dataset ranks", self._criterion_row, self.heatmap,
                         note="Hover a cell for the raw values and ranks of every criterion; grey = DNF."),
                _section("Simplicity", self.curve),
                _section("Problems", self.problems,
                         note="Rejected models, parse errors, timeouts, missing values and DNF cells. "
                              "Model strings are shown as text, never run."),
                _section("More views", self.more,
                         note="Each view is computed when you open it, from the same prepared runs."),
                _section("Log", self.log_panel),
            ],
            **kwargs,
        )
        self.add_class("srdash-dashboard")

        # Linking sets the traits from the controls, which loads the rules.
        widgets.link((self._aggregation_picker, "value"), (self, "run_aggregation"))
        widgets.link((self._rank_method_picker, "value"), (self, "rank_method"))
        widgets.link((self._criterion_picker, "value"), (self, "heatmap_criterion"))
        widgets.link((self._rules_picker, "value"), (self, "rules_name"))

        if start:
            self.start()
        else:
            self.progress.stage("Not prepared yet: call start().")

    # ------------------------------------------------------------------ construction from a competition

    @property
    def competition(self) -> Competition:
        """The competition as given (the controls judge it under other rules and options)."""
        return self._competition

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, **kwargs) -> "Dashboard":
        """The dashboard that ``srdash serve`` asks for: the competition in ``SRDASH_COMPETITION``.

        ``srdash serve`` passes the competition as one serialised object
        (:meth:`srdash.judging.competition.Competition.to_json`); without it the
        built-in demo competition opens (its ``competition.toml``: results,
        descriptions and qualification stage). Served pages wait for the
        browser before changing (see :class:`~srdash.apps.panels.PageReady`).
        """
        env = os.environ if environ is None else environ
        kwargs.setdefault("served", True)
        kwargs.setdefault("snapshot_wait", SERVED_SNAPSHOT_WAIT)
        text = env.get("SRDASH_COMPETITION", "").strip()
        if text:
            return cls(competition_from_json(text), **kwargs)
        kwargs.setdefault("source", "the built-in demo competition (srdash.demo.competition, seed 0), with its "
                                    "dataset descriptions and qualification stage")
        return cls(load_competition(cached_demo()["competition"]), **kwargs)

    # ------------------------------------------------------------------ background preparation

    def start(self) -> None:
        """Prepare the competition (load, measure, evaluate, score) in a background thread.

        A competition whose whole preparation is in the cache (see
        :mod:`srdash.judging.snapshot`) is shown at once instead, before this
        returns: a re-opened page, or any visitor of a served competition
        after the first, waits for no background work.

        Raises
        ------
        SrdashError
            When a preparation is already running.
        """
        if self._work.running:
            raise SrdashError("The runs are already being prepared; wait for the progress bar to finish.")
        if self._show_snapshot():
            return
        self._start_background(self._prepare_in_background, name="srdash-prepare")

    def _show_snapshot(self) -> bool:
        """Show the competition from its snapshot, in this thread; False when there is none."""
        try:
            found = prepared_from_snapshot(self._competition, wait=self._snapshot_wait)
        except Exception:  # noqa: BLE001 - no usable snapshot: prepare in the background as usual
            return False
        if found is None:
            return False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            snapshot.replay_warnings(found.warnings)
        self._log_notes(caught)
        self.timings["load"] = 0.0
        self.timings["prepare"] = found.seconds
        self._apply_prepared(found.prepared)
        self._finish_ready(f"prepared competition read in {found.seconds:.2f} s")
        return True

    def _prepare_in_background(self) -> None:
        # Warnings printed from this thread would land under the notebook cell, in
        # red, far from their context: collect them and put them in the log instead.
        # (catch_warnings is process-wide; the main thread is idle meanwhile.)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self._prepare()
        self._log_notes(caught)

    def _log_notes(self, caught) -> None:
        counted = collections.Counter(f"{w.category.__name__}: {w.message}" for w in caught)
        for text, n in counted.items():
            self.log_panel.info(f"Note while preparing the results: {text}" + (f" (x{n})" if n > 1 else ""))

    def _finish_ready(self, what: str) -> None:
        runs = self.runs
        self.timings["ready"] = time.monotonic() - self._constructed
        counts = runs["status"].value_counts().to_dict() if "status" in runs.columns else {}
        listed = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        # "verdict", not "judging": a served kernel reads the verdict srdash serve kept (judging.kept_verdict)
        self.progress.finish(f"Ready in {self.timings['ready']:.1f} s: {len(runs)} runs ({listed}); {what}, "
                             f"verdict in {self.timings.get('judge', 0.0):.2f} s.")

    def _prepare_competition(self):
        """The competition's expensive work, through the one pipeline (srdash.judging.pipeline): the prepared
        competition."""
        started = time.monotonic()
        prepared = prepare_competition(self._competition, progress=self.progress.update,
                                       stage=lambda text: self.progress.stage(f"{text}…"))
        self.timings["load"] = 0.0
        self.timings["prepare"] = time.monotonic() - started
        self.progress.stage("Judging…")
        return prepared

    def _apply_prepared(self, prepared) -> None:
        self._prepared = prepared
        self._prepared_by_measures[measures_key(prepared.competition.rules)] = prepared
        self._offer_rules(prepared.runs)
        if prepared.qualification is not None:
            self._show_qualification(prepared.qualification, prepared.filtered)
        self.property_scores = prepared.properties
        self.runs = prepared.runs

    def _prepare(self) -> None:
        # what the work changes on the page is changed once a browser has displayed it, on the kernel's
        # thread (BackgroundWork.build: widgets changed while a page loads can be lost)
        try:
            prepared = self._prepare_competition()
        except Exception as error:  # noqa: BLE001 - shown in the log and the progress line
            self._work.build(lambda: self._show_failure(error), root=self)
        else:
            def show() -> None:
                try:
                    self._apply_prepared(prepared)
                    self._finish_ready(f"models {self.timings['prepare']:.1f} s")
                except Exception as error:  # noqa: BLE001 - shown in the log and the progress line
                    self._show_failure(error)

            self._work.build(show, root=self)
        finally:
            self.busy = False

    def _show_failure(self, error: Exception) -> None:
        self.log_panel.report(error, context="preparing the results")
        self.progress.fail(f"Could not prepare the results: {error}" if isinstance(error, SrdashError)
                           else "Could not prepare the results (see the log).")
        message = "<div style='color:#b00'>No leaderboard: the results could not be prepared (see the log).</div>"
        self.leaderboard.value = message
        self.problems.value = ""

    def _show_qualification(self, qualification, filtered) -> None:
        self.qualification = qualification
        self.qualification_notes = filtered.notes
        for note in filtered.notes:
            self.log_panel.info(note)

    # ------------------------------------------------------------------ observers

    @traitlets.observe("busy")
    def _on_busy_change(self, change) -> None:
        for control in self._controls:
            control.disabled = change["new"]

    def _on_failure_view_change(self, change) -> None:
        if self.verdict is not None:
            self.leaderboard.value = leaderboard_panel_html(self.result, self.verdict, view=change["new"])

    def _title_of(self, rules) -> str:
        """The competition's own title (as the report shows it), else the title of the rules in use."""
        competition = self._competition
        if competition.title != (competition.rules.title or competition.rules.name):
            return competition.title
        return rules.title or rules.name

    def _offer_rules(self, runs) -> None:
        """The Rules dropdown: every preset that judges runs (labelled when it cannot judge ``runs``), and a
        rules file given by path; the choice is kept."""
        data_files = self._competition.descriptions is not None
        options = (preset_options(self._presets, runs, data_files=data_files)
                   + ([self._rules_file] if self._rules_file else []))
        chosen = self._rules_picker.value
        self._relabelling = True
        try:
            self._rules_picker.options = options
            if chosen is not None:
                self._rules_picker.value = chosen
        finally:
            self._relabelling = False

    @traitlets.observe("rules_name")
    @logged("loading the rules")
    def _on_rules_name_change(self, change) -> None:
        if self._relabelling:
            return
        previous = self._rules
        rules = previous if previous is not None and previous.name == change["new"] else None
        try:
            rules = rules or load_rules(change["new"])
        except Exception as error:
            self._rules = None
            self._withdraw_verdict(refusal_html(change["new"], error) if isinstance(error, SrdashError) else
                                   "<div style='color:#b00'>These rules could not be loaded (see the log); "
                                   "choose a preset above.</div>")
            raise
        self._rules = rules
        # the rules' description is under "How is this scored?" (self.scoring), below the leaderboard
        self.title.value = f"<h2 style='margin:4px 0'>{html_text(self._title_of(rules))}</h2>{self._source_line}"
        # The rules file's own options become the starting point of the controls, said beside them (first:
        # the page shows the note before the verdict or the refusal that follows).
        ties = RANK_METHOD_LABELS.get
        changed = [(label, new, old) for label, new, old in (
            ("Runs combined by", rules.run_aggregation, self.run_aggregation),
            ("Ties", ties(rules.rank_method, rules.rank_method), ties(self.rank_method, self.rank_method)))
            if new != old and previous is not None]
        self.controls_note.value = rules_set_note_html(rules, changed)
        self._adopting_rules = True
        try:
            with self._one_rejudge():
                self.run_aggregation = rules.run_aggregation
                self.rank_method = rules.rank_method
                self._stale = True
        finally:
            self._adopting_rules = False

    @traitlets.observe("run_aggregation", "rank_method")
    def _on_options_change(self, change) -> None:
        if not self._adopting_rules:
            self.controls_note.value = ""  # the options note under the leaderboard says what differs now
        self._request_rejudge()

    @traitlets.observe("runs")
    @logged("showing the prepared runs")
    def _on_runs_change(self, change) -> None:
        runs = change["new"]
        if runs is None:
            return
        if not self._replacing_runs:
            self._request_rejudge()
        if self.verdict is not None or not self._replacing_runs:
            self._show_curve()

    def _show_curve(self) -> None:
        runs = self.runs
        if runs is not None and "components" in runs.columns and runs["components"].notna().any():
            # drawn once per server, then read (board_view.kept_figure)
            self._show_figure(self.curve, simplicity_curve_figure(runs, self._competition),
                              drawing="Drawing the simplicity curve…")
        else:
            self.curve.message("No model sizes ('components') in the input: no simplicity curve.")

    @traitlets.observe("heatmap_criterion")
    @logged("drawing the heatmap")
    def _on_heatmap_criterion_change(self, change) -> None:
        if not self._replacing_criteria:
            self._show_heatmap()

    # ------------------------------------------------------------------ judging and rendering

    @contextlib.contextmanager
    def _one_rejudge(self):
        """Change several traits and re-judge once, after all of them changed."""
        self._deferred += 1
        try:
            with self.hold_trait_notifications():
                yield
        finally:
            self._deferred -= 1
        if self._deferred == 0 and self._stale:
            self._rejudge()

    def _request_rejudge(self) -> None:
        if self._deferred:
            self._stale = True
        else:
            self._rejudge()

    @logged("judging")
    def _rejudge(self) -> None:
        self._stale = False
        if self._rules is None or self._prepared is None:
            return
        with self._judging:
            started = time.monotonic()
            rules = self._rules.with_options(run_aggregation=self.run_aggregation, rank_method=self.rank_method)
            try:
                verdict = self._judge_competition(rules)
                if verdict is None:   # measuring what these rules need, in the background
                    return
            except Exception as error:
                self._withdraw_verdict(refusal_html(rules.name, error, realworld=self._realworld))
                raise
            self.timings["judge"] = time.monotonic() - started
            self.options_note.value = options_note_html(self._rules, rules)
            self.set_trait("verdict", verdict)
            self.set_trait("refusal", "")
            self._show_verdict(verdict)

    def _judge_competition(self, rules: Rules) -> Verdict | None:
        """The verdict under ``rules`` through the one pipeline, as ``srdash score`` gives it for the
        competition with these rules; None while their measures are being prepared in the background."""
        prepared = self._prepared_by_measures.get(measures_key(rules))
        if prepared is None and missing_columns(rules, self.runs):
            prepared = self._prepared   # nothing to measure would give them their data: judging says why
        if prepared is None:
            # said before the work starts: no number of the earlier verdict stays while it runs
            self._withdraw_verdict(f"<div class='srdash-note srdash-computing'>Measuring what the rules "
                                   f"{html_text(repr(rules.name))} need…</div>", busy=True)
            if not self.busy:
                self._start_background(self._prepare_for_rules, self._rules, name="srdash-prepare-rules")
            return None
        if self.runs is not prepared.runs:
            self._replacing_runs = True
            try:
                self.runs = prepared.runs
            finally:
                self._replacing_runs = False
        # the competition as judged (rules and options applied): its fingerprint is srdash score's for it
        competition = replace(prepared.competition, rules=rules)
        # a real-world track without trust entries yet is left out, saying why, not the whole page
        # judged once per server: a verdict kept with the prepared competition is read back (judging.kept_verdict)
        self.result = kept_judgement(replace(prepared, competition=competition), refused_realworld="warn")
        if self.progress.bar.bar_style == "danger":   # other rules failed to prepare: these did not
            self.progress.finish(f"Judged under the rules '{rules.name}'.")
        return self.result.verdict

    def _prepare_for_rules(self, rules: Rules) -> None:
        """Background: prepare the competition under ``rules`` (what their criteria measure), then judge."""
        started = time.monotonic()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                prepared = prepare_competition(replace(self._competition, rules=rules),
                                               progress=self.progress.update,
                                               stage=lambda text: self.progress.stage(f"{text}…"))
            self._log_notes(caught)
        except Exception as error:  # noqa: BLE001 - said where the leaderboard was, and in the log
            self.progress.fail(f"The rules '{rules.name}' cannot judge these results.")
            self._withdraw_verdict(refusal_html(rules.name, error, realworld=self._realworld))
            self.log_panel.report(error, context=f"preparing the results for the rules '{rules.name}'")
            self.busy = False
            return
        self._prepared_by_measures[measures_key(rules)] = prepared
        self.progress.finish(f"Measured what the rules '{rules.name}' need in {time.monotonic() - started:.1f} s.")
        self.busy = False
        self._rejudge()   # under the rules chosen now (they may have changed meanwhile)

    def _withdraw_verdict(self, reason_html: str, *, busy: bool = False) -> None:
        """No verdict can be shown: ``reason_html`` stands where the leaderboard was, and nothing of an earlier
        verdict (fingerprint, numbers, figures, views) stays on the page."""
        self._generation += 1
        self._withdrawn = True
        self.result = None
        self.set_trait("verdict", None)
        self.set_trait("refusal", "" if busy else html.unescape(_TAGS.sub(" ", reason_html)).strip())
        self.leaderboard.value = reason_html
        for panel in (self.provenance, self.scoring, self.significance, self.warnings, self.options_note):
            panel.value = ""
        self.problems.value = "<div class='srdash-note'>No verdict: nothing to list.</div>"
        self.heatmap.message("No verdict: no per-dataset ranks.")
        self._criterion_row.layout.display = "none"
        self.curve.message("No verdict: no simplicity curve.")
        self._views.clear()
        self.more.place_note("<div class='srdash-note'>No verdict to analyse: see the leaderboard above.</div>")
        self.more.selected_index = None

    def _show_verdict(self, verdict: Verdict) -> None:
        if self._withdrawn:   # the page said why there was no verdict: everything comes back
            self._withdrawn = False
            self._criterion_row.layout.display = None
            self._show_curve()
            self.more.place_note(_OPEN_TO_COMPUTE)
        self.leaderboard.value = leaderboard_panel_html(self.result, verdict, view=self._failure_view.value)
        self.scoring.value = scoring_html(verdict)
        self.significance.value = significance_panel_html(self.result, verdict)
        self.provenance.value = provenance_html(verdict, self.result)
        self._refresh_views()
        self.warnings.value = warnings_html(verdict)
        self.problems.value = problems_html(verdict, runs=self.runs)
        options = [("dataset score", "")] + [(f"{c.label} rank", c.name) for c in verdict.criteria]
        if list(self._criterion_picker.options) != options:
            current = self.heatmap_criterion
            self._replacing_criteria = True  # the picker passes through other values: draw once, below
            try:
                self._criterion_picker.options = options
                self._criterion_picker.value = current if current in dict(options).values() else ""
            finally:
                self._replacing_criteria = False
        self._show_heatmap()

    def _show_heatmap(self) -> None:
        if self.verdict is None:
            return
        self._show_figure(self.heatmap, rank_heatmap_figure(self.result, self.verdict,
                                                            criterion=self.heatmap_criterion or None),
                          drawing="Drawing the per-dataset ranks…")

    def _show_figure(self, panel, figure, *, drawing: str = "Drawing the figure…") -> None:
        # a figure drawn once the page is displayed is dropped if its verdict was withdrawn meanwhile
        generation = self._generation
        super()._show_figure(panel, figure, drawing=drawing, still=lambda: generation == self._generation)

    # ------------------------------------------------------------------ further views

    @logged("opening a view")
    def _on_more_selected(self, change) -> None:
        index = change["new"]
        if index is None or self.verdict is None:
            return
        title = list(self._view_builders)[index]
        if title not in self._views:
            # Said at once (widget changes leave before the view is built), then what the view computes and how
            # far it has got (the builder reports to it), replaced by the view.
            # Only the panel's content changes (ViewPanels says why), and the selection is left to the visitor.
            report = ViewProgress(f"Computing the {title.lower()} view")
            self.more.place(index, report)
            try:
                view = self._view_builders[title](self.verdict, self.runs, report)
            except Exception as error:
                # said in the view itself (not only in the log), and computed again when opened again
                self.more.place(index, widgets.HTML(view_failed_html(title, error)))
                raise
            self._views[title] = view
            self.more.place(index, view)

    def view(self, which: int | str) -> widgets.Widget:
        """What a panel of "More views" shows: a note, the progress of its computation, or the view once built.

        Parameters
        ----------
        which : int or str
            The panel's position or its title.

        Returns
        -------
        ipywidgets.Widget
            The panel's one child (the panel itself, a box made with the page, never changes).
        """
        return self.more.shown(which)

    def _build_property_view(self, verdict, runs, report=None):
        if self.property_scores is None:
            return widgets.HTML("<div class='srdash-note'>No property scores: the dataset descriptions could "
                                "not be used (see the log).</div>")
        return PropertyView(self.property_scores, runs=runs, choice=representative_choice(verdict.rules),
                            log_panel=self.log_panel)

    def _build_qualification_view(self, verdict, runs, report=None):
        if self.qualification is None:
            return widgets.HTML("<div class='srdash-note'>No qualification stage: its results could not be "
                                "used (see the log).</div>")
        return QualificationView(self.qualification, notes=self.qualification_notes, log_panel=self.log_panel)

    @logged("refreshing the views")
    def _refresh_views(self) -> None:
        for title, view in self._views.items():
            refresh_view(view, self.verdict, self.runs)
