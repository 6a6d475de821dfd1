"""Figures and tables of the property scores and of the qualification stage.

Pure functions: data first (:class:`~srdash.judging.properties.PropertyScores`,
:class:`~srdash.judging.qualification.Qualification`, or tables derived from them),
keyword-only options, a new ``plotly.graph_objects.Figure`` or HTML string out.
The same functions serve the dashboard and static reports.

Method, dataset and feature names and model strings come from competitors and
are untrusted: every such string is escaped (``html.escape``) before it reaches
plotly labels or HTML. LaTeX is produced from the safely parsed expression
(:func:`srdash.expressions.latex_of`), never copied from the input.

Examples
--------
>>> import pandas as pd
>>> from srdash.judging.properties import PropertyScores
>>> per_dataset = pd.DataFrame({"dataset": ["d1", "d1"], "method": ["a", "b<i>"], "kind": "exact",
...                             "score": "rediscovery", "runs": 2, "property": [1.0, 0.5]})
>>> scores = PropertyScores(runs=pd.DataFrame(), per_dataset=per_dataset, noise_curve=pd.DataFrame(),
...                         sensitivity=pd.DataFrame(), problems=pd.DataFrame())
>>> figure = property_heatmap(scores)
>>> list(figure.data[0].x), figure.data[0].text[0][1]
(['a', 'b&lt;i&gt;'], '0.5')
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from srdash.figures.glance import readable_heatmap
from srdash.figures.styles import legend_below, method_style
from srdash.figures.escape import html_text, plotly_text
from srdash.figures.titles import title_layout, title_margin
from srdash.errors import SrdashError, SrdashError as _Error
from srdash.judging.properties import PropertyScores
from srdash.judging.qualification import Qualification

__all__ = [
    "property_heatmap",
    "noise_curve_figure",
    "unwanted_features_figure",
    "qualification_figure",
    "qualification_html",
    "exact_models_html",
]

_SCORE_LABELS = {"rediscovery": "share of runs rediscovering the formula", "S1": "S1 (unwanted features left out)",
                 "S2": "S2 (share of used features that are wanted)", "r2": "R²"}
_OUTCOME_COLOURS = {"win": "#2e7d32", "tie": "#9e9e9e", "loss": "#c62828"}






def _format(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if math.isinf(value):
        return "failed" if value < 0 else "inf"
    return f"{value:.3g}"


def property_heatmap(scores: PropertyScores) -> go.Figure:
    """Per-dataset property score of each method (higher is better), as a heatmap.

    Colours run from 0 (worst) to 1 (best); R² below 0 is coloured as 0, and
    the cell text gives the exact value (``failed`` when every run failed,
    ``–`` when the method has no run).
    """
    table = scores.per_dataset
    if table.empty:
        return go.Figure(layout={"title": {"text": "Property scores: no dataset with a property"}})
    datasets = list(dict.fromkeys(table["dataset"]))
    methods = sorted(table["method"].unique())
    grid = table.pivot(index="dataset", columns="method", values="property").reindex(index=datasets,
                                                                                    columns=methods)
    kind = table.drop_duplicates("dataset").set_index("dataset")["score"]
    values = grid.to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        colour = np.clip(np.where(np.isneginf(values), 0.0, values), 0.0, 1.0)
    text = [[_format(v) for v in row] for row in values]
    hover = [[f"{plotly_text(m)} on {plotly_text(d)}<br>{_SCORE_LABELS.get(kind[d], kind[d])}: {t}"
              for m, t in zip(methods, row)] for d, row in zip(datasets, text)]
    figure = go.Figure(go.Heatmap(
        z=colour, x=[plotly_text(m) for m in methods], y=[plotly_text(d) for d in datasets], text=text,
        texttemplate="%{text}", hovertext=hover, hoverinfo="text", zmin=0, zmax=1, colorscale="Viridis",
        colorbar={"title": {"text": "score (1 = best)", "side": "right"}, "thickness": 14},
    ))
    title = title_layout("Property score per dataset", "higher is better, 1 = best; hover a cell for how it was scored")
    figure.update_layout(title=title, margin={"t": title_margin(title)},
                         xaxis={"title": {"text": "method"}, "automargin": True},
                         yaxis={"title": {"text": "dataset"}, "autorange": "reversed", "automargin": True},
                         height=max(300, 40 * len(datasets) + 160))
    return readable_heatmap(figure)


def noise_curve_figure(scores: PropertyScores, *, group: str | None = None) -> go.Figure:
    """Test R² versus noise level, one line per method, for one noise group.

    The legend gives each method's noise sensitivity (lower is better; see
    :func:`srdash.judging.properties.noise_sensitivity`). Failed levels (R² = -inf)
    are left out of the line and listed in the hover text of the method.

    Parameters
    ----------
    group : str, optional
        The noise group (default: the first one).

    Examples
    --------
    >>> curve = pd.DataFrame({"group": "g", "method": "a", "dataset": ["n0", "n1"], "noise_level": [0.0, 0.1],
    ...                       "r2": [1.0, 0.9]})
    >>> scores = PropertyScores(pd.DataFrame(), pd.DataFrame(), curve,
    ...                         pd.DataFrame({"group": ["g"], "method": ["a"], "sensitivity": [1.0]}),
    ...                         pd.DataFrame())
    >>> [trace.name for trace in noise_curve_figure(scores).data]
    ['a (sensitivity 1)']
    """
    curve = scores.noise_curve
    if curve.empty:
        return go.Figure(layout={"title": {"text": "Noise: no noise group in the dataset table"}})
    groups = sorted(curve["group"].unique())
    if group is None:
        group = groups[0]
    elif group not in groups:
        raise SrdashError(f"No noise group {group!r}. Groups: {', '.join(groups)}.")
    curve = curve[curve["group"] == group]
    sensitivity = scores.sensitivity
    lookup = {}
    if not sensitivity.empty:
        lookup = dict(zip(sensitivity.loc[sensitivity["group"] == group, "method"],
                          sensitivity.loc[sensitivity["group"] == group, "sensitivity"]))
    figure = go.Figure()
    for i, (method, points) in enumerate(curve.groupby("method", sort=True)):
        colour, symbol, dash = method_style(i)
        points = points.sort_values("noise_level")
        r2 = points["r2"].to_numpy(dtype=float)
        finite = np.isfinite(r2)
        failed = ", ".join(f"{n:g}" for n in points.loc[~finite, "noise_level"])
        note = f" (failed at noise {failed})" if failed else ""
        figure.add_trace(go.Scatter(
            x=points.loc[finite, "noise_level"], y=r2[finite], mode="lines+markers",
            line={"color": colour, "dash": dash}, marker={"symbol": symbol, "color": colour},
            name=f"{plotly_text(method)} (sensitivity {_format(lookup.get(method, np.nan))})",
            customdata=points.loc[finite, "dataset"].map(plotly_text),
            hovertemplate=f"{plotly_text(method)}{plotly_text(note)}<br>%{{customdata}}: noise %{{x}}, R² %{{y:.3f}}"
                          "<extra></extra>",
        ))
    figure.update_layout(
        # a short title that fits a phone, the details in the subtitle (one line ran past a phone's figure)
        title=(title := title_layout("Test R² versus noise level",
                                     f"group {plotly_text(group)}; sensitivity: lower is better")),
        margin={"t": title_margin(title)},
        xaxis={"title": {"text": "noise level (share of the target's variance)"}},
        yaxis={"title": {"text": "test R² (median over runs)"}}, legend=legend_below(title="method"),
        height=450 + 22 * ((curve["method"].nunique() + 1) // 2))
    return figure


def unwanted_features_figure(usage: pd.DataFrame, *, dataset: str) -> go.Figure:
    """Share of each method's runs using each unwanted feature of one dataset (0 = never, best).

    Parameters
    ----------
    usage : DataFrame
        :func:`srdash.judging.properties.unwanted_usage`.
    dataset : str

    Examples
    --------
    >>> usage = pd.DataFrame({"dataset": "fs", "method": ["a", "a"], "feature": ["x3", "x4"],
    ...                       "runs_using": [1, 0], "runs": 2, "share": [0.5, 0.0]})
    >>> unwanted_features_figure(usage, dataset="fs").data[0].text
    (['1/2', '0/2'],)
    """
    table = usage[usage["dataset"] == dataset]
    if table.empty:
        raise SrdashError(f"No feature-absence or local-optima results for dataset {dataset!r}. Datasets: "
                          f"{', '.join(sorted(usage['dataset'].unique())) or 'none'}.")
    features = list(dict.fromkeys(table["feature"]))
    methods = sorted(table["method"].unique())
    grid = table.pivot(index="method", columns="feature", values="share").reindex(index=methods, columns=features)
    counts = table.pivot(index="method", columns="feature", values="runs_using").reindex(index=methods,
                                                                                      columns=features)
    runs = table.drop_duplicates("method").set_index("method")["runs"].reindex(methods)
    text = [[f"{int(c)}/{int(runs[m])}" if not np.isnan(c) else "–" for c in row]
            for m, row in zip(methods, counts.to_numpy(dtype=float))]
    figure = go.Figure(go.Heatmap(
        z=grid.to_numpy(dtype=float), x=[plotly_text(f) for f in features], y=[plotly_text(m) for m in methods],
        text=text, texttemplate="%{text}", zmin=0, zmax=1, colorscale="Reds",
        colorbar={"title": {"text": "share of runs<br>using it"}},
        hovertemplate="%{y} uses %{x} in %{text} runs<extra></extra>",
    ))
    title = title_layout("Unwanted features used", f"{plotly_text(dataset)}; fewer is better")
    figure.update_layout(title=title, margin={"t": title_margin(title)},
                         xaxis={"title": {"text": "unwanted feature"}}, yaxis={"autorange": "reversed"},
                         height=max(260, 32 * len(methods) + 160))
    return readable_heatmap(figure)


def qualification_figure(qualification: Qualification) -> go.Figure:
    """Wins, ties and losses of each method against the baseline (stacked bars), verdict in the label.

    Examples
    --------
    >>> from srdash.judging.qualification import qualify
    >>> q = qualify(pd.DataFrame({"method": ["LinearRegression", "a", "b"], "dataset": "d",
    ...                           "r2_test": [0.5, 0.9, 0.1]}))
    >>> [trace.name for trace in qualification_figure(q).data]
    ['win', 'tie', 'loss']
    >>> list(qualification_figure(q).data[0].y)
    ['a ✓ qualified', 'b ✗ not qualified']
    """
    table = qualification.table
    labels = [f"{plotly_text(m)} {'✓ qualified' if q else '✗ not qualified'}"
              for m, q in zip(table["method"], table["qualified"])]
    figure = go.Figure()
    for outcome, column in (("win", "wins"), ("tie", "ties"), ("loss", "losses")):
        figure.add_trace(go.Bar(x=table[column], y=labels, orientation="h", name=outcome,
                                marker={"color": _OUTCOME_COLOURS[outcome]},
                                hovertemplate=f"%{{y}}: %{{x}} {outcome}(s)<extra></extra>"))
    title = title_layout("Qualification: head to head", f"each method against {plotly_text(qualification.baseline)}, "
                                                        "per dataset and run")
    figure.update_layout(
        barmode="stack", title=title, margin={"t": title_margin(title)},
        xaxis={"title": {"text": "comparisons (dataset × run)"}}, yaxis={"autorange": "reversed"},
        height=max(260, 32 * len(table) + 160), legend={"title": {"text": "outcome"}})
    return figure


def qualification_html(qualification: Qualification) -> str:
    """The qualification table as HTML, with the rule stated above it.

    Examples
    --------
    >>> from srdash.judging.qualification import qualify
    >>> q = qualify(pd.DataFrame({"method": ["LinearRegression", "<b>x</b>"], "dataset": "d",
    ...                           "r2_test": [0.5, 0.9]}))
    >>> "&lt;b&gt;x&lt;/b&gt;" in qualification_html(q), "<b>x</b>" in qualification_html(q)
    (True, False)
    """
    rows = []
    for row in qualification.table.itertuples(index=False):
        colour = "#2e7d32" if row.qualified else "#c62828"
        rows.append(
            f"<tr><td>{html_text(row.method)}</td><td>{row.wins}</td><td>{row.ties}</td><td>{row.losses}</td>"
            f"<td>{row.mean_rank_difference:+.2f}</td>"
            f"<td style='color:{colour};font-weight:bold'>{html_text(row.verdict)}</td></tr>")
    header = ("<tr><th>Method</th><th>Wins</th><th>Ties</th><th>Losses</th>"
              "<th title='from -1 (worse on every dataset) to +1 (better on every dataset)'>Mean rank "
              "difference (higher is better)</th><th>Verdict</th></tr>")
    return (f"<div class='srdash-qualification'><p><b>Rule.</b> {html_text(qualification.rule)}</p>"
            f"<table class='srdash-table'>{header}{''.join(rows)}</table></div>")


def _text(text: object) -> str:
    """Untrusted text for an HTML page with MathJax: escaped, and marked so that MathJax leaves any $ alone."""
    return f"<span class='tex2jax_ignore mathjax_ignore'>{html_text(text)}</span>"


def _latex(text: str, features) -> str | None:
    from srdash.expressions import latex_of  # the only module that talks to sympy

    try:
        latex = latex_of(text, features=features)
    except _Error:
        return None
    # The browser decodes the entities before MathJax reads the text: escaping keeps the HTML inert.
    return plotly_text(latex)


def exact_models_html(models: pd.DataFrame, *, truth: str, features=None) -> str:
    """Ground truth and each method's representative simplified model, in LaTeX, with the verdict.

    For an ``ipywidgets.HTMLMath`` (or any page with MathJax): formulas are
    ``$...$`` produced by :func:`srdash.expressions.latex_of` from the safely
    parsed expression; a model that cannot be parsed is shown as escaped text.

    Parameters
    ----------
    models : DataFrame
        :func:`srdash.judging.properties.representative_models` rows of one dataset.
    truth : str
        The dataset's ground truth.
    features : sequence of str, optional
        The dataset's feature names.

    Examples
    --------
    >>> models = pd.DataFrame({"method": ["a"], "run": [0], "model": ["x1*x2 + 1"], "simplified": ["x1*x2 + 1"],
    ...                        "equivalent": [True], "detail": ["equivalent: truth - model = 0 is constant"],
    ...                        "share": [1.0]})
    >>> page = exact_models_html(models, truth="x1*x2 + 1")
    >>> "$x_{1} x_{2} + 1$" in page, ">equivalent</span>" in page
    (True, True)
    """
    truth_latex = _latex(truth, features)
    shown_truth = f"${truth_latex}$" if truth_latex is not None else f"<code>{_text(truth)}</code>"
    rows = []
    for row in models.itertuples(index=False):
        text = row.simplified if isinstance(row.simplified, str) and row.simplified else row.model
        formula = _latex(text, features) if isinstance(text, str) else None
        shown = (f"${formula}$" if formula is not None
                 else f"<code>{_text(text)}</code>" if isinstance(text, str) else "<i>no model</i>")
        equivalent = bool(row.equivalent) if not pd.isna(row.equivalent) else False
        verdict = ("<span style='color:#2e7d32;font-weight:bold'>equivalent</span>" if equivalent
                   else "<span style='color:#c62828'>not equivalent</span>")
        rows.append(f"<tr><td>{_text(row.method)}</td><td>{row.run}</td><td>{shown}</td>"
                    f"<td title='{html_text(row.detail)}'>{verdict}</td><td>{_format(row.share)}</td></tr>")
    return (f"<div class='srdash-exact'><p><b>Ground truth:</b> {shown_truth}</p>"
            "<table class='srdash-table'><tr><th>Method</th><th>Run</th><th>Representative simplified model</th>"
            "<th>Verdict (hover: why)</th><th>Share of runs rediscovering</th></tr>"
            f"{''.join(rows)}</table></div>")
