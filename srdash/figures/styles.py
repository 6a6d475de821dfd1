"""One look per method in every figure: a colour, a marker symbol and a line dash.

Ten colours (plotly's default cycle), six marker symbols (colour and symbol change
from one method to the next; 30 is the least common multiple of 10 and 6) and three
dashes (one per ten methods): the first 30 methods get 30 distinct (colour, symbol)
and (colour, dash) pairs, so
that with 21 methods no two share a look (with a palette of 20 colours alone,
the 21st method looked like the first). Beyond 30 the pairs repeat; the
figures that can hold that many name the points as well.

Legends go under the plot (:func:`legend_below`): at the right of a phone-wide
figure a legend of long names took half of it and covered the lines.

Examples
--------
>>> method_style(0), method_style(10), method_style(29)
(('#1f77b4', 'circle', 'solid'), ('#1f77b4', 'x', 'dash'), ('#17becf', 'star', 'dot'))
>>> len({method_style(i)[:2] for i in range(30)}), len({method_style(i)[::2] for i in range(30)})
(30, 30)
"""

from __future__ import annotations

__all__ = ["COLOURS", "SYMBOLS", "DASHES", "method_style", "legend_below"]

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
SYMBOLS = ("circle", "diamond", "square", "triangle-up", "x", "star")
DASHES = ("solid", "dash", "dot")


def method_style(index: int) -> tuple[str, str, str]:
    """The (colour, marker symbol, line dash) of the method at ``index`` (0-based, in the figure's order)."""
    return (COLOURS[index % len(COLOURS)], SYMBOLS[index % len(SYMBOLS)],
            DASHES[(index // len(COLOURS)) % len(DASHES)])


def legend_below(*, title: str | None = None) -> dict:
    """A horizontal legend at the bottom of the figure: the plot and its axis titles move up to make room.

    Examples
    --------
    >>> legend_below(title="method")["orientation"], legend_below()["yref"]
    ('h', 'container')
    """
    legend = {"orientation": "h", "x": 0, "xanchor": "left", "y": 0, "yref": "container", "yanchor": "bottom"}
    if title:
        legend["title"] = {"text": title, "side": "top"}
    return legend
