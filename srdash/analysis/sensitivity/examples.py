"""The rescorers of the documentation's examples, beside the sensitivity analysis whose docstrings use
them (the example competitions themselves are :mod:`srdash.demo.examples`'s).

Examples
--------
>>> example_rescorer().weight_names
('accuracy', 'simplicity', 'property')
"""

from __future__ import annotations

import pandas as pd

from srdash.analysis.sensitivity.rescorer import Rescorer
from srdash.demo.examples import accuracy_and_simplicity_rules, example_runs
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules

__all__ = ["example_rescorer", "accuracy_or_simplicity"]


def example_rescorer() -> Rescorer:
    """The example competition (:func:`srdash.demo.examples.example_runs`) judged by ``srbench2022``,
    as a :class:`Rescorer`: each method wins on one criterion, so the weights decide the order.

    Examples
    --------
    Ranks (3 = best) on accuracy, simplicity, property: a (3, 2, 2), b (1, 3, 3), c (2, 1, 1); equal
    weights give the harmonic means a 3 / (1/3 + 1/2 + 1/2) = 2.25, b 1.8, c 1.2:

    >>> example_rescorer().leaderboard()[["method", "score"]].round(4).values.tolist()
    [['a', 2.25], ['b', 1.8], ['c', 1.2]]
    """
    return Rescorer.from_verdict(judge(example_runs(), load_rules("srbench2022")))


def accuracy_or_simplicity() -> Rescorer:
    """Two methods on one dataset, ``a`` more accurate (R2 0.9 against 0.5) and ``b`` simpler, judged by
    ``srbench2022`` without the property (:func:`srdash.demo.examples.accuracy_and_simplicity_rules`),
    as a :class:`Rescorer`.

    Examples
    --------
    >>> accuracy_or_simplicity().scores().round(4).tolist()
    [1.3333, 1.3333]
    """
    runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.5],
                         "simplicity": [-2.0, -0.5]})
    return Rescorer.from_verdict(judge(runs, accuracy_and_simplicity_rules()))
