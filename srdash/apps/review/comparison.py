"""Every model of a dataset in one view, with one row of rank (or score) buttons per model."""

from __future__ import annotations

import functools
from typing import Mapping, Sequence

import ipywidgets as widgets

from srdash.figures.escape import html_text
from srdash.judging.trust import RATING_SCALE
from srdash.apps.review.card import CardLooks, ModelCard
from srdash.apps.review.values import NO_VALUE, OK_STATUSES, components_text, shown_number, shown_text

__all__ = ["ComparisonView"]


def _compare_row(summary_html: str, control: widgets.Widget, looks: CardLooks,
                 row_layouts: tuple[widgets.Layout, widgets.Layout]) -> widgets.HBox:
    """One model's line in the compact comparison: its summary, then the control that orders or scores it."""
    summary = looks.html(summary_html, layout=row_layouts[0])
    line = widgets.HBox([summary, control], layout=row_layouts[1])
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
    rubric : Rubric, optional
        A jury's rubric: each model's score so far instead of the buttons.
    looks : CardLooks, optional
        The layouts and styles the page shares (default: the view's own).
    """

    def __init__(self, cards: Sequence[ModelCard], rows: Sequence[Mapping], texts: Sequence[str],
                 thumbnails: Sequence[str], *, kind: str, rubric=None, looks: CardLooks | None = None, **kwargs):
        self.cards = list(cards)
        self._looks = CardLooks() if looks is None else looks
        # every row's summary, then the row itself: one layout each, shared by the rows (never changed)
        self._row_layouts = (widgets.Layout(flex="1 1 360px", min_width="0"),
                             widgets.Layout(align_items="center", flex_flow="row wrap", width="100%"))
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
        self.order = self._looks.html("")
        self._kind = kind
        children = [self._looks.html(
            "<div class='srdash-explain' style='margin:4px 0'>"
            + ("Order the models here: press a rank button on each row (1 = most trusted). "
               if kind == "rank" else "Rate the models here: press a rating on each row (5 = most trust). ")
            + "Tab moves between buttons, Enter or Space picks one. The cards below show each model in full."
            + "</div>")]
        for card, row, text, thumbnail in zip(self.cards, rows, texts, thumbnails):
            buttons = widgets.ToggleButtons(options=options, value=None, tooltips=tooltips,
                                            style=self._looks.score_buttons_style, layout=self._looks.auto_width)
            buttons.add_class("srdash-rank-row")
            current = card.trust.value
            buttons.value = current if current in dict(options).values() else None
            buttons.observe(functools.partial(self._on_button_change, card), "value")
            card.trust.observe(functools.partial(self._on_card_change, buttons), "value")
            card.rank_buttons = buttons
            children.append(self._row(card, row, text, thumbnail, buttons))
        children.append(self.order)
        super().__init__(children, **{"layout": self._looks.plain, **kwargs})
        self.add_class("srdash-compare")
        self.refresh()

    def _row(self, card: ModelCard, row: Mapping, text: str, thumbnail: str, control) -> widgets.HBox:
        line = _compare_row(self._summary_html(card.label, row, text, thumbnail), control, self._looks,
                            self._row_layouts)
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
        simplicity = (f"{shown_number(row.get('simplicity'), 1)} ({components_text(row.get('components'))})"
                      if status in OK_STATUSES else "not available")
        short = text if len(text) <= 240 else text[:240] + "… (whole on its card below)"
        plot = thumbnail if thumbnail.startswith("<svg") else (
            "<div style='width:96px;height:96px;border:1px dashed #ccc;font-size:10px;color:#777;display:flex;"
            f"align-items:center;justify-content:center;text-align:center'>{shown_text(thumbnail or 'no test data')}</div>")
        return ("<table style='width:100%;table-layout:fixed'><tr>"
                f"<td style='width:80px'><b>{shown_text(label)}</b>"
                + (f"<div class='srdash-revealed-name' style='color:#555;overflow-wrap:anywhere'>{shown_text(method)}</div>"
                   if method is not None else "")
                + f"</td><td style='width:104px'>{plot}</td>"
                f"<td><div class='srdash-compare-formula' title='{html_text(text)}'>"
                f"ŷ = {html_text(short) or '—'}</div>"
                f"<div>Accuracy (test R²) <b>{shown_number(row.get('r2_test'), 3)}</b> · Simplicity <b>{simplicity}</b>"
                "</div></td></tr></table>")

    def _init_rubric(self, rows, texts, thumbnails, **kwargs) -> None:
        """A jury's view: each model's score so far (scored on the cards below, per criterion)."""
        self._kind = "rubric"
        self.order = self._looks.html("")
        self._score_labels = {}
        label_layout = widgets.Layout(width="200px")   # shared by the rows' score labels
        children = [self._looks.html("<div class='srdash-explain' style='margin:4px 0'>Score each model on every "
                                 "criterion on its card below; its score here is the weighted mean of yours.</div>")]
        for card, row, text, thumbnail in zip(self.cards, rows, texts, thumbnails):
            label = self._looks.html("", layout=label_layout)
            self._score_labels[card.label] = label
            for buttons in card.criterion_buttons.values():
                buttons.observe(lambda change: self.refresh(), "value")
            children.append(self._row(card, row, text, thumbnail, label))
        children.append(self.order)
        super().__init__(children, **{"layout": self._looks.plain, **kwargs})
        self.add_class("srdash-compare")
        self.refresh()

    def _on_button_change(self, card: ModelCard, change) -> None:
        card.trust.value = NO_VALUE if change["new"] is None else change["new"]
        self.refresh()

    def _on_card_change(self, buttons, change) -> None:
        buttons.value = None if change["new"] == NO_VALUE else change["new"]
        self.refresh()

    def refresh(self) -> None:
        """Say the judge's current order and what is left."""
        if self._kind == "rubric":
            return self._refresh_rubric()
        given = sorted(((c.trust.value, self._name(c)) for c in self.cards if c.trust.value != NO_VALUE),
                       key=lambda pair: (pair[0] if self._kind == "rank" else -pair[0], pair[1]))
        missing = [self._name(c) for c in self.cards if c.trust.value == NO_VALUE]
        noun = "order" if self._kind == "rank" else "ratings"
        shown = " · ".join(f"{value} {shown_text(label)}" for value, label in given) or "nothing yet"
        to_fix = []
        if missing:
            to_fix.append(f"still to {'rank' if self._kind == 'rank' else 'rate'}: "
                          f"{', '.join(shown_text(m) for m in missing)}")
        if self._kind == "rank":
            holders: dict = {}
            for value, label in given:
                holders.setdefault(value, []).append(label)
            to_fix += [f"rank {value} is given to {' and '.join(shown_text(label) for label in labels)} "
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
        shown = " · ".join(f"{shown_text(label)} {score:.2f}" for score, label in sorted(
            scored, key=lambda pair: (-pair[0], pair[1]))) or "nothing yet"
        left = (f" — <span style='color:#a35200'>still to score: {', '.join(shown_text(m) for _, m in missing)}</span>"
                if missing else " — <span style='color:#2e8b57'>every model is scored</span>")
        self.order.value = f"<div style='margin:6px 0'><b>Your scores, best first:</b> {shown}{left}</div>"
