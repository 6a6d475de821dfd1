"""Arrays and texts of the slow analyses, computed once and kept in srdash's cache.

Some analyses judge the competition again hundreds of times (the bootstrap of a rules file that only
:func:`srdash.judging.ranking.judge` can judge: one judging per redraw; the winner certificate). The
bootstrap's result is a float array that the rest of the analysis turns into tables in milliseconds,
so the array alone is kept (:func:`kept_array`), bit for bit (the float64 bytes, not decimal text);
what a report shows of a certificate is a text (:func:`kept_text`). Each is a row of srdash's cache
(:class:`srdash.cache.ResultCache`, kind ``analysis``, signed like every row). Its key covers
everything the result depends on: the analysis' name and settings, the per-run table's content
(values, index, columns and dtypes), the rules as applied
(:attr:`srdash.judging.rules.Rules.sha256`), srdash's own code
(:func:`srdash.judging.snapshot.code_fingerprint`) and the versions of Python, numpy and pandas.
Anything else computes afresh; a row that fails its signature or does not decode to an array of the
expected shape is computed again and overwritten.

Examples
--------
>>> import tempfile
>>> from srdash.demo.examples import accuracy_rules
>>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.5]})
>>> folder = tempfile.mkdtemp()
>>> calls = []
>>> def compute():
...     calls.append(1)
...     return np.array([[0.1 + 0.2, -np.inf]])
>>> [kept_array("demo", runs, accuracy_rules(), compute, shape=(1, 2), cache=folder).tolist() for _ in range(2)]
[[[0.30000000000000004, -inf]], [[0.30000000000000004, -inf]]]
>>> len(calls)  # the second call read the first one's array
1
"""

from __future__ import annotations

import hashlib
import json
import platform
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from srdash.cache import ResultCache
from srdash.judging.snapshot import code_fingerprint

__all__ = ["ANALYSIS_KIND", "analysis_key", "kept_array", "kept_row", "kept_text"]

#: The cache rows' kind.
ANALYSIS_KIND = "analysis"


def analysis_key(name: str, runs: pd.DataFrame, rules, settings: Mapping | None = None) -> str:
    """SHA-256 of everything an analysis' array depends on (see the module docstring)."""
    digest = hashlib.sha256()
    for part in (name, json.dumps(dict(settings or {}), sort_keys=True, default=str), code_fingerprint(),
                 platform.python_version(), np.__version__, pd.__version__,
                 json.dumps([str(c) for c in runs.columns]), json.dumps([str(t) for t in runs.dtypes]),
                 str(runs.index.dtype), rules.sha256):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    digest.update(pd.util.hash_pandas_object(runs, index=True).to_numpy().tobytes())
    return digest.hexdigest()


def kept_array(name: str, runs: pd.DataFrame, rules, compute: Callable[[], np.ndarray], *, shape: tuple[int, ...],
               settings: Mapping | None = None, cache: str | Path | bool | None = False) -> np.ndarray:
    """The float64 array ``compute()`` returns, read from srdash's cache when it was computed before for the same
    analysis, settings, runs and rules.

    Parameters
    ----------
    name : str
        The analysis' name.
    runs : DataFrame
        The per-run table the analysis reads.
    rules : Rules
    compute : callable
        Computes the array (of ``shape``) when it is not kept.
    shape : tuple of int, keyword-only
        The array's shape: a kept row of another shape is not used.
    settings : mapping, optional, keyword-only
        The analysis' own options (part of the key).
    cache : path, None or False, keyword-only
        srdash's cache folder or file (None: the default one, ``SRDASH_CACHE_DIR``); False: keep nothing.

    Returns
    -------
    ndarray of float64
    """
    if cache is False:
        return np.asarray(compute(), dtype=np.float64)

    def computed() -> dict:
        array = np.ascontiguousarray(compute(), dtype="<f8")
        if array.shape != tuple(shape):
            raise ValueError(f"The analysis '{name}' computed an array of shape {array.shape}; {tuple(shape)} was "
                             "expected.")
        return {"shape": list(array.shape), "float64": array.tobytes().hex()}

    return _decoded(kept_row(name, runs, rules, computed, settings=settings, cache=cache,
                          usable=lambda entry: _decoded(entry, shape) is not None), shape)


def kept_text(name: str, runs: pd.DataFrame, rules, compute: Callable[[], str], *, settings: Mapping | None = None,
              cache: str | Path | bool | None = False) -> str:
    """The text ``compute()`` returns, read from srdash's cache when it was computed before for the same analysis,
    settings, runs and rules (parameters as :func:`kept_array`).

    Examples
    --------
    >>> import tempfile
    >>> from srdash.demo.examples import accuracy_rules
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.5]})
    >>> folder = tempfile.mkdtemp()
    >>> [kept_text("demo", runs, accuracy_rules(), lambda: "<p>a wins</p>", cache=folder) for _ in range(2)]
    ['<p>a wins</p>', '<p>a wins</p>']
    >>> kept_text("demo", runs, accuracy_rules(), lambda: "never called", cache=folder)
    '<p>a wins</p>'
    """
    if cache is False:
        return str(compute())
    return kept_row(name, runs, rules, lambda: {"text": str(compute())}, settings=settings, cache=cache,
                    usable=lambda entry: isinstance(entry.get("text"), str))["text"]


def kept_row(name: str, runs: pd.DataFrame, rules, compute: Callable[[], dict], *, settings: Mapping | None,
             cache: str | Path | bool | None, usable: Callable[[Mapping], bool], kind: str = ANALYSIS_KIND) -> dict:
    """The row of srdash's cache kept for the analysis ``name`` (of ``kind``) when ``usable`` accepts it, else
    ``compute()``'s row (a JSON-serialisable mapping), stored: the one mechanism behind :func:`kept_array`,
    :func:`kept_text` and the dashboard's shared views (:func:`srdash.apps.shared.shared_view`)."""
    key = analysis_key(name, runs, rules, settings)
    store = ResultCache(None if cache in (None, True) else cache)
    try:
        found = store.get_many([key], kind=kind).get(key)
        if found is not None and usable(found):
            return found
        entry = compute()
        store.put_many([(key, {"status": "ok", **entry})], kind=kind)
        return entry
    finally:
        store.close()


def _decoded(entry: Mapping | None, shape: tuple[int, ...]) -> np.ndarray | None:
    """The kept array, or None when the row is missing or not an array of ``shape``."""
    if entry is None or entry.get("shape") != list(shape) or not isinstance(entry.get("float64"), str):
        return None
    try:
        data = bytes.fromhex(entry["float64"])
    except ValueError:
        return None
    if len(data) != 8 * int(np.prod(shape, dtype=np.int64)):
        return None
    return np.frombuffer(data, dtype="<f8").reshape(shape).copy()
