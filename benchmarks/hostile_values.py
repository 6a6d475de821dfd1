"""What refusing each hostile number of issue 32 costs, and what the bounds themselves cost: seconds and MB.

Each case of ``tests/data/hostile/make_values.py`` (``ISSUE_VALUES``: the issue's counts, precisions,
weights and options) is written into a fresh folder and run as ``srdash ...`` in a child process; the
child's own peak RSS comes from ``os.wait4``. Then the accepted extremes: ``runs_per_dataset = 100``
(the bound), ``robustness -B 10000`` and ``sensitivity --samples 200000`` on the same tiny competition.
``tests/test_hostile_values.py`` asserts the same bounds loosely.

Before issue 32 (the issue's figures): ``runs_per_dataset = 20000000`` took 3.2 GB and 33 s and then
failed with a traceback; ``1000000000`` asked numpy for 149 GiB; ``decimals = 1e12`` ended in an
OverflowError; ``robustness -B 1e9`` and ``sensitivity --samples 1e9`` in MemoryError tracebacks.

Usage: python benchmarks/hostile_values.py [--bounds] [--scale]
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]

_spec = importlib.util.spec_from_file_location("make_values", ROOT / "tests" / "data" / "hostile" / "make_values.py")
MAKE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(MAKE)


def _line(what: str, code: int, seconds: float, peak_mb: float, stderr: str) -> str:
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    return f"{what:38s} exit {code}  {seconds:6.2f} s  {peak_mb:6.0f} MB  {last[:110]}"


def refusals() -> None:
    print("Refusing each hostile value (a child process per case):")
    for what, where, spec, _key in MAKE.ISSUE_VALUES:
        with tempfile.TemporaryDirectory() as folder:
            arguments = MAKE.write_case(Path(folder), where, spec)
            code, stderr, seconds, peak_mb = MAKE.run_srdash(arguments, cwd=Path(folder))
        print(_line(what, code, seconds, peak_mb, stderr))


def bounds() -> None:
    print("At the bounds, on the tiny competition (3 methods, 2 datasets, 2 runs):")
    cases = [("runs_per_dataset = 100", MAKE.rules_text("ranking.runs_per_dataset", 100), ["score"]),
             ("robustness -B 10000", MAKE.rules_text(), ["robustness", "-B", "10000"]),
             ("robustness -B 10000 --resample datasets", MAKE.rules_text(),
              ["robustness", "-B", "10000", "--resample", "datasets"]),
             ("sensitivity --samples 200000", MAKE.rules_text(), ["sensitivity", "--samples", "200000"])]
    for what, rules, command in cases:
        with tempfile.TemporaryDirectory() as folder:
            competition = MAKE.competition_folder(Path(folder), rules_file=rules)
            arguments = [command[0], str(competition), *command[1:]]
            code, stderr, seconds, peak_mb = MAKE.run_srdash(arguments, cwd=Path(folder), timeout=1200)
        print(_line(what, code, seconds, peak_mb, stderr))


def _synthetic_results(path: Path, methods: int, datasets: int, runs: int) -> None:
    """Random results of ``methods x datasets x runs`` (seeded): accuracy and simplicity differ everywhere."""
    rng = np.random.default_rng(0)
    rows = [(f"m{m}", f"d{d}", r) for m in range(methods) for d in range(datasets) for r in range(runs)]
    table = pd.DataFrame(rows, columns=["method", "dataset", "run"])
    table["r2_test"] = rng.random(len(table)).round(6)
    table["simplicity"] = -rng.integers(1, 30, len(table)).astype(float)
    table.to_csv(path, index=False)


def scale() -> None:
    print("At the bounds, 20 methods x 100 datasets x 10 runs (random results):")
    cases = [("robustness -B 10000 --resample datasets", ["robustness", "-B", "10000", "--resample", "datasets"]),
             ("robustness -B 10000", ["robustness", "-B", "10000"]),
             ("sensitivity --samples 200000", ["sensitivity", "--samples", "200000"])]
    for what, command in cases:
        with tempfile.TemporaryDirectory() as folder:
            competition = MAKE.competition_folder(Path(folder), rules_file=MAKE.rules_text())
            _synthetic_results(Path(folder) / "results.csv", 20, 100, 10)
            arguments = [command[0], str(competition), *command[1:]]
            code, stderr, seconds, peak_mb = MAKE.run_srdash(arguments, cwd=Path(folder), timeout=3600)
        print(_line(what, code, seconds, peak_mb, stderr))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bounds", action="store_true", help="also measure the accepted extremes")
    parser.add_argument("--scale", action="store_true",
                        help="also measure -B and --samples at their bounds on 20 methods x 100 datasets x 10 runs")
    options = parser.parse_args()
    refusals()
    if options.bounds:
        bounds()
    if options.scale:
        scale()
