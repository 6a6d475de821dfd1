"""The rules variants a winner certificate judges: one option changed at a time, and the related presets."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from srdash.errors import RulesError
from srdash.judging.rules import (DNF_RULES, MISSING_RANKS, MISSING_RUN_VALUES, RANK_METHODS, ROUNDINGS,
                                  RUN_AGGREGATIONS, SCORES, Rules, load_rules)

__all__ = ["rules_variants"]

#: Presets judged as variants of rules that look like SRBench 2022's.
_SRBENCH2022_PRESETS = ("srbench2022", "srbench2022-as-run", "srbench2022-draft")
#: ``ties = "tolerance"`` variant of exact rules: merges float-noise ties only.
_NOISE_TOLERANCE = 1e-9


def _srbench2022_like(rules: Rules) -> bool:
    reference = load_rules("srbench2022")
    return rules.rule_kind.judges_runs and {c.column for c in rules.criteria} == {c.column for c in reference.criteria}


def rules_variants(rules: Rules) -> list[tuple[str, str, Rules]]:
    """Every variant of ``rules`` the certificate judges: one option changed at a time, and the
    related presets.

    Parameters
    ----------
    rules : Rules
        Rules of a kind that judges runs.

    Returns
    -------
    list of (name, description, Rules)
        Variants that the rules' own checks refuse (e.g. ``rank-mean`` with DNFs left out)
        are not listed. The presets ``srbench2022``, ``srbench2022-as-run`` and
        ``srbench2022-draft`` are variants of rules that rank the same columns as
        ``srbench2022`` (r2_test, simplicity, property).

    Examples
    --------
    >>> names = [name for name, _, _ in rules_variants(load_rules("srbench2022"))]
    >>> names[:3]
    ['run_aggregation = mean', 'run_aggregation = rank-mean', 'rank_method = min']
    >>> names[-2:]
    ['preset srbench2022-as-run', 'preset srbench2022-draft']
    """
    candidates: list[tuple[str, str, Callable[[], Rules]]] = []
    words = {"median": "the median of the runs", "mean": "the mean of the runs",
             "rank-mean": "ranks per run averaged over the runs"}
    for value in RUN_AGGREGATIONS:
        if value != rules.run_aggregation:
            candidates.append((f"run_aggregation = {value}", f"runs combined by {words[value]} instead of "
                               f"{words[rules.run_aggregation]}",
                               lambda v=value: rules.with_options(run_aggregation=v)))
    for value in RANK_METHODS:
        if value != rules.rank_method:
            candidates.append((f"rank_method = {value}", f"ties ranked '{value}' instead of '{rules.rank_method}'",
                               lambda v=value: rules.with_options(rank_method=v)))
    for value in SCORES:
        if value != rules.score:
            candidates.append((f"score = {value}", f"final score '{value}' instead of '{rules.score}'",
                               lambda v=value: replace(rules, score=v)))
    if rules.ties == "exact":
        candidates.append((f"ties = tolerance {_NOISE_TOLERANCE:g}",
                           f"values within {_NOISE_TOLERANCE:g} tie instead of being compared exactly",
                           lambda: rules.with_options(ties="tolerance", tie_tolerance=_NOISE_TOLERANCE)))
    else:
        candidates.append(("ties = exact", f"values compared exactly instead of within {rules.tie_tolerance:g}",
                           lambda: rules.with_options(ties="exact", tie_tolerance=0.0)))
    for option, values in (("dnf", DNF_RULES), ("missing_run_value", MISSING_RUN_VALUES),
                           ("missing_rank", MISSING_RANKS)):
        for value in values:
            if value != getattr(rules, option):
                candidates.append((f"{option} = {value}", f"{option.replace('_', ' ')} '{value}' instead of "
                                   f"'{getattr(rules, option)}'", lambda o=option, v=value: rules.with_options(**{o: v})))
    rounded = [c for c in rules.criteria if c.decimals is not None]
    for value in ROUNDINGS if rounded else ():
        if any(c.rounding != value for c in rounded):
            candidates.append((f"rounding = {value}", f"rounding '{value}' for "
                               f"{', '.join(c.name for c in rounded)}",
                               lambda v=value: replace(rules, criteria=tuple(
                                   replace(c, rounding=v) if c.decimals is not None else c for c in rules.criteria))))
    for criterion in rules.criteria:
        value = "none" if criterion.normalisation != "none" else "min-max-table"
        candidates.append((f"{criterion.name}: normalisation = {value}",
                           f"{criterion.name} normalised '{value}' instead of '{criterion.normalisation}'",
                           lambda c=criterion, v=value: replace(rules, criteria=tuple(
                               replace(x, normalisation=v) if x.name == c.name else x for x in rules.criteria))))
    if _srbench2022_like(rules):
        for preset in _SRBENCH2022_PRESETS:
            if preset != rules.name:
                candidates.append((f"preset {preset}", f"judged by the preset {preset}",
                                   lambda p=preset: load_rules(p)))
    variants = []
    for name, description, build in candidates:
        try:
            variants.append((name, description, build()))
        except RulesError:  # a combination the rules refuse (e.g. rank-mean with DNFs left out)
            continue
    return variants
