"""HTML tables of prediction-file competitions (leaderboards, shake-up, rejected submissions).

Pure functions from the frames of :mod:`srdash.judging.predictions` to HTML fragments,
shared by the predictions app (:class:`srdash.apps.predictions.PredictionsDashboard`).
Team names, submission names and reasons come from competitors' files and are
untrusted: every value is escaped (``html.escape``, quotes included), so a team
called ``<b>x</b>`` is shown as those seven characters. The slope chart is
:func:`srdash.judging.predictions.shakeup_figure`.

Examples
--------
>>> import pandas as pd
>>> board = pd.DataFrame({"place": [1, 2], "team": ["<b>x</b>", "y"], "score": [0.5, float("nan")],
...                       "submission": ["s.txt", None], "entries": [1, 2]})
>>> page = leaderboard_table_html(board, subset="final", caption="RMSE, lower is better")
>>> "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
True
>>> 'data-team="y"' in page and "no valid submission" in page
True
"""

from __future__ import annotations

import math
import numbers

import pandas as pd

from srdash.figures.escape import html_text, plotly_text

__all__ = ["leaderboard_table_html", "shakeup_table_html", "rejected_table_html", "notes_html", "shakeup_figure"]

_STYLE = """<style>
.srdash-pred-table{border-collapse:collapse;font-size:13px;margin:4px 0}
.srdash-pred-table th,.srdash-pred-table td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;
vertical-align:top}
.srdash-pred-table th{background:#f3f3f3}
.srdash-pred-table td.number{text-align:right;font-variant-numeric:tabular-nums}
.srdash-pred-caption{font-weight:600;margin:6px 0 2px 0}
</style>"""
# Columns every leaderboard has, in this order; others (metric values, ranks) follow the score.
_FIRST = ("place", "team", "score")
_LAST = ("submission", "entries", "status")
_HEADINGS = {"place": "Place", "team": "Team", "score": "Score", "submission": "Submission", "entries": "Entries",
             "status": "Status", "preliminary_place": "Preliminary place", "final_place": "Final place",
             "change": "Change", "preliminary_score": "Preliminary score", "final_score": "Final score"}




def _number(value, decimals: int) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, numbers.Integral):
        return str(int(value))
    return f"{float(value):.{decimals}g}"


def _heading(column: str) -> str:
    if column in _HEADINGS:
        return _HEADINGS[column]
    if column.endswith("_rank"):
        return f"{column[:-5]} rank"
    return column


def leaderboard_table_html(board: pd.DataFrame, *, subset: str, caption: str = "", decimals: int = 6) -> str:
    """A leaderboard (per metric or combined) as an escaped HTML table.

    Parameters
    ----------
    board : DataFrame
        ``place``, ``team``, ``score`` and optionally metric values, ranks
        (``*_rank``), ``submission``, ``entries``, ``status``.
    subset : str
        'preliminary' or 'final': the table has class ``srdash-pred-<subset>``.
    caption : str
        Shown above the table (escaped).
    decimals : int
        Significant digits of the scores.

    Returns
    -------
    str
        Each body row has ``data-team`` (the escaped team) and its team cell
        class ``srdash-team``; a missing score reads "no valid submission".
    """
    middle = [c for c in board.columns if c not in _FIRST + _LAST]
    columns = [c for c in _FIRST if c in board.columns] + middle + [c for c in _LAST if c in board.columns]
    head = "".join(f"<th>{html_text(_heading(c))}</th>" for c in columns)
    rows = []
    for record in board.to_dict("records"):
        cells = []
        for column in columns:
            value = record[column]
            if column == "team":
                cells.append(f"<td class='srdash-team'>{html_text(value)}</td>")
            elif column == "score" and (value is None or (isinstance(value, float) and math.isnan(value))):
                cells.append("<td class='number srdash-no-score'>no valid submission</td>")
            elif column in ("submission", "status"):
                cells.append(f"<td>{'' if value is None or value != value else html_text(value)}</td>")
            elif column in ("place", "entries"):
                cells.append(f"<td class='number'>{int(value)}</td>")
            else:
                cells.append(f"<td class='number'>{html_text(_number(value, decimals))}</td>")
        rows.append(f"<tr data-team=\"{html_text(record['team'])}\">{''.join(cells)}</tr>")
    title = f"<div class='srdash-pred-caption'>{html_text(caption)}</div>" if caption else ""
    return (_STYLE + title + f"<table class='srdash-pred-table srdash-pred-leaderboard srdash-pred-{html_text(subset)}'>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def shakeup_table_html(shakeup: pd.DataFrame, *, decimals: int = 6) -> str:
    """The shake-up table (team, preliminary and final place, change, scores), escaped.

    A positive change (moved up) is shown as ▲, a negative one as ▼.

    Examples
    --------
    >>> shake = pd.DataFrame({"team": ["a", "b"], "preliminary_place": [2, 1], "final_place": [1, 2],
    ...                       "change": [1, -1], "preliminary_score": [0.5, 0.4], "final_score": [0.1, 0.6]})
    >>> "▲1" in shakeup_table_html(shake) and "▼1" in shakeup_table_html(shake)
    True
    """
    rows = []
    for record in shakeup.to_dict("records"):
        change = int(record["change"])
        arrow = (f"<span style='color:#2ca02c'>▲{change}</span>" if change > 0 else
                 f"<span style='color:#d62728'>▼{-change}</span>" if change < 0 else "=")
        rows.append(f"<tr data-team=\"{html_text(record['team'])}\"><td class='srdash-team'>{html_text(record['team'])}"
                    f"</td><td class='number'>{int(record['preliminary_place'])}</td>"
                    f"<td class='number'>{int(record['final_place'])}</td><td class='number'>{arrow}</td>"
                    f"<td class='number'>{html_text(_number(record['preliminary_score'], decimals))}</td>"
                    f"<td class='number'>{html_text(_number(record['final_score'], decimals))}</td></tr>")
    head = "".join(f"<th>{_HEADINGS[c]}</th>" for c in ("team", "preliminary_place", "final_place", "change",
                                                        "preliminary_score", "final_score"))
    return (_STYLE + "<table class='srdash-pred-table srdash-pred-shakeup'>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def rejected_table_html(rejected: pd.DataFrame) -> str:
    """The rejected submissions (team, submission, reason with file line numbers), escaped.

    Examples
    --------
    >>> table = pd.DataFrame({"team": ["t"], "submission": ["s.txt"], "reason": ["row 3: 'x' is not a number"]})
    >>> "row 3: &#x27;x&#x27; is not a number" in rejected_table_html(table)
    True
    >>> rejected_table_html(table.iloc[:0])
    "<div class='srdash-note srdash-pred-no-rejected'>No submission was rejected.</div>"
    """
    if rejected.empty:
        return "<div class='srdash-note srdash-pred-no-rejected'>No submission was rejected.</div>"
    rows = "".join(f"<tr data-team=\"{html_text(r['team'])}\"><td class='srdash-team'>{html_text(r['team'])}</td>"
                   f"<td>{html_text(r['submission'])}</td><td class='srdash-reason'>{html_text(r['reason'])}</td></tr>"
                   for r in rejected.to_dict("records"))
    return (_STYLE + "<table class='srdash-pred-table srdash-pred-rejected'><thead><tr><th>Team</th>"
            f"<th>Submission</th><th>Reason (row = line of the file)</th></tr></thead><tbody>{rows}</tbody></table>")


def notes_html(notes, *, css_class: str = "srdash-warning") -> str:
    """Warnings or notes as escaped lines (empty string when there are none).

    Examples
    --------
    >>> notes_html(["<i>careful</i>"])
    "<div class='srdash-warning' style='color:#8a6d00'>⚠ &lt;i&gt;careful&lt;/i&gt;</div>"
    """
    return "".join(f"<div class='{css_class}' style='color:#8a6d00'>⚠ {html_text(note)}</div>" for note in notes)



def shakeup_figure(result, *, title: str | None = None, height: int | None = None):
    """Slope chart of the shake-up: each team's preliminary place to its final place.

    Lines are green for teams that moved up, red for teams that moved down and
    grey for teams that kept their place; place 1 (the best) is at the top.
    Team names are shown as plain text (HTML is escaped).

    Parameters
    ----------
    result : PredictionResult or CombinedLeaderboards
        One metric's shake-up, or the combined leaderboards' (several metrics).
    title : str, keyword-only
        Default: "Shake-up: preliminary → final place (<metric>, rule '<rule>')"
        (for combined leaderboards "(combined metrics, rule '<rule>')").
    height : int, keyword-only
        Figure height in pixels (default grows with the number of teams).

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from srdash.io.predictions import Targets
    >>> from srdash.judging.predictions import score_submissions
    >>> targets = Targets.from_arrays([1.0, 2.0, 3.0, 4.0], ["preliminary", "final"] * 2)
    >>> listing = pd.DataFrame({"team": ["<b>a</b>", "b"], "file": ["a.txt", "b.txt"]})
    >>> result = score_submissions(listing, targets, metric="mae",
    ...                            predictions={"a.txt": [1, 3, 3, 5], "b.txt": [2, 2, 4, 4]})
    >>> figure = shakeup_figure(result)
    >>> [trace.name for trace in figure.data]
    ['moved up', 'moved down']
    >>> figure.data[1].text[0]
    '&lt;b&gt;a&lt;/b&gt; (1)'
    """
    import plotly.graph_objects as go

    from srdash.judging.predictions import CombinedLeaderboards

    shake = result.shakeup
    n_teams = len(shake)
    figure = go.Figure()
    groups = (("moved up", shake["change"] > 0, "#2ca02c"), ("moved down", shake["change"] < 0, "#d62728"),
              ("same place", shake["change"] == 0, "#7f7f7f"))
    for name, mask, colour in groups:
        part = shake[mask.to_numpy()]
        if part.empty:
            continue
        x, y, text, custom, positions = [], [], [], [], []
        for team, p_place, f_place, p_score, f_score in zip(part["team"], part["preliminary_place"],
                                                            part["final_place"], part["preliminary_score"],
                                                            part["final_score"]):
            label = plotly_text(team)
            x += ["preliminary", "final", None]
            y += [p_place, f_place, None]
            text += [f"{label} ({p_place})", f"{label} ({f_place})", ""]
            positions += ["middle left", "middle right", "middle right"]
            custom += [[label, p_place, f_place, _score_text(p_score)], [label, p_place, f_place,
                                                                          _score_text(f_score)], [""] * 4]
        figure.add_trace(go.Scatter(
            x=x, y=y, text=text, customdata=custom, mode="lines+markers+text", name=name,
            textposition=positions, line={"color": colour, "width": 2}, marker={"size": 8, "color": colour},
            hovertemplate="%{customdata[0]}<br>place %{customdata[1]} → %{customdata[2]}<br>"
                          "score %{customdata[3]}<extra></extra>",
        ))
    if isinstance(result, CombinedLeaderboards):
        what = "combined metrics"
    else:
        what = f"{result.metric.label}, {result.metric.direction} is better"
    figure.update_layout(
        title=title if title is not None else
        f"Shake-up: preliminary → final place ({what}; rule '{result.rule}')",
        height=height if height is not None else max(300, 60 + 28 * n_teams),
        showlegend=True, template="plotly_white", margin={"l": 160, "r": 160},
    )
    figure.update_xaxes(type="category", categoryorder="array", categoryarray=["preliminary", "final"], title=None)
    figure.update_yaxes(autorange="reversed", title="place (1 = best)", dtick=1, zeroline=False)
    return figure


def _score_text(score: float) -> str:
    return "none (no valid submission)" if pd.isna(score) else f"{score:.6g}"
