"""Why this winner, in the dashboard: the winner certificate of the current verdict.

:class:`CertificateView` computes :func:`srdash.analysis.certificate.winner_certificate` for
the per-run table and rules it is given, and shows it with the report's renderer
(:func:`srdash.figures.certificate.certificate_html`). Setting ``runs`` or ``rules`` (the
dashboard does, when its controls change the rules) computes it again. Errors go to the
view's visible log.
"""

from __future__ import annotations

import ipywidgets as widgets
import pandas as pd
import traitlets

from srdash.analysis.certificate import WinnerCertificate, winner_certificate
from srdash.apps.panels import LogPanel, logged
from srdash.apps.shared import shared_view
from srdash.apps.view_progress import ViewProgress
from srdash.figures.certificate import certificate_html
from srdash.figures.escape import html_text
from srdash.judging.rules import Rules

__all__ = ["CertificateView"]


class CertificateView(widgets.VBox):
    """The winner certificate of a per-run table under some rules.

    Parameters
    ----------
    runs : DataFrame, optional
        The prepared per-run table.
    rules : Rules, optional
    log_panel : LogPanel, optional
        Where errors are shown (default: a log of its own, below the view).
    cache : path, None or False
        Share what the view shows with every other visitor through srdash's cache (a folder or file;
        None: the default one; False, the default: compute it here; see :mod:`srdash.apps.shared`).
    stage, progress : callable, optional
        Told what the certificate computes (``stage(text)``) and how far it has got (``progress(done, total,
        counts)``), as :func:`~srdash.analysis.certificate.winner_certificate` goes; the view also shows
        them itself while it computes again (other rules).

    Attributes
    ----------
    runs, rules : traitlets
        Setting either computes the certificate again.
    certificate : traitlet (WinnerCertificate or None)
        The last certificate computed in this kernel (None when what is shown was computed for an
        earlier visitor, see ``cache``).

    Examples
    --------
    >>> from srdash.demo.examples import accuracy_rules
    >>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "r2_test": [0.9, 0.5, 0.1]})
    >>> view = CertificateView(runs, accuracy_rules())
    >>> view.certificate.winner, "Why" in view.table.value
    (('a',), True)
    >>> view.rules = None
    >>> view.certificate is None
    True
    """

    runs = traitlets.Instance(pd.DataFrame, allow_none=True, help="The prepared per-run table.")
    rules = traitlets.Instance(Rules, allow_none=True, help="The rules.")
    certificate = traitlets.Instance(WinnerCertificate, allow_none=True, help="The last certificate.")

    def __init__(self, runs: pd.DataFrame | None = None, rules: Rules | None = None, *,
                 log_panel: LogPanel | None = None, cache=False, stage=None, progress=None, **kwargs):
        own_log = log_panel is None
        self._cache = cache
        self._report = (stage, progress)
        self.log_panel = log_panel or LogPanel()
        self.table = widgets.HTML()
        self.table.add_class("srdash-certificate-panel")
        # what is computed and how far, while the certificate is computed again (hidden otherwise)
        self.status = ViewProgress(_COMPUTING, layout=widgets.Layout(display="none"))
        self._computed_for: tuple | None = None
        super().__init__(children=[self.status, self.table] + ([self.log_panel] if own_log else []), **kwargs)
        with self.hold_trait_notifications():
            self.runs, self.rules = runs, rules
        self._compute()

    @traitlets.observe("runs", "rules")
    def _on_competition_change(self, change) -> None:
        self._compute()

    @logged("explaining the winner")
    def _compute(self) -> None:
        if self.runs is None or self.rules is None:
            self.certificate, self._computed_for = None, None
            self.table.value = "<div class='srdash-note'>No verdict to explain yet.</div>"
            return
        if self._computed_for is not None and self._computed_for[0] is self.runs \
                and self._computed_for[1] == self.rules:
            return  # the dashboard sets runs and rules together: one computation
        self.table.value = ""
        self.certificate = None
        methods, datasets = self.runs["method"].nunique(), self.runs["dataset"].nunique()
        self.status.describe(f"{_COMPUTING} of {methods} methods on {datasets} datasets")
        self.status.layout.display = None
        stage, progress = self._report

        def staged(text: str) -> None:
            self.status.stage(text)
            if stage is not None:
                stage(text)

        def advanced(done: int, total: int, counts) -> None:
            self.status.progress(done, total, counts)
            if progress is not None:
                progress(done, total, counts)

        def compute() -> dict:
            self.certificate = winner_certificate(self.runs, rules=self.rules, stage=staged, progress=advanced)
            return {"html": certificate_html(self.certificate)}

        try:
            content = shared_view("winner certificate", self.runs, self.rules, compute, cache=self._cache)
        finally:
            self.status.layout.display = "none"
            self.status.done()
        self._computed_for = (self.runs, self.rules)
        self.table.value = f"<div class='srdash-note'>{html_text(_NOTE)}</div>" + content["html"]


_COMPUTING = "Computing the winner certificate"
_NOTE = ("Why this winner: for the winner and each podium place, the smallest change of each kind that would "
         "change who holds it. Places: 1 = best.")
