"""Views of a verdict's integrity: rank uncertainty with significance, and the audit of a published table.

:class:`RobustnessView` bootstraps the prepared per-run table (models are
never simplified again) and shows the place probabilities, the score
intervals, the critical difference diagram and the sentence on the winner.
:class:`AuditView` compares a verdict with a published table (uploaded or set
from Python) and shows the audit table and the published table's own
inconsistencies. State lives in traitlets; errors raised in callbacks go to
the view's visible log.
"""

from __future__ import annotations

import io

import ipywidgets as widgets
import pandas as pd
import traitlets

from srdash.analysis.kept import analysis_key
from srdash.apps.shared import shared_view
from srdash.figures.escape import html_text
from srdash.analysis.audit import DEFAULT_TOLERANCE, Audit, audit
from srdash.figures.integrity import (PLACE_PROBABILITY_KINDS, audit_figure, critical_difference_figure,
                                      place_probability_figure, score_interval_figure)
from srdash.judging.ranking import Verdict
from srdash.analysis.robustness import RESAMPLE_OPTIONS, Robustness, bootstrap
from srdash.judging.rules import Rules
from srdash.analysis.significance import Significance, significance
from srdash.apps.panels import FigurePanel, LogPanel, logged

__all__ = ["RobustnessView", "AuditView"]

_STYLE = {"description_width": "initial"}


def _note(text: str) -> str:
    return f"<div class='srdash-note' style='color:#555'>{html_text(text)}</div>"


class RobustnessView(widgets.VBox):
    """Bootstrap place probabilities, score intervals and the Friedman/Nemenyi tests.

    Parameters
    ----------
    runs : DataFrame, optional
        The prepared per-run table (:func:`srdash.judging.pipeline.prepare_runs`).
    rules : Rules, optional
    n_bootstrap, seed : int
    run : bool
        Compute at once when ``runs`` and ``rules`` are given.

    Attributes
    ----------
    runs, rules : traitlets
        The competition; setting either recomputes (when ``auto`` is true).
    n_bootstrap, seed, resample, alpha : traitlets
        Linked to the controls; "Run" recomputes with them.
    kind : traitlet
        'heatmap' or 'bubble'; redraws without recomputing.
    result : traitlet (Robustness or None), significance : traitlet (Significance or None)
        The last ones computed in this kernel (None when what is shown was computed for an earlier
        visitor: ``cache``, see :mod:`srdash.apps.shared`).
    busy : traitlet (bool)
        True while computing; the controls are frozen.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.demo.examples import accuracy_rules, two_methods
    >>> rules = accuracy_rules()
    >>> runs = pd.DataFrame({"method": ["a", "b", "c"] * 3, "dataset": [f"d{i // 3}" for i in range(9)],
    ...                      "run": 0, "r2_test": [0.9, 0.5, 0.1, 0.8, 0.6, 0.2, 0.9, 0.3, 0.4]})
    >>> view = RobustnessView(runs, rules, n_bootstrap=100)
    >>> view.result.summary["p_win"].tolist()[0]
    1.0
    >>> view.statement.value.startswith("<div")
    True
    >>> view.n_bootstrap = 0
    >>> view.run()
    >>> "The 'n_bootstrap' option must be a whole number >= 1" in view.log_panel.text()
    True
    """

    runs = traitlets.Instance(pd.DataFrame, allow_none=True, help="The prepared per-run table.")
    rules = traitlets.Instance(Rules, allow_none=True, help="The rules.")
    n_bootstrap = traitlets.Int(1000, help="Bootstrap redraws.")
    seed = traitlets.Int(0, help="Random seed.")
    resample = traitlets.Unicode("both", help="What to resample.")
    alpha = traitlets.Float(0.05, help="Significance level.")
    kind = traitlets.Unicode("heatmap", help="Layout of the place-probability figure.")
    auto = traitlets.Bool(True, help="Recompute when runs or rules change.")
    result = traitlets.Instance(Robustness, allow_none=True, help="The last bootstrap.")
    significance = traitlets.Instance(Significance, allow_none=True, help="The last significance tests.")
    busy = traitlets.Bool(False, help="True while computing.")

    def __init__(self, runs: pd.DataFrame | None = None, rules: Rules | None = None, *, n_bootstrap: int = 1000,
                 seed: int = 0, run: bool = True, log_panel: LogPanel | None = None, cache=False, **kwargs):
        self.log_panel = log_panel or LogPanel()
        self._cache = cache           # share what is shown with other visitors (srdash.apps.shared)
        self._shared_places: dict = {}  # kind -> figure JSON, when what is shown was computed elsewhere
        self._shown_key: str | None = None
        self.bootstrap_input = widgets.BoundedIntText(value=int(n_bootstrap), min=0, max=1_000_000, step=100,
                                                      description="Redraws",
                                                      style=_STYLE, layout=widgets.Layout(width="180px"))
        self.seed_input = widgets.BoundedIntText(value=int(seed), min=0, max=2**31 - 1, description="Seed",
                                                 style=_STYLE,
                                                 layout=widgets.Layout(width="150px"))
        self.resample_input = widgets.Dropdown(options=RESAMPLE_OPTIONS, description="Resample", style=_STYLE,
                                               layout=widgets.Layout(width="200px"))
        self.alpha_input = widgets.Dropdown(options=[0.01, 0.05, 0.10], value=0.05, description="alpha",
                                            style=_STYLE,
                                            layout=widgets.Layout(width="150px"))
        self.kind_input = widgets.ToggleButtons(options=PLACE_PROBABILITY_KINDS, style={"button_width": "80px"})
        self.run_button = widgets.Button(description="Run", icon="play", button_style="primary")
        self.status = widgets.HTML(_note("Not computed yet."))
        self.statement = widgets.HTML()
        self.places = FigurePanel()
        self.intervals = FigurePanel()
        self.cd_diagram = FigurePanel()
        self._controls = (self.bootstrap_input, self.seed_input, self.resample_input, self.alpha_input,
                          self.run_button)
        for name, control in (("n_bootstrap", self.bootstrap_input), ("seed", self.seed_input),
                              ("resample", self.resample_input), ("alpha", self.alpha_input),
                              ("kind", self.kind_input)):
            widgets.link((control, "value"), (self, name))
        self.run_button.on_click(lambda _: self.run())
        super().__init__([
            widgets.HTML("<h3 style='margin:8px 0 4px 0'>How sure is the order?</h3>"),
            widgets.HBox([*self._controls[:-1], self.run_button], layout=widgets.Layout(flex_flow="row wrap")),
            self.status,
            self.statement,
            self.kind_input,
            widgets.HBox([self.places, self.intervals], layout=widgets.Layout(flex_flow="row wrap")),
            self.cd_diagram,
            *([] if log_panel else [self.log_panel]),
        ], **kwargs)
        self.add_class("srdash-robustness")
        with self.hold_trait_notifications():
            self.n_bootstrap, self.seed = int(n_bootstrap), int(seed)
            self.auto = bool(run)
            self.rules, self.runs = rules, runs

    @traitlets.observe("runs", "rules")
    def _on_competition_change(self, change) -> None:
        if self.auto and self.runs is not None and self.rules is not None:
            self.run()

    @traitlets.observe("busy")
    def _on_busy_change(self, change) -> None:
        for control in self._controls:
            control.disabled = change["new"]

    @traitlets.observe("kind")
    def _on_kind_change(self, change) -> None:
        self._draw_places()

    @logged("computing the bootstrap")
    def run(self) -> None:
        """Bootstrap and test with the current settings, then redraw."""
        if self.runs is None or self.rules is None:
            self.status.value = _note("Load a competition first.")
            return
        import plotly.io as pio

        settings = {"n_bootstrap": self.n_bootstrap, "seed": self.seed, "resample": self.resample,
                    "alpha": float(self.alpha)}
        key = analysis_key("rank uncertainty", self.runs, self.rules, settings)
        if key == self._shown_key:
            return  # already shown (the runs and the rules are set together, each calling run)
        self.busy = True
        self.status.value = _note(f"Bootstrapping {self.n_bootstrap} redraws…")
        computed = {}

        def compute() -> dict:
            result = bootstrap(self.runs, self.rules, n_bootstrap=self.n_bootstrap, seed=self.seed,
                               resample=self.resample)
            test = significance(result.verdict, alpha=float(self.alpha))
            computed.update(result=result, test=test)
            notes = " ".join(result.notes + test.notes)
            return {"status": f"{result.n_bootstrap} redraws of the {result.resample} (seed {result.seed}, "
                              f"engine: {result.engine}). {notes}".strip(),
                    "statement": test.statement,
                    "places": {kind: pio.to_json(place_probability_figure(result, kind=kind), validate=False)
                               for kind in PLACE_PROBABILITY_KINDS},
                    "intervals": pio.to_json(score_interval_figure(result), validate=False),
                    "cd_diagram": pio.to_json(critical_difference_figure(test), validate=False)}

        try:
            content = shared_view("rank uncertainty", self.runs, self.rules, compute, settings=settings,
                                  cache=self._cache)
        except Exception:
            self.status.value = _note("The computation failed; see the log.")
            raise
        finally:
            self.busy = False
        with self.hold_trait_notifications():  # None when an earlier visitor computed what is shown
            self.result, self.significance = computed.get("result"), computed.get("test")
        self._shared_places = {} if self.result is not None else content["places"]
        self._shown_key = key
        self.status.value = _note(content["status"])
        self.statement.value = f"<div class='srdash-statement'><b>{html_text(content['statement'])}</b></div>"
        self._draw_places()
        self.intervals.show(pio.from_json(content["intervals"], skip_invalid=True))
        self.cd_diagram.show(pio.from_json(content["cd_diagram"], skip_invalid=True))

    @logged("drawing the place probabilities")
    def _draw_places(self) -> None:
        if self.result is not None:
            self.places.show(place_probability_figure(self.result, kind=self.kind))
        elif self.kind in self._shared_places:
            import plotly.io as pio

            self.places.show(pio.from_json(self._shared_places[self.kind], skip_invalid=True))


class AuditView(widgets.VBox):
    """Audit a published table against a verdict.

    Parameters
    ----------
    verdict : Verdict, optional
    published : DataFrame, optional
        A published table (``method, score[, place][, track]``); or upload a
        CSV with the view's file picker.

    Attributes
    ----------
    verdict, published, track, tolerance : traitlets
        Any change recomputes the audit (it is cheap).
    result : traitlet (Audit or None)

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.demo.examples import accuracy_rules, two_methods
    >>> rules = accuracy_rules()
    >>> verdict = judge(two_methods(), rules)
    >>> view = AuditView(verdict, pd.DataFrame({"method": ["a", "b"], "score": [2.0, 1.5], "place": [1, 2]}))
    >>> view.result.flagged["method"].tolist()
    ['b']
    >>> view.published = pd.DataFrame({"method": ["a"], "points": [1]})
    >>> "the column is missing" in view.log_panel.text()
    True
    """

    verdict = traitlets.Instance(Verdict, allow_none=True, help="The recomputed verdict.")
    published = traitlets.Instance(pd.DataFrame, allow_none=True, help="The published table.")
    track = traitlets.Unicode("", help="The track to audit ('' when the table has one).")
    tolerance = traitlets.Float(DEFAULT_TOLERANCE, help="Score differences above this are flagged.")
    result = traitlets.Instance(Audit, allow_none=True, help="The last audit.")

    def __init__(self, verdict: Verdict | None = None, published: pd.DataFrame | None = None, *,
                 log_panel: LogPanel | None = None, **kwargs):
        self.log_panel = log_panel or LogPanel()
        self.upload = widgets.FileUpload(accept=".csv", multiple=False, description="Published table (CSV)",
                                         layout=widgets.Layout(width="auto"))
        self.track_input = widgets.Dropdown(options=[("(only track)", "")], description="Track", style=_STYLE)
        self.tolerance_input = widgets.BoundedFloatText(value=DEFAULT_TOLERANCE, min=0, max=1e6, step=0.005,
                                                        description="Tolerance",
                                                        style=_STYLE, layout=widgets.Layout(width="180px"))
        self.summary = widgets.HTML(_note("Upload a published table (columns method, score, optionally place "
                                          "and track)."))
        self.table = FigurePanel()
        widgets.link((self.track_input, "value"), (self, "track"))
        widgets.link((self.tolerance_input, "value"), (self, "tolerance"))
        self.upload.observe(self._on_upload_change, names="value")
        super().__init__([
            widgets.HTML("<h3 style='margin:8px 0 4px 0'>Audit of a published table</h3>"),
            widgets.HBox([self.upload, self.track_input, self.tolerance_input],
                         layout=widgets.Layout(flex_flow="row wrap")),
            self.summary,
            self.table,
            *([] if log_panel else [self.log_panel]),
        ], **kwargs)
        self.add_class("srdash-audit")
        with self.hold_trait_notifications():
            self.verdict, self.published = verdict, published

    @logged("reading the uploaded table")
    def _on_upload_change(self, change) -> None:
        files = change["new"]
        if files:
            content = files[0]["content"]
            self.published = pd.read_csv(io.BytesIO(bytes(content)), dtype=str, keep_default_na=False)

    @traitlets.observe("published")
    def _on_published_change(self, change) -> None:
        table = change["new"]
        tracks = []
        if table is not None and "track" in table.columns:
            tracks = list(dict.fromkeys(table["track"].astype(str).str.strip()))
        options = [(t, t) for t in tracks] if len(tracks) > 1 else [("(only track)", "")]
        with self.hold_trait_notifications():
            self.track_input.options = options
            self.track = options[0][1]
        self._recompute()

    @traitlets.observe("verdict", "track", "tolerance")
    def _on_setting_change(self, change) -> None:
        self._recompute()

    @logged("auditing the published table")
    def _recompute(self) -> None:
        if self.verdict is None or self.published is None:
            return
        self.result = None
        result = audit(self.verdict, self.published, tolerance=float(self.tolerance), track=self.track or None)
        self.result = result
        self.summary.value = f"<pre class='srdash-audit-summary'>{html_text(result.summary())}</pre>"
        self.table.show(audit_figure(result))
