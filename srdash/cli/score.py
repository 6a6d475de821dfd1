"""`srdash score`: judge a results file and write the leaderboard."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd

import click

from srdash.cli._common import fail_cleanly, prepare_options, progress_bar, rules_option
from srdash.rules import RANK_METHODS, RUN_AGGREGATIONS


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True, path_type=Path))
@rules_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Leaderboard CSV to write (columns: place, method, score, one mean-rank column per "
                   "criterion, datasets, dnf). Default: print the leaderboard.")
@click.option("--per-dataset", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the per-dataset table (dataset, method, status, aggregated values, ranks, "
                   "dataset_score).")
@click.option("--problems", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the problems table (rejected models, timeouts, missing values, DNF).")
@click.option("--datasets", "datasets_path", type=click.Path(exists=True, path_type=Path),
              help="Dataset table (columns dataset, features) giving each dataset's feature names; "
                   "models using other names are rejected.")
@click.option("--descriptions", "descriptions_path", type=click.Path(exists=True, path_type=Path),
              help="Dataset descriptions (YAML or CSV, see `srdash datasets --help` and the shipped "
                   "srdash/data/srbench2022_synthetic.yaml): the models are evaluated on the datasets' files, "
                   "the metrics recomputed and each dataset's property scored from the models.")
@click.option("--aggregation", type=click.Choice(RUN_AGGREGATIONS),
              help="Override the rules' run aggregation.")
@click.option("--rank-method", type=click.Choice(RANK_METHODS), help="Override the rules' tie rule.")
@prepare_options
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Simplify the models on this Dask scheduler's workers (same results and time limits; "
                   "--jobs is then ignored). Default: the SRDASH_SCHEDULER environment variable, else local "
                   "worker processes.")
def score(input_path, rules, output, per_dataset, problems, datasets_path, descriptions_path, aggregation,
          rank_method,
          timeout, jobs, cache, no_cache, scheduler):
    """Judge the competition results in INPUT.

    INPUT is a CSV or Parquet file with one row per (method, dataset, run) — columns
    method, dataset, run (optional), model and/or components, metric columns such as
    r2_test and property — or a folder of SRBench-style JSON result files. SRBench
    names are accepted (algorithm, random_state, symbolic_model, model_size).

    Ranks are 'higher is better' (K = best, 1 = worst). A provenance file
    (versions, rules hash, input hashes) is written beside the leaderboard as
    OUTPUT.provenance.json.
    """
    if rules.kind == "normalised-weighted":  # EvalRS-style submissions: srdash.multiobjective
        from srdash.cli.sensitivity import score_normalised_weighted

        return score_normalised_weighted(input_path, rules, output, per_dataset)
    from srdash.distributed import scheduler_setting
    from srdash.loading import load_results
    from srdash.pipeline import input_hashes, prepare_runs
    from srdash.ranking import judge

    with fail_cleanly(), scheduler_setting(scheduler):
        rules = rules.with_options(run_aggregation=aggregation, rank_method=rank_method)
        track_problems = None
        if descriptions_path is not None:
            from srdash.datasets import load_dataset_table
            from srdash.pipeline import prepare_track

            descriptions = load_dataset_table(descriptions_path)
            results = load_results(input_path, datasets=descriptions.frame())
            with progress_bar("simplifying models") as progress:
                track = prepare_track(results, descriptions, timeout=timeout, jobs=jobs,
                                      cache=False if no_cache else cache, progress=progress)
            runs, track_problems = track.runs, track.problems
        else:
            results = load_results(input_path, datasets=datasets_path)
            with progress_bar("simplifying models") as progress:
                runs = prepare_runs(results, timeout=timeout, jobs=jobs,
                                    cache=False if no_cache else cache, progress=progress)
        verdict = judge(runs, rules)
        if track_problems is not None and len(track_problems):
            verdict = replace(verdict, problems=pd.concat([verdict.problems, track_problems], ignore_index=True))
        verdict = verdict.with_provenance(**input_hashes(results.sources))
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    if verdict.n_methods >= 2 and verdict.per_dataset["dataset"].nunique() >= 2:
        from srdash.significance import significance

        with fail_cleanly():
            click.echo(significance(verdict).statement, err=True)
    n_problems = len(verdict.problems)
    if n_problems:
        counts = verdict.problems["kind"].value_counts().to_dict()
        listed = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        click.echo(f"{n_problems} problem(s): {listed} (see --problems).", err=True)
    if output is None:
        click.echo(verdict.leaderboard.to_string(index=False))
    else:
        verdict.leaderboard.to_csv(output, index=False)
        Path(f"{output}.provenance.json").write_text(json.dumps(dict(verdict.provenance), indent=2) + "\n")
        click.echo(f"Wrote {output} ({len(verdict.leaderboard)} methods) and {output}.provenance.json", err=True)
    if per_dataset is not None:
        verdict.per_dataset.to_csv(per_dataset, index=False)
        click.echo(f"Wrote {per_dataset}", err=True)
    if problems is not None:
        verdict.problems.to_csv(problems, index=False)
        click.echo(f"Wrote {problems}", err=True)
