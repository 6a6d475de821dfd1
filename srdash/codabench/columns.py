"""The leaderboard columns one submission can be scored on alone, and its finite scores.

Codabench stores each score as a decimal below 1e10 in magnitude and sorts by columns
(``src/apps/leaderboards/models.py``, codabench@c7dbc75: ``Column.key`` and ``title`` at most 36
characters, ``sorting`` ``desc`` or ``asc``). srdash's worst value (a failed model, a missing
dataset: -inf after orienting) cannot be stored, so it is written as :data:`FAILED_VALUE` on the
worst side of the column, and a real value is clipped just inside it: a failure always sorts last.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from typing import Sequence

__all__ = ["Column", "FAILED_VALUE", "KEY_LIMIT", "OK_COLUMN", "leaderboard_columns", "finite_score"]

#: Codabench's limit on a column's key and title (``CharField(max_length=36)``).
KEY_LIMIT = 36
#: The magnitude written for a failure (worst side of its column); real values stay strictly inside it.
FAILED_VALUE = 1e9
_INSIDE = 999_999_999.0
#: The first (primary) column: how many datasets the submission was scored on without a failure.
OK_COLUMN = "datasets_ok"


@dataclass(frozen=True)
class Column:
    """One leaderboard column.

    Attributes
    ----------
    key : str
        The ``scores.json`` key (letters, digits, ``_``; at most 36 characters).
    title : str
        What Codabench shows (at most 36 characters).
    sorting : {'desc', 'asc'}
        ``desc`` when higher is better.
    criterion, dataset : str
        The rules' criterion and the dataset ('' for :data:`OK_COLUMN`).
    """

    key: str
    title: str
    sorting: str
    criterion: str = ""
    dataset: str = ""

    @property
    def higher_is_better(self) -> bool:
        return self.sorting == "desc"


def _key(criterion: str, dataset: str, used: set) -> str:
    plain = re.sub(r"[^A-Za-z0-9_]", "_", f"{criterion}__{dataset}")
    if len(plain) <= KEY_LIMIT and plain not in used:
        return plain
    # Too long or clashing after cleaning: a prefix for the eye, a hash of the exact names for uniqueness.
    digest = hashlib.sha256(f"{criterion}\0{dataset}".encode()).hexdigest()[:8]
    return f"{plain[:KEY_LIMIT - 9]}_{digest}"


def _title(criterion: str, dataset: str, used: set) -> str:
    title = f"{dataset}: {criterion}"
    if len(title) <= KEY_LIMIT and title not in used:
        return title
    # Codabench's results download names a CSV column by the title: two equal titles would become one column.
    digest = hashlib.sha256(f"{criterion}\0{dataset}".encode()).hexdigest()[:6]
    return f"{title[:KEY_LIMIT - 8]}… {digest}"


def leaderboard_columns(criteria: Sequence, datasets: Sequence[str]) -> tuple[Column, ...]:
    """The columns: :data:`OK_COLUMN` first (Codabench sorts by it), then one per dataset and criterion.

    Parameters
    ----------
    criteria : sequence of srdash.judging.rules.Criterion
        The rules' criteria (their ``name`` and ``direction``).
    datasets : sequence of str
        The competition's datasets, in their order.

    Returns
    -------
    tuple of Column

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> columns = leaderboard_columns(load_rules("srbench2022").criteria, ["d1"])
    >>> [(c.key, c.sorting) for c in columns]
    [('datasets_ok', 'desc'), ('accuracy__d1', 'desc'), ('simplicity__d1', 'desc'), ('property__d1', 'desc')]
    """
    columns = [Column(OK_COLUMN, "Datasets without failure", "desc")]
    used, titles = {OK_COLUMN}, {columns[0].title}
    for dataset in datasets:
        for criterion in criteria:
            key = _key(criterion.name, dataset, used)
            title = _title(criterion.name, dataset, titles)
            used.add(key)
            titles.add(title)
            sorting = "desc" if criterion.direction == "higher" else "asc"
            columns.append(Column(key, title, sorting, criterion.name, dataset))
    return tuple(columns)


def finite_score(value: float, *, higher_is_better: bool) -> float:
    """``value`` as Codabench can store it: a failure (NaN, or infinite on the worst side) becomes
    :data:`FAILED_VALUE` on the worst side; a real value is clipped strictly inside it.

    Examples
    --------
    >>> finite_score(float("-inf"), higher_is_better=True), finite_score(float("nan"), higher_is_better=False)
    (-1000000000.0, 1000000000.0)
    >>> finite_score(-3e15, higher_is_better=True), finite_score(0.5, higher_is_better=True)
    (-999999999.0, 0.5)
    """
    worst = -FAILED_VALUE if higher_is_better else FAILED_VALUE
    if value is None or math.isnan(value):
        return worst
    if math.isinf(value):
        # +inf on a higher-is-better column is not a failure but cannot be stored: the best storable value.
        return worst if (value < 0) == higher_is_better else math.copysign(_INSIDE, value)
    return min(max(float(value), -_INSIDE), _INSIDE)
