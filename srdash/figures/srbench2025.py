"""Figures of SRBench 2025's evaluation: resources (time, energy, CO2 per method, the accuracy-energy
front) and the comparison of methods (named post-hoc, critical-difference diagram from its p-values,
effect sizes, the plain-language paragraph). Pure functions, no widgets: the dashboard's "More
views" and the report use the same ones.

:func:`resource_views`, :func:`mean_ranks_views` and :func:`comparison_views` return a tuple of plotly figures and HTML
fragments (``str``, every untrusted text escaped), in display order.

Examples
--------
>>> import pandas as pd
>>> runs = pd.DataFrame({"method": ["a", "a", "<b>", "<b>"], "dataset": ["d1", "d2"] * 2,
...                      "r2_test": [0.9, 0.8, 0.5, 0.6], "power_consumption(kWh)": [0.1, 0.3, 2.0, 2.2]})
>>> has_resources(runs), has_resources(runs.drop(columns="power_consumption(kWh)"))
(True, False)
>>> views = resource_views(runs, n_bootstrap=20)
>>> "&lt;b&gt;" in views[0] and "<b>" not in views[0]
True
>>> [v.layout.title.text for v in views[1:]]
['Energy per run (power_consumption(kWh))', 'Pareto fronts']
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from srdash.analysis.fronts import front_numbers, pareto_fronts
from srdash.analysis.comparison import compare
from srdash.analysis.resources import RESOURCE_COLUMNS, ResourceSummary, resource_summary
from srdash.analysis.srbench2025 import srbench2025_mean_ranks
from srdash.errors import SrdashError
from srdash.figures.escape import html_text
from srdash.figures.tables import Cell, table_html

__all__ = ["has_resources", "resource_figure", "resource_table_html", "resource_views", "comparison_html",
           "ground_truth_sizes", "dataset_fronts_figure", "mean_ranks_html", "mean_ranks_views",
           "comparison_views", "RESOURCE_LABELS", "MEAN_RANKS_CAPTION"]

#: What each resource column measures, for titles.
RESOURCE_LABELS = {"training time (s)": "Training time per run", "duration(s)": "Duration per run",
                   "power_consumption(kWh)": "Energy per run", "CO2_emissions(kg)": "CO2 emissions per run"}
_UNITS = {"training time (s)": "s", "duration(s)": "s", "power_consumption(kWh)": "kWh", "CO2_emissions(kg)": "kg"}
_ENERGY = "power_consumption(kWh)"
_FRONT_NAMES = {"training time (s)": "time", "duration(s)": "time", _ENERGY: "energy", "CO2_emissions(kg)": "CO2"}
#: SRBench 2025's budget line: one hour per run.
HOUR = 3600.0


def has_resources(runs) -> bool:
    """Whether the runs carry a resource column with a value (:data:`RESOURCE_COLUMNS`)."""
    if runs is None or "method" not in getattr(runs, "columns", ()):
        return False
    return any(c in runs.columns and pd.to_numeric(runs[c], errors="coerce").notna().any() for c in RESOURCE_COLUMNS)


def resource_figure(summary: ResourceSummary, *, column: str) -> go.Figure:
    """One resource per method: the median per run (marker, log scale), the total over every run on hover.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.resources import resource_summary
    >>> s = resource_summary(pd.DataFrame({"method": ["a", "a", "b"], "duration(s)": [10.0, 30.0, 7200.0]}))
    >>> fig = resource_figure(s, column="duration(s)")
    >>> list(fig.data[0].y), [float(x) for x in fig.data[0].x], fig.layout.shapes[0].x0  # the 1-hour line
    (['a', 'b'], [20.0, 7200.0], 3600.0)
    """
    table = summary.table.sort_values([f"{column} median", "method"], kind="stable")
    unit = _UNITS.get(column, "")
    figure = go.Figure(go.Scatter(
        x=table[f"{column} median"], y=[html_text(m) for m in table["method"]], mode="markers",
        marker=dict(size=9, color="#1f77b4"),
        customdata=np.column_stack([table[f"{column} total"], table["runs"]]),
        hovertemplate=(f"<b>%{{y}}</b><br>median per run %{{x:.3g}} {unit}<br>total %{{customdata[0]:.4g}} {unit}"
                       f" over %{{customdata[1]}} runs<extra></extra>")))
    figure.update_layout(title=f"{RESOURCE_LABELS.get(column, column)} ({html_text(column)})",
                         xaxis=dict(type="log", title=f"median per run, {unit} (log scale)"),
                         yaxis=dict(autorange="reversed"), template="plotly_white",
                         height=max(320, 22 * len(table) + 140), margin=dict(l=10, r=10))
    if unit == "s":
        figure.add_vline(x=HOUR, line=dict(color="#d62728", dash="dash", width=1))
        figure.add_annotation(x=np.log10(HOUR), y=1.0, yref="paper", text="1 hour", showarrow=False,
                              yanchor="bottom", font=dict(size=10, color="#d62728"))
    return figure


def resource_table_html(summary: ResourceSummary) -> str:
    """The per-method table (median per run and total of every resource, runs, CPU) and the grand totals."""
    columns = [c for c in summary.table.columns if c != "method"]
    header = [Cell("method")] + [Cell(c) for c in columns]

    def shown(value) -> str:
        if isinstance(value, (float, np.floating)):
            return "" if np.isnan(value) else f"{value:.4g}"
        return "" if value is None or value is pd.NA else str(value)

    rows = [[Cell(row["method"], "srdash-team")] + [Cell(shown(row[c])) for c in columns]
            for _, row in summary.table.iterrows()]
    totals = "; ".join(f"{column}: {value:.4g}" for column, value in summary.totals.items() if np.isfinite(value))
    # one line per cell (a CPU's name wrapped into five lines on a phone): the table scrolls sideways instead
    return ("<div class='srdash-scroll'>" + table_html(header, rows, css="srdash-table srdash-resources") + "</div>"
            + f"<div class='srdash-note'>{html_text('Totals over every run of every method: ' + totals)}.</div>")


def resource_views(runs, *, accuracy: str = "r2_test", n_bootstrap: int = 200) -> tuple:
    """The resources of the runs: the per-method table, one figure per resource, the accuracy-energy front
    (or accuracy-time, without energy); ``()`` when the runs carry no resource column."""
    from srdash.figures.lineage import pareto_figure  # lazy: scipy, sympy

    if not has_resources(runs):
        return ()
    present = [c for c in RESOURCE_COLUMNS if c in runs.columns and pd.to_numeric(runs[c], errors="coerce").notna().any()]
    summary = resource_summary(runs, columns=present)
    views: list = [resource_table_html(summary)]
    views += [resource_figure(summary, column=c) for c in present if c != "training time (s)" or len(present) == 1]
    front_column = _ENERGY if _ENERGY in present else present[0]
    if accuracy in runs.columns and "dataset" in runs.columns:
        views.append(pareto_figure(pareto_fronts(runs, accuracy=accuracy, size=front_column,
                                                 names=("accuracy", _FRONT_NAMES.get(front_column, "resource")),
                                                 n_bootstrap=n_bootstrap),
                                   log_size=True))
    return tuple(views)


def _seed_column(runs) -> str | None:
    for column in ("run", "seed", "random_state"):
        if column in runs.columns and runs[column].nunique() > 1:
            return column
    return None


def _p_text(p: float) -> str:
    """A p-value for a table: three significant digits; below the smallest double, said so."""
    return "< 1e-300" if p == 0 else f"{p:.3g}"


def comparison_html(comparison, *, max_pairs: int = 40) -> str:
    """The comparison's paragraph, its omnibus tests and the significant pairs with their effect sizes."""
    parts = [f"<p class='srdash-comparison-paragraph'>{html_text(comparison.paragraph)}</p>",
             f"<div class='srdash-note'>{html_text('Post-hoc: ' + comparison.posthoc_label)}.</div>"]
    omnibus = comparison.omnibus
    parts.append(table_html([Cell(c) for c in ("test", "statistic", "df", "p-value", "blocks")],
                            [[Cell(r.test), Cell(f"{r.statistic:.4g}"), Cell(f"{r.df:g}"), Cell(_p_text(r.p_value)),
                              Cell(str(int(r.blocks)))] for r in omnibus.itertuples(index=False)],
                            css="srdash-table srdash-omnibus"))
    significant = comparison.pairs[comparison.pairs["significant"]]
    if len(significant):
        rows = []
        for r in significant.head(max_pairs).itertuples(index=False):
            rows.append([Cell(r.better or r.method_a, "srdash-team"),
                         Cell(r.method_b if (r.better or r.method_a) == r.method_a else r.method_a, "srdash-team"),
                         Cell(_p_text(r.p_adjusted)), Cell(f"{abs(r.cliffs_delta):.3f} ({r.cliffs_magnitude})"),
                         Cell(f"{abs(r.cohens_d):.3f} ({r.cohens_magnitude})"), Cell(str(r.blocks))])
        header = [Cell(c) for c in ("better", "than", "adjusted p", "Cliff's delta", "Cohen's d", "blocks")]
        more = len(significant) - max_pairs
        parts.append(table_html(header, rows, css="srdash-table srdash-effect-sizes"))
        if more > 0:
            parts.append(f"<div class='srdash-note'>and {more} more significant pair(s).</div>")
    for note in comparison.notes:
        parts.append(f"<div class='srdash-note'>{html_text(note)}</div>")
    return "".join(parts)


#: What the table of SRBench 2025's own mean ranks is (:func:`mean_ranks_html`).
MEAN_RANKS_CAPTION = (
    "SRBench 2025's own computation (its collate script, not srdash's verdict): per method, the mean over the "
    "datasets of its rank on the median of its runs that exist; 1 = best, tied methods share the average "
    "position; a method without any value on a dataset (a DNF, or every run failed) is unranked there, the "
    "others are ranked among fewer, and its mean covers its own datasets.")

# The results' own size column, as SRBench writes it: srdash's loader reads SRBench's model_size as components.
_OWN_SIZE_COLUMNS = ("model_size", "components")


def mean_ranks_html(ranks) -> str:
    """The table of :class:`srdash.analysis.srbench2025.SRBench2025Ranks`, labelled as SRBench 2025's own
    computation, with its notes.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.analysis.srbench2025 import srbench2025_mean_ranks
    >>> ranks = srbench2025_mean_ranks(pd.DataFrame({"method": ["<a>", "b"], "dataset": "d",
    ...                                              "r2_test": [0.9, 0.5], "model_size": [9, 3]}))
    >>> html = mean_ranks_html(ranks)
    >>> '<td class="srdash-team">&lt;a&gt;</td><td>1</td><td>2</td><td>1</td>' in html, "<a>" in html
    (True, False)
    """
    labels = {"higher": "higher is better", "lower": "lower is better"}
    header = [Cell("method")]
    header += [Cell(f"mean rank of {column} ({labels[direction]})") for column, direction in ranks.metrics]
    header += [Cell(f"datasets ranked ({column})") for column, _ in ranks.metrics]

    def shown(value) -> str:
        return "" if pd.isna(value) else f"{float(value):.4g}"

    rows = [[Cell(row["method"], "srdash-team")]
            + [Cell(shown(row[f"{column}_avg_rank"])) for column, _ in ranks.metrics]
            + [Cell(str(int(row[f"{column}_datasets"]))) for column, _ in ranks.metrics]
            for _, row in ranks.table.iterrows()]
    parts = [f"<p class='srdash-srbench2025-ranks-caption'><b>{html_text('SRBench 2025 mean ranks')}</b>: "
             f"{html_text(MEAN_RANKS_CAPTION)}</p>",
             "<div class='srdash-scroll'>" + table_html(header, rows, css="srdash-table srdash-srbench2025-ranks")
             + "</div>"]
    parts += [f"<div class='srdash-note'>{html_text(note)}</div>" for note in ranks.notes]
    return "".join(parts)


def mean_ranks_views(runs, *, accuracy: str = "r2_test") -> tuple:
    """SRBench 2025's own mean ranks of the runs (:func:`srdash.analysis.srbench2025.srbench2025_mean_ranks`) on
    ``accuracy`` and on the results' own ``model_size`` (srdash's loader names it ``components``; srdash's own
    recount ``size`` is not SRBench's column), as one HTML fragment; ``()`` without method, dataset or accuracy.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.5], "components": [9, 3],
    ...                      "size": [1, 1]})
    >>> html, = mean_ranks_views(runs)
    >>> "mean rank of model_size (lower is better)" in html, mean_ranks_views(runs.drop(columns="r2_test"))
    (True, ())
    """
    if runs is None or not {"method", "dataset", accuracy} <= set(runs.columns):
        return ()
    size = next((c for c in _OWN_SIZE_COLUMNS if c in runs.columns), None)
    table = runs.rename(columns={"components": "model_size"}) if size == "components" else runs
    try:
        ranks = srbench2025_mean_ranks(table, accuracy=accuracy, size=size and "model_size", method="method")
    except ValueError as exc:
        return (f"<div class='srdash-note'>{html_text(f'No SRBench 2025 mean ranks: {exc}')}</div>",)
    return (mean_ranks_html(ranks),)


def comparison_views(runs, *, value: str = "r2_test", posthoc: str = "wilcoxon-holm",
                     correction: str = "holm", cd_diagram: bool = True) -> tuple:
    """SRBench 2025's own mean ranks (:func:`mean_ranks_views`), then the comparison of the methods on ``value``
    as SRBench 2025 reports it: (dataset, seed) blocks when the runs have several seeds, missing values as the
    worst value of the table, a named post-hoc; then its critical-difference diagram (bars from the post-hoc's
    p-values) and :func:`comparison_html`. A comparison the data do not allow is one HTML sentence saying why.
    ``cd_diagram=False`` leaves the diagram out, for a page that shows one elsewhere (each figure once a page)."""
    from srdash.figures.integrity import critical_difference_figure  # lazy: scipy

    if runs is None or not {"method", "dataset", value} <= set(runs.columns):
        return (f"<div class='srdash-note'>{html_text(f'No comparison of methods: the runs carry no {value}.')}</div>",)
    ranks = mean_ranks_views(runs, accuracy=value)
    seed = _seed_column(runs)
    try:
        result = compare(runs, value=value, unit="dataset-seed" if seed else "dataset", seed=seed,
                         posthoc=posthoc, correction=correction, missing="worst")
    except ValueError as exc:
        return ranks + (f"<div class='srdash-note'>{html_text(f'No comparison of methods: {exc}')}</div>",)
    if not cd_diagram:
        return ranks + (comparison_html(result),)
    figure = critical_difference_figure(result, title=f"Critical difference diagram ({value}, {posthoc})")
    return ranks + (figure, comparison_html(result))


def ground_truth_sizes(datasets, *, measure: str = "rounded-nodes") -> dict:
    """``{dataset: size}`` of each dataset's known equation (a table with ``dataset`` and ``ground_truth``,
    e.g. the competition's ``datasets.csv``), counted by the rules' size ``measure`` through srdash's whitelist
    parser; datasets without one, or whose equation cannot be counted, are left out.

    Examples
    --------
    >>> import pandas as pd
    >>> ground_truth_sizes(pd.DataFrame({"dataset": ["a", "b", "c"], "ground_truth": ["x1*x2", "", "open(x1)"]}))
    {'a': 3.0}
    """
    from srdash.expressions.measures import measure_model  # lazy: sympy

    if datasets is None or not {"dataset", "ground_truth"} <= set(datasets.columns):
        return {}
    sizes = {}
    for name, truth in zip(datasets["dataset"].astype(str), datasets["ground_truth"]):
        if isinstance(truth, str) and truth.strip():
            try:
                sizes[name] = float(measure_model(truth, measure))
            except (SrdashError, ValueError, TypeError):
                continue
    return sizes


def dataset_fronts_figure(runs, truths, *, size: str = "size", accuracy: str = "r2_test", columns: int = 3,
                          max_datasets: int = 12) -> go.Figure:
    """Per-dataset Pareto facets: each method's median test R2 (clipped at 0) and median size on the dataset,
    the non-dominated ones joined, the known equation's point (size of ``truths[dataset]``, R2 = 1, a star) and
    the front model closest to it (ringed; distance in log size and R2, each scaled by its range on the facet).

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "r2_test": [0.99, 0.7, -3.0],
    ...                      "size": [5.0, 3.0, 9.0]})
    >>> fig = dataset_fronts_figure(runs, {"d": 4.0})
    >>> [t.name for t in fig.data]
    ['front', 'methods', 'known equation', 'closest to it']
    >>> [float(v) for v in fig.data[0].x], [float(v) for v in fig.data[1].y], list(fig.data[3].text)
    ([3.0, 5.0], [0.99, 0.7, 0.0], ['a'])
    """
    from plotly.subplots import make_subplots

    table = runs[["method", "dataset", size, accuracy]].copy()
    table[size] = pd.to_numeric(table[size], errors="coerce")
    table[accuracy] = pd.to_numeric(table[accuracy], errors="coerce").clip(lower=0.0)  # r2_zero_test
    medians = table.groupby(["dataset", "method"], sort=True)[[size, accuracy]].median().reset_index()
    datasets = [d for d in medians["dataset"].unique() if d in truths][:max_datasets]
    rows = max(1, -(-len(datasets) // columns))
    figure = make_subplots(rows=rows, cols=columns, subplot_titles=[html_text(d) for d in datasets],
                           horizontal_spacing=0.06, vertical_spacing=0.12 / max(1, rows / 3))
    for i, dataset in enumerate(datasets):
        row, col = i // columns + 1, i % columns + 1
        sub = medians[medians["dataset"] == dataset].dropna()
        if sub.empty:
            continue
        points = sub[[accuracy, size]].to_numpy(dtype=float)
        on_front = front_numbers(points, directions=("higher", "lower")) == 1
        front = sub[on_front].sort_values(size)
        first = i == 0
        figure.add_trace(go.Scatter(x=front[size], y=front[accuracy], mode="lines", name="front",
                                    line=dict(color="#1f77b4", width=2), hoverinfo="skip", showlegend=first,
                                    legendgroup="front"), row=row, col=col)
        figure.add_trace(go.Scatter(x=sub[size], y=sub[accuracy], mode="markers", name="methods",
                                    marker=dict(color=np.where(on_front, "#1f77b4", "#bbbbbb"), size=7),
                                    text=[html_text(m) for m in sub["method"]], showlegend=first,
                                    legendgroup="methods",
                                    hovertemplate="<b>%{text}</b><br>size %{x:.3g}<br>R² %{y:.3f}<extra></extra>"),
                         row=row, col=col)
        truth = float(truths[dataset])
        figure.add_trace(go.Scatter(x=[truth], y=[1.0], mode="markers", name="known equation", showlegend=first,
                                    legendgroup="truth", marker=dict(symbol="star", size=13, color="#d62728"),
                                    hovertemplate=f"known equation<br>size {truth:g}<extra></extra>"),
                         row=row, col=col)
        logs = np.log10(np.maximum(sub[size].to_numpy(dtype=float), 1.0))
        log_span = max(np.ptp(np.append(logs, np.log10(max(truth, 1.0)))), 1e-9)
        r2_span = max(np.ptp(np.append(sub[accuracy].to_numpy(dtype=float), 1.0)), 1e-9)
        f_logs = np.log10(np.maximum(front[size].to_numpy(dtype=float), 1.0))
        distance = np.hypot((f_logs - np.log10(max(truth, 1.0))) / log_span,
                            (front[accuracy].to_numpy(dtype=float) - 1.0) / r2_span)
        closest = front.iloc[int(np.argmin(distance))]
        figure.add_trace(go.Scatter(x=[closest[size]], y=[closest[accuracy]], mode="markers", name="closest to it",
                                    text=[html_text(closest["method"])], showlegend=first, legendgroup="closest",
                                    marker=dict(symbol="circle-open", size=15, color="#d62728", line=dict(width=2)),
                                    hovertemplate="<b>%{text}</b>: the front model closest to the known equation"
                                                  "<extra></extra>"), row=row, col=col)
        figure.update_xaxes(type="log", row=row, col=col)
        figure.update_yaxes(range=[-0.05, 1.08], row=row, col=col)
    figure.update_layout(title="Pareto fronts per dataset, with the known equation",
                         template="plotly_white", height=max(320, 260 * rows + 120),
                         legend=dict(orientation="h", y=-0.08), margin=dict(l=10, r=10))
    return figure
