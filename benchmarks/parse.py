"""Worst-case parse time against string length, as ratios to a plain sum of the same length.

For each length L the script builds, for every family of costly strings found in
issue 14 (n-ary and nested ``max``, ``Piecewise``, power towers, nested
functions, long products, huge numbers, deep unary signs, ``factor_terms``), a
string of about L characters, and times :func:`srdash.expressions.parse_model`
on it (best of ``--repeat``; a refusal counts as done: the time is how long it
took to refuse; sympy's cache is cleared before each parse). It prints each family's time as a ratio to the time of
``x0 + x1 + ...`` of the same length, and the worst ratio per length.

Parsing cost is linear in the string's size when the worst ratio stays bounded
as L grows (the plain sum is itself linear). Before issue 14, 200 ``max``
arguments took 58 s (ratio in the thousands, growing as n**2.3). Now the
work that grows faster than the string (sympy's pairwise comparison of
``min``/``max``/``Piecewise``/``And``/``Or`` arguments, ``factor_terms``) has a
fixed budget per model (about 0.1 s), so short strings can show a large ratio
to a sub-millisecond sum while the absolute time stays bounded; an honest
polynomial ("sum of terms") costs a constant factor more than a sum of bare
symbols. Timings on shared machines are noisy: compare the ratios of one run.
No assertions.

Usage: python benchmarks/parse.py [--lengths 200 1000 2000 5000 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import srdash.expressions as expressions
from srdash.errors import ModelRejected
from srdash.expressions import parse_model


def _fill(unit, length: int) -> str:
    """Join unit(i) for i = 0, 1, ... until about ``length`` characters."""
    parts, size, i = [], 0, 0
    while size < length:
        part = unit(i)
        parts.append(part)
        size += len(part) + 1
        i += 1
    return parts


FAMILIES = {
    "plain sum": lambda n: " + ".join(_fill(lambda i: f"x{i}", n)),
    "n-ary max": lambda n: "max(" + ",".join(_fill(lambda i: f"x{i}", n - 5)) + ")",
    "nested max": lambda n: (lambda k: "max(" * k + "x0" + "".join(f",x{i})" for i in range(1, k + 1)))(
        max(1, n // 10)),
    "Piecewise": lambda n: "Piecewise(" + ",".join(_fill(lambda i: f"(x{i},x{i}>{i})", n - 20)) + ",(0,True))",
    "power tower": lambda n: "x**" * max(1, n // 3) + "x",
    "nested sin": lambda n: (lambda k: "sin(" * k + "x" + ")" * k)(max(1, min(n // 5, 190))),
    "long product": lambda n: "*".join(_fill(lambda i: f"x{i}", n)),
    "sum of terms": lambda n: "+".join(_fill(lambda i: f"{i}*x{i}*y", n)),  # an honest polynomial
    "huge power": lambda n: "9" * max(1, n // 2 - 1) + "**" + "9" * max(1, n // 2 - 1),
    "deep signs": lambda n: "-" * (n - 1) + "x",
    "factor_terms": lambda n: "factor_terms(" + "+".join(_fill(lambda i: f"{i}*x{i}*y", n - 14)) + ")",
    "And": lambda n: "Piecewise((1, And(" + ",".join(_fill(lambda i: f"x{i}>0", n - 30)) + ")), (0, True))",
}


def _time(text: str, repeat: int) -> tuple[float, str]:
    best, outcome = float("inf"), ""
    for _ in range(repeat):
        # sympy caches results: a warm cache would hide the cost of a first, hostile parse.
        expressions.parse.sympy.core.cache.clear_cache()
        start = time.perf_counter()
        try:
            parse_model(text, max_length=10**6, max_nodes=10**6)
            outcome = "parsed"
        except ModelRejected as exc:
            outcome = f"refused: {exc.reason[:60]}"
        best = min(best, time.perf_counter() - start)
    return best, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[200, 1000, 2000, 5000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    worst = {}
    for length in args.lengths:
        base, _ = _time(FAMILIES["plain sum"](length), args.repeat)
        print(f"\nlength {length:,}: plain sum {base * 1e3:.2f} ms")
        for name, build in FAMILIES.items():
            if name == "plain sum":
                continue
            text = build(length)
            seconds, outcome = _time(text, args.repeat)
            ratio = seconds / base
            worst[length] = max(worst.get(length, 0.0), ratio)
            print(f"  {name:<13} {len(text):>7,} chars {seconds * 1e3:9.2f} ms  ratio {ratio:7.2f}  {outcome}")
    print("\nworst ratio per length (bounded = linear parse cost):")
    for length, ratio in worst.items():
        print(f"  {length:>7,}: {ratio:.2f}")


if __name__ == "__main__":
    main()
