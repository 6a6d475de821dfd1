"""`srdash audit`: recompute a competition and compare it with a published leaderboard."""

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly, prepare_options, progress_bar, rules_option

#: Exit status of `srdash audit --strict` when the audit found something.
FINDINGS_EXIT_CODE = 3


@click.command(name="audit")
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True, path_type=Path))
@rules_option
@click.option("--published", "published_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The published leaderboard: a CSV with columns method, score and optionally place and track.")
@click.option("--track", help="The track to audit, when the published table has a 'track' column with several.")
@click.option("--tolerance", default=0.005, show_default=True, type=click.FloatRange(min=0),
              help="Flag a method whose recomputed score differs from the published one by more than this "
                   "(default: half a unit of the second decimal).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="CSV to write: method, published and recomputed place and score, difference, status, "
                   "flagged.")
@click.option("--strict", is_flag=True,
              help=f"Exit with status {FINDINGS_EXIT_CODE} when the audit finds anything (for CI).")
@click.option("--datasets", "datasets_path", type=click.Path(exists=True, path_type=Path),
              help="Dataset table (columns dataset, features) giving each dataset's feature names.")
@prepare_options
@click.pass_context
def audit_command(ctx, input_path, rules, published_path, track, tolerance, output, strict, datasets_path,
                  timeout, jobs, cache, no_cache):
    """Recompute the competition in INPUT and audit the published table against it.

    Shows, for every method, the published and recomputed score and place side
    by side; flags score differences beyond the tolerance, different places and
    methods listed on one side only; and checks the published table against
    itself (places out of order with scores, duplicated places). Recomputed
    places are counted among the methods both tables list.
    """
    from srdash.analysis.audit import audit
    from srdash.io.loading import load_results
    from srdash.judging.pipeline import prepare_runs
    from srdash.judging.provenance import provenance_block, write_sidecar
    from srdash.judging.ranking import judge

    with fail_cleanly():
        results = load_results(input_path, datasets=datasets_path)
        with progress_bar("simplifying models") as progress:
            runs = prepare_runs(results, timeout=timeout, jobs=jobs, cache=False if no_cache else cache,
                                progress=progress)
        verdict = judge(runs, rules)
        result = audit(verdict, published_path, tolerance=tolerance, track=track)
        block = provenance_block(rules, [*results.sources, published_path])
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    click.echo(result.comparison.drop(columns="flagged").to_string(index=False, na_rep="-",
                                                                   float_format=lambda v: f"{v:.4g}"))
    click.echo("")
    click.echo(result.summary())
    if output is not None:
        result.comparison.to_csv(output, index=False)
        sidecar = write_sidecar(output, {**block, "audit_tolerance": f"{tolerance:g}",
                                         "audit_track": track or ""})
        click.echo(f"Wrote {output} and {sidecar}", err=True)
    if strict and not result.passes:
        ctx.exit(FINDINGS_EXIT_CODE)
