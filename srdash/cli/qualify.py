"""`srdash qualify`: the qualification stage (each method against LinearRegression)."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._options import bounded
from srdash.cli._common import fail_cleanly, refuse_output_onto_input
from srdash.io.csvsafe import write_csv


@click.command("qualify")
@click.argument("results_path", metavar="RESULTS", type=click.Path(exists=True, path_type=Path))
@click.option("--data", "data_path", type=click.Path(exists=True, path_type=Path),
              help="Folder of qualification datasets (.tsv.gz/.tsv/.csv, e.g. the 20 PMLB datasets). srdash "
                   "then fits the LinearRegression baseline itself (75/25 split per run seed) and recomputes "
                   "r2_test of model strings; without it the baseline's rows must be in RESULTS.")
@click.option("--target", default="target", show_default=True, help="Target column of the data files.")
@click.option("--baseline", default="LinearRegression", show_default=True,
              help="The baseline's method name (in RESULTS and in the fitted rows).")
@click.option("--rule", type=click.Choice(["wins", "mean-rank"]), default="wins", show_default=True,
              help="wins: more head-to-head wins than losses; mean-rank: mean rank difference > 0.")
@click.option("--decimals", default=3, show_default=True, type=bounded("decimals"), help="Round R2 to this many decimals.")
@click.option("--max-rows", type=bounded("max-rows"), help="Subsample each dataset to this many rows first (faster; the "
                                           "2022 stage used every row).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the per-method table (wins, ties, losses, mean rank difference, qualified) here.")
@click.option("--head-to-head", "head_to_head", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write every comparison (method, dataset, run, r2, r2_baseline, outcome).")
@click.option("--track", "track_path", type=click.Path(exists=True, path_type=Path),
              help="A track's results: write them without the non-qualified methods to --track-output.")
@click.option("--track-output", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the filtered track results (CSV).")
@click.option("--keep-unqualified", is_flag=True,
              help="Keep non-qualified methods in the track output (they are only flagged).")
def qualify_command(results_path, data_path, target, baseline, rule, decimals, max_rows, output, head_to_head,
                    track_path, track_output, keep_unqualified):
    """Judge the qualification stage: does each method in RESULTS beat LinearRegression?

    RESULTS holds one row per (method, dataset, run) with r2_test and/or a
    model string (SRBench names accepted: algorithm, random_state,
    symbolic_model). Each method is compared with the baseline on every
    (dataset, run), R2 rounded to --decimals; the rule used is printed with
    the verdicts.
    """
    from srdash.judging.qualification import filter_qualified, read_qualification_results, run_qualification

    if track_path is not None and track_output is None:
        raise click.UsageError("--track needs --track-output (where to write the filtered track results).")
    refuse_output_onto_input([("-o/--output", output), ("--head-to-head", head_to_head),
                              ("--track-output", track_output)], [results_path, data_path, track_path])
    with fail_cleanly():
        qualification = run_qualification(results_path, data=data_path, target=target, baseline=baseline,
                                          rule=rule, decimals=decimals, max_rows=max_rows)
    for detail in qualification.problems.loc[qualification.problems["kind"] == "metric_mismatch", "detail"]:
        click.secho(f"Warning: {detail}", fg="yellow", err=True)
    click.echo(f"Rule: {qualification.rule}", err=True)
    if not qualification.problems.empty:
        counts = qualification.problems["kind"].value_counts().to_dict()
        click.echo(f"{len(qualification.problems)} problem(s): "
                   + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())), err=True)
    shown = qualification.table.drop(columns=["qualified"])
    if output is None:
        click.echo(shown.to_string(index=False))
    else:
        write_csv(qualification.table, output, index=False)
        click.echo(f"Wrote {output} ({len(qualification.table)} methods)", err=True)
    if head_to_head is not None:
        write_csv(qualification.head_to_head, head_to_head, index=False)
        click.echo(f"Wrote {head_to_head}", err=True)
    failing = qualification.not_qualified
    click.echo(f"Not qualified: {', '.join(failing) if failing else 'none'}.", err=True)
    if track_path is not None:
        with fail_cleanly():
            track = read_qualification_results(track_path)
            filtered = filter_qualified(track, qualification, exclude=not keep_unqualified)
        write_csv(filtered.runs, track_output, index=False)
        for note in filtered.notes:
            click.secho(note, fg="yellow", err=True)
        click.echo(f"Wrote {track_output} ({filtered.runs['method'].nunique()} methods)", err=True)
