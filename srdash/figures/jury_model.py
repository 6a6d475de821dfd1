"""The jury model (:mod:`srdash.analysis.jury_model`) as tables and a figure, for the report and the apps.

:func:`jury_agreement_html` (agreement per dataset: Kendall's W and Krippendorff's alpha with its
interval) names no method, so the review's organiser can see it while the methods are still
blinded; :func:`jury_model_html` adds the consensus strengths, the judges and, for a real-world
track, its winner with each judge left out; :func:`jury_strengths_figure` draws the strengths
with their intervals.

Examples
--------
>>> import pandas as pd
>>> from srdash.analysis.jury_model import jury_model
>>> ranks = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob"], "dataset": "d",
...                       "method": ["a", "<b>"] * 2, "rank": [1, 2, 1, 2]})
>>> model = jury_model(ranks, n_bootstrap=20)
>>> page = jury_model_html(model)
>>> "&lt;b&gt;" in page and "<b>" not in page, page.count("<table")
(True, 3)
>>> [trace.name for trace in jury_strengths_figure(model).data]
['Plackett-Luce', 'Bradley-Terry']
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from srdash.figures.escape import html_text, plotly_text
from srdash.figures.tables import Cell, Markup, table_html
from srdash.figures.titles import title_layout, title_margin

__all__ = ["jury_model_html", "jury_agreement_html", "jury_strengths_figure", "JURY_MODEL_NOTE"]

#: What the jury model is, in one paragraph (the report's section and the apps say it).
JURY_MODEL_NOTE = ("A second opinion: the official verdict is the rules' (the mean of the judges' ranks). "
                   "Plackett-Luce fits each judge's order of the methods on each dataset, Bradley-Terry the "
                   "pairwise preferences those orders imply; strengths are centred log-strengths (higher = more "
                   "trusted) with 95% bootstrap intervals over the judges' rankings. Krippendorff's alpha (1 = "
                   "the judges agree, 0 = as by chance) stands beside Kendall's W.")

_PL_COLOUR = "#1f77b4"
_BT_COLOUR = "#d62728"


def _number(value, digits: int = 3, *, sign: bool = False) -> str:
    if value is None or not math.isfinite(float(value)):
        return "—"
    return f"{float(value):+.{digits}f}" if sign else f"{float(value):.{digits}f}"


def _interval(low, high, digits: int = 2, *, sign: bool = True) -> str:
    if low is None or not (math.isfinite(float(low)) and math.isfinite(float(high))):
        return "—"
    return f"[{_number(low, digits, sign=sign)}, {_number(high, digits, sign=sign)}]"


def _with_interval(value: str, low, high, *, sign: bool = True) -> Markup:
    """A value and, under it in small type, its interval: one column where a phone has room for few."""
    interval = _interval(low, high, sign=sign)
    if interval == "—":
        return Markup("{}").format(value)
    return Markup("{}<br><span class='srdash-interval'>{}</span>").format(value, interval)


def _scroll(table: str) -> str:
    """A table that scrolls sideways inside its box when a phone is narrower than it."""
    return f"<div class='srdash-scroll'>{table}</div>"


def jury_agreement_html(model) -> str:
    """Per dataset (and over all): judges, Kendall's W, Krippendorff's alpha and its interval.

    Parameters
    ----------
    model : JuryModel

    Returns
    -------
    str
        An HTML table; names no method.
    """
    header = [Cell(text) for text in ("Dataset", "Judges", "Kendall's W",
                                      f"Krippendorff's α ({model.level}), 95% interval")]
    rows = [[Cell("all datasets" if row.dataset == "all" else row.dataset), Cell(row.judges),
             Cell(_number(row.kendalls_w)),
             Cell(_with_interval(_number(row.alpha), row.alpha_low, row.alpha_high, sign=False))]
            for row in model.agreement.itertuples()]
    return _scroll(table_html(header, rows, css="srdash-table srdash-jury-agreement"))


def jury_model_html(model, *, agreement: bool = True) -> str:
    """The jury model's tables: consensus strengths, agreement, judges, and the verdict without each judge.

    Parameters
    ----------
    model : JuryModel
        From :func:`srdash.analysis.jury_model.jury_model` (or one of its adapters).
    agreement : bool, keyword-only
        Include :func:`jury_agreement_html`'s table.

    Returns
    -------
    str
        An HTML fragment; every text escaped.
    """
    interval = (f"and, under it, its 95% interval (from {model.n_bootstrap} redraws of the judges' rankings; "
                f"prior {model.prior:g}); first in: share of redraws where the method is strongest"
                if model.n_bootstrap else f"(prior {model.prior:g}; no bootstrap, no interval)")
    parts = [f"<div class='srdash-caption'>{html_text(f'Consensus strengths: centred log-strength (#rank, 1 = most trusted) {interval}')}</div>"]
    header = [Cell(text) for text in ("Method", "Plackett-Luce", "first in", "Bradley-Terry", "mean rank")]
    rows = [[Cell(row.method, "srdash-method"),
             Cell(_with_interval(f"{_number(row.pl_strength, sign=True)} (#{row.pl_rank:g})", row.pl_low, row.pl_high)),
             Cell("—" if not math.isfinite(row.pl_first) else f"{row.pl_first:.0%}"),
             Cell(_with_interval(f"{_number(row.bt_strength, sign=True)} (#{row.bt_rank:g})", row.bt_low, row.bt_high)),
             Cell(f"{row.mean_rank:.2f} of {row.rankings}")]
            for row in model.consensus.itertuples()]
    parts.append(_scroll(table_html(header, rows, css="srdash-table srdash-jury-consensus")))
    if agreement:
        parts.append(f"<div class='srdash-caption'>{html_text('Agreement of the judges')}</div>")
        parts.append(jury_agreement_html(model))
    header = [Cell(text) for text in ("Judge", "Rankings", "Spearman ρ with the others", "Severity",
                                      "Model's first without them")]
    rows = [[Cell(row.judge), Cell(row.rankings), Cell(_number(row.agreement, 2)),
             Cell(_number(row.severity, 2, sign=True)),
             Cell(row.first_without or "—", "srdash-changes" if row.changes else "")]
            for row in model.judges.itertuples()]
    parts.append(f"<div class='srdash-caption'>{html_text('Judges (severity: mean rating minus the other judges’ mean rating of the same entries; below 0 = severe; ratings only)')}</div>")
    parts.append(_scroll(table_html(header, rows, css="srdash-table srdash-jury-judges")))
    if model.verdict_without is not None and len(model.verdict_without) < 2:
        parts.append(f"<div class='srdash-note'>{html_text('The official real-world winner with each judge left out: one judge, nobody to leave out.')}</div>")
    elif model.verdict_without is not None:
        official = model.verdict_without.iloc[0]["winner"]
        rows = [[Cell(row.left_out), Cell(row.winner), Cell(_number(row.score, 4)),
                 Cell(f"changes to {row.winner}" if row.changes else "stays",
                      "srdash-changes" if row.changes else "")]
                for row in model.verdict_without.iloc[1:].itertuples()]
        parts.append(f"<div class='srdash-caption'>{html_text(f'The official real-world winner ({official}) with each judge left out')}</div>")
        parts.append(_scroll(table_html([Cell("Judge left out"), Cell("Winner"), Cell("Score"), Cell("Outcome")], rows,
                                        css="srdash-table srdash-jury-without")))
    for note in model.notes:
        parts.append(f"<div class='srdash-note'>{html_text(note)}</div>")
    return "<div class='srdash-jury-model'>" + "".join(parts) + "</div>"


def jury_strengths_figure(model, *, title: str = "Jury model: strengths of the methods") -> go.Figure:
    """Plackett-Luce and Bradley-Terry strengths per method, with their 95% bootstrap intervals.

    Parameters
    ----------
    model : JuryModel
    title : str, keyword-only

    Returns
    -------
    plotly.graph_objects.Figure
        Methods on the y axis, strongest at the top.
    """
    table = model.consensus.iloc[::-1]
    methods = [plotly_text(m) for m in table["method"]]
    figure = go.Figure()
    for name, prefix, colour, offset in (("Plackett-Luce", "pl", _PL_COLOUR, 0.15), ("Bradley-Terry", "bt", _BT_COLOUR,
                                                                                     -0.15)):
        strength = table[f"{prefix}_strength"].to_numpy()
        low, high = table[f"{prefix}_low"].to_numpy(), table[f"{prefix}_high"].to_numpy()
        has_interval = bool(len(low)) and all(math.isfinite(v) for v in list(low) + list(high))
        figure.add_trace(go.Scatter(
            x=strength, y=[i + offset for i in range(len(methods))], mode="markers", name=name,
            marker={"color": colour, "size": 8},
            error_x={"type": "data", "symmetric": False, "array": high - strength, "arrayminus": strength - low,
                     "color": colour, "thickness": 1.5, "width": 3} if has_interval else None,
            customdata=methods,
            hovertemplate=f"%{{customdata}}<br>{name} %{{x:+.3f}}<extra></extra>"))
    subtitle = (f"centred log-strength, higher = more trusted; bars: 95% intervals "
                f"({model.n_bootstrap} redraws); <span style='color:{_PL_COLOUR}'>Plackett-Luce</span> and "
                f"<span style='color:{_BT_COLOUR}'>Bradley-Terry</span>")
    heading = title_layout(plotly_text(title), subtitle)
    top = title_margin(heading)
    figure.update_layout(
        title=heading, template="plotly_white", showlegend=False, height=max(220, 40 * len(methods) + 90) + top,
        margin={"l": 10, "r": 20, "t": top, "b": 45},
        xaxis={"title": {"text": "strength (centred log)"}, "zeroline": True},
        yaxis={"tickmode": "array", "tickvals": list(range(len(methods))), "ticktext": methods, "automargin": True})
    return figure
