"""The demo's prepared results and files as shipped with srdash (``prepared.json.gz``), read and seeded.

:func:`seed_cache` copies the shipped rows into a user's cache (signed with that cache's own key)
when the demo's files are written; :func:`shipped_demo_files` gives the demo's files (seed 0) as
shipped. :mod:`srdash.demo.prepared` makes the document (``python -m srdash.demo.prepared``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from srdash import __version__
from srdash.cache import ResultCache

__all__ = ["PREPARED_FILE", "DEMO_TIMEOUT", "load_prepared", "seed_cache", "shipped_demo_files"]

#: The shipped rows (:meth:`srdash.cache.ResultCache.export_rows`) and what produced them.
PREPARED_FILE = Path(__file__).with_name("prepared.json.gz")
#: The time limit the demo is judged with by default (``srdash serve``: ``--timeout``).
DEMO_TIMEOUT = 10.0


def load_prepared(path: str | Path = PREPARED_FILE) -> dict:
    """The shipped document: ``{"sympy": version, "srdash": version, "seed": 0, "timeout": 10.0, "rows": [...]}``.

    Examples
    --------
    >>> document = load_prepared()
    >>> document["seed"], document["timeout"], len(document["rows"]) > 500
    (0, 10.0, True)
    """
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def shipped_demo_files(path: str | Path = PREPARED_FILE) -> tuple[dict, dict] | None:
    """The demo's files (seed 0) as shipped: ``({name: file name}, {file name: bytes})``, or None when the
    document has none or was made by another srdash version (the demo is then generated).

    Examples
    --------
    >>> names, files = shipped_demo_files()
    >>> names["results"], files["results.csv"][:13]
    ('results.csv', b'method,datase')
    """
    try:
        document = load_prepared(path)
        if document.get("srdash") != __version__:
            return None
        names = {str(k): str(v) for k, v in document["paths"].items()}
        files = {str(k): str(v).encode("utf-8") for k, v in document["files"].items()}
    except (OSError, ValueError, KeyError, EOFError, AttributeError):
        return None
    if not set(names.values()) <= set(files) or any("/" in f or "\\" in f or f.startswith(".") for f in files):
        return None
    return names, files


def seed_cache(cache=None, *, path: str | Path = PREPARED_FILE) -> int:
    """Add the shipped rows to ``cache`` (rows it already has are kept); returns how many were added.

    Parameters
    ----------
    cache : None, path or srdash.cache.ResultCache
        None: the default cache file.
    path : path
        The shipped document (:data:`PREPARED_FILE`).

    Returns
    -------
    int
        0 when the file is missing or unreadable (the demo then computes its
        results, as it would without it).

    Examples
    --------
    >>> import tempfile
    >>> from srdash.cache import ResultCache
    >>> with tempfile.TemporaryDirectory() as folder, ResultCache(folder) as cache:
    ...     added = seed_cache(cache)
    ...     again = seed_cache(cache)
    >>> added == len(load_prepared()["rows"]), again
    (True, 0)
    """
    try:
        rows = load_prepared(path)["rows"]
    except (OSError, ValueError, KeyError, EOFError):
        return 0
    if isinstance(cache, ResultCache):
        return cache.import_rows(rows)
    with ResultCache(cache) as store:
        return store.import_rows(rows)
