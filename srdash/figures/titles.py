"""Figure titles that fit a phone's width: plotly does not wrap text, so srdash does.

A title is a short heading (one line of at most :data:`TITLE_WIDTH`
characters: a plotly figure on a 390 px phone has room for about 40
characters of a 15 px title) and, optionally, a subtitle in smaller type
(what the colours mean, which rule applies), broken into lines at spaces,
never inside a markup tag (titles may colour words with ``<span>``). Text given here must already be escaped
(:func:`srdash.figures.escape.plotly_text`).

Examples
--------
>>> wrap_title("Dataset score (harmonic mean of ranks) per dataset", width=30)
'Dataset score (harmonic mean<br>of ranks) per dataset'
>>> wrap_title("<span style='color:#444'>actual</span> and predicted", width=12)
"<span style='color:#444'>actual</span> and<br>predicted"
>>> title_layout("Ranks", "higher is better")["subtitle"]["text"]
'higher is better'
>>> wrap_title("higher is better, 6\u00a0=\u00a0best", width=22).split("<br>")
['higher is better,', '6\xa0=\xa0best']
"""

from __future__ import annotations

import re

__all__ = ["TITLE_WIDTH", "SUBTITLE_WIDTH", "wrap_title", "title_layout", "title_margin"]

#: Characters per line of a title (15 px) and of a subtitle (12 px) that fit a phone's figure.
TITLE_WIDTH = 40
SUBTITLE_WIDTH = 56

# Tags, words and spaces; a no-break space (U+00A0) belongs to its word ("6\u00a0=\u00a0best" stays whole).
_TOKENS = re.compile(r"<[^>]*>|[^ \t\n<]+|[ \t\n]+")


def wrap_title(text: str, width: int = TITLE_WIDTH) -> str:
    """``text`` with ``<br>`` between lines of at most ``width`` visible characters (longer words stay whole)."""
    lines: list[str] = []
    line, visible, pending_space = "", 0, False
    for token in _TOKENS.findall(text):
        if token.startswith("<"):
            if token.lower() in ("<br>", "<br/>", "<br />"):
                lines.append(line)
                line, visible, pending_space = "", 0, False
            else:
                line += token
            continue
        if not token.strip(" \t\n"):
            pending_space = visible > 0
            continue
        if pending_space and visible + 1 + len(token) > width:
            lines.append(line)
            line, visible = token, len(token)
        else:
            line += (" " if pending_space else "") + token
            visible += (1 if pending_space else 0) + len(token)
        pending_space = False
    lines.append(line)
    return "<br>".join(lines)


def title_layout(text: str, subtitle: str | None = None, *, size: int = 15) -> dict:
    """A ``layout.title`` with wrapped text and, when given, a wrapped subtitle in smaller type.

    The title hangs from the top of the figure (12 px below it); the figure's
    top margin must hold it: :func:`title_margin`.
    """
    # The title itself is one line: plotly hangs a title of several lines partly above the figure.
    # Keep it within TITLE_WIDTH characters and say the rest in the subtitle, which wraps.
    title: dict = {"text": text, "font": {"size": size}, "x": 0.02, "xanchor": "left",
                   "y": 1.0, "yref": "container", "yanchor": "top", "pad": {"t": 12}}
    if subtitle:
        title["subtitle"] = {"text": wrap_title(subtitle, SUBTITLE_WIDTH), "font": {"size": 12}}
    return title


def title_margin(title: dict, *, below: int = 16) -> int:
    """The top margin, in pixels, that holds a :func:`title_layout` title and ``below`` pixels under it.

    Examples
    --------
    >>> title_margin(title_layout("Ranks")), title_margin(title_layout("Ranks", "higher is better"))
    (48, 70)
    """
    height = 12 + round(1.3 * title["font"]["size"])
    if "subtitle" in title:
        height += 6 + 16 * (title["subtitle"]["text"].count("<br>") + 1)
    return height + below
