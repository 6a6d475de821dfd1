"""The bounds of every number a rules file, a competition file or a command-line option can set.

One table per source (:data:`RULES_LIMITS`, :data:`COMPETITION_LIMITS`,
:data:`OPTION_LIMITS`), each entry a :class:`Limit`: the range a value must lie in and
why. A value outside it (also NaN, an infinity, a boolean or text where a number is
expected) is refused before any data is read, naming the key and its range. The
ranges are what the data can need: a count sizes memory (``runs_per_dataset`` pads
every (method, dataset) to that many rows), a precision beyond float64's is noise
(``decimals`` above 17; numpy turns every value into NaN from 309 on), a weight or a
tolerance past a point makes a criterion decide nothing. ``docs/rules.md`` and
``docs/competition.md`` list the same table.

Examples
--------
>>> RULES_LIMITS["criteria.decimals"].describe()
'a whole number >= 0 and at most 17'
>>> RULES_LIMITS["ranking.runs_per_dataset"].check(20_000_000, where="rules 'r'")
Traceback (most recent call last):
...
srdash.errors.RulesError: rules 'r': 'runs_per_dataset' must be a whole number >= 0 and at most 100. Got 20000000.
>>> RULES_LIMITS["criteria.weight"].check(float("nan"), where="criterion 'a'")
Traceback (most recent call last):
...
srdash.errors.RulesError: criterion 'a': 'weight' must be a finite number >= 0 and at most 1,000,000. Got nan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from srdash.errors import RulesError, SrdashError

__all__ = ["Limit", "RULES_LIMITS", "COMPETITION_LIMITS", "OPTION_LIMITS", "ANY_OTHER_NUMBER",
           "MIN_WEIGHT_RATIO", "check_any_numbers", "shown"]


def shown(value: Any) -> str:
    """``value`` as a message quotes it: its repr, a huge integer by its digits (a file may hold thousands).

    Examples
    --------
    >>> shown(10**400), shown(float("nan")), shown("3")
    ('an integer of 401 digits', 'nan', "'3'")
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, (list, tuple)) and len(value) <= 10:
        return "[" + ", ".join(shown(item) for item in value) + "]"
    if isinstance(value, dict) and len(value) <= 10:
        return "{" + ", ".join(f"{key!r}: {shown(item)}" for key, item in value.items()) + "}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _number(value: float) -> str:
    if float(value).is_integer() and abs(value) <= 1e10:
        return f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))
    return f"{value:g}"


@dataclass(frozen=True)
class Limit:
    """The range one number must lie in.

    Attributes
    ----------
    key : str
        The key as written in the file (its last part) or the option (``--bootstrap``).
    low, high : float
        The bounds (``-inf``/``inf`` only with ``infinite``).
    integer : bool
        A whole number (a TOML integer or a float without a fraction; never a boolean).
    low_open, high_open : bool
        The bound itself is excluded.
    infinite : bool
        ``-inf`` and ``inf`` themselves are accepted (a criterion's domain).
    why : str
        Why this range, for the documentation.
    words : str
        The range in words, when :meth:`describe` should not compose them.
    """

    key: str
    low: float
    high: float
    integer: bool = False
    low_open: bool = False
    high_open: bool = False
    infinite: bool = False
    why: str = ""
    words: str = ""

    def describe(self) -> str:
        """The range in words, as the messages and the docs say it.

        Examples
        --------
        >>> OPTION_LIMITS["timeout"].describe()
        'a finite number > 0 and at most 86,400'
        >>> RULES_LIMITS["criteria.decimals"].describe()
        'a whole number >= 0 and at most 17'
        """
        if self.words:
            return self.words
        kind = ("a whole number" if self.integer
                else "a number (-inf and inf allowed)" if self.infinite else "a finite number")
        high = f"< {_number(self.high)}" if self.high_open else f"at most {_number(self.high)}"
        if math.isinf(self.low):
            return kind if math.isinf(self.high) else f"{kind} {high}"
        low = f"> {_number(self.low)}" if self.low_open else f">= {_number(self.low)}"
        return f"{kind} {low}" if math.isinf(self.high) else f"{kind} {low} and {high}"

    def admits(self, value: Any) -> bool:
        """True when ``value`` is a number of the right kind inside the range."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, int):
            if not -2**53 <= value <= 2**53:  # beyond, float(value) is no longer the value (or overflows)
                return False
            value = float(value)
        if math.isnan(value) or (math.isinf(value) and not self.infinite):
            return False
        if self.integer and not value.is_integer():
            return False
        if math.isinf(value):
            return True
        below = value <= self.low if self.low_open else value < self.low
        above = value >= self.high if self.high_open else value > self.high
        return not (below or above)

    def check(self, value: Any, *, where: str, error: type[SrdashError] = RulesError) -> int | float:
        """``value`` as an int (``integer``) or float when admitted; else ``error`` naming the key and range."""
        if not self.admits(value):
            raise error(f"{where}: '{self.key}' must be {self.describe()}. Got {shown(value)}.")
        return int(value) if self.integer else float(value)


_DAY = 86_400

#: The bounds of the numbers of a rules file, by dotted key (``criteria.decimals``: the key ``decimals``
#: of every ``[[criteria]]`` table).
RULES_LIMITS: Mapping[str, Limit] = {
    "criteria.decimals": Limit(
        "decimals", 0, 17, integer=True,
        why="17 significant digits tell every float64 apart: more decimals round nothing of a value above 0.1, "
            "and from 309 on numpy turns every value into NaN; 1e12 ended in an OverflowError."),
    "criteria.weight": Limit(
        "weight", 0, 1e6,
        why="Weights are relative (scaling them all changes nothing); NaN dropped the criterion and inf made "
            "every score 0. A positive weight below a millionth of the largest is refused too (it would only "
            "break exact ties); 0 leaves a criterion out, which the verdict says."),
    "criteria.domain": Limit(
        "domain", -math.inf, math.inf, infinite=True,
        why="The interval of possible values, [low, high] with low <= high; -inf and inf are open ends, NaN "
            "is refused."),
    "ranking.tie_tolerance": Limit(
        "tie_tolerance", 0, 1e6,
        why="An absolute difference of criterion values (1e300 tied every method on every criterion without "
            "a word); within the range, a tolerance that ties every value of a criterion on every dataset is "
            "stated in the verdict: that criterion decides nothing."),
    "ranking.runs_per_dataset": Limit(
        "runs_per_dataset", 0, 100, integer=True,
        why="Each (method, dataset) is padded to this many rows: SRBench asks 10 (2022) or 30 (2025); "
            "20,000,000 took 3.2 GB and 33 s before failing."),
    "filters.min_relative.ratio": Limit(
        "ratio", 0, 1, high_open=True,
        why="A run passes when value > ratio * best: at 1 or above no run can pass, and every method would "
            "tie last."),
}

#: Any other number of a rules file (the kinds' own tables: ``[rubric]``, ``[groups.*]``,
#: ``[thresholds.*]``, ``[baseline]``, ...), which the kind checks further.
ANY_OTHER_NUMBER = Limit(
    "number", -1e15, 1e15,
    why="Finite and below 1e15 in size: NaN and inf compare false with everything and turn sums into NaN.")

#: A positive weight must be at least this fraction of the largest weight.
MIN_WEIGHT_RATIO = 1e-6

#: The bounds of the numbers of a competition file, by ``section.key``.
COMPETITION_LIMITS: Mapping[str, Limit] = {
    "simplification.timeout": Limit(
        "simplification.timeout", 0, _DAY, low_open=True,
        words="a number of seconds > 0 and at most 86,400 (one day)",
        why="Seconds of CPU time per model: one day at most; NaN and inf would never stop a worker."),
    "simplification.jobs": Limit(
        "simplification.jobs", 0, 256, integer=True,
        why="Worker processes (0: every core, at most 256), each a Python process with sympy loaded: more "
            "than the cores only queue."),
}

#: The bounds of the numeric command-line options, by name (the CLI's ``Bounded`` type reads them).
OPTION_LIMITS: Mapping[str, Limit] = {
    "timeout": Limit("--timeout", 0, _DAY, low_open=True, why="As simplification.timeout."),
    "jobs": Limit("--jobs", 1, 256, integer=True, why="As simplification.jobs (at least one worker)."),
    "seed": Limit("--seed", 0, 2**32 - 1, integer=True,
                  why="numpy and every tool that repeats a draw take seeds of 32 bits; a negative seed failed."),
    "bootstrap": Limit("--bootstrap", 1, 10_000, integer=True,
                       why="Redraws of the bootstrap: a probability's Monte-Carlo error at 10,000 is at most 0.5 %. "
                           "Over datasets alone it holds B x datasets x methods scores: 10,000 redraws of 20 "
                           "methods x 100 datasets peaked at 521 MB (4 s); rules judged again per redraw take a "
                           "judging each (0.07 s on 3 methods: a progress bar shows them); 1e9 ended in "
                           "MemoryError."),
    "bootstrap-or-none": Limit("--bootstrap", 0, 10_000, integer=True, why="As --bootstrap; 0: no interval."),
    "samples": Limit("--samples", 1, 200_000, integer=True,
                     why="Weight vectors, each held with every method's score and place: 200,000 on 20 methods "
                         "x 100 datasets peaked at 250 MB (11 s); a probability's Monte-Carlo error at 200,000 is "
                         "0.11 %."),
    "report-samples": Limit("--samples", 10, 200_000, integer=True, why="As --samples."),
    "rope": Limit("--rope", 0, 1e15,
                  why="Half-width of the region of practical equivalence, in the metric's units (0: none)."),
    "bayes-samples": Limit("--samples", 100, 200_000, integer=True,
                           why="Posterior draws of the Bayesian signed-rank test, each a Dirichlet weight per dataset "
                               "(200,000 draws on 122 datasets: about 200 MB); Monte-Carlo error at most "
                               "0.5/sqrt(draws)."),
    "optimum": Limit("--optimum", -1e15, 1e15, why="The metric's best possible value: any finite number."),
    "development-days": Limit("--development-days", 1, 3_650, integer=True,
                              why="The Codabench development phase's length in days (ten years at most)."),
    "final-days": Limit("--final-days", 1, 3_650, integer=True,
                        why="The Codabench final phase's length in days (ten years at most)."),
    "scoring-seconds": Limit("--time-limit", 1, 86_400, integer=True,
                             why="Seconds Codabench's worker gives the scoring program per submission (a day at most)."),
    "probability": Limit("--alpha", 0, 1, low_open=True, high_open=True,
                         why="A significance level or confidence, strictly between 0 and 1."),
    "decimals": Limit("--decimals", 0, 17, integer=True, why="As criteria.decimals."),
    "max-rows": Limit("--max-rows", 1, 1_000_000_000, integer=True,
                      why="Rows kept per dataset; more than a dataset has keeps them all."),
    "r2-gate": Limit("--r2-gate", -math.inf, 1, high_open=True,
                     why="R² is at most 1: a gate at 1 or above checks no model; NaN checked none silently."),
    "budget-seconds": Limit("--budget", 0, 365 * _DAY, low_open=True,
                            why="Seconds of training time; inf counted no run over it."),
    "cull-idle": Limit("--cull-idle", 0, 7 * _DAY, why="Seconds a kernel may idle (0: never culled); one week."),
    "tolerance": Limit("--tolerance", 0, 1_000,
                       why="A score difference; scores are ranks or meta-scores, far below 1,000."),
    "max-selected": Limit("--max-selected", 1, 1_000, integer=True,
                          why="Submissions a team selects for the final; more than it made selects them all."),
    "podium": Limit("--podium", 1, 10, integer=True,
                    why="Places certified, each a search of its own (with --budget re-judgings per search)."),
    "max-removed": Limit("--max-removed", 1, 20, integer=True,
                         why="The largest set of datasets removed; each step of the greedy search tries every "
                             "candidate."),
    "rejudgings": Limit("--budget", 0, 1_000, integer=True,
                        why="Re-judgings per removal search (0.07 s each on 3 methods, 0.4-0.6 s on 20 methods x "
                            "100 datasets x 10 runs)."),
    "weight-methods": Limit("--weight-methods", 1, 1_000, integer=True,
                            why="Methods whose winning weights explain searches, each a search over the weights."),
    "max-cells": Limit("--max-cells", 1, 10_000_000, integer=True,
                       why="Explain's refusal bound (methods x datasets x runs); its work grows with methods^2 x "
                           "datasets, so past the default it says its estimated time first."),
    "visitors": Limit("--visitors", 1, 64, integer=True,
                      why="Kernels kept waiting; each one more holds about 50-60 MB (forked, on the demo)."),
    "review-visitors": Limit("--visitors", 0, 64, integer=True,
                             why="Review kernels kept waiting (0: none); each one more holds about 50-60 MB (forked, "
                                 "on the demo)."),
    "port": Limit("--port", 0, 65_535, integer=True, why="A TCP port (0: a free one)."),
}


def _walk(value: Any, path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, (*path, str(key)))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, path)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield ".".join(path), value


def check_any_numbers(data: Mapping[str, Any], *, where: str, declared: Mapping[str, Limit] = RULES_LIMITS,
                      error: type[SrdashError] = RulesError) -> None:
    """Refuse any number of a parsed TOML file outside :data:`ANY_OTHER_NUMBER`, except the ``declared``
    keys (checked with their own limits where they are read).

    Examples
    --------
    >>> check_any_numbers({"rubric": {"scale": [1, float("inf")]}}, where="rules 'r'")
    Traceback (most recent call last):
    ...
    srdash.errors.RulesError: rules 'r': 'rubric.scale' must be a finite number >= -1e+15 and at most 1e+15. Got inf.
    """
    for key, value in _walk(data, ()):
        if key in declared or any(key.startswith(f"{d}.") for d in declared):
            continue
        if not ANY_OTHER_NUMBER.admits(value):
            raise error(f"{where}: '{key}' must be {ANY_OTHER_NUMBER.describe()}. Got {shown(value)}.")
