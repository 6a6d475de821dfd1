"""srdash: judge symbolic-regression and other machine-learning competitions.

One competition, one verdict: :func:`load_competition` reads a
``competition.toml`` into a frozen :class:`Competition`, and
:func:`judge_competition` judges it (qualification, preparation, properties,
every track) into one immutable :class:`CompetitionResult` with its verdict
fingerprint, which the CLI, the apps and the report render. The steps are
public too: :func:`load_results` reads and validates results,
:func:`prepare_runs` computes model complexity (safely, under a hard time
limit), :func:`judge` applies a competition's :class:`Rules` and returns a
:class:`Verdict`.

Examples
--------
>>> import pandas as pd
>>> import srdash
>>> results = srdash.load_results(pd.DataFrame({
...     "method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"],
...     "r2_test": [0.9, 0.8, 0.7, 0.75], "components": [5, 9, 5, 30], "property": 1.0}))
>>> rules = srdash.load_rules("srbench2022")
>>> verdict = srdash.judge(srdash.prepare_runs(results, rules=rules), rules)
>>> verdict.winner
'a'
"""

from srdash._version import __version__
from srdash.errors import CompetitionError, ModelRejected, RulesError, SrdashError, ValidationError
from srdash.io.loading import Results, load_results
from srdash.judging.competition import Competition, load_competition
from srdash.judging.pipeline import CompetitionResult, judge_competition, prepare_runs, score
from srdash.judging.ranking import Verdict, judge
from srdash.judging.rules import Rules, list_presets, load_rules

__all__ = [
    "__version__",
    "SrdashError",
    "ValidationError",
    "RulesError",
    "CompetitionError",
    "ModelRejected",
    "Results",
    "load_results",
    "Competition",
    "load_competition",
    "judge_competition",
    "CompetitionResult",
    "prepare_runs",
    "score",
    "Verdict",
    "judge",
    "Rules",
    "load_rules",
    "list_presets",
]
