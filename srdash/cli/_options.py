"""The type of every numeric command-line option: a range from :data:`srdash.judging.limits.OPTION_LIMITS`.

``click.IntRange(min=1)`` has no upper bound (``robustness -B 1000000000`` ended in a
MemoryError) and ``click.FloatRange`` lets ``nan`` through every comparison and ``inf``
past an open maximum. :func:`bounded` gives an ``IntRange`` or ``FloatRange`` that takes
its bounds from the limits table and also refuses NaN and infinities, naming the
option and its range; ``--help`` shows the range.
"""

from __future__ import annotations

import math

import click

from srdash.judging.limits import OPTION_LIMITS, Limit

__all__ = ["BoundedInt", "BoundedFloat", "bounded"]


class _Bounded:
    """What both bounded types share: the limit, and the refusal of NaN, infinities and booleans."""

    limit: Limit

    def _refuse(self, value, param, ctx) -> None:
        self.fail(f"{value!r} is not allowed: it must be {self.limit.describe()}.", param, ctx)

    def convert(self, value, param, ctx):
        if isinstance(value, bool):
            self._refuse(value, param, ctx)
        number = super().convert(value, param, ctx)  # parsing, and the range with the option's name
        if isinstance(number, float) and (math.isnan(number) or math.isinf(number)) and not self.limit.admits(number):
            self._refuse(value, param, ctx)
        return number


class BoundedInt(_Bounded, click.IntRange):
    """A whole number within a :class:`Limit` (``click.IntRange`` with both ends)."""

    def __init__(self, limit: Limit) -> None:
        self.limit = limit
        super().__init__(min=int(limit.low), max=int(limit.high))


class BoundedFloat(_Bounded, click.FloatRange):
    """A finite number within a :class:`Limit` (``click.FloatRange``, NaN and infinities refused)."""

    def __init__(self, limit: Limit) -> None:
        self.limit = limit
        super().__init__(min=None if math.isinf(limit.low) else limit.low,
                         max=None if math.isinf(limit.high) else limit.high,
                         min_open=limit.low_open, max_open=limit.high_open)


def bounded(name: str) -> click.ParamType:
    """The click type of the option whose limit is ``OPTION_LIMITS[name]``.

    Examples
    --------
    >>> bounded("bootstrap").convert("1000", None, None)
    1000
    >>> bounded("probability").convert("nan", None, None)
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: 'nan' is not allowed: it must be a finite number > 0 and < 1.
    """
    limit = OPTION_LIMITS[name]
    return BoundedInt(limit) if limit.integer else BoundedFloat(limit)
