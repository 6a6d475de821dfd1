"""`srdash score`: judge a competition and write the leaderboard."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from srdash.cli._common import (competition_files, competition_input, echo_fingerprint, echo_problems, fail_cleanly,
                                judged, refuse_output_onto_input, with_sidecar, write_leaderboard, write_table)
from srdash.cli._options import bounded
from srdash.cli.sensitivity import write_submissions_verdict
from srdash.errors import CriterionWithoutData
from srdash.judging.rules import RANK_METHODS, RUN_AGGREGATIONS


@click.command()
@competition_input
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Leaderboard CSV to write (columns: place, method, score, one mean-rank column per "
                   "criterion, datasets, dnf). Default: print the leaderboard.")
@click.option("--per-dataset", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the per-dataset table (dataset, method, status, aggregated values, ranks, "
                   "dataset_score).")
@click.option("--problems", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the problems table (rejected models, timeouts, missing values, DNF).")
@click.option("--aggregation", type=click.Choice(RUN_AGGREGATIONS),
              help="Override the rules' run aggregation.")
@click.option("--rank-method", type=click.Choice(RANK_METHODS), help="Override the rules' tie rule.")
@click.option("-B", "--bootstrap", "n_bootstrap", default=1000, show_default=True, type=bounded("bootstrap-or-none"),
              help="Bootstrap draws (datasets, and runs where there are several) of each method's place interval "
                   "(0: none).")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"),
              help="Seed of the draws: the same input, rules and seed give the same intervals.")
@click.option("--alpha", default=0.05, show_default=True, type=bounded("probability"),
              help="Level of the Friedman test and Nemenyi post-hoc that say who is tied with the winner.")
@click.option("--view", type=click.Choice(["as-ruled", "delivered"]), default="as-ruled", show_default=True,
              help="as-ruled: failures count as the rules say; delivered: each method judged again on the runs "
                   "it delivered (docs/rules.md). The fingerprint is the as-ruled verdict's.")
def score(competition, output, per_dataset, problems, aggregation, rank_method, n_bootstrap, seed, alpha, view):
    """Judge the competition in INPUT: a competition file (competition.toml) or results.

    A competition file (see docs/competition.md; `srdash init` writes one)
    declares the results, rules, descriptions, qualification stage and
    real-world track; the options that say the same must then be left out.
    Otherwise INPUT is a CSV or Parquet file with one row per (method, dataset,
    run) — columns method, dataset, run (optional), model and/or components,
    metric columns such as r2_test and property — or a folder of SRBench-style
    JSON result files, completed by the options. SRBench names are accepted
    (algorithm, random_state, symbolic_model, model_size).

    Ranks are 'higher is better' (K = best, 1 = worst). Beside each method the
    leaderboard shows its place interval (places, places_share: bootstrap),
    whether the Nemenyi post-hoc ties it with the winner (tied_with_winner),
    and its failed runs by type (timed_out, did_not_parse, non_finite, missing;
    dnf: datasets without any run; imputed: a value filled in). A provenance file
    (versions, rules hash, input hashes, verdict fingerprint) is written beside
    the leaderboard as OUTPUT.provenance.json.

    With a qualification stage, only the methods that beat LinearRegression
    there are judged, in every track.
    """
    refuse_output_onto_input([*with_sidecar("-o/--output", output), ("--per-dataset", per_dataset),
                              ("--problems", problems)], competition_files(competition))
    if competition.rules.rule_kind.judges_submissions and competition.qualification is not None:
        raise click.UsageError(f"The rules '{competition.rules.name}' score submissions with weighted "
                               "meta-scores; they have no qualification stage. Leave out --qualification.")
    if aggregation or rank_method:
        with fail_cleanly():
            competition = competition.with_rules(
                competition.rules.with_options(run_aggregation=aggregation, rank_method=rank_method))
    result = _judged_or_pointed_to_the_store(competition)
    verdict = result.verdict
    if result.qualification is not None:
        qualification = result.qualification
        click.echo(f"Qualification stage ({competition.qualification.results}):", err=True)
        click.echo(qualification.table.drop(columns=["qualified"]).to_string(index=False), err=True)
        click.echo(f"Rule: {qualification.rule}", err=True)
        if not qualification.problems.empty:
            counts = qualification.problems["kind"].value_counts().to_dict()
            click.echo(f"{len(qualification.problems)} qualification problem(s): "
                       + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())), err=True)
    if competition.rules.rule_kind.judges_submissions:
        write_submissions_verdict(verdict, output, per_dataset)
        echo_fingerprint(result)
        return
    echo_problems(verdict, hint=" (see --problems)")
    click.echo(f"{verdict.per_dataset['dataset'].nunique()} datasets judged; in the leaderboard 'datasets' counts "
               "those where the method has a result, 'dnf' those where it has none.", err=True)
    from srdash.analysis.board import shown_leaderboard

    with fail_cleanly():
        shown = shown_leaderboard(result, view=view, n_bootstrap=n_bootstrap, seed=seed, alpha=alpha)
    if shown.resolution is not None and shown.resolution.significance is not None:
        click.echo(shown.resolution.significance.statement, err=True)
    elif shown.resolution is None and verdict.n_methods >= 2 and verdict.per_dataset["dataset"].nunique() >= 2:
        from srdash.analysis.significance import significance

        with fail_cleanly():
            click.echo(significance(shown.verdict, alpha=alpha).statement, err=True)
    board = replace(shown.verdict, leaderboard=shown.table, provenance={
        **dict(verdict.provenance), "leaderboard_view": view, "resolution_bootstrap_n": str(n_bootstrap),
        "resolution_seed": str(seed), "resolution_alpha": f"{alpha:g}"})
    write_leaderboard(board, output)
    if output is not None:  # the file has it; the terminal shows it too, as it shows the real-world track
        click.echo("Leaderboard:", err=True)
        click.echo(shown.table.to_string(index=False), err=True)
    click.echo(f"Rank resolution: {shown.sentence}", err=True)
    for note in () if shown.resolution is None else shown.resolution.notes:
        click.echo(f"Note: {note}", err=True)
    write_table(shown.verdict.per_dataset, per_dataset)
    write_table(verdict.problems, problems)
    if result.realworld is not None:
        click.echo("Real-world track (expert trust):", err=True)
        click.echo(result.realworld.leaderboard.to_string(index=False), err=True)
    echo_fingerprint(result)


def _judged_or_pointed_to_the_store(competition):
    """:func:`judged`, but rules that rank on the experts' trust, given results without it, are told where
    trust comes from: the review's trust store, not a column anyone should type into the results."""
    try:
        return judged(competition)
    except click.ClickException as error:
        cause = error.__cause__
        if not isinstance(cause, CriterionWithoutData) or "trust" not in getattr(cause, "criteria", ()):
            raise
        name = competition.rules.name
        raise click.ClickException(
            f"The rules '{name}' rank the real-world track on the experts' trust, which comes from the trust "
            "store of their review, not from a column of the results. Collect it with `srdash review` (it "
            "writes the store), then judge the results with their track's rules and the store: `srdash score "
            f"RESULTS --rules srbench2022 --store STORE` (the real-world track uses --realworld-rules, default "
            "srbench2022-realworld).") from cause
