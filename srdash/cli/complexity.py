"""`srdash complexity`: SRBench 2022 complexity of every model in a CSV file."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from srdash.cli._options import bounded
from srdash.cli._common import fail_cleanly, progress_bar, refuse_output_onto_input
from srdash.io.csvsafe import write_csv
from srdash.io.files import read_csv_file

OUTPUT_COLUMNS = ("components", "simplicity", "simplified", "status", "reason", "seconds")


def _default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _feature_names(cell: str):
    names = [name for name in re.split(r"[\s,]+", cell.strip()) if name]
    return names or None


@click.command("complexity")
@click.argument("models_path", metavar="MODELS.csv", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="CSV file to write: the input columns plus components, simplicity, simplified, "
                   "status, reason, seconds, in the input's row order.")
@click.option("--timeout", default=10.0, show_default=True, type=bounded("timeout"),
              help="Seconds allowed for sympy.simplify on one model (SRBench 2022: 10). A model still "
                   "running after timeout + max(2, timeout/2) s has its worker killed.")
@click.option("--jobs", default=_default_jobs, show_default="all cores", type=bounded("jobs"),
              help="Worker processes.")
@click.option("--cache", "cache_path", type=click.Path(path_type=Path),
              help="Complexity cache: an SQLite file, or an existing directory to hold complexity.sqlite. "
                   "Default: $SRDASH_CACHE_DIR, else srdash's folder in your user cache directory "
                   "(~/.cache/srdash on Linux). Timeouts (also wall-clock kills) are cached with their limit "
                   "(a longer --timeout computes them again).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the complexity cache.")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Run the simplifications on this Dask scheduler's workers (same results and time limits; "
                   "--jobs is then ignored). Default: the SRDASH_SCHEDULER environment variable, else local "
                   "worker processes.")
def complexity(models_path, output, timeout, jobs, cache_path, no_cache, scheduler):
    """Compute the SRBench 2022 complexity of the models in MODELS.csv.

    MODELS.csv needs a column `model` (one model string per row, e.g.
    `0.4*x1*x2 - 1.5*x1 + 1`) and may have a column `features` (the allowed
    variable names, separated by spaces; empty or absent: any name). Other
    columns are copied to the output unchanged.

    Each model is parsed safely (never evaluated), simplified with
    sympy.simplify under the time limit, its floats rounded to 3 decimals
    (|c| < 0.001 becomes 0), and its nodes counted: `components`, and
    `simplicity` = round(-log(components)/log(5), 1). `status` is one of ok,
    timeout (simplify ran out of time; unsimplified model counted),
    simplify_error (simplify failed; unsimplified model counted), rejected
    (outside the allowed syntax, names or size; no components) and
    parse_error (empty or not valid syntax); `reason` says why. Results are
    cached, so a second run on the same models does no sympy work.

    A progress bar on stderr counts the done, failed and timed-out models.
    """
    refuse_output_onto_input([("-o/--output", output)], [models_path, cache_path])
    if cache_path is not None and no_cache:
        raise click.UsageError("Give either --cache PATH or --no-cache, not both.")
    import pandas as pd

    from srdash.expressions import complexity_table

    try:  # a regular file of bounded size (srdash.io.files); FileRefused is an OSError
        table = read_csv_file(models_path, dtype=str, keep_default_na=False)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"Cannot read {models_path} as CSV: {exc}") from None
    if "model" not in table.columns:
        present = ", ".join(repr(c) for c in table.columns) or "none"
        raise click.ClickException(f"{models_path} has no 'model' column (one model string per row). "
                                   f"Columns present: {present}.")
    features = None
    if "features" in table.columns:
        features = [_feature_names(cell) for cell in table["features"]]
    with fail_cleanly(), progress_bar("complexity") as progress:
        computed = complexity_table(
            table["model"], features=features, timeout=timeout, jobs=jobs,
            cache=False if no_cache else cache_path, progress=progress, scheduler=scheduler,
        )
    out = table.copy()
    for column in OUTPUT_COLUMNS:
        out[column] = computed[column].to_numpy()
    write_csv(out, output, index=False)
    counts = computed["status"].value_counts()
    summary = ", ".join(f"{counts[s]} {s}" for s in ("ok", "timeout", "simplify_error", "rejected", "parse_error")
                        if s in counts)
    click.echo(f"Wrote {len(out)} rows to {output} ({summary or 'no models'}).", err=True)
