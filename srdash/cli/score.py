"""`srdash score`: judge a results file and write the leaderboard."""

from __future__ import annotations

import json
from pathlib import Path

import click

from srdash.cli._common import competition_of, echo_fingerprint, fail_cleanly, prepare_options, progress_bar, rules_option
from srdash.judging.rules import RANK_METHODS, RUN_AGGREGATIONS


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
@click.option("--qualification", "qualification_path", type=click.Path(exists=True, path_type=Path),
              help="Results of the qualification stage (format: `srdash qualify --help`): each method must beat "
                   "LinearRegression there first. The verdicts and the rule are printed; methods that do not "
                   "qualify are left out of the judged track (see --keep-unqualified), which the verdict's "
                   "warnings and provenance record.")
@click.option("--qualification-data", "qualification_data", type=click.Path(exists=True, path_type=Path),
              help="Folder of the qualification datasets (.tsv.gz/.tsv/.csv, target column 'target'): srdash "
                   "then fits the LinearRegression baseline itself (75/25 split per run seed) and recomputes "
                   "r2_test of the qualification models. Without it, the qualification results need r2_test and "
                   "the baseline's rows.")
@click.option("--keep-unqualified", is_flag=True,
              help="Keep the methods that did not qualify in the track; they are only flagged in the warnings.")
@click.option("--aggregation", type=click.Choice(RUN_AGGREGATIONS),
              help="Override the rules' run aggregation.")
@click.option("--rank-method", type=click.Choice(RANK_METHODS), help="Override the rules' tie rule.")
@prepare_options
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Simplify the models on this Dask scheduler's workers (same results and time limits; "
                   "--jobs is then ignored). Default: the SRDASH_SCHEDULER environment variable, else local "
                   "worker processes.")
def score(input_path, rules, output, per_dataset, problems, datasets_path, descriptions_path, qualification_path,
          qualification_data, keep_unqualified, aggregation, rank_method, timeout, jobs, cache, no_cache, scheduler):
    """Judge the competition in INPUT: a competition file (competition.toml) or results.

    A competition file (see docs/competition.md; `srdash init` writes one)
    declares the results, rules, descriptions, qualification stage and
    real-world track; the options that say the same must then be left out.
    Otherwise INPUT is the results, completed by the options below.

    INPUT is a CSV or Parquet file with one row per (method, dataset, run) — columns
    method, dataset, run (optional), model and/or components, metric columns such as
    r2_test and property — or a folder of SRBench-style JSON result files. SRBench
    names are accepted (algorithm, random_state, symbolic_model, model_size).

    Ranks are 'higher is better' (K = best, 1 = worst). A provenance file
    (versions, rules hash, input hashes) is written beside the leaderboard as
    OUTPUT.provenance.json.

    With --qualification, the qualification stage runs first (as `srdash
    qualify`) and only the methods that beat LinearRegression there are judged.
    """
    if qualification_path is None and (qualification_data is not None or keep_unqualified):
        raise click.UsageError("--qualification-data and --keep-unqualified need --qualification (the results "
                               "of the qualification stage).")
    from srdash.judging.pipeline import judge_competition

    with fail_cleanly():
        competition = competition_of(
            input_path,
            given={"--datasets": datasets_path, "--descriptions": descriptions_path,
                   "--qualification": qualification_path, "--qualification-data": qualification_data,
                   "--keep-unqualified": keep_unqualified, "--scheduler": scheduler,
                   "--rules": None if rules.name == "srbench2022" else rules.name},
            rules=rules, datasets=datasets_path, descriptions=descriptions_path, qualification=qualification_path,
            qualification_data=qualification_data, keep_unqualified=keep_unqualified, timeout=timeout, jobs=jobs,
            scheduler=scheduler, cache=False if no_cache else cache)
        if competition.rules.rule_kind.judges_submissions and competition.qualification is not None:
            raise click.UsageError(f"The rules '{competition.rules.name}' score submissions with weighted "
                                   "meta-scores; they have no qualification stage. Leave out --qualification.")
        if aggregation or rank_method:
            competition = competition.with_rules(
                competition.rules.with_options(run_aggregation=aggregation, rank_method=rank_method))
        with progress_bar("simplifying models") as progress:
            result = judge_competition(competition, progress=progress, stage=progress.stage)
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
        from srdash.cli.sensitivity import write_submissions_verdict

        write_submissions_verdict(verdict, output, per_dataset)
        echo_fingerprint(result)
        return
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    if verdict.n_methods >= 2 and verdict.per_dataset["dataset"].nunique() >= 2:
        from srdash.analysis.significance import significance

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
    if result.realworld is not None:
        click.echo("Real-world track (expert trust):", err=True)
        click.echo(result.realworld.leaderboard.to_string(index=False), err=True)
    echo_fingerprint(result)
