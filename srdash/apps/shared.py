"""Heavy views computed once for every visitor: their results kept in srdash's cache.

Each visitor of a served dashboard has a kernel of their own, so a view that takes seconds (the
winner certificate, the SRBench views with their bootstrap) would be computed again by every visitor
who opens it. :func:`shared_view` keeps what such a view shows (JSON: an HTML text, plotly figures)
as a row of srdash's cache (:class:`srdash.cache.ResultCache`, kind ``view``, signed like every row),
under a key of everything the view depends on: the view's name and settings, the per-run table's
content, the rules' text, and srdash's own code (:func:`srdash.judging.snapshot.code_fingerprint`).
The next visitor with the same competition and controls reads it; anything else computes afresh.
Nothing is shared when the competition turned srdash's cache off.

Examples
--------
>>> import tempfile, pandas as pd
>>> from srdash.demo.examples import accuracy_rules
>>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.5]})
>>> folder = tempfile.mkdtemp()
>>> calls = []
>>> def compute():
...     calls.append(1)
...     return {"html": "<b>a</b>"}
>>> [shared_view("demo", runs, accuracy_rules(), compute, cache=folder) for _ in range(2)]
[{'html': '<b>a</b>'}, {'html': '<b>a</b>'}]
>>> len(calls)  # the second visitor read the first one's result
1
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable, Mapping

import pandas as pd

from srdash.judging.snapshot import code_fingerprint
from srdash.cache import ResultCache

__all__ = ["VIEW_KIND", "shared_view", "view_key"]

#: The cache rows' kind.
VIEW_KIND = "view"


def view_key(view: str, runs: pd.DataFrame, rules, settings: Mapping | None = None) -> str:
    """SHA-256 of what a view shows depends on: its name and settings, the runs' content, the rules, srdash's code."""
    digest = hashlib.sha256()
    for part in (view, json.dumps(dict(settings or {}), sort_keys=True, default=str), code_fingerprint(),
                 json.dumps([str(c) for c in runs.columns]), json.dumps([str(t) for t in runs.dtypes]),
                 getattr(rules, "sha256", None) or repr(rules)):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    digest.update(pd.util.hash_pandas_object(runs, index=True).to_numpy().tobytes())
    return digest.hexdigest()


def shared_view(view: str, runs: pd.DataFrame, rules, compute: Callable[[], Mapping], *,
                settings: Mapping | None = None, cache: str | Path | bool | None = None) -> dict:
    """What ``compute()`` returns (a JSON-serialisable mapping), read from srdash's cache when an earlier
    visitor computed it for the same view, settings, runs and rules.

    Parameters
    ----------
    view : str
        The view's name.
    runs : DataFrame
    rules : Rules
    compute : callable
        Computes the mapping when it is not kept.
    settings : mapping, optional
        The view's own controls (part of the key).
    cache : path, None or False
        srdash's cache folder or file (None: the default one, ``SRDASH_CACHE_DIR``); False: keep nothing.
    """
    if cache is False:
        return dict(compute())
    key = view_key(view, runs, rules, settings)
    store = ResultCache(None if cache in (None, True) else cache)
    try:
        found = store.get_many([key], kind=VIEW_KIND).get(key)
        if found is not None and isinstance(found.get("content"), dict):
            return found["content"]
        content = dict(compute())
        store.put_many([(key, {"status": "ok", "content": content})], kind=VIEW_KIND)
        return content
    finally:
        store.close()
