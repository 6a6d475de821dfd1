"""`srdash score-models`: judge one submitted model per (team, dataset), as SRBench 2023 track 1."""

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly


def _dataset_name(path: Path) -> str:
    name = path.name
    for suffix in (".csv.gz", ".tsv.gz", ".csv", ".tsv", ".parquet"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _read(path: Path):
    import pandas as pd

    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path, sep="\t" if ".tsv" in path.name else ",")
    except Exception as exc:  # noqa: BLE001 - any reader error becomes a clean message
        raise click.ClickException(f"Cannot read '{path}': {type(exc).__name__}: {exc}") from None


@click.command(name="score-models")
@click.argument("models_path", metavar="MODELS", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("dataset_paths", metavar="DATASET...", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--rules", default="srbench2023-track1", show_default=True,
              help="A rules preset or .toml file with criteria on r2_test and size (see docs/rules.md).")
@click.option("--target", default=None, help="Target column of the datasets. Default: each one's last column.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Leaderboard CSV to write (place, method, score, criteria ranks). Default: print it.")
@click.option("--table", "table_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the per-model table: method, dataset, r2_test, size, status, reason.")
def score_models(models_path, dataset_paths, rules, target, output, table_path):
    """Score each model of MODELS on its DATASET and judge them with the rules.

    MODELS is a CSV with columns team, dataset, model (one model string per team and
    dataset, e.g. SRBench 2023's track1_models.csv). Each DATASET file is named after its
    dataset (dataset_1.csv.gz for 'dataset_1'). Every model is parsed safely (never
    executed), evaluated on its dataset (R², column r2_test) and measured (size: nodes of
    its sympy tree as submitted, no simplification); then the rules rank the teams.
    `--rules srbench2023-track1-as-run` reproduces the published 2023 table.
    """
    from srdash.judging.ranking import judge
    from srdash.judging.rules import load_rules
    from srdash.judging.submitted import score_submitted_models

    models = _read(models_path)
    datasets = {_dataset_name(path): _read(path) for path in dataset_paths}
    with fail_cleanly():
        verdict_rules = load_rules(rules)
        table = score_submitted_models(models, datasets, target=target, source=str(models_path))
        verdict = judge(table, verdict_rules)
    for row in table[table["status"] != "ok"].itertuples():
        click.secho(f"Warning: {row.method} on {row.dataset}: {row.status}: {row.reason}", fg="yellow", err=True)
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    if table_path is not None:
        table.drop(columns="model").to_csv(table_path, index=False)
        click.echo(f"Wrote {table_path}", err=True)
    board = verdict.leaderboard
    if output is None:
        click.echo(board.to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    else:
        board.to_csv(output, index=False)
        click.echo(f"Wrote {output} ({len(board)} teams, rules {verdict_rules.name})", err=True)
