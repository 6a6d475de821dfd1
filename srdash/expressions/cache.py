"""A persistent cache of model complexity results (SQLite, stdlib only).

Re-scoring an unchanged competition should do no sympy work: every computed
result is stored under a key that covers everything it depends on (the model
string, the sorted feature names, the sympy version and the procedure's
settings, see :func:`cache_key`). Only deterministic outcomes are worth
storing; results that depend on the machine's speed or load (``timeout``) are
skipped unless asked for.

The file is an SQLite database in WAL mode with one table, safe to share
between processes. Its default location is ``$SRDASH_CACHE_DIR/complexity.sqlite``
when that variable is set, else ``complexity.sqlite`` in the user cache
directory (``platformdirs.user_cache_dir("srdash")``, i.e. ``~/.cache/srdash``
or ``$XDG_CACHE_HOME/srdash`` on Linux). Deleting the file empties the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["CACHE_FILE_NAME", "ComplexityCache", "cache_key", "default_cache_path"]

CACHE_FILE_NAME = "complexity.sqlite"
_TABLE = "complexity_v1"
_FIELDS = ("model", "status", "components", "simplified", "reason", "features_used", "seconds")
# Outcomes that do not depend on how fast or loaded the machine was.
_DETERMINISTIC = frozenset({"ok", "rejected", "parse_error", "simplify_error"})
# SQLite limits the number of parameters of one statement (999 in old versions).
_CHUNK = 500


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
        Everything else the result depends on (sympy version, time limit,
        rounding, ...); JSON-serialisable.

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
    payload = json.dumps([model, names, dict(sorted(settings.items()))], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ComplexityCache:
    """Complexity results stored in an SQLite file.

    Parameters
    ----------
    path : str or path-like, optional
        The database file, or a directory to hold ``complexity.sqlite``.
        Default: :func:`default_cache_path`. Parent directories are created.
    cache_timeouts : bool, keyword-only
        Also store ``timeout`` outcomes (default False: they depend on the
        machine and its load, so a later run should try again).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as directory, ComplexityCache(directory) as cache:
    ...     stored = cache.put_many([("k1", {"model": "x", "status": "ok", "components": 1.0, "simplified": "x",
    ...                             "reason": "", "features_used": "x", "seconds": 0.01}),
    ...                     ("k2", {"model": "y", "status": "timeout", "components": 9.0, "simplified": "y",
    ...                             "reason": "slow", "features_used": "y", "seconds": 10.0})])
    ...     stored, sorted(cache.get_many(["k1", "k2", "k3"])), len(cache)
    (1, ['k1'], 1)
    """

    def __init__(self, path: str | os.PathLike | None = None, *, cache_timeouts: bool = False):
        path = default_cache_path() if path is None else Path(path).expanduser()
        if path.is_dir():
            path = path / CACHE_FILE_NAME
        self.path = path
        self.cache_timeouts = cache_timeouts
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute(
                    f"CREATE TABLE IF NOT EXISTS {_TABLE} (key TEXT PRIMARY KEY, model TEXT, status TEXT, "
                    f"components REAL, simplified TEXT, reason TEXT, features_used TEXT, seconds REAL, "
                    f"created REAL)")
                connection.commit()
            except sqlite3.Error:
                connection.close()
                raise
            self._connection = connection
        return self._connection

    def get_many(self, keys: Iterable[str]) -> dict[str, dict]:
        """Stored results for those of ``keys`` that are in the cache.

        Returns
        -------
        dict
            key -> dict with ``model, status, components, simplified, reason,
            features_used, seconds`` (``components`` NaN when unknown).
        """
        keys = list(keys)
        found: dict[str, dict] = {}
        with self._lock:
            connection = self._connect()
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start:start + _CHUNK]
                rows = connection.execute(
                    f"SELECT key, {', '.join(_FIELDS)} FROM {_TABLE} WHERE key IN ({', '.join('?' * len(chunk))})",
                    chunk)
                for key, *values in rows:
                    entry = dict(zip(_FIELDS, values))
                    for name in ("components", "seconds"):
                        if entry[name] is None:  # SQLite stores NaN as NULL
                            entry[name] = float("nan")
                    found[key] = entry
        return found

    def put_many(self, entries: Iterable[tuple[str, Mapping]]) -> int:
        """Store ``(key, result)`` pairs; returns how many were stored.

        ``result`` has the fields returned by :meth:`get_many` (extra fields are
        ignored). Outcomes whose status is not deterministic (``timeout``) are
        skipped unless ``cache_timeouts`` is set.
        """
        now = time.time()
        rows = [
            (key, *(result.get(name) for name in _FIELDS), now)
            for key, result in entries
            if result.get("status") in _DETERMINISTIC or (self.cache_timeouts and result.get("status") == "timeout")
        ]
        if not rows:
            return 0
        with self._lock:
            connection = self._connect()
            with connection:
                connection.executemany(
                    f"INSERT OR REPLACE INTO {_TABLE} (key, {', '.join(_FIELDS)}, created) "
                    f"VALUES ({', '.join('?' * (len(_FIELDS) + 2))})", rows)
        return len(rows)

    def __len__(self) -> int:
        with self._lock:
            return self._connect().execute(f"SELECT COUNT(*) FROM {_TABLE}").fetchone()[0]

    def clear(self) -> None:
        """Remove every stored result."""
        with self._lock:
            connection = self._connect()
            with connection:
                connection.execute(f"DELETE FROM {_TABLE}")

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def __enter__(self) -> ComplexityCache:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ComplexityCache({str(self.path)!r})"
