"""Cold and warm preparation of the generated SRBench-2025-scale demo (`srdash demo --scale 2025`).

For docs/scaling.md. The demo (25 methods x 24 datasets x 30 runs = 17,980 runs with SRBench 2025's per-run
columns and eco2AI's energy columns; 1,800 distinct model strings, some failed runs) is written, then prepared
and judged with its competition.toml (the srbench2025 rules: the size counted by the ``rounded-nodes``
measure in worker processes) twice in one fresh process: with an empty cache (cold), then on the same cache
(warm). Then the two SRBench 2025 views the dashboard builds when opened (srdash.figures.srbench2025) are timed
on the prepared runs. Prints seconds and the warm/cold ratio; no assertions.

Usage: python benchmarks/scale2025.py [--seed 0] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

ONE_RUN = r"""
import json, os, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
seed, jobs = int(sys.argv[2]), int(sys.argv[3])
with tempfile.TemporaryDirectory() as folder:
    os.environ["SRDASH_CACHE_DIR"] = os.path.join(folder, "cache")
    from dataclasses import replace
    from srdash.demo.srbench2025 import write_demo_2025
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import judge_prepared, prepare_competition
    out = {}
    start = time.perf_counter()
    paths = write_demo_2025(os.path.join(folder, "demo"), seed=seed)
    out["generate_s"] = time.perf_counter() - start
    competition = load_competition(paths["competition"])
    competition = replace(competition, simplification=replace(competition.simplification, jobs=jobs))
    import resource
    def cpu():
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    for path in ("cold", "warm"):
        start, start_cpu = time.perf_counter(), cpu()
        prepared = prepare_competition(competition)
        result = judge_prepared(prepared)
        out[path + "_s"] = time.perf_counter() - start
        out[path + "_cpu_s"] = cpu() - start_cpu
    out["runs"] = len(prepared.runs)
    out["distinct_models"] = int(prepared.runs["model"].nunique())
    out["winner"] = str(result.verdict.leaderboard["method"].iloc[0])
    from srdash.figures.srbench2025 import comparison_views, resource_views
    for name, build in (("comparison_view_s", comparison_views), ("resources_view_s", resource_views)):
        start = time.perf_counter()
        build(prepared.runs)
        out[name] = time.perf_counter() - start
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    options = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    done = subprocess.run([sys.executable, "-c", ONE_RUN, str(REPO), str(options.seed), str(options.jobs)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(done.stderr[-2000:])
    out = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"2025-scale demo (seed {options.seed}): {out['runs']:,} runs, {out['distinct_models']:,} distinct models, "
          f"{options.jobs} worker processes")
    print(f"  generate the files          {out['generate_s']:6.2f} s")
    print(f"  prepare + judge, cold cache {out['cold_s']:6.2f} s   (CPU time, workers included: {out['cold_cpu_s']:.2f} s)")
    print(f"  prepare + judge, warm cache {out['warm_s']:6.2f} s   (CPU time: {out['warm_cpu_s']:.2f} s; "
          f"warm / cold = {out['warm_s'] / out['cold_s']:.3f})")
    print(f"  comparison view             {out['comparison_view_s']:6.2f} s")
    print(f"  resources view              {out['resources_view_s']:6.2f} s")
    print(f"  winner: {out['winner']}; load average during the run: {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
