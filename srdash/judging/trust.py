"""Expert trust: the review's store, ratings and ranks, agreement, and the real-world verdict.

In the real-world track a domain expert (or several) judges each method's
representative model (see :mod:`srdash.judging.representative`) by trust. Entries are
kept in a :class:`TrustStore`, one SQLite file written at every change; the
verdict adds the aggregated trust as a third criterion (preset
``srbench2022-realworld``).

Trust values
------------
A judge gives, per dataset and model, either a **rank** (1 = most trusted, each
rank used once when ranks are strict) or a **rating** from 1 (least trust) to
5 (most trust), as the 2022 expert did. Ratings become ranks with ties: the
models sharing a rating share the mean of the positions they occupy
(:func:`ranks_from_ratings`). A judge's entries on a dataset count only when
they are *complete* (every model has a value) and valid (strict ranks are
1..n, each once); otherwise the judge is left out on that dataset, and the
summary says so.

Several judges: the per-model trust is the mean (or median) of the judges'
ranks, so 1 is still the most trusted. Their agreement is Kendall's W
(:func:`kendalls_w`), and the models with the largest spread of ranks are the
ones they disagree on most.

Verdict
-------
:func:`realworld_verdict` judges the representative runs with a ``trust``
column (the aggregated rank; direction ``lower``). A model no judge has
reviewed completely has no trust value, which counts as the worst value (the
ranking's missing-value rule); a dataset nobody has reviewed therefore gives
every model the same trust rank, and the verdict warns about it.

Examples
--------
>>> ranks_from_ratings([3, 5, 3, 1]).tolist()
[2.5, 1.0, 2.5, 4.0]
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     with TrustStore(Path(folder) / "trust.sqlite", seed=1) as store:
...         _ = store.record("ann", "d1", "operon", kind="rating", value=5)
...         _ = store.record("ann", "d1", "pysr", kind="rating", value=3, comment="too many terms")
...         entries = store.entries()
>>> entries[["judge", "dataset", "method", "kind", "value"]]
  judge dataset  method    kind  value
0   ann      d1  operon  rating    5.0
1   ann      d1    pysr  rating    3.0
>>> entries["comment"].tolist()
['', 'too many terms']
>>> trust_summary(entries).table[["dataset", "method", "trust", "judges"]]
  dataset  method  trust  judges
0      d1  operon    1.0       1
1      d1    pysr    2.0       1
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import os
import secrets
import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from srdash.errors import Problem, RulesError, SrdashError, ValidationError
from srdash.io.csvsafe import restore_text, write_csv
from srdash.io.private import open_private, private_database
from srdash.judging.rules import Rules, load_rules

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from srdash.judging.ranking import Verdict

__all__ = [
    "TRUST_KINDS",
    "RATING_SCALE",
    "AGGREGATIONS",
    "TrustStoreError",
    "ReviewSettings",
    "review_settings",
    "Entry",
    "TrustStore",
    "ROLES",
    "ReviewSession",
    "default_store_path",
    "blinded_label",
    "ranks_from_ratings",
    "entry_problems",
    "kendalls_w",
    "TrustSummary",
    "trust_summary",
    "realworld_table",
    "realworld_verdict",
]

#: How a judge expresses trust: a rank (1 = most trusted) or a rating (1 = least, 5 = most trust).
TRUST_KINDS = ("rank", "rating")
#: The rating scale: lowest (least trust) and highest (most trust) rating.
RATING_SCALE = (1, 5)
#: How several judges' ranks combine into one trust value per model.
AGGREGATIONS = ("mean-rank", "median-rank")

SCHEMA_VERSION = 1
_KEEP = object()  # "leave this field as it is" in TrustStore.record
_ENTRY_COLUMNS = ["judge", "dataset", "method", "kind", "value", "comment", "updated_at"]
_HISTORY_COLUMNS = ["id", "judge", "dataset", "method", "kind", "value", "comment", "changed_at", "source"]
# CSV import: canonical column -> accepted names (the canonical name first).
_CSV_ALIASES = {
    "judge": ("judge", "expert", "reviewer"),
    "dataset": ("dataset", "task"),
    "method": ("method", "algorithm"),
    "kind": ("kind",),
    "value": ("value", "expert_score", "rating", "rank", "trust"),
    "comment": ("comment", "comments", "note"),
}
_KIND_OF_VALUE_COLUMN = {"expert_score": "rating", "rating": "rating", "rank": "rank"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trust (
    judge      TEXT NOT NULL,
    dataset    TEXT NOT NULL,
    method     TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('rank', 'rating')),
    value      REAL,
    comment    TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (judge, dataset, method)
);
CREATE TABLE IF NOT EXISTS trust_history (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    judge      TEXT NOT NULL,
    dataset    TEXT NOT NULL,
    method     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    value      REAL,
    comment    TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    source     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS judges (
    judge      TEXT PRIMARY KEY,
    position   TEXT,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    at     TEXT NOT NULL,
    judge  TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS jury_scores (
    judge      TEXT NOT NULL,
    dataset    TEXT NOT NULL,
    method     TEXT NOT NULL,
    criterion  TEXT NOT NULL,
    score      REAL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (judge, dataset, method, criterion)
);
CREATE TABLE IF NOT EXISTS jury_history (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    judge      TEXT NOT NULL,
    dataset    TEXT NOT NULL,
    method     TEXT NOT NULL,
    criterion  TEXT NOT NULL,
    score      REAL,
    changed_at TEXT NOT NULL,
    source     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS access_keys (
    digest     TEXT PRIMARY KEY,
    judge      TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('judge', 'organiser')),
    issued_at  TEXT NOT NULL,
    revoked_at TEXT
);
"""
# Tables added after schema version 1 was released: created when a store is opened for writing,
# read as empty from an older store opened read-only.
_LATER_TABLES = ("jury_scores", "jury_history", "access_keys")
#: Who holds an access key: a judge (their own entries only) or the organiser (every entry, unblinding).
ROLES = ("judge", "organiser")


#: The longest comment a judge may keep with an entry (characters); longer ones are refused.
MAX_COMMENT_CHARS = 10_000


class TrustStoreError(SrdashError):
    """The trust store cannot be opened, or refuses a change (with the reason)."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _one_of(option: str, value: Any, allowed: Sequence[str], where: str = "") -> None:
    if value not in allowed:
        listed = ", ".join(f"'{a}'" for a in allowed)
        prefix = f"{where}: the" if where else "The"
        raise SrdashError(f"{prefix} '{option}' option must be one of {listed}. Got {value!r}.")


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class ReviewSettings:
    """How trust is entered and combined.

    Attributes
    ----------
    trust_input : {'rank', 'rating'}
        What the judge enters per model: a rank (1 = most trusted) or a 1–5 rating.
    strict_ranks : bool
        Ranks must be 1..n, each used once (no ties).
    aggregation : {'mean-rank', 'median-rank'}
        How several judges' ranks combine.
    """

    trust_input: str = "rank"
    strict_ranks: bool = True
    aggregation: str = "mean-rank"

    def __post_init__(self) -> None:
        _one_of("trust_input", self.trust_input, TRUST_KINDS, "review settings")
        _one_of("aggregation", self.aggregation, AGGREGATIONS, "review settings")
        if not isinstance(self.strict_ranks, bool):
            raise SrdashError(f"review settings: 'strict_ranks' must be true or false. Got {self.strict_ranks!r}.")


def review_settings(rules: Rules, *, trust_input: str | None = None) -> ReviewSettings:
    """The review settings of ``rules`` (their ``[review]`` table; defaults otherwise).

    Parameters
    ----------
    rules : Rules
    trust_input : {'rank', 'rating'}, optional
        Overrides the rules' choice.

    Raises
    ------
    RulesError
        When the ``[review]`` table has unknown keys or invalid values.

    Examples
    --------
    >>> review_settings(load_rules("srbench2022-realworld"))
    ReviewSettings(trust_input='rank', strict_ranks=True, aggregation='mean-rank')
    >>> review_settings(load_rules("srbench2022-realworld"), trust_input="rating").trust_input
    'rating'
    """
    section = dict(rules.sections.get("review", {}))
    allowed = {"trust_input", "strict_ranks", "aggregation"}
    unknown = sorted(set(section) - allowed)
    if unknown:
        raise RulesError(f"rules '{rules.name}': unknown key(s) {', '.join(unknown)} in [review]. "
                         f"Allowed: {', '.join(sorted(allowed))}.")
    if trust_input is not None:
        section["trust_input"] = trust_input
    try:
        return ReviewSettings(**section)
    except RulesError:
        raise
    except SrdashError as exc:
        raise RulesError(f"rules '{rules.name}', [review]: {exc}") from exc


# --------------------------------------------------------------------------- the store


@dataclass(frozen=True)
class Entry:
    """One judge's current trust entry for one model on one dataset."""

    judge: str
    dataset: str
    method: str
    kind: str
    value: float | None
    comment: str
    updated_at: str


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


def _check_value(kind: str, value: float | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not np.isfinite(number):  # inf and nan are no rank or rating (and int(inf) would raise)
        number = float("nan")
    if kind == "rank":
        if not (number >= 1 and number == int(number)):
            raise TrustStoreError(f"A trust rank must be a whole number from 1 (most trusted). Got {value!r}.")
    else:
        low, high = RATING_SCALE
        if not (low <= number <= high and number == int(number)):
            raise TrustStoreError(f"A trust rating must be a whole number from {low} (least trust) to "
                                  f"{high} (most trust). Got {value!r}.")
    return number


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _check_score(criterion: str, score, rubric) -> float:
    if rubric is not None:
        try:
            return rubric.check_score(criterion, score)
        except RulesError as exc:
            raise TrustStoreError(str(exc)) from exc
    try:
        number = float(score)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(score, bool) or not np.isfinite(number):
        raise TrustStoreError(f"A score of {criterion!r} must be a finite number. Got {score!r}.")
    return number


def _check_name(what: str, name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise TrustStoreError(f"The {what} must be a non-empty text. Got {name!r}.")
    return name


class TrustStore:
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
                self._missing_tables = set(_LATER_TABLES) - tables
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
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            cursor.execute(statement)
                    meta = dict(cursor.execute("SELECT key, value FROM meta").fetchall())
                    if not meta:
                        meta = {"schema_version": str(SCHEMA_VERSION),
                                "seed": str(seed if seed is not None else secrets.randbits(62)),
                                "created_at": _now()}
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
        _check_name("organiser's name", by)
        with self._transaction() as cursor:
            existing = self._closed(cursor)
            if existing:
                return existing
            at = _now()
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
        _check_name("organiser's name", by)
        with self._transaction() as cursor:
            closed = self._closed(cursor)
            if not closed:
                return
            cursor.execute("DELETE FROM meta WHERE key IN ('unblinded_at', 'unblinded_by')")
            detail = f"review reopened (it was closed on {closed[0]} by {closed[1]})"
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'reopen', ?)",
                           (_now(), by, detail + (f": {reason}" if reason else "")))

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
        _check_name("judge's name", judge)
        with self._transaction() as cursor:
            cursor.execute("INSERT INTO judges (judge, position, updated_at) VALUES (?, ?, ?) "
                           "ON CONFLICT (judge) DO UPDATE SET position = excluded.position, "
                           "updated_at = excluded.updated_at", (judge, dataset, _now()))

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
        _check_name("judge's name", judge)
        _check_name("dataset", dataset)
        _check_name("method", method)
        if kind not in TRUST_KINDS:
            raise TrustStoreError(f"The 'kind' of a trust entry must be one of 'rank', 'rating'. Got {kind!r}.")
        if value is not _KEEP:
            value = _check_value(kind, value)
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
        at = _now()
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
        _check_name("judge's name", judge)
        if role not in ROLES:
            raise TrustStoreError(f"The 'role' of an access key must be one of 'judge', 'organiser'. Got {role!r}.")
        key = secrets.token_urlsafe(24)
        with self._transaction() as cursor:
            cursor.execute("INSERT INTO access_keys (digest, judge, role, issued_at) VALUES (?, ?, ?, ?)",
                           (_digest(key), judge, role, _now()))
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'issue-key', ?)",
                           (_now(), judge, f"{role} key issued"))
        return key

    def revoke_keys(self, judge: str) -> int:
        """Revoke every key of ``judge``; returns how many were still valid."""
        with self._transaction() as cursor:
            count = cursor.execute("UPDATE access_keys SET revoked_at = ? WHERE judge = ? AND revoked_at IS NULL",
                                   (_now(), judge)).rowcount
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'revoke-keys', ?)",
                           (_now(), judge, f"{count} key(s) revoked"))
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
                                       (_digest(key),)).fetchone()
        if row is None:
            raise TrustStoreError("This access key is not valid. Check your link, or ask the organiser for a "
                                  "new one.")
        if row[2] is not None:
            raise TrustStoreError(f"This access key was revoked on {row[2]}. Ask the organiser for a new one.")
        self._holder = _digest(key)
        return row[0], row[1]

    def session(self, key: str) -> "ReviewSession":
        """What the holder of ``key`` may do: :class:`ReviewSession` (see :meth:`identify`)."""
        judge, role = self.identify(key)
        return ReviewSession(self, judge=judge, role=role)

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
            _check_name(what, name)
        if score is not None:
            score = _check_score(criterion, score, rubric)
        with self._transaction() as cursor:
            self._write_score(cursor, judge, dataset, method, criterion, score, source)
        return score

    def _write_score(self, cursor, judge, dataset, method, criterion, score, source) -> None:
        self._refuse_if_closed(cursor)
        at = _now()
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

    def import_scores_csv(self, path: str | Path, rubric, *, judge: str | None = None) -> int:
        """Read rubric scores from a CSV file into the store, in one transaction (all rows or none).

        The file has columns ``dataset``, ``method``, ``criterion`` and
        ``score``, and ``judge`` unless ``judge`` is given. Every row is
        checked first (names, the criterion, a finite score on the rubric's
        scale); every problem is reported at once with its row.

        Returns
        -------
        int
            The number of scores written.

        Raises
        ------
        ValidationError
            Listing every problem with its row and column.
        TrustStoreError
            When the file cannot be read, or the review is closed.
        """
        path = Path(path)
        try:
            with path.open(newline="", encoding="utf-8") as handle:
                reader = csv.DictReader(handle)
                header = [h.strip() for h in (reader.fieldnames or [])]
                raw_rows = [{(k or "").strip(): restore_text((v or "").strip())
                             for k, v in row.items() if k is not None}
                            for row in reader]
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise TrustStoreError(f"Cannot read the scores file '{path}': {exc}.") from exc
        source = str(path)
        needed = ["dataset", "method", "criterion", "score"] + ([] if judge else ["judge"])
        missing = [c for c in needed if c not in header]
        if missing:
            hint = " (or give --judge NAME)" if "judge" in missing else ""
            raise ValidationError([Problem(source, None, None, f"no {', '.join(map(repr, missing))} column{hint}. "
                                           f"Columns: {', '.join(header)}.")],
                                  header=f"The scores file {path} is not valid")
        problems, rows, seen = [], [], {}
        for number, raw in enumerate(raw_rows, start=1):
            row = {"judge": judge or raw.get("judge", ""), **{c: raw.get(c, "") for c in ("dataset", "method",
                                                                                         "criterion")}}
            for column in ("judge", "dataset", "method", "criterion"):
                if not row[column]:
                    problems.append(Problem(source, number, column, f"the {column} is empty."))
            text = raw.get("score", "")
            try:
                row["score"] = rubric.check_score(row["criterion"], text) if text else None
            except RulesError as exc:
                problems.append(Problem(source, number, "score" if "score of" in str(exc) else "criterion",
                                        str(exc)))
            key = (row["judge"], row["dataset"], row["method"], row["criterion"])
            if key in seen:
                problems.append(Problem(source, number, None, f"{' / '.join(key)} was already given in row "
                                        f"{seen[key]}; give one row per score."))
            seen.setdefault(key, number)
            rows.append(row)
        if problems:
            raise ValidationError(problems, header=f"The scores file {path} is not valid")
        with self._transaction() as cursor:
            for row in rows:
                self._write_score(cursor, row["judge"], row["dataset"], row["method"], row["criterion"],
                                  row["score"], f"import:{path.name}")
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'import-scores', ?)",
                           (_now(), ", ".join(sorted({r["judge"] for r in rows})) or "-",
                            f"{len(rows)} scores from {path}"))
        return len(rows)

    # -- CSV

    def export_csv(self, path: str | Path) -> int:
        """Write the current entries to a CSV file (private to its owner); returns the number of rows.

        Columns: judge, dataset, method, kind, value, comment, updated_at.
        """
        return _export(self.entries(), path)

    def export_scores_csv(self, path: str | Path) -> int:
        """Write the current rubric scores to a CSV file (columns judge, dataset, method, criterion,
        score, updated_at); returns the number of rows. :meth:`import_scores_csv` reads it back."""
        return _export(self.jury_scores(), path)

    def import_csv(self, path: str | Path, *, judge: str | None = None, kind: str | None = None) -> int:
        """Read trust entries from a CSV file into the store, in one transaction.

        The file has columns ``dataset`` (or ``task``), ``method`` and ``value``
        (or ``expert_score``, ``rating``, ``rank``), and optionally ``judge``,
        ``kind`` and ``comment``. Every row is checked before anything is
        written; every problem is reported at once.

        Parameters
        ----------
        path : path-like
        judge : str, optional
            The judge of every row, when the file has no ``judge`` column.
        kind : {'rank', 'rating'}, optional
            The kind of every row, when the file has no ``kind`` column and its
            value column's name does not say (``expert_score`` and ``rating``
            are ratings, ``rank`` is a rank).

        Returns
        -------
        int
            The number of entries written.

        Raises
        ------
        ValidationError
            Listing every problem with its row and column.
        TrustStoreError
            When the file cannot be read, or the review is closed.
        """
        rows = _read_trust_csv(Path(path), judge=judge, kind=kind)
        source = f"import:{Path(path).name}"
        with self._transaction() as cursor:
            for row in rows:
                self._write(cursor, row["judge"], row["dataset"], row["method"], row["kind"], row["value"],
                            row["comment"], source)
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'import', ?)",
                           (_now(), ", ".join(sorted({r["judge"] for r in rows})) or "-",
                            f"{len(rows)} entries from {path}"))
        return len(rows)


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
    >>> folder = tempfile.TemporaryDirectory()
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

    def __init__(self, store: TrustStore, *, judge: str, role: str):
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


def _export(table: pd.DataFrame, path: str | Path) -> int:
    try:
        with open_private(path, "w", newline="", encoding="utf-8") as handle:  # mode 0600: judges' ranks
            write_csv(table, handle, index=False)
    except OSError as exc:
        raise TrustStoreError(f"Cannot write '{path}': {exc}.") from exc
    return len(table)


def _read_trust_csv(path: Path, *, judge: str | None, kind: str | None) -> list[dict]:
    if kind is not None and kind not in TRUST_KINDS:
        raise TrustStoreError(f"The 'kind' option must be one of 'rank', 'rating'. Got {kind!r}.")
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = [h.strip() for h in (reader.fieldnames or [])]
            raw_rows = [{k.strip() if k else k: restore_text(v) for k, v in row.items()} for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TrustStoreError(f"Cannot read the trust file '{path}': {exc}.") from exc
    source = str(path)
    columns: dict[str, str] = {}
    problems = []
    for canonical, names in _CSV_ALIASES.items():
        present = [n for n in names if n in header]
        if len(present) > 1:
            problems.append(Problem(source, None, None, f"columns {', '.join(map(repr, present))} all mean "
                                    f"'{canonical}'; keep one."))
        if present:
            columns[canonical] = present[0]
    for canonical in ("dataset", "method", "value"):
        if canonical not in columns:
            names = [repr(n) for n in _CSV_ALIASES[canonical]]
            listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
            problems.append(Problem(source, None, None, f"no {listed} column. Columns: {', '.join(header)}."))
    if "judge" not in columns and judge is None:
        problems.append(Problem(source, None, None, "no 'judge' column; give the judge's name (--judge NAME)."))
    fixed_kind = kind if "kind" not in columns else None
    if "kind" not in columns and fixed_kind is None:
        fixed_kind = _KIND_OF_VALUE_COLUMN.get(columns.get("value", ""))
        if fixed_kind is None and "value" in columns:
            problems.append(Problem(source, None, None, "no 'kind' column, and the value column "
                                    f"'{columns['value']}' does not say whether it holds ranks or ratings; "
                                    "give --kind rank or --kind rating."))
    if problems:
        raise ValidationError(problems, header=f"The trust file {path} is not valid")
    rows, seen = [], {}
    for number, raw in enumerate(raw_rows, start=1):
        row = {
            "judge": (raw.get(columns["judge"]) or "").strip() if "judge" in columns else judge,
            "dataset": (raw.get(columns["dataset"]) or "").strip(),
            "method": (raw.get(columns["method"]) or "").strip(),
            "kind": (raw.get(columns["kind"]) or "").strip() if "kind" in columns else fixed_kind,
            "comment": raw.get(columns["comment"]) or "" if "comment" in columns else "",
        }
        for canonical in ("judge", "dataset", "method"):
            if not row[canonical]:
                problems.append(Problem(source, number, columns.get(canonical), f"the {canonical} is empty."))
        if row["kind"] not in TRUST_KINDS:
            problems.append(Problem(source, number, columns.get("kind"),
                                    f"{row['kind']!r} is not a kind; expected 'rank' or 'rating'."))
        text = (raw.get(columns["value"]) or "").strip()
        try:
            row["value"] = _check_value(row["kind"], float(text)) if text else None
        except ValueError:
            problems.append(Problem(source, number, columns["value"], f"{text!r} is not a number."))
        except TrustStoreError as exc:
            problems.append(Problem(source, number, columns["value"], str(exc)))
        key = (row["judge"], row["dataset"], row["method"])
        if key in seen:
            problems.append(Problem(source, number, None, f"{row['judge']} / {row['dataset']} / {row['method']} "
                                    f"was already given in row {seen[key]}; give one row per model."))
        seen.setdefault(key, number)
        rows.append(row)
    if problems:
        raise ValidationError(problems, header=f"The trust file {path} is not valid")
    return rows


# --------------------------------------------------------------------------- ranks


def ranks_from_ratings(ratings: Sequence[float], *, method: str = "average") -> np.ndarray:
    """Trust ranks (1 = most trusted) from ratings (higher = more trust), ties shared.

    Parameters
    ----------
    ratings : sequence of numbers
        One rating per model, none missing.
    method : {'average', 'min', 'max', 'dense'}
        How tied ratings share ranks (as :func:`scipy.stats.rankdata`):
        ``average`` gives each the mean of the positions they occupy.

    Examples
    --------
    Two models rated 4 occupy positions 2 and 3, so each gets 2.5:

    >>> ranks_from_ratings([5, 4, 4, 1]).tolist()
    [1.0, 2.5, 2.5, 4.0]
    >>> ranks_from_ratings([5, 4, 4, 1], method="min").tolist()
    [1.0, 2.0, 2.0, 4.0]
    >>> ranks_from_ratings([2, None])
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: Every model needs a rating to be ranked; 1 of 2 have none.
    """
    import pandas as pd

    _one_of("method", method, ("average", "min", "max", "dense"))
    values = pd.to_numeric(pd.Series(list(ratings), dtype=object), errors="coerce").astype(float)
    if values.isna().any():
        raise SrdashError(f"Every model needs a rating to be ranked; {int(values.isna().sum())} of "
                          f"{len(values)} have none.")
    return values.rank(method=method, ascending=False).to_numpy(dtype=float)


def entry_problems(values: Mapping[str, float | None], *, kind: str, strict: bool = True,
                   labels: Mapping[str, str] | None = None) -> dict[str, str]:
    """What is missing or inconsistent in one judge's entries on one dataset.

    Parameters
    ----------
    values : mapping of method to value or None
        Every model shown on the dataset, with the judge's value (None: none yet).
    kind : {'rank', 'rating'}
    strict : bool
        Ranks must be 1..n, each once.
    labels : mapping of method to shown name, optional
        Used in the messages (default: the method names).

    Returns
    -------
    dict of method to message
        Only the methods with a problem; empty when the entries are complete and valid.

    Examples
    --------
    >>> problems = entry_problems({"a": 1, "b": 1, "c": None}, kind="rank",
    ...                           labels={"a": "Model A", "b": "Model B", "c": "Model C"})
    >>> for method, problem in problems.items():
    ...     print(method, problem)
    a Rank 1 is also given to Model B: give each rank once.
    b Rank 1 is also given to Model A: give each rank once.
    c No rank yet.
    >>> entry_problems({"a": 4, "b": 2}, kind="rating")
    {}
    """
    import pandas as pd

    labels = labels or {}
    noun = "rank" if kind == "rank" else "rating"
    given = {m: v for m, v in values.items() if v is not None and not pd.isna(v)}
    n = len(values)
    problems = {}
    for method, value in values.items():
        if method not in given:
            problems[method] = f"No {noun} yet."
        elif kind == "rank" and value > n:
            problems[method] = f"Rank {value:g} is more than the number of models ({n}): use 1 to {n}."
        elif kind == "rank" and strict:
            others = [labels.get(o, o) for o, v in given.items() if o != method and v == value]
            if others:
                problems[method] = f"Rank {value:g} is also given to {' and '.join(others)}: give each rank once."
    return problems


def kendalls_w(ranks: np.ndarray) -> float:
    """Kendall's coefficient of concordance W of m judges ranking n models.

    ``W = 12 S / (m^2 (n^3 - n) - m sum_j T_j)`` with ``S`` the sum of squared
    deviations of the models' rank sums from their mean and
    ``T_j = sum (t^3 - t)`` over the groups of ``t`` tied ranks of judge ``j``
    (the tie correction). W is 1 when the judges agree perfectly and 0 when
    there is no agreement at all.

    Parameters
    ----------
    ranks : array of shape (m, n)
        Each row one judge's ranks (ties allowed, e.g. from ratings).

    Returns
    -------
    float
        NaN when W is undefined: fewer than 2 judges or 2 models, or every
        judge tying every model.

    Examples
    --------
    Three judges ranking four models; rank sums 4, 6, 8, 12 (mean 7.5), so
    S = 12.25 + 2.25 + 0.25 + 20.25 = 35 and W = 12 * 35 / (3**2 * (4**3 - 4)) = 0.7778:

    >>> round(kendalls_w(np.array([[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]])), 4)
    0.7778
    >>> kendalls_w(np.array([[1, 2, 3], [3, 2, 1]]))
    0.0
    """
    ranks = np.asarray(ranks, dtype=float)
    if ranks.ndim != 2 or ranks.shape[0] < 2 or ranks.shape[1] < 2:
        return float("nan")
    m, n = ranks.shape
    sums = ranks.sum(axis=0)
    s = float(((sums - sums.mean()) ** 2).sum())
    ties = 0.0
    for row in ranks:
        _, counts = np.unique(row, return_counts=True)
        ties += float((counts ** 3 - counts).sum())
    denominator = m ** 2 * (n ** 3 - n) - m * ties
    return float(12 * s / denominator) if denominator > 0 else float("nan")


@dataclass(frozen=True, eq=False)
class TrustSummary:
    """The judges' trust, combined.

    Attributes
    ----------
    table : DataFrame
        One row per reviewed (dataset, method): ``trust`` (the aggregated rank,
        1 = most trusted; NaN when no judge completed the dataset) and
        ``judges`` (the number of judges whose ranks count).
    judge_ranks : DataFrame
        ``judge``, ``dataset``, ``method``, ``kind``, ``value``, ``trust_rank``
        (1 = most trusted) of every complete and valid set of entries.
    agreement : DataFrame
        Per dataset: ``judges``, ``models`` and ``kendalls_w`` (NaN with fewer
        than two judges).
    disagreements : DataFrame
        Per (dataset, method) reviewed by at least two judges: ``ranks`` (e.g.
        ``"ann 1, bob 3"``) and ``spread`` (highest minus lowest rank), the
        largest spread first.
    problems : DataFrame
        ``judge``, ``dataset``, ``detail``: entries left out (incomplete,
        inconsistent, or for a model not reviewed).
    aggregation : str
    """

    table: pd.DataFrame
    judge_ranks: pd.DataFrame
    agreement: pd.DataFrame
    disagreements: pd.DataFrame
    problems: pd.DataFrame
    aggregation: str = "mean-rank"


def _models_frame(models, entries: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    if models is None:
        return entries[["dataset", "method"]].drop_duplicates()
    if isinstance(models, pd.DataFrame):
        return models[["dataset", "method"]].drop_duplicates()
    return pd.DataFrame([(d, m) for d, methods in models.items() for m in methods], columns=["dataset", "method"])


def trust_summary(entries: pd.DataFrame, models=None, *, settings: ReviewSettings | None = None) -> TrustSummary:
    """Combine the judges' entries into one trust value per model, with their agreement.

    Parameters
    ----------
    entries : DataFrame
        As :meth:`TrustStore.entries` returns them.
    models : DataFrame or mapping, optional
        The models under review: a table with ``dataset`` and ``method``
        columns (e.g. the representative runs) or a mapping dataset -> methods.
        Default: the models that have entries.
    settings : ReviewSettings, optional
        Strictness of ranks and the aggregation (mean rank by default).

    Returns
    -------
    TrustSummary

    Examples
    --------
    Two judges, three models; bob swaps the first two. Rank sums 3, 3, 6 (mean
    4), S = 1 + 1 + 4 = 6, W = 12 * 6 / (2**2 * (3**3 - 3)) = 0.75:

    >>> import pandas as pd
    >>> entries = pd.DataFrame({"judge": ["ann"] * 3 + ["bob"] * 3, "dataset": "d",
    ...                         "method": ["a", "b", "c"] * 2, "kind": "rank",
    ...                         "value": [1.0, 2.0, 3.0, 2.0, 1.0, 3.0]})
    >>> summary = trust_summary(entries)
    >>> summary.table[["method", "trust", "judges"]]
      method  trust  judges
    0      a    1.5       2
    1      b    1.5       2
    2      c    3.0       2
    >>> round(float(summary.agreement["kendalls_w"].iloc[0]), 2)
    0.75
    >>> summary.disagreements[["dataset", "method", "ranks", "spread"]].head(2)
      dataset method         ranks  spread
    0       d      a  ann 1, bob 2     1.0
    1       d      b  ann 2, bob 1     1.0
    """
    import pandas as pd

    settings = settings or ReviewSettings()
    models = _models_frame(models, entries).sort_values(["dataset", "method"], ignore_index=True)
    reviewed = {d: list(g["method"]) for d, g in models.groupby("dataset", sort=True)}
    given = entries[entries["value"].notna()]
    judge_rows, problem_rows = [], []
    for (judge, dataset), group in given.groupby(["judge", "dataset"], sort=True):
        if dataset not in reviewed:
            problem_rows.append((judge, dataset, "no model of this dataset is under review; entries ignored"))
            continue
        shown = reviewed[dataset]
        extra = sorted(set(group["method"]) - set(shown))
        if extra:
            problem_rows.append((judge, dataset, f"entries for models not under review ignored: {', '.join(extra)}"))
        values = dict(zip(group["method"], group["value"]))
        kind = group["kind"].iloc[0]
        problems = entry_problems({m: values.get(m) for m in shown}, kind=kind, strict=settings.strict_ranks)
        if problems:
            missing = sum(1 for p in problems.values() if p.startswith("No "))
            detail = (f"{missing} of {len(shown)} models without a value" if missing
                      else "; ".join(f"{m}: {p}" for m, p in problems.items()))
            problem_rows.append((judge, dataset, f"left out: {detail}"))
            continue
        ordered = [values[m] for m in shown]
        # ratings: higher = more trust; ranks (strict, or tied when allowed): as given, 1 = most trusted
        ranks = (ranks_from_ratings(ordered) if kind == "rating"
                 else pd.Series(ordered, dtype=float).rank(method="average").to_numpy())
        judge_rows += [(judge, dataset, m, kind, float(values[m]), float(r)) for m, r in zip(shown, ranks)]
    judge_ranks = pd.DataFrame(judge_rows, columns=["judge", "dataset", "method", "kind", "value", "trust_rank"])
    combine = "mean" if settings.aggregation == "mean-rank" else "median"
    grouped = judge_ranks.groupby(["dataset", "method"], sort=True)["trust_rank"]
    combined = pd.DataFrame({"trust": grouped.agg(combine), "judges": grouped.size()}).reset_index()
    table = models.merge(combined, on=["dataset", "method"], how="left")
    table["judges"] = table["judges"].fillna(0).astype(int)
    table["trust"] = table["trust"].astype(float)

    agreement_rows, spread_rows = [], []
    for dataset, group in judge_ranks.groupby("dataset", sort=True):
        matrix = group.pivot(index="judge", columns="method", values="trust_rank")
        agreement_rows.append((dataset, matrix.shape[0], matrix.shape[1], kendalls_w(matrix.to_numpy())))
        if matrix.shape[0] >= 2:
            for method in matrix.columns:
                column = matrix[method]
                listed = ", ".join(f"{j} {r:g}" for j, r in column.items())
                spread_rows.append((dataset, method, listed, float(column.max() - column.min()),
                                    float(column.std(ddof=0))))
    agreement = pd.DataFrame(agreement_rows, columns=["dataset", "judges", "models", "kendalls_w"])
    disagreements = pd.DataFrame(spread_rows, columns=["dataset", "method", "ranks", "spread", "std"])
    disagreements = disagreements.sort_values(["spread", "std", "dataset", "method"],
                                              ascending=[False, False, True, True], ignore_index=True)
    problems = pd.DataFrame(problem_rows, columns=["judge", "dataset", "detail"])
    return TrustSummary(table=table, judge_ranks=judge_ranks, agreement=agreement,
                        disagreements=disagreements.drop(columns="std"), problems=problems,
                        aggregation=settings.aggregation)


# --------------------------------------------------------------------------- verdict


def realworld_table(representatives: pd.DataFrame, summary: TrustSummary) -> pd.DataFrame:
    """The representative runs with their aggregated ``trust`` (1 = most trusted; NaN: not reviewed).

    Examples
    --------
    >>> import pandas as pd
    >>> reps = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.8]})
    >>> entries = pd.DataFrame({"judge": "ann", "dataset": "d", "method": ["a", "b"],
    ...                         "kind": "rating", "value": [2.0, 4.0]})
    >>> realworld_table(reps, trust_summary(entries, reps))[["method", "r2_test", "trust"]]
      method  r2_test  trust
    0      a      0.9    2.0
    1      b      0.8    1.0
    """
    table = representatives.drop(columns=[c for c in ("trust",) if c in representatives.columns])
    return table.merge(summary.table[["dataset", "method", "trust"]], on=["dataset", "method"], how="left")


def realworld_verdict(runs: pd.DataFrame, entries: pd.DataFrame, rules: str | Rules = "srbench2022-realworld", *,
                      settings: ReviewSettings | None = None, methods: Sequence[str] | None = None) -> Verdict:
    """Judge the real-world track: representative runs, accuracy, simplicity and trust.

    Parameters
    ----------
    runs : DataFrame
        The prepared per-run table (:func:`srdash.judging.pipeline.prepare_runs`).
    entries : DataFrame
        The trust entries (:meth:`TrustStore.entries`).
    rules : str or Rules
        Rules with a criterion on the ``trust`` column (direction ``lower``);
        their ``[representative]`` table picks the runs.
    settings : ReviewSettings, optional
        Default: the rules' (see :func:`review_settings`).
    methods : sequence of str, optional
        The competition's methods (default: those in ``runs``).

    Returns
    -------
    Verdict
        Its ``per_dataset`` has the representative's values and the ``trust``
        column; its warnings say which datasets lack a complete review and
        which entries were left out.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"method": ["a", "a", "a", "b"], "dataset": "d", "run": [0, 1, 2, 0],
    ...                      "r2_test": [0.9, 0.7, 0.8, 0.8], "simplicity": -1.0})
    >>> entries = pd.DataFrame({"judge": "ann", "dataset": "d", "method": ["a", "b"],
    ...                         "kind": "rank", "value": [2.0, 1.0]})
    >>> verdict = realworld_verdict(runs, entries)
    >>> verdict.per_dataset[["method", "accuracy", "trust", "trust_rank"]]
      method  accuracy  trust  trust_rank
    0      a       0.8    2.0         1.0
    1      b       0.8    1.0         2.0
    """
    from srdash.judging.ranking import judge
    from srdash.judging.representative import representative_choice, representative_runs

    rules = load_rules(rules)
    settings = settings or review_settings(rules)
    accuracy = next((c for c in rules.criteria if c.column == "r2_test"), None)
    representatives = representative_runs(runs, choice=representative_choice(rules),
                                          decimals=accuracy.decimals if accuracy else 3)
    summary = trust_summary(entries, representatives, settings=settings)
    table = realworld_table(representatives, summary)
    notes = []
    if "trust" not in table.columns or table["trust"].isna().all():
        # Before the review's first entry the track can only be shown provisionally, and says so.
        rules = replace(rules, criteria=tuple(replace(c, optional=True) if c.column == "trust" else c
                                              for c in rules.criteria))
        notes.append("No trust entry yet: this real-world verdict is provisional, ranked without trust until "
                     "the review gives its entries.")
    verdict = judge(table, rules, methods=methods if methods is not None else sorted(set(runs["method"])))
    unreviewed = sorted(set(table.loc[table["trust"].isna(), "dataset"]))
    if unreviewed and table["trust"].notna().any():
        notes.append(f"No complete trust review yet on {', '.join(unreviewed)}: there, every model gets the "
                     "same (worst) trust value.")
    for row in summary.problems.itertuples():
        notes.append(f"Trust entries of {row.judge} on {row.dataset}: {row.detail}.")
    return replace(verdict, warnings=verdict.warnings + tuple(notes))
