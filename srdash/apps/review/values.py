"""How the review writes a model's values and a judge's choices on its page (escaped, rounded, ordered)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Mapping

import numpy as np

from srdash.figures.escape import html_text
from srdash.judging.trust import RATING_SCALE

__all__ = ["shown_text", "shown_number", "natural_key", "is_long", "components_text", "time_of", "trust_options",
           "NO_VALUE", "FIGURE_HEIGHT", "OK_STATUSES", "LONG_COMPONENTS", "LONG_LATEX"]

NO_VALUE = 0
# The output areas need a height of their own: plotly's renderer sizes the plot to its container.
FIGURE_HEIGHT = 310
OK_STATUSES = ("ok", "given", "measured")


def shown_text(value) -> str:
    """Untrusted text, escaped for HTML."""
    return html_text("" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value))


def shown_number(value, digits: int) -> str:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return "unknown"
    if np.isnan(number):
        return "unknown"
    if np.isinf(number):
        return "failed" if number < 0 else "∞"
    return f"{number:.{digits}f}".replace("-", "−")


def natural_key(name: str) -> list:
    """Sort key putting x2 before x10 (numbers inside names compared as numbers).

    Examples
    --------
    >>> sorted(["x10", "x2", "x1", "age"], key=natural_key)
    ['age', 'x1', 'x2', 'x10']
    """
    return [(0, int(part), "") if part.isdigit() else (1, 0, part.lower())
            for part in re.split(r"(\d+)", str(name)) if part]


# A formula longer than this is shown as wrapping text (typeset on demand).
LONG_COMPONENTS = 60
LONG_LATEX = 600


def is_long(row: Mapping, latex: str) -> bool:
    try:
        components = float(row.get("components"))
    except (TypeError, ValueError):
        components = float("nan")
    return len(latex) > LONG_LATEX or (np.isfinite(components) and components > LONG_COMPONENTS)


def components_text(value) -> str:
    text = shown_number(value, 0)
    return f"{text} component" + ("" if text == "1" else "s")


def time_of(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%H:%M:%S")
    except ValueError:
        return stamp


def trust_options(kind: str, n_models: int) -> list[tuple[str, int]]:
    if kind == "rank":
        options = [("— choose a rank —", NO_VALUE)]
        for rank in range(1, n_models + 1):
            note = " (most trusted)" if rank == 1 else " (least trusted)" if rank == n_models else ""
            options.append((f"{rank}{note}", rank))
        return options
    low, high = RATING_SCALE
    options = [("— choose a rating —", NO_VALUE)]
    for rating in range(low, high + 1):
        note = " (least trust)" if rating == low else " (most trust)" if rating == high else ""
        options.append((f"{rating}{note}", rating))
    return options
