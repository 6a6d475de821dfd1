"""`srdash predictions`: judge prediction-file competitions (preliminary and final leaderboards)."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.apps import server as app
from srdash.cli._options import bounded
from srdash.cli._common import fail_cleanly, refuse_output_onto_input, rules_reference, serve_notebook
from srdash.io.csvsafe import write_csv

_METRIC_NAMES = ("accuracy", "r2", "rmse", "mae")
_out_path = click.Path(dir_okay=False, path_type=Path)
_in_file = click.Path(exists=True, dir_okay=False, path_type=Path)


def _printable(text: str) -> str:
    # Team names and file contents are untrusted: no terminal control characters.
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def _competition_options(*, metric_required: bool):
    """The inputs shared by `score`, `serve` and `report`: targets, metrics, submission rule, combining rules."""
    options = [
        click.option("--targets-preliminary", type=_in_file,
                     help="Preliminary test file: one line per test sample, the target where the sample is in "
                          "the preliminary subset, an empty line where it is not. Use with --targets-final."),
        click.option("--targets-final", type=_in_file,
                     help="Final test file, same layout: the target of each final sample, empty lines elsewhere."),
        click.option("--targets-csv", type=_in_file,
                     help="Instead of the two test files: one CSV with columns id, target, subset "
                          "(subset = preliminary or final)."),
        click.option("-m", "--metric", "metric_names", type=click.Choice(_METRIC_NAMES), multiple=True,
                     required=metric_required,
                     help="Metric: accuracy (integer labels; higher is better), r2 (higher), rmse or mae (lower). "
                          "Repeat to compute several: they are combined into one leaderboard per subset "
                          "(harmonic mean of the per-metric ranks, or --rules); the first one decides which "
                          "submission counts under the rules best-preliminary and selected."
                          + ("" if metric_required else " [default: rmse]")),
        click.option("--rules", "combine_rules", callback=rules_reference,
                     help="Rules combining several metrics instead of the harmonic mean of ranks: a .toml file "
                          "(docs/rules.md) of kind rank-harmonic or normalised-weighted whose criteria read the "
                          "metric columns (column = \"rmse\", ...) with the metrics' directions "
                          "(see docs/predictions.md)."),
        click.option("--rule", type=click.Choice(("last", "best-preliminary", "selected")), default="last",
                     show_default=True,
                     help="Which submission counts per team: the last valid one; the one with the best "
                          "preliminary score; or, among those marked in the listing's 'selected' column, the best "
                          "preliminary one on the preliminary and the best final one on the final leaderboard "
                          "(Kaggle)."),
        click.option("--max-selected", type=bounded("max-selected"), default=2, show_default=True,
                     help="How many submissions a team may select (rule 'selected'); a team that selected none "
                          "gets its best preliminary ones."),
        click.option("--order", type=click.Choice(("submitted_at", "name")), default="submitted_at",
                     show_default=True,
                     help="Order of a team's submissions (decides the last one): submission time (the listing's "
                          "submitted_at, or the file modification time in a folder) or file name."),
    ]

    def decorate(function):
        for option in reversed(options):
            function = option(function)
        return function
    return decorate


def _targets(targets_preliminary, targets_final, targets_csv):
    """The targets, read and validated (raises click.UsageError when the options do not fit)."""
    from srdash.io.predictions import read_targets, read_targets_csv

    if targets_csv is not None and (targets_preliminary is not None or targets_final is not None):
        raise click.UsageError("Give either --targets-csv or both --targets-preliminary and --targets-final, "
                               "not both.")
    if targets_csv is None and (targets_preliminary is None or targets_final is None):
        raise click.UsageError("The targets are missing: give --targets-preliminary and --targets-final "
                               "(two text files) or --targets-csv (one CSV with id, target, subset).")
    return read_targets_csv(targets_csv) if targets_csv is not None else read_targets(targets_preliminary,
                                                                                         targets_final)


def _report_rejected(result) -> None:
    for note in result.warnings:
        click.secho(f"Warning: {_printable(note)}", fg="yellow", err=True)
    rejected = result.rejected
    if len(rejected):
        click.echo(f"{len(rejected)} of {len(result.submissions)} submission(s) rejected:", err=True)
        for team, submission, reason in rejected.itertuples(index=False):
            click.echo(f"  - {_printable(team)}, {_printable(submission)}: {_printable(reason)}", err=True)


def _score(submissions, targets_preliminary, targets_final, targets_csv, metric_names, combine_rules, rule,
           max_selected, order):
    from srdash.judging.predictions import score_submissions

    if combine_rules is not None and len(metric_names) < 2:
        raise click.UsageError("--rules combines several metrics: give --metric at least twice.")
    targets = _targets(targets_preliminary, targets_final, targets_csv)
    return score_submissions(submissions, targets, metric=metric_names[0], extra_metrics=metric_names[1:],
                             rule=rule, max_selected=max_selected, order=order, combine_rules=combine_rules)


def _inputs(submissions, targets_preliminary, targets_final, targets_csv, combine_rules, order) -> list:
    """Every file or folder a prediction competition reads (outputs must not land on them)."""
    inputs = [submissions, targets_preliminary, targets_final, targets_csv]
    if combine_rules is not None and str(combine_rules).endswith(".toml"):
        inputs.append(combine_rules)
    if Path(submissions).is_file():  # a listing: the files it lists are inputs too (outside its folder as well)
        from srdash.io.predictions import list_submissions

        try:
            inputs += list(list_submissions(submissions, order=order)["file"])
        except Exception:  # noqa: BLE001 - scoring reports a bad listing itself
            pass
    return inputs


def _write(table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_csv(table, path, index=False)
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
@_competition_options(metric_required=True)
@click.option("-o", "--output", type=_out_path, required=True,
              help="Final leaderboard CSV to write: place (1 = best; ties share the smallest place), team, "
                   "score, submission, entries. With several metrics, the combined leaderboard: also each "
                   "metric's value and rank (higher rank is better) and the team's status.")
@click.option("--preliminary", "preliminary_output", type=_out_path,
              help="Also write the preliminary leaderboard CSV (same columns).")
@click.option("--shakeup", "shakeup_output", type=_out_path,
              help="Also write the shake-up CSV: team, preliminary_place, final_place, change "
                   "(positive = moved up), preliminary_score, final_score.")
@click.option("--per-metric", "per_metric_output", type=click.Path(file_okay=False, path_type=Path),
              help="Also write each metric's own leaderboards into this folder: <metric>_final.csv, "
                   "<metric>_preliminary.csv and <metric>_shakeup.csv.")
@click.option("--submissions-table", "submissions_output", type=_out_path,
              help="Also write the per-submission CSV: team, submission, submitted_at, status, reason and "
                   "every metric on both subsets.")
def score(submissions, targets_preliminary, targets_final, targets_csv, metric_names, combine_rules, rule,
          max_selected, order, output, preliminary_output, shakeup_output, per_metric_output, submissions_output):
    """Score every submission in SUBMISSIONS and write the leaderboards.

    SUBMISSIONS is a folder with one folder per team holding its submission
    files (SUBMISSIONS/team/file), or a CSV listing team, file (relative to the
    CSV) and optionally submitted_at (ISO 8601, UTC) and selected (yes/no).
    A submission file is a text file with one prediction per line, one line
    per test sample, or a CSV with columns id, prediction (text targets have
    ids 1, 2, ... = line numbers).

    With one metric the leaderboards rank it. With several (--metric rmse
    --metric mae) they are combined by the ranking engine: on each subset the
    teams are ranked per metric (higher rank = better) and scored by the
    harmonic mean of their ranks, or by the --rules given; each metric's own
    leaderboards are written with --per-metric.

    A rejected submission (wrong number of lines, a value that is not a finite
    number, ...) is listed on stderr with file, line and reason; the others are
    still scored. The exit code is 0 when scoring ran, even with rejected
    submissions, and 1 when an input (targets, listing, options) is invalid.
    """
    refuse_output_onto_input(
        [("-o/--output", output), ("--preliminary", preliminary_output), ("--shakeup", shakeup_output),
         ("--per-metric", per_metric_output), ("--submissions-table", submissions_output),
         *(("--per-metric", per_metric_output / f"{metric}_{kind}.csv") for metric in metric_names
           for kind in ("final", "preliminary", "shakeup") if per_metric_output is not None)],
        _inputs(submissions, targets_preliminary, targets_final, targets_csv, combine_rules, order))
    with fail_cleanly():
        result = _score(submissions, targets_preliminary, targets_final, targets_csv, metric_names, combine_rules,
                        rule, max_selected, order)
    _report_rejected(result)
    shown = result.combined if result.combined is not None else result
    _write(shown.final_leaderboard, output)
    if preliminary_output is not None:
        _write(shown.preliminary_leaderboard, preliminary_output)
    if shakeup_output is not None:
        _write(shown.shakeup, shakeup_output)
    if per_metric_output is not None:
        for metric in result.metrics:
            ranked = result.ranked_by(metric)
            for name, table in (("final", ranked.final_leaderboard), ("preliminary", ranked.preliminary_leaderboard),
                                ("shakeup", ranked.shakeup)):
                _write(table, per_metric_output / f"{metric.short_name}_{name}.csv")
    if submissions_output is not None:
        _write(result.submissions.drop(columns=["file"]), submissions_output)
    board = shown.final_leaderboard.copy()
    columns = ["place", "team", "score"] + [m.short_name for m in result.metrics if m.short_name in board.columns]
    board = board[columns + ["submission"]]
    board["team"] = board["team"].map(_printable)
    board["submission"] = board["submission"].map(lambda s: "-" if s is None or s != s else _printable(s))
    for column in columns[2:]:
        board[column] = board[column].map(lambda v: "no valid submission" if v != v else f"{v:.6g}")
    scored = len(result.submissions) - len(result.rejected)
    if result.combined is not None:
        what = f"combined: {result.combined.description}"
    else:
        what = f"{result.metric.short_name}, {result.metric.direction} is better"
    click.echo(f"Final leaderboard ({what}; rule '{rule}'; {scored} of {len(result.submissions)} submissions "
               "scored):")
    click.echo(board.to_string(index=False))
    click.echo(f"Verdict fingerprint: {result.fingerprint[:12]} (full: {result.fingerprint})", err=True)


@predictions.command()
@click.argument("submissions", required=False, type=click.Path(exists=True, path_type=Path))
@_competition_options(metric_required=False)
@click.option("--port", default=0, type=bounded("port"), help="Port to listen on. Default: a free port.")
@click.option("--ip", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default serves this machine only; the app has no login, so only "
                   "change it on a trusted network.")
@click.option("--print-command", is_flag=True,
              help="Print the environment and the Voilà command line instead of running them.")
def serve(submissions, targets_preliminary, targets_final, targets_csv, metric_names, combine_rules, rule,
          max_selected, order, port, ip, print_command):
    """Open the predictions app on the competition in SUBMISSIONS.

    The inputs are those of `srdash predictions score`. Without SUBMISSIONS
    the app opens a small built-in demo prediction competition.

    The targets, the listing and the rules are checked first, so a bad file is
    reported here. Then Voilà serves the app at http://IP:PORT/ (the URL is
    printed when it answers) until you press Ctrl-C. The app scores the
    submissions with a progress bar, then shows the preliminary and final
    leaderboards (place 1 = best), the shake-up as a slope chart, the
    rejected submissions with their reasons (file and line) and, with several
    metrics, a metric selector, the combined leaderboards and their weight
    sensitivity.
    """
    given = [name for name, value in (("--targets-preliminary", targets_preliminary),
                                      ("--targets-final", targets_final), ("--targets-csv", targets_csv),
                                      ("--metric", metric_names), ("--rules", combine_rules)) if value]
    options = None
    with fail_cleanly():
        if submissions is None:
            if given:
                raise click.UsageError(f"{', '.join(given)} only apply to SUBMISSIONS; without SUBMISSIONS the "
                                       "built-in demo prediction competition is served.")
        else:
            from srdash.judging.predictions import check_combine_rules
            from srdash.io.predictions import list_submissions

            metric_names = metric_names or ("rmse",)
            if combine_rules is not None and len(metric_names) < 2:
                raise click.UsageError("--rules combines several metrics: give --metric at least twice.")
            targets = _targets(targets_preliminary, targets_final, targets_csv)
            listing = list_submissions(submissions, order=order)
            if combine_rules is not None:
                check_combine_rules(combine_rules, metric_names)
            click.echo(f"{submissions}: {len(listing)} submissions of {listing['team'].nunique()} teams; "
                       f"{targets.n_samples} test samples.", err=True)
            options = {"submissions": str(Path(submissions).resolve()), "metrics": list(metric_names),
                       "rule": rule, "max_selected": int(max_selected), "order": order}
            if targets_csv is not None:
                options["targets_csv"] = str(Path(targets_csv).resolve())
            else:
                options["targets_preliminary"] = str(Path(targets_preliminary).resolve())
                options["targets_final"] = str(Path(targets_final).resolve())
            if combine_rules is not None:
                options["rules"] = combine_rules
        env = app.app_environment(predictions=options)
        serve_notebook("predictions.ipynb", env, port=port, ip=ip, print_command=print_command, what="app",
                       variables=["SRDASH_PREDICTIONS"])


@predictions.command("report")
@click.argument("submissions", type=click.Path(exists=True, path_type=Path))
@_competition_options(metric_required=True)
@click.option("-o", "--output", type=_out_path, required=True,
              help="File to write: the HTML report (one self-contained page, opens offline) or, with a .md "
                   "suffix or --format md, a Markdown summary.")
@click.option("--format", "output_format", type=click.Choice(["html", "md"]),
              help="html or md. Default: md for a .md or .markdown output, else html.")
@click.option("--title", help="Title of the report (default: 'Prediction competition: <metrics>').")
@click.option("--samples", default=2000, show_default=True, type=bounded("report-samples"),
              help="Weight vectors drawn from the simplex for the weight sensitivity (several metrics).")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"), help="Seed of that draw (same seed, same report).")
def report(submissions, targets_preliminary, targets_final, targets_csv, metric_names, combine_rules, rule,
           max_selected, order, output, output_format, title, samples, seed):
    """Write the report of the prediction competition in SUBMISSIONS.

    The inputs are those of `srdash predictions score`. The HTML report is one
    file that needs no server and no network: the final and preliminary
    leaderboards, the shake-up slope chart, with several metrics the combined
    leaderboards, each metric's leaderboards and the weight sensitivity of the
    combined final verdict, the rejected submissions with their reasons, and a
    reproducibility block (versions, the rules, the SHA-256 of the targets and
    of every submission file). Places: 1 = best.
    """
    from srdash.report.build import build_prediction_report, write_report

    refuse_output_onto_input([("-o/--output", output)], _inputs(submissions, targets_preliminary, targets_final,
                                                                 targets_csv, combine_rules, order))
    chosen = output_format or ("md" if output.suffix.lower() in (".md", ".markdown") else "html")
    with fail_cleanly():
        result = _score(submissions, targets_preliminary, targets_final, targets_csv, metric_names, combine_rules,
                        rule, max_selected, order)
        built = build_prediction_report(result, title=title, samples=samples, seed=seed)
        path = write_report(built, output, format=chosen)
    _report_rejected(result)
    click.echo(f"Wrote {path} ({chosen}, {path.stat().st_size:,} bytes, {len(result.teams)} teams, "
               f"verdict fingerprint {result.fingerprint[:12]}).", err=True)
