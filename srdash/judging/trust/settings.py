"""How trust is entered and combined: the kinds of value, the rating scale, and the review settings.

A judge gives each model a trust *position* (1 = most trusted; stored and shown as kind ``rank``) or
a *rating* (1 = least, 5 = most trust). The rules' ``[review]`` table chooses which, whether positions
must be strict (1..n, each once) and how several judges' positions combine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from srdash.errors import RulesError, SrdashError
from srdash.judging.rules import Rules

__all__ = ["TRUST_KINDS", "RATING_SCALE", "AGGREGATIONS", "ReviewSettings", "review_settings", "check_option"]

#: How a judge expresses trust: a rank (1 = most trusted) or a rating (1 = least, 5 = most trust).
TRUST_KINDS = ("rank", "rating")
#: The rating scale: lowest (least trust) and highest (most trust) rating.
RATING_SCALE = (1, 5)
#: How several judges' ranks combine into one trust value per model.
AGGREGATIONS = ("mean-rank", "median-rank")


def check_option(option: str, value: Any, allowed: Sequence[str], where: str = "") -> None:
    """Refuse ``value`` unless it is one of ``allowed``: "The 'option' option must be one of ... Got ...".

    ``where`` prefixes the message (``'review settings'``: "review settings: the 'x' option ...").

    Examples
    --------
    >>> check_option("aggregation", "mode", AGGREGATIONS)
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The 'aggregation' option must be one of 'mean-rank', 'median-rank'. Got 'mode'.
    """
    if value not in allowed:
        listed = ", ".join(f"'{a}'" for a in allowed)
        prefix = f"{where}: the" if where else "The"
        raise SrdashError(f"{prefix} '{option}' option must be one of {listed}. Got {value!r}.")


@dataclass(frozen=True)
class ReviewSettings:
    """How trust is entered and combined.

    Attributes
    ----------
    trust_input : {'rank', 'rating'}
        What the judge enters per model: a rank (1 = most trusted) or a 1–5 rating.
    strict_ranks : bool
        Ranks must be 1..n, each used once (no ties).
    aggregation : {'mean-rank', 'median-rank'}
        How several judges' ranks combine.
    """

    trust_input: str = "rank"
    strict_ranks: bool = True
    aggregation: str = "mean-rank"

    def __post_init__(self) -> None:
        check_option("trust_input", self.trust_input, TRUST_KINDS, "review settings")
        check_option("aggregation", self.aggregation, AGGREGATIONS, "review settings")
        if not isinstance(self.strict_ranks, bool):
            raise SrdashError(f"review settings: 'strict_ranks' must be true or false. Got {self.strict_ranks!r}.")


def review_settings(rules: Rules, *, trust_input: str | None = None) -> ReviewSettings:
    """The review settings of ``rules`` (their ``[review]`` table; defaults otherwise).

    Parameters
    ----------
    rules : Rules
    trust_input : {'rank', 'rating'}, optional
        Overrides the rules' choice.

    Raises
    ------
    RulesError
        When the ``[review]`` table has unknown keys or invalid values.

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> review_settings(load_rules("srbench2022-realworld"))
    ReviewSettings(trust_input='rank', strict_ranks=True, aggregation='mean-rank')
    >>> review_settings(load_rules("srbench2022-realworld"), trust_input="rating").trust_input
    'rating'
    """
    section = dict(rules.sections.get("review", {}))
    allowed = {"trust_input", "strict_ranks", "aggregation"}
    unknown = sorted(set(section) - allowed)
    if unknown:
        raise RulesError(f"rules '{rules.name}': unknown key(s) {', '.join(unknown)} in [review]. "
                         f"Allowed: {', '.join(sorted(allowed))}.")
    if trust_input is not None:
        section["trust_input"] = trust_input
    try:
        return ReviewSettings(**section)
    except RulesError:
        raise
    except SrdashError as exc:
        raise RulesError(f"rules '{rules.name}', [review]: {exc}") from exc
