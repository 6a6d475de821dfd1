"""`srdash explain`: why this winner, a certificate of what would change the verdict."""

from __future__ import annotations

import click

from srdash.cli._common import competition_input, echo_fingerprint, fail_cleanly, judged


@click.command(name="explain")
@competition_input(trust=False)
@click.option("--podium", default=3, show_default=True, type=click.IntRange(min=1),
              help="Places to certify (1: the winner only).")
@click.option("--max-removed", default=3, show_default=True, type=click.IntRange(min=1),
              help="The largest set of datasets (or runs) whose removal is searched.")
@click.option("--budget", default=30, show_default=True, type=click.IntRange(min=0),
              help="Re-judgings allowed per removal search that must judge each set again (runs; datasets under "
                   "rules that normalise over the whole table): exhaustive while it fits, then greedy.")
@click.option("--no-variants", is_flag=True, help="Do not print the table of winners per rules variant.")
def explain_command(competition, podium, max_removed, budget, no_variants):
    """Why the winner of INPUT wins: what would change the verdict.

    For the winner and each podium place, the smallest change of each family
    that changes who holds the place, with the items responsible: the fewest
    datasets (and runs) whose removal changes it, every rules variant (run
    aggregation, tie rule, rounding, DNFs, normalisation, related presets),
    each judged directly, the nearest weights under which another method
    wins, and whether removing one other method changes it. Then whether the
    verdict is the same with the rows shuffled and the methods renamed and
    listed in another order. The main track is explained (not the real-world
    track). Places: 1 = best.
    """
    from srdash.analysis.certificate import certificate_text, winner_certificate

    result = judged(competition)
    with fail_cleanly():
        certificate = winner_certificate(result, podium=podium, max_removed=max_removed, budget=budget)
    click.echo(certificate_text(certificate, variants=not no_variants))
    echo_fingerprint(result)
