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

The package's rooms: :mod:`~srdash.judging.trust.settings` (kinds of value, review settings),
:mod:`~srdash.judging.trust.entry` (one entry and its checks), :mod:`~srdash.judging.trust.store`
(the SQLite store), :mod:`~srdash.judging.trust.access` (access keys, sessions),
:mod:`~srdash.judging.trust.exchange` (CSV in and out), :mod:`~srdash.judging.trust.agreement`
(ratings to positions, Kendall's W), :mod:`~srdash.judging.trust.summary` (the combined trust) and
:mod:`~srdash.judging.trust.verdict` (the real-world verdict). Every name is importable from here.

Examples
--------
>>> from pathlib import Path
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

from srdash.judging.trust.access import ROLES, ReviewSession
from srdash.judging.trust.agreement import kendalls_w, ranks_from_ratings
from srdash.judging.trust.entry import MAX_COMMENT_CHARS, Entry, TrustStoreError
from srdash.judging.trust.settings import AGGREGATIONS, RATING_SCALE, TRUST_KINDS, ReviewSettings, review_settings
from srdash.judging.trust.schema import SCHEMA_VERSION
from srdash.judging.trust.store import TrustStore, blinded_label, default_store_path
from srdash.judging.trust.summary import TrustSummary, entry_problems, trust_summary
from srdash.judging.trust.verdict import realworld_table, realworld_verdict

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
