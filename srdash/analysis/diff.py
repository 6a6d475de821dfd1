"""What changed between two verdicts of a competition, and why (`srdash diff`, the report's "What changed").

OLD becomes NEW in six steps taken in a fixed order, each judged again through the one ranking
(:func:`srdash.judging.ranking.judge`, as the winner certificate judges its changes):

1. ``entrants removed``: OLD's runs without the methods NEW does not have;
2. ``datasets removed``: without the datasets NEW does not have;
3. ``inputs changed``: the cells (method, dataset) both have, with NEW's runs, under OLD's rules;
4. ``rules changed``: the same table under NEW's rules;
5. ``datasets added``: NEW's datasets, for the methods both have;
6. ``entrants added``: NEW's runs whole, which is NEW's verdict.

A method's place change is credited to every step in which its place moved; one that moved in more
than one step has "several causes". The attribution depends on the order (a place can move with a
removed dataset only because the rules also changed): the order is fixed, so the same two verdicts
always give the same attribution, and the table says which steps moved each place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from srdash.errors import SrdashError
from srdash.judging.ranking import judge
from srdash.judging.rules import Rules

__all__ = ["STEPS", "DiffStep", "VerdictDiff", "VerdictSide", "diff_text", "diff_verdicts", "rules_changes",
           "side_of_published", "side_of_result"]

#: The steps from OLD to NEW, in the order they are applied.
STEPS = ("entrants removed", "datasets removed", "inputs changed", "rules changed", "datasets added",
         "entrants added")


@dataclass(frozen=True, eq=False)
class VerdictSide:
    """One side of a diff: what is needed to judge it again.

    Attributes
    ----------
    label : str
        How the side is named (its fingerprint's first 12 characters, or a file name).
    fingerprint : str
    runs : DataFrame
        The per-run values the verdict was judged from.
    rules : Rules
    leaderboard : DataFrame
        The verdict's own leaderboard (``method``, ``place``, ``score``).
    """

    label: str
    fingerprint: str
    runs: pd.DataFrame
    rules: Rules
    leaderboard: pd.DataFrame

    @property
    def methods(self) -> list[str]:
        return sorted(map(str, self.leaderboard["method"]))

    @property
    def datasets(self) -> list[str]:
        return sorted(map(str, self.runs["dataset"].unique()))


def side_of_result(result) -> VerdictSide:
    """The :class:`VerdictSide` of a :class:`~srdash.judging.prepared.CompetitionResult` (its main track)."""
    if result.runs is None or not result.verdict.rules.rule_kind.judges_runs:
        raise SrdashError(f"A diff compares verdicts of per-run results (SRBench style); the rules "
                          f"'{result.verdict.rules.name}' are {result.verdict.rules.kind}.")
    return VerdictSide(label=result.fingerprint[:12], fingerprint=result.fingerprint, runs=result.runs,
                       rules=result.verdict.rules, leaderboard=result.verdict.leaderboard)


def side_of_published(published) -> VerdictSide:
    """The :class:`VerdictSide` of a :class:`~srdash.analysis.published.PublishedVerdict`."""
    return VerdictSide(label=published.fingerprint[:12], fingerprint=published.fingerprint, runs=published.runs,
                       rules=published.rules, leaderboard=published.leaderboard)


@dataclass(frozen=True)
class DiffStep:
    """One step from OLD to NEW: its name, what it changes, and every method's place after it.

    ``places`` is None when the step could not be judged on its own (e.g. NEW's runs lack a column
    OLD's rules rank): its changes are then credited to the next step, named with both.
    """

    name: str
    what: tuple[str, ...]
    places: dict | None


@dataclass(frozen=True, eq=False)
class VerdictDiff:
    """What changed from OLD to NEW (see the module's docstring for the steps).

    Attributes
    ----------
    old, new : str
        The two verdicts' labels; ``old_fingerprint``, ``new_fingerprint`` their fingerprints.
    table : DataFrame
        One row per method of either verdict: ``method``, ``old_place``, ``new_place`` (NA when absent),
        ``moved`` (True when the place changed, or the method came or went), ``causes`` (the steps in
        which its place moved, ``; ``-separated) and ``several_causes``.
    steps : tuple of DiffStep
    entrants_added, entrants_removed, datasets_added, datasets_removed : tuple of str
    rules_changed : tuple of str
        Each option or criterion that differs, in words.
    inputs_changed : tuple of (str, str)
        The (method, dataset) cells of both verdicts whose runs differ.
    notes : tuple of str
    """

    old: str
    new: str
    old_fingerprint: str
    new_fingerprint: str
    table: pd.DataFrame
    steps: tuple[DiffStep, ...]
    entrants_added: tuple[str, ...] = ()
    entrants_removed: tuple[str, ...] = ()
    datasets_added: tuple[str, ...] = ()
    datasets_removed: tuple[str, ...] = ()
    rules_changed: tuple[str, ...] = ()
    inputs_changed: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def unchanged(self) -> bool:
        """True when nothing that enters the verdict differs and no place moved."""
        return (self.old_fingerprint == self.new_fingerprint or not (
            self.entrants_added or self.entrants_removed or self.datasets_added or self.datasets_removed
            or self.rules_changed or self.inputs_changed)) and not self.table["moved"].any()


_RULES_OPTIONS = ("kind", "run_aggregation", "rank_method", "min_relative", "score", "ties", "tie_tolerance", "dnf",
                  "missing_rank", "missing_run_value", "runs_per_dataset", "places", "dataset_order")
_CRITERION_FIELDS = ("column", "direction", "decimals", "weight", "domain", "rounding", "normalisation", "measure",
                     "optional")


def rules_changes(old: Rules, new: Rules) -> tuple[str, ...]:
    """What differs between two rules, one phrase per option or criterion (empty: the same rules as applied).

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> rules = load_rules("srbench2022")
    >>> rules_changes(rules, rules.with_options(weights={"simplicity": 2.0}, rank_method="min"))
    ("rank_method 'average' -> 'min'", "criterion 'simplicity': weight 1.0 -> 2.0")
    """
    changes = [f"{option} {getattr(old, option)!r} -> {getattr(new, option)!r}" for option in _RULES_OPTIONS
               if getattr(old, option) != getattr(new, option)]
    before = {c.name: c for c in old.criteria}
    after = {c.name: c for c in new.criteria}
    for name in sorted(set(before) - set(after)):
        changes.append(f"criterion '{name}' removed")
    for name in sorted(set(after) - set(before)):
        changes.append(f"criterion '{name}' added")
    for name in [c.name for c in old.criteria if c.name in after]:
        for option in _CRITERION_FIELDS:
            a, b = getattr(before[name], option), getattr(after[name], option)
            if a != b:
                changes.append(f"criterion '{name}': {option} {a!r} -> {b!r}")
    if not changes and old.sha256 != new.sha256:  # the same options, another text (comments, names, order)
        changes.append("the rules' text (same options)")
    return tuple(changes)


def _changed_cells(old: pd.DataFrame, new: pd.DataFrame, methods: Sequence[str], datasets: Sequence[str],
                   columns: Sequence[str]) -> list[tuple[str, str]]:
    """The (method, dataset) cells among ``methods`` x ``datasets`` whose runs differ on ``columns``."""
    def cells(runs):
        keep = runs[runs["method"].astype(str).isin(methods) & runs["dataset"].astype(str).isin(datasets)]
        keep = keep.assign(method=keep["method"].astype(str), dataset=keep["dataset"].astype(str))
        order = [c for c in ("method", "dataset", "run") if c in keep.columns]
        return {key: group.sort_values(order, kind="stable")[list(columns)].to_numpy(dtype=float)
                for key, group in keep.groupby(["method", "dataset"], sort=True)}

    before, after = cells(old), cells(new)
    changed = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a is None or b is None or a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
            changed.append(key)
    return changed


def _places(table: pd.DataFrame, rules: Rules, methods: Sequence[str]) -> dict:
    board = judge(table, rules, methods=list(methods)).leaderboard
    return {str(m): int(p) for m, p in zip(board["method"], board["place"])}


def _cause_text(step: str, what: Sequence[str]) -> str:
    if not what or step in ("inputs changed",):
        return step
    shown = ", ".join(what[:5]) + (f" and {len(what) - 5} more" if len(what) > 5 else "")
    return f"{step} ({shown})"


def diff_verdicts(old: VerdictSide, new: VerdictSide) -> VerdictDiff:
    """Which places changed from ``old`` to ``new``, and in which of the :data:`STEPS` each moved.

    Parameters
    ----------
    old, new : VerdictSide
        From :func:`side_of_result` or :func:`side_of_published`.

    Returns
    -------
    VerdictDiff

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> runs = pd.DataFrame({"method": ["a", "b"] * 3, "dataset": ["d1", "d1", "d2", "d2", "d3", "d3"], "run": 0,
    ...                      "r2_test": [0.9, 0.8, 0.5, 0.7, 0.9, 0.8], "simplicity": -1.0, "property": 1.0})
    >>> rules = load_rules("srbench2022")
    >>> def side(table, label):
    ...     return VerdictSide(label, label, table, rules, judge(table, rules).leaderboard)
    >>> d = diff_verdicts(side(runs, "old"), side(runs[runs["dataset"] == "d2"], "new"))
    >>> d.table[["method", "old_place", "new_place", "causes"]].astype(object).values.tolist()
    [['b', 2, 1, 'datasets removed (d1, d3)'], ['a', 1, 2, 'datasets removed (d1, d3)']]
    """
    old_methods, new_methods = set(old.methods), set(new.methods)
    old_datasets, new_datasets = set(old.datasets), set(new.datasets)
    removed_methods = sorted(old_methods - new_methods)
    added_methods = sorted(new_methods - old_methods)
    removed_datasets = sorted(old_datasets - new_datasets)
    added_datasets = sorted(new_datasets - old_datasets)
    common_methods = sorted(old_methods & new_methods)
    common_datasets = sorted(old_datasets & new_datasets)
    old_runs = old.runs.assign(method=old.runs["method"].astype(str), dataset=old.runs["dataset"].astype(str))
    new_runs = new.runs.assign(method=new.runs["method"].astype(str), dataset=new.runs["dataset"].astype(str))

    def only(runs, methods, datasets):
        return runs[runs["method"].isin(methods) & runs["dataset"].isin(datasets)]

    columns = sorted({c.column for c in (*old.rules.criteria, *new.rules.criteria)
                      if c.column in old_runs.columns and c.column in new_runs.columns})
    changed_cells = _changed_cells(old_runs, new_runs, common_methods, common_datasets, columns)
    rules_changed = rules_changes(old.rules, new.rules)
    kept = sorted(old_methods - set(removed_methods))
    plan = [
        ("entrants removed", tuple(removed_methods), lambda: _places(
            only(old_runs, kept, old_datasets), old.rules, kept)),
        ("datasets removed", tuple(removed_datasets), lambda: _places(
            only(old_runs, kept, common_datasets), old.rules, kept)),
        ("inputs changed", tuple(f"{m} on {d}" for m, d in changed_cells), lambda: _places(
            only(new_runs, common_methods, common_datasets), old.rules, common_methods)),
        ("rules changed", rules_changed, lambda: _places(
            only(new_runs, common_methods, common_datasets), new.rules, common_methods)),
        ("datasets added", tuple(added_datasets), lambda: _places(
            only(new_runs, common_methods, new_datasets), new.rules, common_methods)),
        ("entrants added", tuple(added_methods), lambda: _places(new_runs, new.rules, new.methods)),
    ]
    notes = []
    start = _places(old_runs, old.rules, old.methods)
    if start != {str(m): int(p) for m, p in zip(old.leaderboard["method"], old.leaderboard["place"])}:
        notes.append(f"Judged again from its runs, {old.label}'s places differ from its leaderboard; the steps "
                     "start from the places judged again.")
    steps = []
    for name, what, places in plan:
        if not (common_methods or name in ("entrants removed", "entrants added")):
            steps.append(DiffStep(name, what, None))
            continue
        try:
            steps.append(DiffStep(name, what, places()))
        except SrdashError as exc:  # e.g. NEW's runs lack a column OLD's rules rank: credited to the next step
            notes.append(f"The step '{name}' cannot be judged on its own ({exc}); its changes are credited "
                         "together with the next step's.")
            steps.append(DiffStep(name, what, None))
    end = steps[-1].places
    if end != {str(m): int(p) for m, p in zip(new.leaderboard["method"], new.leaderboard["place"])}:
        notes.append(f"Judged again from its runs, {new.label}'s places differ from its leaderboard; the table "
                     "shows the places judged again.")
    table = _attribution(start, steps, sorted(old_methods | new_methods))
    return VerdictDiff(old=old.label, new=new.label, old_fingerprint=old.fingerprint,
                       new_fingerprint=new.fingerprint, table=table, steps=tuple(steps),
                       entrants_added=tuple(added_methods), entrants_removed=tuple(removed_methods),
                       datasets_added=tuple(added_datasets), datasets_removed=tuple(removed_datasets),
                       rules_changed=rules_changed, inputs_changed=tuple(changed_cells), notes=tuple(notes))


def _attribution(start: dict, steps: Sequence[DiffStep], methods: Sequence[str]) -> pd.DataFrame:
    """Each method's places before and after, and the steps in which its place moved."""
    rows = []
    end = steps[-1].places or {}
    for method in methods:
        causes: list[str] = []
        previous, pending = start.get(method), []
        for step in steps:
            pending.append(step)
            if step.places is None:
                continue
            now = step.places.get(method)
            label = " + ".join(s.name for s in pending)
            what = tuple(w for s in pending for w in s.what)
            if previous is not None and now is not None and now != previous:
                causes.append(_cause_text(label, what))
            if now is None and previous is not None:
                causes.append(_cause_text(label, (method,)))  # removed here
            if previous is None and now is not None and method not in start:
                causes.append(_cause_text(label, (method,)))  # added here
            previous, pending = now, []
        old_place, new_place = start.get(method), end.get(method)
        rows.append({"method": method, "old_place": old_place, "new_place": new_place,
                     "moved": old_place != new_place, "causes": "; ".join(causes),
                     "several_causes": len(causes) > 1})
    table = pd.DataFrame(rows, columns=["method", "old_place", "new_place", "moved", "causes", "several_causes"])
    for column in ("old_place", "new_place"):
        table[column] = table[column].astype("Int64")
    order = table["new_place"].fillna(np.iinfo(np.int32).max).astype(int)
    return table.assign(_order=order).sort_values(["_order", "old_place", "method"], kind="stable",
                                                  na_position="last").drop(columns="_order").reset_index(drop=True)


def diff_text(diff: VerdictDiff) -> str:
    """The diff in sentences: what differs between the two verdicts, and which places moved by which step.

    Examples
    --------
    See :func:`diff_verdicts`; ``diff_text(d)`` of its example begins
    "From old to new: 2 methods changed place"
    """
    head = f"From {diff.old} to {diff.new}:"
    if diff.unchanged:
        same = ("the same verdict (the same fingerprint)" if diff.old_fingerprint == diff.new_fingerprint else
                "the fingerprints differ, but only in what no criterion ranks (the input files' bytes or other "
                "columns, or versions)")
        return (f"{head} nothing changed: the same entrants, datasets, rules and ranked values, and every place "
                f"is the same; {same}.")
    moved = diff.table[diff.table["moved"]]
    parts = [f"{head} {len(moved)} method{'s' if len(moved) != 1 else ''} changed place (entering or leaving "
             "counts)."]
    differs = []
    for label, items in (("entrants added", diff.entrants_added), ("entrants removed", diff.entrants_removed),
                         ("datasets added", diff.datasets_added), ("datasets removed", diff.datasets_removed),
                         ("rules changed", diff.rules_changed)):
        if items:
            differs.append(_cause_text(label, items))
    if diff.inputs_changed:
        differs.append(f"inputs changed ({len(diff.inputs_changed)} cell(s) of method and dataset)")
    if differs:
        parts.append("What differs: " + "; ".join(differs) + ".")
    came_or_went = set(diff.entrants_added) | set(diff.entrants_removed)
    for step in STEPS:
        who = [m for m, c in zip(diff.table["method"], diff.table["causes"]) if step in c and m not in came_or_went]
        if who:
            parts.append(f"{step[0].upper()}{step[1:]} moved {', '.join(who)}.")
    board = diff.table.set_index("method")
    if diff.entrants_added:
        parts.append("Entered: " + ", ".join(f"{m} (place {board.loc[m, 'new_place']})"
                                              for m in diff.entrants_added) + ".")
    if diff.entrants_removed:
        parts.append("Left: " + ", ".join(f"{m} (was place {board.loc[m, 'old_place']})"
                                          for m in diff.entrants_removed) + ".")
    several = list(diff.table.loc[diff.table["several_causes"], "method"])
    if several:
        parts.append(f"Several causes: {', '.join(several)} moved in more than one step.")
    parts.append("Steps judged in this order: " + ", ".join(STEPS) + "; a place is credited to each step in which "
                 "it moved, so the credit depends on that order.")
    parts.extend(diff.notes)
    return " ".join(parts)
