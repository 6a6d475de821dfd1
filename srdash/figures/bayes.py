"""The Bayesian signed-rank comparisons as one figure: a stacked bar per pair (p_left, p_rope, p_right).

Pure function of :class:`srdash.analysis.bayes.BayesComparison`; the CLI writes it as HTML and any app
or report can show the same figure. Method names are untrusted: they reach plotly escaped.

Examples
--------
>>> import pandas as pd
>>> from srdash.analysis.bayes import bayes_pairs
>>> runs = pd.DataFrame({"method": ["a"] * 3 + ["<b>"] * 3, "dataset": ["d1", "d2", "d3"] * 2,
...                      "r2": [0.9, 0.8, 0.7, 0.5, 0.4, 0.3]})
>>> figure = bayes_figure(bayes_pairs(runs, metric="r2", rope=0.01, n_samples=500))
>>> [trace.name for trace in figure.data]
['a better (p_left)', 'within the ROPE (p_rope)', 'b better (p_right)']
>>> figure.data[0].y[0]
'a vs &lt;b&gt;'
"""

from __future__ import annotations

import plotly.graph_objects as go

from srdash.analysis.bayes import BayesComparison
from srdash.figures.escape import plotly_text
from srdash.figures.titles import title_layout, title_margin

__all__ = ["bayes_figure"]

_COLOURS = {"p_left": "#1b9e77", "p_rope": "#bdbdbd", "p_right": "#d95f02"}
_NAMES = {"p_left": "a better (p_left)", "p_rope": "within the ROPE (p_rope)", "p_right": "b better (p_right)"}


def bayes_figure(comparison: BayesComparison, *, height_per_pair: int = 22) -> go.Figure:
    """One horizontal stacked bar per pair: the posterior probabilities of a better, equivalent, b better.

    Parameters
    ----------
    comparison : BayesComparison
    height_per_pair : int, keyword-only
        Pixels per bar.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    table = comparison.table
    labels = [f"{plotly_text(a)} vs {plotly_text(b)}" for a, b in zip(table["method_a"], table["method_b"])]
    figure = go.Figure()
    for column in ("p_left", "p_rope", "p_right"):
        figure.add_trace(go.Bar(
            x=table[column].tolist(), y=labels, orientation="h", name=_NAMES[column],
            marker_color=_COLOURS[column],
            hovertemplate="%{y}: " + column + " = %{x:.3f}<extra></extra>"))
    metric = plotly_text(comparison.metric)
    title = title_layout("Practical equivalence",
                         f"Bayesian signed-rank test on {metric}, ROPE ±{comparison.rope:g} ({metric} units, "
                         f"{comparison.direction} is better); {comparison.n_samples} posterior draws, "
                         f"seed {comparison.seed}")
    figure.update_layout(barmode="stack", title=title, height=160 + height_per_pair * max(len(labels), 1),
                         margin={"t": title_margin(title)}, legend={"orientation": "h", "y": -0.1},
                         xaxis={"range": [0, 1], "title": "posterior probability"},
                         yaxis={"autorange": "reversed", "automargin": True})
    return figure
