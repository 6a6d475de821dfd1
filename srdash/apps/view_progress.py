"""What a view of the dashboard is computing and how far it has got, shown while it computes.

A view that takes seconds (the winner certificate, the SRBench views) stands on the page as a
:class:`ViewProgress` until it is built: one line naming the computation (how many methods and datasets,
what is re-judged), a bar and the current step with its count. The computation reports through the
callbacks the pipeline and the analyses already take, ``stage(text)`` and ``progress(done, total, counts)``
(:func:`srdash.analysis.certificate.winner_certificate`, :func:`srdash.judging.pipeline.prepare_competition`).
Widget changes made on the kernel's thread leave for the page at once, so the line moves while the view
computes.

Examples
--------
>>> report = ViewProgress("Computing the winner certificate of 3 methods on 2 datasets")
>>> report.stage("scoring dataset sets")
>>> report.progress(2, 3, {})
>>> report.text()
'Computing the winner certificate of 3 methods on 2 datasets: scoring dataset sets, 2 / 3'
>>> report.bar.value, report.bar.max
(2, 3)
>>> report.done()
>>> report.label.value
''
"""

from __future__ import annotations

import ipywidgets as widgets

from srdash.figures.escape import html_text

__all__ = ["ViewProgress"]


class ViewProgress(widgets.VBox):
    """A line saying what a view computes, a progress bar and the step under way.

    Parameters
    ----------
    what : str
        The computation, in words ("Computing the winner certificate of 21 methods on 122 datasets").

    Attributes
    ----------
    bar : IntProgress
        ``value`` of ``max`` steps of the current stage.
    label : HTML
        The computation, the current stage and its count.
    """

    def __init__(self, what: str, **kwargs):
        self.what = str(what)
        self._stage = ""
        self._count = ""
        self.bar = widgets.IntProgress(value=0, min=0, max=1, bar_style="info",
                                       layout=widgets.Layout(width="260px", max_width="100%"))
        self.label = widgets.HTML()
        super().__init__([self.label, self.bar], **kwargs)
        self.add_class("srdash-view-progress")
        self._draw()

    def describe(self, what: str) -> None:
        """Say what is computed (replaces the line given to the constructor)."""
        self.what = str(what)
        self._draw()

    def stage(self, text: str) -> None:
        """A new step of the computation begins; the counts that follow are of it."""
        self._stage, self._count = str(text).rstrip("…. "), ""
        self.bar.value = 0
        self._draw()

    def progress(self, done: int, total: int, counts=None) -> None:
        """``done`` of ``total`` items of the current step (``counts``: the pipeline's statuses, unused)."""
        self.bar.max = max(int(total), 1)
        self.bar.value = min(int(done), self.bar.max)
        self._count = f"{int(done):,} / {int(total):,}"
        self._draw()

    def done(self) -> None:
        """The computation is over: the line is emptied (no note says "computing" on the page, shown or hidden)."""
        self._stage, self._count = "", ""
        self.label.value = ""

    def text(self) -> str:
        """The line shown, as plain text."""
        return ": ".join(part for part in (self.what, ", ".join(p for p in (self._stage, self._count) if p)) if part)

    def _draw(self) -> None:
        self.label.value = f"<div class='srdash-note srdash-computing'>{html_text(self.text())}…</div>"
