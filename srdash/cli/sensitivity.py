"""`srdash sensitivity`: place probabilities under weights drawn from the simplex.

Also home of the normalised-weighted branch of `srdash score` (EvalRS-style
submissions), which :mod:`srdash.cli.score` calls for rules of that kind.
"""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._options import bounded
from srdash.cli._common import (competition_files, competition_input, echo_fingerprint, echo_problems, fail_cleanly,
                                judged, refuse_output_onto_input, write_leaderboard, write_table)
from srdash.io.csvsafe import write_csv


def write_submissions_verdict(verdict, output: Path | None, per_submission: Path | None = None) -> None:
    """`srdash score`'s output for rules that judge submissions: one leaderboard row per team.

    Writes ``place, team, stage1, stage2``, one column per meta-score, then
    ``stage1_place, status, submissions, submission``; and, with
    ``per_submission``, every submission with its stage-1 score and whether it
    was selected.
    """
    echo_problems(verdict)
    failed = int((verdict.leaderboard["status"] != "ok").sum())
    if failed:
        click.echo(f"{failed} team(s) fail a threshold: "
                   + "; ".join(t.describe() for t in verdict.scheme.thresholds) + ".", err=True)
    write_leaderboard(verdict, output, entity="teams")
    write_table(verdict.submissions, per_submission)


@click.command(name="sensitivity")
@competition_input(trust=False)
@click.option("--samples", default=10_000, show_default=True, type=bounded("samples"),
              help="Weight vectors drawn uniformly from the simplex.")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"), help="Seed of the sampling (same seed, same table).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Place-probability CSV to write (columns: method or team, official_place, p_win, "
                   "mean_place, place_1 ... place_K). Default: print it.")
@click.option("--target", metavar="NAME", help="Also find weights under which NAME wins (or show that none exist).")
def sensitivity(competition, samples, seed, output, target):
    """How the verdict on INPUT depends on the rules' weights.

    INPUT is a results file (rank-harmonic rules such as srbench2022: the
    weights are the criteria weights of the harmonic mean of ranks) or a
    submissions file (normalised-weighted rules such as evalrs2022: the weights
    are the meta-score weights). Judging is done once; then SAMPLES weight
    vectors drawn uniformly from the simplex re-score it, and the probability
    of each place is written per competitor. Places: 1 = best. A summary
    (Kendall tau to the official ranking, whether removing one competitor
    swaps others) goes to stderr.
    """
    from srdash.analysis.sensitivity import (find_winning_weights, irrelevant_alternatives, place_probabilities,
                                             rescorer_of)

    refuse_output_onto_input([("-o/--output", output)], competition_files(competition))
    judged_result = judged(competition)
    with fail_cleanly():
        rescorer = rescorer_of(judged_result)
        result = place_probabilities(rescorer, samples=samples, seed=seed)
        answer = find_winning_weights(rescorer, target) if target is not None else None
        alternatives = irrelevant_alternatives(rescorer)
    table = result.table
    tau = result.kendall_tau
    winners = " = ".join(table.loc[table["official_place"] == 1, rescorer.entity].astype(str))
    click.echo(f"{len(rescorer.methods)} {rescorer.entity}s, weights {', '.join(rescorer.weight_names)} "
               f"(official {', '.join(f'{w:g}' for w in rescorer.official_weights)}); {samples} samples, seed {seed}.",
               err=True)
    click.echo(f"Official winner {winners}: first under {table['p_win'].iloc[0]:.1%} of the sampled weights; "
               f"Kendall tau to the official ranking: mean {tau.mean():.3f}, min {tau.min():.3f}.", err=True)
    disruptive = alternatives[alternatives["swaps"] > 0]
    if disruptive.empty:
        click.echo(f"Removing any one {rescorer.entity} swaps no other pair.", err=True)
    else:
        click.echo(f"The verdict depends on who takes part: removing {', '.join(disruptive['removed'].astype(str))} "
                   "swaps the places of others.", err=True)
    if answer is not None:
        from srdash.analysis.printed import printed_winning_weights

        # the weights as printed, re-scored: the search's point rounded can fall on the other side of a crossing
        printed = printed_winning_weights(rescorer.scores, rescorer.methods, target, answer.weights, official=dict(
            zip(rescorer.weight_names, rescorer.official_weights))) if answer.status == "found" else None
        if printed is not None:
            weights = ", ".join(f"{k} {v}" for k, v in printed.text.items())
            click.echo(f"Target {target}: found with {weights}: re-scored at exactly these weights, it leads the "
                       f"runner-up by {printed.margin_text} (L1 distance {printed.distance:.3g} from the official "
                       f"weights on the simplex). (method: {answer.approach})", err=True)
        else:
            click.echo(f"Target {target}: {answer.status}. {answer.explanation} (method: {answer.approach})", err=True)
    if output is None:
        click.echo(table.to_string(index=False))
    else:
        write_csv(table, output, index=False)
        click.echo(f"Wrote {output}", err=True)
    echo_fingerprint(judged_result)
