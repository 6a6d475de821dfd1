"""`srdash robustness`: how sure is the leaderboard of its order (bootstrap + significance)."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import (competition_files, competition_input, echo_fingerprint, fail_cleanly, judged,
                                progress_bar, refuse_output_onto_input, with_sidecar)
from srdash.cli._options import bounded
from srdash.io.csvsafe import write_csv


@click.command(name="robustness")
@competition_input
@click.option("-B", "--bootstrap", "n_bootstrap", default=1000, show_default=True, type=bounded("bootstrap"),
              help="Number of bootstrap redraws.")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"),
              help="Random seed: the same input, rules and seed give the same numbers.")
@click.option("--resample", type=click.Choice(["both", "datasets", "runs"]), default="both", show_default=True,
              help="Resample datasets, runs within datasets (run ids jointly for all methods), or both.")
@click.option("--confidence", default=0.95, show_default=True, type=bounded("probability"),
              help="Level of the score interval.")
@click.option("--alpha", default=0.05, show_default=True, type=bounded("probability"),
              help="Significance level of the Friedman and Nemenyi tests.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="CSV to write: place, method, score, p_win, expected_place, score_low, score_high and "
                   "p_place_1..p_place_K (place 1 = best). Default: print it.")
@click.option("--pairwise", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the Nemenyi pairwise comparisons (method_a, method_b, difference of mean ranks, "
                   "significant, p_value).")
def robustness_command(competition, n_bootstrap, seed, resample, confidence, alpha, output, pairwise):
    """Bootstrap the verdict on INPUT over datasets and runs, and test its significance.

    INPUT is what `srdash score` reads (a competition file, or results and
    options); the verdict bootstrapped is the one `srdash score` gives. Models are simplified once; then the
    datasets (and the runs within each dataset) are resampled B times and every
    redraw is judged with the rules. For each method the output gives the
    probability of each place, P(win) and an interval of the final score. A
    Friedman test and a Nemenyi post-hoc test over the per-dataset scores say
    whether the winner is significantly better than the runner-up.

    A provenance file (versions, rules hash, input hashes, bootstrap settings)
    is written beside the output as OUTPUT.provenance.json.
    """
    from srdash.analysis.robustness import bootstrap
    from srdash.analysis.significance import significance
    from srdash.judging.provenance import write_sidecar

    refuse_output_onto_input([*with_sidecar("-o/--output", output), ("--pairwise", pairwise)],
                             competition_files(competition))
    judged_result = judged(competition)
    with fail_cleanly(), progress_bar("bootstrap", unit="redraw") as progress:
        # redraws judged one by one can take minutes: the bar says how far they are
        result = bootstrap(judged_result.runs, judged_result.verdict.rules, n_bootstrap=n_bootstrap, seed=seed,
                           resample=resample, confidence=confidence,
                           progress=lambda done, total: progress(done, total, {}))
        test = significance(result.verdict, alpha=alpha)
        block = dict(judged_result.provenance)
    for note in result.verdict.warnings + result.notes + test.notes:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    click.echo(f"{test.test_label}; q_alpha = {test.q_alpha:.3f} ({test.q_alpha_source}).", err=True)
    click.echo(test.statement, err=True)
    table = result.to_frame()
    if output is None:
        click.echo(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    else:
        write_csv(table, output, index=False)
        block.update({"bootstrap_n": str(result.n_bootstrap), "bootstrap_seed": str(result.seed),
                      "bootstrap_resample": result.resample, "bootstrap_engine": result.engine,
                      "bootstrap_confidence": f"{result.confidence:g}"})
        sidecar = write_sidecar(output, block)
        click.echo(f"Wrote {output} ({len(table)} methods, {result.n_bootstrap} redraws of the {result.resample}) "
                   f"and {sidecar}", err=True)
    if pairwise is not None:
        write_csv(test.pairwise, pairwise, index=False)
        click.echo(f"Wrote {pairwise}", err=True)
    echo_fingerprint(judged_result)
