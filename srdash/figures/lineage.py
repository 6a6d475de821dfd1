"""Figures of the SRBench-lineage analyses: pure functions, no widgets.

Each builder takes a result of :mod:`srdash.analysis.fronts`, :mod:`~srdash.analysis.profiles`,
:mod:`~srdash.analysis.pairwise` or :mod:`~srdash.analysis.recovery` first, keyword-only
options after, and returns a new ``plotly.graph_objects.Figure``; the dashboard and the
report use the same functions. Method names are untrusted and escaped wherever plotly
renders HTML (legends, hover text, tick labels).

Examples
--------
>>> import pandas as pd
>>> from srdash.analysis.fronts import pareto_fronts
>>> t = pd.DataFrame({"method": ["a", "<b>", "a", "<b>"], "dataset": ["d1", "d1", "d2", "d2"],
...                   "r2_test": [0.9, 0.5, 0.8, 0.6], "model_size": [20, 5, 30, 5]})
>>> fig = pareto_figure(pareto_fronts(t, n_bootstrap=20))
>>> fig.layout.title.text, fig.layout.title.subtitle.text
('Pareto fronts', 'median accuracy vs median size (value space)')
>>> sorted(trace.name for trace in fig.data if trace.mode == "markers+text")
['&lt;b&gt;', 'a']
"""

from __future__ import annotations


import numpy as np
import plotly.graph_objects as go

from srdash.analysis.significance import significance
from srdash.figures.glance import readable_heatmap
from srdash.figures.escape import html_text
from srdash.figures.integrity import critical_difference_figure
from srdash.figures.styles import legend_below, method_style
from srdash.figures.titles import title_layout, title_margin
from srdash.analysis.fronts import ParetoFronts, pareto_fronts
from srdash.analysis.pairwise import PairwiseTests, wilcoxon_holm
from srdash.analysis.profiles import PerformanceProfiles, performance_profiles
from srdash.analysis.recovery import SolutionRates
from srdash.analysis.resources import TIME_COLUMN, TrainingTimes, training_times

__all__ = ["pareto_figure", "label_positions", "interval_bounds", "INTERVAL_REACH", "profiles_figure", "auc_heatmap", "pairwise_heatmap",
           "solution_rates_figure", "training_time_figure",
           "srbench_views"]

_FRONT_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def _escaped(name) -> str:
    return html_text(str(name))


# Label boxes in plot fractions, for a phone-wide plot (11 px text): a character's width, a line's height, the
# distance from a marker's centre to a label above or beside it, and to one below it (plotly sets it closer);
# measured on a phone-wide plot (docs/decisions/2026-11-pareto-label-geometry.md).
#: A label character's width and a label line's height, in plot fractions.
CHAR_WIDTH, LINE_HEIGHT = 0.027, 0.04
_GAP, _GAP_BELOW = 0.028, 0.010
# Where a label may sit around its point (plotly's textposition), tried in this order.
_POSITIONS = ("top center", "bottom center", "middle right", "middle left", "top right", "top left",
              "bottom right", "bottom left")


def label_box(position: str, x: float, y: float, width: float) -> tuple[float, float, float, float]:
    """The box a label takes around its point, as :func:`label_positions` reckons it.

    Parameters
    ----------
    position : str
        Plotly's textposition, e.g. ``"top center"``.
    x, y : float
        The point, in plot fractions (0 to 1).
    width : float
        The label's width in plot fractions (:data:`CHAR_WIDTH` per character).

    Returns
    -------
    tuple of float
        (left, bottom, right, top), in plot fractions; :data:`LINE_HEIGHT` high.

    Examples
    --------
    >>> [round(v, 3) for v in label_box("top center", 0.5, 0.5, 0.1)]
    [0.45, 0.528, 0.55, 0.568]
    """
    vertical, horizontal = position.split()
    bottom = {"top": y + _GAP, "bottom": y - _GAP_BELOW - LINE_HEIGHT, "middle": y - LINE_HEIGHT / 2}[vertical]
    left = {"center": x - width / 2, "right": x + _GAP, "left": x - _GAP - width}[horizontal]
    return left, bottom, left + width, bottom + LINE_HEIGHT


def labels_clash(a, b) -> bool:
    """Whether two label boxes overlap by more than a tenth of a line (the boxes' slack: 14 px for 12 px text).

    Parameters
    ----------
    a, b : tuple of float
        Boxes from :func:`label_box`.

    Returns
    -------
    bool
        True when they overlap in width and by more than ``0.1 * LINE_HEIGHT`` in height.

    Examples
    --------
    >>> labels_clash(label_box("top center", 0.5, 0.5, 0.1), label_box("top center", 0.52, 0.5, 0.1))
    True
    >>> labels_clash(label_box("top center", 0.5, 0.5, 0.1), label_box("bottom center", 0.5, 0.5, 0.1))
    False
    """
    return (min(a[2], b[2]) - max(a[0], b[0]) > 0) and (min(a[3], b[3]) - max(a[1], b[1]) > 0.1 * LINE_HEIGHT)


def _overlap(a, b) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def label_positions(x, y, names, *, log_x: bool = False, reversed_y: bool = False, x_extent=(),
                    y_extent=()) -> list[str | None]:
    """A textposition for each point's name so that labels keep clear of each other and of the points.

    A greedy repel: each label in turn takes the first of eight places around its
    point that overlaps no label placed before, no point and stays inside the plot;
    failing that, of the places clear of every label, the one that overlaps the points and
    the plot's edge least; with none clear, None: that label is left out (thinned). The axes span the points and
    ``x_extent``, ``y_extent`` (say, the ends of their error bars), as plotly's do.

    Examples
    --------
    >>> label_positions([1, 1.01, 5], [0.5, 0.5, 0.9], ["a", "b", "c"])  # b beside a; c left of its point
    ['top center', 'middle right', 'middle left']
    """
    def scaled(values, log, extent):
        values = np.asarray(values, dtype=float)
        extent = np.asarray(extent, dtype=float)
        if log:
            values = np.log10(np.where(values > 0, values, np.nan))
            extent = np.log10(np.where(extent > 0, extent, np.nan))
        both = np.concatenate([values, extent])
        finite = both[np.isfinite(both)]
        low, high = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
        span = high - low if high > low else 1.0
        # plotly pads the axis range: about 5 % on either side
        return np.nan_to_num(0.05 + 0.9 * (values - low) / span, nan=0.5)

    xs, ys = scaled(x, log_x, x_extent), scaled(y, False, y_extent)
    if reversed_y:
        ys = 1 - ys
    points = [(px - 0.01, py - 0.015, px + 0.01, py + 0.015) for px, py in zip(xs, ys)]
    placed, positions = [], []
    for px, py, name in zip(xs, ys, names):
        width = CHAR_WIDTH * max(1, len(str(name)))
        best, best_cost = None, np.inf
        for position in _POSITIONS:
            box = label_box(position, px, py, width)
            if any(labels_clash(box, other) for other in placed):
                continue                  # never over another label: thinned rather than overlapping
            outside = max(0.0, -box[0]) + max(0.0, box[2] - 1) + max(0.0, -box[1]) + max(0.0, box[3] - 1)
            # a label past the plot's edge runs into the tick labels: worse than most overlaps
            cost = sum(_overlap(box, other) for other in points) + outside * LINE_HEIGHT * 4
            if cost < best_cost - 1e-12:
                best, best_cost = position, cost
            if cost == 0:
                break
        if best is not None:
            placed.append(label_box(best, px, py, width))
        positions.append(best)
    return positions


# An interval may reach this many times the points' spread beyond the outermost point before it is clipped, so
# the points keep at least a fifth of the axis: one size interval reaching 245 squeezed every point into the
# left 15 % of the plot.
INTERVAL_REACH = 2.0


def interval_bounds(values, lows, highs, *, log: bool = False, reach: float = INTERVAL_REACH) -> tuple[float, float]:
    """The ends (low, high) of an axis that shows every point and clips intervals reaching far beyond them.

    The axis spans the points and their intervals, but no further than ``reach`` times the points'
    spread (in log10 on a log axis) beyond the outermost point on either side. The spread counts as
    at least a quarter of the largest point's magnitude, so that close points keep their intervals.

    Examples
    --------
    >>> interval_bounds([10, 12, 20], [8, 9, 15], [14, 16, 245])  # spread 10: up to 20 + 2 * 10
    (8.0, 40.0)
    >>> interval_bounds([10, 100], [5, 50], [20, 2450], log=True)  # one decade: up to 10 ** (2 + 2)
    (5.0, 2450.0)
    """
    def finite(v):
        v = np.asarray(v, dtype=float)
        return v[np.isfinite(v) & (v > 0)] if log else v[np.isfinite(v)]

    points, low, high = finite(values), finite(lows), finite(highs)
    if not points.size:
        return (np.nan, np.nan)
    forward, back = (np.log10, lambda v: float(10 ** v)) if log else (float, float)
    first, last = forward(points.min()), forward(points.max())
    spread = max(last - first, 0.25 * max(abs(first), abs(last))) or 1.0
    # compared in data units, so that an end within reach is returned exactly
    lowest = max(float(min(points.min(), low.min() if low.size else np.inf)), back(first - reach * spread))
    highest = min(float(max(points.max(), high.max() if high.size else -np.inf)), back(last + reach * spread))
    return lowest, highest


def pareto_figure(fronts: ParetoFronts, *, log_size: bool | None = None) -> go.Figure:
    """Methods by median accuracy (y) and median size (x), with intervals; fronts joined by lines.

    Parameters
    ----------
    fronts : ParetoFronts
    log_size : bool, optional, keyword-only
        Logarithmic size axis (default: in value space when sizes span more than two decades).

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per method (coloured by front, error bars = bootstrap interval), named
        beside its point (labels kept apart by :func:`label_positions`; a point whose label has no room is
        named in the legend instead), and one line per front
        (front 1 = non-dominated, drawn thickest). An interval reaching further than
        :data:`INTERVAL_REACH` times the points' spread beyond the outermost point is cut at the axis'
        edge (:func:`interval_bounds`), marked there by a triangle whose hover gives its true end.
    """
    table = fronts.table
    y_name, x_name = fronts.names
    x = table[x_name].to_numpy(dtype=float)
    if log_size is None:
        positive = x[np.isfinite(x) & (x > 0)]
        log_size = fronts.space == "value" and positive.size > 0 and positive.max() / positive.min() > 100
    ranked = fronts.space == "rank"
    figure = go.Figure()
    for number in sorted(table["front"].unique()):
        members = table[table["front"] == number].sort_values(x_name)
        colour = _FRONT_COLOURS[(int(number) - 1) % len(_FRONT_COLOURS)]
        figure.add_trace(go.Scatter(x=members[x_name], y=members[y_name], mode="lines", hoverinfo="skip",
                                    line=dict(color=colour, width=3 if number == 1 else 1, dash=None if number == 1
                                              else "dot"),
                                    name=f"front {int(number)}", legendgroup=f"front {int(number)}"))
    # intervals reaching far beyond the points end at the axis' edge, with a mark, the true end on hover
    x_bounds = interval_bounds(table[x_name], table[f"{x_name}_low"], table[f"{x_name}_high"], log=bool(log_size))
    y_bounds = (np.nan, np.nan) if ranked else interval_bounds(table[y_name], table[f"{y_name}_low"],
                                                               table[f"{y_name}_high"])
    clipped = {}
    for name, bounds in ((x_name, x_bounds), (y_name, y_bounds)):
        low, high = table[f"{name}_low"].to_numpy(dtype=float), table[f"{name}_high"].to_numpy(dtype=float)
        if np.isfinite(bounds[0]):
            low, high = np.maximum(low, bounds[0]), np.minimum(high, bounds[1])
        clipped[name] = (low, high)
    positions = label_positions(table[x_name], table[y_name], table["method"], log_x=bool(log_size),
                                reversed_y=ranked, x_extent=np.r_[clipped[x_name]], y_extent=np.r_[clipped[y_name]])
    cut_x, cut_y, cut_symbol, cut_text = [], [], [], []
    for i, (row, position) in enumerate(zip(table.itertuples(index=False), positions)):
        values = row._asdict()
        number = int(values["front"])
        colour = _FRONT_COLOURS[(number - 1) % len(_FRONT_COLOURS)]
        name = _escaped(values["method"])
        bars = {}
        for axis, column in (("x", x_name), ("y", y_name)):
            low, high = clipped[column][0][i], clipped[column][1][i]
            bars[axis] = dict(type="data", symmetric=False, array=[high - values[column]],
                              arrayminus=[values[column] - low], thickness=1, width=0)
            for end, shown, symbol in (("low", low, "left" if axis == "x" else "down"),
                                       ("high", high, "right" if axis == "x" else "up")):
                true = values[f"{column}_{end}"]
                if np.isfinite(true) and true != shown:
                    cut_x.append(shown if axis == "x" else values[x_name])
                    cut_y.append(shown if axis == "y" else values[y_name])
                    cut_symbol.append(f"triangle-{symbol}")
                    cut_text.append(f"{name}: interval of {column} cut here; it reaches {true:.4g}")
        interval = (f"<br>{y_name} interval: [{values[f'{y_name}_low']:.4g}, {values[f'{y_name}_high']:.4g}]"
                    f"<br>{x_name} interval: [{values[f'{x_name}_low']:.4g}, {values[f'{x_name}_high']:.4g}]")
        figure.add_trace(go.Scatter(
            # a label with no room clear of the others is left out; the legend names that point instead
            x=[values[x_name]], y=[values[y_name]], mode="markers+text", name=name, showlegend=position is None,
            text=[name if position else ""], textposition=position or "top center",
            textfont={"size": 11, "color": "#333"}, cliponaxis=False,
            marker=dict(color=colour, size=11 if number == 1 else 8, line=dict(color="white", width=1)),
            error_x=bars["x"], error_y=bars["y"],
            hovertemplate=(f"<b>{name}</b><br>front {number}<br>{y_name}: %{{y:.4g}}<br>{x_name}: %{{x:.4g}}"
                           f"{interval}<extra></extra>")))
    if cut_x:
        figure.add_trace(go.Scatter(x=cut_x, y=cut_y, mode="markers", name="interval cut at the axis' edge",
                                    marker=dict(symbol=cut_symbol, size=9, color="#555"), text=cut_text,
                                    hovertemplate="%{text}<extra></extra>", cliponaxis=False))
    title = title_layout("Pareto fronts", f"median {y_name} vs median {x_name} ({fronts.space} space)")
    figure.update_layout(
        # narrow side margins (plotly's default 80 px each left a phone's plot 150 px wide); the axes make room
        title=title, margin={"t": title_margin(title), "l": 10, "r": 20, "b": 10},
        xaxis_title=f"median {x_name} rank (1 = best)" if ranked else f"median {x_name} ({fronts.columns[1]})",
        yaxis_title=f"median {y_name} rank (1 = best)" if ranked else f"median {y_name} ({fronts.columns[0]})",
        legend=legend_below(), template="plotly_white", height=540)
    figure.update_xaxes(automargin=True)
    figure.update_yaxes(automargin=True)
    if log_size:
        figure.update_xaxes(type="log")
    for axis, bounds, log in ((figure.layout.xaxis, x_bounds, bool(log_size)), (figure.layout.yaxis, y_bounds, False)):
        if np.isfinite(bounds[0]) and cut_x:
            ends = np.log10(bounds) if log else np.asarray(bounds)
            pad = 0.05 * (ends[1] - ends[0] or 1.0)
            axis.range = [ends[0] - pad, ends[1] + pad]
    if ranked:  # best in the top-left corner, as in SRBench's rank plots
        figure.update_yaxes(autorange="reversed")
    return figure


def profiles_figure(profiles: PerformanceProfiles) -> go.Figure:
    """Performance profile curves, one per method, AUC in the legend (best first).

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.profiles import performance_profiles
    >>> p = performance_profiles(pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.4]}))
    >>> [trace.name for trace in profiles_figure(p).data]
    ['a (AUC 0.900)', 'b (AUC 0.400)']
    """
    figure = go.Figure()
    for i, row in enumerate(profiles.auc.itertuples(index=False)):
        curve = profiles.curves[profiles.curves["method"] == row.method]
        name = _escaped(row.method)
        colour, _, dash = method_style(i)
        figure.add_trace(go.Scatter(x=curve["threshold"], y=curve["share"], mode="lines", line_shape="hv",
                                    line={"color": colour, "dash": dash},
                                    name=f"{name} (AUC {row.auc:.3f})",
                                    hovertemplate=f"<b>{name}</b><br>threshold %{{x:.3g}}: %{{y:.1%}}<extra></extra>"))
    reach = "at least" if profiles.direction == "higher" else "at most"
    figure.update_layout(title=f"Performance profiles ({profiles.value})",
                         xaxis_title=f"threshold on {profiles.value}",
                         yaxis_title=f"share of (dataset, run) pairs {reach} the threshold",
                         # no "0%" tick: on a phone it runs into the threshold axis's first tick
                         yaxis=dict(range=[0, 1.02], tickformat=".0%", tickvals=[0.25, 0.5, 0.75, 1.0]),
                         # under the plot: at its right a legend of long names covered half of a phone's plot
                         legend=legend_below(), template="plotly_white",
                         height=480 + 22 * ((len(profiles.auc) + 1) // 2))
    return figure


def auc_heatmap(profiles: PerformanceProfiles, *, definition: str = "exact") -> go.Figure:
    """The (method x dataset) table of performance-profile AUCs as a heatmap, best method on top.

    Parameters
    ----------
    profiles : PerformanceProfiles
    definition : {'exact', 'linear'}, keyword-only
        Which AUC (see :mod:`srdash.analysis.profiles`).

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.profiles import performance_profiles
    >>> p = performance_profiles(pd.DataFrame({"method": ["a", "<b>"] * 2, "dataset": ["d1", "d1", "d2", "d2"],
    ...                                        "r2_test": [0.9, 0.4, 0.5, 0.7]}))
    >>> fig = auc_heatmap(p)
    >>> fig.data[0].z.tolist(), list(fig.data[0].y)
    ([[0.9, 0.5], [0.4, 0.7]], ['a', '&lt;b&gt;'])
    """
    if definition not in ("exact", "linear"):
        raise ValueError(f"The 'definition' option must be one of 'exact', 'linear'. Got {definition!r}.")
    column = "auc" if definition == "exact" else "auc_linear"
    methods = list(profiles.auc["method"])
    table = profiles.per_dataset.pivot(index="method", columns="dataset", values=column).reindex(methods)
    names = [_escaped(m) for m in methods]
    datasets = [_escaped(d) for d in table.columns]
    figure = go.Figure(go.Heatmap(z=table.to_numpy(), x=datasets, y=names, zmin=0, zmax=1, colorscale="Viridis",
                                  colorbar={"title": "AUC"},
                                  hovertemplate="%{y} on %{x}: AUC %{z:.3f}<extra></extra>"))
    heading = title_layout(f"Performance-profile AUC per dataset ({profiles.value})",
                           f"{definition} area over the runs of each dataset; best method (pooled AUC) on top")
    figure.update_layout(title=heading, yaxis={"autorange": "reversed"}, template="plotly_white",
                         height=max(320, 120 + 22 * len(methods)), margin={"t": title_margin(heading)})
    return readable_heatmap(figure)


def pairwise_heatmap(tests: PairwiseTests, *, alpha: float = 0.05) -> go.Figure:
    """Heatmap of the (adjusted) pairwise p-values; cells below ``alpha`` are marked with '*'.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.pairwise import wilcoxon_holm
    >>> t = pd.DataFrame({"method": list("aaabbb"), "dataset": list("xyzxyz"), "r2_test": [1, 2, 3, 2, 3, 5.0]})
    >>> fig = pairwise_heatmap(wilcoxon_holm(t))
    >>> fig.data[0].type, fig.layout.title.text, fig.layout.title.subtitle.text
    ('heatmap', 'Pairwise Wilcoxon signed-rank tests', 'Holm-corrected p-values; * p &lt; 0.05')
    """
    matrix = tests.p_values
    labels = [_escaped(m) for m in matrix.index]
    values = matrix.to_numpy(dtype=float)
    text = np.where(values < alpha, np.char.add(np.char.mod("%.2g", values), "*"), np.char.mod("%.2g", values))
    np.fill_diagonal(text, "")
    heading, subtitle = {"wilcoxon-holm": ("Pairwise Wilcoxon signed-rank tests", "Holm-corrected p-values"),
                         "friedman-conover": ("Conover post-hoc tests", "p-values, after the Friedman test")
                         }.get(tests.test, (tests.test, ""))
    title = title_layout(heading, f"{subtitle}; * p &lt; {alpha:g}" if subtitle else f"* p &lt; {alpha:g}")
    figure = go.Figure(go.Heatmap(
        z=values, x=labels, y=labels, text=text, texttemplate="%{text}" if len(labels) <= 25 else None,
        colorscale="Viridis", reversescale=True, zmin=0, zmax=1, colorbar=dict(title="p", thickness=14),
        hovertemplate="%{y} vs %{x}: p = %{z:.3g}<extra></extra>"))
    figure.update_layout(title=title, margin={"t": title_margin(title)}, template="plotly_white",
                         height=max(400, 26 * len(labels) + 160),
                         xaxis=dict(automargin=True), yaxis=dict(autorange="reversed", automargin=True))
    return readable_heatmap(figure)


def solution_rates_figure(rates: SolutionRates) -> go.Figure:
    """Bars of the solution rate per method, one colour per noise level, with intervals.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.recovery import solution_rates
    >>> r = solution_rates(pd.DataFrame({"method": ["a", "a"], "target_noise": [0, 0.01],
    ...                                  "solution": [True, False]}), n_bootstrap=0)
    >>> [trace.name for trace in solution_rates_figure(r).data]
    ['noise 0', 'noise 0.01']
    """
    figure = go.Figure()
    table = rates.table
    for level, group in table.groupby("noise", sort=True):
        figure.add_trace(go.Bar(
            y=[_escaped(m) for m in group["method"]], x=group["rate"], orientation="h", name=f"noise {level:g}",
            error_x=dict(type="data", symmetric=False, array=(group["high"] - group["rate"]).fillna(0),
                         arrayminus=(group["rate"] - group["low"]).fillna(0))))
    figure.update_layout(title="Symbolic solution rate (%) by noise level", barmode="group",
                         xaxis_title="solution rate (%)", template="plotly_white",
                         height=max(400, 22 * table["method"].nunique() * max(1, table["noise"].nunique()) // 2),
                         yaxis=dict(autorange="reversed"))
    return figure


def training_time_figure(times: TrainingTimes) -> go.Figure:
    """Median training time per method (log scale), bars from the first to the third quartile.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.resources import training_times
    >>> t = training_times(pd.DataFrame({"method": ["a", "a", "b"], "training time (s)": [1.0, 3.0, 50.0]}))
    >>> fig = training_time_figure(t)
    >>> list(fig.data[0].y), fig.layout.xaxis.type
    (['a', 'b'], 'log')
    """
    table = times.table
    figure = go.Figure(go.Scatter(
        x=table["median"], y=[_escaped(m) for m in table["method"]], mode="markers",
        error_x=dict(type="data", symmetric=False, array=table["q75"] - table["median"],
                     arrayminus=table["median"] - table["q25"]),
        customdata=np.column_stack([table["min"], table["max"], table["runs"]]),
        hovertemplate=("<b>%{y}</b><br>median %{x:.3g} s<br>range %{customdata[0]:.3g} to %{customdata[1]:.3g} s"
                       "<br>%{customdata[2]} runs<extra></extra>")))
    figure.update_layout(title=f"Training time per method ({_escaped(times.column)}; median and quartiles)",
                         xaxis=dict(type="log", title="seconds (log scale)"), yaxis=dict(autorange="reversed"),
                         template="plotly_white", height=max(320, 24 * len(table) + 140))
    return figure


def srbench_views(runs, *, verdict=None, n_bootstrap: int = 200, stage=None, progress=None) -> tuple:
    """The SRBench views the data allow, for the report and the dashboard alike.

    Parameters
    ----------
    runs : DataFrame or None
        The per-run table (``method``, ``dataset``, ``r2_test`` and a model size column,
        ``components``, ``model_size`` or ``size``).
    verdict : Verdict, optional, keyword-only
        Adds the critical-difference diagram of its dataset scores.
    n_bootstrap : int, keyword-only
        Bootstrap resamples for the Pareto intervals.
    stage, progress : callable, optional, keyword-only
        ``stage(text)`` and ``progress(done, total, counts)`` as each view begins, ``progress(total, total,
        {})`` at the end (the pipeline's progress callbacks; the dashboard shows them while the views compute).

    Returns
    -------
    tuple of (plotly Figure or str)
        In order: Pareto front, performance profiles, Wilcoxon/Holm heatmap, (when the runs carry
        SRBench's ``training time (s)``) training times and the accuracy-time front, and the
        critical-difference diagram; a view the data do not allow is a sentence saying why.

    Examples
    --------
    >>> srbench_views(None)[0]
    'No Pareto front: the runs carry no test R² and model size (columns r2_test and components or model_size).'
    """
    import pandas as pd

    views: list = []
    has_accuracy = runs is not None and {"method", "dataset", "r2_test"} <= set(runs.columns)
    size = next((c for c in ("components", "model_size", "size") if runs is not None and c in runs.columns), None)
    has_time = runs is not None and TIME_COLUMN in runs.columns and {"method", "dataset"} <= set(runs.columns)
    total = 1 + 2 * has_accuracy + has_time * (1 + has_accuracy) + (verdict is not None)
    done = iter(range(total))

    def step(text: str) -> None:
        if stage is not None:
            stage(text)
        if progress is not None:
            progress(next(done), total, {})

    step(f"Pareto front of accuracy and size ({n_bootstrap} bootstrap resamples)")
    if has_accuracy and size is not None and pd.to_numeric(runs[size], errors="coerce").notna().any():
        views.append(pareto_figure(pareto_fronts(runs, size=size, n_bootstrap=n_bootstrap)))
    else:
        views.append("No Pareto front: the runs carry no test R² and model size "
                     "(columns r2_test and components or model_size).")
    if has_accuracy:
        step("performance profiles")
        views.append(profiles_figure(performance_profiles(runs)))
        step("Wilcoxon signed-rank tests of every pair of methods, Holm-corrected")
        if runs["method"].nunique() >= 2 and runs["dataset"].nunique() >= 2:
            views.append(pairwise_heatmap(wilcoxon_holm(runs)))
        else:
            views.append("No pairwise tests: they need at least two methods and two datasets.")
    else:
        views.append("No performance profiles or pairwise tests: the runs carry no test R².")
    if has_time:
        step("training times")
        views.append(training_time_figure(training_times(runs)))
        if has_accuracy:
            step(f"Pareto front of accuracy and time ({n_bootstrap} bootstrap resamples)")
            views.append(pareto_figure(pareto_fronts(runs, size=TIME_COLUMN, names=("accuracy", "time"),
                                                     n_bootstrap=n_bootstrap)))
    if verdict is not None:
        step("critical-difference diagram")
        if verdict.n_methods >= 3 and verdict.per_dataset["dataset"].nunique() >= 2:
            views.append(critical_difference_figure(significance(verdict)))
        else:
            views.append("No critical-difference diagram: it needs three methods and two datasets.")
    if progress is not None:
        progress(total, total, {})
    return tuple(views)
