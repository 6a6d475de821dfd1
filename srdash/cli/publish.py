"""`srdash publish`: freeze a verdict as a folder a reader can cite and `srdash diff` can compare."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import (competition_files, competition_input, echo_fingerprint, fail_cleanly, judged,
                                refuse_output_onto_input)
from srdash.cli._options import bounded
from srdash.errors import SrdashError


def _checked_date(ctx, param, value):
    """Click callback: a date is refused before any judging (the command would judge first, then fail)."""
    if value is None:
        return None
    from srdash.report.publish import check_date

    try:
        check_date(value)
    except SrdashError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc
    return value


@click.command("publish")
@competition_input
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The folder to write: new or empty, or holding this same verdict (then written again).")
@click.option("--date", callback=_checked_date, help="Date of the release, YYYY-MM-DD, in CITATION.cff and the report (default: the "
                             "newest modification date of the inputs, UTC; never the clock).")
@click.option("--samples", default=2000, show_default=True, type=bounded("report-samples"),
              help="Weight vectors drawn from the simplex for the report's weight-sensitivity views.")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"),
              help="Seed of that draw (same seed, same report).")
def publish_command(competition, output, date, samples, seed):
    """Publish the verdict of INPUT as a folder.

    INPUT is what `srdash score` reads. The folder holds the leaderboard(s),
    the per-dataset table, the per-run values the verdict was judged from,
    the problems, the provenance, the rules file, the HTML report and a
    CITATION.cff (Citation File Format 1.2.0) naming the competition and the
    verdict fingerprint; the data files' names carry the fingerprint's first
    12 characters, and published.json lists every file with its SHA-256.
    The same inputs give the same bytes in any folder. `srdash diff` compares
    two published folders and refuses one whose files were edited.
    """
    from srdash.report.publish import publish_result

    refuse_output_onto_input([("-o/--output", output)], competition_files(competition))
    result = judged(competition)
    with fail_cleanly():
        manifest = publish_result(result, output, date=date, samples=samples, seed=seed)
    click.echo(f"Published {result.fingerprint[:12]} to {output} ({len(list(output.iterdir()))} files; "
               f"{manifest.name} lists them with their SHA-256).", err=True)
    echo_fingerprint(result)
