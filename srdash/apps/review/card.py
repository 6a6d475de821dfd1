"""A representative model on a card: formula, numbers, figures and the judge's entry (trust or rubric scores)."""

from __future__ import annotations

from typing import Mapping, Sequence

import ipywidgets as widgets
import numpy as np
# the style classes ipywidgets 8 does not export at its top level
from ipywidgets.widgets.widget_bool import ToggleButtonStyle
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import HTMLMathStyle, HTMLStyle, TextStyle
import pandas as pd

from srdash.figures.escape import html_text
from srdash.apps.review.typeset import typeset_html
from srdash.apps.review.values import (NO_VALUE, OK_STATUSES, components_text, is_long, shown_number, shown_text,
                                       time_of, trust_options)

__all__ = ["CardLooks", "ModelCard"]


def _refuse_change(change) -> None:
    raise TypeError(f"A look the judge's page shares ({type(change['owner']).__name__}) was changed "
                    f"({change['name']!r}): every widget that shares it would change. Give the widget a "
                    "layout (or style) of its own.")


class CardLooks:
    """The layouts and styles one page's widgets share, one model each, where their look never changes.

    Every widget otherwise brings its own ``Layout`` (and style) model: one more message the kernel sends
    and Voilà's server decodes, one more model the page builds. ipywidgets lets many widgets name one model;
    a widget whose layout or style code changes later (a toggled ``display``) keeps its own.
    Built once per page (:class:`ReviewApp`), passed to its cards and its comparison.

    Examples
    --------
    >>> looks = CardLooks()
    >>> looks.html("<b>a</b>").layout is looks.html("<b>b</b>").layout
    True
    >>> looks.html("<b>c</b>").layout.display = "none"
    Traceback (most recent call last):
    ...
    TypeError: A look the judge's page shares (Layout) was changed ('display'): every widget that shares it would change. Give the widget a layout (or style) of its own.
    >>> looks.plain.close()  # closed as every widget is when its kernel ends: no change of look
    >>> looks.plain.comm is None
    True
    """

    def __init__(self):
        self.plain = widgets.Layout()
        self.auto_width = widgets.Layout(width="auto")
        self.full_width = widgets.Layout(max_width="100%")
        self.row_wrap = widgets.Layout(flex_flow="row wrap")
        self.centred = widgets.Layout(align_items="center")
        self.centred_wrap = widgets.Layout(align_items="center", flex_flow="row wrap")
        self.criterion_label = widgets.Layout(width="260px")
        self.comment_area = widgets.Layout(width="100%", height="52px")
        self.html_style = HTMLStyle()
        self.html_math_style = HTMLMathStyle()
        self.toggle_style = ToggleButtonStyle()
        self.score_buttons_style = widgets.ToggleButtonsStyle(button_width="38px")
        self.description_style = DescriptionStyle(description_width="initial")
        self.text_style = TextStyle()
        self.button_style = widgets.ButtonStyle()
        # a change to a shared look would change every widget that shares it: refused, loudly. Only its
        # look (its synced traits) is watched: closing it (ipywidgets sets its comm to None, as it does for
        # every widget when the kernel ends) is no change of look.
        for shared in vars(self).values():
            shared.observe(_refuse_change, names=[name for name in shared.keys if not name.startswith("_")])

    def html(self, value: str = "", *, layout: widgets.Layout | None = None) -> widgets.HTML:
        """An HTML widget with the shared style and ``layout`` (default: the shared plain one)."""
        return widgets.HTML(value, layout=self.plain if layout is None else layout, style=self.html_style)

    def box(self, cls, children, *, layout: widgets.Layout | None = None):
        """A box (``widgets.HBox`` or ``VBox``) with ``layout`` (default: the shared plain one)."""
        return cls(children, layout=self.plain if layout is None else layout)


class ModelCard(widgets.VBox):
    """One representative model on a card: formula, numbers, figures and the trust entry.

    The card only displays; :class:`ReviewApp` listens to :attr:`trust` and
    :attr:`comment` and writes the changes to the store. ``looks`` (a
    :class:`CardLooks`) are the layouts and styles the page's cards share
    (default: the card's own).

    Attributes
    ----------
    method : str
        The hidden method name (shown only once the review is unblinded).
    label : str
        The blinded name ("Model A").
    trust : ipywidgets.Dropdown
        Rank (1 = most trusted) or rating; 0 = no value yet.
    comment : ipywidgets.Textarea
    problem : ipywidgets.HTML
        What is missing or inconsistent in this card's entry.
    saved : ipywidgets.HTML
        When the card's entry was last saved.
    """

    def __init__(self, row: Mapping, *, label: str, kind: str, n_models: int, latex: str | None,
                 latex_problem: str = "", features_used: Sequence[str] = (), figures=(), figure_note: str = "",
                 value: float | None = None, comment: str = "", choice: str = "closest-to-median",
                 formula_text: str = "", rubric=None, scores: Mapping[str, float] | None = None,
                 looks: CardLooks | None = None, **kwargs):
        looks = CardLooks() if looks is None else looks
        self.method = str(row["method"])
        self.label = label
        self.title = looks.html(self._title_html(revealed=False))
        self.formula_toggle = None
        self.rank_buttons = None  # the comparison row's buttons, when a ComparisonView shows this card
        if latex is not None and formula_text and is_long(row, latex):
            # A long formula is shown as text that wraps inside the card; typeset on demand, in lines
            # (apps/review/typeset.py: on a phone, as wrapping text where it cannot be cut).
            self.formula = looks.html(f"<div class='srdash-formula-text'>ŷ = {html_text(formula_text)}</div>",
                                      layout=looks.full_width)
            # Set (and so typeset by MathJax) when first shown: a long formula typeset out of sight cost each
            # judge's browser thousands of elements for a toggle most never press.
            self._typeset_value = typeset_html(latex, formula_text)
            # its own layout: the toggle shows and hides it
            self.typeset = widgets.HTMLMath("", layout=widgets.Layout(display="none", max_width="100%"),
                                            style=looks.html_math_style)
            self.typeset.add_class("srdash-formula")
            self.formula_toggle = widgets.ToggleButton(description="Show the typeset formula", value=False,
                                                       icon="expand", layout=looks.auto_width,
                                                       style=looks.toggle_style,
                                                       tooltip="The long formula typeset, in lines cut at its terms")
            self.formula_toggle.observe(self._on_formula_toggle_change, "value")
        elif latex is not None:
            # HTMLMath: the LaTeX is escaped as HTML text; MathJax reads the text.
            self.formula = widgets.HTMLMath(typeset_html(latex, formula_text), layout=looks.full_width,
                                            style=looks.html_math_style)
        else:
            self.formula = looks.html(f"<div style='color:#b00'>This model cannot be shown as a formula: "
                                        f"{shown_text(latex_problem.rstrip('.'))}.</div>")
        raw = "" if pd.isna(row.get("model")) else str(row.get("model"))
        # its own layout: the toggle shows and hides it
        self.raw = looks.html(f"<pre>{html_text(raw)}</pre>", layout=widgets.Layout(display="none"))
        self.raw.add_class("srdash-raw")
        self.raw_toggle = widgets.ToggleButton(description="Show the model as submitted", value=False,
                                               icon="code", layout=looks.auto_width, style=looks.toggle_style,
                                               tooltip="The model text exactly as the method wrote it")
        self.raw_toggle.observe(self._on_raw_toggle_change, "value")
        self.metrics = looks.html(self._metrics_html(row, features_used, choice))
        figure_box = [panel for panel in figures]
        if figure_note:
            figure_box.append(looks.html(f"<div class='srdash-explain'>{shown_text(figure_note)}</div>"))
        self.figures = widgets.HBox(figure_box, layout=looks.row_wrap)
        noun = "Trust rank" if kind == "rank" else "Trust rating"
        options = trust_options(kind, n_models)
        initial = int(value) if value is not None and not pd.isna(value) and int(value) in dict(options).values() \
            else NO_VALUE
        self.trust = widgets.Dropdown(options=options, value=initial, description=noun,
                                      style=looks.description_style,
                                      layout=widgets.Layout(width="280px"))   # its own: hidden for a rubric
        self.comment = widgets.Textarea(value=comment or "", placeholder="Optional comment: why do you trust, "
                                        "or not trust, this model?", continuous_update=False,
                                        layout=looks.comment_area, style=looks.text_style)
        self.problem = looks.html("")
        self.saved = looks.html("")
        # A jury's rubric: one row of score buttons per criterion, instead of the trust box.
        self.criterion_buttons: dict[str, widgets.ToggleButtons] = {}
        rubric_rows = []
        if rubric is not None:
            low, high = int(np.ceil(rubric.scale[0])), int(np.floor(rubric.scale[1]))
            for criterion in rubric.criteria:
                given = (scores or {}).get(criterion.name)
                buttons = widgets.ToggleButtons(
                    options=[(str(v), v) for v in range(low, high + 1)],
                    value=int(given) if given is not None and int(given) == given and low <= given <= high else None,
                    tooltips=[f"{v}" + (" (lowest)" if v == low else " (highest)" if v == high else "")
                              for v in range(low, high + 1)],
                    style=looks.score_buttons_style, layout=looks.auto_width)
                buttons.add_class("srdash-rank-row")
                buttons.add_class("srdash-criterion")
                self.criterion_buttons[criterion.name] = buttons
                label = looks.html(f"<span title='{html_text(criterion.description)}'>"
                                   f"<b>{shown_text(criterion.label)}</b></span>", layout=looks.criterion_label)
                rubric_rows.append(widgets.HBox([label, buttons], layout=looks.centred_wrap))
            self.trust.layout.display = "none"
        entry = looks.box(widgets.VBox, [
            *rubric_rows,
            widgets.HBox([self.trust, self.saved], layout=looks.centred),
            self.problem,
            self.comment,
        ])
        self.formula.add_class("srdash-formula")
        toggles = [self.formula_toggle, self.raw_toggle] if self.formula_toggle else [self.raw_toggle]
        formula = [self.formula, self.typeset] if self.formula_toggle else [self.formula]
        toggle_row = looks.box(widgets.HBox, toggles)
        toggle_row.add_class("srdash-toggles")
        super().__init__([self.title, *formula, toggle_row, self.raw, self.metrics,
                          self.figures, entry], **{"layout": looks.full_width, **kwargs})
        self.add_class("srdash-card")

    def _on_formula_toggle_change(self, change) -> None:
        if change["new"] and not self.typeset.value:
            self.typeset.value = self._typeset_value
        self.typeset.layout.display = "block" if change["new"] else "none"
        self.formula_toggle.description = ("Hide the typeset formula" if change["new"]
                                           else "Show the typeset formula")

    def _title_html(self, *, revealed: bool) -> str:
        name = f" <span style='color:#555'>— {shown_text(self.method)}</span>" if revealed else ""
        return f"<h3 style='margin:4px 0'>{shown_text(self.label)}{name}</h3>"

    @staticmethod
    def _metrics_html(row: Mapping, features_used: Sequence[str], choice: str) -> str:
        status = str(row.get("status", "ok"))
        if status in OK_STATUSES:
            simplicity = f"{shown_number(row.get('simplicity'), 1)} ({components_text(row.get('components'))})"
        else:
            simplicity = "not available: the model could not be read, so it counts as the least simple"
        n_runs = int(row.get("n_runs", 1) or 1)
        if n_runs == 1:
            shown_run = "the method's only run on this dataset"
        elif choice == "best":
            shown_run = f"the most accurate of the method's {n_runs} runs on this dataset"
        else:
            shown_run = f"the run whose accuracy is the median of the method's {n_runs} runs on this dataset"
        shown_features = (", ".join(shown_text(f) for f in features_used) if features_used
                          else "none (a constant)" if status in OK_STATUSES else "unknown")
        n = len(features_used)
        uses = f"Uses {n} feature{'' if n == 1 else 's'}" if n else "Features used"
        return (
            "<table class='srdash-metrics'>"
            f"<tr><td><b>Accuracy</b> (test R²)</td><td><b>{shown_number(row.get('r2_test'), 3)}</b></td>"
            "<td class='srdash-explain'>How much of the variation in the test data the model explains: "
            "1 is perfect, 0 is no better than always predicting the average.</td></tr>"
            f"<tr><td><b>Simplicity</b></td><td><b>{simplicity}</b></td>"
            "<td class='srdash-explain'>Components are the numbers, variables and operations of the "
            "simplified formula; simplicity = −log₅(components), so higher is simpler.</td></tr>"
            f"<tr><td><b>{uses}</b></td><td colspan='2'>{shown_features}</td></tr>"
            f"<tr><td><b>Shown run</b></td><td colspan='2' class='srdash-explain'>{shown_run}</td></tr>"
            "</table>"
        )

    def _on_raw_toggle_change(self, change) -> None:
        self.raw.layout.display = "block" if change["new"] else "none"
        self.raw_toggle.description = "Hide the model as submitted" if change["new"] else \
            "Show the model as submitted"

    def reveal(self, revealed: bool) -> None:
        """Show (or hide) the method's name next to the blinded label."""
        self.title.value = self._title_html(revealed=revealed)

    def show_problem(self, message: str) -> None:
        """Show what is wrong with the entry (empty: nothing)."""
        self.problem.value = (f"<div style='color:#a35200'>⚠ {shown_text(message)}</div>" if message else "")
        self.remove_class("srdash-card-problem")
        self.remove_class("srdash-card-done")
        self.add_class("srdash-card-problem" if message else "srdash-card-done")

    def show_saved(self, stamp: str | None, *, error: str = "") -> None:
        """Show when the entry was saved, or why it was not."""
        if error:
            self.saved.value = f"<span style='color:#b00'>✗ not saved: {shown_text(error)}</span>"
        elif stamp:
            self.saved.value = f"<span style='color:#2e8b57'>✓ saved {time_of(stamp)}</span>"
        else:
            self.saved.value = ""

    def lock(self, locked: bool) -> None:
        """Freeze the entry (the review is closed)."""
        self.trust.disabled = locked
        self.comment.disabled = locked
        if self.rank_buttons is not None:
            self.rank_buttons.disabled = locked
        for buttons in self.criterion_buttons.values():
            buttons.disabled = locked

    def rubric_score(self, rubric) -> float | None:
        """The weighted mean of this card's criterion scores (None until every criterion has one)."""
        values = {name: buttons.value for name, buttons in self.criterion_buttons.items()}
        if not values or any(v is None for v in values.values()):
            return None
        return sum(rubric.weights[name] * value for name, value in values.items())
