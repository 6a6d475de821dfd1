"""The registry of rule kinds: the one place that tells rule kinds apart.

A rules file says ``kind = "..."``; the kind decides what the competition's
input is (per-run results with models, or submissions with metrics), which
function judges it and which top-level tables the rules file may have. Code
elsewhere asks the kind (``rules.rule_kind.judges_runs``), never compares
kind names. A new kind is a new entry here, described by its rules files
(``docs/rules.md``).

Examples
--------
>>> sorted(KINDS)
['normalised-weighted', 'rank-harmonic']
>>> rule_kind("rank-harmonic").judges_runs
True
>>> rule_kind("ranked")
Traceback (most recent call last):
...
srdash.errors.RulesError: Unknown rule kind 'ranked'. Kinds: 'normalised-weighted', 'rank-harmonic'.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from srdash.errors import RulesError

__all__ = ["RuleKind", "KINDS", "rule_kind", "DEFAULT_KIND"]

#: The kind of a rules file that does not state one (SRBench's).
DEFAULT_KIND = "rank-harmonic"


@dataclass(frozen=True)
class RuleKind:
    """One kind of judging rules.

    Attributes
    ----------
    name : str
        As written in rules files (``kind = "..."``).
    summary : str
        One sentence for readers.
    judges_runs : bool
        True: the input is one row per (method, dataset, run), with model
        strings or sizes, judged by ranks per dataset (SRBench). False: the
        input is one row per submission with metric values (EvalRS).
    judge_function : str
        ``module:function`` judging the input under rules of this kind.
    top_level_keys : frozenset of str or None
        Top-level keys a rules file of this kind may have (None: any, the
        kind checks its own tables).
    """

    name: str
    summary: str
    judges_runs: bool
    judge_function: str
    top_level_keys: frozenset[str] | None = None

    @property
    def judges_submissions(self) -> bool:
        """True when the input is one row per submission (see :attr:`judges_runs`)."""
        return not self.judges_runs

    def judge(self, table: Any, rules, **options) -> Any:
        """Judge ``table`` (prepared runs, or submissions) under ``rules`` of this kind."""
        module, _, function = self.judge_function.partition(":")
        judge: Callable = getattr(importlib.import_module(module), function)
        return judge(table, rules, **options)


KINDS: Mapping[str, RuleKind] = {
    kind.name: kind for kind in (
        RuleKind(
            name="rank-harmonic",
            summary="Per-dataset ranks of each criterion, combined by a (weighted) harmonic mean and averaged "
                    "over datasets (SRBench).",
            judges_runs=True,
            judge_function="srdash.judging.ranking:judge",
            top_level_keys=frozenset({"name", "title", "description", "kind", "competition_sympy_version",
                                      "ranking", "criteria", "filters", "representative", "review",
                                      "rubric"}),
        ),
        RuleKind(
            name="normalised-weighted",
            summary="Metrics normalised between a baseline and a best value, averaged into weighted "
                    "meta-scores (EvalRS 2022).",
            judges_runs=False,
            judge_function="srdash.judging.multiobjective:judge_submissions",
        ),
    )
}


def rule_kind(name: str) -> RuleKind:
    """The registered kind called ``name``.

    Raises
    ------
    RulesError
        When no kind has that name; the message lists the kinds.
    """
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        listed = ", ".join(f"'{k}'" for k in sorted(KINDS))
        raise RulesError(f"Unknown rule kind {name!r}. Kinds: {listed}.") from None
