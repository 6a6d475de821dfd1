"""`srdash score-models`: a shorthand for `srdash score` on a competition of submitted models (SRBench 2023
track 1): it names the models and the datasets' files in a competition and judges it through the one
pipeline, which computes the measures the rules declare."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from srdash.cli._options import bounded
from srdash.cli._common import echo_fingerprint, fail_cleanly, judged, refuse_output_onto_input
from srdash.io.csvsafe import write_csv
from srdash.judging.competition import competition_from_options

_SUFFIXES = (".csv.gz", ".tsv.gz", ".csv", ".tsv", ".parquet")
_OK = ("ok", "given", "measured")


def _dataset_name(path: Path) -> str:
    name = path.name
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _last_column(path: Path) -> str:
    import pandas as pd

    try:
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            return pq.read_schema(path).names[-1]
        return str(pd.read_csv(path, sep="\t" if ".tsv" in path.name else ",", nrows=0).columns[-1])
    except Exception as exc:  # noqa: BLE001 - any reader error becomes a clean message
        raise click.ClickException(f"Cannot read '{path}': {type(exc).__name__}: {exc}") from None


def _descriptions(folder: Path, dataset_paths, target: str | None) -> Path:
    """A descriptions file naming each dataset's file as its 'test' partition (the column r2_test)."""
    entries = [{"name": _dataset_name(path), "files": {"test": str(path.resolve())},
                "target": target or _last_column(path), "property": "none"} for path in dataset_paths]
    path = folder / "datasets.yaml"
    # JSON is YAML: no quoting rules of our own for file names
    path.write_text(json.dumps({"datasets": entries}, indent=1) + "\n", encoding="utf-8")
    return path


@click.command(name="score-models")
@click.argument("models_path", metavar="MODELS", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("dataset_paths", metavar="DATASET...", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--rules", default="srbench2023-track1", show_default=True,
              help="A rules preset or .toml file (see docs/rules.md); its criteria's measures say what is "
                   "computed (the 2023 presets: r2-on-data and tree-nodes).")
@click.option("--target", default=None, help="Target column of the datasets. Default: each one's last column.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Leaderboard CSV to write (place, method, score, criteria ranks). Default: print it.")
@click.option("--table", "table_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the per-model table: method, dataset, run, the criteria's columns, status, reason.")
@click.option("--jobs", type=bounded("jobs"), default=None, help="Worker processes (default: every core).")
@click.option("--cache", "cache", type=click.Path(dir_okay=False, path_type=Path),
              help="Cache file of the measures (default: srdash's cache in your user cache directory).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the cache.")
def score_models(models_path, dataset_paths, rules, target, output, table_path, jobs, cache, no_cache):
    """Judge MODELS on their DATASET files: `srdash score` on the competition they make.

    MODELS is a CSV with columns team, dataset, model (one model string per team and
    dataset, e.g. SRBench 2023's track1_models.csv). Each DATASET file is named after its
    dataset (dataset_1.csv.gz for 'dataset_1'). The competition (results MODELS, the rules,
    descriptions naming each DATASET as the 'test' file) is judged by the same pipeline as
    `srdash score competition.toml`: each criterion is measured as the rules declare (the 2023
    presets: R² on the dataset's file, nodes of the tree as submitted; no model is simplified).
    `--rules srbench2023-track1-as-run` reproduces the published 2023 table.
    """
    refuse_output_onto_input([("-o/--output", output), ("--table", table_path)],
                             [models_path, *dataset_paths, None if no_cache else cache])
    cache_option = False if no_cache else cache
    with tempfile.TemporaryDirectory(prefix="srdash-score-models-") as folder:
        descriptions = _descriptions(Path(folder), dataset_paths, target)
        with fail_cleanly():
            competition = competition_from_options(models_path, rules=rules, descriptions=descriptions,
                                                   jobs=jobs, cache=cache_option)
        result = judged(competition, what="measuring models")
    verdict = result.verdict
    runs = result.runs
    for row in runs[~runs["status"].isin(_OK)].itertuples():
        click.secho(f"Warning: {row.method} on {row.dataset}: {row.status}: {row.reason}", fg="yellow", err=True)
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    if table_path is not None:
        columns = ["method", "dataset", "run", *(c.column for c in verdict.criteria), "status", "reason"]
        write_csv(runs[list(dict.fromkeys(columns))], table_path, index=False)
        click.echo(f"Wrote {table_path}", err=True)
    board = verdict.leaderboard
    if output is None:
        click.echo(board.to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    else:
        write_csv(board, output, index=False)
        click.echo(f"Wrote {output} ({len(board)} teams, rules {verdict.rules.name})", err=True)
    echo_fingerprint(result)
