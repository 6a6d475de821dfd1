"""Access to the review: personal access keys (only their hash is stored) and what their holder may do.

:class:`AccessKeys` holds the key methods of :class:`~srdash.judging.trust.TrustStore` (which inherits
them); :class:`ReviewSession` is what the holder of one key sees: a judge their own entries, the
organiser every entry and the unblinding.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import TYPE_CHECKING, Iterable

from srdash.judging.trust.entry import Entry, TrustStoreError, check_name, utc_now

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ROLES", "AccessKeys", "ReviewSession", "key_digest"]

#: Who holds an access key: a judge (their own entries only) or the organiser (every entry, unblinding).
ROLES = ("judge", "organiser")


def key_digest(key: str) -> str:
    """The SHA-256 hex digest under which an access key is stored (the key itself never is)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class AccessKeys:
    """The access-key methods of :class:`~srdash.judging.trust.TrustStore`.

    A mixin: it uses the store's connection (``_connection``), its write transaction
    (``_transaction``), the tables an older store lacks (``_missing_tables``) and the digest of the
    key :meth:`identify` accepted (``_holder``), which the store checks again on every write.
    """

    # -- access keys

    def issue_key(self, judge: str, *, role: str = "judge") -> str:
        """Issue a personal secret access key for ``judge`` (or the organiser); returns it.

        Only a hash of the key is stored: give the key to its holder (e.g. in
        their link ``...?key=KEY``); it cannot be read back. Issuing a new key
        does not revoke older ones (see :meth:`revoke_keys`).

        Parameters
        ----------
        judge : str
            The holder's name, as stored with their entries.
        role : {'judge', 'organiser'}
            A judge sees and changes only their own entries; the organiser sees
            every entry and can reveal the methods.
        """
        check_name("judge's name", judge)
        if role not in ROLES:
            raise TrustStoreError(f"The 'role' of an access key must be one of 'judge', 'organiser'. Got {role!r}.")
        key = secrets.token_urlsafe(24)
        with self._transaction() as cursor:
            cursor.execute("INSERT INTO access_keys (digest, judge, role, issued_at) VALUES (?, ?, ?, ?)",
                           (key_digest(key), judge, role, utc_now()))
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'issue-key', ?)",
                           (utc_now(), judge, f"{role} key issued"))
        return key

    def revoke_keys(self, judge: str) -> int:
        """Revoke every key of ``judge``; returns how many were still valid."""
        with self._transaction() as cursor:
            count = cursor.execute("UPDATE access_keys SET revoked_at = ? WHERE judge = ? AND revoked_at IS NULL",
                                   (utc_now(), judge)).rowcount
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'revoke-keys', ?)",
                           (utc_now(), judge, f"{count} key(s) revoked"))
        return count

    @property
    def keys_issued(self) -> bool:
        """Whether access keys were issued: the review then admits only holders of a valid key."""
        if "access_keys" in self._missing_tables:
            return False
        return self._connection.execute("SELECT 1 FROM access_keys LIMIT 1").fetchone() is not None

    def identify(self, key: str | None) -> tuple[str, str]:
        """``(judge, role)`` of the holder of ``key``.

        Once a key is accepted, every later write through this store object
        checks it again: a key revoked while the review page is open saves
        nothing more.

        Raises
        ------
        TrustStoreError
            When the key is missing, unknown or revoked (the message never
            repeats the key).
        """
        if not key or not isinstance(key, str) or "access_keys" in self._missing_tables:
            raise TrustStoreError("This review needs your personal link (with ?key=...). Ask the organiser "
                                  "for it.")
        row = self._connection.execute("SELECT judge, role, revoked_at FROM access_keys WHERE digest = ?",
                                       (key_digest(key),)).fetchone()
        if row is None:
            raise TrustStoreError("This access key is not valid. Check your link, or ask the organiser for a "
                                  "new one.")
        if row[2] is not None:
            raise TrustStoreError(f"This access key was revoked on {row[2]}. Ask the organiser for a new one.")
        self._holder = key_digest(key)
        return row[0], row[1]

    def session(self, key: str) -> "ReviewSession":
        """What the holder of ``key`` may do: :class:`ReviewSession` (see :meth:`identify`)."""
        judge, role = self.identify(key)
        return ReviewSession(self, judge=judge, role=role)


class ReviewSession:
    """What the holder of an access key may do in the review (see :meth:`TrustStore.session`).

    A **judge** reads and changes only their own entries and scores, sees the
    models in their own blinded order, and can neither reveal the methods nor
    reopen the review; the session exposes no blinding seed and no other
    judge's entries. The **organiser** reads every entry, reveals the methods
    (closing the review) and reopens it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> from srdash.judging.trust import TrustStore
    >>> store = TrustStore(Path(folder.name) / "trust.sqlite", seed=1)
    >>> ann = store.session(store.issue_key("ann"))
    >>> _ = ann.record("d1", "operon", kind="rank", value=1)
    >>> _ = store.record("bob", "d1", "operon", kind="rank", value=2)
    >>> ann.judge, ann.role, ann.entries()["judge"].tolist()
    ('ann', 'judge', ['ann'])
    >>> ann.unblind()
    Traceback (most recent call last):
    ...
    srdash.judging.trust.TrustStoreError: Only the organiser can reveal the methods; ann holds a judge's key.
    >>> store.close(); folder.cleanup()
    """

    __slots__ = ("_store", "judge", "role")

    def __init__(self, store: "TrustStore", *, judge: str, role: str):
        self._store = store
        self.judge = judge
        self.role = role

    def __repr__(self) -> str:
        return f"ReviewSession(judge={self.judge!r}, role={self.role!r})"

    @property
    def is_organiser(self) -> bool:
        return self.role == "organiser"

    def _organiser_only(self, what: str) -> None:
        if not self.is_organiser:
            raise TrustStoreError(f"Only the organiser can {what}; {self.judge} holds a judge's key.")

    # entries: a judge's own only
    def record(self, dataset: str, method: str, **change) -> Entry:
        return self._store.record(self.judge, dataset, method, **change)

    def record_score(self, dataset: str, method: str, criterion: str, score, **options) -> float | None:
        return self._store.record_score(self.judge, dataset, method, criterion, score, **options)

    def entries(self, *, dataset: str | None = None) -> pd.DataFrame:
        return self._store.entries(judge=None if self.is_organiser else self.judge, dataset=dataset)

    def jury_scores(self, *, dataset: str | None = None) -> pd.DataFrame:
        return self._store.jury_scores(judge=None if self.is_organiser else self.judge, dataset=dataset)

    def history(self) -> pd.DataFrame:
        return self._store.history(judge=None if self.is_organiser else self.judge)

    def blinded_labels(self, dataset: str, methods: Iterable[str]) -> dict[str, str]:
        return self._store.blinded_labels(self.judge, dataset, methods)

    def blinded_order(self, dataset: str, methods: Iterable[str]) -> list[str]:
        return self._store.blinded_order(self.judge, dataset, methods)

    def position(self) -> str | None:
        return self._store.position(self.judge)

    def set_position(self, dataset: str) -> None:
        self._store.set_position(self.judge, dataset)

    @property
    def closed(self) -> tuple[str, str] | None:
        return self._store.closed

    # the organiser's
    def judges(self) -> list[str]:
        return self._store.judges() if self.is_organiser else [self.judge]

    def events(self) -> pd.DataFrame:
        self._organiser_only("read the review's events")
        return self._store.events()

    def unblind(self) -> tuple[str, str]:
        self._organiser_only("reveal the methods")
        return self._store.unblind(by=self.judge)

    def reopen(self, *, reason: str = "") -> None:
        self._organiser_only("reopen the review")
        self._store.reopen(by=self.judge, reason=reason)
