"""`srdash audit`: recompute a competition and compare it with a published leaderboard."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._options import bounded
from srdash.cli._common import (competition_files, competition_input, echo_fingerprint, fail_cleanly, judged,
                                refuse_output_onto_input, with_sidecar)
from srdash.io.csvsafe import write_csv

#: Exit status of `srdash audit --strict` when the audit found something.
FINDINGS_EXIT_CODE = 3


@click.command(name="audit")
@competition_input
@click.option("--published", "published_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The published leaderboard: a CSV with columns method, score and optionally place and track.")
@click.option("--track", help="The track to audit, when the published table has a 'track' column with several.")
@click.option("--tolerance", default=0.005, show_default=True, type=bounded("tolerance"),
              help="Flag a method whose recomputed score differs from the published one by more than this "
                   "(default: half a unit of the second decimal).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="CSV to write: method, published and recomputed place and score, difference, status, "
                   "flagged.")
@click.option("--strict", is_flag=True,
              help=f"Exit with status {FINDINGS_EXIT_CODE} when the audit finds anything (for CI).")
def audit_command(competition, published_path, track, tolerance, output, strict):
    """Recompute the competition in INPUT and audit the published table against it.

    Shows, for every method, the published and recomputed score and place side
    by side; flags score differences beyond the tolerance, different places and
    methods listed on one side only; and checks the published table against
    itself (places out of order with scores, duplicated places). Recomputed
    places are counted among the methods both tables list.
    """
    from srdash.analysis.audit import audit
    from srdash.judging.provenance import hash_roles, write_sidecar

    refuse_output_onto_input(with_sidecar("-o/--output", output), [*competition_files(competition), published_path])
    judged_result = judged(competition)
    verdict = judged_result.verdict
    with fail_cleanly():
        result = audit(verdict, published_path, tolerance=tolerance, track=track)
        block = {**verdict.provenance,
                 **hash_roles([("published", published_path)], root=judged_result.competition.root)}
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    click.echo(result.comparison.drop(columns="flagged").to_string(index=False, na_rep="-",
                                                                   float_format=lambda v: f"{v:.4g}"))
    click.echo("")
    click.echo(result.summary())
    if output is not None:
        write_csv(result.comparison, output, index=False)
        sidecar = write_sidecar(output, {**block, "audit_tolerance": f"{tolerance:g}",
                                         "audit_track": track or ""})
        click.echo(f"Wrote {output} and {sidecar}", err=True)
    echo_fingerprint(judged_result)
    if strict and not result.passes:
        click.get_current_context().exit(FINDINGS_EXIT_CODE)
