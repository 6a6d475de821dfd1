"""The trust review app: an expert judges each method's representative model by trust.

One dataset at a time, one card per representative model (see
:mod:`srdash.judging.representative`), shown blinded as "Model A, B, ..." in an order
shuffled per judge and dataset. Every change of a trust value or comment is
written at once to the :class:`~srdash.judging.trust.TrustStore`, and the card says
"saved" only once the store has committed it. Missing or repeated ranks are
shown on the cards while the judge fixes them; nothing is discarded.

At the top of each dataset, a :class:`ComparisonView` shows every model in one
view (formula, accuracy, simplicity, a small predicted-vs-actual plot) with one
row of rank buttons per model, the same entry as the card's box; long formulas
wrap inside their card. When the rules declare a ``[rubric]`` (a jury, see
:mod:`srdash.judging.jury`), each card has a row of score buttons per
criterion instead of the trust rank.

Roles: once the organiser issued access keys (``srdash trust issue-key``), the
visitor's key alone says who they are; a judge sees and changes only their own
entries; only the organiser's key shows the organiser's panel (completeness of
every judge, agreement and flags, revealing with a typed confirmation, and
reopening).

Everything a model or a judge wrote (formulas, raw model strings, comments,
method and dataset names) is shown as text: HTML-escaped, never interpreted.

``srdash review`` serves ``notebooks/review.ipynb``, which shows a
:class:`ReviewPage`: it prepares the representative models in the background
(with a progress bar) and then shows the :class:`ReviewApp`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Mapping, Sequence

import ipywidgets as widgets
import numpy as np
import pandas as pd
import traitlets

from srdash.figures.assets import stylesheet
from srdash.figures.escape import html_text
from srdash.errors import SrdashError
from srdash.figures.leaderboard import leaderboard_html, warnings_html
from srdash.figures.review import over_time_figure, predicted_vs_actual_figure, predicted_vs_actual_thumbnail
from srdash.judging.representative import (
    TestData,
    find_test_file,
    load_test_data,
    predict_test,
    representative_choice,
    representative_runs,
)
from srdash.judging.jury import jury_summary, jury_table, rubric_from_rules
from srdash.judging.rules import Rules, load_rules
from srdash.judging.trust import (
    RATING_SCALE,
    ReviewSettings,
    TrustStore,
    TrustStoreError,
    entry_problems,
    realworld_verdict,
    review_settings,
    trust_summary,
)
from srdash.apps.review_css import REVIEW_CSS
from srdash.apps.review_math import typeset_html
from srdash.apps.review_letters import flag_item_html, judge_values, naming_note
from srdash.apps.review_stamp import CompetitionFingerprint, entries_hash, entries_hash_html
from srdash.apps.panels import (SERVED_DISPLAY_TIMEOUT, BackgroundApp, FigurePanel, LogPanel, ProgressPanel,
                                   logged)

__all__ = ["ReviewPage", "ReviewApp", "ModelCard", "ComparisonView", "DEFAULT_RULES", "REVEAL_CONFIRMATION", "access_key_from_query"]

DEFAULT_RULES = "srbench2022-realworld"
#: What the organiser types to confirm revealing the methods (which closes the review).
REVEAL_CONFIRMATION = "REVEAL"

# Three demo datasets are plenty to try the review (and simplify quickly).
DEMO_DATASETS = ("exact_formula_medium", "featureselection_easy", "extrapolation_easy")
_NO_VALUE = 0
# The output areas need a height of their own: plotly's renderer sizes the plot to its container.
_FIGURE_HEIGHT = 310
_OK_STATUSES = ("ok", "given", "measured")


def _text(value) -> str:
    """Untrusted text, escaped for HTML."""
    return html_text("" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value))


def _number(value, digits: int) -> str:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return "unknown"
    if np.isnan(number):
        return "unknown"
    if np.isinf(number):
        return "failed" if number < 0 else "∞"
    return f"{number:.{digits}f}".replace("-", "−")


def _natural_key(name: str) -> list:
    """Sort key putting x2 before x10 (numbers inside names compared as numbers).

    Examples
    --------
    >>> sorted(["x10", "x2", "x1", "age"], key=_natural_key)
    ['age', 'x1', 'x2', 'x10']
    """
    return [(0, int(part), "") if part.isdigit() else (1, 0, part.lower())
            for part in re.split(r"(\d+)", str(name)) if part]


# A formula longer than this is shown as wrapping text (typeset on demand).
_LONG_COMPONENTS = 60
_LONG_LATEX = 600


def _is_long(row: Mapping, latex: str) -> bool:
    try:
        components = float(row.get("components"))
    except (TypeError, ValueError):
        components = float("nan")
    return len(latex) > _LONG_LATEX or (np.isfinite(components) and components > _LONG_COMPONENTS)


def _components(value) -> str:
    text = _number(value, 0)
    return f"{text} component" + ("" if text == "1" else "s")


def _time_of(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%H:%M:%S")
    except ValueError:
        return stamp


def _trust_options(kind: str, n_models: int) -> list[tuple[str, int]]:
    if kind == "rank":
        options = [("— choose a rank —", _NO_VALUE)]
        for rank in range(1, n_models + 1):
            note = " (most trusted)" if rank == 1 else " (least trusted)" if rank == n_models else ""
            options.append((f"{rank}{note}", rank))
        return options
    low, high = RATING_SCALE
    options = [("— choose a rating —", _NO_VALUE)]
    for rating in range(low, high + 1):
        note = " (least trust)" if rating == low else " (most trust)" if rating == high else ""
        options.append((f"{rating}{note}", rating))
    return options


class ModelCard(widgets.VBox):
    """One representative model on a card: formula, numbers, figures and the trust entry.

    The card only displays; :class:`ReviewApp` listens to :attr:`trust` and
    :attr:`comment` and writes the changes to the store.

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
                 formula_text: str = "", rubric=None, scores: Mapping[str, float] | None = None, **kwargs):
        self.method = str(row["method"])
        self.label = label
        self.title = widgets.HTML(self._title_html(revealed=False))
        self.formula_toggle = None
        self.rank_buttons = None  # the comparison row's buttons, when a ComparisonView shows this card
        if latex is not None and formula_text and _is_long(row, latex):
            # A long formula is shown as text that wraps inside the card; typeset on demand, in lines
            # (apps/review_math.py: on a phone, as wrapping text where it cannot be cut).
            self.formula = widgets.HTML(f"<div class='srdash-formula-text'>ŷ = {html_text(formula_text)}</div>",
                                        layout=widgets.Layout(max_width="100%"))
            self.typeset = widgets.HTMLMath(typeset_html(latex, formula_text),
                                            layout=widgets.Layout(display="none", max_width="100%"))
            self.typeset.add_class("srdash-formula")
            self.formula_toggle = widgets.ToggleButton(description="Show the typeset formula", value=False,
                                                       icon="expand", layout=widgets.Layout(width="auto"),
                                                       tooltip="The long formula typeset, in lines cut at its terms")
            self.formula_toggle.observe(self._on_formula_toggle_change, "value")
        elif latex is not None:
            # HTMLMath: the LaTeX is escaped as HTML text; MathJax reads the text.
            self.formula = widgets.HTMLMath(typeset_html(latex, formula_text), layout=widgets.Layout(max_width="100%"))
        else:
            self.formula = widgets.HTML(f"<div style='color:#b00'>This model cannot be shown as a formula: "
                                        f"{_text(latex_problem.rstrip('.'))}.</div>")
        raw = "" if pd.isna(row.get("model")) else str(row.get("model"))
        self.raw = widgets.HTML(f"<pre>{html_text(raw)}</pre>", layout=widgets.Layout(display="none"))
        self.raw.add_class("srdash-raw")
        self.raw_toggle = widgets.ToggleButton(description="Show the model as submitted", value=False,
                                               icon="code", layout=widgets.Layout(width="auto"),
                                               tooltip="The model text exactly as the method wrote it")
        self.raw_toggle.observe(self._on_raw_toggle_change, "value")
        self.metrics = widgets.HTML(self._metrics_html(row, features_used, choice))
        figure_box = [panel for panel in figures]
        if figure_note:
            figure_box.append(widgets.HTML(f"<div class='srdash-explain'>{_text(figure_note)}</div>"))
        self.figures = widgets.HBox(figure_box, layout=widgets.Layout(flex_flow="row wrap"))
        noun = "Trust rank" if kind == "rank" else "Trust rating"
        options = _trust_options(kind, n_models)
        initial = int(value) if value is not None and not pd.isna(value) and int(value) in dict(options).values() \
            else _NO_VALUE
        self.trust = widgets.Dropdown(options=options, value=initial, description=noun,
                                      style={"description_width": "initial"},
                                      layout=widgets.Layout(width="280px"))
        self.comment = widgets.Textarea(value=comment or "", placeholder="Optional comment: why do you trust, "
                                        "or not trust, this model?", continuous_update=False,
                                        layout=widgets.Layout(width="100%", height="52px"))
        self.problem = widgets.HTML("")
        self.saved = widgets.HTML("")
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
                    style={"button_width": "38px"}, layout=widgets.Layout(width="auto"))
                buttons.add_class("srdash-rank-row")
                buttons.add_class("srdash-criterion")
                self.criterion_buttons[criterion.name] = buttons
                label = widgets.HTML(f"<span title='{html_text(criterion.description)}'>"
                                     f"<b>{_text(criterion.label)}</b></span>",
                                     layout=widgets.Layout(width="260px"))
                rubric_rows.append(widgets.HBox([label, buttons], layout=widgets.Layout(align_items="center",
                                                                                       flex_flow="row wrap")))
            self.trust.layout.display = "none"
        entry = widgets.VBox([
            *rubric_rows,
            widgets.HBox([self.trust, self.saved], layout=widgets.Layout(align_items="center")),
            self.problem,
            self.comment,
        ])
        self.formula.add_class("srdash-formula")
        toggles = [self.formula_toggle, self.raw_toggle] if self.formula_toggle else [self.raw_toggle]
        formula = [self.formula, self.typeset] if self.formula_toggle else [self.formula]
        toggle_row = widgets.HBox(toggles)
        toggle_row.add_class("srdash-toggles")
        super().__init__([self.title, *formula, toggle_row, self.raw, self.metrics,
                          self.figures, entry], layout=widgets.Layout(max_width="100%"), **kwargs)
        self.add_class("srdash-card")

    def _on_formula_toggle_change(self, change) -> None:
        self.typeset.layout.display = "block" if change["new"] else "none"
        self.formula_toggle.description = ("Hide the typeset formula" if change["new"]
                                           else "Show the typeset formula")

    def _title_html(self, *, revealed: bool) -> str:
        name = f" <span style='color:#555'>— {_text(self.method)}</span>" if revealed else ""
        return f"<h3 style='margin:4px 0'>{_text(self.label)}{name}</h3>"

    @staticmethod
    def _metrics_html(row: Mapping, features_used: Sequence[str], choice: str) -> str:
        status = str(row.get("status", "ok"))
        if status in _OK_STATUSES:
            simplicity = f"{_number(row.get('simplicity'), 1)} ({_components(row.get('components'))})"
        else:
            simplicity = "not available: the model could not be read, so it counts as the least simple"
        n_runs = int(row.get("n_runs", 1) or 1)
        if n_runs == 1:
            shown_run = "the method's only run on this dataset"
        elif choice == "best":
            shown_run = f"the most accurate of the method's {n_runs} runs on this dataset"
        else:
            shown_run = f"the run whose accuracy is the median of the method's {n_runs} runs on this dataset"
        shown_features = (", ".join(_text(f) for f in features_used) if features_used
                          else "none (a constant)" if status in _OK_STATUSES else "unknown")
        n = len(features_used)
        uses = f"Uses {n} feature{'' if n == 1 else 's'}" if n else "Features used"
        return (
            "<table class='srdash-metrics'>"
            f"<tr><td><b>Accuracy</b> (test R²)</td><td><b>{_number(row.get('r2_test'), 3)}</b></td>"
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
        self.problem.value = (f"<div style='color:#a35200'>⚠ {_text(message)}</div>" if message else "")
        self.remove_class("srdash-card-problem")
        self.remove_class("srdash-card-done")
        self.add_class("srdash-card-problem" if message else "srdash-card-done")

    def show_saved(self, stamp: str | None, *, error: str = "") -> None:
        """Show when the entry was saved, or why it was not."""
        if error:
            self.saved.value = f"<span style='color:#b00'>✗ not saved: {_text(error)}</span>"
        elif stamp:
            self.saved.value = f"<span style='color:#2e8b57'>✓ saved {_time_of(stamp)}</span>"
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



def _compare_row(summary_html: str, control: widgets.Widget) -> widgets.HBox:
    """One model's line in the compact comparison: its summary, then the control that orders or scores it."""
    summary = widgets.HTML(summary_html, layout=widgets.Layout(flex="1 1 360px", min_width="0"))
    line = widgets.HBox([summary, control], layout=widgets.Layout(align_items="center", flex_flow="row wrap",
                                                                 width="100%"))
    line.add_class("srdash-compare-row")
    return line

class ComparisonView(widgets.VBox):
    """Every model of a dataset in one view, with one place to order them.

    One row per model, in the judge's blinded order: its label, a small
    predicted-vs-actual plot, the start of its formula (in full on hover and
    on its card below), accuracy and simplicity, and a row of buttons with
    the trust ranks (or ratings). The buttons and the card's own box are the
    same entry: changing one changes the other, and every change is saved.
    The buttons are keyboard usable (Tab to a button, Enter or Space to pick).

    Parameters
    ----------
    cards : sequence of ModelCard
    rows : sequence of mapping
        The cards' representative rows (``r2_test``, ``simplicity``, ``components``, ``status``).
    texts : sequence of str
        Each model's formula as text.
    thumbnails : sequence of str
        Each model's predicted-vs-actual SVG, or a short note saying why there is none.
    kind : {'rank', 'rating'}
    """

    def __init__(self, cards: Sequence[ModelCard], rows: Sequence[Mapping], texts: Sequence[str],
                 thumbnails: Sequence[str], *, kind: str, rubric=None, **kwargs):
        self.cards = list(cards)
        self.rubric = rubric
        n = len(self.cards)
        if rubric is not None:
            return self._init_rubric(rows, texts, thumbnails, **kwargs)
        if kind == "rank":
            options = [(str(rank), rank) for rank in range(1, n + 1)]
            tooltips = [f"rank {rank}" + (" (most trusted)" if rank == 1 else " (least trusted)" if rank == n else "")
                        for rank in range(1, n + 1)]
        else:
            low, high = RATING_SCALE
            options = [(str(rating), rating) for rating in range(low, high + 1)]
            tooltips = [f"rating {r}" + (" (least trust)" if r == low else " (most trust)" if r == high else "")
                        for r in range(low, high + 1)]
        self.order = widgets.HTML("")
        self._kind = kind
        children = [widgets.HTML(
            "<div class='srdash-explain' style='margin:4px 0'>"
            + ("Order the models here: press a rank button on each row (1 = most trusted). "
               if kind == "rank" else "Rate the models here: press a rating on each row (5 = most trust). ")
            + "Tab moves between buttons, Enter or Space picks one. The cards below show each model in full."
            + "</div>")]
        for card, row, text, thumbnail in zip(self.cards, rows, texts, thumbnails):
            buttons = widgets.ToggleButtons(options=options, value=None, tooltips=tooltips,
                                            style={"button_width": "38px"},
                                            layout=widgets.Layout(width="auto"))
            buttons.add_class("srdash-rank-row")
            current = card.trust.value
            buttons.value = current if current in dict(options).values() else None
            buttons.observe(functools.partial(self._on_button_change, card), "value")
            card.trust.observe(functools.partial(self._on_card_change, buttons), "value")
            card.rank_buttons = buttons
            children.append(self._row(card, row, text, thumbnail, buttons))
        children.append(self.order)
        super().__init__(children, **kwargs)
        self.add_class("srdash-compare")
        self.refresh()

    def _row(self, card: ModelCard, row: Mapping, text: str, thumbnail: str, control) -> widgets.HBox:
        line = _compare_row(self._summary_html(card.label, row, text, thumbnail), control)
        self._summaries = getattr(self, "_summaries", [])
        self._summaries.append((line.children[0], card, row, text, thumbnail))
        return line

    def reveal(self, revealed: bool) -> None:
        """Show (or hide) each method's name beside its blinded label, as the cards do."""
        self.revealed = revealed
        for summary, card, row, text, thumbnail in getattr(self, "_summaries", []):
            summary.value = self._summary_html(card.label, row, text, thumbnail,
                                               method=card.method if revealed else None)
        self.refresh()

    def _name(self, card: ModelCard) -> str:
        """The card's label, with the method's name once revealed (plain text)."""
        return f"{card.label} ({card.method})" if getattr(self, "revealed", False) else card.label

    @staticmethod
    def _summary_html(label: str, row: Mapping, text: str, thumbnail: str, *, method: str | None = None) -> str:
        status = str(row.get("status", "ok"))
        simplicity = (f"{_number(row.get('simplicity'), 1)} ({_components(row.get('components'))})"
                      if status in _OK_STATUSES else "not available")
        short = text if len(text) <= 240 else text[:240] + "… (whole on its card below)"
        plot = thumbnail if thumbnail.startswith("<svg") else (
            "<div style='width:96px;height:96px;border:1px dashed #ccc;font-size:10px;color:#777;display:flex;"
            f"align-items:center;justify-content:center;text-align:center'>{_text(thumbnail or 'no test data')}</div>")
        return ("<table style='width:100%;table-layout:fixed'><tr>"
                f"<td style='width:80px'><b>{_text(label)}</b>"
                + (f"<div class='srdash-revealed-name' style='color:#555;overflow-wrap:anywhere'>{_text(method)}</div>"
                   if method is not None else "")
                + f"</td><td style='width:104px'>{plot}</td>"
                f"<td><div class='srdash-compare-formula' title='{html_text(text)}'>"
                f"ŷ = {html_text(short) or '—'}</div>"
                f"<div>Accuracy (test R²) <b>{_number(row.get('r2_test'), 3)}</b> · Simplicity <b>{simplicity}</b>"
                "</div></td></tr></table>")

    def _init_rubric(self, rows, texts, thumbnails, **kwargs) -> None:
        """A jury's view: each model's score so far (scored on the cards below, per criterion)."""
        self._kind = "rubric"
        self.order = widgets.HTML("")
        self._score_labels = {}
        children = [widgets.HTML("<div class='srdash-explain' style='margin:4px 0'>Score each model on every "
                                 "criterion on its card below; its score here is the weighted mean of yours.</div>")]
        for card, row, text, thumbnail in zip(self.cards, rows, texts, thumbnails):
            label = widgets.HTML("", layout=widgets.Layout(width="200px"))
            self._score_labels[card.label] = label
            for buttons in card.criterion_buttons.values():
                buttons.observe(lambda change: self.refresh(), "value")
            children.append(self._row(card, row, text, thumbnail, label))
        children.append(self.order)
        super().__init__(children, **kwargs)
        self.add_class("srdash-compare")
        self.refresh()

    def _on_button_change(self, card: ModelCard, change) -> None:
        card.trust.value = _NO_VALUE if change["new"] is None else change["new"]
        self.refresh()

    def _on_card_change(self, buttons, change) -> None:
        buttons.value = None if change["new"] == _NO_VALUE else change["new"]
        self.refresh()

    def refresh(self) -> None:
        """Say the judge's current order and what is left."""
        if self._kind == "rubric":
            return self._refresh_rubric()
        given = sorted(((c.trust.value, self._name(c)) for c in self.cards if c.trust.value != _NO_VALUE),
                       key=lambda pair: (pair[0] if self._kind == "rank" else -pair[0], pair[1]))
        missing = [self._name(c) for c in self.cards if c.trust.value == _NO_VALUE]
        noun = "order" if self._kind == "rank" else "ratings"
        shown = " · ".join(f"{value} {_text(label)}" for value, label in given) or "nothing yet"
        to_fix = []
        if missing:
            to_fix.append(f"still to {'rank' if self._kind == 'rank' else 'rate'}: "
                          f"{', '.join(_text(m) for m in missing)}")
        if self._kind == "rank":
            holders: dict = {}
            for value, label in given:
                holders.setdefault(value, []).append(label)
            to_fix += [f"rank {value} is given to {' and '.join(_text(label) for label in labels)} "
                       "(each rank once)" for value, labels in sorted(holders.items()) if len(labels) > 1]
        left = (f" — <span style='color:#a35200'>{'; '.join(to_fix)}</span>" if to_fix else
                " — <span style='color:#2e8b57'>every model has a value</span>")
        self.order.value = f"<div style='margin:6px 0'><b>Your {noun}:</b> {shown}{left}</div>"

    def _refresh_rubric(self) -> None:
        scored, missing = [], []
        for card in self.cards:
            label_of_card = self._name(card)
            score = card.rubric_score(self.rubric)
            done = sum(1 for b in card.criterion_buttons.values() if b.value is not None)
            self._score_labels[card.label].value = (
                f"Your score <b>{score:.2f}</b>" if score is not None else
                f"<span style='color:#a35200'>{done} of {len(card.criterion_buttons)} criteria scored</span>")
            (scored if score is not None else missing).append((score, label_of_card))
        shown = " · ".join(f"{_text(label)} {score:.2f}" for score, label in sorted(
            scored, key=lambda pair: (-pair[0], pair[1]))) or "nothing yet"
        left = (f" — <span style='color:#a35200'>still to score: {', '.join(_text(m) for _, m in missing)}</span>"
                if missing else " — <span style='color:#2e8b57'>every model is scored</span>")
        self.order.value = f"<div style='margin:6px 0'><b>Your scores, best first:</b> {shown}{left}</div>"


class ReviewApp(widgets.VBox):
    """The trust review of one judge (optionally with the organiser's panel).

    Parameters
    ----------
    representatives : DataFrame
        One row per (method, dataset), as :func:`srdash.judging.representative.representative_runs`
        returns them from prepared runs (``model``, ``simplified``, ``r2_test``,
        ``simplicity``, ``components``, ``status``, ``features_used``, ``n_runs``).
    store : TrustStore
    judge : str
        The judge's name, as stored with every entry.
    rules : str or Rules
        Rules with a ``trust`` criterion (default ``srbench2022-realworld``).
    settings : ReviewSettings, optional
        Default: the rules' (rank or rating input, strict ranks).
    methods : sequence of str, optional
        The competition's methods (default: those in ``representatives``); a
        method without a representative on a dataset is DNF in the leaderboard.
    features : mapping of dataset to feature names, optional
    data_dir : path, optional
        Folder with the datasets' test files (see :func:`srdash.judging.representative.find_test_file`).
    organiser : bool
        Show the organiser's panel: judges x datasets completeness, agreement
        between judges, revealing (which closes the review; typed confirmation)
        and reopening, and the real-world leaderboard.
    source : str
        Where the results came from, shown in the header.
    disagreement_threshold : float
        The organiser's panel flags the models whose judges' ranks differ by
        more than this.
    figures_when_near : bool
        Draw a card's figures only once the browser has scrolled the card near
        the screen (a served page: ``FigurePanel(when_near=True)``); False (a
        notebook): at once.
    competition : Competition, optional
        The competition whose real-world track is reviewed: once revealed, the organiser's panel shows its
        verdict fingerprint, the one ``srdash score`` prints (without it: the review's entries hash).

    Examples
    --------
    >>> import tempfile
    >>> reps = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "model": ["x1", "2*x1"],
    ...                      "r2_test": [0.5, 0.6], "simplicity": [0.0, -0.4], "components": [1.0, 3.0],
    ...                      "status": "given", "simplified": "", "features_used": "x1", "n_runs": 1})
    >>> with tempfile.TemporaryDirectory() as folder, TrustStore(Path(folder) / "t.sqlite", seed=0) as store:
    ...     app = ReviewApp(reps, store, judge="ann")
    ...     app.cards["d"][0].trust.value = 1
    ...     store.entries()[["judge", "dataset", "kind", "value"]].values.tolist()
    [['ann', 'd', 'rank', 1.0]]
    """

    judge = traitlets.Unicode(read_only=True)
    dataset = traitlets.Unicode("")
    revealed = traitlets.Bool(False)

    def __init__(self, representatives: pd.DataFrame, store: TrustStore, *, judge: str,
                 rules: str | Rules = DEFAULT_RULES, settings: ReviewSettings | None = None,
                 methods: Sequence[str] | None = None, features: Mapping[str, Sequence[str]] | None = None,
                 data_dir: str | Path | None = None, organiser: bool = False, source: str = "",
                 disagreement_threshold: float = 2.0, figures_when_near: bool = False, competition=None,
                 **kwargs):
        if not isinstance(judge, str) or not judge.strip():
            raise SrdashError(f"The review needs the judge's name (--judge NAME). Got {judge!r}.")
        self.set_trait("judge", judge.strip())
        self.store = store
        self.rules = load_rules(rules)
        self.settings = settings or review_settings(self.rules)
        self.rubric = rubric_from_rules(self.rules)  # None: a trust rank (or rating) per model
        self.representatives = representatives.reset_index(drop=True)
        self.choice = representative_choice(self.rules)
        self.methods = sorted(set(methods) if methods is not None else set(self.representatives.get("method", [])))
        self.features = dict(features or {})
        self.data_dir = Path(data_dir) if data_dir else None
        self.organiser = organiser
        self.disagreement_threshold = float(disagreement_threshold)
        self.figures_when_near = bool(figures_when_near)
        self.datasets = sorted(set(self.representatives["dataset"])) if len(self.representatives) else []
        self.cards: dict[str, list[ModelCard]] = {}
        self.comparisons: dict[str, ComparisonView] = {}
        self._values: dict[str, dict[str, float | None]] = {d: {} for d in self.datasets}
        self._scores: dict[str, dict[str, dict[str, float]]] = {d: {} for d in self.datasets}
        self._comments: dict[str, dict[str, str]] = {d: {} for d in self.datasets}
        self._stamps: dict[str, dict[str, str]] = {d: {} for d in self.datasets}
        self._unsaved: set[tuple] = set()  # (dataset, method, field) whose last change failed

        self.log_panel = LogPanel()
        # a review of a competition shows its verdict fingerprint once revealed (srdash score's)
        self.competition_fingerprint = None if competition is None else CompetitionFingerprint(
            competition, report=lambda error: self.log_panel.report(error, context="judging the competition"))
        self.header = widgets.HTML(self._header_html(source))
        self.instructions = widgets.HTML(self._instructions_html())
        self.saved_indicator = widgets.HTML("")
        self.progress = widgets.HTML("")
        self.previous_button = widgets.Button(description="Previous dataset", icon="arrow-left",
                                              layout=widgets.Layout(width="auto"))
        self.next_button = widgets.Button(description="Next dataset", icon="arrow-right",
                                          layout=widgets.Layout(width="auto"))
        self.dataset_picker = widgets.Dropdown(options=self.datasets, description="Dataset",
                                               layout=widgets.Layout(width="auto"))
        self.dataset_info = widgets.HTML("")
        self.cards_box = widgets.VBox([])
        self.organiser_panel = widgets.VBox([])
        self.previous_button.on_click(lambda _: self._step(-1))
        self.next_button.on_click(lambda _: self._step(+1))
        navigation = widgets.HBox([self.previous_button, self.dataset_picker, self.next_button,
                                   self.saved_indicator], layout=widgets.Layout(align_items="center",
                                                                                flex_flow="row wrap"))
        # srdash's stylesheet too: the organiser's leaderboard and jury model are the report's tables
        children = [widgets.HTML(f"<style>{stylesheet()}</style>{REVIEW_CSS}"), self.header]
        if organiser:
            # the organiser's panel (leaderboard, the judges' progress) first; the instructions and the
            # organiser's own entries (self.progress) come after it
            self._build_organiser_panel()
            children.append(self.organiser_panel)
        children.append(self.instructions)
        children += [self.progress, navigation, self.dataset_info, self.cards_box, self.log_panel]
        super().__init__(children, **kwargs)
        self.add_class("srdash-review")

        self._load_entries()
        self.revealed = self.store.closed is not None
        if not self.datasets:
            self.dataset_info.value = ("<div style='color:#b00'>There is no model to review: the results have "
                                       "no runs.</div>")
            return
        # Come back to where the judge left off (read before the link below records a position).
        remembered = self.store.position(self.judge)
        self.dataset_picker.value = remembered if remembered in self.datasets else self._first_incomplete()
        widgets.dlink((self.dataset_picker, "value"), (self, "dataset"))
        self._refresh_progress()

    # ------------------------------------------------------------------ state

    def _load_entries(self) -> None:
        if self.rubric is not None:
            for row in self.store.jury_scores(judge=self.judge).itertuples():
                if row.dataset in self._scores and not pd.isna(row.score):
                    self._scores[row.dataset].setdefault(row.method, {})[row.criterion] = float(row.score)
                    self._stamps[row.dataset][row.method] = row.updated_at
        entries = self.store.entries(judge=self.judge)
        other_kind = entries[(entries["kind"] != self.settings.trust_input) & entries["value"].notna()]
        for row in entries.itertuples():
            if row.dataset not in self._values:
                continue
            self._comments[row.dataset][row.method] = row.comment
            self._stamps[row.dataset][row.method] = row.updated_at
            if row.kind == self.settings.trust_input:
                self._values[row.dataset][row.method] = None if pd.isna(row.value) else float(row.value)
        for dataset in sorted(set(other_kind["dataset"]) & set(self.datasets)):
            self.log_panel.info(f"Your earlier entries on {dataset} are trust "
                                f"{'ratings' if self.settings.trust_input == 'rank' else 'ranks'}; this review "
                                f"asks for {self.settings.trust_input}s, so they are not shown.")

    def _models(self, dataset: str) -> list[str]:
        return list(self.representatives.loc[self.representatives["dataset"] == dataset, "method"])

    def _problems(self, dataset: str) -> dict[str, str]:
        methods = self._models(dataset)
        if self.rubric is not None:
            problems = {}
            for method in methods:
                mine = self._scores[dataset].get(method, {})
                missing = [c.label for c in self.rubric.criteria if c.name not in mine]
                if missing:
                    problems[method] = f"No score yet for {', '.join(missing)}."
            return problems
        labels = self.store.blinded_labels(self.judge, dataset, methods)
        values = {m: self._values[dataset].get(m) for m in methods}
        return entry_problems(values, kind=self.settings.trust_input, strict=self.settings.strict_ranks,
                              labels=labels)

    def _first_incomplete(self) -> str:
        return next((d for d in self.datasets if self._problems(d)), self.datasets[0])

    def complete(self, dataset: str) -> bool:
        """Whether this judge's entries on ``dataset`` are complete and valid."""
        return not self._problems(dataset)

    # ------------------------------------------------------------------ navigation

    @logged("changing the dataset")
    def _step(self, offset: int) -> None:
        index = self.datasets.index(self.dataset) + offset
        self.dataset_picker.value = self.datasets[index % len(self.datasets)]

    @traitlets.observe("dataset")
    def _on_dataset_change(self, change) -> None:
        self._show_dataset(change["new"])

    @logged("showing the dataset")
    def _show_dataset(self, dataset: str) -> None:
        if dataset not in self.datasets:
            return
        if dataset not in self.cards:
            self.cards[dataset] = self._build_cards(dataset)
        # the organiser's letters are their own: each judge's page letters the models in another order
        whose = (f" <span class='srdash-explain'>({_text(self.judge)}'s own letters; each judge's page orders and "
                 "letters the models differently)</span>" if self.organiser and not self.revealed else "")
        self.cards_box.children = [
            widgets.HTML(f"<h3 style='margin:8px 0 2px 0'>All models at a glance{whose}</h3>"),
            self.comparisons[dataset],
            widgets.HTML("<h3 style='margin:14px 0 2px 0'>Each model in detail</h3>"),
            *self.cards[dataset]]
        n = len(self.cards[dataset])
        position = self.datasets.index(dataset) + 1
        what = ("The review is closed: the entries below are read-only." if self.store.closed is not None else
                f"Score each model on the {len(self.rubric.criteria)} criteria of the rubric, from "
                f"{self.rubric.scale[0]:g} (lowest) to {self.rubric.scale[1]:g} (highest)."
                if self.rubric is not None else
                "Give each model a trust rank: 1 for the model you trust most, "
                f"{n} for the one you trust least, each rank once."
                if self.settings.trust_input == "rank" else
                "Give each model a trust rating from 1 (least trust) to 5 (most trust); models may share a rating.")
        self.dataset_info.value = (f"<h2 style='margin:10px 0 2px 0'>Dataset {position} of {len(self.datasets)}: "
                                   f"{_text(dataset)}</h2><div>{n} models. {html_text(what)}</div>")
        self._validate(dataset)
        try:
            self.store.set_position(self.judge, dataset)
        except TrustStoreError as error:
            self.log_panel.report(error, context="remembering where you are")

    # ------------------------------------------------------------------ cards

    def _build_cards(self, dataset: str) -> list[ModelCard]:
        rows = self.representatives[self.representatives["dataset"] == dataset].set_index("method")
        labels = self.store.blinded_labels(self.judge, dataset, rows.index)  # in the judge's blinded order
        test_data, data_note = self._test_data(dataset)
        cards, shown_rows, texts, thumbnails = [], [], [], []
        for method, label in labels.items():
            row = {"method": method, **rows.loc[method].to_dict()}
            latex, latex_problem = self._latex(row, dataset)
            predicted, note = self._predict(row, dataset, test_data, data_note)
            figures = self._figures(predicted, test_data)
            text = self._formula_text(row)
            card = ModelCard(row, label=label, kind=self.settings.trust_input, n_models=len(labels), latex=latex,
                             latex_problem=latex_problem, features_used=self._features_used(row),
                             figures=figures, figure_note=note,
                             value=self._values[dataset].get(method),
                             comment=self._comments[dataset].get(method, ""), choice=self.choice,
                             formula_text=text, rubric=self.rubric,
                             scores=self._scores[dataset].get(method))
            card.show_saved(self._stamps[dataset].get(method))
            card.reveal(self.revealed)
            card.trust.observe(functools.partial(self._on_trust_change, dataset, card), "value")
            card.comment.observe(functools.partial(self._on_comment_change, dataset, card), "value")
            for criterion, buttons in card.criterion_buttons.items():
                buttons.observe(functools.partial(self._on_score_change, dataset, card, criterion), "value")
            cards.append(card)
            shown_rows.append(row)
            texts.append(text)
            thumbnails.append(predicted_vs_actual_thumbnail(test_data.target, predicted) if predicted is not None
                              else "no test data" if test_data is None else "no predictions")
        self.comparisons[dataset] = ComparisonView(cards, shown_rows, texts, thumbnails,
                                                   kind=self.settings.trust_input, rubric=self.rubric)
        self.comparisons[dataset].reveal(self.revealed)
        for card in cards:
            card.lock(self.store.closed is not None)
        return cards

    @staticmethod
    def _formula_text(row: Mapping) -> str:
        simplified = row.get("simplified")
        text = simplified if isinstance(simplified, str) and simplified.strip() else row.get("model")
        return text.strip() if isinstance(text, str) else ""

    def _latex(self, row: Mapping, dataset: str) -> tuple[str | None, str]:
        from srdash.expressions import latex_of  # the only module that talks to sympy

        simplified = row.get("simplified")
        text = simplified if isinstance(simplified, str) and simplified.strip() else row.get("model")
        if not isinstance(text, str) or not text.strip():
            return None, "the method gave no model"
        try:
            return latex_of(text, features=self.features.get(dataset) or None), ""
        except SrdashError as error:
            return None, str(error)

    @staticmethod
    def _features_used(row: Mapping) -> list[str]:
        used = row.get("features_used")
        if isinstance(used, str):
            names = [name for name in used.replace(",", " ").split() if name]
        elif isinstance(used, (list, tuple)):
            names = [str(name) for name in used]
        else:
            names = []
        return sorted(names, key=_natural_key)      # x1, x2, x10 (not x1, x10, x2)

    def _test_data(self, dataset: str) -> tuple[TestData | None, str]:
        if self.data_dir is None:
            return None, "No test data given (start the review with --data DIR to see predictions)."
        path = find_test_file(self.data_dir, dataset)
        if path is None:
            return None, f"No test data file for {dataset} in {self.data_dir}."
        try:
            return load_test_data(path), ""
        except SrdashError as error:
            return None, str(error)

    def _predict(self, row: Mapping, dataset: str, data: TestData | None, note: str):
        """The model's test predictions (None, with the reason, when there are none)."""
        if data is None:
            return None, note
        model = row.get("model")
        if not isinstance(model, str) or not model.strip():
            return None, "No model, so no predictions."
        try:
            return predict_test(model, data, features=self.features.get(dataset) or None), ""
        except SrdashError as error:
            return None, f"No predictions: {error}"

    def _figures(self, predicted, data: TestData | None) -> list:
        if predicted is None:
            return []
        panels = []
        scatter = FigurePanel(layout=widgets.Layout(width="380px", height=f"{_FIGURE_HEIGHT}px"),
                              when_near=self.figures_when_near)
        scatter.add_class("srdash-figure")
        scatter.show(predicted_vs_actual_figure(data.target, predicted, target=str(data.target.name)))
        panels.append(scatter)
        if data.dates is not None:
            timeline = FigurePanel(layout=widgets.Layout(width="560px", height=f"{_FIGURE_HEIGHT}px"),
                                   when_near=self.figures_when_near)
            timeline.add_class("srdash-figure")
            timeline.show(over_time_figure(data.dates, data.target, predicted, target=str(data.target.name)))
            panels.append(timeline)
        return panels

    # ------------------------------------------------------------------ saving

    @logged("saving a trust value")
    def _on_trust_change(self, dataset: str, card: ModelCard, change) -> None:
        value = None if change["new"] == _NO_VALUE else int(change["new"])
        self._values[dataset][card.method] = value
        self._save(dataset, card, value=value)
        self._validate(dataset)
        self._refresh_progress()

    @logged("saving a score")
    def _on_score_change(self, dataset: str, card: ModelCard, criterion: str, change) -> None:
        saved, _ = self._write(dataset, card, (dataset, card.method, criterion), lambda: self.store.record_score(
            self.judge, dataset, card.method, criterion, change["new"], rubric=self.rubric))
        if saved:
            mine = self._scores[dataset].setdefault(card.method, {})
            if change["new"] is None:
                mine.pop(criterion, None)
            else:
                mine[criterion] = float(change["new"])
            card.show_saved(datetime.now().isoformat())
            self.saved_indicator.value = ("<span style='color:#2e8b57;font-weight:bold'>✓ All changes saved</span>"
                                          if not self._unsaved else self.saved_indicator.value)
        self._validate(dataset)
        self._refresh_progress()

    def _write(self, dataset: str, card: ModelCard, field: tuple, write) -> tuple[bool, object]:
        """Run ``write()`` (one store call): (saved, its result). A failure is marked on the card and
        reported in the log (the judge must see that a change was not saved), and remembered until saved."""
        try:
            result = write()
        except Exception as error:  # noqa: BLE001 - shown on the card and in the log
            self._unsaved.add(field)
            card.show_saved(None, error=str(error))
            self.log_panel.report(error, context=f"saving {card.label} on {dataset}")
            return False, None
        self._unsaved.discard(field)
        return True, result

    @logged("saving a comment")
    def _on_comment_change(self, dataset: str, card: ModelCard, change) -> None:
        self._comments[dataset][card.method] = change["new"]
        self._save(dataset, card, comment=change["new"])

    def _save(self, dataset: str, card: ModelCard, **change) -> None:
        saved, entry = self._write(dataset, card, (dataset, card.method, *change), lambda: self.store.record(
            self.judge, dataset, card.method, kind=self.settings.trust_input, source="app", **change))
        if saved:
            self._stamps[dataset][card.method] = entry.updated_at
            card.show_saved(entry.updated_at)
        if self._unsaved:
            self.saved_indicator.value = (f"<span style='color:#b00;font-weight:bold'>✗ {len(self._unsaved)} "
                                          "change(s) NOT saved: see the cards marked ✗ and the log below.</span>")
        else:
            self.saved_indicator.value = (f"<span style='color:#2e8b57;font-weight:bold'>✓ All changes saved "
                                          f"(last {_time_of(entry.updated_at)})</span>")

    def _validate(self, dataset: str) -> None:
        # once the review is closed nothing can be fixed, so nothing is flagged
        problems = self._problems(dataset) if self.store.closed is None else {}
        for card in self.cards.get(dataset, []):
            card.show_problem(problems.get(card.method, ""))

    def _refresh_progress(self) -> None:
        done = [d for d in self.datasets if self.complete(d)]
        items = []
        for dataset in self.datasets:
            n = len(self._models(dataset))
            without = sum(1 for p in self._problems(dataset).values() if p.startswith("No "))
            given = n - without
            mark = "✓" if dataset in done else f"{given}/{n}"
            colour = "#2e8b57" if dataset in done else "#a35200" if given else "#777"
            items.append(f"<span style='color:{colour};margin-right:14px'>{_text(dataset)} {mark}</span>")
        left = []
        for dataset in self.datasets:
            if dataset in done:
                continue
            problems = self._problems(dataset)
            missing = sum(1 for p in problems.values() if p.startswith("No "))
            noun = ("all its scores" if self.rubric is not None else
                    "a rank" if self.settings.trust_input == "rank" else "a rating")
            left.append(f"{_text(dataset)} ({missing} model{'s' if missing != 1 else ''} without {noun})"
                        if missing else f"{_text(dataset)} (fix the repeated ranks)")
        closed = self.store.closed
        if len(done) < len(self.datasets):
            summary = f"<b>Your progress: {len(done)} of {len(self.datasets)} datasets reviewed.</b> "
            # once the review is closed nothing is left to do: entries cannot change
            summary += f"Still to do: {'; '.join(left)}.<br>" if closed is None else ""
        else:
            summary = (f"<b style='color:#2e8b57'>All {len(self.datasets)} datasets reviewed — thank you."
                       + (" You can still change any entry." if closed is None else "") + "</b> ")
        if closed is not None:
            at, by = closed
            summary += f"<b>The review was closed by {_text(by)} ({_text(at[:16])}); entries are read-only.</b> "
        if self.organiser:
            # the organiser's own entries (if any) are not the judges' progress, which is in the panel above
            given_any = any(v is not None for d in self.datasets for v in self._values[d].values()) or any(
                self._scores[d] for d in self.datasets)
            summary = (f"<b>Your own entries as a judge</b> ({_text(self.judge)}): " + summary if given_any else
                       "<span class='srdash-explain'>You have made no entry as a judge yourself; the judges' "
                       "progress is in the organiser's panel above.</span> "
                       + (f"<b>The review was closed by {_text(closed[1])} ({_text(closed[0][:16])}); entries are "
                          "read-only.</b> " if closed is not None else ""))
            if not given_any:
                items = []
        self.progress.value = f"<div style='margin:6px 0'>{summary}{''.join(items)}</div>"
        if self.organiser:
            self._refresh_organiser_panel()

    # ------------------------------------------------------------------ unblinding

    @traitlets.observe("revealed")
    def _on_revealed_change(self, change) -> None:
        for cards in self.cards.values():
            for card in cards:
                card.reveal(change["new"])
        for comparison in self.comparisons.values():
            comparison.reveal(change["new"])

    def _build_organiser_panel(self) -> None:
        self.confirm_reveal = widgets.Text(value="", placeholder=f"type {REVEAL_CONFIRMATION} to confirm",
                                           description="Confirm", continuous_update=True,
                                           layout=widgets.Layout(width="300px"))
        self.reveal_button = widgets.Button(description="Reveal the methods and close the review",
                                            button_style="warning", icon="eye", disabled=True,
                                            layout=widgets.Layout(width="auto"))
        self.reopen_button = widgets.Button(description="Reopen the review", icon="unlock",
                                            tooltip="Let the judges change their entries again (kept in the "
                                                    "store's history)",
                                            layout=widgets.Layout(width="auto", display="none"))
        self.refresh_button = widgets.Button(description="Refresh", icon="refresh",
                                             tooltip="Read every judge's latest entries from the store",
                                             layout=widgets.Layout(width="auto"))
        self.confirm_reveal.observe(self._on_confirm_reveal_change, "value")
        self.reveal_button.on_click(lambda _: self.unblind())
        self.reopen_button.on_click(lambda _: self.reopen())
        self.refresh_button.on_click(lambda _: self._refresh_organiser_panel())
        self.organiser_status = widgets.HTML("")
        self.completeness = widgets.HTML("")
        self.reveal_help = widgets.HTML("")
        self.leaderboard = widgets.HTML("")
        self.organiser_panel.children = [
            widgets.HTML("<h2 style='margin:6px 0 4px 0'>Organiser</h2>"),
            self.leaderboard,         # the verdict first, then who has finished what
            self.completeness, self.organiser_status, widgets.HBox([self.refresh_button]),
            self.reveal_help,
            widgets.HBox([self.confirm_reveal, self.reveal_button, self.reopen_button],
                         layout=widgets.Layout(align_items="center", flex_flow="row wrap")),
        ]
        self.organiser_panel.add_class("srdash-organiser")
        self.organiser_panel.layout = widgets.Layout(border="1px solid #d0d7de", padding="6px 14px",
                                                     margin="8px 0")

    def _on_confirm_reveal_change(self, change) -> None:
        self.reveal_button.disabled = (change["new"].strip() != REVEAL_CONFIRMATION
                                       or self.store.closed is not None)

    @logged("revealing the methods")
    def unblind(self) -> None:
        """Reveal the method names and close the review (every entry becomes read-only).

        Refused unless the organiser typed the confirmation (see :data:`REVEAL_CONFIRMATION`).
        """
        if not self.organiser:
            raise SrdashError("Only the organiser can reveal the methods.")
        if self.confirm_reveal.value.strip() != REVEAL_CONFIRMATION:
            raise SrdashError(f"Type {REVEAL_CONFIRMATION} in the box to confirm: revealing the methods closes "
                              "the review for every judge.")
        self.store.unblind(by=self.judge)
        self.confirm_reveal.value = ""
        self._set_closed(True)

    @logged("reopening the review")
    def reopen(self) -> None:
        """Reopen the closed review: entries can change again (recorded in the store's events)."""
        if not self.organiser:
            raise SrdashError("Only the organiser can reopen the review.")
        self.store.reopen(by=self.judge, reason="from the organiser's panel")
        self._set_closed(False)

    def _set_closed(self, closed: bool) -> None:
        self.revealed = closed or self.revealed
        for dataset, cards in self.cards.items():
            for card in cards:
                card.lock(closed)
            self._validate(dataset)
        self.instructions.value = self._instructions_html()
        if self.dataset in self.cards:
            self._show_dataset(self.dataset)
        self._refresh_progress()

    def completeness_table(self, entries: pd.DataFrame) -> pd.DataFrame:
        """Judges x datasets: ``"done"`` or ``"k/n"`` (models with a value), from every judge's entries.

        With a rubric, ``entries`` are the jury's scores and a model counts once every criterion has one.
        """
        if self.rubric is not None:
            return self._rubric_completeness(entries)
        judges = sorted(set(entries.loc[entries["value"].notna(), "judge"]))
        rows = {}
        for judge in judges:
            mine = entries[(entries["judge"] == judge) & entries["value"].notna()]
            row = {}
            for dataset in self.datasets:
                models = self._models(dataset)
                values = dict(zip(mine.loc[mine["dataset"] == dataset, "method"],
                                  mine.loc[mine["dataset"] == dataset, "value"]))
                kinds = set(mine.loc[mine["dataset"] == dataset, "kind"]) or {self.settings.trust_input}
                problems = entry_problems({m: values.get(m) for m in models}, kind=kinds.pop(),
                                          strict=self.settings.strict_ranks)
                given = sum(1 for m in models if m in values)
                row[dataset] = "done" if not problems else f"{given}/{len(models)}"
            rows[judge] = row
        return pd.DataFrame.from_dict(rows, orient="index", columns=self.datasets)

    def _rubric_completeness(self, scores: pd.DataFrame) -> pd.DataFrame:
        given = scores[scores["score"].notna()]
        criteria = {c.name for c in self.rubric.criteria}
        rows = {}
        for judge, mine in given.groupby("judge", sort=True):
            row = {}
            for dataset in self.datasets:
                models = self._models(dataset)
                here = mine[mine["dataset"] == dataset]
                complete = sum(1 for m in models if criteria <= set(here.loc[here["method"] == m, "criterion"]))
                row[dataset] = "done" if complete == len(models) else f"{complete}/{len(models)}"
            rows[judge] = row
        return pd.DataFrame.from_dict(rows, orient="index", columns=self.datasets)

    def _jury_status_html(self, summary) -> str:
        w = ", ".join(f"{_text(r.dataset)}: {'—' if pd.isna(r.kendalls_w) else f'{r.kendalls_w:.2f}'}"
                      f" ({r.jurors} complete juror{'s' if r.jurors != 1 else ''})"
                      for r in summary.agreement.itertuples())
        status = (f"<div><b>Agreement (Kendall's W</b>, 1 = the jurors agree completely, 0 = not at all): "
                  f"{w or 'no scores yet'}</div>")
        if summary.calibration is not None and len(summary.calibration):
            offsets = ", ".join(f"{_text(r.judge)} on {_text(r.dataset)} {r.offset:+.2f}"
                                for r in summary.calibration.itertuples())
            status += (f"<div><b>Calibration entry</b> (each juror's score of it minus the reference; above 0: "
                       f"lenient, below: severe): {offsets}</div>")
        if len(summary.flags):
            listed = "".join(self._flag_html(r.dataset, r.method, summary.juror_scores, "score", "score")
                             for r in summary.flags.head(10).itertuples())
            status += (f"<div><b>Flags: the jurors' scores differ by more than {self.rubric.disagreement:g}</b>. "
                       f"{naming_note(revealed=self.revealed)}<ul style='margin:2px 0'>{listed}</ul></div>")
        return status

    @logged("updating the organiser's panel")
    def _refresh_organiser_panel(self) -> None:
        if self.rubric is not None:
            entries = self.store.jury_scores()
            jury = jury_summary(entries, self.rubric, self.representatives)
            summary = trust_summary(self.store.entries().iloc[0:0], self.representatives, settings=self.settings)
        else:
            entries = self.store.entries()
            summary = trust_summary(entries, self.representatives, settings=self.settings)
        table = self.completeness_table(entries)
        header = "".join(f"<th style='padding:2px 8px'>{_text(d)}</th>" for d in self.datasets)
        body = "".join(
            f"<tr><td style='padding:2px 8px'><b>{_text(judge)}</b></td>" + "".join(
                f"<td style='padding:2px 8px;color:{'#2e8b57' if v == 'done' else '#a35200'}'>"
                f"{'✓ done' if v == 'done' else _text(v)}</td>" for v in row) + "</tr>"
            for judge, row in zip(table.index, table.itertuples(index=False)))
        self.completeness.value = (
            "<b>Who has finished what</b> (models with a value, of each dataset's models)"
            f"<div class='srdash-scroll'><table class='srdash-completeness'><tr><th></th>{header}</tr>"
            f"{body or '<tr><td>no entries yet</td></tr>'}</table></div>")
        incomplete = [(j, d, v) for j, row in table.iterrows() for d, v in row.items() if v != "done"]
        status = ""
        if len(summary.agreement):
            w = ", ".join(f"{_text(r.dataset)}: {'—' if pd.isna(r.kendalls_w) else f'{r.kendalls_w:.2f}'}"
                          f" ({r.judges} judge{'s' if r.judges != 1 else ''})" for r in summary.agreement.itertuples())
            status += (f"<div><b>Agreement (Kendall's W</b>, 1 = the judges agree completely, 0 = not at all)"
                       f": {w}</div>")
        if self.rubric is not None:
            status = self._jury_status_html(jury)
        status += self._alpha_html(entries, jury if self.rubric is not None else None)
        flagged = summary.disagreements[summary.disagreements["spread"] > self.disagreement_threshold]
        if len(flagged):
            listed = "".join(self._flag_html(r.dataset, r.method, summary.judge_ranks, "trust_rank", "rank")
                             for r in flagged.head(10).itertuples())
            status += (f"<div><b>Flags: the judges' ranks differ by more than {self.disagreement_threshold:g}"
                       f"</b>. {naming_note(revealed=self.revealed)}<ul style='margin:2px 0'>{listed}</ul></div>")
        closed = self.store.closed
        if closed is not None:
            self.reveal_help.value = (f"<div><b>✓ Methods revealed: the review was closed on {_text(closed[0][:19])} "
                                      f"by {_text(closed[1])}.</b> Entries are read-only. Reopening lets the judges "
                                      "change their entries again; it is recorded in the store's history.</div>")
            self.reveal_button.description = "Methods revealed (review closed)"
            self.reveal_button.icon = "check"
            self.reveal_button.button_style = ""
            self.reveal_button.disabled = True
            self.confirm_reveal.disabled = True
            self.confirm_reveal.layout.display = "none"
            self.reopen_button.layout.display = None
        else:
            if incomplete:
                listed = "".join(f"<li>{_text(j)}: {_text(d)} ({_text(v)})</li>" for j, d, v in incomplete)
                warning = (f"<div style='color:#a35200'><b>⚠ The review is not complete:</b>"
                           f"<ul style='margin:2px 0'>{listed}</ul></div>")
            elif table.empty:
                warning = "<div style='color:#a35200'><b>⚠ No judge has entered anything yet.</b></div>"
            else:
                warning = "<div style='color:#2e8b57'>Every judge has completed every dataset.</div>"
            self.reveal_help.value = (f"{warning}<div class='srdash-explain'>Revealing shows every judge the method "
                                      "names and makes every entry read-only. Type "
                                      f"<b>{REVEAL_CONFIRMATION}</b> in the box to enable the button.</div>")
            self.reveal_button.description = "Reveal the methods and close the review"
            self.reveal_button.icon = "eye"
            self.reveal_button.button_style = "warning"
            self.reveal_button.disabled = self.confirm_reveal.value.strip() != REVEAL_CONFIRMATION
            self.confirm_reveal.disabled = False
            self.confirm_reveal.layout.display = None
            self.reopen_button.layout.display = "none"
        self.organiser_status.value = status
        self.leaderboard.value = self._leaderboard_html(entries) if self.revealed else (
            "<div class='srdash-explain'>The real-world leaderboard appears here once the methods are revealed.</div>")
        if self.competition_fingerprint is not None:   # computed before the line above was shown
            self.leaderboard.value = self.competition_fingerprint.resolve(self.leaderboard.value)

    def _jury_model(self, entries: pd.DataFrame, jury=None, *, n_bootstrap: int, verdict: bool = False):
        """The jury model of the entries (a rubric jury's summary, or trust entries), as the report fits it."""
        from srdash.analysis.jury_model import realworld_jury_model, rubric_jury_model, trust_jury_model

        if jury is not None:
            return rubric_jury_model(jury, n_bootstrap=n_bootstrap)
        if verdict:
            return realworld_jury_model(self.representatives, entries, self.rules, settings=self.settings,
                                        methods=self.methods, n_bootstrap=n_bootstrap)
        return trust_jury_model(entries, self.representatives, settings=self.settings, n_bootstrap=n_bootstrap)

    def _alpha_html(self, entries: pd.DataFrame, jury=None) -> str:
        """Krippendorff's alpha per dataset beside Kendall's W, while the review runs (no method named; no
        interval: the panel follows every entry, the intervals come with the jury model once revealed)."""
        try:
            model = self._jury_model(entries, jury, n_bootstrap=0)
        except SrdashError:
            return ""     # the rest of the panel still updates; the reason shows with the model once revealed
        rows = model.agreement[model.agreement["judges"] >= 2]
        if rows.empty:
            return ""
        alphas = ", ".join(f"{_text('all datasets' if r.dataset == 'all' else r.dataset)}: "
                           f"{'—' if pd.isna(r.alpha) else f'{r.alpha:.2f}'}" for r in rows.itertuples())
        return (f"<div><b>Krippendorff's α</b> ({model.level}, of the ranks; 1 = the judges agree, 0 = as by "
                f"chance): {alphas}</div>")

    def _jury_model_html(self, entries: pd.DataFrame, jury=None) -> str:
        from srdash.figures.jury_model import JURY_MODEL_NOTE, jury_model_html

        try:
            model = self._jury_model(entries, jury, n_bootstrap=200, verdict=jury is None)
        except SrdashError as exc:
            return f"<div class='srdash-explain'>{_text(f'No jury model: {exc}')}</div>"
        return ("<h3 style='margin:12px 0 4px 0'>Jury model (a second opinion)</h3>"
                f"<div class='srdash-explain'>{_text(JURY_MODEL_NOTE)}</div>{jury_model_html(model)}")

    def _flag_html(self, dataset: str, method: str, table: pd.DataFrame, column: str, noun: str) -> str:
        """A flag naming the model by method once revealed, else by each judge's own letter (review_letters)."""
        models = self._models(dataset)
        return flag_item_html(dataset, method, judge_values(table, dataset, method, column), noun=noun,
                              revealed=self.revealed,
                              label_of=lambda judge: self.store.blinded_labels(judge, dataset, models))

    def _leaderboard_html(self, entries: pd.DataFrame) -> str:
        if self.rubric is not None:
            from srdash.judging.ranking import judge

            summary = jury_summary(entries, self.rubric, self.representatives)
            verdict = judge(jury_table(self.representatives, summary), self.rules, methods=self.methods)
            shown = summary.table.sort_values(["dataset", "rank", "method"])
            rows = "".join(
                f"<tr><td>{_text(r.dataset)}</td><td>{_text(r.method)}</td><td>{_number(r.score, 2)}</td>"
                f"<td>{_number(r.score_z, 2)}</td><td>{r.jurors}</td><td>{'⚑' if r.flagged else ''}</td></tr>"
                for r in shown.itertuples())
            ranked_by = "mean score" if self.rubric.normalisation == "none" else "mean per-juror z-score"
            return (f"<h3 style='margin:12px 0 4px 0'>Jury verdict ({_text(self.rules.title)}), ranked by the "
                    f"{ranked_by}</h3>{leaderboard_html(verdict)}{self._stamp_html(verdict)}{warnings_html(verdict)}"
                    "<table class='srdash-jury'><tr><th>dataset</th><th>method</th><th>mean score</th>"
                    f"<th>mean z-score</th><th>jurors</th><th>flag</th></tr>{rows}</table>"
                    + self._jury_model_html(entries, summary))
        verdict = realworld_verdict(self.representatives, entries, self.rules, settings=self.settings,
                                    methods=self.methods)
        return (f"<h3 style='margin:12px 0 4px 0'>Real-world leaderboard ({_text(self.rules.title)})</h3>"
                f"{leaderboard_html(verdict)}{self._stamp_html(verdict)}{warnings_html(verdict)}"
                + self._jury_model_html(entries))

    def _stamp_html(self, verdict) -> str:
        """The line under the revealed leaderboard: the competition's verdict fingerprint (srdash score's),
        or, reviewing loose results, the entries hash (see :mod:`srdash.apps.review_stamp`)."""
        if self.competition_fingerprint is None:
            return entries_hash_html(verdict)

        def update() -> None:   # from the worker thread, once computed
            self.leaderboard.value = self.competition_fingerprint.resolve(self.leaderboard.value)

        return self.competition_fingerprint.html(entries_hash(verdict), update)

    # ------------------------------------------------------------------ display

    def _header_html(self, source: str) -> str:
        # the server's local paths are the organiser's business; a judge's page names no file of the server
        if self.organiser:
            where = f" · results: {_text(source)}" if source else ""
            saved = f"every change is saved at once to {_text(self.store.path)}{where}"
        else:
            saved = "every change is saved at once on the review's server"
        return ("<h1 style='margin:4px 0'>Trust review — real-world track</h1>"
                f"<div class='srdash-explain'>Judge: <b>{_text(self.judge)}</b> · {saved}</div>")

    def _instructions_html(self) -> str:
        if self.store.closed is not None:
            # nothing is left to give or save: say what the page is now for
            return ("<div style='background:#f3f7fb;padding:8px 12px;border-radius:6px;margin:6px 0'>"
                    "The review is closed: the models are shown with the names of the methods that made them, "
                    "beside the entries each judge gave, which can no longer change.</div>")
        if self.rubric is not None:
            listed = ", ".join(_text(c.label) for c in self.rubric.criteria)
            how = (f"For each dataset, score each model on every criterion of the rubric ({listed}) from "
                   f"<b>{self.rubric.scale[0]:g} (lowest) to {self.rubric.scale[1]:g} (highest)</b>.")
        elif self.settings.trust_input == "rank":
            how = ("For each dataset, rank the models by how much you would trust them: "
                   "<b>1 = the model you trust most</b>. Use each rank once.")
        else:
            how = ("For each dataset, rate each model from <b>1 (least trust) to 5 (most trust)</b>, as you see "
                   "fit; several models may share a rating.")
        return (f"<div style='background:#f3f7fb;padding:8px 12px;border-radius:6px;margin:6px 0'>{how} "
                "The models are shown without the names of the methods that made them (Model A, B, …). "
                "Each card shows the formula, how accurate and how simple it is, the features it uses and, when "
                "the test data is available, its predictions against the actual values. "
                "Your entries are saved as you make them; you can stop at any time and come back later.</div>")


# --------------------------------------------------------------------------- the served page


def _environment_flag(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes")


def _demo_results(env: Mapping[str, str]):
    """Three datasets of the built-in demo, written once to the cache folder (with their test data)."""
    from srdash.demo.competition import cached_demo
    from srdash.io.loading import load_results

    paths = cached_demo(cache_dir=env.get("SRDASH_CACHE_DIR", "").strip() or None)
    results = load_results(paths["results"], datasets=paths["datasets"])
    table = results.table[results.table["dataset"].isin(DEMO_DATASETS)].reset_index(drop=True)
    return replace(results, table=table), paths["results"].parent


def access_key_from_query(query: str | None) -> str | None:
    """The personal access key in a page's query string (``key=...``), or None.

    Voilà gives the kernel the page's query string (``QUERY_STRING``).

    Examples
    --------
    >>> access_key_from_query("token=abc&key=s3cr%2Dt")
    's3cr-t'
    >>> access_key_from_query("") is None
    True
    """
    from urllib.parse import parse_qs

    values = parse_qs(query or "").get("key")
    return values[-1] if values else None


#: The options of a review, as ``srdash review`` passes them: one JSON object in ``SRDASH_REVIEW``.
REVIEW_OPTIONS = {
    "input": "results file or folder (absent: three datasets of the built-in demo competition)",
    "competition": "a serialised competition (Competition.to_json()): its real-world track is reviewed",
    "judge": "the judge's name (unless access keys were issued)",
    "store": "trust store file (default: trust.sqlite in srdash's user data directory)",
    "rules": "rules preset or .toml file (default: srbench2022-realworld)",
    "data_dir": "folder with the datasets' test files (<dataset>_test.csv), for the figures",
    "datasets": "dataset table giving each dataset's feature names (optional)",
    "trust_input": "'rank' or 'rating': overrides the rules' choice",
    "organiser": "true: show the organiser's panel (agreement, unblinding, leaderboard)",
    "jobs": "worker processes for simplifying models (default: 1)",
}


def review_options(environ: Mapping[str, str]) -> dict:
    """The review's options from ``SRDASH_REVIEW`` (one JSON object; absent: none, the demo review).

    Examples
    --------
    >>> review_options({"SRDASH_REVIEW": '{"judge": "ann", "jobs": 2}'})
    {'judge': 'ann', 'jobs': 2}
    >>> review_options({"SRDASH_REVIEW": '{"juge": "ann"}'})
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: SRDASH_REVIEW: unknown option 'juge'. Options: competition, data_dir, datasets, input, jobs, judge, organiser, rules, store, trust_input.
    """
    import json

    text = environ.get("SRDASH_REVIEW", "").strip()
    if not text:
        return {}
    try:
        options = json.loads(text)
    except ValueError as exc:
        raise SrdashError(f"SRDASH_REVIEW is not a JSON object: {exc}. Start the review with `srdash review`.") from exc
    if not isinstance(options, dict):
        raise SrdashError("SRDASH_REVIEW must be a JSON object of options. Start the review with `srdash review`.")
    for key in options:
        if key not in REVIEW_OPTIONS:
            raise SrdashError(f"SRDASH_REVIEW: unknown option {key!r}. Options: {', '.join(sorted(REVIEW_OPTIONS))}.")
    return options


def _option(options: Mapping, key: str) -> str:
    value = options.get(key)
    if value is None or value is False:
        return ""
    return "1" if value is True else str(value)


def review_inputs_from_environment(environ: Mapping[str, str], *, progress=None, stage=None,
                                   access_key: str | None = None) -> dict:
    """The arguments of the :class:`ReviewApp` described by the environment variables of ``srdash review``.

    The slow part of opening a review, and no widget: ``ReviewApp(**inputs)``
    builds the app.

    The options (:data:`REVIEW_OPTIONS`) come as one JSON object in ``SRDASH_REVIEW``. Only the
    candidates for representative run are simplified (usually one run per
    method and dataset), not every run.

    Parameters
    ----------
    environ : mapping
    progress : callable, optional
        ``progress(done, total, counts)``, as :func:`srdash.judging.pipeline.prepare_runs` calls it.
    stage : callable, optional
        Called with a line of text saying what is being done.
    access_key : str, optional
        The visitor's personal key. Once the organiser issued keys (``srdash
        trust issue-key``), it alone says who the judge is and whether they
        are the organiser (the options ``judge`` and ``organiser`` are then
        ignored), and a missing or invalid key is refused.

    Raises
    ------
    SrdashError
        A missing judge or key, unknown rules, unreadable results, a missing
        or unreadable store.
    """
    from srdash.io.loading import Results, load_results
    from srdash.judging.pipeline import prepare_runs

    say = stage or (lambda text: None)
    options = review_options(environ)
    # The store first: when the organiser issued access keys, the key (not the environment) says
    # who the visitor is and whether they are the organiser.
    store_path = _option(options, "store").strip()
    store = TrustStore(store_path or None, create=not store_path)
    try:
        if store.keys_issued:
            judge, role = store.identify(access_key)
            organiser = role == "organiser"
        else:
            judge = _option(options, "judge").strip()
            organiser = _environment_flag(_option(options, "organiser"))
            if not judge:
                raise SrdashError("No judge's name: start the review with `srdash review --judge NAME` "
                                  "(the review's 'judge').")
    except SrdashError:
        store.close()
        raise
    try:  # the store is closed again if the rest fails
        rules = load_rules(_option(options, "rules").strip() or DEFAULT_RULES)
        settings = review_settings(rules, trust_input=_option(options, "trust_input").strip() or None)
        raw_jobs = _option(options, "jobs").strip() or "1"
        if not raw_jobs.isdigit() or int(raw_jobs) < 1:
            raise SrdashError(f"The review's 'jobs' must be a positive integer (worker processes). Got {raw_jobs!r}.")
        input_path = _option(options, "input").strip()
        data_dir = _option(options, "data_dir").strip() or None
        say("Loading the results…")
        competition_text = _option(options, "competition").strip()
        competition = None
        if competition_text:
            # The competition's real-world track: its rules, and the methods and datasets under review
            # (after the qualification stage), as the one pipeline judges them.
            from srdash.judging.competition import competition_from_json
            from srdash.judging.pipeline import results_under_review

            competition = competition_from_json(competition_text)
            results = results_under_review(competition, stage=say)
            rules = competition.realworld.rules
            settings = review_settings(rules, trust_input=_option(options, "trust_input").strip() or None)
            if data_dir is None and competition.descriptions is not None:
                data_dir = str(competition.descriptions.parent)
            source = f"{competition.title} ({competition.source})"
        elif input_path:
            results = load_results(input_path, datasets=_option(options, "datasets").strip() or None)
            source = input_path
        else:
            results, demo_folder = _demo_results(environ)
            data_dir = data_dir or demo_folder
            source = "three datasets of the built-in demo competition"
        accuracy = next((c for c in rules.criteria if c.column == "r2_test"), None)

        def prepare(candidates: pd.DataFrame) -> pd.DataFrame:
            say(f"Simplifying the {len(candidates)} candidate models (once; they are cached for next time)…")
            return prepare_runs(Results(candidates, results.features, results.sources), jobs=int(raw_jobs),
                                progress=progress)

        representatives = representative_runs(results.table, choice=representative_choice(rules),
                                              decimals=accuracy.decimals if accuracy else 3, prepare=prepare)
        return {"representatives": representatives, "store": store, "judge": judge, "rules": rules,
                "settings": settings, "methods": sorted(set(results.table["method"])), "features": results.features,
                "data_dir": data_dir, "organiser": organiser, "source": source, "competition": competition}
    except BaseException:
        store.close()
        raise


def review_app_from_environment(environ: Mapping[str, str], *, progress=None, stage=None,
                                access_key: str | None = None) -> ReviewApp:
    """Build the :class:`ReviewApp` described by the environment variables of ``srdash review``.

    See :func:`review_inputs_from_environment`.
    """
    return ReviewApp(**review_inputs_from_environment(environ, progress=progress, stage=stage,
                                                      access_key=access_key))


class ReviewPage(BackgroundApp):
    """The page ``srdash review`` serves: a progress bar while the models are prepared, then the review.

    Parameters
    ----------
    environ : mapping
        The environment of ``srdash review`` (its options in ``SRDASH_REVIEW``,
        see :data:`REVIEW_OPTIONS`), e.g. ``os.environ``.
    background : bool
        Prepare in a background thread, so that the page shows at once
        (the default); False: prepare before returning.
    display_timeout : float
        With ``background``: once prepared, the review's widgets are built
        only after a browser has displayed the page (see
        :class:`~srdash.apps.panels.PageReady`: widgets built while the
        page loads can be lost), or after this many seconds without one.
    access_key : str, optional
        The visitor's personal key (see :func:`access_key_from_query`).

    Attributes
    ----------
    app : ReviewApp or None
        The review, once prepared.
    log_panel : LogPanel
        Why the review could not start, if it could not.

    Examples
    --------
    >>> page = ReviewPage({"SRDASH_REVIEW": '{"rules": "srbench2022-realworld"}'}, background=False)
    >>> page.app is None, "No judge's name" in page.log_panel.text()
    (True, True)
    """

    app = traitlets.Instance(ReviewApp, allow_none=True, read_only=True)

    def __init__(self, environ: Mapping[str, str], *, background: bool = True,
                 display_timeout: float = SERVED_DISPLAY_TIMEOUT, access_key: str | None = None,
                 **kwargs):
        self._environ = dict(environ)
        self._access_key = access_key
        self._init_app(display_timeout=display_timeout if background else 0.0)
        self.progress = ProgressPanel()
        self.progress.stage("Preparing the models for review…")
        super().__init__([widgets.HTML("<h1 style='margin:4px 0'>Trust review — real-world track</h1>"),
                          self.progress, self.log_panel, self.page_ready], **kwargs)
        self.add_class("srdash-review-page")
        if background:
            self._start_background(self._prepare, name="srdash-review-prepare")
        else:
            self._prepare()

    def _prepare(self) -> None:
        def prepared() -> ReviewApp:
            inputs = review_inputs_from_environment(self._environ, progress=self.progress.update,
                                                    stage=self.progress.stage, access_key=self._access_key)
            self._work.page_displayed()  # the review's widgets are built from here: see PageReady
            # served: the cards' figures, below the first screen, are drawn as the judge scrolls to them
            return ReviewApp(**inputs, figures_when_near=bool(self._work.display_timeout))

        def done(app: ReviewApp) -> None:
            self.set_trait("app", app)
            self.children = [app]

        self._load(prepared, done=done, failed=lambda: self.progress.fail(
            "The review cannot start: see the message below."), context="preparing the review")
