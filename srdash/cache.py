"""A persistent cache of expensive results (SQLite, stdlib only).

Re-scoring an unchanged competition should do no sympy work: every computed
result is stored under a key that covers everything it depends on (the model
string, the sorted feature names, the sympy version and the procedure's
settings, see :func:`cache_key`), in a *kind* of result (``complexity``,
``equivalence``, ...). The time limit is not part of the key: each row records
the limit it was computed under and the CPU seconds it used, and
:meth:`ResultCache.get_many` decides whether it answers the question asked:

- a finished result (``ok``, ``rejected``, ...) holds under any limit at least
  as long as the one it was computed under, or longer than the CPU time it took;
- a ``timeout`` holds under the same or a shorter limit (it would run out of
  time again) and is computed again under a longer one, or always with
  ``retry_timeouts=True`` (CLI ``--retry-timeouts``).

Every row carries an HMAC-SHA256 of its kind, key and content under a secret
kept beside the database (``<file>.key``, created on first use, readable by its
owner only): a row changed by anything but this module is not used (it counts
as ``tampered`` and is computed again and overwritten). Whoever can write the
cache folder could replace that key and sign rows of their own, so a folder of
another user or writable by group or others, and a key file that is not a
private file of this user, are refused (:class:`CacheRefused`); the folder is
created with mode 700.

Beside the rows, the cache keeps whole *snapshots* (:meth:`ResultCache.put_snapshot`):
one opaque, signed blob per key with a manifest of the files it was computed
from (:mod:`srdash.judging.snapshot` keeps a prepared competition there).

Each :class:`ResultCache` counts what it answered (:attr:`ResultCache.stats`):
pass one cache object to every step of a judging and put ``cache.stats.as_dict()``
in the verdict's provenance.

The file is an SQLite database in WAL mode, safe to share between processes.
Its default location is ``$SRDASH_CACHE_DIR/complexity.sqlite`` when that
variable is set, else ``complexity.sqlite`` in the user cache directory
(``platformdirs.user_cache_dir("srdash")``, i.e. ``~/.cache/srdash`` on Linux).
Deleting the file empties the cache.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import secrets
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from srdash.errors import SrdashError

__all__ = ["CACHE_FILE_NAME", "CacheRefused", "CacheStats", "ComplexityCache", "ResultCache", "cache_key", "default_cache_path",
           "file_digest"]

CACHE_FILE_NAME = "complexity.sqlite"
_TABLE = "results_v2"
_SNAPSHOTS = "snapshots_v1"
#: Snapshots not written again for this many days are removed when another one is written.
SNAPSHOT_MAX_AGE_DAYS = 30
_FIELDS = ("model", "status", "components", "simplified", "reason", "features_used", "seconds")
# Outcomes that do not depend on how fast or loaded the machine was.
_DETERMINISTIC = frozenset({"ok", "rejected", "parse_error", "simplify_error"})
# SQLite limits the number of parameters of one statement (999 in old versions).
_CHUNK = 400


class CacheRefused(SrdashError, OSError):
    """A cache folder or key file that others could write: not used (see ``ResultCache``)."""


def default_cache_path() -> Path:
    """Where the cache lives unless a path is given.

    ``$SRDASH_CACHE_DIR/complexity.sqlite`` if the variable is set, else
    ``complexity.sqlite`` in ``platformdirs.user_cache_dir("srdash")``.

    Examples
    --------
    >>> default_cache_path().name
    'complexity.sqlite'
    """
    directory = os.environ.get("SRDASH_CACHE_DIR")
    if not directory:
        import platformdirs

        directory = platformdirs.user_cache_dir("srdash")
    return Path(directory) / CACHE_FILE_NAME


def cache_key(model: str, features: Iterable[str] | None, settings: Mapping) -> str:
    """SHA-256 key of one computation.

    Parameters
    ----------
    model : str
        The model string, exactly as given.
    features : iterable of str or None
        Allowed variable names (order and duplicates do not matter); None when
        any name is allowed (a different key from an empty collection).
    settings : mapping
        Everything else the result depends on (sympy version, rounding, data
        file digests, ...; not the time limit, see :class:`ResultCache`);
        JSON-serialisable.

    Returns
    -------
    str
        64 hexadecimal characters.

    Examples
    --------
    >>> a = cache_key("x1 + x2", ["x2", "x1"], {"sympy": "1.14.0"})
    >>> a == cache_key("x1 + x2", ("x1", "x2", "x1"), {"sympy": "1.14.0"})
    True
    >>> a == cache_key("x1 + x2", None, {"sympy": "1.14.0"})
    False
    """
    names = None if features is None else sorted(set(features))
    payload = json.dumps([model, names, dict(sorted(settings.items()))], ensure_ascii=False, separators=(",", ":"),
                         default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, for keys of results computed from data files.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(delete=False) as handle:
    ...     _ = handle.write(b"abc")
    >>> file_digest(handle.name)[:16]
    'ba7816bf8f01cfea'
    >>> os.remove(handle.name)
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class CacheStats:
    """What a :class:`ResultCache` answered, per kind of result (counts of keys asked).

    ``hits``: answered from the cache; ``misses``: not there (or not valid under
    the limit asked); ``timeouts_reused``: hits that are timeouts under the same
    or a longer limit; ``timeouts_retried``: timeouts computed again (longer
    limit, or ``retry_timeouts``); ``tampered``: rows whose integrity check
    failed (not used); ``stored``: rows written.

    Examples
    --------
    >>> stats = CacheStats()
    >>> stats.add("complexity", hits=3, misses=1)
    >>> stats.as_dict()["hits"], stats.as_dict()["by_kind"]["complexity"]["misses"]
    (3, 1)
    """

    by_kind: dict = field(default_factory=dict)

    _NAMES = ("hits", "misses", "timeouts_reused", "timeouts_retried", "tampered", "stored")

    def add(self, kind: str, **counts: int) -> None:
        entry = self.by_kind.setdefault(kind, dict.fromkeys(self._NAMES, 0))
        for name, value in counts.items():
            entry[name] += int(value)

    def total(self, name: str) -> int:
        """Sum of one count over every kind."""
        return sum(entry[name] for entry in self.by_kind.values())

    def as_dict(self) -> dict:
        """Totals (``hits``, ``misses``, ...) and ``by_kind``: a plain, JSON-ready dict."""
        return {**{name: self.total(name) for name in self._NAMES},
                "by_kind": {kind: dict(entry) for kind, entry in sorted(self.by_kind.items())}}


def _finite_or_none(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


class ResultCache:
    """Results stored in an SQLite file, checked on read, valid under the limit asked.

    Parameters
    ----------
    path : str or path-like, optional
        The database file, or a directory to hold ``complexity.sqlite``.
        Default: :func:`default_cache_path`. Parent directories are created.
    cache_timeouts : bool, keyword-only
        Store ``timeout`` outcomes, with their limit (default True).
    retry_timeouts : bool, keyword-only
        Never answer with a stored timeout: compute it again (default False).

    Attributes
    ----------
    stats : CacheStats
        What this object answered since it was created.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as directory, ResultCache(directory) as cache:
    ...     stored = cache.put_many([("k1", {"model": "x", "status": "ok", "components": 1.0, "simplified": "x",
    ...                                     "reason": "", "features_used": "x", "seconds": 0.01}),
    ...                              ("k2", {"model": "y", "status": "timeout", "components": 9.0,
    ...                                      "simplified": "y", "reason": "slow", "features_used": "y",
    ...                                      "seconds": 10.0, "cpu_seconds": 10.0})], limit=10.0)
    ...     same = sorted(cache.get_many(["k1", "k2", "k3"], limit=10.0))
    ...     longer = sorted(cache.get_many(["k1", "k2"], limit=20.0))
    ...     stored, same, longer, len(cache), cache.stats.as_dict()["timeouts_retried"]
    (2, ['k1', 'k2'], ['k1'], 2, 1)
    """

    def __init__(self, path: str | os.PathLike | None = None, *, cache_timeouts: bool = True,
                 retry_timeouts: bool = False):
        path = default_cache_path() if path is None else Path(path).expanduser()
        if path.is_dir():
            path = path / CACHE_FILE_NAME
        self.path = path
        self.cache_timeouts = bool(cache_timeouts)
        self.retry_timeouts = bool(retry_timeouts)
        self.stats = CacheStats()
        self._connection: sqlite3.Connection | None = None
        self._secret: bytes | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ storage

    def _check_private(self) -> None:
        """Refuse a cache folder or key that someone else could write.

        Whoever can write the folder can replace the key file beside the
        database and sign rows and snapshots of their own: the folder must
        belong to this user and be writable by no one else, and an existing key
        must be a regular file of this user that no one else can read or write.
        """
        if not hasattr(os, "getuid"):  # no POSIX ownership (Windows): the folder's ACLs decide
            return
        folder = self.path.parent
        info = folder.stat()
        fix = f"use a folder of your own (chmod go-w '{folder}') or run without the cache (--no-cache)"
        if info.st_uid != os.getuid():
            raise CacheRefused(f"The cache folder '{folder}' belongs to another user (uid {info.st_uid}); whoever "
                               f"can write it could replace the cache's key and forge its results: {fix}.")
        if info.st_mode & 0o022:
            raise CacheRefused(f"The cache folder '{folder}' is writable by other users (mode "
                               f"{stat.S_IMODE(info.st_mode):o}); whoever can write it could replace the cache's "
                               f"key and forge its results: {fix}.")
        key_path = self.path.with_name(self.path.name + ".key")
        try:
            key = key_path.lstat()
        except FileNotFoundError:
            return
        if not stat.S_ISREG(key.st_mode) or key.st_uid != os.getuid() or key.st_mode & 0o077:
            raise CacheRefused(f"The cache's key file '{key_path}' is not a private file of yours (it must be a "
                               f"regular file of your own with mode 600); delete it and the cache, or {fix}.")

    def _load_secret(self) -> bytes:
        """The HMAC secret beside the database (created with mode 0600 on first use)."""
        self._check_private()
        key_path = self.path.with_name(self.path.name + ".key")
        try:
            descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            for _ in range(50):  # another process may be writing it right now
                secret = key_path.read_bytes()
                if len(secret) == 32:
                    return secret
                time.sleep(0.01)
            raise OSError(f"the cache's key file {key_path} is damaged; delete it and the cache")
        with os.fdopen(descriptor, "wb") as handle:
            secret = secrets.token_bytes(32)
            handle.write(secret)
        return secret

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._secret = self._load_secret()
            connection = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute(
                    f"CREATE TABLE IF NOT EXISTS {_TABLE} (kind TEXT NOT NULL, key TEXT NOT NULL, "
                    f"status TEXT, value TEXT, time_limit REAL, cpu_seconds REAL, created REAL, mac TEXT, "
                    f"PRIMARY KEY (kind, key))")
                connection.execute(
                    f"CREATE TABLE IF NOT EXISTS {_SNAPSHOTS} (key TEXT PRIMARY KEY, manifest TEXT NOT NULL, "
                    f"value BLOB NOT NULL, created REAL, mac TEXT)")
                connection.commit()
            except sqlite3.Error:
                connection.close()
                raise
            self._connection = connection
        return self._connection

    def _mac(self, kind: str, key: str, status, value: str, limit, cpu) -> str:
        message = json.dumps([kind, key, status, value, limit, cpu], separators=(",", ":"))
        return hmac.new(self._secret, message.encode("utf-8"), hashlib.sha256).hexdigest()

    # ------------------------------------------------------------------ reading

    def _valid(self, status: str, row_limit, cpu, limit, retry_timeouts: bool) -> tuple[bool, str]:
        """Does a stored row answer the question under ``limit``? (valid, counter to bump)."""
        if status == "timeout":
            if retry_timeouts:
                return False, "timeouts_retried"
            if limit is None or (row_limit is not None and limit <= row_limit):
                return True, "timeouts_reused"
            return False, "timeouts_retried"
        if limit is None or row_limit is None or limit >= row_limit or (cpu is not None and cpu < limit):
            return True, ""
        return False, ""

    def get_many(self, keys: Iterable[str], *, kind: str = "complexity", limit: float | None = None,
                 retry_timeouts: bool | None = None) -> dict[str, dict]:
        """Stored results for those of ``keys`` that are in the cache and valid under ``limit``.

        Parameters
        ----------
        keys : iterable of str
            From :func:`cache_key`.
        kind : str, keyword-only
            Which kind of result.
        limit : float or None, keyword-only
            The time limit of the question (None: any stored row answers).
        retry_timeouts : bool or None, keyword-only
            Ignore stored timeouts (None: the cache's own ``retry_timeouts``).

        Returns
        -------
        dict
            key -> the stored fields (for ``complexity``: ``model, status,
            components, simplified, reason, features_used, seconds``, NaN where
            unknown), plus ``time_limit`` and ``cpu_seconds``.
        """
        keys = list(dict.fromkeys(keys))
        retry = self.retry_timeouts if retry_timeouts is None else bool(retry_timeouts)
        found: dict[str, dict] = {}
        counts = dict.fromkeys(CacheStats._NAMES, 0)
        with self._lock:
            connection = self._connect()
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start:start + _CHUNK]
                rows = connection.execute(
                    f"SELECT key, status, value, time_limit, cpu_seconds, mac FROM {_TABLE} "
                    f"WHERE kind = ? AND key IN ({', '.join('?' * len(chunk))})", [kind, *chunk])
                for key, status, value, row_limit, cpu, mac in rows:
                    if not isinstance(mac, str) or not hmac.compare_digest(
                            mac, self._mac(kind, key, status, value, row_limit, cpu)):
                        counts["tampered"] += 1
                        continue
                    valid, counter = self._valid(status, row_limit, cpu, limit, retry)
                    if counter:
                        counts[counter] += 1
                    if not valid:
                        continue
                    try:
                        entry = json.loads(value)
                    except ValueError:
                        counts["tampered"] += 1
                        continue
                    for name in ("components", "seconds"):
                        if name in entry and entry[name] is None:
                            entry[name] = float("nan")
                    entry["status"] = status
                    entry["time_limit"] = float("nan") if row_limit is None else row_limit
                    entry["cpu_seconds"] = float("nan") if cpu is None else cpu
                    found[key] = entry
        counts["hits"] = len(found)
        counts["misses"] = len(keys) - len(found)
        self.stats.add(kind, **counts)
        return found

    # ------------------------------------------------------------------ writing

    def put_many(self, entries: Iterable[tuple[str, Mapping]], *, kind: str = "complexity",
                 limit: float | None = None) -> int:
        """Store ``(key, result)`` pairs computed under ``limit``; returns how many were stored.

        ``result`` is a JSON-serialisable mapping with a ``status``; an optional
        ``cpu_seconds`` (else ``seconds``) is the time it took. For ``complexity``
        the fields of :meth:`get_many` are kept (extra fields are ignored).
        ``timeout`` outcomes are skipped when ``cache_timeouts`` is False; other
        statuses outside ``ok, rejected, parse_error, simplify_error`` and
        ``equivalent``-style verdicts (any status for other kinds) are stored.
        """
        now = time.time()
        prepared = []
        for key, result in entries:
            status = result.get("status")
            if status == "timeout" and not self.cache_timeouts:
                continue
            if kind == "complexity":
                if status not in _DETERMINISTIC and status != "timeout":
                    continue
                value = {name: result.get(name) for name in _FIELDS if name != "status"}
            else:
                value = {name: item for name, item in result.items() if name not in ("status", "cpu_seconds")}
            value = {name: None if isinstance(item, float) and not math.isfinite(item) else item
                     for name, item in value.items()}
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"),
                              default=_json_default)
            cpu = _finite_or_none(result.get("cpu_seconds", result.get("seconds")))
            prepared.append((key, status, text, _finite_or_none(limit), cpu))
        if not prepared:
            return 0
        with self._lock:
            connection = self._connect()
            rows = [(kind, key, status, text, row_limit, cpu, now, self._mac(kind, key, status, text, row_limit, cpu))
                    for key, status, text, row_limit, cpu in prepared]
            with connection:
                connection.executemany(
                    f"INSERT OR REPLACE INTO {_TABLE} (kind, key, status, value, time_limit, cpu_seconds, created, "
                    f"mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self.stats.add(kind, stored=len(rows))
        return len(rows)

    def export_rows(self, *, kind: str | None = None) -> list[list]:
        """Every stored row, as ``[kind, key, status, value, time_limit, cpu_seconds]`` (no MAC).

        For shipping prepared results with a package (:meth:`import_rows` signs
        them with the receiving cache's secret).
        """
        with self._lock:
            connection = self._connect()
            query = f"SELECT kind, key, status, value, time_limit, cpu_seconds FROM {_TABLE}"
            rows = connection.execute(query + (" WHERE kind = ?" if kind else "") + " ORDER BY kind, key",
                                      (kind,) if kind else ())
            return [list(row) for row in rows]

    def import_rows(self, rows: Iterable[Iterable], *, replace: bool = False) -> int:
        """Add rows from :meth:`export_rows` (kept rows win unless ``replace``); returns how many were added."""
        now = time.time()
        with self._lock:
            connection = self._connect()
            signed = [(kind, key, status, value, row_limit, cpu, now,
                       self._mac(kind, key, status, value, row_limit, cpu))
                      for kind, key, status, value, row_limit, cpu in rows]
            before = connection.total_changes
            with connection:
                connection.executemany(
                    f"INSERT OR {'REPLACE' if replace else 'IGNORE'} INTO {_TABLE} (kind, key, status, value, "
                    f"time_limit, cpu_seconds, created, mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", signed)
            return connection.total_changes - before

    # ------------------------------------------------------------------ snapshots

    def _snapshot_mac(self, key: str, manifest: str, value: bytes) -> str:
        message = json.dumps([_SNAPSHOTS, key, manifest, hashlib.sha256(value).hexdigest()], separators=(",", ":"))
        return hmac.new(self._secret, message.encode("utf-8"), hashlib.sha256).hexdigest()

    def put_snapshot(self, key: str, manifest: Mapping[str, str], value: bytes) -> None:
        """Store one signed blob under ``key``, with ``manifest`` (e.g. file -> SHA-256) beside it.

        Replaces the blob of the same key; snapshots older than
        :data:`SNAPSHOT_MAX_AGE_DAYS` are removed.
        """
        text = json.dumps(dict(manifest), sort_keys=True, separators=(",", ":"))
        now = time.time()
        with self._lock:
            connection = self._connect()
            with connection:
                connection.execute(f"DELETE FROM {_SNAPSHOTS} WHERE created < ?",
                                   (now - SNAPSHOT_MAX_AGE_DAYS * 86400,))
                connection.execute(f"INSERT OR REPLACE INTO {_SNAPSHOTS} (key, manifest, value, created, mac) "
                                   f"VALUES (?, ?, ?, ?, ?)",
                                   (key, text, sqlite3.Binary(value), now, self._snapshot_mac(key, text, value)))
        self.stats.add("snapshot", stored=1)

    def get_snapshot(self, key: str) -> tuple[dict, bytes] | None:
        """``(manifest, blob)`` stored under ``key``, or None (absent, or failing its integrity check:
        counted as ``tampered`` and removed)."""
        with self._lock:
            connection = self._connect()
            row = connection.execute(f"SELECT manifest, value, mac FROM {_SNAPSHOTS} WHERE key = ?",
                                     (key,)).fetchone()
            if row is None:
                return None
            manifest, value, mac = row[0], bytes(row[1]), row[2] or ""
            if not hmac.compare_digest(mac, self._snapshot_mac(key, manifest, value)):
                self.stats.add("snapshot", tampered=1)
                with connection:
                    connection.execute(f"DELETE FROM {_SNAPSHOTS} WHERE key = ?", (key,))
                return None
        try:
            return json.loads(manifest), value
        except ValueError:
            return None

    def forget_snapshot(self, key: str) -> None:
        """Remove the snapshot stored under ``key`` (if any)."""
        with self._lock:
            connection = self._connect()
            with connection:
                connection.execute(f"DELETE FROM {_SNAPSHOTS} WHERE key = ?", (key,))

    def __len__(self) -> int:
        with self._lock:
            return self._connect().execute(f"SELECT COUNT(*) FROM {_TABLE}").fetchone()[0]

    def clear(self) -> None:
        """Remove every stored result and snapshot."""
        with self._lock:
            connection = self._connect()
            with connection:
                connection.execute(f"DELETE FROM {_TABLE}")
                connection.execute(f"DELETE FROM {_SNAPSHOTS}")

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def __enter__(self) -> ResultCache:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"


def _json_default(value):
    """numpy scalars and other simple values in stored results."""
    if hasattr(value, "item"):
        return value.item()
    return str(value)


#: The former name (the cache started with complexity results only).
ComplexityCache = ResultCache
