"""Benchmark: weight sensitivity at SRBench 2022 scale (21 methods x 252 datasets x 10 runs).

A weight change must not redo any expensive step: judging (aggregating runs and
ranking) is done once, then each weight vector only costs a weighted harmonic
mean of the precomputed ranks and a mean. This prints, on a synthetic
competition of that size:

* the one-off cost: ``judge`` and building the Rescorer;
* one weight change: re-scoring plus places (what a slider move needs), and the
  whole update of the sensitivity view (leaderboard table, bump-chart sweep,
  irrelevant-alternatives table) without a browser;
* N = 10,000 weight vectors sampled from the simplex: place probabilities and
  Kendall tau;
* the same on the real EvalRS 2022 submissions when ../shared/realdata is there.

Times are medians of several repeats, with ratios to the one-off judging (the
machine is shared: compare ratios). No assertions.

Usage: python benchmarks/sensitivity.py [--samples 10000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules
from srdash.analysis.sensitivity import (
    Rescorer,
    find_winning_weights,
    irrelevant_alternatives,
    place_probabilities,
    ternary_winner_map,
    weight_sweep,
)

EVALRS = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata" / "evalrs2022" / "evalrs_2022_submissions.parquet"


def srbench_scale_runs(n_methods: int = 21, n_datasets: int = 252, n_runs: int = 10, seed: int = 0) -> pd.DataFrame:
    """Per-run table with accuracy, simplicity and property, methods trading accuracy for simplicity."""
    rng = np.random.default_rng(seed)
    grid = pd.MultiIndex.from_product(
        [[f"method{m:02d}" for m in range(n_methods)], [f"dataset{d:03d}" for d in range(n_datasets)], range(n_runs)],
        names=["method", "dataset", "run"]).to_frame(index=False)
    skill = grid["method"].str[-2:].astype(int).to_numpy() / (n_methods - 1)
    grid["r2_test"] = np.round(0.5 + 0.4 * skill + rng.normal(0, 0.1, len(grid)), 3)
    grid["simplicity"] = np.round(-0.5 - 2.0 * skill + rng.normal(0, 0.5, len(grid)), 1)
    grid["property"] = np.round(rng.uniform(0, 1, len(grid)), 3)
    return grid


def timed(function, repeat: int) -> tuple[float, object]:
    """Median seconds over ``repeat`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def report(label: str, seconds: float, reference: float | None = None) -> None:
    ratio = f"   ({seconds / reference:8.4f} x judge)" if reference else ""
    print(f"  {label:<58s} {seconds * 1000:10.2f} ms{ratio}")


def view_update_seconds(rescorer: Rescorer, repeat: int) -> float | None:
    """A slider move in the real widget class (no browser): re-score, table, bump chart, alternatives."""
    try:
        from srdash.apps.sensitivity import SensitivityView
    except ImportError:  # pragma: no cover - the app extra is not installed
        return None
    view = SensitivityView(rescorer, samples=100)
    name = rescorer.weight_names[0]
    slider = view._sliders[name]
    values = iter(np.linspace(0.1, slider.max, 1000))
    seconds, _ = timed(lambda: setattr(slider, "value", float(next(values))), repeat)
    return seconds


def bench(rescorer: Rescorer, judge_seconds: float, *, samples: int, repeat: int) -> None:
    rng = np.random.default_rng(1)
    vectors = iter(rng.dirichlet(np.ones(rescorer.n_weights), size=20 * repeat + 10))
    seconds, _ = timed(lambda: rescorer.places(next(vectors)), 10 * repeat)
    report("one weight change: re-score + places", seconds, judge_seconds)
    seconds, _ = timed(lambda: rescorer.leaderboard(next(vectors)), repeat)
    report("one weight change: leaderboard DataFrame", seconds, judge_seconds)
    seconds, _ = timed(lambda: weight_sweep(rescorer, rescorer.weight_names[0], points=61), repeat)
    report("bump-chart sweep (61 weight values)", seconds, judge_seconds)
    first, _ = timed(lambda: irrelevant_alternatives(rescorer), 1)
    report("irrelevant alternatives, first call (re-rank without each)", first, judge_seconds)
    seconds, _ = timed(lambda: irrelevant_alternatives(rescorer, weights=next(vectors)), repeat)
    report("irrelevant alternatives, later calls (cached reductions)", seconds, judge_seconds)
    seconds = view_update_seconds(rescorer, repeat)
    if seconds is not None:
        report("slider move in SensitivityView (everything it redraws)", seconds, judge_seconds)
    seconds, result = timed(lambda: place_probabilities(rescorer, samples=samples, seed=0), max(1, repeat // 3))
    report(f"{samples:,} sampled weight vectors: place probabilities + tau", seconds, judge_seconds)
    print(f"    official winner first under {result.table['p_win'].iloc[0]:.1%} of them; "
          f"mean Kendall tau {np.nanmean(result.kendall_tau):.3f}")
    if rescorer.n_weights == 3:
        seconds, _ = timed(lambda: ternary_winner_map(rescorer, resolution=30), repeat)
        report("ternary winner map (496 grid points)", seconds, judge_seconds)
    runner_up = rescorer.leaderboard()[rescorer.entity].iloc[1]
    seconds, answer = timed(lambda: find_winning_weights(rescorer, runner_up), 1)
    report(f"targeted search for the runner-up ({answer.approach.split(' (')[0]})", seconds, judge_seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    runs = srbench_scale_runs()
    rules = load_rules("srbench2022")
    print(f"SRBench scale: {runs['method'].nunique()} methods x {runs['dataset'].nunique()} datasets x "
          f"{runs['run'].nunique()} runs = {len(runs):,} rows, rules {rules.name}")
    judge_seconds, verdict = timed(lambda: judge(runs, rules), 3)
    report("judge once (aggregate runs, rank)", judge_seconds)
    seconds, rescorer = timed(lambda: Rescorer.from_verdict(verdict, runs=runs), 3)
    report("build the Rescorer (rank array)", seconds, judge_seconds)
    bench(rescorer, judge_seconds, samples=args.samples, repeat=args.repeat)

    if EVALRS.is_file():
        from srdash.judging.multiobjective import judge_submissions

        print(f"\nEvalRS 2022, real submissions ({EVALRS.name}), rules evalrs2022")
        judge_seconds, verdict = timed(lambda: judge_submissions(EVALRS, "evalrs2022"), 3)
        report("read + judge once (stage 1, stage 2)", judge_seconds)
        rescorer = Rescorer.from_verdict(verdict)
        bench(rescorer, judge_seconds, samples=args.samples, repeat=args.repeat)
    else:
        print(f"\n(EvalRS data not found at {EVALRS}: skipped)")


if __name__ == "__main__":
    main()
