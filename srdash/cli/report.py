"""`srdash report`: publish a verdict as one self-contained HTML file, Markdown or a LaTeX table."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import (competition_files, competition_input, echo_fingerprint, fail_cleanly, judged,
                                refuse_output_onto_input)
from srdash.cli._options import bounded

_SUFFIX_FORMATS = {".md": "md", ".markdown": "md", ".tex": "latex", ".latex": "latex"}


def _say(text: str) -> None:
    """One step of the report's work, on stderr (the report's long steps take seconds at real sizes)."""
    click.echo(f"{text}...", err=True)


def _format_of(output: Path, chosen: str | None) -> str:
    if chosen is not None:
        return chosen
    return _SUFFIX_FORMATS.get(output.suffix.lower(), "html")


@click.command("report")
@competition_input
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="File to write: the HTML report, the Markdown summary or the LaTeX table (see --format).")
@click.option("--format", "output_format", type=click.Choice(["html", "md", "latex"]),
              help="html: one self-contained page (plots, tables, reproducibility block; opens offline); "
                   "md: Markdown summary with the leaderboard tables; latex: the leaderboard as a booktabs "
                   "table. Default: from the output's suffix (.md, .tex), else html.")
@click.option("--title", help="Title of the report (default: the competition's title, else the rules' title).")
@click.option("--samples", default=2000, show_default=True, type=bounded("report-samples"),
              help="Weight vectors drawn from the simplex for the weight-sensitivity views.")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"), help="Seed of that draw (same seed, same report).")
@click.option("--previous", type=click.Path(exists=True, path_type=Path),
              help="A previous version of the verdict: a published folder (`srdash publish`) or a competition file. "
                   "The report then says what changed since, and why (as `srdash diff` does).")
def report_command(competition, output, output_format, title, samples, seed, previous):
    """Write a report of the competition in INPUT.

    INPUT is what `srdash score` reads: a competition file (competition.toml),
    or results (a CSV or Parquet file with one row per (method, dataset, run),
    or a folder of SRBench-style JSON files) completed by the options. The HTML
    report is one file that needs no server and no network (plotly.js and all
    styles are inlined): the leaderboards, per-dataset ranks, simplicity
    curve, properties, weight sensitivity (place probabilities, ternary winner
    map), the problems and a reproducibility block (versions, the rules file
    in full, the SHA-256 of every input file, the generation time).

    Ranks are 'higher is better' (K = best, 1 = worst); places: 1 = best.
    """
    from dataclasses import replace

    from srdash.report.build import build_competition_report, write_report

    refuse_output_onto_input([("-o/--output", output)], competition_files(competition) + [previous])
    chosen = _format_of(output, output_format)
    if not competition.rules.rule_kind.judges_runs:
        raise click.UsageError(f"`srdash report` covers rules that rank per-run results (SRBench style); the "
                               f"rules '{competition.rules.name}' are {competition.rules.kind}. Use `srdash "
                               "score` for them.")
    if title:
        competition = replace(competition, title=title)
    previous_side = None
    if previous is not None:
        from srdash.analysis.published import is_published_folder
        from srdash.cli.diff import side_of_path
        from srdash.judging.competition import is_competition_file

        if not (is_published_folder(previous) or is_competition_file(previous)):
            raise click.UsageError(f"--previous '{previous}' is neither a published folder (with published.json) nor "
                                   "a competition file. Publish the previous verdict with `srdash publish`, or "
                                   "compare results files with `srdash diff`.")
        previous_side = side_of_path(previous)
    result = judged(competition)
    verdict = result.verdict
    with fail_cleanly():
        report = build_competition_report(result, samples=samples, seed=seed, previous=previous_side,
                                          stage=_say)
        path = write_report(report, output, format=chosen, stage=_say)
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    size = path.stat().st_size
    click.echo(f"Wrote {path} ({chosen}, {size:,} bytes, {verdict.n_methods} methods, "
               f"verdict fingerprint {result.fingerprint[:12]}).", err=True)
    echo_fingerprint(result)
