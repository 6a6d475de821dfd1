"""Tiny competitions for the documentation's examples.

Three methods on one dataset, judged by ``srbench2022``: each wins on one
criterion (``a`` on accuracy, ``b`` on simplicity and the property), so that
weights decide the order. Used by the Examples of the sensitivity analysis,
figures and views, so that each docstring shows its own function rather than the
set-up; their rescorers are :mod:`srdash.analysis.sensitivity.examples`'s.

Examples
--------
>>> example_runs()[["method", "r2_test", "simplicity", "property"]]
  method  r2_test  simplicity  property
0      a      0.9        -1.0       0.6
1      b      0.4        -0.5       0.9
2      c      0.5        -2.0       0.5
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from srdash.judging.rules import load_rules, parse_rules

__all__ = ["example_runs", "accuracy_rules", "accuracy_and_simplicity_rules", "two_methods"]


def example_runs() -> pd.DataFrame:
    """The per-run table of the example competition (a new DataFrame on each call)."""
    return pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "r2_test": [0.9, 0.4, 0.5],
                         "simplicity": [-1.0, -0.5, -2.0], "property": [0.6, 0.9, 0.5]})


def accuracy_rules():
    """Rules with one criterion, accuracy (``r2_test``, higher is better), as a rules file says it.

    Examples
    --------
    >>> [c.name for c in accuracy_rules().criteria]
    ['accuracy']
    """
    return parse_rules('[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"')


def accuracy_and_simplicity_rules():
    """``srbench2022`` without its property criterion: the rules a table without property data needs
    (``srbench2022`` itself refuses such a table: its property criterion has no data).

    Examples
    --------
    >>> rules = accuracy_and_simplicity_rules()
    >>> rules.name, [c.name for c in rules.criteria]
    ('srbench2022-without-property', ['accuracy', 'simplicity'])
    """
    rules = load_rules("srbench2022")
    return replace(rules, name="srbench2022-without-property", title=f"{rules.title}, without the property",
                   criteria=tuple(c for c in rules.criteria if c.name != "property"))


def two_methods() -> pd.DataFrame:
    """One run each of ``a`` (R2 0.9) and ``b`` (R2 0.1) on one dataset ``d``."""
    return pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.1]})
