"""The page ``srdash review`` serves: a progress bar while the models are prepared, then the review."""

from __future__ import annotations

from typing import Mapping

import ipywidgets as widgets
import traitlets

from srdash.apps.panels import BackgroundApp, ProgressPanel
from srdash.apps.review.app import ReviewApp
from srdash.apps.review.environment import review_inputs_from_environment

__all__ = ["ReviewPage"]


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
    served : bool
        With ``background`` (the default: True): once prepared, the review's
        widgets are built only once a browser has displayed the page (see
        :class:`~srdash.apps.panels.PageReady`: widgets built while the page
        loads can be lost); False: at once (a notebook).
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
                 served: bool = True, access_key: str | None = None,
                 **kwargs):
        self._environ = dict(environ)
        self._access_key = access_key
        self._init_app(served=served and background)
        self.progress = ProgressPanel()
        self.progress.stage("Preparing the models for review…")
        super().__init__([widgets.HTML("<h1 style='margin:4px 0'>Trust review — real-world track</h1>"),
                          self.progress, self.log_panel, self.page_ready], **kwargs)
        self.add_class("srdash-review-page")
        if background and self._work.served and self._show_kept():
            return
        if background:
            self._start_background(self._prepare, name="srdash-review-prepare")
        else:
            self._prepare()

    def _show_kept(self) -> bool:
        """Served, a review whose competition ``srdash review`` kept prepared: the review built now, in the
        notebook's cell, so that the page's first request for its widgets gets them all (measured: a judge's
        page then costs its browser about 0.3 CPU-s less than one whose 400 widget models arrive one message
        at a time once it has loaded, docs/scaling.md). False: nothing kept, prepare in the background."""
        try:
            inputs = review_inputs_from_environment(self._environ, access_key=self._access_key, kept_only=True)
        except Exception as error:  # noqa: BLE001 - shown to the visitor, in the log (a wrong key, a bad store)
            self._failed()
            self.log_panel.report(error, context="preparing the review")
            return True
        if inputs is None:
            return False
        try:
            self._show(inputs)
        except Exception as error:  # noqa: BLE001 - shown to the visitor, in the log
            self._failed()
            self.log_panel.report(error, context="preparing the review")
        return True

    def _prepare(self) -> None:
        def prepared() -> dict:
            return review_inputs_from_environment(self._environ, progress=self.progress.update,
                                                  stage=self.progress.stage, access_key=self._access_key)

        # built once the page is displayed (BackgroundApp._load: see PageReady)
        self._load(prepared, done=self._show, failed=self._failed, context="preparing the review")

    def _show(self, inputs: dict) -> None:
        # served, the cards' figures, below the first screen, are drawn as the judge scrolls to them
        app = ReviewApp(**inputs, figures_when_near=bool(self._work.served))
        self.set_trait("app", app)
        self.children = [app, self.page_ready]   # the beacon stays: figures wait for it

    def _failed(self) -> None:
        self.progress.fail("The review cannot start: see the message below.")
