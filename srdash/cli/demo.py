"""``srdash demo``: write the built-in demo competition."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.errors import SrdashError
from srdash.cli._common import fail_cleanly
from srdash.cli._options import bounded


@click.command("demo")
@click.option("-o", "--output", "output", required=True,
              type=click.Path(file_okay=False, dir_okay=True, path_type=Path),
              help="Folder to write into (created if missing; files of the same names are overwritten).")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"),
              help="Seed of every random draw: the same seed, the same files, byte for byte, on any machine.")
@click.option("--scale", type=click.Choice(["demo", "2025"]), default="demo", show_default=True,
              help="'2025': a generated SRBench-2025-scale benchmark instead (25 methods x 24 datasets x 30 runs, "
                   "SRBench 2025's per-run columns with eco2AI's energy columns, the srbench2025 rules).")
def demo(output: Path, seed: int, scale: str) -> None:
    """Write the built-in demo competition: a synthetic SRBench-2022-style track.

    10 datasets (exact formulas, feature selection, four noise levels,
    extrapolation), 7 methods and up to 10 runs each, with real model strings
    whose r2_test was computed on the test data. One method misses some runs
    and one dataset entirely (a DNF), and one run's model string is hostile
    code that a judge must refuse.

    \b
    Files written into OUTPUT:
      competition.toml        the competition file: results, rules, descriptions,
                              qualification stage (docs/competition.md)
      results.csv             method, dataset, run, model, r2_test, property
      datasets.csv            dataset, features, kind, n_train, n_test,
                              ground_truth, irrelevant_features, noise
      <dataset>_train.csv     the training data: one column per feature, target y
      <dataset>_test.csv      the test data, same columns
      trust.sqlite            the real-world track's trust store (a demo
                              expert's ranks; `srdash review` adds yours)

    For seed 0, srdash's cache also receives the demo's results as srdash
    prepared them (shipped with it), so judging and serving it start at once.

    Judge it with `srdash score OUTPUT/competition.toml`.

    With `--scale 2025`: results.csv, datasets.csv and competition.toml of a
    generated SRBench-2025-scale benchmark (srdash.demo.srbench2025).
    """
    if scale == "2025":
        from srdash.demo.srbench2025 import write_demo_2025

        with fail_cleanly():
            paths = write_demo_2025(output, seed=seed)
        click.echo(f"Wrote the 2025-scale demo (seed {seed}) to {output}:")
        for path in paths.values():
            click.echo(f"  {path}")
        click.echo(f"Judge it with: srdash score {paths['competition']}")
        click.echo(f"Open it with:  srdash serve {paths['competition']}")
        return
    from srdash.demo.competition import write_demo

    with fail_cleanly():
        paths = write_demo(output, seed=seed)
    if seed == 0:
        from srdash.demo.prepared import seed_cache

        try:
            seed_cache()  # the models' results as srdash computed them: no sympy work for the demo
        except (OSError, SrdashError):  # a cache that cannot be written: the results are computed when needed
            pass
    click.echo(f"Wrote the demo competition (seed {seed}) to {output}:")
    for path in paths.values():
        click.echo(f"  {path}")
    click.echo(f"Judge it with: srdash score {paths['competition']}")
    click.echo(f"Open it with:  srdash serve {paths['competition']}")
