"""Figures that read at a glance: every heatmap label shown, at a size one can read.

Left to itself plotly thins a category axis to the labels that fit (3 of 6 method
names on a phone) and shrinks a heatmap's cell text to its cell (4 px). The
figure functions pass their heatmaps through :func:`readable_heatmap`: every
category gets its tick label, tick labels and cell texts a fixed size of
:data:`FONT_SIZE` px, and the figure grows with its rows. On a phone, where
the columns would then be too narrow for their texts, the apps' stylesheet gives
a figure with a heatmap a minimum width and lets it scroll sideways
(``assets/srdash.css``).

Examples
--------
>>> import plotly.graph_objects as go
>>> fig = readable_heatmap(go.Figure(go.Heatmap(z=[[1, 2]], x=["a", "b"], y=["m"], text=[["1", "2"]],
...                                             texttemplate="%{text}")))
>>> list(fig.layout.xaxis.tickvals), fig.layout.xaxis.tickfont.size, fig.data[0].textfont.size
(['a', 'b'], 11, 11)
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["FONT_SIZE", "ROW_HEIGHT", "readable_heatmap"]

#: Size (px) of a heatmap's tick labels and cell texts: readable on a phone, small enough for a 0.00 in a cell.
FONT_SIZE = 11
#: Height (px) of a heatmap row: a cell text and its padding.
ROW_HEIGHT = 28
# Beyond this many columns every label cannot be read at once anyway (122 datasets): plotly thins them.
_MAX_LABELLED_COLUMNS = 40


def _categories(values) -> list:
    return list(dict.fromkeys(values)) if values is not None else []


def readable_heatmap(figure: go.Figure, *, extra_height: int = 160) -> go.Figure:
    """``figure`` with every category of its heatmaps labelled and its texts at :data:`FONT_SIZE` px.

    Parameters
    ----------
    figure : plotly.graph_objects.Figure
        A figure whose heatmap traces use the first x and y axes.
    extra_height : int, keyword-only
        Height (px) of the title, the axis titles and the tick labels under the plot; the figure is at
        least this plus :data:`ROW_HEIGHT` per row tall (taller when its layout already says so).

    Returns
    -------
    plotly.graph_objects.Figure
        Every row labelled, and every column when there are at most 40 (beyond, plotly's own choice of
        labels). The same figure (updated in place, as ``update_layout`` does), for chaining.
    """
    xs, ys = [], []
    for trace in figure.data:
        if trace.type != "heatmap":
            continue
        xs += _categories(trace.x)
        ys += _categories(trace.y)
        if trace.texttemplate is not None or trace.text is not None:
            # a fixed size: plotly's default fits the text to its cell, 4 px in a phone-wide figure
            trace.textfont.size = max(FONT_SIZE, trace.textfont.size or 0)
    columns, rows = _categories(xs), _categories(ys)
    for axis, categories in ((figure.layout.xaxis, columns if len(columns) <= _MAX_LABELLED_COLUMNS else []),
                             (figure.layout.yaxis, rows)):
        if categories and all(isinstance(c, str) for c in categories):
            # tick labels for every category: plotly's automatic ticks skip those that do not fit
            axis.update(tickmode="array", tickvals=categories, ticktext=categories)
        axis.tickfont.size = max(FONT_SIZE, axis.tickfont.size or 0)
    figure.layout.height = max(figure.layout.height or 0, extra_height + ROW_HEIGHT * len(rows))
    return figure
