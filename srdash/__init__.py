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

# The rest is imported when first used (PEP 562): `import srdash` (every command line, the server that
# supervises Voilà) then costs no pandas, numpy or sympy until a name that needs them is asked for.
_LAZY = {
    "Results": "srdash.io.loading", "load_results": "srdash.io.loading",
    "Competition": "srdash.judging.competition", "load_competition": "srdash.judging.competition",
    "CompetitionResult": "srdash.judging.pipeline", "judge_competition": "srdash.judging.pipeline",
    "prepare_runs": "srdash.judging.pipeline",
    "Verdict": "srdash.judging.ranking", "judge": "srdash.judging.ranking",
    "Rules": "srdash.judging.rules", "list_presets": "srdash.judging.rules", "load_rules": "srdash.judging.rules",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'srdash' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


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
    "Verdict",
    "judge",
    "Rules",
    "load_rules",
    "list_presets",
]
