"""What a winner certificate will cost, said before the work starts, and the bound past which it is refused.

The certificate's work grows with the table: the rules variants and the invariance checks
judge the whole table again (methods x datasets x runs cells each), the weight search scores
thousands of weight vectors for each method searched (methods x datasets x criteria each),
and the entrants family ranks the table again without each method (methods^2 x datasets in
all). 300 methods on 30 datasets took 67-93 s before any of this was said. So
``srdash explain``:

* says up front what it will do and roughly how long it will take (:meth:`CertificatePlan.text`,
  from the sizes and rates measured on a 2-core machine: :data:`SECONDS_PER_UNIT`);
* searches weights for at most :data:`WEIGHT_METHODS` other methods, the best placed
  (``--weight-methods``); the certificate's line says so when it samples;
* refuses tables of more than :data:`MAX_CELLS` cells (``--max-cells``), with what to do
  instead (:func:`check_plan`).

Examples
--------
>>> import pandas as pd
>>> runs = pd.DataFrame({"method": ["a", "b", "c"] * 2, "dataset": ["d1"] * 3 + ["d2"] * 3, "run": 0})
>>> plan = plan_certificate(runs, criteria=2, variants=20)
>>> plan.methods, plan.datasets, plan.cells, plan.dataset_sets, plan.weight_methods
(3, 2, 6, 2, 2)
>>> check_plan(plan, max_cells=5)
Traceback (most recent call last):
...
srdash.errors.SrdashError: The table has 3 methods x 2 datasets x 1 run = 6 cells, more than the 5 `srdash explain` certifies (--max-cells). Explain a part of it (fewer methods, e.g. the top of the leaderboard, or fewer datasets), raise --max-cells (estimated: about 1 s), or use `srdash sensitivity` and `srdash robustness`, which scale to large tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line reads MAX_CELLS and WEIGHT_METHODS without importing pandas
    import pandas as pd

from srdash.errors import SrdashError

__all__ = ["CertificatePlan", "plan_certificate", "check_plan", "MAX_CELLS", "WEIGHT_METHODS", "SECONDS_PER_UNIT"]

#: The largest table (methods x datasets x runs) `srdash explain` certifies by default.
MAX_CELLS = 50_000
#: The other methods whose winning weights are searched by default: the best placed.
WEIGHT_METHODS = 20
#: Seconds of CPU (``time.process_time``) per item of work and per unit of its size, measured on a
#: 2-core machine (winner_certificate on generated tables of 60 x 30, 150 x 15 and 300 x 30 methods x
#: datasets): a judging (per cell), a weight search (per weight vector x method x dataset x criterion),
#: a method removed (per method x dataset), a dataset set scored (per method).
SECONDS_PER_UNIT = {"judging": (0.025, 5.7e-6), "weight search": (0.026, 2.6e-9), "removal": (0.007, 9.3e-7),
                    "dataset set": (0.0, 3e-7)}
#: Weight vectors scored per weight search beyond its samples (the local refinement, about 120 per criterion).
_REFINEMENT = 120


@dataclass(frozen=True)
class CertificatePlan:
    """The work of one certificate, from the sizes of the table (:func:`plan_certificate`).

    Attributes
    ----------
    methods, datasets, runs, criteria : int
    cells : int
        methods x datasets x runs.
    judgings : int
        Whole-table judgings: the rules variants, the invariance checks and the removals judged again.
    dataset_sets : int
        Sets of datasets scored by the exact search (every set of up to ``max_removed``).
    weight_methods : int
        Other methods whose winning weights are searched (all of them, or the best placed).
    weight_vectors : int
        Weight vectors scored per weight search.
    removals : int
        Methods removed in turn (the entrants family).
    seconds : float
        Rough estimate (:data:`SECONDS_PER_UNIT`).
    """

    methods: int
    datasets: int
    runs: int
    criteria: int
    cells: int
    judgings: int
    dataset_sets: int
    weight_methods: int
    weight_vectors: int
    removals: int
    seconds: float

    @property
    def samples_weights(self) -> bool:
        """True when the weight search covers only some of the other methods."""
        return self.weight_methods < self.methods - 1

    def text(self) -> str:
        """What the certificate will do and roughly how long it takes, in two lines."""
        runs = f"{self.runs} run{'s' if self.runs != 1 else ''}"
        weights = (f"weights searched for the {self.weight_methods} best-placed of the {self.methods - 1} other "
                   f"methods (--weight-methods)" if self.samples_weights
                   else f"weights searched for each of the {self.weight_methods} other methods")
        return (f"Explaining {self.methods} methods x {self.datasets} datasets x {runs} ({self.cells:,} cells): "
                f"{self.judgings} judgings of the whole table, {self.dataset_sets:,} dataset sets scored, {weights} "
                f"({self.weight_vectors:,} weight vectors each), each of the {self.removals} methods removed in turn.\n"
                f"Estimated: about {_duration(self.seconds)} (rates measured on a 2-core machine).")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    return f"{seconds / 60:.0f} min"


def plan_certificate(runs: pd.DataFrame, *, criteria: int, variants: int, podium: int = 3, max_removed: int = 3,
                     budget: int = 30, weight_methods: int | None = WEIGHT_METHODS, weight_samples: int = 2_000
                     ) -> CertificatePlan:
    """The work :func:`srdash.analysis.certificate.winner_certificate` will do on ``runs``.

    Parameters
    ----------
    runs : DataFrame
        The per-run table (``method``, ``dataset``, optional ``run``).
    criteria : int
        Weighted criteria of the rules.
    variants : int
        Rules variants judged (:func:`srdash.analysis.certificate.rules_variants`).
    podium, max_removed, budget, weight_samples
        As :func:`srdash.analysis.certificate.winner_certificate`.
    weight_methods : int or None
        The other methods whose weights are searched (None: all).

    Returns
    -------
    CertificatePlan
    """
    methods = int(runs["method"].nunique())
    datasets = int(runs["dataset"].nunique())
    run_ids = int(runs["run"].nunique()) if "run" in runs.columns else 1
    cells = methods * datasets * run_ids
    largest = min(max_removed, datasets - 1)
    dataset_sets = sum(math.comb(datasets, k) for k in range(1, largest + 1)) if datasets > 1 else 0
    run_sets = min(budget, sum(math.comb(run_ids, k) for k in range(1, min(max_removed, run_ids - 1) + 1))) \
        if run_ids > 1 else 0
    others = max(methods - 1, 0)
    searched = others if weight_methods is None else min(others, weight_methods)
    vectors = weight_samples + 1 + criteria + math.comb(criteria, 2) + _REFINEMENT * criteria if criteria > 1 else 0
    # variants, 3 invariance checks, one check per podium place and family, the printed weights judged again
    judgings = variants + 3 + podium * 2 + run_sets + (4 if searched else 0)
    removals = methods if methods >= 3 else 0
    work = {"judging": (judgings, cells), "weight search": (searched, vectors * methods * datasets * criteria),
            "removal": (removals, methods * datasets), "dataset set": (dataset_sets, methods)}
    seconds = sum(count * (SECONDS_PER_UNIT[kind][0] + size * SECONDS_PER_UNIT[kind][1])
                  for kind, (count, size) in work.items())
    return CertificatePlan(methods=methods, datasets=datasets, runs=run_ids, criteria=criteria, cells=cells,
                           judgings=judgings, dataset_sets=dataset_sets, weight_methods=searched,
                           weight_vectors=vectors if searched else 0, removals=removals, seconds=float(seconds))


def check_plan(plan: CertificatePlan, *, max_cells: int = MAX_CELLS) -> None:
    """Refuse a table larger than ``max_cells``, saying what to do instead.

    Raises
    ------
    SrdashError
        When ``plan.cells > max_cells``.
    """
    if plan.cells > max_cells:
        runs = f"{plan.runs} run{'s' if plan.runs != 1 else ''}"
        raise SrdashError(
            f"The table has {plan.methods} methods x {plan.datasets} datasets x {runs} = {plan.cells:,} cells, more "
            f"than the {max_cells:,} `srdash explain` certifies (--max-cells). Explain a part of it (fewer methods, "
            f"e.g. the top of the leaderboard, or fewer datasets), raise --max-cells (estimated: about "
            f"{_duration(plan.seconds)}), or use `srdash sensitivity` and `srdash robustness`, which scale to large "
            "tables.")
