"""Re-scoring an unchanged competition, timeouts included: cold cache vs warm cache, as a ratio.

The competition is everything the demo dashboard prepares (``srdash.judging.pipeline.prepare_track``
on the demo: simplification, evaluation on the data files, exact re-discovery checks) plus the
real final models of the SRBench 2023 track 1 (``../shared/realdata/srbench2023/track1_models.csv``,
models from real SR packages, several of which exceed the time limit), simplified as
``srdash complexity`` does. Paths, on the same inputs:

- cold: an empty cache (every result computed, timeouts included);
- warm: the same call again (every result read from the cache; a timeout under the same limit
  is not retried);
- warm, retry timeouts: the same with ``retry_timeouts=True`` (what a warm run cost before
  timeouts were cached).

Each path runs in a fresh Python process (no state shared but the cache file). Prints seconds,
the ratios, the cache counts and peak memory. No assertions; compare ratios from one run.

Usage: python benchmarks/rescore.py [--jobs 2] [--timeout 10]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REAL_MODELS = REPO / ".." / "shared" / "realdata" / "srbench2023" / "track1_models.csv"

ONE_PATH = r"""
import json, resource, sys, time
import pandas as pd
from srdash.demo.competition import cached_demo
from srdash.expressions import complexity_table
from srdash.cache import ResultCache
from srdash.io.datasets import load_dataset_table
from srdash.io.loading import load_results
from srdash.judging.pipeline import prepare_track, qualified_results
from srdash.judging.qualification import run_qualification

folder, jobs, timeout, retry, real = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
start = time.perf_counter()
paths = cached_demo(cache_dir=folder, seed_prepared=False)
results = load_results(paths["results"], datasets=paths["datasets"])
kept, _ = qualified_results(results, run_qualification(str(paths["qualification"])))
with ResultCache(folder, retry_timeouts=retry) as cache:
    track = prepare_track(kept, load_dataset_table(paths["descriptions"]), timeout=timeout, jobs=jobs, cache=cache)
    statuses = track.runs["status"].value_counts().to_dict()
    if real:
        models = pd.read_csv(real)
        table = complexity_table(models["model"], timeout=timeout, jobs=jobs, cache=cache)
        for status, n in table["status"].value_counts().items():
            statuses[f"real {status}"] = int(n)
    stats = cache.stats.as_dict()
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "statuses": statuses, "hits": stats["hits"], "misses": stats["misses"],
                  "timeouts_reused": stats["timeouts_reused"], "timeouts_retried": stats["timeouts_retried"],
                  "peak_mb": peak}))
"""


def run(folder: str, *, jobs: int, timeout: float, retry: bool, real: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("SRDASH_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", ONE_PATH, folder, str(jobs), str(timeout), "1" if retry else "0",
                           real], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    real = str(REAL_MODELS.resolve()) if REAL_MODELS.exists() else ""
    print(f"competition: the demo's prepared track{' + SRBench 2023 track 1 real models' if real else ''}; "
          f"jobs={args.jobs}, timeout={args.timeout:g} s; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        paths = [("cold (empty cache)", run(folder, jobs=args.jobs, timeout=args.timeout, retry=False, real=real))]
        paths.append(("warm", run(folder, jobs=args.jobs, timeout=args.timeout, retry=False, real=real)))
        paths.append(("warm, --retry-timeouts", run(folder, jobs=args.jobs, timeout=args.timeout, retry=True,
                                                    real=real)))
    cold = paths[0][1]["seconds"]
    print(f"\n{'path':26s} {'seconds':>9s} {'vs cold':>9s} {'hits':>6s} {'misses':>7s} {'timeouts reused':>16s} "
          f"{'retried':>8s} {'peak MB':>8s}")
    for label, result in paths:
        print(f"{label:26s} {result['seconds']:9.2f} {cold / result['seconds']:8.1f}x {result['hits']:6d} "
              f"{result['misses']:7d} {result['timeouts_reused']:16d} {result['timeouts_retried']:8d} "
              f"{result['peak_mb']:8.0f}")
    print(f"statuses: {paths[0][1]['statuses']}")
    print(f"(process start-up and imports included in every path; load average now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
