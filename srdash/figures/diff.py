"""What changed between two verdicts, as HTML: the report's "What changed since ..." section.

Examples
--------
>>> import pandas as pd
>>> from srdash.analysis.diff import VerdictSide, diff_verdicts
>>> from srdash.demo.examples import accuracy_rules
>>> from srdash.judging.ranking import judge
>>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "r2_test": [0.9, 0.5, 0.1]})
>>> rules = accuracy_rules()
>>> new = runs[runs["method"] != "a"]
>>> diff = diff_verdicts(VerdictSide("v1", "1" * 64, runs, rules, judge(runs, rules).leaderboard),
...                      VerdictSide("v2", "2" * 64, new, rules, judge(new, rules).leaderboard))
>>> page = diff_html(diff)
>>> page.count("<tr"), "entrants removed (a)" in page
(4, True)
"""

from __future__ import annotations

from srdash.figures.escape import html_text
from srdash.figures.tables import Cell, table_html

__all__ = ["diff_html", "diff_rows"]


def diff_rows(diff) -> list[list[str]]:
    """The diff's table as text rows: method, old place, new place, cause(s) ("-": not in that verdict)."""
    import pandas as pd

    def place(value) -> str:
        return "-" if pd.isna(value) else str(int(value))

    return [[str(row.method), place(row.old_place), place(row.new_place), row.causes or "unchanged"]
            for row in diff.table.itertuples()]


def diff_html(diff) -> str:
    """The moved places and their causes (one row per method of either verdict), and the diff in words.

    Parameters
    ----------
    diff : VerdictDiff
        From :func:`srdash.analysis.diff.diff_verdicts`.

    Returns
    -------
    str
        An HTML fragment; every text escaped.
    """
    from srdash.analysis.diff import diff_text  # lazy: numpy, pandas

    header = [Cell("Method"), Cell(f"Place in {diff.old}"), Cell(f"Place in {diff.new}"), Cell("Moved by")]
    rows = [[Cell(method), Cell(old), Cell(new), Cell(causes, "srdash-changes" if causes != "unchanged" else "")]
            for method, old, new, causes in diff_rows(diff)]
    return (table_html(header, rows, css="srdash-table srdash-diff")
            + f"<div class='srdash-note'>{html_text(diff_text(diff))}</div>")
