"""What the commands whose work grows with their input will do, said before they start, and their bounds.

Three computations grow faster than their input:

* **The jury model** (``srdash trust jury --model``, :func:`srdash.analysis.jury_model.jury_model`):
  Newton's method on n methods costs about ``n² x choice stages + n³`` operations per iteration
  and fit, and there is one fit per bootstrap redraw and one per judge left out. Past
  :data:`MAX_MODEL_WORK` operations the bootstrap is cut to the redraws that fit (said in the
  model's notes); when even no redraw fits, the model is refused.
* **The jury certificate** (``srdash trust jury --explain``): every set of up to two jurors left
  out is one more combination of all the scores (60 jurors: 1,830). Past
  :data:`MAX_EXPLAIN_COMBINATIONS` combinations, jurors are left out one at a time only (said in
  the output).
* **A comparison** (``srdash analyse compare``): every pair of k methods gets a post-hoc test
  and effect sizes (300 methods: 44,850 pairs). Nemenyi's and Conover's p-values are computed
  for every pair at once; Wilcoxon's tests are one scipy call per pair. Past
  :data:`MAX_WILCOXON_PAIRS` pairs with Wilcoxon, or :data:`MAX_COMPARE_PAIRS` with any
  post-hoc, the comparison is refused with what to do instead (:func:`check_compare`).

The bounds are on sizes, never on measured time: the same input gets the same verdict on any
machine. The seconds printed beside them are estimates for one core (the rates measured in
``benchmarks/hostile_costs.py``).

Examples
--------
>>> model_work(n_items=100, n_stages=3060, n_rankings=180, n_fits=261, n_pair_fits=201) < MAX_MODEL_WORK
True
>>> model_redraws(n_items=300, n_stages=1020, n_rankings=60, n_judges=60, n_bootstrap=200)  # rubric scores
52
>>> model_redraws(n_items=300, n_stages=17940, n_rankings=60, n_judges=60, n_bootstrap=200)  # strict ranks
-1
>>> explain_max_removed(60), explain_max_removed(20)
(1, 2)
"""

from __future__ import annotations

import math

from srdash.errors import SrdashError

__all__ = ["bounded_redraws", "check_compare", "compare_plan", "MAX_MODEL_WORK", "MAX_EXPLAIN_COMBINATIONS",
           "MAX_COMPARE_PAIRS", "MAX_WILCOXON_PAIRS", "model_work", "model_redraws",
           "model_seconds", "explain_max_removed", "explain_combinations", "compare_pairs", "compare_seconds"]

#: Operations of the jury model's fits (see :func:`model_work`) above which its bootstrap is cut: about a
#: minute on one core (60 judges x 3 datasets x 100 methods with 200 redraws: 9e10, 15 s).
MAX_MODEL_WORK = 1.5e11
#: Combinations of the jury's scores ``--explain`` makes at most (each one jury_summary of every score).
MAX_EXPLAIN_COMBINATIONS = 250
#: Pairs of methods a comparison tests at most (300 methods: 44,850; 317 methods: 50,086).
MAX_COMPARE_PAIRS = 50_000
#: Pairs of Wilcoxon signed-rank tests (one scipy call each, about 1 ms) a comparison runs at most (142 methods).
MAX_WILCOXON_PAIRS = 10_000
#: Newton's iterations per fit, typically (for the estimate only).
_ITERATIONS = 10
#: Operations per second of the fits, and seconds per pair of a comparison with Wilcoxon's tests, on one
#: loaded core (benchmarks/hostile_costs.py; for the printed estimates only).
_OPERATIONS_PER_SECOND = 2.5e9
_SECONDS_PER_PAIR = {"wilcoxon-holm": 2e-3, "conover": 3e-4, "nemenyi": 3e-4}


def model_work(*, n_items: int, n_stages: int, n_rankings: int, n_fits: int, n_pair_fits: int) -> float:
    """Operations of the jury model's fits: ``n_fits`` Plackett-Luce fits on ``n_stages`` choice stages
    (``n² x stages + n³`` per iteration) and ``n_pair_fits`` Bradley-Terry fits on win tables (``rankings x n²``
    to add the tables, ``n³`` per iteration)."""
    n = float(n_items)
    plackett_luce = n_fits * _ITERATIONS * (n * n * n_stages + n ** 3)
    bradley_terry = n_pair_fits * (n_rankings * n * n + _ITERATIONS * n ** 3)
    return plackett_luce + bradley_terry


def model_redraws(*, n_items: int, n_stages: int, n_rankings: int, n_judges: int, n_bootstrap: int) -> int:
    """The bootstrap redraws (at most ``n_bootstrap``) whose fits stay within :data:`MAX_MODEL_WORK`, with
    the estimate's fit and one fit per judge left out; -1 when those alone exceed it."""
    left_out = n_judges if n_judges >= 2 else 0

    def work(redraws: int) -> float:
        return model_work(n_items=n_items, n_stages=n_stages, n_rankings=n_rankings,
                          n_fits=1 + redraws + left_out, n_pair_fits=1 + redraws)

    if work(0) > MAX_MODEL_WORK:
        return -1
    if work(n_bootstrap) <= MAX_MODEL_WORK:
        return n_bootstrap
    low, high = 0, n_bootstrap  # work grows with the redraws: the largest that fits
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if work(middle) <= MAX_MODEL_WORK else (low, middle - 1)
    return low


def model_seconds(work: float) -> float:
    """Estimated seconds of ``work`` operations of the fits, on one core."""
    return work / _OPERATIONS_PER_SECOND


def explain_combinations(n_jurors: int, max_removed: int) -> int:
    """Combinations of the scores the jury certificate makes at most: the official one and every set of up to
    ``max_removed`` jurors left out (leaving at least one)."""
    largest = min(max_removed, n_jurors - 1)
    return 1 + sum(math.comb(n_jurors, size) for size in range(1, largest + 1))


def explain_max_removed(n_jurors: int, *, wanted: int = 2) -> int:
    """The largest set of jurors (at most ``wanted``, at least 1) the certificate leaves out within
    :data:`MAX_EXPLAIN_COMBINATIONS`."""
    for size in range(wanted, 1, -1):
        if explain_combinations(n_jurors, size) <= MAX_EXPLAIN_COMBINATIONS:
            return size
    return 1


def compare_pairs(n_methods: int) -> int:
    """Pairs of methods a comparison tests."""
    return n_methods * (n_methods - 1) // 2


def compare_seconds(n_methods: int, posthoc: str) -> float:
    """Estimated seconds of a comparison's pairs (post-hoc tests and effect sizes), on one core."""
    return compare_pairs(n_methods) * _SECONDS_PER_PAIR.get(posthoc, 6e-4)


def bounded_redraws(rankings: list, n_items: int, n_judges: int, n_bootstrap: int, notes: list, *,
                    stage=None) -> int:
    """The redraws within :data:`MAX_MODEL_WORK` (a note says when fewer than asked); refused when the fit
    and the judges left out alone exceed it. ``stage``, when given, gets one sentence saying what the
    model will fit and about how long it takes, before any fit."""
    stages = sum(len(groups) - (len(groups[-1]) == 1) for groups in rankings)
    redraws = model_redraws(n_items=n_items, n_stages=stages, n_rankings=len(rankings), n_judges=n_judges,
                            n_bootstrap=n_bootstrap)
    left_out = n_judges if n_judges >= 2 else 0
    if redraws < 0:
        work = model_work(n_items=n_items, n_stages=stages, n_rankings=len(rankings), n_fits=1 + left_out,
                          n_pair_fits=1)
        raise SrdashError(f"The jury model of {n_items} methods over {len(rankings)} rankings ({stages} choice "
                          f"stages) and {n_judges} judges needs about {work:.1e} operations without a bootstrap, "
                          f"more than its bound of {MAX_MODEL_WORK:.1e} (srdash.analysis.costs). Fit it "
                          "to fewer methods (e.g. the first of the official verdict) or one dataset at a time.")
    if redraws < n_bootstrap:
        notes.append(f"The bootstrap was cut from {n_bootstrap} to {redraws} redraws: {n_items} methods over "
                     f"{len(rankings)} rankings ({stages} choice stages) with more would pass the bound of "
                     f"{MAX_MODEL_WORK:.1e} operations (srdash.analysis.costs); the intervals are wider "
                     "for it.")
    if stage is not None:
        work = model_work(n_items=n_items, n_stages=stages, n_rankings=len(rankings),
                          n_fits=1 + redraws + left_out, n_pair_fits=1 + redraws)
        cut = f" (cut from {n_bootstrap}: the bound of {MAX_MODEL_WORK:.1e} operations)" if redraws < n_bootstrap else ""
        stage(f"Jury model: {len(rankings)} rankings ({stages:,} choice stages) of {n_items} methods by "
                 f"{n_judges} judges; Plackett-Luce and Bradley-Terry fits of the rankings, of {redraws} bootstrap "
                 f"redraws{cut} and without each judge: about {model_seconds(work):.0f} s.")
    return redraws


def compare_plan(n_methods: int, n_blocks: int, *, posthoc: str, missing: int = 0) -> str:
    """What a comparison will do, in one sentence, with its estimated seconds (for the CLI to say first).

    Examples
    --------
    >>> compare_plan(300, 400, posthoc="nemenyi", missing=1200)
    'Comparing 300 methods on 400 blocks (1200 missing values: Skillings-Mack beside Friedman): nemenyi post-hoc and effect sizes for 44,850 pairs, about 13 s.'
    """
    pairs = compare_pairs(n_methods)
    incomplete = f" ({missing} missing values: Skillings-Mack beside Friedman)" if missing else ""
    return (f"Comparing {n_methods} methods on {n_blocks} blocks{incomplete}: {posthoc} post-hoc and effect sizes "
            f"for {pairs:,} pairs, about {compare_seconds(n_methods, posthoc):.0f} s.")


def check_compare(n_methods: int, *, posthoc: str) -> None:
    """Refuse a comparison past :data:`MAX_WILCOXON_PAIRS` (Wilcoxon) or :data:`MAX_COMPARE_PAIRS` pairs.

    Raises
    ------
    ValueError
        Naming the pairs, the bound and what to do instead.

    Examples
    --------
    >>> check_compare(300, posthoc="wilcoxon-holm")
    Traceback (most recent call last):
    ...
    ValueError: Wilcoxon's signed-rank test for every pair of 300 methods is 44,850 tests (about 90 s), more than the bound of 10,000 (srdash.analysis.costs.MAX_WILCOXON_PAIRS). Use posthoc 'nemenyi' or 'conover' (--posthoc; every pair at once), or compare fewer methods (e.g. --split by a group column).
    """
    pairs = compare_pairs(n_methods)
    if posthoc == "wilcoxon-holm" and pairs > MAX_WILCOXON_PAIRS:
        raise ValueError(f"Wilcoxon's signed-rank test for every pair of {n_methods} methods is {pairs:,} tests "
                         f"(about {compare_seconds(n_methods, posthoc):.0f} s), more than the bound of "
                         f"{MAX_WILCOXON_PAIRS:,} (srdash.analysis.costs.MAX_WILCOXON_PAIRS). Use posthoc 'nemenyi' "
                         "or 'conover' (--posthoc; every pair at once), or compare fewer methods (e.g. --split by "
                         "a group column).")
    if pairs > MAX_COMPARE_PAIRS:
        raise ValueError(f"A comparison of {n_methods} methods is {pairs:,} pairs, more than the bound of "
                         f"{MAX_COMPARE_PAIRS:,} (srdash.analysis.costs.MAX_COMPARE_PAIRS). Compare fewer methods "
                         "(e.g. --split by a group column, or the best methods of a first comparison).")
