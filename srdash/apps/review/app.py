"""The judge's page of the trust review: one dataset at a time, its cards, every change saved at once.

The organiser's panel is :class:`~srdash.apps.review.organiser.OrganiserPanel`, which :class:`ReviewApp`
inherits from; it is built only for the organiser.
"""

from __future__ import annotations

import asyncio
import functools
import json
from datetime import datetime
from pathlib import Path
from typing import Mapping, Sequence

import ipywidgets as widgets
import pandas as pd
import traitlets

from srdash.figures.assets import stylesheet
from srdash.figures.escape import html_text
from srdash.errors import SrdashError
from srdash.figures.review import predicted_vs_actual_thumbnail
from srdash.cache import file_digest
from srdash.judging.representative import TestData, find_test_file, load_test_data, representative_choice
from srdash.judging.jury import rubric_from_rules
from srdash.judging.rules import Rules, load_rules
from srdash.judging.trust import (
    ReviewSettings,
    TrustStore,
    TrustStoreError,
    entry_problems,
    review_settings,
)
from srdash.apps.panels import FigurePanel, LogPanel, WhenNear, logged
from srdash.apps.review.card import CardLooks, ModelCard
from srdash.apps.review.comparison import ComparisonView
from srdash.apps.review.css import REVIEW_CSS
from srdash.apps.review.kept import KeptCardValues, compute_figures, compute_latex, compute_predictions, formula_text
from srdash.apps.review.organiser import OrganiserPanel
from srdash.apps.review.stamp import CompetitionFingerprint
from srdash.apps.review.values import FIGURE_HEIGHT, NO_VALUE, natural_key, shown_text, time_of

__all__ = ["ReviewApp", "DEFAULT_RULES"]

DEFAULT_RULES = "srbench2022-realworld"


class ReviewApp(OrganiserPanel, widgets.VBox):
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
    cards_when_near : bool, optional
        Put each detail card into the page only once the browser has scrolled
        near its place (a placeholder, :class:`~srdash.apps.panels.WhenNear`,
        stands there until then; the overview above has every model's rank
        buttons). The cards themselves are built at once and kept up to date.
        Default: as ``figures_when_near`` (a served page).
    competition : Competition, optional
        The competition whose real-world track is reviewed: once revealed, the organiser's panel shows its
        verdict fingerprint, the one ``srdash score`` prints (without it: the review's entries hash).
    kept : KeptCardValues, optional
        The cards' LaTeX and test predictions ``srdash review`` computed once for every judge
        (:mod:`srdash.apps.review.kept`); what is not kept is computed here.

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
                 kept: KeptCardValues | None = None, cards_when_near: bool | None = None, **kwargs):
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
        self.cards_when_near = self.figures_when_near if cards_when_near is None else bool(cards_when_near)
        self.kept = kept
        self._digests: dict[Path, str] = {}   # each test file's SHA-256, the key of its kept predictions
        self.datasets = sorted(set(self.representatives["dataset"])) if len(self.representatives) else []
        # each dataset's models, in the table's order: asked for on every entry (the progress of every dataset)
        self._methods: dict[str, list[str]] = ({str(d): list(m) for d, m in self.representatives.groupby(
            "dataset", sort=False)["method"]} if len(self.representatives) else {})
        self._ahead = False   # the judge has acted on the page: the next dataset's cards may be built ahead
        self._ahead_scheduled = False
        self.cards: dict[str, list[ModelCard]] = {}
        # what a box shows of each card: the card, or (cards_when_near) its placeholder until scrolled to
        self.card_places: dict[str, list[widgets.Widget]] = {}
        self.comparisons: dict[str, ComparisonView] = {}
        self._values: dict[str, dict[str, float | None]] = {d: {} for d in self.datasets}
        self._scores: dict[str, dict[str, dict[str, float]]] = {d: {} for d in self.datasets}
        self._comments: dict[str, dict[str, str]] = {d: {} for d in self.datasets}
        self._stamps: dict[str, dict[str, str]] = {d: {} for d in self.datasets}
        self._unsaved: set[tuple] = set()  # (dataset, method, field) whose last change failed

        # one layout (and style) model for every widget of the page that looks alike and never changes its look
        self._looks = looks = CardLooks()
        self._figure_layouts = {width: widgets.Layout(width=width, height=f"{FIGURE_HEIGHT}px")
                                for width in ("380px", "560px")}
        self.log_panel = LogPanel()
        # a review of a competition shows its verdict fingerprint once revealed (srdash score's)
        self.competition_fingerprint = None if competition is None else CompetitionFingerprint(
            competition, report=lambda error: self.log_panel.report(error, context="judging the competition"))
        self.header = looks.html(self._header_html(source))
        self.instructions = looks.html(self._instructions_html())
        self.saved_indicator = looks.html("")
        self.progress = looks.html("")
        self.previous_button = widgets.Button(description="Previous dataset", icon="arrow-left",
                                              layout=looks.auto_width, style=looks.button_style)
        self.next_button = widgets.Button(description="Next dataset", icon="arrow-right",
                                          layout=looks.auto_width, style=looks.button_style)
        self.dataset_picker = widgets.Dropdown(options=self.datasets, description="Dataset",
                                               layout=looks.auto_width)
        self.dataset_info = looks.html("")
        # Two boxes, one displayed: the other holds the next dataset's cards, built ahead and attached hidden, so
        # that the browser makes their views while the judge reads and "Next dataset" only swaps which box is
        # displayed. Each box keeps its place in the page (replacing a box's contents leaves the other's views).
        # (each box its own layout: the display toggled)
        self._slots = tuple(widgets.VBox([looks.html("")], layout=widgets.Layout(display="none"))
                            for _ in range(2))
        self._details = tuple(looks.html("<h3 style='margin:14px 0 2px 0'>Each model in detail</h3>")
                              for _ in range(2))
        self._slot_datasets: list[str | None] = [None, None]
        self._shown_slot = 0
        self.dataset_boxes = looks.box(widgets.VBox, list(self._slots))
        self.organiser_panel = looks.box(widgets.VBox, [])
        self.previous_button.on_click(lambda _: self._step(-1))
        self.next_button.on_click(lambda _: self._step(+1))
        navigation = widgets.HBox([self.previous_button, self.dataset_picker, self.next_button,
                                   self.saved_indicator], layout=looks.centred_wrap)
        # srdash's stylesheet too: the organiser's leaderboard and jury model are the report's tables
        children = [looks.html(f"<style>{stylesheet()}</style>{REVIEW_CSS}"), self.header]
        if organiser:
            # the organiser's panel (leaderboard, the judges' progress) first; the instructions and the
            # organiser's own entries (self.progress) come after it
            self._build_organiser_panel()
            children.append(self.organiser_panel)
        children.append(self.instructions)
        children += [self.progress, navigation, self.dataset_info, self.dataset_boxes, self.log_panel]
        super().__init__(children, **{"layout": looks.plain, **kwargs})
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
        self._ahead = True

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
        return list(self._methods.get(dataset, ()))

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
        self._build_ahead_soon()

    def _build_ahead_soon(self) -> None:
        """Build the next dataset's cards once this handler has returned, while the judge reads (so that "Next
        dataset" only shows them): on a page the judge has acted on (it has loaded every widget), on the
        kernel's own thread and loop (never beside a handler). Without a running loop (a script), nothing."""
        if not self._ahead or self._ahead_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._ahead_scheduled = True
        loop.call_soon(self._build_ahead)

    @logged("preparing the next dataset")
    def _build_ahead(self) -> None:
        self._ahead_scheduled = False
        if self.dataset in self.datasets:
            following = self.datasets[(self.datasets.index(self.dataset) + 1) % len(self.datasets)]
            if following not in self.cards:
                self.cards[following] = self._build_cards(following)
            if following != self.dataset:
                self._fill(1 - self._shown_slot, following)   # attached hidden: the browser makes its views now

    @property
    def cards_box(self) -> widgets.VBox:
        """The box displayed: the shown dataset's overview and cards (the other box, hidden, holds the next)."""
        return self._slots[self._shown_slot]

    def _fill(self, slot: int, dataset: str) -> None:
        """Put ``dataset``'s overview and cards in box ``slot`` (unless they are there already)."""
        if self._slot_datasets[slot] == dataset:
            return
        box = self._slots[slot]
        box.children = [box.children[0], self.comparisons[dataset], self._details[slot], *self.card_places[dataset]]
        self._slot_datasets[slot] = dataset

    @logged("showing the dataset")
    def _show_dataset(self, dataset: str) -> None:
        if dataset not in self.datasets:
            return
        if dataset not in self.cards:
            self.cards[dataset] = self._build_cards(dataset)
        else:  # built ahead, or shown before: the review may have closed since
            locked = self.store.closed is not None
            for card in self.cards[dataset]:
                card.lock(locked)
        # the organiser's letters are their own: each judge's page letters the models in another order
        whose = (f" <span class='srdash-explain'>({shown_text(self.judge)}'s own letters; each judge's page orders and "
                 "letters the models differently)</span>" if self.organiser and not self.revealed else "")
        # the box that holds it already (built ahead, or the one just left) or else the hidden one is displayed
        slot = self._slot_datasets.index(dataset) if dataset in self._slot_datasets else 1 - self._shown_slot
        self._fill(slot, dataset)
        self._slots[slot].children[0].value = f"<h3 style='margin:8px 0 2px 0'>All models at a glance{whose}</h3>"
        self._slots[slot].layout.display = None
        if slot != self._shown_slot:
            self._slots[self._shown_slot].layout.display = "none"
            self._shown_slot = slot
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
                                   f"{shown_text(dataset)}</h2><div>{n} models. {html_text(what)}</div>")
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
            figures = self._figures(row, dataset, predicted, test_data)
            text = self._formula_text(row)
            card = ModelCard(row, label=label, kind=self.settings.trust_input, n_models=len(labels), latex=latex,
                             latex_problem=latex_problem, features_used=self._features_used(row),
                             figures=figures, figure_note=note,
                             value=self._values[dataset].get(method),
                             comment=self._comments[dataset].get(method, ""), choice=self.choice,
                             formula_text=text, rubric=self.rubric,
                             scores=self._scores[dataset].get(method), looks=self._looks)
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
                                                   kind=self.settings.trust_input, rubric=self.rubric,
                                                   looks=self._looks)
        self.comparisons[dataset].reveal(self.revealed)
        for card in cards:
            card.lock(self.store.closed is not None)
        # served, a card's ~18 views are made once the judge scrolls near it: most judges rank in the overview
        self.card_places[dataset] = [WhenNear(card, text=f"{card.label} in detail…").add_class("srdash-card-later")
                                     if self.cards_when_near else card for card in cards]
        return cards

    @staticmethod
    def _formula_text(row: Mapping) -> str:
        simplified = row.get("simplified")
        text = simplified if isinstance(simplified, str) and simplified.strip() else row.get("model")
        return text.strip() if isinstance(text, str) else ""

    def _latex(self, row: Mapping, dataset: str) -> tuple[str | None, str]:
        text = formula_text(row)
        if text is None:
            return None, "the method gave no model"
        features = self.features.get(dataset) or None
        # kept by `srdash review` for every judge, else typeset here (sympy: imported by the first card that needs it)
        kept = self.kept.latex(text, features) if self.kept is not None else None
        return kept if kept is not None else compute_latex(text, features)

    @staticmethod
    def _features_used(row: Mapping) -> list[str]:
        used = row.get("features_used")
        if isinstance(used, str):
            names = [name for name in used.replace(",", " ").split() if name]
        elif isinstance(used, (list, tuple)):
            names = [str(name) for name in used]
        else:
            names = []
        return sorted(names, key=natural_key)      # x1, x2, x10 (not x1, x10, x2)

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
        features = self.features.get(dataset) or None
        kept = None
        if self.kept is not None:
            if data.path not in self._digests:
                self._digests[data.path] = file_digest(data.path)
            kept = self.kept.predictions(model, data, features, self._digests[data.path])
        predicted, problem = kept if kept is not None else compute_predictions(model, data, features)
        return (predicted, "") if predicted is not None else (None, f"No predictions: {problem}")

    def _figures(self, row: Mapping, dataset: str, predicted, data: TestData | None) -> list:
        if predicted is None:
            return []
        # kept by `srdash review` as the JSON the panels send, else drawn here (plotly's figure classes)
        kept = (self.kept.figures(row["model"], data, self.features.get(dataset) or None, self._digests[data.path])
                if self.kept is not None and data.path in self._digests else None)
        figures = kept if kept is not None else [json.loads(text) for text in compute_figures(data, predicted)]
        panels = []
        for figure, width in zip(figures, ("380px", "560px")):   # predicted vs actual, then over time
            panel = FigurePanel(layout=self._figure_layouts[width], when_near=self.figures_when_near)
            panel.add_class("srdash-figure")
            panel.show(figure)
            panels.append(panel)
        return panels

    # ------------------------------------------------------------------ saving

    @logged("saving a trust value")
    def _on_trust_change(self, dataset: str, card: ModelCard, change) -> None:
        value = None if change["new"] == NO_VALUE else int(change["new"])
        self._values[dataset][card.method] = value
        self._save(dataset, card, value=value)
        self._validate(dataset)
        self._refresh_progress()
        self._build_ahead_soon()

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
        self._build_ahead_soon()

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
        self._build_ahead_soon()

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
                                          f"(last {time_of(entry.updated_at)})</span>")

    def _validate(self, dataset: str) -> None:
        # once the review is closed nothing can be fixed, so nothing is flagged
        problems = self._problems(dataset) if self.store.closed is None else {}
        for card in self.cards.get(dataset, []):
            card.show_problem(problems.get(card.method, ""))

    def _refresh_progress(self) -> None:
        problems_of = {d: self._problems(d) for d in self.datasets}  # once each: 122 datasets on SRBench's
        done = [d for d in self.datasets if not problems_of[d]]
        items = []
        for dataset in self.datasets:
            n = len(self._models(dataset))
            without = sum(1 for p in problems_of[dataset].values() if p.startswith("No "))
            given = n - without
            mark = "✓" if dataset in done else f"{given}/{n}"
            colour = "#2e8b57" if dataset in done else "#a35200" if given else "#777"
            items.append(f"<span style='color:{colour};margin-right:14px'>{shown_text(dataset)} {mark}</span>")
        left = []
        for dataset in self.datasets:
            if dataset in done:
                continue
            problems = problems_of[dataset]
            missing = sum(1 for p in problems.values() if p.startswith("No "))
            noun = ("all its scores" if self.rubric is not None else
                    "a rank" if self.settings.trust_input == "rank" else "a rating")
            left.append(f"{shown_text(dataset)} ({missing} model{'s' if missing != 1 else ''} without {noun})"
                        if missing else f"{shown_text(dataset)} (fix the repeated ranks)")
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
            summary += f"<b>The review was closed by {shown_text(by)} ({shown_text(at[:16])}); entries are read-only.</b> "
        if self.organiser:
            # the organiser's own entries (if any) are not the judges' progress, which is in the panel above
            given_any = any(v is not None for d in self.datasets for v in self._values[d].values()) or any(
                self._scores[d] for d in self.datasets)
            summary = (f"<b>Your own entries as a judge</b> ({shown_text(self.judge)}): " + summary if given_any else
                       "<span class='srdash-explain'>You have made no entry as a judge yourself; the judges' "
                       "progress is in the organiser's panel above.</span> "
                       + (f"<b>The review was closed by {shown_text(closed[1])} ({shown_text(closed[0][:16])}); entries are "
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


    # ------------------------------------------------------------------ display

    def _header_html(self, source: str) -> str:
        # the server's local paths are the organiser's business; a judge's page names no file of the server
        if self.organiser:
            where = f" · results: {shown_text(source)}" if source else ""
            saved = f"every change is saved at once to {shown_text(self.store.path)}{where}"
        else:
            saved = "every change is saved at once on the review's server"
        return ("<h1 style='margin:4px 0'>Trust review — real-world track</h1>"
                f"<div class='srdash-explain'>Judge: <b>{shown_text(self.judge)}</b> · {saved}</div>")

    def _instructions_html(self) -> str:
        if self.store.closed is not None:
            # nothing is left to give or save: say what the page is now for
            return ("<div style='background:#f3f7fb;padding:8px 12px;border-radius:6px;margin:6px 0'>"
                    "The review is closed: the models are shown with the names of the methods that made them, "
                    "beside the entries each judge gave, which can no longer change.</div>")
        if self.rubric is not None:
            listed = ", ".join(shown_text(c.label) for c in self.rubric.criteria)
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
