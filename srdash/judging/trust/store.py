"""The trust store: every judge's trust entries and rubric scores, in one SQLite file.

Every change is committed at once with a row of history; the review's state (blinded orders, each
judge's place, the unblinding) lives beside the entries. The access keys and the CSV exchange are
the store's too (:mod:`~srdash.judging.trust.access`, :mod:`~srdash.judging.trust.exchange`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import numpy as np

from srdash.io.private import private_database
from srdash.judging.trust.access import AccessKeys
from srdash.judging.trust.entry import (MAX_COMMENT_CHARS, Entry, TrustStoreError, check_name, check_score,
                                        check_value, utc_now)
from srdash.judging.trust.exchange import CsvExchange
from srdash.judging.trust.schema import LATER_TABLES, SCHEMA, SCHEMA_VERSION
from srdash.judging.trust.settings import TRUST_KINDS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["TrustStore", "default_store_path", "blinded_label"]

_KEEP = object()  # "leave this field as it is" in TrustStore.record
_ENTRY_COLUMNS = ["judge", "dataset", "method", "kind", "value", "comment", "updated_at"]
_HISTORY_COLUMNS = ["id", "judge", "dataset", "method", "kind", "value", "comment", "changed_at", "source"]


def default_store_path() -> Path:
    """Where the trust store lives unless told otherwise: srdash's user data directory.

    Examples
    --------
    >>> default_store_path().name
    'trust.sqlite'
    """
    import platformdirs

    return Path(platformdirs.user_data_dir("srdash")) / "trust.sqlite"


def blinded_label(position: int) -> str:
    """The blinded name of the model shown at ``position`` (0-based): Model A, B, ..., Z, AA, AB, ...

    Examples
    --------
    >>> [blinded_label(i) for i in (0, 1, 25, 26, 27)]
    ['Model A', 'Model B', 'Model Z', 'Model AA', 'Model AB']
    """
    letters = ""
    n = position + 1
    while n > 0:
        n, remainder = divmod(n - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return f"Model {letters}"


class TrustStore(AccessKeys, CsvExchange):
    """The trust entries of every judge, in one SQLite file.

    Every change is committed at once, in its own transaction, together with a
    row in the history table (earlier values are never lost). The database
    runs in WAL mode with full synchronisation: a change that :meth:`record`
    returned survives the process being killed. Each judge writes only their
    own rows, and writers take SQLite's write lock (waiting up to ``timeout``
    seconds), so two judges reviewing at once never overwrite each other.

    Parameters
    ----------
    path : path-like, optional
        The store file (created with its folder if missing). Default:
        :func:`default_store_path`.
    seed : int, optional
        Seed of the blinded orders, for a *new* store (default: a random one).
        It is kept in the store; opening an existing store with another seed
        is refused, since it would change every judge's order.
    timeout : float
        Seconds to wait for another writer.
    create : bool
        Create the store when ``path`` does not exist. False: a missing file
        is an error (a mistyped path never becomes an empty store).
    read_only : bool
        Open an existing store without writing anything to it or beside it
        (for exports, and stores on read-only media); every change is refused.

    Raises
    ------
    TrustStoreError
        When the file is missing (``create=False`` or ``read_only``), is not an
        srdash trust store, or of another schema version.
    """

    def __init__(self, path: str | Path | None = None, *, seed: int | None = None, timeout: float = 10.0,
                 create: bool = True, read_only: bool = False):
        self.path = Path(path) if path is not None else default_store_path()
        self.read_only = bool(read_only)
        self._connection = None
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file opened for writing
        self._holder: str | None = None  # digest of the key identify() accepted: checked again on every write
        if (read_only or not create) and not self.path.is_file():
            what = "a folder" if self.path.is_dir() else "no such file"
            raise TrustStoreError(f"There is no trust store at '{self.path}' ({what}). Check the path; a new "
                                  "store is made by `srdash trust init --store FILE`.")
        try:
            if read_only:
                private_database(self.path, create=False)  # one made before srdash kept it private
                self._connection = self._open_read_only(timeout)
                tables = {row[0] for row in self._connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
                if "meta" not in tables:
                    raise TrustStoreError(f"'{self.path}' is not an srdash trust store"
                                          + (f" (its tables: {', '.join(sorted(tables))})." if tables else "."))
                self._missing_tables = set(LATER_TABLES) - tables
                meta = dict(self._connection.execute("SELECT key, value FROM meta").fetchall())
            else:
                self._missing_tables = set()
                private_database(self.path, create=True)
                self._connection = sqlite3.connect(self.path, timeout=timeout, isolation_level=None,
                                                   check_same_thread=False)
                self._connection.execute("PRAGMA journal_mode=WAL")
                self._connection.execute("PRAGMA synchronous=FULL")
                with self._transaction() as cursor:
                    tables = {row[0] for row in cursor.execute(
                        "SELECT name FROM sqlite_master WHERE type = 'table'")}
                    if tables and "meta" not in tables:  # another application's database: leave it alone
                        raise TrustStoreError(f"'{self.path}' is an SQLite database, but not an srdash trust "
                                              f"store (its tables: {', '.join(sorted(tables))}). Give another file.")
                    for statement in SCHEMA.split(";"):
                        if statement.strip():
                            cursor.execute(statement)
                    meta = dict(cursor.execute("SELECT key, value FROM meta").fetchall())
                    if not meta:
                        meta = {"schema_version": str(SCHEMA_VERSION),
                                "seed": str(seed if seed is not None else secrets.randbits(62)),
                                "created_at": utc_now()}
                        cursor.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
            if meta.get("schema_version") != str(SCHEMA_VERSION):
                raise TrustStoreError(f"The trust store '{self.path}' has schema version "
                                      f"{meta.get('schema_version')!r}; this srdash reads version {SCHEMA_VERSION}.")
            self.seed = int(meta["seed"])
            if not read_only:
                info = os.stat(self.path)
                self._identity = (info.st_dev, info.st_ino)
            if seed is not None and seed != self.seed:
                raise TrustStoreError(f"The trust store '{self.path}' already has the blinding seed {self.seed}; "
                                      f"it cannot change to {seed} (every judge's order of models would change). "
                                      "Open it without a seed.")
        except (sqlite3.Error, OSError, TrustStoreError) as exc:
            if getattr(self, "_connection", None) is not None:
                self._connection.close()
            if isinstance(exc, TrustStoreError):
                raise
            raise TrustStoreError(f"Cannot open the trust store '{self.path}': {exc}. Give the path of an "
                                  "srdash trust store, or of a new file to create.") from exc

    def _open_read_only(self, timeout: float):
        """Open without writing anything to the store or beside it.

        While a writer has the store open, its latest changes may still be in
        the write-ahead log (``-wal`` file): then SQLite's ``mode=ro`` reads them
        (and shares the writer's ``-shm`` file). Without a log, every change is
        in the file itself, which is opened as immutable: nothing is created,
        so a store on read-only media or in a folder we may not write to opens.
        """
        uri = self.path.resolve().as_uri()
        options = dict(timeout=timeout, isolation_level=None, check_same_thread=False, uri=True)
        if Path(f"{self.path}-wal").exists():
            connection = sqlite3.connect(f"{uri}?mode=ro", **options)
            try:
                connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return connection
            except sqlite3.Error:
                connection.close()
        return sqlite3.connect(f"{uri}?immutable=1", **options)

    # -- plumbing

    @contextlib.contextmanager
    def _transaction(self):
        """One write transaction: BEGIN IMMEDIATE takes the write lock at once, so that a read
        followed by a write cannot interleave with another writer's."""
        if self.read_only:
            raise TrustStoreError(f"The trust store '{self.path}' was opened read-only; it cannot change.")
        self._check_same_file()
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            if self._holder is not None:  # a key revoked while the page was open saves nothing more
                row = self._connection.execute("SELECT revoked_at FROM access_keys WHERE digest = ?",
                                               (self._holder,)).fetchone()
                if row is None or row[0] is not None:
                    when = f" on {row[0]}" if row is not None else ""
                    raise TrustStoreError(f"This access key was revoked{when}: the change was NOT saved. Ask "
                                          f"the organiser for a new link.")
            yield self._connection.cursor()
        except BaseException:
            self._connection.execute("ROLLBACK")
            raise
        self._connection.execute("COMMIT")

    def _check_same_file(self) -> None:
        """Refuse to write when the store's path no longer leads to the file that was opened.

        SQLite keeps writing into a deleted or moved file through its open
        descriptor: every save would "succeed" into a file nobody will read.
        """
        if self._identity is None:
            return
        try:
            info = os.stat(self.path)
        except OSError:
            info = None
        if info is None or (info.st_dev, info.st_ino) != self._identity:
            what = "is gone (deleted or moved)" if info is None else "was replaced by another file"
            raise TrustStoreError(f"The trust store '{self.path}' {what} since it was opened: the change was NOT "
                                  f"saved. Tell the organiser; reopen the review once the store is back.")

    def close(self) -> None:
        """Close the database connection."""
        self._connection.close()

    def __enter__(self) -> "TrustStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"TrustStore('{self.path}')"

    # -- review state

    @staticmethod
    def _closed(cursor) -> tuple[str, str] | None:
        rows = dict(cursor.execute(
            "SELECT key, value FROM meta WHERE key IN ('unblinded_at', 'unblinded_by')").fetchall())
        return (rows["unblinded_at"], rows["unblinded_by"]) if "unblinded_at" in rows else None

    @property
    def closed(self) -> tuple[str, str] | None:
        """``(at, by)`` when the organiser revealed the methods (the review is then closed), else None."""
        return self._closed(self._connection)

    def unblind(self, *, by: str) -> tuple[str, str]:
        """Reveal the method names and close the review: entries can no longer change.

        Returns ``(at, by)``; unblinding twice keeps the first time.
        """
        check_name("organiser's name", by)
        with self._transaction() as cursor:
            existing = self._closed(cursor)
            if existing:
                return existing
            at = utc_now()
            cursor.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                               [("unblinded_at", at), ("unblinded_by", by)])
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'unblind', ?)",
                           (at, by, "method names revealed; the review is closed"))
        return at, by

    def reopen(self, *, by: str, reason: str = "") -> None:
        """Reopen a closed review (the judges can change their entries again).

        The method names stay revealed to whoever saw them; the reopening, who
        did it and why are kept in :meth:`events`. Reopening an open review
        does nothing.
        """
        check_name("organiser's name", by)
        with self._transaction() as cursor:
            closed = self._closed(cursor)
            if not closed:
                return
            cursor.execute("DELETE FROM meta WHERE key IN ('unblinded_at', 'unblinded_by')")
            detail = f"review reopened (it was closed on {closed[0]} by {closed[1]})"
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'reopen', ?)",
                           (utc_now(), by, detail + (f": {reason}" if reason else "")))

    def _refuse_if_closed(self, cursor) -> None:
        closed = self._closed(cursor)
        if closed:
            raise TrustStoreError(f"The review was closed on {closed[0]} by {closed[1]}, who revealed the "
                                  "method names; trust entries can no longer change.")

    def blinded_order(self, judge: str, dataset: str, methods: Iterable[str]) -> list[str]:
        """The methods in the order ``judge`` sees them on ``dataset``.

        A permutation of the sorted methods, drawn from a generator seeded by a
        hash of (store seed, judge, dataset): the same for the same judge every
        time, and independent between judges and datasets.
        """
        ordered = sorted(set(methods))
        digest = hashlib.sha256(f"{self.seed}\x00{judge}\x00{dataset}".encode()).digest()
        generator = np.random.default_rng(int.from_bytes(digest[:8], "big"))
        return [ordered[i] for i in generator.permutation(len(ordered))]

    def blinded_labels(self, judge: str, dataset: str, methods: Iterable[str]) -> dict[str, str]:
        """Method -> "Model A", "Model B", ... in ``judge``'s order on ``dataset``."""
        return {m: blinded_label(i) for i, m in enumerate(self.blinded_order(judge, dataset, methods))}

    def position(self, judge: str) -> str | None:
        """The dataset ``judge`` last looked at (to come back to it), or None."""
        row = self._connection.execute("SELECT position FROM judges WHERE judge = ?", (judge,)).fetchone()
        return row[0] if row else None

    def set_position(self, judge: str, dataset: str) -> None:
        """Remember that ``judge`` is looking at ``dataset``."""
        check_name("judge's name", judge)
        with self._transaction() as cursor:
            cursor.execute("INSERT INTO judges (judge, position, updated_at) VALUES (?, ?, ?) "
                           "ON CONFLICT (judge) DO UPDATE SET position = excluded.position, "
                           "updated_at = excluded.updated_at", (judge, dataset, utc_now()))

    # -- entries

    def record(self, judge: str, dataset: str, method: str, *, kind: str, value=_KEEP, comment=_KEEP,
               source: str = "app") -> Entry:
        """Write one change (value and/or comment) at once; returns the entry as stored.

        Parameters
        ----------
        judge, dataset, method : str
        kind : {'rank', 'rating'}
        value : int, float or None, optional
            The rank (1 = most trusted) or rating (1-5); None clears it. Omitted:
            unchanged.
        comment : str, optional
            Omitted: unchanged.
        source : str
            Where the change came from (``app``, ``import:<file>``), kept in the history.

        Raises
        ------
        TrustStoreError
            Invalid value or kind; the judge already entered the other kind of
            value on this dataset; the review is closed.
        """
        check_name("judge's name", judge)
        check_name("dataset", dataset)
        check_name("method", method)
        if kind not in TRUST_KINDS:
            raise TrustStoreError(f"The 'kind' of a trust entry must be one of 'rank', 'rating'. Got {kind!r}.")
        if value is not _KEEP:
            value = check_value(kind, value)
        if comment is not _KEEP and not isinstance(comment, str):
            raise TrustStoreError(f"A comment must be text. Got {comment!r}.")
        with self._transaction() as cursor:
            return self._write(cursor, judge, dataset, method, kind, value, comment, source)

    def _write(self, cursor, judge, dataset, method, kind, value, comment, source) -> Entry:
        if isinstance(comment, str) and len(comment) > MAX_COMMENT_CHARS:
            raise TrustStoreError(f"A comment may have at most {MAX_COMMENT_CHARS:,} characters; this one has "
                                  f"{len(comment):,} ({method} on {dataset}). Shorten it; it was not saved.")
        self._refuse_if_closed(cursor)
        current = cursor.execute("SELECT kind, value, comment FROM trust WHERE judge = ? AND dataset = ? "
                                 "AND method = ?", (judge, dataset, method)).fetchone()
        old_kind, old_value, old_comment = current if current is not None else (kind, None, "")
        if value is _KEEP:  # a comment alone never changes what an existing value means
            new_value, kind = old_value, (old_kind if old_value is not None else kind)
        else:
            new_value = value
        new_comment = old_comment if comment is _KEEP else comment
        other = "rating" if kind == "rank" else "rank"
        if new_value is not None and value is not _KEEP and cursor.execute(
                "SELECT 1 FROM trust WHERE judge = ? AND dataset = ? AND method != ? AND kind != ? "
                "AND value IS NOT NULL LIMIT 1", (judge, dataset, method, kind)).fetchone():
            raise TrustStoreError(f"{judge} already gave {dataset!r} models a trust {other}; one dataset takes "
                                  f"one kind of value. Clear those first, or enter a {other}.")
        at = utc_now()
        cursor.execute(
            "INSERT INTO trust (judge, dataset, method, kind, value, comment, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (judge, dataset, method) DO UPDATE SET "
            "kind = excluded.kind, value = excluded.value, comment = excluded.comment, "
            "updated_at = excluded.updated_at",
            (judge, dataset, method, kind, new_value, new_comment, at))
        cursor.execute(
            "INSERT INTO trust_history (judge, dataset, method, kind, value, comment, changed_at, source) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (judge, dataset, method, kind, new_value, new_comment, at, source))
        return Entry(judge, dataset, method, kind, new_value, new_comment, at)

    def entries(self, *, judge: str | None = None, dataset: str | None = None) -> pd.DataFrame:
        """The current entries (columns judge, dataset, method, kind, value, comment, updated_at)."""
        return self._select("trust", _ENTRY_COLUMNS, judge, dataset, order="judge, dataset, method")

    def history(self, *, judge: str | None = None, dataset: str | None = None) -> pd.DataFrame:
        """Every change ever made, oldest first (columns id, judge, dataset, method, kind, value,
        comment, changed_at, source)."""
        return self._select("trust_history", _HISTORY_COLUMNS, judge, dataset, order="id")

    def events(self) -> pd.DataFrame:
        """Review events (imports, unblinding): columns id, at, judge, action, detail."""
        import pandas as pd

        rows = self._connection.execute("SELECT id, at, judge, action, detail FROM events ORDER BY id").fetchall()
        return pd.DataFrame(rows, columns=["id", "at", "judge", "action", "detail"])

    def _select(self, table: str, columns: list[str], judge, dataset, *, order: str,
                value: str = "value") -> pd.DataFrame:
        import pandas as pd

        where, parameters = [], []
        for column, wanted in (("judge", judge), ("dataset", dataset)):
            if wanted is not None:
                where.append(f"{column} = ?")
                parameters.append(wanted)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self._connection.execute(f"SELECT {', '.join(columns)} FROM {table}{clause} ORDER BY {order}",
                                        parameters).fetchall()
        frame = pd.DataFrame(rows, columns=columns)
        frame[value] = pd.to_numeric(frame[value]).astype(float)
        return frame

    def judges(self) -> list[str]:
        """Every judge with at least one entry, sorted."""
        return [r[0] for r in self._connection.execute("SELECT DISTINCT judge FROM trust ORDER BY judge")]


    # -- jury scores

    def record_score(self, judge: str, dataset: str, method: str, criterion: str, score, *,
                     rubric=None, source: str = "app") -> float | None:
        """Write one juror's score of one entry on one criterion at once; None clears it.

        Parameters
        ----------
        judge, dataset, method, criterion : str
        score : number or None
            Checked against ``rubric`` (criterion and scale) when given;
            always a finite number.
        rubric : srdash.judging.jury.Rubric, optional
        source : str
            Kept in the history.

        Raises
        ------
        TrustStoreError
            Invalid score or names; the review is closed.
        """
        for what, name in (("judge's name", judge), ("dataset", dataset), ("method", method),
                           ("criterion", criterion)):
            check_name(what, name)
        if score is not None:
            score = check_score(criterion, score, rubric)
        with self._transaction() as cursor:
            self._write_score(cursor, judge, dataset, method, criterion, score, source)
        return score

    def _write_score(self, cursor, judge, dataset, method, criterion, score, source) -> None:
        self._refuse_if_closed(cursor)
        at = utc_now()
        cursor.execute(
            "INSERT INTO jury_scores (judge, dataset, method, criterion, score, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (judge, dataset, method, criterion) DO UPDATE SET score = excluded.score, "
            "updated_at = excluded.updated_at", (judge, dataset, method, criterion, score, at))
        cursor.execute("INSERT INTO jury_history (judge, dataset, method, criterion, score, changed_at, source) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", (judge, dataset, method, criterion, score, at, source))

    def jury_scores(self, *, judge: str | None = None, dataset: str | None = None) -> pd.DataFrame:
        """The current rubric scores (columns judge, dataset, method, criterion, score, updated_at)."""
        import pandas as pd

        columns = ["judge", "dataset", "method", "criterion", "score", "updated_at"]
        if "jury_scores" in self._missing_tables:
            return pd.DataFrame(columns=columns).astype({"score": float})
        frame = self._select("jury_scores", columns, judge, dataset, order="judge, dataset, method, criterion",
                             value="score")
        return frame

    def jury_history(self) -> pd.DataFrame:
        """Every rubric score ever given, oldest first."""
        import pandas as pd

        columns = ["id", "judge", "dataset", "method", "criterion", "score", "changed_at", "source"]
        if "jury_history" in self._missing_tables:
            return pd.DataFrame(columns=columns)
        return self._select("jury_history", columns, None, None, order="id", value="score")
