"""``detailed_results.html``: one submission's per-dataset measures and problems, self-contained.

Codabench shows this file to the participant (``compute_worker.py``, codabench@c7dbc75); it must
need nothing from another machine: inline style, no script, every text escaped by srdash's one
table renderer (:func:`srdash.figures.tables.table_html`).
"""

from __future__ import annotations

import math
from typing import Sequence

from srdash.figures.escape import html_text
from srdash.figures.tables import Cell, table_html

__all__ = ["detailed_results_html"]

_STYLE = ("body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;margin:.5em 0}"
          "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}.failed{color:#a00;font-weight:bold}")
_MAX_PROBLEMS = 500


def _value(value) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "failed (worst value)"
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def detailed_results_html(scored, columns: Sequence, *, title: str = "") -> str:
    """The page for one :class:`~srdash.codabench.score.ScoredSubmission`.

    Parameters
    ----------
    scored : ScoredSubmission
    columns : sequence of Column
        The leaderboard's columns (for the criteria's order).
    title : str, keyword-only
        The competition's title.

    Returns
    -------
    str
        A whole HTML document with no external reference.
    """
    criteria = list(dict.fromkeys(c.criterion for c in columns if c.criterion))
    header = [Cell("dataset"), Cell("status"), Cell("runs"), *(Cell(c) for c in criteria)]
    rows = [[Cell(r["dataset"]), Cell(r["status"], "failed" if r["status"] != "ok" else ""), Cell(r["runs"]),
             *(Cell(_value(r.get(c))) for c in criteria)] for r in scored.rows]
    problems = scored.problems[:_MAX_PROBLEMS]
    problem_rows = [[Cell(p["kind"]), Cell(p["dataset"]), Cell(p["run"]), Cell(p["detail"])] for p in problems]
    more = len(scored.problems) - len(problems)
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{html_text(title or 'srdash')}: detailed results</title><style>{_STYLE}</style></head><body>",
        f"<h2>{html_text(title)}</h2>",
        f"<p>Method: <b>{html_text(scored.method or '(none: the file could not be scored)')}</b>. "
        "Scored by srdash on this submission alone; a failed model or a missing dataset counts as the "
        "worst value, as the rules say. The competition's verdict (ranks combined across submissions) is "
        "computed by srdash and published by the organiser.</p>",
    ]
    if rows:
        parts.append(table_html(header, rows, css="per-dataset"))
    parts.append(f"<h3>Problems ({len(scored.problems)})</h3>")
    if problem_rows:
        parts.append(table_html([Cell("kind"), Cell("dataset"), Cell("run"), Cell("detail")], problem_rows,
                                css="problems"))
    else:
        parts.append("<p>None.</p>")
    if more:
        parts.append(f"<p>{more} more not shown.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)
