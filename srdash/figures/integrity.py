"""Figures of a verdict's integrity: rank uncertainty, significance and audits.

Pure functions: each takes a result (:class:`~srdash.analysis.robustness.Robustness`,
:class:`~srdash.analysis.significance.Significance` or :class:`~srdash.analysis.audit.Audit`)
and keyword-only options, and returns a new ``plotly.graph_objects.Figure``.
The same functions serve the dashboard and static reports.

Method names come from competitors and are untrusted; plotly renders a subset
of HTML in text, so they are escaped here.

Examples
--------
>>> import pandas as pd
>>> from srdash.analysis.robustness import bootstrap
>>> from srdash.analysis.significance import significance
>>> from srdash.demo.examples import accuracy_rules, two_methods
>>> rules = accuracy_rules()
>>> table = pd.DataFrame({"method": ["a", "b", "c"] * 4, "dataset": [f"d{i // 3}" for i in range(12)],
...                       "run": 0, "r2_test": [0.9, 0.5, 0.1, 0.8, 0.6, 0.2, 0.9, 0.3, 0.4, 0.7, 0.8, 0.1]})
>>> result = bootstrap(table, rules, n_bootstrap=100)
>>> [t.type for t in place_probability_figure(result).data]
['heatmap']
>>> fig = critical_difference_figure(significance(result.verdict))
>>> "CD = " in fig.layout.title.subtitle.text
True
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import plotly.graph_objects as go

from srdash.figures.glance import readable_heatmap
from srdash.figures.escape import plotly_text
from srdash.figures.titles import title_layout, title_margin
from srdash.analysis.audit import Audit
from srdash.errors import SrdashError
from srdash.analysis.robustness import Robustness
from srdash.analysis.significance import Significance

__all__ = [
    "place_probability_figure",
    "score_interval_figure",
    "critical_difference_figure",
    "audit_figure",
    "PLACE_PROBABILITY_KINDS",
]

#: Layouts of :func:`place_probability_figure`.
PLACE_PROBABILITY_KINDS = ("heatmap", "bubble")
# Above this many cells, probabilities are only shown on hover.
_MAX_ANNOTATED_CELLS = 400
_FLAG_COLOUR = "#fde2e1"
_OK_COLOUR = "#ffffff"
_HEADER_COLOUR = "#e8ecf1"
_GROUP_COLOUR = "#d62728"




def _bootstrap_caption(result: Robustness) -> str:
    return (f"{result.n_bootstrap} bootstrap redraws of the {result.resample} (seed {result.seed}); "
            "place 1 = best; ties split evenly")


def place_probability_figure(result: Robustness, *, kind: str = "heatmap", title: str | None = None) -> go.Figure:
    """Probability of each place for each method (methods x places).

    Parameters
    ----------
    result : Robustness
        From :func:`srdash.analysis.robustness.bootstrap`.
    kind : {'heatmap', 'bubble'}
        A heatmap, or bubbles whose area is the probability.
    title : str, optional
        Default: "Place probabilities" with the bootstrap settings.

    Returns
    -------
    plotly.graph_objects.Figure
        Methods top to bottom in leaderboard order; places left (1, best) to
        right (K). Each method's label carries its P(win).

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.robustness import bootstrap
    >>> from srdash.demo.examples import accuracy_rules, two_methods
    >>> rules = accuracy_rules()
    >>> t = two_methods()
    >>> fig = place_probability_figure(bootstrap(t, rules, n_bootstrap=10), kind="bubble")
    >>> list(fig.data[0].y)
    ['a (P(win) 1.00)', 'a (P(win) 1.00)', 'b (P(win) 0.00)', 'b (P(win) 0.00)']
    >>> place_probability_figure(bootstrap(t, rules, n_bootstrap=10), kind="pie")
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The 'kind' option must be one of 'heatmap', 'bubble'. Got 'pie'.
    """
    if kind not in PLACE_PROBABILITY_KINDS:
        listed = ", ".join(f"'{k}'" for k in PLACE_PROBABILITY_KINDS)
        raise SrdashError(f"The 'kind' option must be one of {listed}. Got {kind!r}.")
    probability = result.place_probability
    p_win = result.summary.set_index("method")["p_win"]
    labels = [f"{plotly_text(m)} (P(win) {p_win[m]:.2f})" for m in probability.index]
    places = [int(p) for p in probability.columns]
    values = probability.to_numpy()
    hover = "%{y}<br>place %{x}: probability %{customdata:.3f}<extra></extra>"
    if kind == "heatmap":
        show_text = values.size <= _MAX_ANNOTATED_CELLS
        text = [[f"{v:.2f}" if v >= 0.005 else "" for v in row] for row in values] if show_text else None
        trace = go.Heatmap(z=values, x=places, y=labels, customdata=values, zmin=0, zmax=1,
                           colorscale="Blues", colorbar={"title": {"text": "probability", "side": "right"},
                                                         "thickness": 14},
                           text=text, texttemplate="%{text}" if show_text else None, hovertemplate=hover)
    else:
        xs, ys, sizes = [], [], []
        for label, row in zip(labels, values):
            for place, value in zip(places, row):
                xs.append(place)
                ys.append(label)
                sizes.append(value)
        sizes = np.asarray(sizes)
        trace = go.Scatter(x=xs, y=ys, mode="markers", customdata=sizes, hovertemplate=hover,
                           marker={"size": 40 * np.sqrt(sizes), "sizemode": "diameter", "color": sizes,
                                   "colorscale": "Blues", "cmin": 0, "cmax": 1, "showscale": True,
                                   "colorbar": {"title": {"text": "probability", "side": "right"}, "thickness": 14},
                                   "line": {"width": 0.5, "color": "#555"}})
    figure = go.Figure(trace)
    heading = title_layout("Place probabilities", _bootstrap_caption(result)) if title is None else title
    figure.update_layout(
        title=heading,
        xaxis={"title": "place (1 = best)", "tickmode": "array", "tickvals": places, "range": [0.5, len(places) + 0.5]},
        yaxis={"title": "", "autorange": "reversed", "type": "category", "categoryorder": "array",
               "categoryarray": labels},
        height=max(300, 60 + 28 * len(labels)),
        margin={"l": 10, "r": 10, "t": title_margin(heading) if title is None else 80, "b": 50},
    )
    return readable_heatmap(figure) if kind == "heatmap" else figure


def score_interval_figure(result: Robustness, *, title: str | None = None) -> go.Figure:
    """Final score of each method with its bootstrap percentile interval.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.robustness import bootstrap
    >>> from srdash.demo.examples import accuracy_rules, two_methods
    >>> rules = accuracy_rules()
    >>> t = two_methods()
    >>> fig = score_interval_figure(bootstrap(t, rules, n_bootstrap=10))
    >>> list(fig.data[0].x), list(fig.data[0].error_x.array)
    ([2.0, 1.0], [0.0, 0.0])
    """
    summary = result.summary
    labels = [plotly_text(m) for m in summary["method"]]
    level = f"{100 * result.confidence:g}%"
    trace = go.Scatter(
        x=summary["score"].tolist(), y=labels, mode="markers", marker={"size": 9, "color": "#1f77b4"},
        error_x={"type": "data", "symmetric": False,
                 "array": (summary["score_high"] - summary["score"]).clip(lower=0).tolist(),
                 "arrayminus": (summary["score"] - summary["score_low"]).clip(lower=0).tolist()},
        customdata=np.column_stack([summary["score_low"], summary["score_high"], summary["p_win"]]),
        hovertemplate=("%{y}<br>score %{x:.3f}<br>" + level +
                       " interval %{customdata[0]:.3f} to %{customdata[1]:.3f}<br>P(win) %{customdata[2]:.2f}"
                       "<extra></extra>"),
    )
    figure = go.Figure(trace)
    heading = title_layout(f"Final score with its {level} interval", _bootstrap_caption(result)) \
        if title is None else title
    figure.update_layout(
        title=heading,
        xaxis={"title": "final score (higher is better)"},
        yaxis={"autorange": "reversed", "type": "category", "automargin": True},
        height=max(300, 60 + 28 * len(labels)),
        margin={"l": 10, "r": 10, "t": title_margin(heading) if title is None else 80, "b": 50},
    )
    return figure


def critical_difference_figure(result: Significance, *, title: str | None = None) -> go.Figure:
    """Critical difference diagram (Demšar 2006): mean ranks, groups not significantly different.

    Methods sit on a mean-rank axis with the best (rank k) on the left; a thick
    bar joins each group of methods whose mean ranks differ by at most the
    critical difference; a bar of length CD is drawn above the axis. The test,
    alpha and CD are printed in the title; the sentence on the winner under it.
    ``result`` may also be a :class:`~srdash.analysis.comparison.Comparison`: its bars
    then come from its post-hoc's p-values (Conover, Wilcoxon-Holm or Nemenyi), and the
    CD bar is drawn only for Nemenyi.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.significance import significance
    >>> scores = pd.DataFrame({"a": [3.0, 3.0, 3.0, 2.0], "b": [2.0, 1.0, 2.0, 3.0], "c": [1.0, 2.0, 1.0, 1.0]})
    >>> fig = critical_difference_figure(significance(scores))
    >>> print(fig.layout.title.text)
    Critical difference diagram
    >>> print(fig.layout.title.subtitle.text.replace("<br>", " ").split(". ")[0])
    Friedman chi2 = 4.500, p = 0.105; Nemenyi post-hoc, alpha = 0.05, CD = 1.657 (k = 3, N = 4)
    >>> sorted(a.text for a in fig.layout.annotations if a.xref == "paper")
    ['a<br>(2.75)', 'b<br>(2.00)', 'c<br>(1.25)']
    """
    ranks = result.mean_ranks
    k = result.n_methods
    names, values = list(ranks["method"]), ranks["mean_rank"].to_numpy()
    half = (len(names) + 1) // 2
    step = 0.42
    # Room for the labels (the name over its mean rank, 11 px type), as a share of the width, from the
    # longest name on each side: enough on a 390 px phone (about 6.5 px per character of a 370 px plot).
    left_room = min(0.36, 0.03 + 0.0175 * max(max(len(n) for n in names[:half]), 6))
    right_room = min(0.36, 0.03 + 0.0175 * max(max((len(n) for n in names[half:]), default=0), 6))
    left_end, right_end = k + 0.1, 0.9
    figure = go.Figure()
    # the axis, with a tick per rank
    figure.add_trace(go.Scatter(x=[k, 1], y=[0, 0], mode="lines", line={"color": "black", "width": 1.5},
                                hoverinfo="skip", showlegend=False))
    figure.add_trace(go.Scatter(x=list(range(1, k + 1)), y=[0] * k, mode="markers+text",
                                text=[str(t) for t in range(1, k + 1)], textposition="top center",
                                marker={"symbol": "line-ns-open", "size": 8, "color": "black"},
                                hoverinfo="skip", showlegend=False))
    # methods: the best half labelled on the left, the rest on the right
    for i, (name, value) in enumerate(zip(names, values)):
        left = i < half
        level = -(i + 1) * step if left else -(len(names) - i) * step
        end = left_end if left else right_end
        figure.add_trace(go.Scatter(x=[value, value, end], y=[0, level, level], mode="lines",
                                    line={"color": "#444", "width": 1}, showlegend=False,
                                    hovertemplate=f"{plotly_text(name)}: mean rank {value:.3f}<extra></extra>"))
        figure.add_annotation(x=left_room - 0.01 if left else 1 - right_room + 0.01, xref="paper", y=level,
                              text=f"{plotly_text(name)}<br>({value:.2f})", showarrow=False,
                              xanchor="right" if left else "left", align="right" if left else "left",
                              font={"size": 11})
    # groups of methods not significantly different
    for g, group in enumerate(result.groups):
        members = ranks[ranks["method"].isin(group)]["mean_rank"]
        y = -0.12 - 0.08 * g
        figure.add_trace(go.Scatter(x=[members.max() + 0.03, members.min() - 0.03], y=[y, y], mode="lines",
                                    line={"color": _GROUP_COLOUR, "width": 5}, showlegend=False,
                                    hovertemplate="not significantly different: "
                                                  + plotly_text(", ".join(group)) + "<extra></extra>"))
    # the critical difference, to scale
    cd = result.critical_difference
    if cd is not None:  # a p-value post-hoc (Conover, Wilcoxon) has no distance to draw
        figure.add_trace(go.Scatter(x=[k, k - cd], y=[0.6, 0.6], mode="lines+markers",
                                    line={"color": "black", "width": 2},
                                    marker={"symbol": "line-ns-open", "size": 8, "color": "black"},
                                    hoverinfo="skip", showlegend=False))
        figure.add_annotation(x=k - cd / 2, y=0.65, text=f"CD = {cd:.3f}", showarrow=False, yanchor="bottom")
    lowest = -(half + 1) * step
    heading = title_layout("Critical difference diagram" if title is None else title,
                           f"{plotly_text(result.test_label)}. {plotly_text(result.statement)}")
    figure.update_layout(
        title=heading,
        xaxis={"range": [left_end, right_end], "domain": [left_room, 1 - right_room],
               "title": f"mean rank ({k} = best)",
               "showgrid": False, "zeroline": False, "showticklabels": False},
        yaxis={"range": [lowest, 1.0], "visible": False},
        height=max(280, 90 + title_margin(heading) + 44 * half),
        margin={"l": 10, "r": 10, "t": title_margin(heading), "b": 40},
        plot_bgcolor="white",
    )
    return figure


def audit_figure(result: Audit, *, title: str | None = None) -> go.Figure:
    """The audit as a table: published and recomputed side by side, problems highlighted.

    Rows that need attention (score beyond the tolerance, other place, method
    on one side only) are shaded; the title says whether the published table
    is consistent with itself and lists its inconsistencies.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.audit import audit
    >>> mine = pd.DataFrame({"method": ["a", "b"], "score": [3.0, 2.0]})
    >>> theirs = pd.DataFrame({"method": ["a", "b"], "score": [3.0, 2.5], "place": [1, 2]})
    >>> fig = audit_figure(audit(mine, theirs))
    >>> list(fig.data[0].cells.values[-1])
    ['agrees', 'score differs']
    """
    table = result.comparison

    def shown(values, fmt):
        return ["" if pd.isna(v) else fmt.format(v) for v in values]

    columns = {
        "method": [plotly_text(m) for m in table["method"]],
        "published place": shown(table["published_place"], "{}"),
        "recomputed place": shown(table["recomputed_place"], "{}"),
        "published score": shown(table["published_score"], "{:g}"),
        "recomputed score": shown(table["recomputed_score"], "{:.3f}"),
        "difference": shown(table["score_difference"], "{:+.3f}"),
        "status": list(table["status"]),
    }
    fill = [_FLAG_COLOUR if flagged else _OK_COLOUR for flagged in table["flagged"]]
    figure = go.Figure(go.Table(
        header={"values": [f"<b>{c}</b>" for c in columns], "fill_color": _HEADER_COLOUR, "align": "left"},
        cells={"values": list(columns.values()), "fill_color": [fill] * len(columns), "align": "left"},
    ))
    track = f" (track {plotly_text(result.track)})" if result.track else ""
    consistency = ("consistent with itself" if result.consistent else
                   f"{len(result.inconsistencies)} internal inconsistency(ies): "
                   + "; ".join(plotly_text(d) for d in result.inconsistencies["detail"]))
    heading = title if title is not None else (
        f"Audit of the published table{track}: {int(table['flagged'].sum())} of {len(table)} methods flagged "
        f"(tolerance {result.tolerance:g})")
    figure.update_layout(title={"text": f"{heading}<br><sup>Published table {consistency}.</sup>",
                                "font": {"size": 14}},
                         height=max(250, 120 + 26 * len(table)), margin={"l": 10, "r": 10, "t": 80, "b": 10})
    return figure
