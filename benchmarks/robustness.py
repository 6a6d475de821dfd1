"""Bootstrap time: the expensive per-model work is done once, each redraw only re-ranks.

Prints the time of `bootstrap(B=1000)` on the real SRBench black-box results and on
a synthetic competition with runs, as ratios to one `judge` call on the same table.

Usage: python benchmarks/robustness.py [--bootstrap B]
"""

from __future__ import annotations

import argparse
import time

from rerank import BLACKBOX, synthetic  # benchmarks/rerank.py

from srdash.io.loading import load_results
from srdash.judging.pipeline import prepare_runs
from srdash.judging.ranking import judge
from srdash.analysis.robustness import bootstrap
from srdash.judging.rules import load_rules


def measure(name, runs, n_bootstrap, rules=None):
    rules = rules or load_rules("srbench2022")
    start = time.perf_counter()
    judge(runs, rules)
    one = time.perf_counter() - start
    start = time.perf_counter()
    result = bootstrap(runs, rules, n_bootstrap=n_bootstrap, seed=0)
    total = time.perf_counter() - start
    print(f"{name}: one judge {one * 1000:.0f} ms; bootstrap B={n_bootstrap} ({result.engine}) "
          f"{total:.2f} s = {total / one:.1f} judge calls ({total / one / n_bootstrap:.3f} per redraw)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args()
    if BLACKBOX.exists():
        from srdash.demo.examples import accuracy_and_simplicity_rules

        # the black-box datasets test no property: srbench2022 without it
        measure("SRBench black-box (21 x 122)", prepare_runs(load_results(BLACKBOX)), args.bootstrap,
                accuracy_and_simplicity_rules())
    measure("synthetic 21 x 122 x 10 runs", prepare_runs(load_results(synthetic(n_datasets=122))), args.bootstrap)


if __name__ == "__main__":
    main()
