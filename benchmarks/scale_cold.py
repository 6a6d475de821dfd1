"""Cold and warm preparation at full scale, locally and on a Dask LocalCluster with 1 and 2 workers.

For docs/scaling.md. Two scales of per-run tables whose every run carries a real model string:

- 21 methods x 252 datasets x 10 runs = 52,920 runs (SRBench 2022 black-box + ground-truth scale);
- 25 methods x 24 datasets x 30 runs = 18,000 runs (the SRBench 2025 scale).

The model strings are the demo competition's (seeds 0, 1, ...: real SR-style outputs), cycled over the
runs: every run is simplified through the whole pipeline (``prepare_runs``: validation, parsing,
simplification with its time limit, simplicity, cache), but the models repeat, so the sympy work is
that of the corpus's distinct models (``--distinct``, default 600), not of 53k distinct models. The
cost per distinct model measured here is what docs/scaling.md multiplies for real, distinct results.

Paths, each in a fresh process with an empty cache (cold), then again on the same cache (warm):
local worker processes (``--jobs``, default 2), LocalCluster with 1 worker, with 2 workers (single
threaded; the cluster's start is not counted). Prints seconds, distinct models per second, and the
peak memory of the process and of its children. No assertions.

``--distinct 18000 --scale 2025 --paths local`` gives every run of the SRBench 2025 scale its own
corpus row (8,007 distinct models): a cold run whose sympy work is that of a real competition with
the demo's models (about ten minutes on 2 cores).

Usage: python benchmarks/scale_cold.py [--distinct 600] [--jobs 2] [--scale 53k|2025] [--paths local,cluster1,cluster2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

ONE_PATH = r"""
import json, logging, resource, sys, tempfile, time
import numpy as np, pandas as pd
sys.path.insert(0, sys.argv[6])
from complexity import demo_corpus
from srdash.io.loading import load_results
from srdash.judging.pipeline import prepare_runs

methods, datasets, runs, distinct = (int(v) for v in sys.argv[1:5])
backend, jobs = sys.argv[5], int(sys.argv[7])
models, _ = demo_corpus(distinct)
n = methods * datasets * runs
pick = np.arange(n) % len(models)
table = pd.DataFrame({
    "method": np.repeat([f"m{i:02d}" for i in range(methods)], datasets * runs),
    "dataset": np.tile(np.repeat([f"d{j:03d}" for j in range(datasets)], runs), methods),
    "run": np.tile(np.arange(runs), methods * datasets),
    "r2_test": np.random.default_rng(0).uniform(0.2, 1.0, n),
    "model": [models[i] for i in pick],
})
# every dataset has the demo's ten features (the corpus's models use x1..x10)
names = pd.Series([f"d{j:03d}" for j in range(datasets)])
features = pd.DataFrame({"dataset": names, "features": " ".join(f"x{i}" for i in range(1, 11))})
results = load_results(table, datasets=features)
out = {"runs": n, "distinct": len(set(models[i] for i in set(pick.tolist())))}
scheduler, cluster = None, None
if backend.startswith("cluster"):
    from distributed import LocalCluster
    cluster = LocalCluster(n_workers=int(backend[-1]), threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    scheduler = cluster.scheduler_address
with tempfile.TemporaryDirectory() as folder:
    for path in ("cold", "warm"):
        start = time.perf_counter()
        prepared = prepare_runs(results, timeout=10.0, jobs=jobs, cache=folder, scheduler=scheduler)
        out[path + "_s"] = time.perf_counter() - start
    out["statuses"] = prepared["status"].value_counts().to_dict()
if cluster is not None:
    cluster.close()
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["children_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps(out))
"""

SCALES = {"53k (21 x 252 x 10)": (21, 252, 10), "SRBench 2025 (25 x 24 x 30)": (25, 24, 30)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--distinct", type=int, default=600, help="corpus rows cycled over the runs")
    parser.add_argument("--jobs", type=int, default=2, help="local worker processes")
    parser.add_argument("--scale", choices=["53k", "2025"], action="append", help="only this scale (repeatable)")
    parser.add_argument("--paths", default="local,cluster1,cluster2", help="comma-separated paths to run")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    wanted = args.paths.split(",")
    backends = {label: backend for label, backend in {
        f"local, {args.jobs} jobs": "local", "LocalCluster, 1 worker": "cluster1",
        "LocalCluster, 2 workers": "cluster2"}.items() if backend in wanted}
    scales = {label: sizes for label, sizes in SCALES.items()
              if not args.scale or any(label.startswith("53k" if s == "53k" else "SRBench 2025") for s in args.scale)}
    print(f"{'scale':28s} {'path':24s} {'runs':>6s} {'cold s':>7s} {'warm s':>7s} {'models/s':>9s} "
          f"{'peak MB':>8s} {'worker peak MB':>15s}")
    for label, sizes in scales.items():
        for name, backend in backends.items():
            done = subprocess.run([sys.executable, "-c", ONE_PATH, *map(str, sizes), str(args.distinct), backend,
                                   str(REPO / "benchmarks"), str(args.jobs)], env=env, capture_output=True,
                                  text=True)
            if done.returncode:
                print(f"{label:28s} {name:24s} failed: {done.stderr[-500:]}")
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{label:28s} {name:24s} {r['runs']:6d} {r['cold_s']:7.1f} {r['warm_s']:7.2f} "
                  f"{r['distinct'] / r['cold_s']:9.2f} {r['peak_mb']:8.0f} {r['children_peak_mb']:15.0f}")
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
