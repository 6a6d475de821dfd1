"""Throughput of srdash.expressions.complexity_table, as ratios to the sequential path.

The corpus is the demo competition's model strings (``srdash.demo.competition``), seeds 0,
1, 2, ... until ``--n`` rows: realistic SR outputs with the duplication of real
results (identical models across runs), so part of the gain of every path is
deduplication. Paths, each on the same rows:

- sequential: ``jobs=1``, no cache (one worker process);
- N jobs: ``jobs=N``, cold cache (results written to a fresh temporary cache);
- warm cache: the same call again, every result read from the cache.

Also prints the per-task overhead of the worker pool (round trip of a trivial
task), the CPU time the parent process spends, and checks that every path
gives the same components. Timings on shared machines are noisy: compare the
ratios of one run. To tell a slow path from a busy machine, it first measures
how much faster a pure-Python loop runs in N processes than in one (the
parallelism the machine offers right now). No assertions.

The default ``--n 600`` keeps the run near two minutes (the demo's models cost
about 0.2 s of CPU each: simplify plus the organisers' float rounding);
``--n 2000`` is the issue's 2,000-string corpus (about 5 minutes).

Usage: python benchmarks/complexity.py [--n 600] [--jobs 2] [--timeout 10]
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from srdash.expressions._timelimit import WorkerPool
from srdash.demo.competition import demo_competition
from srdash.expressions import complexity_table


def demo_corpus(rows: int) -> tuple[list[str], list[tuple[str, ...] | None]]:
    """The first ``rows`` (model, features) of demo competitions with seeds 0, 1, ..."""
    models: list[str] = []
    features: list[tuple[str, ...] | None] = []
    seed = 0
    while len(models) < rows:
        results = demo_competition(seed=seed)
        table = results.table.dropna(subset=["model"])
        models += table["model"].tolist()
        features += [results.features.get(dataset) for dataset in table["dataset"]]
        seed += 1
    return models[:rows], features[:rows]


def timed(label: str, function):
    cpu = time.process_time()
    start = time.perf_counter()
    value = function()
    seconds = time.perf_counter() - start
    return label, seconds, value, time.process_time() - cpu


def _burn(iterations: int) -> float:
    start = time.perf_counter()
    total = 0
    for i in range(iterations):
        total += i * i
    return time.perf_counter() - start


def available_parallelism(processes: int, iterations: int = 10_000_000) -> float:
    """How many times faster ``processes`` copies of a CPU loop finish than one after another."""
    with ProcessPoolExecutor(processes) as executor:
        list(executor.map(_burn, [1000] * processes))  # start the processes
        one = _burn(iterations)
        start = time.perf_counter()
        list(executor.map(_burn, [iterations] * processes))
        return processes * one / (time.perf_counter() - start)


def pool_overhead(tasks: int = 2000) -> float:
    """Milliseconds per task of a warm pool running a trivial function."""
    with WorkerPool(math.sqrt, processes=1) as pool:
        pool.submit(-1, 1.0)
        list(pool.results())  # start the worker
        start = time.perf_counter()
        for i in range(tasks):
            pool.submit(i, float(i))
        for _ in pool.results():
            pass
        return (time.perf_counter() - start) / tasks * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=600, help="rows in the corpus (default 600)")
    parser.add_argument("--jobs", type=int, default=2, help="workers of the parallel path (default 2)")
    parser.add_argument("--timeout", type=float, default=10.0, help="simplify time limit (default 10 s)")
    args = parser.parse_args()

    models, features = demo_corpus(args.n)
    distinct = len(set(zip(models, features)))
    print(f"corpus: {len(models)} model strings from the demo competition, {distinct} distinct "
          f"(model, features) pairs; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"worker pool overhead: {pool_overhead():.3f} ms per task (round trip, warm worker)")
    print(f"machine: {args.jobs} processes of a CPU loop run {available_parallelism(args.jobs):.2f}x faster "
          f"than one (the best any {args.jobs}-job path can do now)")

    runs = []
    runs.append(timed("sequential (jobs=1, no cache)", lambda: complexity_table(
        models, features=features, timeout=args.timeout, jobs=1, cache=False)))
    with tempfile.TemporaryDirectory() as directory:
        cache = Path(directory) / "complexity.sqlite"
        runs.append(timed(f"jobs={args.jobs}, cold cache", lambda: complexity_table(
            models, features=features, timeout=args.timeout, jobs=args.jobs, cache=cache)))
        runs.append(timed("warm cache", lambda: complexity_table(
            models, features=features, timeout=args.timeout, jobs=args.jobs, cache=cache)))

    base = runs[0][1]
    print(f"\n{'path':32s} {'seconds':>9s} {'rows/s':>9s} {'vs sequential':>14s} {'parent CPU s':>13s}  statuses")
    for label, seconds, table, parent_cpu in runs:
        statuses = ", ".join(f"{n} {s}" for s, n in table["status"].value_counts().items())
        print(f"{label:32s} {seconds:9.2f} {len(models) / seconds:9.1f} {base / seconds:13.1f}x "
              f"{parent_cpu:13.2f}  {statuses}")
    reference = runs[0][2]
    same = all(table["components"].equals(reference["components"]) for _, _, table, _ in runs[1:])
    print(f"\nidentical components on every path: {'yes' if same else 'NO'} (timeouts are cached with their "
          f"limit: the warm path reads them too)")
    mean = reference["seconds"].groupby([str(pair) for pair in zip(models, features)]).first().mean()
    print(f"mean worker time per distinct model (sequential run): {mean * 1000:.0f} ms")


if __name__ == "__main__":
    main()


# --------------------------------------------------------------------------- Dask LocalCluster path
# Appended for srdash.expressions.distributed. It runs after main(), on the same corpus (same --n, --jobs,
# --timeout), with its own sequential run so that its ratios come from one run on one machine state.


def _timed_run(label: str, function) -> tuple[str, float, object]:
    import time

    start = time.perf_counter()
    value = function()
    return label, time.perf_counter() - start, value


def local_cluster_paths(models, features, *, timeout: float, workers: int) -> list[tuple[str, float, object]]:
    """Sequential, then the same rows on a ``distributed.LocalCluster`` of ``workers`` processes."""
    import logging
    import time

    from distributed import LocalCluster

    runs = [_timed_run("sequential (jobs=1, no cache)", lambda: complexity_table(
        models, features=features, timeout=timeout, jobs=1, cache=False, scheduler=False))]
    start = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:
        started = time.perf_counter() - start
        address = cluster.scheduler_address
        runs.append(_timed_run(f"LocalCluster x{workers}, cold", lambda: complexity_table(
            models, features=features, timeout=timeout, cache=False, scheduler=address)))
        runs.append(_timed_run(f"LocalCluster x{workers}, warm", lambda: complexity_table(
            models, features=features, timeout=timeout, cache=False, scheduler=address)))
    print(f"\nLocalCluster({workers} worker processes) started in {started:.1f} s (not counted below); "
          "'cold' includes starting each Dask worker's sympy subprocess, 'warm' reuses them")
    return runs


def print_cluster_ratios(runs, models, features) -> None:
    """Throughput as ratios to the sequential path, and the effective parallelism: worker seconds
    (summed over distinct models) per wall-clock second, which shows whether the workers overlapped
    even when other load on a shared machine slows every model down."""
    import pandas as pd

    base = runs[0][1]
    pairs = pd.Series([str((m, f)) for m, f in zip(models, features)])
    first = ~pairs.duplicated().to_numpy()
    print(f"{'path':32s} {'seconds':>9s} {'rows/s':>9s} {'vs sequential':>14s} {'parallelism':>12s}")
    for label, seconds, table in runs:
        busy = table["seconds"].to_numpy()[first].sum()
        print(f"{label:32s} {seconds:9.2f} {len(models) / seconds:9.1f} {base / seconds:13.2f}x "
              f"{busy / seconds:11.2f}x")
    reference = runs[0][2]
    columns = ["components", "status", "simplified"]
    same = all(table[columns].equals(reference[columns]) for _, _, table in runs[1:])
    print(f"identical components, statuses and simplified models on the cluster: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    import argparse
    import os

    _parser = argparse.ArgumentParser(add_help=False)
    _parser.add_argument("--n", type=int, default=600)
    _parser.add_argument("--jobs", type=int, default=2)
    _parser.add_argument("--timeout", type=float, default=10.0)
    _args, _ = _parser.parse_known_args()
    _models, _features = demo_corpus(_args.n)
    print(f"\nload average before the LocalCluster section: {os.getloadavg()[0]:.1f}")
    print_cluster_ratios(local_cluster_paths(_models, _features, timeout=_args.timeout, workers=_args.jobs),
                         _models, _features)
