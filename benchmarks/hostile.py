"""What each class of hostile input of issue 24 costs now: measured seconds and MB, no assertions.

Classes measured (each prints one block):

1. Number literals: the time sympy alone takes to build a float literal with a huge
   exponent (``2e<k>`` for growing k: the cost srdash now refuses before sympy
   sees it), and the time srdash takes to parse, write as LaTeX and evaluate
   the hostile literals of the issue, in the main thread and in a worker thread;
   plus the overhead of the worker-thread CPU limit on an honest model.

Timings on shared machines are noisy: compare the numbers of one run.

Usage: python benchmarks/hostile.py [--classes 1]
"""

from __future__ import annotations

import argparse
import threading
import time

import numpy as np


def _seconds(work, *args) -> float:
    start = time.perf_counter()
    work(*args)
    return time.perf_counter() - start


def _in_thread(work, *args) -> float:
    box = []
    thread = threading.Thread(target=lambda: box.append(_seconds(work, *args)))
    thread.start()
    thread.join()
    return box[0]


def literals() -> None:
    import sympy

    from srdash.errors import ModelRejected
    from srdash.expressions import evaluate_model, latex_of, parse_model

    print("class 1: number literals")
    print("  sympy.Float('2e<k>') alone (what srdash no longer lets sympy do):")
    for k in (1_000, 10_000, 100_000, 300_000):
        print(f"    k = {k:>9,}: {_seconds(sympy.Float, f'2e{k}'):8.3f} s")
    print("    (grows about as k**2: k = 9,999,999 takes more than 400 s)")

    def all_three(model: str) -> None:
        for work in (parse_model, latex_of, lambda m: evaluate_model(m, {"x1": np.linspace(0.1, 1, 3)})):
            try:
                work(model)
            except ModelRejected:
                pass

    hostile = {
        "x1 + 2e9999999": "x1 + 2e9999999",
        "erf(sin(1.<3,000 digits>))": "erf(sin(1." + "3" * 3000 + "))",
        "x1*1.<5,000 digits>e-5": "x1*1." + "7" * 5000 + "e-5",
        "100 digits in 4 nested functions": "erf(sin(exp(tanh(1." + "3" * 99 + "*x1))))",
        "1e308*1e308*1e308*x1": "1e308*1e308*1e308*x1",
    }
    print("  srdash parse + LaTeX + evaluation (main thread / worker thread):")
    for name, model in hostile.items():
        print(f"    {name:<36} {_seconds(all_three, model):7.3f} s / {_in_thread(all_three, model):7.3f} s")

    honest = "factor_terms(" + "+".join(f"{i}*x{i}*y" for i in range(470)) + ")"
    sympy.core.cache.clear_cache()
    main = _seconds(parse_model, honest)
    sympy.core.cache.clear_cache()
    thread = _in_thread(parse_model, honest)
    print(f"  CPU limit in a worker thread (a watchdog thread), honest factor_terms of 1,900 nodes: "
          f"{main:.3f} s in the main thread, {thread:.3f} s in a thread ({thread / main:.1f}x)")


CLASSES = {"1": literals}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", nargs="*", default=list(CLASSES), choices=list(CLASSES))
    options = parser.parse_args()
    for name in options.classes:
        CLASSES[name]()


if __name__ == "__main__":
    main()
