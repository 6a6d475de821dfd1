"""`srdash codabench`: run a live Codabench competition with srdash as its judge (docs/codabench.md)."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import click

from srdash.cli._common import fail_cleanly, refuse_output_onto_input
from srdash.cli._options import bounded
from srdash.judging.competition import load_competition


@click.group("codabench")
def codabench() -> None:
    """Host a competition on Codabench, judged by srdash.

    `bundle` writes the competition bundle to upload, `validate` checks a bundle
    offline, `collect` turns the organiser's results download back into srdash
    results for `srdash score`, the dashboard and the report.
    """


def _date(ctx, param, value):
    if value is None:
        return None
    try:
        return _dt.date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"The '--start' option must be a date YYYY-MM-DD. Got {value!r}.") from None


@codabench.command("bundle")
@click.argument("competition_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The bundle zip to write.")
@click.option("--start", callback=_date, help="First day of the development phase, YYYY-MM-DD (default: today).")
@click.option("--development-days", default=30, show_default=True, type=bounded("development-days"),
              help="Length of the development phase.")
@click.option("--final-days", default=7, show_default=True, type=bounded("final-days"),
              help="Length of the final phase (it starts the day after the development phase ends).")
@click.option("--image", help="Docker image with srdash installed that Codabench's workers run the scoring "
                              "program in (default: srdash-codabench:<srdash version>, which you build).")
@click.option("--sample-method", help="The method whose results are the sample submission (default: the first).")
@click.option("--time-limit", default=600, show_default=True, type=bounded("scoring-seconds"),
              help="Seconds the scoring program may take per submission.")
def bundle_command(competition_file, output, start, development_days, final_days, image, sample_method,
                   time_limit):
    """Write a Codabench v2 bundle for the competition in COMPETITION_FILE (competition.toml).

    Pages (overview, evaluation from the rules, data, terms), a logo, a
    development and a final phase, one task each with the reference data and a
    scoring program that runs srdash, a leaderboard with one column per dataset
    and criterion, a sample submission and a starting kit. The bundle is checked
    as Codabench's unpacker would before this command returns.
    """
    from srdash.codabench.bundle import write_bundle

    with fail_cleanly():
        competition = load_competition(competition_file)
        refuse_output_onto_input([("-o/--output", output)], [competition_file, *competition.sources])
        write_bundle(competition, output, start=start, development_days=development_days, final_days=final_days,
                     image=image, sample_method=sample_method, execution_time_limit=time_limit)
    for part, present in (("qualification stage", competition.qualification), ("real-world track",
                                                                                competition.realworld)):
        if present is not None:
            click.echo(f"Note: the {part} compares methods; it is not run on Codabench but in the verdict you "
                       "compute from the collected results with this competition file.", err=True)
    _check(output)


@codabench.command("bundle-predictions")
@click.option("--targets-preliminary", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The preliminary subset's targets (one line per test sample, empty where not in the subset).")
@click.option("--targets-final", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The final subset's targets.")
@click.option("--metric", "metrics", multiple=True, required=True,
              help="A metric, one leaderboard column each (repeat: --metric rmse --metric mae).")
@click.option("--sample", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A valid predictions file: the sample submission.")
@click.option("--title", default="A prediction competition", show_default=True)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The bundle zip to write.")
@click.option("--start", callback=_date, help="First day of the development phase, YYYY-MM-DD (default: today).")
@click.option("--image", help="Docker image with srdash installed (default: srdash-codabench:<srdash version>).")
def bundle_predictions_command(targets_preliminary, targets_final, metrics, sample, title, output, start, image):
    """Write a Codabench v2 bundle for a prediction-file competition.

    The development phase scores the preliminary samples, the final phase the
    final ones; the leaderboard has one column per metric. The bundle is checked
    as Codabench's unpacker would before this command returns.
    """
    from srdash.codabench.predictions import write_prediction_bundle

    refuse_output_onto_input([("-o/--output", output)], [targets_preliminary, targets_final, sample])
    with fail_cleanly():
        write_prediction_bundle(output, targets_preliminary=targets_preliminary, targets_final=targets_final,
                                metrics=list(metrics), sample=sample, title=title, start=start, image=image)
    _check(output)


def _check(bundle: Path) -> None:
    from srdash.codabench.validate import validate_bundle

    problems = validate_bundle(bundle)
    for problem in problems:
        click.echo(f"  - {problem}", err=True)
    if problems:
        raise click.ClickException(f"The bundle {bundle} has {len(problems)} problem(s) Codabench would refuse.")
    click.echo(str(bundle))


@codabench.command("validate")
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def validate_command(bundle):
    """Check the Codabench bundle BUNDLE offline, as Codabench's unpacker and leaderboard checks do.

    Prints every problem found (exit 1) or 'no problem found'.
    """
    from srdash.codabench.validate import validate_bundle

    problems = validate_bundle(bundle)
    for problem in problems:
        click.echo(f"  - {problem}", err=True)
    if problems:
        raise click.ClickException(f"{len(problems)} problem(s) in {bundle}.")
    click.echo(f"{bundle}: no problem found.")


@codabench.command("collect")
@click.argument("export", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="The srdash results CSV to write (method, dataset, run, model, metric columns); for a "
                   "prediction-file competition, a folder (listing.csv and submissions/).")
@click.option("--phase", help="The phase's name or id, when EXPORT holds several phases' leaderboard CSVs.")
def collect_command(export, output, phase):
    """Turn a Codabench download in the folder EXPORT into srdash results.

    EXPORT holds the phase's leaderboard CSV (Codabench's competition results
    download) and each submission's scoring result (res_<id>_<owner>_PhaseId<n>_...zip).
    The method is the owner, or <owner>-<submission id> for an owner with several
    submissions. Judge the output with `srdash score` (point the competition
    file's `results` at it); a prediction-file competition's OUTPUT folder with
    `srdash predictions score OUTPUT/listing.csv ...`.
    """
    from srdash.codabench.collect import collect_export, write_collected

    refuse_output_onto_input([("-o/--output", output)], [export])
    with fail_cleanly():
        collected = collect_export(export, phase=phase)
        written = write_collected(collected, output)
    for problem in collected.problems:
        click.echo(f"Left out: {problem}", err=True)
    click.echo(f"Collected {len(collected.methods)} method(s) from {collected.phase} into {written}.", err=True)
