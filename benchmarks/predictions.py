"""Benchmark: scoring a prediction competition of 100 submissions x 100,000 predictions.

Prints the time of the whole scoring (listing, reading, validating, scoring on both
subsets with three metrics, leaderboards) and compares srdash's vectorised reader with
a naive reader that loops over the lines in Python, on a subset of the files.
No assertions: timings depend on the machine.

Usage: python benchmarks/predictions.py [--submissions 100] [--lines 100000] [--naive 10]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from srdash.io.predictions import read_solution, read_targets
from srdash.judging.metrics import root_mean_squared_error
from srdash.judging.predictions import score_submissions


def naive_read(path: Path, n_samples: int) -> np.ndarray:
    """The per-line Python loop that srdash avoids (same checks, no line numbers kept beyond the loop)."""
    values, problems = [], []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text:
                problems.append((number, "empty"))
                continue
            try:
                value = float(text)
            except ValueError:
                problems.append((number, "not a number"))
                continue
            if not math.isfinite(value):
                problems.append((number, "not finite"))
            values.append(value)
    if len(values) != n_samples or problems:
        raise ValueError(problems)
    return np.array(values)


def write_competition(folder: Path, n_submissions: int, n_lines: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n_lines)
    preliminary = rng.random(n_lines) < 0.3
    text = np.char.mod("%.17g", y)
    (folder / "prelim.txt").write_text("\n".join(np.where(preliminary, text, "")) + "\n")
    (folder / "final.txt").write_text("\n".join(np.where(preliminary, "", text)) + "\n")
    for i in range(n_submissions):
        team = folder / "submissions" / f"team{i % 20:02d}"
        team.mkdir(parents=True, exist_ok=True)
        prediction = y + rng.normal(scale=0.1 + 0.01 * i, size=n_lines)
        (team / f"sub{i:03d}.txt").write_text("\n".join(np.char.mod("%.10g", prediction)) + "\n")
    return folder / "prelim.txt", folder / "final.txt", folder / "submissions"


def best_of(repeat: int, function):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=100)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--naive", type=int, default=10, help="files read by the naive reader")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        prelim, final, folder = write_competition(Path(tmp), args.submissions, args.lines)
        print(f"setup: wrote {args.submissions} submissions x {args.lines:,} lines in "
              f"{time.perf_counter() - start:.1f} s")

        targets_time, targets = best_of(args.repeat, lambda: read_targets(prelim, final))
        score_time, result = best_of(args.repeat, lambda: score_submissions(
            folder, targets, metric="rmse", extra_metrics=["mae", "r2"], rule="best-preliminary"))
        n_ok = int((result.submissions["status"] == "ok").sum())
        per_file = score_time / args.submissions
        print(f"read targets ({args.lines:,} samples, two files): {targets_time * 1e3:.1f} ms")
        print(f"score_submissions: {args.submissions} submissions ({n_ok} ok), 3 metrics x 2 subsets: "
              f"{score_time:.2f} s total = {per_file * 1e3:.1f} ms per submission "
              f"({args.submissions * args.lines / score_time / 1e6:.1f} M predictions/s)")

        files = sorted(folder.glob("*/*.txt"))[: args.naive]
        vector_time, _ = best_of(args.repeat, lambda: [read_solution(f, targets) for f in files])
        naive_time, naive_values = best_of(args.repeat, lambda: [naive_read(f, args.lines) for f in files])
        assert naive_values[0].size == args.lines  # the naive reader did read everything
        print(f"reading {len(files)} files: srdash (vectorised) {vector_time / len(files) * 1e3:.1f} ms per file, "
              f"naive per-line loop {naive_time / len(files) * 1e3:.1f} ms per file: "
              f"ratio naive / vectorised = {naive_time / vector_time:.1f}x")
        projected = naive_time / len(files) * args.submissions
        print(f"projected naive reading of all {args.submissions} files: {projected:.1f} s "
              f"(vectorised full scoring: {score_time:.2f} s)")
        # The metric itself is cheap next to reading.
        mask = targets.mask("final")
        metric_time, _ = best_of(args.repeat, lambda: root_mean_squared_error(targets.values[mask],
                                                                               naive_values[0][mask]))
        print(f"one rmse on the final subset: {metric_time * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
