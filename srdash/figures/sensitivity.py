"""Figures and tables of a weight-sensitivity analysis: pure functions, no widgets.

Each builder takes a result of :mod:`srdash.analysis.sensitivity` first and keyword-only
options, and returns a new ``plotly.graph_objects.Figure`` (figures) or an HTML
string (tables). The dashboard and static reports use the same functions.

Competitor names are untrusted: they are escaped (:func:`html.escape`) wherever
plotly or a table renders HTML. Places: 1 = best.

Examples
--------
>>> import pandas as pd
>>> from srdash.judging.ranking import judge
>>> from srdash.judging.rules import load_rules
>>> from srdash.analysis.sensitivity import Rescorer, place_probabilities, weight_sweep
>>> runs = pd.DataFrame({"method": ["a", "<b>"], "dataset": "d", "run": 0,
...                      "r2_test": [0.9, 0.5], "simplicity": [-2.0, -0.5]})
>>> from srdash.demo.examples import accuracy_and_simplicity_rules
>>> rescorer = Rescorer.from_verdict(judge(runs, accuracy_and_simplicity_rules()))
>>> fig = bump_chart(weight_sweep(rescorer, "accuracy", points=5))
>>> [trace.name for trace in fig.data]
['&lt;b&gt;', 'a']
>>> heatmap = place_probability_heatmap(place_probabilities(rescorer, samples=100))
>>> heatmap.data[0].type, heatmap.data[0].z.shape
('heatmap', (2, 2))
>>> "&lt;b&gt;" in leaderboard_html(rescorer.leaderboard(), entity="method")
True
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from srdash.figures.glance import readable_heatmap
from srdash.figures.styles import legend_below, method_style
from srdash.figures.escape import html_text
from srdash.analysis.sensitivity import PlaceProbabilities, Rescorer, TernaryMap, WeightSweep, WinningWeights

__all__ = [
    "Vocabulary",
    "bump_chart",
    "bump_chart_text",
    "place_probability_heatmap",
    "kendall_tau_histogram",
    "ternary_winner_figure",
    "leaderboard_html",
    "alternatives_html",
    "winning_weights_html",
    "short_name",
    "colour_of",
    "ternary_note",
]

# One small style block, scoped by class, shared by the tables below.
_TABLE_STYLE = ("<style>.srdash-sensitivity-table{border-collapse:collapse;font-size:13px}"
                ".srdash-sensitivity-table th,.srdash-sensitivity-table td{padding:3px 10px;text-align:left;"
                "border-bottom:1px solid #e5e5e5}.srdash-sensitivity-table td.number{text-align:right;"
                "font-variant-numeric:tabular-nums}</style>")
# Titles are cut into lines of at most this many characters (a phone's width at 15 px), in this font size.
_TITLE_LINE = 46
_TITLE_SIZE = 15
# Above this many cells the heatmap shows values on hover only.
_MAX_ANNOTATED_CELLS = 400
_LABEL_LENGTH = 24


@dataclass(frozen=True)
class Vocabulary:
    """The words of a weight-sensitivity analysis: what the competitors are and what each weight weighs.

    The numbers do not depend on them; the text does. A ranking competition's
    rules weigh criteria of methods over datasets (:meth:`of_rules`, the
    default); a prediction competition's combined leaderboard weighs metrics
    of teams, and has no datasets (:meth:`of_prediction_metrics`).

    Attributes
    ----------
    competitor : str
        One competitor ('method', 'team').
    weighted : str
        What one weight weighs ('criterion', 'metric', 'meta-score').
    explanation : str
        One sentence saying what the weights weigh.

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import example_rescorer
    >>> words = Vocabulary.of_rules(example_rescorer())
    >>> words.competitor, words.weighted, words.competitors(3), words.competitors(1)
    ('method', 'criterion', '3 methods', '1 method')
    >>> words.weights(2)
    '2 weights, one per criterion'
    """

    competitor: str = "method"
    weighted: str = "criterion"
    explanation: str = ""

    @classmethod
    def of_rules(cls, rescorer: Rescorer) -> "Vocabulary":
        """The words of the rules themselves: criteria (or meta-scores) of the rescorer's competitors."""
        return cls(competitor=rescorer.entity, weighted="meta-score" if rescorer.linear else "criterion",
                   explanation=rescorer.what_is_weighted)

    @classmethod
    def of_prediction_metrics(cls, rescorer: Rescorer) -> "Vocabulary":
        """The words of a prediction competition's combined leaderboard: teams, and one weight per metric
        (or per meta-score, for normalised-weighted rules).

        Examples
        --------
        >>> import pandas as pd
        >>> from srdash.analysis.sensitivity import rescorer_of
        >>> from srdash.judging.predictions import Targets, score_submissions
        >>> targets = Targets.from_arrays([0.0] * 2, ["preliminary", "final"])
        >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a", "b"]})
        >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
        ...                            predictions={"a": [0, 1], "b": [1, 0]})
        >>> words = Vocabulary.of_prediction_metrics(rescorer_of(result.combined))
        >>> words.competitors(2), words.weights(2)
        ('2 teams', '2 weights, one per metric')
        >>> print(words.explanation)
        The weights are the metrics' weights in the harmonic mean of each team's ranks on the metrics (ranks: 1 = worst, K = best, K = the number of teams).
        """
        if rescorer.linear:
            return cls(competitor="team", weighted="meta-score", explanation=rescorer.what_is_weighted)
        return cls(competitor="team", weighted="metric",
                   explanation="The weights are the metrics' weights in the harmonic mean of each team's ranks on "
                               "the metrics (ranks: 1 = worst, K = best, K = the number of teams).")

    def competitors(self, n: int) -> str:
        """'3 teams', '1 team'."""
        return f"{n} {self.competitor}{'s' if n != 1 else ''}"

    def weights(self, n: int) -> str:
        """'2 weights, one per metric'."""
        return f"{n} weight{'s' if n != 1 else ''}, one per {self.weighted}"


def ternary_note(n_weights: int, words: Vocabulary) -> str:
    """Why there is no ternary winner map (it is drawn for exactly three weights), in plain words.

    Examples
    --------
    >>> ternary_note(2, Vocabulary(competitor="team", weighted="metric"))
    'No winner map here: it shows the shares of exactly three weights on a triangle, and there are 2 weights, one per metric. The place probabilities above cover every share.'
    """
    return (f"No winner map here: it shows the shares of exactly three weights on a triangle, and there "
            f"{'is' if n_weights == 1 else 'are'} {words.weights(n_weights)}. The place probabilities above cover "
            "every share.")


def short_name(name: object, *, limit: int = _LABEL_LENGTH) -> str:
    """An escaped label of at most ``limit`` characters (long team ids are cut with '…').

    Examples
    --------
    >>> short_name("3030c47b-fa3c-4a41-8a2a-f26016051d08", limit=12)
    '3030c47b-fa…'
    >>> short_name("<script>")
    '&lt;script&gt;'
    """
    text = str(name)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html_text(text)


def _title(text: str) -> dict:
    """A figure title (see :func:`_wrapped`), in _TITLE_SIZE px."""
    return {"text": _wrapped(*text.split("<br>")), "font": {"size": _TITLE_SIZE}}


def _wrapped(*parts: str) -> str:
    """Each part on its own lines (``<br>``) of at most _TITLE_LINE characters.

    The parts are already escaped; an escape (``&lt;``) has no space, so it is never cut.
    """
    return "<br>".join(line for part in parts
                       for line in textwrap.wrap(part, _TITLE_LINE, break_long_words=False, break_on_hyphens=False))


def _top_margin(title: dict) -> int:
    """Room above the plot for the title's lines."""
    return 30 + 20 * (title["text"].count("<br>") + 1)


def colour_of(index: int) -> str:
    """The colour of the competitor at ``index`` (in :attr:`Rescorer.methods` order; its dash and symbol:
    :func:`srdash.figures.styles.method_style`).

    Examples
    --------
    >>> colour_of(0), colour_of(10) == colour_of(0)
    ('#1f77b4', True)
    """
    return method_style(index)[0]


def bump_chart_text(sweep: WeightSweep) -> tuple[str, str]:
    """The bump chart's title and x-axis title (escaped), for in-place updates of its layout."""
    label = html_text(sweep.weight_label)
    return _wrapped(f"Places as the weight of {label}", "varies, the others fixed"), f"weight of {label}"


def bump_chart(sweep: WeightSweep, *, title: str | None = None) -> go.Figure:
    """Places of every competitor as one weight varies, the others fixed.

    One line trace per competitor, in :attr:`WeightSweep.methods` order (the
    dashboard relies on that order to update the traces in place), then a
    vertical line (``layout.shapes[0]``) at the weight's current value.

    Parameters
    ----------
    sweep : WeightSweep
        From :func:`srdash.analysis.sensitivity.weight_sweep`.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import example_rescorer
    >>> from srdash.analysis import sensitivity
    >>> rescorer = example_rescorer()
    >>> fig = bump_chart(sensitivity.weight_sweep(rescorer, "property", points=4))
    >>> [t.name for t in fig.data], fig.data[1].y.tolist(), fig.layout.shapes[0].x0
    (['a', 'b', 'c'], [2.0, 2.0, 2.0, 1.0], 1.0)
    """
    n = len(sweep.methods)
    fig = go.Figure()
    for i, method in enumerate(sweep.methods):
        fig.add_trace(go.Scatter(
            x=sweep.values, y=sweep.places[:, i], mode="lines", name=short_name(method),
            line={"color": colour_of(i), "width": 2, "dash": method_style(i)[2]},
            hovertemplate=f"{html_text(str(method))}<br>weight %{{x:.3g}}: place %{{y}}<extra></extra>"))
    default_title, x_title = bump_chart_text(sweep)
    heading = _title(title or default_title)
    fig.update_layout(
        title=heading,
        xaxis={"title": x_title, "range": [sweep.values[0], sweep.values[-1]]},
        # reversed, fixed range: place 1 on top, no empty place 0
        yaxis={"title": "place (1 = best)", "range": [n + 0.5, 0.5], "dtick": 1 if n <= 25 else 5},
        shapes=[{"type": "line", "x0": sweep.current, "x1": sweep.current, "yref": "paper", "y0": 0, "y1": 1,
                 "line": {"color": "black", "dash": "dot", "width": 1}}],
        hovermode="closest", margin={"l": 60, "r": 20, "t": _top_margin(heading), "b": 50},
        height=420 + (22 * ((n + 2) // 3) if n <= 30 else 0),
        showlegend=n <= 30, legend=legend_below(), template="plotly_white")
    return fig


def place_probability_heatmap(probabilities: PlaceProbabilities, *, title: str | None = None,
                              competitor: str | None = None) -> go.Figure:
    """Probability of each place (columns) for each competitor (rows, official order).

    Parameters
    ----------
    probabilities : PlaceProbabilities
    title : str, optional
    competitor : str, optional
        What the competitors are called on the axis (default: ``probabilities.entity``).

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap trace; ``z`` has shape (competitors, places).

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import example_rescorer
    >>> from srdash.analysis import sensitivity
    >>> rescorer = example_rescorer()
    >>> fig = place_probability_heatmap(sensitivity.place_probabilities(rescorer, samples=100))
    >>> fig.data[0].z.shape, list(fig.data[0].y)
    ((3, 3), ['a (1)', 'b (2)', 'c (3)'])
    """
    table = probabilities.table
    n = len(table)
    z = table[[f"place_{p}" for p in range(1, n + 1)]].to_numpy()
    names = [html_text(str(m)) for m in table[probabilities.entity]]
    labels = [f"{short_name(m)} ({p})" for m, p in zip(table[probabilities.entity], table["official_place"])]
    text = None
    if z.size <= _MAX_ANNOTATED_CELLS:
        text = [[f"{v:.0%}" if v >= 0.005 else "" for v in row] for row in z]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(1, n + 1)), y=labels, text=text, texttemplate="%{text}" if text else None,
        colorscale="Blues", zmin=0, zmax=1,
        # the title beside the bar, not above it, where it met the '100%' tick
        colorbar={"title": {"text": "probability", "side": "right"}, "tickformat": ".0%", "thickness": 15},
        customdata=np.array(names)[:, None].repeat(n, axis=1),
        hovertemplate="%{customdata}<br>place %{x}: %{z:.1%}<extra></extra>"))
    heading = _title(title or (f"Place probabilities over {probabilities.samples:,} weight vectors<br>uniform on "
                               f"the simplex (seed {probabilities.seed})"))
    fig.update_layout(
        title=heading,
        xaxis={"title": "place (1 = best)", "dtick": 1 if n <= 25 else 5},
        yaxis={"title": f"{html_text(competitor or probabilities.entity)} (official place)", "autorange": "reversed"},
        height=max(300, _top_margin(heading) + 50 + 28 * n),
        margin={"l": 20, "r": 20, "t": _top_margin(heading), "b": 50}, template="plotly_white")
    fig.update_yaxes(automargin=True)   # room for the competitors' names, however long (cut at 24 characters)
    return readable_heatmap(fig)


def kendall_tau_histogram(probabilities: PlaceProbabilities, *, title: str | None = None) -> go.Figure:
    """Distribution of the Kendall tau of each sampled ranking to the official one.

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import example_rescorer
    >>> from srdash.analysis import sensitivity
    >>> rescorer = example_rescorer()
    >>> fig = kendall_tau_histogram(sensitivity.place_probabilities(rescorer, samples=100))
    >>> fig.data[0].type, int(len(fig.data[0].x))
    ('histogram', 100)
    """
    tau = probabilities.kendall_tau[np.isfinite(probabilities.kendall_tau)]
    summary = (f"mean {tau.mean():.3f}, 5th percentile {np.percentile(tau, 5):.3f}" if len(tau) else "no values")
    # bins centred on multiples of 0.05, so that tau = 1 (the official order) is a whole bar inside the axis
    fig = go.Figure(go.Histogram(x=tau, xbins={"start": -1.025, "end": 1.025, "size": 0.05},
                                 marker={"color": "#3182bd"},
                                 hovertemplate="tau %{x}: %{y} samples<extra></extra>"))
    heading = _title(title or f"Sampled rankings against the official one<br>Kendall τ: {summary}")
    fig.update_layout(
        title=heading,
        # ticks every 0.5: five labels fit a phone's width
        # (ticks outside: the '−1' label clear of the y axis' '0')
        xaxis={"title": "Kendall τ-b (1 = same order as official)", "range": [-1.05, 1.05], "dtick": 0.5,
               "ticks": "outside", "ticklen": 8, "tickcolor": "rgba(0,0,0,0)"},
        yaxis={"title": "weight vectors"}, height=260 + _top_margin(heading), bargap=0.05, template="plotly_white",
        margin={"l": 60, "r": 20, "t": _top_margin(heading), "b": 50})
    return fig


def ternary_winner_figure(tmap: TernaryMap, *, title: str | None = None) -> go.Figure:
    """The winner at each point of the simplex of three weights, the official weights starred.

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import example_rescorer
    >>> from srdash.analysis import sensitivity
    >>> rescorer = example_rescorer()
    >>> fig = ternary_winner_figure(sensitivity.ternary_winner_map(rescorer, resolution=4))
    >>> fig.data[-1].name, sum(len(t.a) for t in fig.data[:-1])
    ('official weights', 15)
    """
    a_label, b_label, c_label = (html_text(label) for label in tmap.weight_labels)
    fig = go.Figure()
    winners = pd.Series(tmap.winners)
    for i, winner in enumerate(winners.value_counts().index):
        mask = (winners == winner).to_numpy()
        points = tmap.weights[mask]
        fig.add_trace(go.Scatterternary(
            a=points[:, 0], b=points[:, 1], c=points[:, 2], mode="markers", name=short_name(winner),
            marker={"size": 7, "symbol": method_style(i)[1], "color": method_style(i)[0]},
            hovertemplate=(f"winner: {html_text(winner)}<br>{a_label} %{{a:.2f}}, {b_label} %{{b:.2f}}, "
                           f"{c_label} %{{c:.2f}}<extra></extra>")))
    fig.add_trace(go.Scatterternary(
        a=[tmap.official[0]], b=[tmap.official[1]], c=[tmap.official[2]], mode="markers",
        name="official weights", marker={"size": 16, "symbol": "star", "color": "black"},
        hovertemplate=f"official weights<br>winner: {html_text(tmap.official_winner)}<extra></extra>"))
    share = tmap.share(tmap.official_winner)
    heading = _title(title or (f"Winner over all weights<br>(official winner {short_name(tmap.official_winner)} "
                               f"wins on {share:.0%} of the simplex)"))
    fig.update_layout(
        title=heading,
        # no tick labels: on a phone-sized triangle those of two sides collide at every corner; the grid
        # shows the tenths and the hover each point's weights
        # the bottom corners' titles in lines of at most 14 characters (on a phone a long one ran past the
        # figure's edge); the top one on a line of its own, above the corner
        ternary={name: {"title": "<br>".join(textwrap.wrap(label, width, break_long_words=False,
                                                           break_on_hyphens=False)) or label,
                        "showticklabels": False, "nticks": 10}
                 for name, label, width in (("aaxis", a_label, 40), ("baxis", b_label, 14), ("caxis", c_label, 14))},
        height=520, margin={"l": 60, "r": 60, "t": _top_margin(heading) + 30, "b": 60}, legend=legend_below(),
        template="plotly_white")
    return fig


# --------------------------------------------------------------------------- tables


def leaderboard_html(board: pd.DataFrame, *, entity: str = "method", competitor: str | None = None,
                     decimals: int = 4) -> str:
    """The re-scored leaderboard (from :meth:`Rescorer.leaderboard`) as an HTML table.

    ``entity`` is the column naming the competitors; ``competitor`` what the
    heading calls them (default: ``entity``).

    Each row carries ``data-name`` (the escaped competitor) so tests and
    styles can find it; a place change against the official verdict is shown
    with an arrow.
    """
    rows = []
    for row in board.to_dict("records"):
        change = int(row["change"])
        arrow = f'<span style="color:#2ca02c">▲{change}</span>' if change > 0 else (
            f'<span style="color:#d62728">▼{-change}</span>' if change < 0 else "")
        name = html_text(str(row[entity]))
        rows.append(f'<tr data-name="{name}"><td class="number">{int(row["place"])}</td>'
                    f'<td class="name" title="{name}">{short_name(row[entity], limit=40)}</td>'
                    f'<td class="number">{row["score"]:.{decimals}f}</td>'
                    f'<td class="number">{int(row["official_place"])}</td><td>{arrow}</td></tr>')
    return (_TABLE_STYLE + '<table class="srdash-sensitivity-table srdash-sensitivity-leaderboard">'
            f'<thead><tr><th>Place</th><th>{html_text((competitor or entity).capitalize())}</th><th>Score</th>'
            '<th>Official place</th>'
            '<th>Change</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>"
            '<p style="font-size:smaller">Place 1 = best; higher score is better; equal scores share a place.</p>')


def alternatives_html(table: pd.DataFrame, *, entity: str = "method", max_pairs: int = 6) -> str:
    """The irrelevant-alternatives table (from :func:`srdash.analysis.sensitivity.irrelevant_alternatives`),
    headed by a flag saying whether the verdict depends on any competitor's presence.

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import example_rescorer
    >>> from srdash.analysis import sensitivity
    >>> rescorer = example_rescorer()
    >>> page = alternatives_html(sensitivity.irrelevant_alternatives(rescorer))
    >>> "No pair of methods swaps places" in page or "The verdict depends" in page
    True
    """
    if table.empty:
        return "<p>Too few competitors to remove one.</p>"
    disruptive = table[table["swaps"] > 0]
    if disruptive.empty:
        flag = (f'<p class="srdash-flag-ok" style="color:#2ca02c">✔ No pair of {entity}s swaps places when any '
                f'one {entity} is removed.</p>')
    else:
        winner_changes = table[table["winner_changes"]]
        detail = ""
        if not winner_changes.empty:
            detail = " The winner changes when " + ", ".join(
                html_text(str(r)) for r in winner_changes["removed"]) + " is removed."
        flag = (f'<p class="srdash-flag-depends" style="color:#d62728;font-weight:bold">⚠ The verdict depends on '
                f'which {entity}s take part: removing one of {len(disruptive)} {entity}(s) swaps the places of '
                f'others.{detail}</p>')
    rows = []
    for row in table.to_dict("records"):
        pairs = [p for p in str(row["swapped_pairs"]).split("; ") if p]
        shown = ", ".join(html_text(p) for p in pairs[:max_pairs]) + (" …" if len(pairs) > max_pairs else "")
        rows.append(f'<tr><td>{html_text(str(row["removed"]))}</td><td>{html_text(str(row["winner_without"]))}'
                    f'</td><td>{"yes" if row["winner_changes"] else ""}</td><td class="number">{int(row["swaps"])}</td>'
                    f"<td>{shown}</td></tr>")
    return (_TABLE_STYLE + flag + '<table class="srdash-sensitivity-table srdash-alternatives"><thead><tr>'
            '<th>Removed</th><th>Winner without it</th><th>Winner changes</th><th>Pairs swapped</th>'
            '<th>Swapped pairs (x/y: x was ahead, now behind)</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def winning_weights_html(answer: WinningWeights, *, labels: Mapping[str, str] | None = None) -> str:
    """One paragraph answering "which weights would make this method win?".

    Examples
    --------
    >>> from srdash.analysis.sensitivity.examples import example_rescorer
    >>> from srdash.analysis import sensitivity
    >>> rescorer = example_rescorer()
    >>> answer = sensitivity.find_winning_weights(rescorer, "c", samples=100)
    >>> winning_weights_html(answer).startswith("<p><b>Impossible.</b> No weights make &#x27;c&#x27; win")
    True
    """
    labels = dict(labels or {})
    text = html_text(answer.explanation)
    method = f"<i>(method: {html_text(answer.approach)})</i>"
    if answer.weights is None:
        return f"<p><b>{html_text(answer.status.capitalize())}.</b> {text} {method}</p>"
    weights = ", ".join(f"{html_text(labels.get(k, k))} {v:.3f}" for k, v in answer.weights.items())
    return f"<p><b>Found:</b> {weights} (normalised to sum 1). {text} {method}</p>"

