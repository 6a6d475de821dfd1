"""The line under the review's revealed leaderboard (the organiser's panel): which verdict this is.

A review of a competition (``srdash review competition.toml``) shows the competition's verdict
fingerprint, the one ``srdash score`` and the report print for it: computed by the one pipeline
(:func:`srdash.judging.pipeline.judge_competition`, which reads the trust store's entries afresh), in a
background thread, since it may have to prepare the whole competition. A review of loose results has no
competition verdict: it shows the hash of its own leaderboard and the judges' entries, named so
(:func:`srdash.judging.fingerprint.entries_hash`), never "verdict fingerprint".
"""

from __future__ import annotations

import threading
from typing import Callable

from srdash.errors import SrdashError
from srdash.figures.escape import html_text
from srdash.judging.fingerprint import entries_hash
from srdash.judging.pipeline import judge_competition

__all__ = ["CompetitionFingerprint", "entries_hash", "entries_hash_html"]


class CompetitionFingerprint:
    """The competition's verdict fingerprint as HTML, computed once per state of the trust entries.

    Parameters
    ----------
    competition : Competition
        The competition under review (its real-world track's store holds the entries).
    report : callable, optional
        ``report(error)``: where a failure goes besides the line itself (the app's log).

    Examples
    --------
    >>> class Broken:
    ...     source = "c.toml"
    >>> stamp = CompetitionFingerprint(Broken())
    >>> shown = []
    >>> first = stamp.html("k1", lambda: shown.append(stamp.resolve(first)))
    >>> "computing" in first, stamp.wait(30)
    (True, True)
    >>> "No verdict fingerprint" in shown[0] and "computing" not in shown[0]
    True
    """

    def __init__(self, competition, *, report: Callable[[BaseException], None] | None = None):
        self.competition = competition
        self._report = report
        self._done: dict[str, str] = {}
        self._pending: dict[str, str] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def html(self, key: str, update: Callable[[], None]) -> str:
        """The fingerprint line for the entries identified by ``key``: final when known, else a line saying it
        is being computed; ``update()`` is called from the worker thread once it is known (then
        :meth:`resolve` puts it in place of that line)."""
        with self._lock:
            if key in self._done:
                return self._done[key]
            if key not in self._pending:
                self._pending[key] = (f"<div class='srdash-fingerprint srdash-fingerprint-pending' "
                                      f"data-key='{html_text(key[:16])}'>Verdict fingerprint: computing (the "
                                      "competition is judged as <code>srdash score</code> judges it)…</div>")
                self._thread = threading.Thread(target=self._compute, args=(key, update),
                                                name="srdash-review-fingerprint", daemon=True)
                self._thread.start()
            return self._pending[key]

    def resolve(self, text: str) -> str:
        """``text`` with every line of a fingerprint now known replaced by the fingerprint (call it after
        showing a text that :meth:`html` may have returned a pending line for: the work may end first)."""
        with self._lock:
            for key, final in self._done.items():
                text = text.replace(self._pending.get(key, final), final)
        return text

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the fingerprint under way; True when none is being computed."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def _compute(self, key: str, update: Callable[[], None]) -> None:
        try:
            fingerprint = judge_competition(self.competition).fingerprint
        except Exception as error:  # noqa: BLE001 - said on the line, and in the log
            detail = str(error) if isinstance(error, SrdashError) else f"{type(error).__name__} (see the log)"
            final = f"<div class='srdash-fingerprint'>{html_text(f'No verdict fingerprint: {detail}')}</div>"
            if self._report is not None:
                self._report(error)
        else:
            final = ("<div class='srdash-fingerprint'>Verdict fingerprint: <code class='srdash-fingerprint-value'>"
                     f"{html_text(fingerprint[:12])}</code> (the competition's: the same in <code>srdash score</code> "
                     "and the report)</div>")
        with self._lock:
            self._done[key] = final
        update()


def entries_hash_html(verdict) -> str:
    """The entries hash of a review of loose results, named as what it is (its first 12 characters)."""
    return ("<div class='srdash-fingerprint srdash-entries-hash'>Entries hash: <code class='srdash-entries-hash-value'>"
            f"{html_text(entries_hash(verdict)[:12])}</code> (of this leaderboard and the judges' entries; a "
            "competition's verdict fingerprint is shown when the review is of a competition file)</div>")
