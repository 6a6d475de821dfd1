"""The trust store's SQLite schema: its tables, its version, and the tables added since version 1."""

__all__ = ["SCHEMA_VERSION", "SCHEMA", "LATER_TABLES"]

#: The schema version a store records in its ``meta`` table; a store of another version is refused.
SCHEMA_VERSION = 1
#: The tables, as SQL statements separated by semicolons.
SCHEMA = """
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
LATER_TABLES = ("jury_scores", "jury_history", "access_keys")
