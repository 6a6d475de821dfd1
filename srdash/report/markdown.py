"""The report's leaderboards as Markdown tables (for papers and READMEs), every competitor's text escaped."""

from __future__ import annotations

import re
from typing import Sequence

import pandas as pd

from srdash.analysis.diff import diff_text
from srdash.analysis.jury_model import jury_model_text
from srdash.figures.escape import plotly_text
from srdash._version import __version__
from srdash.judging.ranking import Verdict
from srdash.report.model import Report
from srdash.report.sections import cell_text, prediction_report_sections

__all__ = ["render_markdown"]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]|#+!~])")


def _md(value) -> str:
    """Text made inert in a Markdown table cell: HTML escaped, Markdown specials backslashed."""
    text = " ".join(cell_text(value).split())  # no line breaks inside a cell
    return _MARKDOWN_SPECIAL.sub(r"\\\1", plotly_text(text))


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence], numeric: Sequence[bool]) -> list[str]:
    lines = ["| " + " | ".join(_md(h) for h in header) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(_md(v) for v in row) + " |" for row in rows]
    return lines


#: The columns of a shown leaderboard (srdash.analysis.board) after the verdict's, with their headers.
_SHOWN_COLUMNS = {"places": "Places", "tied_with_winner": "Tied with winner", "timed_out": "Timed out",
                  "did_not_parse": "Did not parse", "non_finite": "Non-finite", "missing": "Missing",
                  "imputed": "Imputed"}


def _leaderboard_rows(verdict: Verdict, decimals: int, *, shown=None) -> tuple[list[str], list[list], list[bool]]:
    header = ["Place", "Method", "Score"] + [c.label for c in verdict.criteria] + ["Datasets", "DNF"]
    board = verdict.leaderboard if shown is None else shown.table
    extra = [] if shown is None else [c for c in _SHOWN_COLUMNS
                                      if shown.resolution is not None or c not in ("places", "tied_with_winner")]
    header += [_SHOWN_COLUMNS[c] for c in extra]
    rows = []
    for row in board.to_dict("records"):
        rows.append([int(row["place"]), row["method"], f"{row['score']:.{decimals}f}"]
                    + [f"{row[f'{c.name}_rank']:.{decimals}f}" for c in verdict.criteria]
                    + [int(row["datasets"]), int(row["dnf"])] + [row[c] for c in extra])
    numeric = [True, False] + [True] * (len(header) - 2 - len(extra)) + [
        c not in ("places", "tied_with_winner", "imputed") for c in extra]
    return header, rows, numeric


def _rank_sentence(verdict: Verdict) -> str:
    k = verdict.n_methods
    return (f"Place 1 = best. Score = mean over datasets of the harmonic mean of the criteria ranks; the criteria "
            f"columns are mean ranks over datasets (higher is better, {k} = best, 1 = worst). "
            f"DNF = datasets without any result.")


def render_markdown(report: Report, *, decimals: int = 3) -> str:
    """A Markdown summary: the leaderboards, the warnings, the problem counts and the provenance.

    Parameters
    ----------
    report : Report
    decimals : int, keyword-only
        Decimals of scores and mean ranks.

    Returns
    -------
    str
    """
    if report.is_prediction_competition:
        return _prediction_markdown(report, decimals=decimals)
    verdict = report.verdict
    lines = [f"# {_md(report.title)}", "",
             f"Generated {report.generated_at} by srdash {__version__} "
             f"(sympy {report.reproducibility.get('sympy_version', '?')}); rules `{verdict.rules.name}` "
             f"(SHA-256 `{verdict.rules.sha256[:16]}…`).", "",
             f"## Leaderboard{' (synthetic track)' if report.realworld is not None else ''}", ""]
    shown = report.leaderboard
    lines += _markdown_table(*_leaderboard_rows(verdict if shown is None else shown.verdict, decimals, shown=shown))
    lines += [""] + ([] if shown is None else [_md(shown.sentence), ""]) + [_rank_sentence(verdict), ""]
    if report.changes is not None:
        from srdash.figures.diff import diff_rows  # lazy: jinja2

        changes = report.changes
        lines += [f"## What changed since {_md(changes.old)}", ""]
        lines += _markdown_table(["Method", f"Place in {changes.old}", f"Place in {changes.new}", "Moved by"],
                                 diff_rows(changes), [False, True, True, False])
        lines += ["", _md(diff_text(changes)), ""]
    if report.realworld is not None:
        lines += ["## Leaderboard (real-world track)", ""]
        lines += _markdown_table(*_leaderboard_rows(report.realworld, decimals))
        lines += ["", _rank_sentence(report.realworld), ""]
    if report.jury_model is not None:
        lines += ["## Jury model (real-world track, second opinion)", "", "```", jury_model_text(report.jury_model),
                  "```", ""]
    if report.predictions is not None:
        result = report.predictions
        better = "higher" if result.metric.direction == "higher" else "lower"
        for subset in ("final", "preliminary"):
            board = result.leaderboard(subset)
            columns = [c for c in ("place", "team", "score", "submission", "entries") if c in board.columns]
            lines += [f"## {subset.capitalize()} leaderboard ({_md(result.metric.label)}, {better} is better)", ""]
            lines += _markdown_table([c.capitalize() for c in columns], board[columns].values.tolist(),
                                     [pd.api.types.is_numeric_dtype(board[c]) for c in columns])
            lines.append("")
    warnings = list(dict.fromkeys(verdict.warnings + (report.realworld.warnings if report.realworld else ())))
    if warnings:
        lines += ["## Warnings", ""] + [f"- {_md(w)}" for w in warnings] + [""]
    if len(verdict.problems):
        counts = verdict.problems["kind"].value_counts().sort_index()
        lines += ["## Problems", "", ", ".join(f"{n} {_md(kind)}" for kind, n in counts.items())
                  + ". Failed or missing values count as the worst value; DNF cells rank last.", ""]
    lines += ["## Reproducibility", "", "| Entry | Value |", "|---|---|"]
    lines += [f"| {_md(key)} | `{value}` |" if key.endswith(("sha256", "fingerprint")) or key.startswith("input")
              else f"| {_md(key)} | {_md(value)} |" for key, value in report.reproducibility.items()]
    return "\n".join(lines) + "\n"


def _prediction_markdown(report: Report, *, decimals: int) -> str:
    lines = [f"# {_md(report.title)}", "",
             f"Generated {report.generated_at} by srdash {__version__}. Places: 1 = best.", ""]
    for section in prediction_report_sections(report):
        tables = [b for b in section.blocks if b.kind in ("table", "text")]
        if not tables:
            continue
        lines += [f"## {_md(section.title)}", ""]
        for block in tables:
            if block.kind == "text":
                lines += [f"- {_md(block.content)}", ""]
                continue
            content = block.content
            lines += [f"**{_md(block.caption)}**", ""]
            lines += _markdown_table(content["columns"], content["rows"], content["numeric"])
            lines.append("")
    lines += ["## Reproducibility", "", "| Entry | Value |", "|---|---|"]
    lines += [f"| {_md(key)} | {_md(value)} |" for key, value in report.reproducibility.items()]
    return "\n".join(lines) + "\n"
