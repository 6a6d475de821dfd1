"""One trust entry, and the checks on what a judge enters (names, values, comments, rubric scores).

:class:`TrustStoreError` is how the store refuses: a value that is no trust position or rating, an
empty name, an unreadable file, a closed review.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from srdash.errors import RulesError, SrdashError
from srdash.judging.trust.settings import RATING_SCALE

__all__ = ["MAX_COMMENT_CHARS", "TrustStoreError", "Entry", "utc_now", "check_value", "check_name", "check_score"]

#: The longest comment a judge may keep with an entry (characters); longer ones are refused.
MAX_COMMENT_CHARS = 10_000


class TrustStoreError(SrdashError):
    """The trust store cannot be opened, or refuses a change (with the reason)."""

    # Tracebacks and doctests name it where users import it from.
    __module__ = "srdash.judging.trust"


def utc_now() -> str:
    """The current time (UTC, ISO 8601 with microseconds), as the store stamps every change."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


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


def check_value(kind: str, value: float | None) -> float | None:
    """``value`` as a float when it is a valid trust position (``kind`` 'rank': a whole number >= 1)
    or rating (a whole number on :data:`RATING_SCALE`); None stays None.

    Raises
    ------
    TrustStoreError
        Otherwise, saying what is expected.

    Examples
    --------
    >>> check_value("rating", 4), check_value("rank", None)
    (4.0, None)
    >>> check_value("rating", 6)
    Traceback (most recent call last):
    ...
    srdash.judging.trust.TrustStoreError: A trust rating must be a whole number from 1 (least trust) to 5 (most trust). Got 6.
    """
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


def check_score(criterion: str, score, rubric) -> float:
    """A juror's ``score`` on ``criterion`` as a float: on ``rubric``'s scale when given
    (:meth:`srdash.judging.jury.Rubric.check_score`), else any finite number.

    Raises
    ------
    TrustStoreError
        When the score is refused.
    """
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


def check_name(what: str, name: Any) -> str:
    """``name`` when it is a non-empty text; ``what`` names it in the message.

    Raises
    ------
    TrustStoreError
        Otherwise.
    """
    if not isinstance(name, str) or not name.strip():
        raise TrustStoreError(f"The {what} must be a non-empty text. Got {name!r}.")
    return name
