"""Time to re-rank a competition once its models are prepared.

Re-judging (another tie rule, run aggregation or weights) must not redo any
expensive step. This prints the time of `judge` on the real SRBench black-box
results (21 methods x 122 datasets, components from `model_size`) and on a
synthetic competition at SRBench 2022 scale (21 methods x 252 datasets x 10
runs), as ratios to the time of loading + preparing the same table.

Usage: python benchmarks/rerank.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from srdash.io.loading import load_results
from srdash.judging.pipeline import prepare_runs
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules

BLACKBOX = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "srbench_results" / "blackbox_results.csv"


def _best_of(repeat, fn):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def synthetic(n_methods=21, n_datasets=252, n_runs=10, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    index = pd.MultiIndex.from_product(
        [[f"m{i:02d}" for i in range(n_methods)], [f"d{j:03d}" for j in range(n_datasets)], range(n_runs)],
        names=["method", "dataset", "run"])
    n = len(index)
    return pd.DataFrame({
        "r2_test": rng.uniform(0.3, 1.0, n),
        "components": rng.integers(1, 200, n).astype(float),
        "property": rng.uniform(0, 1, n),
    }, index=index).reset_index()


def report(name, table_source, repeat):
    start = time.perf_counter()
    runs = prepare_runs(load_results(table_source))
    prepare = time.perf_counter() - start
    print(f"\n{name}: {len(runs)} runs")
    print(f"  load + prepare (once):            {prepare * 1000:8.1f} ms   (1.00)")
    for preset in ("srbench2022", "srbench2022-as-run", "srbench2022-draft"):
        rules = load_rules(preset)
        if "property" not in runs.columns:  # the black-box datasets test no property: the rules must say so
            rules = replace(rules, criteria=tuple(replace(c, optional=True) if c.name == "property" else c
                                                  for c in rules.criteria))
        t = _best_of(repeat, lambda: judge(runs, rules))
        print(f"  re-rank with {preset:20s} {t * 1000:8.1f} ms   ({t / prepare:.3f} of load + prepare)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if BLACKBOX.exists():
        report("SRBench black-box results", BLACKBOX, args.repeat)
    else:
        print(f"(skipping the black-box results: {BLACKBOX} not found)")
    report("Synthetic, SRBench 2022 scale (21 x 252 x 10)", synthetic(), args.repeat)


if __name__ == "__main__":
    main()
