"""The organiser's panel of the trust review: who has finished what, agreement and flags, revealing the methods
(which closes the review, after a typed confirmation) and reopening, and the revealed leaderboard."""

from __future__ import annotations

import ipywidgets as widgets
import pandas as pd

from srdash.analysis.jury_model import realworld_jury_model, rubric_jury_model, trust_jury_model
from srdash.errors import SrdashError
from srdash.figures.jury_model import JURY_MODEL_NOTE, jury_model_html
from srdash.figures.leaderboard import leaderboard_html, warnings_html
from srdash.judging.jury import jury_summary, jury_table
from srdash.judging.trust import entry_problems, realworld_verdict, trust_summary
from srdash.apps.panels import logged
from srdash.apps.review.letters import flag_item_html, judge_values, naming_note
from srdash.apps.review.stamp import entries_hash, entries_hash_html
from srdash.apps.review.values import shown_number, shown_text

__all__ = ["OrganiserPanel", "REVEAL_CONFIRMATION"]

#: What the organiser types to confirm revealing the methods (which closes the review).
REVEAL_CONFIRMATION = "REVEAL"


class OrganiserPanel:
    """The organiser's part of :class:`~srdash.apps.review.app.ReviewApp` (a mixin: it works on the app's
    store, cards and widgets, and is built only when the app is the organiser's)."""

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
        w = ", ".join(f"{shown_text(r.dataset)}: {'—' if pd.isna(r.kendalls_w) else f'{r.kendalls_w:.2f}'}"
                      f" ({r.jurors} complete juror{'s' if r.jurors != 1 else ''})"
                      for r in summary.agreement.itertuples())
        status = (f"<div><b>Agreement (Kendall's W</b>, 1 = the jurors agree completely, 0 = not at all): "
                  f"{w or 'no scores yet'}</div>")
        if summary.calibration is not None and len(summary.calibration):
            offsets = ", ".join(f"{shown_text(r.judge)} on {shown_text(r.dataset)} {r.offset:+.2f}"
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
        header = "".join(f"<th style='padding:2px 8px'>{shown_text(d)}</th>" for d in self.datasets)
        body = "".join(
            f"<tr><td style='padding:2px 8px'><b>{shown_text(judge)}</b></td>" + "".join(
                f"<td style='padding:2px 8px;color:{'#2e8b57' if v == 'done' else '#a35200'}'>"
                f"{'✓ done' if v == 'done' else shown_text(v)}</td>" for v in row) + "</tr>"
            for judge, row in zip(table.index, table.itertuples(index=False)))
        self.completeness.value = (
            "<b>Who has finished what</b> (models with a value, of each dataset's models)"
            f"<div class='srdash-scroll'><table class='srdash-completeness'><tr><th></th>{header}</tr>"
            f"{body or '<tr><td>no entries yet</td></tr>'}</table></div>")
        incomplete = [(j, d, v) for j, row in table.iterrows() for d, v in row.items() if v != "done"]
        status = ""
        if len(summary.agreement):
            w = ", ".join(f"{shown_text(r.dataset)}: {'—' if pd.isna(r.kendalls_w) else f'{r.kendalls_w:.2f}'}"
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
            self.reveal_help.value = (f"<div><b>✓ Methods revealed: the review was closed on {shown_text(closed[0][:19])} "
                                      f"by {shown_text(closed[1])}.</b> Entries are read-only. Reopening lets the judges "
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
                listed = "".join(f"<li>{shown_text(j)}: {shown_text(d)} ({shown_text(v)})</li>" for j, d, v in incomplete)
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
        alphas = ", ".join(f"{shown_text('all datasets' if r.dataset == 'all' else r.dataset)}: "
                           f"{'—' if pd.isna(r.alpha) else f'{r.alpha:.2f}'}" for r in rows.itertuples())
        return (f"<div><b>Krippendorff's α</b> ({model.level}, of the ranks; 1 = the judges agree, 0 = as by "
                f"chance): {alphas}</div>")

    def _jury_model_html(self, entries: pd.DataFrame, jury=None) -> str:
        try:
            model = self._jury_model(entries, jury, n_bootstrap=200, verdict=jury is None)
        except SrdashError as exc:
            return f"<div class='srdash-explain'>{shown_text(f'No jury model: {exc}')}</div>"
        return ("<h3 style='margin:12px 0 4px 0'>Jury model (a second opinion)</h3>"
                f"<div class='srdash-explain'>{shown_text(JURY_MODEL_NOTE)}</div>{jury_model_html(model)}")

    def _flag_html(self, dataset: str, method: str, table: pd.DataFrame, column: str, noun: str) -> str:
        """A flag naming the model by method once revealed, else by each judge's own letter (review.letters)."""
        models = self._models(dataset)
        return flag_item_html(dataset, method, judge_values(table, dataset, method, column), noun=noun,
                              revealed=self.revealed,
                              label_of=lambda judge: self.store.blinded_labels(judge, dataset, models))

    def _leaderboard_html(self, entries: pd.DataFrame) -> str:
        if self.rubric is not None:
            # local, not at the top: elsewhere in this module 'judge' names a juror
            from srdash.judging.ranking import judge

            summary = jury_summary(entries, self.rubric, self.representatives)
            verdict = judge(jury_table(self.representatives, summary), self.rules, methods=self.methods)
            shown = summary.table.sort_values(["dataset", "rank", "method"])
            rows = "".join(
                f"<tr><td>{shown_text(r.dataset)}</td><td>{shown_text(r.method)}</td><td>{shown_number(r.score, 2)}</td>"
                f"<td>{shown_number(r.score_z, 2)}</td><td>{r.jurors}</td><td>{'⚑' if r.flagged else ''}</td></tr>"
                for r in shown.itertuples())
            ranked_by = "mean score" if self.rubric.normalisation == "none" else "mean per-juror z-score"
            return (f"<h3 style='margin:12px 0 4px 0'>Jury verdict ({shown_text(self.rules.title)}), ranked by the "
                    f"{ranked_by}</h3>{leaderboard_html(verdict)}{self._stamp_html(verdict)}{warnings_html(verdict)}"
                    "<table class='srdash-jury'><tr><th>dataset</th><th>method</th><th>mean score</th>"
                    f"<th>mean z-score</th><th>jurors</th><th>flag</th></tr>{rows}</table>"
                    + self._jury_model_html(entries, summary))
        verdict = realworld_verdict(self.representatives, entries, self.rules, settings=self.settings,
                                    methods=self.methods)
        return (f"<h3 style='margin:12px 0 4px 0'>Real-world leaderboard ({shown_text(self.rules.title)})</h3>"
                f"{leaderboard_html(verdict)}{self._stamp_html(verdict)}{warnings_html(verdict)}"
                + self._jury_model_html(entries))

    def _stamp_html(self, verdict) -> str:
        """The line under the revealed leaderboard: the competition's verdict fingerprint (srdash score's),
        or, reviewing loose results, the entries hash (see :mod:`srdash.apps.review.stamp`)."""
        if self.competition_fingerprint is None:
            return entries_hash_html(verdict)

        def update() -> None:   # from the worker thread, once computed
            self.leaderboard.value = self.competition_fingerprint.resolve(self.leaderboard.value)

        return self.competition_fingerprint.html(entries_hash(verdict), update)
