"""srdash: judge symbolic-regression and other machine-learning competitions.

The core is pure functions over pandas DataFrames returning small immutable
results: :func:`load_results` reads and validates results, :func:`prepare_runs`
computes model complexity (safely, under a hard time limit), :func:`judge`
applies a competition's :class:`Rules` and returns a :class:`Verdict`.

Examples
--------
>>> import pandas as pd
>>> import srdash
>>> results = srdash.load_results(pd.DataFrame({
...     "method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"],
...     "r2_test": [0.9, 0.8, 0.7, 0.75], "components": [5, 9, 5, 30]}))
>>> verdict = srdash.judge(srdash.prepare_runs(results), srdash.load_rules("srbench2022"))
>>> verdict.winner
'a'
"""

from srdash._version import __version__
from srdash.errors import ModelRejected, RulesError, SrdashError, ValidationError
from srdash.io.loading import Results, load_results
from srdash.judging.pipeline import prepare_runs, score
from srdash.judging.ranking import Verdict, judge
from srdash.judging.rules import Rules, list_presets, load_rules

__all__ = [
    "__version__",
    "SrdashError",
    "ValidationError",
    "RulesError",
    "ModelRejected",
    "Results",
    "load_results",
    "prepare_runs",
    "score",
    "Verdict",
    "judge",
    "Rules",
    "load_rules",
    "list_presets",
]
