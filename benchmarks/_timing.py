"""Timing shared by the benchmarks (imported as ``_timing``: a benchmark runs as ``python benchmarks/NAME.py``)."""

from __future__ import annotations

import time
from typing import Callable


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The shortest wall time of ``repeat`` calls of ``run``, in seconds (the least disturbed by other work)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)
