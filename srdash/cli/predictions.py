"""`srdash predictions`: judge prediction-file competitions (preliminary and final leaderboards)."""

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly

_METRIC_NAMES = ("accuracy", "r2", "rmse", "mae")
_out_path = click.Path(dir_okay=False, path_type=Path)
_in_file = click.Path(exists=True, dir_okay=False, path_type=Path)


def _printable(text: str) -> str:
    # Team names and file contents are untrusted: no terminal control characters.
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def _write(table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False)
    click.echo(f"Wrote {path}", err=True)


@click.group()
def predictions() -> None:
    """Judge competitions where teams hand in files of predictions.

    The hidden targets split the test samples into a preliminary subset (scored
    during the competition) and a final subset (decides it), as on TunedIT or
    Kaggle's public and private leaderboards.
    """


@predictions.command()
@click.argument("submissions", type=click.Path(exists=True, path_type=Path))
@click.option("--targets-preliminary", type=_in_file,
              help="Preliminary test file: one line per test sample, the target where the sample is in the "
                   "preliminary subset, an empty line where it is not. Use with --targets-final.")
@click.option("--targets-final", type=_in_file,
              help="Final test file, same layout: the target of each final sample, empty lines elsewhere.")
@click.option("--targets-csv", type=_in_file,
              help="Instead of the two test files: one CSV with columns id, target, subset "
                   "(subset = preliminary or final).")
@click.option("-m", "--metric", "metric_names", type=click.Choice(_METRIC_NAMES), multiple=True, required=True,
              help="Metric: accuracy (integer labels; higher is better), r2 (higher), rmse or mae (lower). "
                   "Repeat to compute several; the first one ranks the leaderboards.")
@click.option("-o", "--output", type=_out_path, required=True,
              help="Final leaderboard CSV to write: place (1 = best; ties share the smallest place), team, "
                   "score, submission, entries.")
@click.option("--preliminary", "preliminary_output", type=_out_path,
              help="Also write the preliminary leaderboard CSV (same columns).")
@click.option("--shakeup", "shakeup_output", type=_out_path,
              help="Also write the shake-up CSV: team, preliminary_place, final_place, change "
                   "(positive = moved up), preliminary_score, final_score.")
@click.option("--submissions-table", "submissions_output", type=_out_path,
              help="Also write the per-submission CSV: team, submission, submitted_at, status, reason and "
                   "every metric on both subsets.")
@click.option("--rule", type=click.Choice(("last", "best-preliminary", "selected")), default="last",
              show_default=True,
              help="Which submission counts per team: the last valid one; the one with the best preliminary "
                   "score; or, among those marked in the listing's 'selected' column, the best preliminary one "
                   "on the preliminary and the best final one on the final leaderboard (Kaggle).")
@click.option("--max-selected", type=click.IntRange(min=1), default=2, show_default=True,
              help="How many submissions a team may select (rule 'selected'); a team that selected none gets "
                   "its best preliminary ones.")
@click.option("--order", type=click.Choice(("submitted_at", "name")), default="submitted_at", show_default=True,
              help="Order of a team's submissions (decides the last one): submission time (the listing's "
                   "submitted_at, or the file modification time in a folder) or file name.")
def score(submissions, targets_preliminary, targets_final, targets_csv, metric_names, output, preliminary_output,
          shakeup_output, submissions_output, rule, max_selected, order):
    """Score every submission in SUBMISSIONS and write the leaderboards.

    SUBMISSIONS is a folder with one folder per team holding its submission
    files (SUBMISSIONS/team/file), or a CSV listing team, file (relative to the
    CSV) and optionally submitted_at (ISO 8601, UTC) and selected (yes/no).
    A submission file is a text file with one prediction per line, one line
    per test sample, or a CSV with columns id, prediction (text targets have
    ids 1, 2, ... = line numbers).

    A rejected submission (wrong number of lines, a value that is not a finite
    number, ...) is listed on stderr with file, line and reason; the others are
    still scored. The exit code is 0 when scoring ran, even with rejected
    submissions, and 1 when an input (targets, listing, options) is invalid.
    """
    from srdash.predictions import read_targets, read_targets_csv, score_submissions

    if targets_csv is not None and (targets_preliminary is not None or targets_final is not None):
        raise click.UsageError("Give either --targets-csv or both --targets-preliminary and --targets-final, "
                               "not both.")
    if targets_csv is None and (targets_preliminary is None or targets_final is None):
        raise click.UsageError("The targets are missing: give --targets-preliminary and --targets-final "
                               "(two text files) or --targets-csv (one CSV with id, target, subset).")
    with fail_cleanly():
        targets = (read_targets_csv(targets_csv) if targets_csv is not None
                   else read_targets(targets_preliminary, targets_final))
        result = score_submissions(submissions, targets, metric=metric_names[0], extra_metrics=metric_names[1:],
                                   rule=rule, max_selected=max_selected, order=order)
    for note in result.warnings:
        click.secho(f"Warning: {_printable(note)}", fg="yellow", err=True)
    rejected = result.rejected
    if len(rejected):
        click.echo(f"{len(rejected)} of {len(result.submissions)} submission(s) rejected:", err=True)
        for team, submission, reason in rejected.itertuples(index=False):
            click.echo(f"  - {_printable(team)}, {_printable(submission)}: {_printable(reason)}", err=True)
    _write(result.final_leaderboard, output)
    if preliminary_output is not None:
        _write(result.preliminary_leaderboard, preliminary_output)
    if shakeup_output is not None:
        _write(result.shakeup, shakeup_output)
    if submissions_output is not None:
        _write(result.submissions.drop(columns=["file"]), submissions_output)
    metric = result.metric
    board = result.final_leaderboard[["place", "team", "score", "submission"]].copy()
    board["team"] = board["team"].map(_printable)
    board["submission"] = board["submission"].map(lambda s: "-" if s is None or s != s else _printable(s))
    board["score"] = board["score"].map(lambda v: "no valid submission" if v != v else f"{v:.6g}")
    click.echo(f"Final leaderboard ({metric.short_name}, {metric.direction} is better; rule '{rule}'; "
               f"{len(result.submissions) - len(rejected)} of {len(result.submissions)} submissions scored):")
    click.echo(board.to_string(index=False))
