"""`srdash datasets`: write property datasets of every kind with their description file."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly
from srdash.cli._options import bounded


@click.command("datasets")
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write the data files and datasets.yaml into (created if needed).")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"),
              help="Seed of the random numbers: the same seed writes the same files.")
def datasets_command(output, seed):
    """Write small synthetic property datasets and their description file.

    One dataset per property kind: exact formulas of graded difficulty
    (exact_easy, exact_medium, exact_hard), irrelevant features
    (feature_absence), surrogate features (local_optima), an extrapolation
    partition (extrapolation) and one function at 0, 5, 10 and 20 % noise
    (noise_0 ... noise_20, group 'noise'). Each has <name>_train.csv and
    <name>_test.csv (target column y); datasets.yaml describes them all
    (format: the srdash.io.datasets module) and can be passed wherever a dataset
    table is expected.
    """
    from srdash.io.datasets import write_property_datasets

    with fail_cleanly():
        table = write_property_datasets(output, seed=seed)
    kinds = ", ".join(f"{spec.name} ({spec.property})" for spec in table)
    click.echo(f"Wrote {len(table)} datasets to {output}: {kinds}.", err=True)
    click.echo(str(output / "datasets.yaml"))
