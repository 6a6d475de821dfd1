"""HTML tables of prediction-file competitions (leaderboards, shake-up, rejected submissions).

Pure functions from the frames of :mod:`srdash.judging.predictions` to HTML fragments,
shared by the predictions app (:class:`srdash.apps.predictions.PredictionsDashboard`).
Team names, submission names and reasons come from competitors' files and are
untrusted: every value is escaped (``html.escape``, quotes included), so a team
called ``<b>x</b>`` is shown as those seven characters. The slope chart is
:func:`shakeup_figure` (team names as plain text too).

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
import textwrap

import pandas as pd

from srdash.figures.tables import Cell, Markup, table_html
from srdash.figures.escape import html_text, plotly_text
from srdash.judging.predictions import CombinedLeaderboards

__all__ = ["leaderboard_table_html", "shakeup_table_html", "rejected_table_html", "notes_html", "shakeup_figure",
           "DECIMALS", "NUMBERS_NOTE"]

#: Decimals of every score and metric value in the tables, fixed so that a column's decimal points line up
#: (as the dashboard's leaderboard does); ranks are shown exactly (whole, or .5 for a tie).
DECIMALS = 4
#: What the tables' numbers are, for the page that shows them.
NUMBERS_NOTE = (f"Scores and metric values to {DECIMALS} decimals (teams are ranked on the exact values); "
                "ranks exact.")

_STYLE = """<style>
.srdash-pred-table{border-collapse:collapse;font-size:13px;line-height:1.35;margin:4px 0}
.srdash-pred-table th,.srdash-pred-table td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;
vertical-align:top}
.srdash-pred-table th,.srdash-pred-table td.number{white-space:nowrap}
.srdash-pred-table td.srdash-reason{min-width:14em}
.srdash-pred-table th{background:#f3f3f3}
.srdash-pred-table td.number{text-align:right;font-variant-numeric:tabular-nums}
.srdash-pred-caption{font-weight:600;margin:6px 0 2px 0;white-space:normal;position:sticky;left:0;
max-width:calc(100vw - 48px)}
</style>"""
# Columns every leaderboard has, in this order; others (metric values, ranks) follow the score.
_FIRST = ("place", "team", "score")
_LAST = ("submission", "entries", "status")
_HEADINGS = {"place": "Place", "team": "Team", "score": "Score", "submission": "Submission", "entries": "Entries",
             "status": "Status", "preliminary_place": "Preliminary place", "final_place": "Final place",
             "change": "Change", "preliminary_score": "Preliminary score", "final_score": "Final score"}




def _number(value, decimals: int) -> str:
    """``value`` with ``decimals`` fixed decimals ('' when missing)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{float(value):.{decimals}f}"


def _rank(value) -> str:
    """A rank as it is: whole, or with the decimals of a tie's average (2.5)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{float(value):g}"


def _heading(column: str) -> str:
    if column in _HEADINGS:
        return _HEADINGS[column]
    if column.endswith("_rank"):
        return f"{column[:-5]} rank"
    return column


def leaderboard_table_html(board: pd.DataFrame, *, subset: str, caption: str = "", decimals: int = DECIMALS) -> str:
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
        Fixed decimals of the scores and metric values (ranks, ``*_rank``, are shown exactly).

    Returns
    -------
    str
        Each body row has ``data-team`` (the escaped team) and its team cell
        class ``srdash-team``; a missing score reads "no valid submission".
    """
    middle = [c for c in board.columns if c not in _FIRST + _LAST]
    columns = [c for c in _FIRST if c in board.columns] + middle + [c for c in _LAST if c in board.columns]
    rows = []
    for record in board.to_dict("records"):
        cells = []
        for column in columns:
            value = record[column]
            if column == "team":
                cells.append(Cell(value, "srdash-team"))
            elif column == "score" and (value is None or (isinstance(value, float) and math.isnan(value))):
                cells.append(Cell("no valid submission", "number srdash-no-score"))
            elif column in ("submission", "status"):
                cells.append(Cell("" if value is None or value != value else value))
            elif column in ("place", "entries"):
                cells.append(Cell(int(value), "number"))
            elif column.endswith("_rank"):
                cells.append(Cell(_rank(value), "number"))
            else:
                cells.append(Cell(_number(value, decimals), "number"))
        rows.append(cells)
    title = f"<div class='srdash-pred-caption'>{html_text(caption)}</div>" if caption else ""
    return _STYLE + title + table_html([Cell(_heading(c)) for c in columns], rows,
                                       css=f"srdash-pred-table srdash-pred-leaderboard srdash-pred-{subset}",
                                       row_attributes=[{"data-team": r["team"]} for r in board.to_dict("records")])


def shakeup_table_html(shakeup: pd.DataFrame, *, decimals: int = DECIMALS) -> str:
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
        arrow = (Markup("<span style='color:#2ca02c'>▲{}</span>").format(change) if change > 0 else
                 Markup("<span style='color:#d62728'>▼{}</span>").format(-change) if change < 0 else "=")
        rows.append([Cell(record["team"], "srdash-team"), Cell(int(record["preliminary_place"]), "number"),
                     Cell(int(record["final_place"]), "number"), Cell(arrow, "number"),
                     Cell(_number(record["preliminary_score"], decimals), "number"),
                     Cell(_number(record["final_score"], decimals), "number")])
    header = [Cell(_HEADINGS[c]) for c in ("team", "preliminary_place", "final_place", "change",
                                            "preliminary_score", "final_score")]
    return _STYLE + table_html(header, rows, css="srdash-pred-table srdash-pred-shakeup",
                               row_attributes=[{"data-team": r["team"]} for r in shakeup.to_dict("records")])


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
    records = rejected.to_dict("records")
    rows = [[Cell(r["team"], "srdash-team"), Cell(r["submission"]), Cell(r["reason"], "srdash-reason")]
            for r in records]
    header = [Cell("Team"), Cell("Submission"), Cell("Reason (row = line of the file)")]
    return _STYLE + table_html(header, rows, css="srdash-pred-table srdash-pred-rejected",
                               row_attributes=[{"data-team": r["team"]} for r in records])


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
    The teams are named beside the places, preliminary on the left and final on
    the right (tick labels, so that plotly makes room for them): teams sharing a
    place share one label (``a, b (2)``), long names are cut with '…' (the hover
    shows them whole) and HTML in names is shown as text.

    Parameters
    ----------
    result : PredictionResult or CombinedLeaderboards
        One metric's shake-up, or the combined leaderboards' (several metrics).
    title : str, keyword-only
        Default: "Shake-up: preliminary → final place", then on a second line
        "(<metric>, <direction> is better; rule '<rule>')" (for combined
        leaderboards "(combined metrics; rule '<rule>')").
    height : int, keyword-only
        Figure height in pixels (default: 32 px per place plus the margins, at
        least 300 px).

    Returns
    -------
    plotly.graph_objects.Figure
        One line trace per group that has teams ('moved up', 'moved down',
        'same place'), then an invisible trace holding the right-hand axis.

    Examples
    --------
    >>> from srdash.io.predictions import Targets
    >>> from srdash.judging.predictions import score_submissions
    >>> targets = Targets.from_arrays([1.0, 2.0, 3.0, 4.0], ["preliminary", "final"] * 2)
    >>> listing = pd.DataFrame({"team": ["<b>a</b>", "b"], "file": ["a.txt", "b.txt"]})
    >>> result = score_submissions(listing, targets, metric="mae",
    ...                            predictions={"a.txt": [1, 3, 3, 5], "b.txt": [2, 2, 4, 4]})
    >>> figure = shakeup_figure(result)
    >>> [trace.name for trace in figure.data if trace.showlegend is not False]
    ['moved up', 'moved down']
    >>> list(figure.layout.yaxis.ticktext), list(figure.layout.yaxis2.ticktext)
    (['&lt;b&gt;a&lt;/b&gt; (1)', 'b (2)'], ['(1) b', '(2) &lt;b&gt;a&lt;/b&gt;'])
    """
    import plotly.graph_objects as go

    shake = result.shakeup
    n_places = int(max(shake["preliminary_place"].max(), shake["final_place"].max())) if len(shake) else 1
    figure = go.Figure()
    groups = (("moved up", shake["change"] > 0, "#2ca02c"), ("moved down", shake["change"] < 0, "#d62728"),
              ("same place", shake["change"] == 0, "#7f7f7f"))
    for name, mask, colour in groups:
        part = shake[mask.to_numpy()]
        if part.empty:
            continue
        x, y, custom = [], [], []
        for team, p_place, f_place, p_score, f_score in zip(part["team"], part["preliminary_place"],
                                                            part["final_place"], part["preliminary_score"],
                                                            part["final_score"]):
            label = plotly_text(team)
            p_place, f_place = int(p_place), int(f_place)
            x += ["preliminary", "final", None]
            y += [p_place, f_place, None]
            custom += [[label, p_place, f_place, _score_text(p_score)],
                       [label, p_place, f_place, _score_text(f_score)], [""] * 4]
        figure.add_trace(go.Scatter(
            x=x, y=y, customdata=custom, mode="lines+markers", name=name,
            line={"color": colour, "width": 2}, marker={"size": 8, "color": colour},
            hovertemplate="%{customdata[0]}<br>place %{customdata[1]} → %{customdata[2]}<br>"
                          "score %{customdata[3]}<extra></extra>",
        ))
    # The right-hand axis (final places) is drawn only if a trace uses it.
    figure.add_trace(go.Scatter(x=["final"] * len(shake), y=shake["final_place"].astype(int).tolist(), yaxis="y2",
                                mode="markers", marker={"opacity": 0}, showlegend=False, hoverinfo="skip"))
    if title is None:
        if isinstance(result, CombinedLeaderboards):
            what = "combined metrics"
        else:
            what = f"{result.metric.label}, {result.metric.direction} is better"
        title = "Shake-up: preliminary → final place<br>" + "<br>".join(
            textwrap.wrap(plotly_text(f"({what}; rule '{result.rule}')"), _TITLE_LINE, break_long_words=False))
    places = {"range": [n_places + 0.5, 0.5], "zeroline": False, "showgrid": True, "fixedrange": True,
              "automargin": True, "tickfont": {"size": 12}, "ticks": ""}
    preliminary = _place_labels(shake["team"], shake["preliminary_place"], place_first=False)
    final = _place_labels(shake["team"], shake["final_place"], place_first=True)
    figure.update_layout(
        title={"text": title, "font": {"size": 15}, "x": 0.5, "xanchor": "center"},
        height=height if height is not None else max(300, _TOP + _BOTTOM + _PLACE_HEIGHT * n_places),
        template="plotly_white", margin={"l": 10, "r": 10, "t": _TOP, "b": _BOTTOM},
        # below the plot, centred: it never takes width from the names on either side
        showlegend=True, legend={"orientation": "h", "x": 0.5, "xanchor": "center", "y": 0, "yref": "container",
                                 "yanchor": "bottom"},
        xaxis={"type": "category", "categoryorder": "array", "categoryarray": ["preliminary", "final"],
               "range": [-0.15, 1.15], "fixedrange": True, "title": None, "automargin": True},
        yaxis={**places, "tickvals": list(preliminary), "ticktext": list(preliminary.values())},
        yaxis2={**places, "tickvals": list(final), "ticktext": list(final.values()), "overlaying": "y",
                "side": "right", "matches": "y", "showgrid": False},
    )
    return figure


# Layout of the slope chart: pixels per place and the margins above (two-line title) and below (the place
# columns' names and the legend); names are cut to this many characters (the hover shows them whole).
_PLACE_HEIGHT = 32
_TOP = 80
_BOTTOM = 70
_TITLE_LINE = 40
_NAME_LENGTH = 20


def _place_labels(teams: pd.Series, places: pd.Series, *, place_first: bool) -> dict[int, str]:
    """One escaped label per place: the teams at that place (tied teams share it), and the place."""
    labels = {}
    for place, names in pd.DataFrame({"team": teams.astype(str), "place": places.astype(int)}).groupby(
            "place", sort=True)["team"]:
        shown = _joined(sorted(names))
        labels[int(place)] = f"({place}) {shown}" if place_first else f"{shown} ({place})"
    return labels


def _joined(names: list[str]) -> str:
    """Names joined with ', ' within about _NAME_LENGTH characters, then '+N' for the others; escaped."""
    cut = [name if len(name) <= _NAME_LENGTH else name[:_NAME_LENGTH - 1] + "…" for name in names]
    shown = [cut[0]]
    for name in cut[1:]:
        longer = ", ".join(shown + [name])
        # the last name is shown when it takes no more room than ' +1 more' would
        last = len(shown) == len(cut) - 1 and len(longer) <= len(", ".join(shown)) + len(" +1 more")
        if len(longer) > _NAME_LENGTH and not last:
            break
        shown.append(name)
    rest = len(names) - len(shown)
    return plotly_text(", ".join(shown)) + (f" +{rest} more" if rest else "")


def _score_text(score: float) -> str:
    return "none (no valid submission)" if pd.isna(score) else f"{score:.{DECIMALS}f}"
