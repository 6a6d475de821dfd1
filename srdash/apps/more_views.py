"""The dashboard's further views ("More views"): each built from the current verdict and prepared runs
when first opened, refreshed when the verdict changes (:func:`refresh_view`).

A builder takes ``(verdict, runs, report)`` and returns a widget; :func:`more_views` lists them, titled.
``report`` (a :class:`~srdash.apps.view_progress.ViewProgress` on the page, or None) is told what the view
computes and how far it has got, while it computes.
"""

from __future__ import annotations

import contextlib

import ipywidgets as widgets
import pandas as pd

from srdash.analysis.sensitivity import Rescorer
from srdash.apps.shared import shared_view
from srdash.analysis.jury_model import realworld_jury_model
from srdash.errors import SrdashError
from srdash.figures import srbench2025
from srdash.figures.escape import html_text
from srdash.figures.jury_model import JURY_MODEL_NOTE, jury_model_html
from srdash.figures.leaderboard import leaderboard_html, rules_comparison_html, warnings_html
from srdash.judging.pipeline import realworld_inputs
from srdash.judging.ranking import Verdict, compare_verdicts, judge
from srdash.judging.rules import load_rules
from srdash.judging.trust import TrustStore, realworld_verdict

__all__ = ["more_views", "refresh_view", "CERTIFICATE_VIEW_TITLE", "LINEAGE_VIEW_TITLE", "COMPARISON_VIEW_TITLE",
           "RESOURCES_VIEW_TITLE", "PROPERTY_VIEW_TITLE", "QUALIFICATION_VIEW_TITLE"]

def more_views(trust_store: str | None, app=None):
    """(title, builder) of the further views; a builder takes (verdict, runs, report=None) and returns a widget.

    The views report to ``app``'s log (one log per app), or to logs of their own without an app, and say what
    they compute, with progress, to ``report`` (see the module's description).
    """
    log = app.log_panel if app is not None else None

    def sensitivity(verdict, runs, report=None):
        from srdash.apps.sensitivity import SensitivityView  # lazy: anywidget

        _describe(report, f"Computing the weight sensitivity of {_counted(verdict)}: the leaderboard without each "
                          f"method, {SENSITIVITY_SAMPLES:,} weight vectors sampled")
        return SensitivityView(Rescorer.from_verdict(verdict, runs=runs), samples=SENSITIVITY_SAMPLES,
                               log_panel=log, show_title=False, cache=_view_cache(app), **_callbacks(report))

    def robustness(verdict, runs, report=None):
        from srdash.apps.integrity import RobustnessView  # lazy: anywidget, scipy

        _describe(report, f"Computing the rank uncertainty of {_counted(verdict)}: bootstrap redraws, Friedman "
                          "and Nemenyi tests")
        return RobustnessView(runs, verdict.rules, log_panel=log, cache=_view_cache(app))

    def audit(verdict, runs, report=None):
        from srdash.apps.integrity import AuditView  # lazy: anywidget, scipy

        return AuditView(verdict, log_panel=log)

    def rules_compared(verdict, runs, report=None):
        _describe(report, f"Judging {_counted(verdict)} under each of the rules {', '.join(_COMPARED_PRESETS)}")
        return widgets.HTML(rules_comparison(runs))

    def why(verdict, runs, report=None):
        from srdash.apps.certificate import CertificateView  # lazy: anywidget

        _describe(report, f"Computing the winner certificate of {_counted(verdict)}: re-judging without datasets, "
                          "runs or entrants, under other rules and weights")
        return CertificateView(runs, verdict.rules, log_panel=log, cache=_view_cache(app), **_callbacks(report))

    def lineage(verdict, runs, report=None):
        _describe(report, f"Computing the SRBench views of {_counted(verdict)}: Pareto front, performance "
                          "profiles, pairwise tests")
        return lineage_view(verdict, runs, cache=_view_cache(app), **_callbacks(report))

    def resources(verdict, runs, report=None):
        _describe(report, f"Computing the resources of {_counted(verdict)}: time, energy and CO2 per method")
        return _srbench2025_view("resources", verdict, runs, cache=_view_cache(app), **_callbacks(report))

    def comparison(verdict, runs, report=None):
        _describe(report, f"Computing the comparison of {_counted(verdict)}: mean ranks, post-hoc tests, "
                          "effect sizes")
        return _srbench2025_view("comparison", verdict, runs, cache=_view_cache(app), **_callbacks(report))

    views = [("Rules compared: published, as run, draft", rules_compared),
             ("Weight sensitivity", sensitivity),
             ("Rank uncertainty and significance", robustness),
             ("Audit a published table", audit)]
    if trust_store:
        def realworld(verdict, runs, report=None):
            if app is not None and app.result is not None and app.result.realworld is not None:
                track = app.result.realworld
                return widgets.HTML(trust_entries_note(trust_store) + leaderboard_html(track) + warnings_html(track)
                                    + _jury_model_of_result_html(app.result))
            return widgets.HTML(_realworld_html(trust_store, runs, verdict))

        views.append(("Real-world track (expert trust)", realworld))
    views.append((LINEAGE_VIEW_TITLE, lineage))
    views.append((COMPARISON_VIEW_TITLE, comparison))
    views.append((RESOURCES_VIEW_TITLE, resources))
    views.append((CERTIFICATE_VIEW_TITLE, why))
    return views


#: Weight vectors the weight-sensitivity view samples when it opens.
SENSITIVITY_SAMPLES = 2000


def _counted(verdict: Verdict) -> str:
    """'21 methods on 122 datasets' (what a view computes over, in the words it says it with)."""
    datasets = verdict.per_dataset["dataset"].nunique()
    return (f"{verdict.n_methods} method{'s' * (verdict.n_methods != 1)} on "
            f"{datasets} dataset{'s' * (datasets != 1)}")


def _describe(report, text: str) -> None:
    if report is not None:
        report.describe(text)


def _callbacks(report) -> dict:
    """``stage`` and ``progress`` of ``report`` as the keywords a view passes to what it computes."""
    return {} if report is None else {"stage": report.stage, "progress": report.progress}


#: Title of the winner certificate's view in the "More views" accordion.
CERTIFICATE_VIEW_TITLE = "Why this winner: what would change the verdict"

#: Title of the SRBench-lineage view in the "More views" accordion.
LINEAGE_VIEW_TITLE = "SRBench views: Pareto front, performance profiles, pairwise tests"


#: Titles of SRBench 2025's views in the "More views" accordion (srdash.figures.srbench2025).
COMPARISON_VIEW_TITLE = "Comparison of methods: post-hoc test, effect sizes"
RESOURCES_VIEW_TITLE = "Resources: time, energy and CO2 per method"


_CD_ELSEWHERE = ("<div class='srdash-note srdash-cd-elsewhere'>This page draws one critical-difference diagram, "
                 "under \"Rank uncertainty and significance\" (Nemenyi test on the dataset scores); this view's "
                 "post-hoc test is in the text and tables above.</div>")


def _srbench2025_view(which: str, verdict: Verdict, runs: pd.DataFrame, *, cache=False, stage=None,
                      progress=None) -> widgets.VBox:
    """The report's resources or comparison views (same figure functions, :mod:`srdash.figures.srbench2025`),
    computed once for every visitor of the same verdict (``cache``, see :mod:`srdash.apps.shared`); ``stage`` and
    ``progress`` are told when it is computed (one step) or read."""
    import plotly.io as pio

    from srdash.apps.panels import FigurePanel  # lazy: anywidget

    def compute() -> dict:
        _step(stage, progress, "computing it once for every visitor" if cache is not False else "computing", 0)
        # the critical-difference diagram once a page: "Rank uncertainty and significance" draws it
        views = (srbench2025.resource_views(runs) if which == "resources" else
                 srbench2025.comparison_views(runs, cd_diagram=False) + (_CD_ELSEWHERE,))
        if not views:
            views = ("<div class='srdash-note'>No resources: the runs carry no time, energy or CO2 column "
                     "(training time (s), duration(s), power_consumption(kWh), CO2_emissions(kg)).</div>",)
        return {"views": [view if isinstance(view, str) else {"figure": pio.to_json(view, validate=False)}
                          for view in views]}

    _step(stage, progress, "looking for what an earlier visitor computed" if cache is not False else "", None)
    content = shared_view(f"srbench2025 {which}", runs, verdict.rules, compute, cache=cache)
    _step(stage, progress, "drawing", 1)
    children = []
    for view in content["views"]:
        if isinstance(view, str):  # srdash's own HTML, every untrusted text escaped by srdash.figures.srbench2025
            children.append(widgets.HTML(view))
        else:
            panel = FigurePanel()
            panel.show(pio.from_json(view["figure"], skip_invalid=True))
            children.append(panel)
    box = widgets.VBox(children)
    box.add_class(f"srdash-{which}-view")
    return box


def _step(stage, progress, text: str, done: int | None) -> None:
    """One step of a view said to its ``stage`` (when ``text``) and ``progress`` (``done`` of 1, when given)."""
    if stage is not None and text:
        stage(text)
    if progress is not None and done is not None:
        progress(done, 1, {})


def _view_cache(app) -> object:
    """Where the heavy views of ``app``'s competition are shared between visitors (:mod:`srdash.apps.shared`):
    the competition's cache (None: srdash's default one), or False (not shared) without a competition or
    when the competition turned the cache off."""
    competition = getattr(app, "_competition", None)
    if competition is None:
        return False
    cache = competition.simplification.cache
    return None if cache is True else cache


def lineage_view(verdict: Verdict, runs: pd.DataFrame, *, cache=False, stage=None, progress=None) -> widgets.VBox:
    """The report's SRBench views (same figure functions), one figure panel each; computed once for every
    visitor of the same verdict (``cache``, see :mod:`srdash.apps.shared`); ``stage`` and ``progress`` follow
    the computation, view by view (:func:`srdash.figures.lineage.srbench_views`)."""
    import plotly.io as pio

    from srdash.apps.panels import FigurePanel  # lazy: anywidget

    def compute() -> dict:
        # imported only to compute: a visitor who reads the views from the cache imports no scipy or sympy here
        from srdash.figures.lineage import srbench_views  # lazy: scipy, sympy

        # no critical-difference diagram here: "Rank uncertainty and significance" shows it (once per page)
        return {"views": [view if isinstance(view, str) else {"figure": pio.to_json(view, validate=False)}
                          for view in srbench_views(runs, stage=stage, progress=progress)]}

    _step(stage, progress, "looking for what an earlier visitor computed" if cache is not False else "", None)
    content = shared_view("srbench views", runs, verdict.rules, compute, cache=cache)
    panels = []
    for view in content["views"]:
        panel = FigurePanel()
        if isinstance(view, str):
            panel.message(view)
        else:
            panel.show(pio.from_json(view["figure"], skip_invalid=True))
        panels.append(panel)
    return widgets.VBox(panels)


def trust_entries_note(store_path) -> str:
    """Where the trust entries come from, by the store's file name only: the dashboard's visitors are not
    shown the server's local folders.

    Examples
    --------
    >>> trust_entries_note("/home/org/private/trust.sqlite")
    "<div class='srdash-note'>Trust entries from the review's store trust.sqlite</div>"
    """
    from pathlib import PurePath

    name = PurePath(str(store_path)).name
    return f"<div class='srdash-note'>Trust entries from the review's store {html_text(name)}</div>"


def _realworld_html(store_path: str, runs: pd.DataFrame, verdict: Verdict) -> str:
    with contextlib.closing(TrustStore(store_path, read_only=True)) as store:
        entries = store.entries()
    methods = sorted(verdict.leaderboard["method"])
    realworld = realworld_verdict(runs, entries, "srbench2022-realworld", methods=methods)
    return (trust_entries_note(store_path) + leaderboard_html(realworld) + warnings_html(realworld)
            + _jury_model_html(runs, entries, "srbench2022-realworld", methods))


def _jury_model_of_result_html(result) -> str:
    """The real-world track's jury model, from the entries and rules its verdict was judged with."""
    try:
        inputs = realworld_inputs(result.prepared)
    except SrdashError as exc:
        return f"<div class='srdash-note'>{html_text(f'No jury model: {exc}')}</div>"
    return _jury_model_html(inputs.runs, inputs.entries, inputs.rules, list(inputs.methods))


def _jury_model_html(runs, entries, rules, methods) -> str:
    """The report's jury-model section (same renderer): a second opinion under the real-world leaderboard."""
    try:
        model = realworld_jury_model(runs, entries, rules, methods=methods)
    except SrdashError as exc:
        return f"<div class='srdash-note'>{html_text(f'No jury model: {exc}')}</div>"
    return ("<h3>Jury model (a second opinion)</h3>"
            f"<div class='srdash-note'>{html_text(JURY_MODEL_NOTE)}</div>" + jury_model_html(model))


#: Titles of the synthetic track's views in the "More views" accordion.
PROPERTY_VIEW_TITLE = "Properties of the synthetic track"
QUALIFICATION_VIEW_TITLE = "Qualification stage (against LinearRegression)"

_COMPARED_PRESETS = ("srbench2022", "srbench2022-as-run", "srbench2022-draft")


def rules_comparison(runs: pd.DataFrame) -> str:
    """The 2022 presets side by side on these runs; a preset that cannot judge them is named with why."""
    verdicts, refused = [], []
    for name in _COMPARED_PRESETS:
        try:
            verdicts.append(judge(runs, load_rules(name)))
        except SrdashError as exc:
            refused.append(f"{name}: {str(exc).splitlines()[0]}")
    notes = "".join(f"<div class='srdash-note srdash-rules-refused'>Not compared: {html_text(line)}</div>"
                    for line in refused)
    if len(verdicts) < 2:
        return ("<div class='srdash-note'>No comparison: fewer than two of the rules "
                f"{html_text(', '.join(_COMPARED_PRESETS))} can judge these results.</div>" + notes)
    return rules_comparison_html(compare_verdicts(verdicts)) + notes


def refresh_view(view: widgets.Widget, verdict: Verdict, runs: pd.DataFrame) -> None:
    from srdash.apps.properties import PropertyView, QualificationView  # lazy: anywidget

    if isinstance(view, (widgets.HTML, PropertyView, QualificationView)):
        return  # views that do not depend on the current options
    if hasattr(view, "rescorer"):
        view.rescorer = Rescorer.from_verdict(verdict, runs=runs)
    elif hasattr(view, "published"):
        view.verdict = verdict
    elif hasattr(view, "runs"):
        with view.hold_trait_notifications():
            view.runs = runs
            view.rules = verdict.rules
