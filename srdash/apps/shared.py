"""Heavy views computed once for every visitor: their results kept in srdash's cache.

Each visitor of a served dashboard has a kernel of their own, so a view that takes seconds (the
winner certificate, the SRBench views with their bootstrap) would be computed again by every visitor
who opens it. :func:`shared_view` keeps what such a view shows (JSON: an HTML text, plotly figures)
as a row of srdash's cache (:class:`srdash.cache.ResultCache`, kind ``view``, signed like every row),
under a key of everything the view depends on (:func:`srdash.analysis.kept.analysis_key`: the view's
name and settings, the per-run table's content, the rules, srdash's code and the library versions).
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

from pathlib import Path
from typing import Callable, Mapping

import pandas as pd

from srdash.analysis.kept import kept_row

__all__ = ["VIEW_KIND", "shared_view"]

#: The cache rows' kind.
VIEW_KIND = "view"


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
    return kept_row(view, runs, rules, lambda: {"content": dict(compute())}, settings=settings, cache=cache,
                    usable=lambda entry: isinstance(entry.get("content"), dict), kind=VIEW_KIND)["content"]
