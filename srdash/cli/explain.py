"""`srdash explain`: why this winner, a certificate of what would change the verdict."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

import click

from srdash.analysis.certificate_plan import MAX_CELLS, WEIGHT_METHODS, check_plan, plan_certificate
from srdash.cli._common import competition_input, echo_fingerprint, fail_cleanly, judged, progress_bar
from srdash.cli._options import bounded


@click.command(name="explain")
@competition_input(trust=False)
@click.option("--podium", default=3, show_default=True, type=bounded("podium"),
              help="Places to certify (1: the winner only).")
@click.option("--max-removed", default=3, show_default=True, type=bounded("max-removed"),
              help="The largest set of datasets (or runs) whose removal is searched.")
@click.option("--budget", default=30, show_default=True, type=bounded("rejudgings"),
              help="Re-judgings allowed per removal search that must judge each set again (runs; datasets under "
                   "rules that normalise over the whole table): exhaustive while it fits, then greedy.")
@click.option("--weight-methods", default=WEIGHT_METHODS, show_default=True, type=bounded("weight-methods"),
              help="Search the winning weights of at most this many other methods, the best placed (the weights "
                   "line says when it samples).")
@click.option("--max-cells", default=MAX_CELLS, show_default=True, type=bounded("max-cells"),
              help="Refuse tables of more methods x datasets x runs than this (the work grows with methods^2 x "
                   "datasets); the message says what to do instead.")
@click.option("--no-variants", is_flag=True, help="Do not print the table of winners per rules variant.")
def explain_command(competition, podium, max_removed, budget, weight_methods, max_cells, no_variants):
    """Why the winner of INPUT wins: what would change the verdict.

    For the winner and each podium place, the smallest change of each family
    that changes who holds the place, with the items responsible: the fewest
    datasets (and runs) whose removal changes it, every rules variant (run
    aggregation, tie rule, rounding, DNFs, normalisation, related presets),
    each judged directly, the nearest weights under which another method
    wins, and whether removing one other method changes it. Then whether the
    verdict is the same with the rows shuffled and the methods renamed and
    listed in another order. The main track is explained; with a real-world
    track, its winner with each judge's trust entries left out follows.
    Places: 1 = best.

    It first says on stderr what it will do and roughly how long that takes,
    shows its progress there, and refuses tables larger than --max-cells
    (methods x datasets x runs), saying what to do instead.
    """
    from srdash.analysis.certificate import certificate_text, rules_variants, winner_certificate

    result = judged(competition)
    with fail_cleanly():
        rules = result.competition.rules
        if result.runs is not None and rules.rule_kind.judges_runs:  # else winner_certificate says what to use
            plan = plan_certificate(result.runs, criteria=len(result.verdict.criteria),
                                    variants=len(rules_variants(rules)), podium=podium, max_removed=max_removed,
                                    budget=budget, weight_methods=weight_methods)
            click.echo(plan.text(), err=True)
            check_plan(plan, max_cells=max_cells)
        with progress_bar("explaining", unit="step") as progress:
            certificate = winner_certificate(result, podium=podium, max_removed=max_removed, budget=budget,
                                             weight_methods=weight_methods, progress=progress, stage=progress.stage)
    click.echo(certificate_text(certificate, variants=not no_variants))
    if result.realworld is not None:
        with fail_cleanly():
            click.echo("\n" + judges_text(result))
    echo_fingerprint(result)


def judges_text(result) -> str:
    """The real-world track's winner with each judge's trust entries left out (the certificate's judges family)."""
    from srdash.analysis.jury_model import leave_one_judge_out
    from srdash.judging.pipeline import realworld_inputs

    inputs = realworld_inputs(result.prepared)
    table = leave_one_judge_out(inputs.runs, inputs.entries, inputs.rules, methods=list(inputs.methods))
    official = table.iloc[0]["winner"]
    others = table.iloc[1:]
    changing = others[others["changes"]]
    if others.empty:
        verdict = "not applicable: one judge, nobody to leave out."
    elif len(changing):
        verdict = "changes: " + "; ".join(f"without {r.left_out}, {r.winner}" for r in changing.itertuples()) + "."
    else:
        verdict = f"stays: leaving out any one of the {len(others)} judges keeps {official} first."
    lines = [f"Real-world track, winner {official}:", f"  judges    {verdict}"]
    lines += [f"    without {r.left_out}: {'changes to ' + r.winner if r.changes else 'stays'} (score {r.score:.4g})"
              for r in others.itertuples()]
    return "\n".join(lines)
