"""What does not depend on sympy, measured at full scale: the cache and the judging of big competitions.

For docs/scaling.md. Two scales of synthetic per-run tables (random r2_test and components, so no
sympy work; the sympy work is measured by benchmarks/complexity.py and benchmarks/rescore.py and
extrapolated in the doc):

- 21 methods x 252 datasets x 10 runs = 52,920 runs (SRBench 2022 black-box + ground-truth scale);
- 25 methods x 24 datasets x 30 runs = 18,000 runs (the SRBench 2025 scale).

For each: writing one cache row per run and reading them all back (the warm path of a re-score,
integrity checks included), the cache file's size, ``prepare_runs`` + ``judge`` with the
components given, and the peak memory of the process (each scale in a fresh process).
No assertions.

Usage: python benchmarks/scale.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

ONE_SCALE = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
import numpy as np, pandas as pd
from srdash.cache import ResultCache, cache_key
from srdash.io.loading import load_results
from srdash.judging.pipeline import prepare_runs
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules

methods, datasets, runs = (int(v) for v in sys.argv[1:4])
rng = np.random.default_rng(0)
n = methods * datasets * runs
table = pd.DataFrame({
    "method": np.repeat([f"m{i:02d}" for i in range(methods)], datasets * runs),
    "dataset": np.tile(np.repeat([f"d{j:03d}" for j in range(datasets)], runs), methods),
    "run": np.tile(np.arange(runs), methods * datasets),
    "r2_test": rng.uniform(0.2, 1.0, n),
    "components": rng.integers(1, 200, n).astype(float),
    "property": rng.uniform(0, 1, n),  # srbench2022 ranks it: a criterion without data stops the verdict
})
out = {"runs": n}
with tempfile.TemporaryDirectory() as folder:
    keys = [cache_key(f"model {i}", ["x1", "x2"], {"sympy": "1.14.0"}) for i in range(n)]
    row = {"model": "x1 + x2", "status": "ok", "components": 3.0, "simplified": "x1 + x2", "reason": "",
           "features_used": "x1 x2", "seconds": 0.2, "cpu_seconds": 0.2}
    with ResultCache(folder) as cache:
        start = time.perf_counter()
        cache.put_many(((key, row) for key in keys), limit=10.0)
        out["cache_write_s"] = time.perf_counter() - start
    with ResultCache(folder) as cache:
        start = time.perf_counter()
        found = cache.get_many(keys, limit=10.0)
        out["cache_read_s"] = time.perf_counter() - start
        out["cache_hits"] = len(found)
    out["cache_mb"] = sum(p.stat().st_size for p in Path(folder).iterdir()) / 1e6
start = time.perf_counter()
results = load_results(table)
prepared = prepare_runs(results, cache=False)
out["load_prepare_s"] = time.perf_counter() - start
start = time.perf_counter()
verdict = judge(prepared, load_rules("srbench2022"))
out["judge_s"] = time.perf_counter() - start
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""

SCALES = {"53k (21 x 252 x 10)": (21, 252, 10), "SRBench 2025 (25 x 24 x 30)": (25, 24, 30)}


def main() -> None:
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    print(f"{'scale':28s} {'runs':>7s} {'cache write s':>14s} {'read s':>7s} {'cache MB':>9s} "
          f"{'load+prepare s':>15s} {'judge s':>8s} {'peak MB':>8s}")
    for label, sizes in SCALES.items():
        done = subprocess.run([sys.executable, "-c", ONE_SCALE, *map(str, sizes)], env=env, capture_output=True,
                              text=True, check=True)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{label:28s} {r['runs']:7d} {r['cache_write_s']:14.2f} {r['cache_read_s']:7.2f} {r['cache_mb']:9.1f} "
              f"{r['load_prepare_s']:15.2f} {r['judge_s']:8.2f} {r['peak_mb']:8.0f}")


if __name__ == "__main__":
    main()
