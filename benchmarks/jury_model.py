"""Time of the jury model (srdash.analysis.jury_model) on a synthetic jury, and one fit against choix's MM.

A jury of ``--judges`` judges ranks ``--methods`` methods on ``--datasets`` datasets (drawn from a
Plackett-Luce model, seeded). Prints the seconds of :func:`jury_model` with ``--bootstrap`` redraws
(strengths, intervals, Krippendorff's alpha and its interval, judges) and, when choix is installed, the
seconds of one maximum-likelihood Plackett-Luce fit by srdash (Newton's method) and by
``choix.mm_rankings`` (Hunter's MM), with their ratio and the largest difference of the strengths.
Best of ``--repeat`` runs. No assertions.

Usage: python benchmarks/jury_model.py [--judges 5] [--datasets 10] [--methods 10] [--bootstrap 200] [--repeat 3]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from srdash.analysis.jury_model import jury_model, plackett_luce

from _timing import best_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", type=int, default=5)
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--methods", type=int, default=10)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    rng = np.random.default_rng(0)
    strengths = np.exp(rng.normal(0, 1, options.methods))
    rows, rankings = [], []
    for judge in range(options.judges):
        for dataset in range(options.datasets):
            left, order = list(range(options.methods)), []
            while left:
                p = strengths[left] / strengths[left].sum()
                order.append(left.pop(rng.choice(len(left), p=p)))
            rankings.append(order)
            rows += [(f"judge{judge}", f"d{dataset}", f"m{m}", float(r)) for r, m in enumerate(order, 1)]
    ranks = pd.DataFrame(rows, columns=["judge", "dataset", "method", "rank"])
    seconds = best_of(options.repeat, lambda: jury_model(ranks, n_bootstrap=options.bootstrap))
    print(f"jury_model ({options.judges} judges x {options.datasets} datasets x {options.methods} methods, "
          f"{options.bootstrap} redraws): {seconds:.3f} s")
    try:
        import choix
    except ImportError:
        print("choix is not installed: no comparison")
        return
    ours = best_of(options.repeat, lambda: plackett_luce(rankings, options.methods))
    theirs = best_of(options.repeat, lambda: choix.mm_rankings(options.methods, rankings, tol=1e-10,
                                                                  max_iter=100_000))
    difference = np.abs(plackett_luce(rankings, options.methods)
                        - choix.mm_rankings(options.methods, rankings, tol=1e-12, max_iter=100_000)).max()
    print(f"one Plackett-Luce fit: srdash {ours * 1000:.1f} ms, choix.mm_rankings {theirs * 1000:.1f} ms "
          f"(ratio choix/srdash {theirs / ours:.1f}); largest difference {difference:.1e}")


if __name__ == "__main__":
    main()
