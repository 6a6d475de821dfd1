"""What the growing commands of issue 32 cost now: seconds and peak MB per case, no assertions.

Each command runs in a child process (``srdash ...``), which reports its own peak RSS
(``ru_maxrss``); the seconds are the child's wall clock, start-up included. The inputs are built by
the generators of ``tests/test_costs.py`` (seeded), whose tests assert the same cases loosely.

Cases:

- ``jury``: ``srdash trust jury`` on 60 jurors x 3 datasets x 100 methods (72,000 rubric scores),
  plain, with ``--model`` (before issue 32: 50 s, 4.7 GB) and with ``--explain`` (before: every
  pair of jurors, 1,831 combinations of 4.9 s each);
- ``jury300``: ``--model`` on 60 jurors x 1 dataset x 300 methods (the bootstrap is cut, said);
- ``compare``: ``srdash analyse compare`` on 300 methods x 400 datasets with 1% missing values:
  Nemenyi, Conover, and the default Wilcoxon-Holm (refused past 10,000 pairs);

Timings on shared machines are noisy: compare the numbers of one run.

Usage: python benchmarks/hostile_costs.py [--cases jury jury300 compare]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def _tests():
    spec = importlib.util.spec_from_file_location("test_costs", ROOT / "tests" / "test_costs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _measured(args: list[str]) -> tuple[float, float, int, str]:
    """Seconds, peak MB, exit code and the last line of stderr of ``srdash ARGS`` in a child."""
    code = ("import resource, sys\nfrom srdash.cli import main\nsys.argv = ['srdash', *sys.argv[1:]]\n"
            "try:\n    main()\nexcept SystemExit as exit_:\n    code = exit_.code\nelse:\n    code = 0\n"
            "print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
            "sys.exit(code)")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], env=ENV, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    lines = done.stderr.splitlines()
    peak = [int(line.split()[1]) / 1024 for line in lines if line.startswith("PEAK_KB")]
    said = [line for line in lines if not line.startswith("PEAK_KB")]
    return seconds, peak[-1] if peak else float("nan"), done.returncode, (said[0] if said else "")[:160]


def _row(case: str, args: list[str]) -> None:
    seconds, peak, code, said = _measured(args)
    print(f"{case:<44} {seconds:8.1f} s {peak:8.0f} MB  exit {code}  {said}", flush=True)


def _store(tests, folder: Path, jurors: int, datasets: int, methods: int) -> Path:
    return tests._store(folder, tests.jury_scores(jurors, datasets, methods))


def jury(tests, folder: Path) -> None:
    store = _store(tests, folder / "jury", 60, 3, 100)
    base = ["trust", "jury", "--store", str(store), "--rules", "srbench2023-track2"]
    _row("jury 60 x 3 x 100 (72,000 scores)", base)
    _row("jury --model 60 x 3 x 100", [*base, "--model"])
    _row("jury --explain 60 x 3 x 100", [*base, "--explain"])


def jury300(tests, folder: Path) -> None:
    store = _store(tests, folder / "jury300", 60, 1, 300)
    _row("jury --model 60 x 1 x 300", ["trust", "jury", "--store", str(store), "--rules", "srbench2023-track2",
                                       "--model"])


def compare(tests, folder: Path) -> None:
    path = folder / "compare.csv"
    tests.comparison_table(300, 400).to_csv(path, index=False)
    for posthoc in ("nemenyi", "conover", "wilcoxon-holm"):
        _row(f"compare 300 x 400, 1% missing, {posthoc}",
             ["analyse", "compare", str(path), "--posthoc", posthoc, "-o", str(folder / f"{posthoc}.csv")])


CASES = {"jury": jury, "jury300": jury300, "compare": compare}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    options = parser.parse_args()
    tests = _tests()
    with tempfile.TemporaryDirectory() as folder:
        for case in options.cases:
            (Path(folder) / case).mkdir()
            CASES[case](tests, Path(folder))


if __name__ == "__main__":
    main()
