"""Dashboard views of the synthetic-track properties and of the qualification stage.

:class:`PropertyView` shows the property score of each method per dataset, and
for the selected dataset: the ground truth and each method's representative
simplified model in LaTeX with the equivalence verdict (exact formulas); which
unwanted features each method used (feature absence, local optima); the
R²-versus-noise curves (noise groups). :class:`QualificationView` shows the
qualification table, the rule and which methods leave the tracks.

Both are ``ipywidgets.VBox`` subclasses whose state is traitlets: assign
``view.scores = ...`` (or ``view.qualification = ...``) and the view follows.
The figures come from :mod:`srdash.figures.properties` (pure functions); errors
in callbacks are shown in the view's log, never lost.
"""

from __future__ import annotations


import ipywidgets as widgets
import pandas as pd
import traitlets

from srdash.figures.escape import html_text
from srdash.figures.properties import (exact_models_html, noise_curve_figure, property_heatmap,
                                       qualification_figure, qualification_html, unwanted_features_figure)
from srdash.judging.properties import PropertyScores, representative_models, unwanted_usage
from srdash.judging.qualification import Qualification
from srdash.apps.panels import FigurePanel, LogPanel, logged

__all__ = ["PropertyView", "QualificationView"]

_MAX_PROBLEMS = 50


def _note(text: str) -> str:
    return f"<div class='srdash-note' style='color:#555;font-size:12px'>{html_text(text)}</div>"


class PropertyView(widgets.VBox):
    """Property scores per dataset, and the detail of one dataset.

    Parameters
    ----------
    scores : PropertyScores, optional
        From :func:`srdash.judging.properties.property_scores`.
    runs : DataFrame, optional
        The per-run table with ``r2_test``, to choose each method's
        representative run (``choice``); without it, the lowest run number.
    choice : {'closest-to-median', 'best'}
        Which run represents a method (the rules' ``[representative] choice``).

    Attributes
    ----------
    scores, runs, choice, dataset : traitlets
        ``dataset`` is the dataset shown in detail (a dropdown is linked to it).

    Examples
    --------
    >>> from srdash.io.datasets import load_dataset_table
    >>> from srdash.judging.properties import property_scores
    >>> table = load_dataset_table({"datasets": [{"name": "fs", "property": "feature_absence",
    ...     "files": {"test": "fs.csv"}, "target": "y", "features": "x1 x2 x3", "irrelevant": "x3"}]},
    ...     check_files=False)
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "fs", "model": ["x1", "x1 + x3"]})
    >>> view = PropertyView(scores=property_scores(runs, table, cache=False))
    >>> view.dataset, view.dataset_picker.options
    ('fs', ('fs',))
    >>> view.detail_figure.outputs[0]["data"]["text/plain"]
    '<plotly figure: Unwanted features used>'
    """

    scores = traitlets.Instance(PropertyScores, allow_none=True)
    runs = traitlets.Instance(pd.DataFrame, allow_none=True)
    choice = traitlets.Unicode("closest-to-median")
    dataset = traitlets.Unicode("")

    def __init__(self, scores: PropertyScores | None = None, *, runs: pd.DataFrame | None = None,
                 choice: str = "closest-to-median", log_panel: LogPanel | None = None, **kwargs):
        self.log_panel = log_panel or LogPanel()
        self.overview = FigurePanel()
        self.dataset_picker = widgets.Dropdown(description="Dataset", options=(),
                                               style={"description_width": "initial"})
        self.summary = widgets.HTML("")
        self.models = widgets.HTMLMath("")
        self.detail_figure = FigurePanel()
        super().__init__(**kwargs)
        self.children = [
            widgets.HTML("<h3 style='margin:14px 0 4px 0'>Properties</h3>"
                         + _note("Each dataset tests one property; scores are higher-is-better except the "
                                 "noise sensitivity (lower is better).")),
            self.overview, self.dataset_picker, self.summary, self.models, self.detail_figure,
            *([] if log_panel else [self.log_panel]),
        ]
        self.add_class("srdash-properties")
        # The dropdown drives `dataset` (its value is None while it has no options).
        widgets.dlink((self.dataset_picker, "value"), (self, "dataset"), transform=lambda value: value or "")
        with self.hold_trait_notifications():
            self.runs = runs
            self.choice = choice
            self.scores = scores

    @traitlets.observe("scores")
    @logged("showing the property scores")
    def _on_scores_change(self, change) -> None:
        scores = change["new"]
        if scores is None or scores.per_dataset.empty:
            self.overview.message("No property scores yet: give a dataset table with property kinds.")
            self.dataset_picker.options = ()
            self._clear_detail()
            return
        self.overview.show(property_heatmap(scores))
        names = tuple(dict.fromkeys(scores.per_dataset["dataset"]))
        current = self.dataset if self.dataset in names else names[0]
        with self.hold_trait_notifications():
            self.dataset_picker.options = names
            self.dataset_picker.value = current
        self._show_dataset(current)

    @traitlets.observe("dataset", "runs", "choice")
    @logged("showing the dataset's detail")
    def _on_dataset_change(self, change) -> None:
        if change["name"] == "dataset" and self.dataset in self.dataset_picker.options:
            self.dataset_picker.value = self.dataset  # set from Python: keep the dropdown in step
        if self.scores is not None and self.dataset:
            self._show_dataset(self.dataset)

    def _clear_detail(self) -> None:
        self.summary.value = ""
        self.models.value = ""
        self.detail_figure.outputs = ()

    def _show_dataset(self, name: str) -> None:
        scores = self.scores
        self._clear_detail()
        if scores is None or scores.datasets is None or name not in scores.datasets:
            return
        spec = scores.datasets[name]
        score = scores.per_dataset.loc[scores.per_dataset["dataset"] == name, "score"]
        self.summary.value = _note(f"{name}: property '{spec.property}', scored by "
                                   f"{score.iloc[0] if len(score) else '–'}. {spec.description}")
        if spec.property == "exact":
            chosen = representative_models(scores, self.runs, choice=self.choice)
            self.models.value = exact_models_html(chosen[chosen["dataset"] == name], truth=spec.truth,
                                                  features=spec.features)
        elif spec.property in ("feature_absence", "local_optima"):
            self.detail_figure.show(unwanted_features_figure(unwanted_usage(scores), dataset=name))
        elif spec.property == "noise":
            self.detail_figure.show(noise_curve_figure(scores, group=spec.group))
        elif spec.property == "extrapolation":
            self.detail_figure.message(f"The property is the R² on the '{spec.partition}' partition "
                                       "(see the overview).")


class QualificationView(widgets.VBox):
    """The qualification stage: rule, per-method table and figure, and the methods leaving the tracks.

    Parameters
    ----------
    qualification : Qualification, optional
    notes : sequence of str
        What happened to the tracks (e.g. :attr:`srdash.judging.qualification.FilteredRuns.notes`),
        shown prominently.

    Examples
    --------
    >>> from srdash.judging.qualification import qualify
    >>> q = qualify(pd.DataFrame({"method": ["LinearRegression", "a", "b"], "dataset": "d",
    ...                           "r2_test": [0.5, 0.9, 0.1]}))
    >>> view = QualificationView(q, notes=["Excluded from the track: b."])
    >>> "not qualified" in view.table.value, "Excluded from the track: b." in view.notes_area.value
    (True, True)
    """

    qualification = traitlets.Instance(Qualification, allow_none=True)
    notes = traitlets.Tuple()

    def __init__(self, qualification: Qualification | None = None, *, notes=(), log_panel: LogPanel | None = None,
                 **kwargs):
        self.log_panel = log_panel or LogPanel()
        self.notes_area = widgets.HTML("")
        self.table = widgets.HTML("")
        self.figure = FigurePanel()
        self.problems_area = widgets.HTML("")
        super().__init__(**kwargs)
        self.children = [
            widgets.HTML("<h3 style='margin:14px 0 4px 0'>Qualification</h3>"
                         + _note("Each method against the baseline, head to head per dataset and run.")),
            self.notes_area, self.table, self.figure, self.problems_area,
            *([] if log_panel else [self.log_panel]),
        ]
        self.add_class("srdash-qualification")
        with self.hold_trait_notifications():
            self.notes = tuple(notes)
            self.qualification = qualification

    @traitlets.observe("notes")
    def _on_notes_change(self, change) -> None:
        self.notes_area.value = "".join(
            f"<div style='color:#b35c00;font-weight:bold'>{html_text(note)}</div>" for note in change["new"])

    @traitlets.observe("qualification")
    @logged("showing the qualification")
    def _on_qualification_change(self, change) -> None:
        qualification = change["new"]
        if qualification is None:
            self.table.value = _note("No qualification results.")
            self.figure.outputs = ()
            self.problems_area.value = ""
            return
        self.table.value = qualification_html(qualification)
        self.figure.show(qualification_figure(qualification))
        problems = qualification.problems
        if problems.empty:
            self.problems_area.value = ""
            return
        shown = problems.head(_MAX_PROBLEMS)
        rows = "".join(f"<tr><td>{html_text(str(p.kind))}</td><td>{html_text(str(p.method))}</td>"
                       f"<td>{html_text(str(p.dataset))}</td><td>{html_text(str(p.run))}</td>"
                       f"<td>{html_text(str(p.detail))}</td></tr>" for p in shown.itertuples(index=False))
        more = f" (first {_MAX_PROBLEMS} of {len(problems)})" if len(problems) > _MAX_PROBLEMS else ""
        self.problems_area.value = (f"<details><summary>{len(problems)} problem(s){more}</summary>"
                                    "<table class='srdash-table'><tr><th>Kind</th><th>Method</th><th>Dataset</th>"
                                    f"<th>Run</th><th>Detail</th></tr>{rows}</table></details>")
