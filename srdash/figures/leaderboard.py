"""Figures and tables of a verdict: pure functions, no widgets.

Every builder takes the data first (a :class:`~srdash.judging.ranking.Verdict` or a
prepared per-run table) and keyword-only options, and returns a new object: a
``plotly.graph_objects.Figure`` for figures, an HTML string for tables. The
same functions serve the dashboard and static reports.

Names of methods, datasets and models come from competitors and are untrusted.
Plotly renders a subset of HTML in titles, tick labels and hover labels, and the
tables are inserted as HTML, so every such string is escaped here
(:func:`html.escape`); plotly turns the entities back into plain characters.

Ranks are "higher is better": 1 = worst, K = best (K = number of methods).

Examples
--------
>>> import pandas as pd
>>> from srdash.judging.ranking import judge
>>> from srdash.judging.rules import load_rules
>>> runs = pd.DataFrame({"method": ["a", "b", "a"], "dataset": ["d1", "d1", "d2"], "run": 0,
...                      "r2_test": [0.9, 0.8, 0.7], "components": [3.0, 30.0, 5.0],
...                      "simplicity": [-0.7, -2.1, -1.0]})
>>> from srdash.demo.examples import accuracy_and_simplicity_rules
>>> verdict = judge(runs, accuracy_and_simplicity_rules())
>>> fig = rank_heatmap(verdict)
>>> [trace.type for trace in fig.data]
['heatmap', 'heatmap']
>>> fig.data[1].text[1][1]  # method b has no result on dataset d2
'DNF'
>>> [trace.name for trace in simplicity_curve(runs).data]
['simplicity score', 'a', 'b']
>>> "<th>Method</th>" in leaderboard_html(verdict)
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from srdash.figures.glance import readable_heatmap
from srdash.figures.styles import legend_below, method_style
from srdash.figures.tables import Cell, Markup, table_html
from srdash.figures.escape import html_text, plotly_text
from srdash.errors import SrdashError
from srdash.figures.titles import title_layout, title_margin
from srdash.judging.kernel import rank_range
from srdash.judging.ranking import Verdict
from srdash.judging.rules import Criterion

if TYPE_CHECKING:
    from srdash.analysis.board import ShownLeaderboard

__all__ = [
    "rank_heatmap",
    "simplicity_curve",
    "simplicity_score",
    "marker_offsets",
    "leaderboard_html", "scoring_html",
    "problems_html",
    "warnings_html",
    "figure_title",
    "hover_text",
]

# Colour of cells without a result (DNF) in the heatmap, outside the colour scale.
_DNF_COLOUR = "#c8c8c8"
# Above this many cells, values are only shown on hover (text would be unreadable).
_MAX_ANNOTATED_CELLS = 400
# Ticks of the simplicity curve's log axis (plotly's default labels minor ticks too).
_LOG_TICKS = tuple(m * 10 ** e for e in range(7) for m in (1, 2, 5))  # 1-2-5: apart even on a phone
# Problems are listed in this order: those that cost a method the most first; a
# timeout only means the unsimplified model was counted (as SRBench did).
_PROBLEM_ORDER = ("rejected", "parse_error", "simplify_error", "DNF", "missing value", "timeout")






def figure_title(figure: go.Figure) -> str:
    """The title text of a figure, its subtitle after a line break ('' when it has none).

    Examples
    --------
    >>> figure_title(go.Figure(layout={"title": {"text": "Ranks"}}))
    'Ranks'
    >>> figure_title(go.Figure(layout={"title": {"text": "Ranks", "subtitle": {"text": "1 = best"}}}))
    'Ranks<br>1 = best'
    """
    title = figure.layout.title
    return "<br>".join(text for text in (title.text, title.subtitle.text) if text)


def simplicity_score(components) -> np.ndarray:
    """SRBench 2022 simplicity of a model with ``components`` nodes.

    ``round(-log5(components), 1)``: 1 component gives 0, 5 give -1, 25 give -2;
    higher is simpler. Not defined for fewer than one component (NaN).

    Examples
    --------
    >>> simplicity_score([1, 5, 24, 25, 100]).tolist()
    [0.0, -1.0, -2.0, -2.0, -2.9]
    """
    values = np.asarray(components, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.round(-np.log(values) / np.log(5), 1)
    return np.where(values >= 1, score, np.nan) + 0.0  # + 0.0 turns -0.0 into 0.0


def _format_value(value: float, decimals: int | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "no value"
    if math.isinf(value):
        return "every run failed or missing (worst value)"
    return f"{value:.{decimals}f}" if decimals is not None else f"{value:.4g}"


def _format_rank(rank: float) -> str:
    return f"{rank:g}" if float(rank).is_integer() else f"{rank:.2f}"


def _criterion(verdict: Verdict, name: str) -> Criterion:
    for c in verdict.criteria:
        if c.name == name:
            return c
    known = ", ".join(f"'{c.name}'" for c in verdict.criteria)
    raise SrdashError(f"The verdict has no ranked criterion '{name}'. Ranked criteria: {known}; "
                      "or use criterion=None for the dataset score.")


def _hover_template(criteria: Sequence[Criterion], n_methods: int) -> str:
    """The words of a heatmap cell's hover, once per trace; the cell's own values are its customdata."""
    lines = ["<b>%{y}</b> on <b>%{x}</b>", "%{customdata[0]}",
             "dataset score: %{customdata[1]} (higher is better)"]
    for i, c in enumerate(criteria):
        label = plotly_text(c.label).replace("%{", "%\u200b{")  # a label is text, never a template variable
        lines.append(f"{label}: %{{customdata[{2 + 2 * i}]}}, "
                     f"rank %{{customdata[{3 + 2 * i}]}} of {n_methods}")
    return "<br>".join(lines) + "<extra></extra>"


def _hover_values(row: dict, criteria: Sequence[Criterion]) -> list[str]:
    """A heatmap cell's values for :func:`_hover_template`, formatted as displayed."""
    dnf = row["status"] == "DNF"
    values = ["DNF: no result on this dataset; ranked last on every criterion" if dnf else f"runs: {int(row['runs'])}",
              f"{row['dataset_score']:.3f}"]
    for c in criteria:
        values += [_format_value(float("nan") if dnf else row[c.name], c.decimals),
                   _format_rank(row[f"{c.name}_rank"])]
    return values


def hover_text(figure: go.Figure, trace: int, row: int, column: int) -> str:
    """The hover a visitor sees on one cell of a heatmap (its template filled with the cell's customdata).

    The rank heatmaps write the words of the hover once per trace
    (``hovertemplate``) and only the cell's values per cell (``customdata``),
    which keeps pages with thousands of cells small.

    Examples
    --------
    >>> fig = go.Figure(go.Heatmap(z=[[1]], x=["d"], y=["m"], customdata=[[["3", "0.5"]]],
    ...                            hovertemplate="%{y} on %{x}: %{customdata[0]} runs, %{customdata[1]}<extra></extra>"))
    >>> hover_text(fig, 0, 0, 0)
    'm on d: 3 runs, 0.5'
    """
    import re

    data = figure.data[trace]
    cell = data.customdata[row][column]
    values = {"x": data.x[column], "y": data.y[row]}

    def fill(match):
        name, index = match.group(1), match.group(2)
        if name == "customdata":
            return str(cell if index is None else cell[int(index)])
        return str(values[name])

    text = re.sub(r"%{(customdata|x|y)(?:\[(\d+)\])?}", fill, data.hovertemplate)
    return text.replace("<extra></extra>", "")


def rank_heatmap(verdict: Verdict, *, criterion: str | None = None) -> go.Figure:
    """Heatmap of methods x datasets: the dataset score, or one criterion's rank.

    Methods are in leaderboard order (best at the top), datasets alphabetical.
    Colour says how good a cell is (higher = better, yellow = best). Hovering a
    cell shows the aggregated raw value and rank of every criterion and the
    dataset score. Cells without any result (DNF) are grey and read "DNF"; they
    rank last on every criterion (see :func:`srdash.judging.ranking.judge`).

    Parameters
    ----------
    verdict : Verdict
    criterion : str, optional
        Name of a ranked criterion (``verdict.criteria``) to show its rank;
        default: the dataset score (weighted harmonic mean of the ranks).

    Returns
    -------
    plotly.graph_objects.Figure
        Two heatmap traces: the values (DNF cells empty; its hover covers
        every cell, see :func:`hover_text`) and the DNF cells.

    Raises
    ------
    SrdashError
        When ``criterion`` is not one of the verdict's ranked criteria.

    Examples
    --------
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8]})
    >>> from dataclasses import replace
    >>> rules = load_rules("srbench2022")
    >>> rules = replace(rules, criteria=(rules.criterion("accuracy"),))  # the table has accuracy only
    >>> fig = rank_heatmap(judge(t, rules), criterion="accuracy")
    >>> fig.data[0].z, fig.layout.title.text, fig.layout.title.subtitle.text
    (([2.0], [1.0]), 'Accuracy (test R²) rank per dataset', 'higher is better, 2\xa0=\xa0best')
    >>> from srdash.demo.examples import accuracy_rules
    >>> rank_heatmap(judge(t, accuracy_rules()), criterion="speed")
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The verdict has no ranked criterion 'speed'. Ranked criteria: 'accuracy'; or use criterion=None for the dataset score.
    """
    k = verdict.n_methods
    if criterion is None:
        column, what, how = "dataset_score", "Dataset score", "harmonic mean of the criteria ranks; "
    else:
        chosen = _criterion(verdict, criterion)
        column, what, how = f"{chosen.name}_rank", f"{plotly_text(chosen.label)} rank", ""
    per_dataset = verdict.per_dataset
    methods = list(verdict.leaderboard["method"])
    datasets = sorted(per_dataset["dataset"].unique())
    indexed = per_dataset.set_index(["method", "dataset"])
    cells = pd.MultiIndex.from_product([methods, datasets], names=["method", "dataset"])
    table = indexed.reindex(cells)
    shape = (len(methods), len(datasets))
    dnf = (table["status"] == "DNF").to_numpy().reshape(shape)
    values = table[column].to_numpy(dtype=float).reshape(shape)
    hover = [_hover_values(row, verdict.criteria) for row in table.reset_index().to_dict("records")]
    template = _hover_template(verdict.criteria, k)
    # One trace answers the hover of every cell (the DNF layer on top lets it through): each cell's values once.
    cell_hover = [hover[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]

    x = [plotly_text(d) for d in datasets]
    y = [plotly_text(m) for m in methods]
    lowest, best = rank_range(verdict.rules.rank_method, k)
    best_text = f"{best:g}\u00a0=\u00a0best"  # no-break spaces: never "6" and "= best" on two lines
    annotate = values.size <= _MAX_ANNOTATED_CELLS
    scores = go.Heatmap(
        z=np.round(np.where(dnf, np.nan, values), 6).tolist(),  # 6 decimals: far beyond what colour shows
        x=x,
        y=y,
        zmin=lowest,
        zmax=best,
        colorscale="Viridis",
        colorbar={"title": {"text": f"higher is better ({best_text})", "side": "right"}, "thickness": 14},
        customdata=cell_hover,
        hovertemplate=template,
        texttemplate="%{z:.2f}" if annotate else None,
        xgap=1,
        ygap=1,
        name=what,
    )
    dnf_cells = go.Heatmap(
        z=np.where(dnf, 1.0, np.nan).tolist(),
        x=x,
        y=y,
        colorscale=[[0.0, _DNF_COLOUR], [1.0, _DNF_COLOUR]],
        showscale=False,
        # labelled as the values are: on a 122-dataset heatmap the labels ran into each other ("DNFDNFDN");
        # there the grey says it (and the subtitle)
        text=np.where(dnf, "DNF", "").tolist() if annotate else None,
        texttemplate="%{text}" if annotate else None,
        textfont={"color": "#333333"},
        hoverinfo="skip",  # the values trace below answers the hover of DNF cells too
        xgap=1,
        ygap=1,
        name="DNF (no result)",
    )
    figure = go.Figure([scores, dnf_cells])
    title = title_layout(f"{what} per dataset", f"{how}higher is better, {best_text}"
                         + ("" if annotate or not dnf.any() else "; grey: DNF (no result)"))
    figure.update_layout(
        title=title,
        xaxis={"title": {"text": "dataset"}, "type": "category", "tickangle": -45 if len(datasets) > 6 else 0},
        yaxis={"title": {"text": "method (best first)"}, "type": "category", "autorange": "reversed"},
        height=int(220 + 32 * len(methods) + 6 * max((len(d) for d in datasets), default=0)),
        margin={"t": title_margin(title), "l": 10, "r": 10, "b": 10},
        plot_bgcolor="white",
    )
    figure.update_yaxes(automargin=True)
    figure.update_xaxes(automargin=True)
    return readable_heatmap(figure)


def _lower_median(values: np.ndarray) -> float:
    # The size of an actual model (the lower median), not the mean of two sizes.
    ordered = np.sort(values)
    return float(ordered[(len(ordered) - 1) // 2])


def _median_models(verdict_or_runs) -> pd.DataFrame:
    """method, components, simplicity, models, failed, how (text for the hover)."""
    if isinstance(verdict_or_runs, Verdict):
        per_dataset = verdict_or_runs.per_dataset
        if "simplicity" not in per_dataset.columns:
            raise SrdashError("The verdict has no simplicity criterion: the simplicity curve needs "
                              "a 'simplicity' column. Pass the prepared per-run table instead.")
        rows = []
        for method, group in per_dataset.groupby("method", sort=True):
            values = group.loc[group["status"] == "ok", "simplicity"].to_numpy(dtype=float)
            finite = values[np.isfinite(values)]
            median = _lower_median(finite) if len(finite) else np.nan
            rows.append({"method": method, "simplicity": median, "components": 5.0 ** -median,
                         "models": len(finite), "failed": len(values) - len(finite),
                         "how": "median over datasets of the per-dataset simplicity; size ≈ 5^-simplicity"})
        return pd.DataFrame(rows)
    if isinstance(verdict_or_runs, pd.DataFrame):
        missing = [c for c in ("method", "components") if c not in verdict_or_runs.columns]
        if missing:
            raise SrdashError(
                f"The simplicity curve needs a per-run table with columns 'method' and 'components'; "
                f"missing: {', '.join(repr(c) for c in missing)}. "
                f"The table has: {', '.join(map(repr, verdict_or_runs.columns))}.")
        rows = []
        for method, group in verdict_or_runs.groupby("method", sort=True):
            sizes = pd.to_numeric(group["components"], errors="coerce").to_numpy(dtype=float)
            valid = sizes[np.isfinite(sizes) & (sizes >= 1)]
            median = _lower_median(valid) if len(valid) else np.nan
            rows.append({"method": method, "components": median,
                         "simplicity": float(simplicity_score(median)) if len(valid) else np.nan,
                         "models": len(valid), "failed": len(sizes) - len(valid),
                         "how": "median size over all runs and datasets"})
        return pd.DataFrame(rows)
    raise SrdashError(
        "simplicity_curve() takes a Verdict or a prepared per-run table (a DataFrame with columns "
        f"'method' and 'components'). Got {type(verdict_or_runs).__name__}.")


def _components_text(n: float) -> str:
    """``'1 component'``, ``'2 components'``, ``'4.5 components'`` (a median between two sizes)."""
    text = f"{float(n):.3g}"
    return f"{text} component" + ("" if text == "1" else "s")


# Simplicity markers: their size (px), and how far apart two must be, in fractions of the axes of a phone-wide
# plot (about 300 x 300 px), so that neither hides the other.
_MARKER_SIZE = 13
_MARKER_STEP = 0.12   # simplicity units: the y axis spans about 3 of them over 300 px, so 12 px


def marker_offsets(x, y, *, x_span: float, y_step: float = _MARKER_STEP, x_clear: float = 0.05) -> np.ndarray:
    """Vertical offsets that keep markers on a log-x axis from hiding each other.

    Markers at the same ``y`` whose ``log10(x)`` lie within ``x_clear * x_span`` of the
    previous one (in order of ``x``, then of input) form a cluster; its k-th member
    (0-based) moves by 0, +step, -step, +2 step, ... Deterministic: the same input,
    the same offsets.

    Examples
    --------
    >>> marker_offsets([9, 9, 10, 50], [-1.4, -1.4, -1.4, -2.4], x_span=2)
    array([ 0.  ,  0.12, -0.12,  0.  ])
    """
    x = np.log10(np.asarray(x, dtype=float))
    y = np.asarray(y, dtype=float)
    offsets = np.zeros(len(x))
    order = sorted(range(len(x)), key=lambda i: (y[i], x[i], i))
    member, previous = 0, None
    for i in order:
        same = previous is not None and y[i] == y[previous] and x[i] - x[previous] <= x_clear * x_span
        member = member + 1 if same else 0
        offsets[i] = ((member + 1) // 2) * y_step * (1 if member % 2 else -1) if member else 0.0
        previous = i
    return offsets


def simplicity_curve(verdict_or_runs, *, max_components: int = 100) -> go.Figure:
    """The simplicity score over model size, with each method's median model on it.

    The line is SRBench 2022's step function ``round(-log5(s), 1)`` of the
    number of components ``s`` (see :func:`simplicity_score`), for ``s`` from 1
    to ``max_components`` (further if a median model is larger). Each method is
    one marker at its median model: from a prepared per-run table, the (lower)
    median number of components over all its runs with a valid model; from a
    verdict, the median of its per-dataset simplicity (the size is then
    ``5 ** -simplicity``, approximately). Models that failed are not placed but
    are counted in the hover.

    Parameters
    ----------
    verdict_or_runs : Verdict or DataFrame
        A verdict, or a per-run table with ``method`` and ``components``
        (the output of :func:`srdash.judging.pipeline.prepare_runs`).
    max_components : int
        Largest model size drawn (at least 2).

    Returns
    -------
    plotly.graph_objects.Figure
        A line trace ('simplicity score') and one marker trace per method.

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a", "a", "a", "b"], "components": [3, 9, 40, np.nan]})
    >>> fig = simplicity_curve(runs, max_components=50)
    >>> fig.data[1].x, fig.data[1].y  # median size of a: 9 -> round(-log5(9), 1)
    ((9.0,), (-1.4,))
    >>> len(fig.data)  # b has no valid model: it is not placed
    2
    >>> simplicity_curve(runs, max_components=1)
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The 'max_components' option must be an integer >= 2. Got 1.
    """
    if isinstance(max_components, bool) or not isinstance(max_components, (int, np.integer)) or max_components < 2:
        raise SrdashError(f"The 'max_components' option must be an integer >= 2. Got {max_components!r}.")
    medians = _median_models(verdict_or_runs)
    placed = medians[np.isfinite(medians["components"].to_numpy(dtype=float))] if len(medians) else medians
    largest = int(max([max_components, *np.ceil(placed["components"]).tolist()])) if len(placed) else max_components
    sizes = np.arange(1, largest + 1)
    scores = simplicity_score(sizes)
    # The step line only needs its steps: where the score changes, and the last size (same drawing).
    steps = np.flatnonzero(np.r_[True, scores[1:] != scores[:-1]])
    steps = np.unique(np.r_[steps, len(sizes) - 1])
    figure = go.Figure()
    figure.add_trace(go.Scatter(
        x=sizes[steps], y=scores[steps], mode="lines", line={"shape": "hv", "color": "#555555"},
        name="simplicity score", customdata=[_components_text(n) for n in sizes[steps]],
        hovertemplate="%{customdata}: simplicity %{y:.1f}<extra></extra>",
    ))
    offsets = marker_offsets(placed["components"].to_numpy(dtype=float), placed["simplicity"].to_numpy(dtype=float),
                             x_span=math.log10(largest * 1.15) - math.log10(0.9))
    for i, (row, offset) in enumerate(zip(placed.to_dict("records"), offsets)):
        failed = f"<br>{row['failed']} run(s) without a valid model, not counted" if row["failed"] else ""
        colour, symbol, _ = method_style(i)
        moved = f"<br>(drawn {abs(offset):.2f} {'above' if offset > 0 else 'below'} its place, beside another)" \
            if offset else ""
        figure.add_trace(go.Scatter(
            x=[row["components"]], y=[row["simplicity"] + offset], mode="markers",
            marker={"size": _MARKER_SIZE, "symbol": symbol, "color": colour, "line": {"width": 1, "color": "white"}},
            name=plotly_text(row["method"]), customdata=[row["simplicity"]],
            hovertemplate=(f"<b>{plotly_text(row['method'])}</b><br>median model: "
                           f"{_components_text(row['components'])}, "
                           f"simplicity %{{customdata:.1f}}<br>{row['models']} model(s); {row['how']}{failed}{moved}"
                           "<extra></extra>"),
        ))
    title = title_layout("Simplicity of each method's median model", "simplicity score: higher is simpler")
    figure.update_layout(
        title=title,
        xaxis={"title": {"text": "components (log scale)"}, "type": "log",
               "range": [math.log10(0.9), math.log10(largest * 1.15)],
               "tickvals": [t for t in _LOG_TICKS if t <= largest * 1.15]},
        yaxis={"title": {"text": "simplicity = round(−log₅ components, 1)"}},
        height=420 + 22 * ((len(placed) + 2) // 3),   # the legend under the plot, about three names a line
        margin={"t": title_margin(title), "l": 10, "r": 10, "b": 10},
        legend=legend_below(title="median model of"),
        plot_bgcolor="white",
    )
    figure.update_xaxes(automargin=True, gridcolor="#eeeeee")
    figure.update_yaxes(automargin=True, gridcolor="#eeeeee")
    return figure


# --------------------------------------------------------------------------- tables

_TABLE_STYLE = """<style>
.srdash-table {border-collapse: collapse; font-size: 13px; margin: 4px 0;}
.srdash-table th, .srdash-table td {padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: left;
  line-height: 1.35; vertical-align: top;}
.srdash-table th {background: #f3f3f3;}
.srdash-table td.num, .srdash-table th.num {text-align: right; font-variant-numeric: tabular-nums;}
.srdash-table code {white-space: pre-wrap; word-break: break-all;}
.srdash-note {color: #555; font-size: 12px; line-height: 1.4; margin: 2px 0 6px 0;}
</style>"""


def leaderboard_html(verdict: Verdict, *, decimals: int = 3, explain: bool = True,
                     shown: "ShownLeaderboard | None" = None) -> str:
    """The leaderboard as an HTML table (all text escaped).

    Columns: place (1 = best), method, score (mean of the dataset scores) and
    the mean rank per criterion, then the number of datasets and of DNF cells.
    A note under the table says how to read the ranks.

    Parameters
    ----------
    verdict : Verdict
    decimals : int
        Decimals shown for the score and the mean ranks.
    explain : bool
        The whole note under the table (how the score is made). Without it,
        only which end of the ranks is best: the dashboard says the rest under
        "How is this scored?" (:func:`scoring_html`).
    shown : ShownLeaderboard, optional
        :func:`srdash.analysis.board.shown_leaderboard` of the result: its verdict's table is shown
        with the place interval, the tie with the winner and the failures by type of each method, and
        its sentence (first place resolved or not, the view) stands under the table. Every door
        passes it, so every leaderboard says whether first place is resolved.

    Examples
    --------
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["<b>a</b>", "b"], "dataset": "d", "r2_test": [0.9, 0.8]})
    >>> from srdash.demo.examples import accuracy_rules
    >>> page = leaderboard_html(judge(t, accuracy_rules()))
    >>> "&lt;b&gt;a&lt;/b&gt;" in page and "<b>a</b>" not in page
    True
    >>> "ranks: higher is better, 2 = best" in page
    True
    """
    if shown is not None:
        verdict = shown.verdict
    board = verdict.leaderboard if shown is None else shown.table
    header = [Cell("Place", "num"), Cell("Method"), Cell("Score", "num")]
    header += [Cell(Markup("{}<br><small>mean rank</small>").format(c.label), "num") for c in verdict.criteria]
    header += [Cell("Datasets", "num"), Cell("DNF", "num")]
    resolved = shown is not None and shown.resolution is not None
    if resolved:
        share = f"{shown.resolution.confidence * 100:g} %"
        header += [Cell(Markup("Places<br><small>in &ge; {} of draws</small>").format(share), "srdash-places"),
                   Cell(Markup("Tied with<br><small>the winner</small>"), "srdash-tied")]
    if shown is not None:
        header += [Cell(Markup("Timed<br><small>out</small>"), "num"),
                   Cell(Markup("Did not<br><small>parse</small>"), "num"),
                   Cell(Markup("Non-<br><small>finite</small>"), "num"), Cell("Missing", "num"),
                   Cell("Imputed", "srdash-imputed")]
    rows = []
    for row in board.to_dict("records"):
        cells = [Cell(int(row["place"]), "num srdash-place"), Cell(row["method"], "srdash-method"),
                 Cell(f"{row['score']:.{decimals}f}", "num srdash-score")]
        cells += [Cell(f"{row[f'{c.name}_rank']:.{decimals}f}", "num") for c in verdict.criteria]
        # datasets with a result; the DNF cells are counted on their own
        cells += [Cell(int(row["datasets"]), "num"), Cell(int(row["dnf"]), "num")]
        if resolved:
            cells += [Cell(row["places"], "srdash-places"), Cell(row["tied_with_winner"], "srdash-tied")]
        if shown is not None:
            cells += [Cell(int(row[c]), "num") for c in ("timed_out", "did_not_parse", "non_finite", "missing")]
            cells += [Cell(row["imputed"], "srdash-imputed")]
        rows.append(cells)
    note = _score_note(verdict) if explain else (
        f"Place 1 = best. Mean ranks: higher is better, {verdict.n_methods} = best, 1 = worst.")
    resolution = ("" if shown is None
                  else f"<div class='srdash-note srdash-resolution'>{html_text(shown.sentence)}</div>")
    # a table wider than the screen scrolls sideways inside its own box (assets/srdash.css: scroll cue)
    return (_TABLE_STYLE + "<div class='srdash-scroll'>"
            + table_html(header, rows, css="srdash-table srdash-leaderboard") + "</div>"
            + resolution + f"<div class='srdash-note'>{note}</div>")


def _score_note(verdict: Verdict) -> str:
    rules = verdict.rules
    return (f"ranks: higher is better, {verdict.n_methods} = best, 1 = worst "
            f"({verdict.n_methods} methods). Score (higher is better) = mean over datasets of the "
            f"{'weighted ' if len(set(c.weight for c in verdict.criteria)) > 1 else ''}harmonic mean of the "
            f"criteria ranks. Rules: {html_text(rules.name)}; runs combined with the {html_text(rules.run_aggregation)}; "
            f"ties: {html_text(rules.rank_method)}. Datasets = datasets with a result; DNF = datasets without any "
            "result (ranked last there).")


def scoring_html(verdict: Verdict) -> str:
    """ "How is this scored?": a closed disclosure with the rules' description and the criteria that have data.

    Examples
    --------
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> from srdash.demo.examples import accuracy_rules
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8]})
    >>> page = scoring_html(judge(t, accuracy_rules()))
    >>> page.startswith("<details class='srdash-scoring'><summary>How is this scored?</summary>")
    True
    >>> "accuracy" in page and "higher is better" in page
    True
    """
    rules = verdict.rules
    criteria = "".join(
        f"<li><b>{html_text(c.label)}</b> (<code>{html_text(c.column)}</code>): {html_text(c.direction)} is better"
        + (f"; weight {c.weight:g}" if len(set(x.weight for x in verdict.criteria)) > 1 else "")
        + (f". {html_text(' '.join(c.description.split()))}" if getattr(c, "description", "") else "")
        + "</li>" for c in verdict.criteria)
    description = html_text(" ".join((rules.description or "").split()))
    return ("<details class='srdash-scoring'><summary>How is this scored?</summary>"
            + (f"<p class='srdash-note'>{description}</p>" if description else "")
            + f"<div class='srdash-note'>Criteria with data:</div><ul class='srdash-note'>{criteria}</ul>"
            + f"<p class='srdash-note'>{_score_note(verdict)[0].upper() + _score_note(verdict)[1:]}</p>"
            + "</details>")


def warnings_html(verdict: Verdict) -> str:
    """The verdict's warnings as an HTML list ('' when there are none).

    Examples
    --------
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8]})
    >>> from srdash.judging.rules import parse_rules
    >>> rules = parse_rules('[[criteria]]\\nname = "accuracy"\\ncolumn = "r2_test"\\n'
    ...                     '[[criteria]]\\nname = "property"\\ncolumn = "property"\\noptional = true')
    >>> "Criterion &#x27;property&#x27; has no data" in warnings_html(judge(t, rules))
    True
    """
    if not verdict.warnings:
        return ""
    items = "".join(f"<li>{html_text(w)}</li>" for w in verdict.warnings)
    return (f"<div class='srdash-warnings' style='background:#fff8e1;border-left:4px solid #f0ad00;"
            f"padding:4px 10px;margin:4px 0'><b>Warnings</b><ul style='margin:2px 0'>{items}</ul></div>")


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def problems_html(verdict: Verdict, *, runs: pd.DataFrame | None = None, max_rows: int = 200,
                  model_chars: int = 160) -> str:
    """The verdict's problems (rejected models, parse errors, timeouts, missing values, DNF) as HTML.

    A summary line counts the problems by kind; the table lists them, the
    most serious kinds first, up to ``max_rows`` rows. Model strings are shown
    as escaped text, never evaluated.

    Parameters
    ----------
    verdict : Verdict
    runs : DataFrame, optional
        The prepared per-run table; when given, the model string of each run
        is shown beside its problem.
    max_rows : int
        Rows listed at most (the summary counts them all).
    model_chars : int
        Model strings longer than this are shortened with "…".

    Examples
    --------
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a", "b", "a"], "dataset": ["d", "d", "e"], "run": 0,
    ...                   "r2_test": [0.9, None, 0.5], "model": ["x", "x", "__import__('os')"],
    ...                   "status": ["ok", "ok", "rejected"], "reason": ["", "", "calls __import__"]})
    >>> from srdash.demo.examples import accuracy_rules
    >>> page = problems_html(judge(t, accuracy_rules()), runs=t)
    >>> "1 rejected" in page and "__import__(&#x27;os&#x27;)" in page
    True
    """
    problems = verdict.problems
    if problems.empty:
        return "<div class='srdash-note srdash-problems'>No problems: every run has a valid model and values.</div>"
    order = {kind: i for i, kind in enumerate(_PROBLEM_ORDER)}
    problems = problems.assign(_order=problems["kind"].map(order).fillna(len(order)))
    problems = problems.sort_values(["_order", "dataset", "method"], kind="stable")
    counts = problems.groupby("kind", sort=False).size()
    summary = ", ".join(f"{n} {html_text(kind)}" for kind, n in counts.items())
    models = {}
    if runs is not None and "model" in runs.columns:
        run_column = runs["run"] if "run" in runs.columns else pd.Series(0, index=runs.index)
        models = {(m, d, r): model for m, d, r, model in zip(runs["method"], runs["dataset"], run_column,
                                                           runs["model"])}
    with_models = bool(models)
    header = "<th>Kind</th><th>Method</th><th>Dataset</th><th class='num'>Run</th><th>Detail</th>"
    header += "<th>Model (as submitted, not evaluated)</th>" if with_models else ""
    rows = []
    for row in problems.head(max_rows).to_dict("records"):
        run = row["run"]
        has_run = run is not None and not (isinstance(run, float) and math.isnan(run))
        cells = (f"<td>{html_text(row['kind'])}</td><td>{html_text(row['method'])}</td><td>{html_text(row['dataset'])}</td>"
                 f"<td class='num'>{html_text(int(run)) if has_run else ''}</td><td>{html_text(row['detail'])}</td>")
        if with_models:
            model = models.get((row["method"], row["dataset"], run)) if has_run else None
            shown = "" if model is None or (isinstance(model, float) and math.isnan(model)) else str(model)
            cells += f"<td><code>{html_text(_shorten(shown, model_chars))}</code></td>"
        rows.append(f"<tr class='srdash-problem'>{cells}</tr>")
    more = len(problems) - min(len(problems), max_rows)
    tail = f"<div class='srdash-note'>… and {more} more (use `srdash score --problems FILE`).</div>" if more else ""
    return (f"{_TABLE_STYLE}<div class='srdash-problems'><div class='srdash-note'><b>{len(problems)} problem(s)</b>: "
            f"{summary}. Failed or missing values count as the worst value; DNF cells rank last.</div>"
            f"<table class='srdash-table srdash-problems-table'><thead><tr>{header}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
            f"{tail}</div>")


def rules_comparison_html(table: pd.DataFrame) -> str:
    """The places under several rules side by side (from :func:`srdash.judging.ranking.compare_verdicts`).

    Rows whose place differs between the rules are highlighted; all text is escaped.

    Examples
    --------
    >>> t = pd.DataFrame({"method": ["<i>a</i>", "b"], "place:r1": [1, 2], "score:r1": [2.0, 1.0],
    ...                   "place:r2": [2, 1], "score:r2": [1.0, 2.0], "differs": [True, True]})
    >>> page = rules_comparison_html(t)
    >>> "&lt;i&gt;a&lt;/i&gt;" in page and page.count("srdash-differs") == 2
    True
    """
    names = [c.split(":", 1)[1] for c in table.columns if c.startswith("place:")]
    header = "<th>Method</th>" + "".join(f"<th class='num'>{html_text(n)}<br><small>place (score)</small></th>"
                                         for n in names)
    rows = []
    for row in table.to_dict("records"):
        cells = [f"<td>{html_text(row['method'])}</td>"]
        for n in names:
            place, score = row[f"place:{n}"], row[f"score:{n}"]
            shown = "–" if pd.isna(place) else f"{int(place)} ({score:.3f})"
            cells.append(f"<td class='num'>{shown}</td>")
        style = " class='srdash-differs' style='background:#fff3cd'" if row["differs"] else ""
        rows.append(f"<tr{style}>{''.join(cells)}</tr>")
    changed = int(table["differs"].sum())
    note = (f"{changed} method(s) change place between these rules (highlighted)." if changed
            else "Every method has the same place under these rules.")
    return (f"<table class='srdash-table'><thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<div class='srdash-note'>{html_text(note)}</div>")
