"""Why this winner: a certificate of what would change the verdict.

An organiser defending a verdict is asked "would the winner still win if ...?". The
certificate answers, for the winner and each podium place, the smallest change of each
family that changes who holds the place, and the items responsible:

* **data**: the fewest datasets whose removal changes it. Ranks are per dataset, so
  (unless a criterion is normalised over the whole table or DNFs take the table's worst
  value) removing datasets leaves the other datasets' ranks unchanged: every subset up to
  ``max_removed`` datasets is scored exactly from the verdict's dataset scores
  (:func:`srdash.judging.kernel.weighted_harmonic_mean`), and the subset reported is judged
  again by :func:`srdash.judging.ranking.judge`. Otherwise subsets are judged one by one,
  exhaustively while the number of re-judgings fits ``budget``, then greedily;
* **runs**: the same for runs (seeds), when the table has several: every subset is judged
  again (the aggregation over runs changes), within ``budget``;
* **rules**: every preset variant and rules option (run aggregation, tie rule, final score,
  ties, rounding, DNFs, missing values, normalisation; the SRBench 2022 presets when the
  rules are SRBench-2022-like), each judged directly: a table of winners per variant;
* **weights**: the nearest weight vector (L1 on the simplex) under which another method
  wins, from :func:`srdash.analysis.sensitivity.find_winning_weights`;
* **entrants**: whether removing one other method changes the place
  (:meth:`srdash.analysis.sensitivity.Rescorer.without`, as
  :func:`srdash.analysis.sensitivity.irrelevant_alternatives`).

A place is *held* by the group of methods occupying that position of the leaderboard (one
method, or a tie); the place *changes* when another group holds it. Places compare scores
to 9 decimals, as the verdict does. The certificate also judges the competition again with
its rows shuffled, its methods renamed (new names sorting in reverse) and listed in reverse
order, and says whether the verdict is name- and order-invariant.

Examples
--------
``a`` beats ``b`` on ``d1`` and ``d2``, ``b`` beats ``a`` on ``d3`` (ranks 2 and 1, one
criterion): ``a`` wins 5/3 to 4/3; without ``d1`` they tie at 1.5:

>>> import pandas as pd
>>> from srdash.demo.examples import accuracy_rules
>>> runs = pd.DataFrame({"method": ["a", "b"] * 3, "dataset": ["d1", "d1", "d2", "d2", "d3", "d3"],
...                      "r2_test": [0.9, 0.8, 0.9, 0.8, 0.1, 0.9]})
>>> certificate = winner_certificate(runs, rules=accuracy_rules())
>>> certificate.podium
((1, ('a',)), (2, ('b',)))
>>> print(certificate.finding("data", 1).line())
data      changes to a = b: without dataset d1, a = b tie for first (a 1.5 against b 1.5).
>>> certificate.invariant
True
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.analysis.findings import Finding, group_text as _group
from srdash.analysis.jury_certificate import JURY_FAMILIES, JuryCertificate, jury_certificate, jury_certificate_text
from srdash.analysis.printed import MOST_DECIMALS, printed_winning_weights, score_texts
from srdash.analysis.rules_variants import rules_variants
from srdash.analysis.sensitivity import Rescorer, find_winning_weights
from srdash.errors import SrdashError
from srdash.judging.kernel import rank_higher_better, weighted_harmonic_mean
from srdash.judging.ranking import judge
from srdash.judging.rules import Rules, load_rules

__all__ = ["Finding", "WinnerCertificate", "winner_certificate", "rules_variants", "certificate_text",
           "FAMILIES", "JuryCertificate", "jury_certificate", "jury_certificate_text", "JURY_FAMILIES"]

#: The families of changes, in the order the certificate lists them.
FAMILIES = ("data", "runs", "rules", "weights", "entrants")
#: Scores are compared to this many decimals (as :func:`srdash.judging.ranking.place_from_scores`).
_SCORE_DECIMALS = 9
#: Subsets scored at once by the exact dataset search (bounds memory).
_CHUNK = 20_000


@dataclass(frozen=True)
class WinnerCertificate:
    """What would change the verdict (:func:`winner_certificate`).

    Attributes
    ----------
    rules : Rules
    methods, datasets : tuple of str
    runs : tuple of int
        The run ids (seeds) of the table.
    podium : tuple of (int, tuple of str)
        Each place certified and the group holding it.
    scores : Mapping of str to float
        The official scores.
    findings : tuple of Finding
        One per (place, family), places first.
    variants : DataFrame
        One row per rules variant, each judged directly: ``variant``, ``description``,
        ``winner``, ``winner_score``, ``podium`` (text), ``changes`` (the winner is not
        the official one) and ``rules`` (the Rules judged).
    invariance : Mapping of str to bool
        ``rows shuffled``, ``methods renamed``, ``methods listed in reverse order``: True
        when the verdict (every method's place and score) is the same.
    rejudgings : int
        How many times the competition was judged again to build the certificate.
    skipped_variants : tuple of str
        Rules variants that could not be judged, each with the reason.
    """

    rules: Rules
    methods: tuple[str, ...]
    datasets: tuple[str, ...]
    runs: tuple[int, ...]
    podium: tuple[tuple[int, tuple[str, ...]], ...]
    scores: Mapping[str, float]
    findings: tuple[Finding, ...]
    variants: pd.DataFrame
    invariance: Mapping[str, bool]
    rejudgings: int
    skipped_variants: tuple[str, ...] = ()

    @property
    def winner(self) -> tuple[str, ...]:
        """The group in first place."""
        return self.podium[0][1]

    @property
    def invariant(self) -> bool:
        """True when every invariance check holds."""
        return all(self.invariance.values())

    def finding(self, family: str, place: int = 1) -> Finding:
        """The finding of ``family`` for ``place``."""
        for f in self.findings:
            if f.family == family and f.place == place:
                return f
        raise SrdashError(f"No finding for family '{family}' and place {place}. Families: {', '.join(FAMILIES)}; "
                          f"places: {', '.join(str(p) for p, _ in self.podium)}.")


# --------------------------------------------------------------------------- places


def _places(scores: np.ndarray) -> np.ndarray:
    """Places (1 = best, ties share the smallest) along the last axis, from the ranking kernel:
    place = K + 1 - the highest position a tied value occupies."""
    rounded = np.round(np.asarray(scores, dtype=float), _SCORE_DECIMALS)
    k = rounded.shape[-1]
    return (k + 1 - rank_higher_better(rounded, "max")).astype(int)


def _holder_mask(places: np.ndarray, position: int) -> np.ndarray:
    """Which methods occupy ``position`` (the group whose place is the largest <= position)."""
    capped = np.where(places <= position, places, 0).max(axis=-1, keepdims=True)
    return places == capped


@dataclass(frozen=True)
class _Place:
    """One certified place: its position, holder and the methods ahead of it, as masks over methods."""

    position: int
    holder: np.ndarray
    ahead: np.ndarray

    def margin(self, scores: np.ndarray) -> np.ndarray:
        """How far the holder is from losing the place (<= 0: lost), along the last axis."""
        scores = np.round(np.asarray(scores, dtype=float), _SCORE_DECIMALS)
        behind = ~self.holder & ~self.ahead
        low_holder = np.where(self.holder, scores, np.inf).min(axis=-1)
        high_holder = np.where(self.holder, scores, -np.inf).max(axis=-1)
        over_behind = low_holder - np.where(behind, scores, -np.inf).max(axis=-1)
        under_ahead = np.where(self.ahead, scores, np.inf).min(axis=-1) - high_holder
        return np.minimum(over_behind, under_ahead)

    def holders_after(self, scores: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
        """Mask of the methods holding the place under ``scores`` (of the methods in ``keep``)."""
        keep = np.ones(len(self.holder), bool) if keep is None else keep
        position = 1 + int((self.ahead & keep).sum())
        mask = np.zeros(scores.shape, bool)
        mask[..., keep] = _holder_mask(_places(scores[..., keep]), position)
        return mask


# --------------------------------------------------------------------------- the certificate


class _Judge:
    """Judges the competition again, counting."""

    def __init__(self, runs: pd.DataFrame, rules: Rules, methods: Sequence[str]):
        self.runs, self.rules, self.methods, self.count = runs, rules, list(methods), 0

    def scores(self, table: pd.DataFrame, rules: Rules | None = None, methods: Sequence[str] | None = None
               ) -> np.ndarray:
        """Scores of :attr:`methods` (sorted) judging ``table``."""
        self.count += 1
        verdict = judge(table, rules or self.rules, methods=methods or self.methods)
        board = verdict.leaderboard.set_index("method")["score"]
        board.index = board.index.astype(str)
        return board.reindex(sorted(self.methods)).to_numpy(dtype=float)


class _Tracker:
    """Feeds a progress callback ``progress(done, total, counts)`` and ``stage(text)`` (the CLI's progress bar)."""

    def __init__(self, progress=None, stage=None):
        self._progress, self._stage, self.done, self.total = progress, stage, 0, 0

    def stage(self, text: str, total: int) -> None:
        self.done, self.total = 0, int(total)
        if self._stage is not None:
            self._stage(text)
        if self._progress is not None:
            self._progress(0, self.total, {})

    def advance(self, count: int = 1) -> None:
        self.done += count
        if self._progress is not None:
            self._progress(self.done, self.total, {})


def winner_certificate(result, *, rules: Rules | None = None, podium: int = 3, max_removed: int = 3,
                       budget: int = 30, weight_samples: int = 2_000, weight_methods: int | None = None,
                       seed: int = 0, progress=None, stage=None) -> WinnerCertificate:
    """What would change the winner and each podium place of a verdict.

    Parameters
    ----------
    result : CompetitionResult or DataFrame
        A judged competition (:func:`srdash.judging.pipeline.judge_competition`; its
        main track), or a prepared per-run table (then ``rules`` is required).
    rules : Rules, optional
        The rules of a per-run table.
    podium : int
        Places certified (1: the winner only).
    max_removed : int
        The largest set of datasets (or runs) searched.
    budget : int
        At most this many re-judgings per removal search that has to judge each subset
        (runs; datasets when the fast exact search does not apply): exhaustive while it
        fits, then greedy.
    weight_samples : int
        Weight vectors of each search of :func:`srdash.analysis.sensitivity.find_winning_weights`.
    weight_methods : int, optional
        Search the winning weights of at most this many other methods, the best placed (None:
        all); the weights line says when it samples (see :mod:`srdash.analysis.certificate_plan`).
    seed : int
        Seed of the weight searches and of the shuffled rows.
    progress, stage : callable, optional
        ``progress(done, total, counts)`` and ``stage(text)``, called as the work advances
        (``srdash explain``'s progress bar on stderr).

    Returns
    -------
    WinnerCertificate

    Raises
    ------
    SrdashError
        For rules that judge submissions (use ``srdash sensitivity``), or a per-run table
        given without rules.

    Examples
    --------
    Three methods on one dataset (``srdash.demo.examples``): ``a`` ranks (3, 2, 2) on accuracy,
    simplicity and the property, ``b`` (1, 3, 3), ``c`` (2, 1, 1). Without ``c``, ``a`` ranks
    (2, 1, 1) and ``b`` (1, 2, 2): ``b`` wins, 1.5 to 1.2.

    >>> from srdash.demo.examples import example_runs
    >>> certificate = winner_certificate(example_runs(), rules=load_rules("srbench2022"), podium=1,
    ...                                  weight_samples=200)
    >>> certificate.winner, certificate.finding("data").outcome
    (('a',), 'not applicable')
    >>> print(certificate.finding("entrants").line())
    entrants  changes to b: without c, the ranks of the others change and b is first alone (b 1.5 against a 1.2).
    """
    if isinstance(result, pd.DataFrame):
        if rules is None:
            raise SrdashError("winner_certificate() of a per-run table needs its rules (rules=...).")
        runs = result
    else:
        rules = result.competition.rules if rules is None else rules
        runs = result.runs
        if runs is None or not rules.rule_kind.judges_runs:
            raise SrdashError(f"The certificate judges per-run results; the rules '{rules.name}' judge submissions. "
                              "Use `srdash sensitivity` for their weights.")
    for name, value, least in (("podium", podium, 1), ("max_removed", max_removed, 1), ("budget", budget, 0),
                               ("weight_methods", 1 if weight_methods is None else weight_methods, 1)):
        if value < least:
            raise SrdashError(f"The '{name}' option must be an integer >= {least}. Got {value!r}.")
    tracker = _Tracker(progress, stage)
    # the verdict shown everywhere else, unless other rules are asked for
    verdict = result.verdict if not isinstance(result, pd.DataFrame) and rules is result.competition.rules \
        else judge(runs, rules)
    methods = tuple(sorted(verdict.leaderboard["method"].astype(str)))
    datasets = tuple(sorted(verdict.per_dataset["dataset"].astype(str).unique()))
    run_ids = tuple(sorted(pd.unique(runs["run"]).tolist())) if "run" in runs.columns else (0,)
    judged = _Judge(runs, rules, methods)
    official = verdict.leaderboard.set_index(verdict.leaderboard["method"].astype(str))["score"] \
        .reindex(list(methods)).to_numpy(dtype=float)
    places = _places(official)
    certified: list[_Place] = []
    for position in range(1, min(podium, len(methods)) + 1):
        holder = _holder_mask(places, position)
        if certified and (certified[-1].holder == holder).all():
            continue  # a tie spans this position too
        certified.append(_Place(position, holder, places < places[holder].min()))
    names = np.array(methods, dtype=object)

    def who(mask: np.ndarray) -> tuple[str, ...]:
        return tuple(names[mask].tolist())

    findings: dict[tuple[str, int], Finding] = {}
    for family, found in (("data", _data_findings(runs, verdict, judged, certified, who, datasets,
                                                  max_removed=max_removed, budget=budget, tracker=tracker)),
                          ("runs", _run_findings(runs, judged, certified, who, run_ids, max_removed=max_removed,
                                                 budget=budget, tracker=tracker))):
        for place, finding in zip(certified, found):
            findings[(family, place.position)] = finding
    variants, skipped = _variant_table(judged, rules, certified, who, official, tracker=tracker)
    for place in certified:
        findings[("rules", place.position)] = _rules_finding(variants, place, who)
    best_first = [methods[i] for i in np.lexsort((names, -np.round(official, _SCORE_DECIMALS)))]
    for place, finding in zip(certified, _weight_findings(verdict, judged, certified, who, best_first,
                                                          samples=weight_samples, seed=seed, limit=weight_methods,
                                                          tracker=tracker)):
        findings[("weights", place.position)] = finding
    for place, finding in zip(certified, _entrant_findings(verdict, runs, certified, who, official, tracker=tracker)):
        findings[("entrants", place.position)] = finding
    tracker.stage("checking invariance", 3)
    invariance = _invariance(runs, rules, judged, official, seed=seed)
    tracker.advance(3)
    ordered = tuple(findings[(family, place.position)] for place in certified for family in FAMILIES)
    return WinnerCertificate(
        rules=rules, methods=methods, datasets=datasets, runs=run_ids,
        podium=tuple((p.position, who(p.holder)) for p in certified),
        scores=MappingProxyType(dict(zip(methods, official.tolist()))), findings=ordered,
        variants=variants.drop(columns=["_scores"]), invariance=MappingProxyType(invariance),
        rejudgings=judged.count, skipped_variants=skipped)


def _lead(scores: np.ndarray, new: np.ndarray, place: _Place, names: np.ndarray) -> str:
    """``(x 2 against y 1)``: the new holders' scores against the official holder's."""
    shown = [int(i) for i in np.flatnonzero(new)][:2]
    shown += [int(i) for i in np.flatnonzero(place.holder) if i not in shown][:1]
    texts = score_texts([scores[i] for i in shown])  # digits enough to tell apart what the verdict tells apart
    return "(" + " against ".join(f"{names[i]} {text}" for i, text in zip(shown, texts)) + ")"


def _describe_change(place: _Place, new: np.ndarray, who, scores: np.ndarray) -> str:
    holders = who(new)
    if len(holders) > 1:
        keep = np.isfinite(scores)
        group_place = int(_places(scores[keep])[np.flatnonzero(new[keep])[0]])
        rank = "first" if group_place == 1 else f"place {group_place}"
        return f"{_group(holders)} tie for {rank}"
    return f"{holders[0]} is " + ("first alone" if place.position == 1 else f"at place {place.position}")


# --------------------------------------------------------------------------- data and runs


def _data_findings(runs, verdict, judged: _Judge, certified, who, datasets, *, max_removed, budget,
                   tracker: _Tracker) -> list[Finding]:
    names = np.array(sorted(judged.methods), dtype=object)
    if len(datasets) < 2:
        return [Finding("data", p.position, who(p.holder), None, (), (), "one dataset: nothing to remove.", "")
                for p in certified]
    rules = verdict.rules
    fast = rules.dnf != "worst-value" and all(c.normalisation == "none" for c in rules.criteria)
    column = runs["dataset"].astype(str)

    def without(subset: Sequence[str]) -> np.ndarray:
        return judged.scores(runs[~column.isin(subset)])

    if not fast:
        tracker.stage("judging without datasets", budget)
        return _judged_search("data", "dataset", datasets, without, certified, who, names,
                              max_removed=max_removed, budget=budget, tracker=tracker,
                              why="a criterion normalised over the whole table or DNFs given the table's worst "
                                  "value make every dataset's ranks depend on the others")
    largest = min(max_removed, len(datasets) - 1)
    tracker.stage("scoring dataset sets", sum(math.comb(len(datasets), k) for k in range(1, largest + 1)))
    return _exact_data_search(verdict, certified, who, names, datasets, without, max_removed=max_removed,
                              tracker=tracker)


def _exact_data_search(verdict, certified, who, names, datasets, without, *, max_removed,
                       tracker: _Tracker) -> list[Finding]:
    """Every subset of up to ``max_removed`` datasets, scored from the verdict's dataset scores."""
    per_dataset = verdict.per_dataset
    criteria = verdict.criteria
    ranks = np.stack([per_dataset.pivot(index="method", columns="dataset", values=f"{c.name}_rank")
                      .sort_index().sort_index(axis=1).to_numpy(dtype=float) for c in criteria], axis=-1)
    weights = np.array([c.weight for c in criteria], dtype=float)
    left_out = np.isnan(ranks).all(axis=-1)
    dataset_scores = np.where(left_out, 0.0, weighted_harmonic_mean(np.nan_to_num(ranks, nan=1.0), weights))
    harmonic = verdict.rules.score == "harmonic-over-all"
    kept_cells = (~left_out).astype(float)
    if harmonic:  # one harmonic mean of all ranks = the harmonic mean of the dataset scores
        values = np.where(left_out | (dataset_scores <= 0), 0.0, 1.0 / np.where(dataset_scores > 0, dataset_scores, 1))
        zeros = ((dataset_scores <= 0) & ~left_out).astype(float)
    else:
        values, zeros = dataset_scores, np.zeros_like(dataset_scores)
    totals = values.sum(axis=1), kept_cells.sum(axis=1), zeros.sum(axis=1)
    largest = min(max_removed, len(datasets) - 1)
    found: dict[int, tuple[tuple[str, ...], int]] = {}  # position -> (datasets removed, their number)
    scored = 0
    for size in range(1, largest + 1):
        pending = [p for p in certified if p.position not in found]
        if not pending:
            break
        combos = np.array(list(itertools.combinations(range(len(datasets)), size)), dtype=np.intp)
        scored += len(combos)
        best: dict[int, tuple[float, int]] = {}
        for start in range(0, len(combos), _CHUNK):
            chunk = combos[start:start + _CHUNK]
            removed = [part[:, chunk].sum(axis=-1) for part in (values, kept_cells, zeros)]  # (methods, n)
            kept = totals[1][:, None] - removed[1]
            rest = totals[0][:, None] - removed[0]
            with np.errstate(divide="ignore", invalid="ignore"):
                if harmonic:
                    scores = np.where((totals[2][:, None] - removed[2] > 0) | (kept <= 0), 0.0, kept / rest)
                else:
                    scores = np.where(kept > 0, rest / kept, 0.0)
            scores = scores.T
            tracker.advance(len(chunk))
            for place in pending:
                changed = (place.holders_after(scores) != place.holder).any(axis=-1)
                if changed.any():  # the most decisive change: the holder furthest behind
                    margin = np.where(changed, place.margin(scores), np.inf)
                    i = int(np.argmin(margin))
                    if place.position not in best or margin[i] < best[place.position][0]:
                        best[place.position] = (float(margin[i]), start + i)
        for place in pending:
            if place.position in best:
                subset = tuple(datasets[j] for j in combos[best[place.position][1]])
                found[place.position] = (subset, size)
    out = []
    search = (f"exact: every set of up to {largest} of the {len(datasets)} datasets, {scored:,} re-scorings of the "
              "verdict's dataset scores; the set reported judged again")
    for place in certified:
        if place.position in found:
            subset, size = found[place.position]
            scores = without(subset)
            new = place.holders_after(scores)
            if (new == place.holder).all():  # a lead within rounding noise: the judge keeps the holder
                out.append(Finding("data", place.position, who(place.holder), True, (), (),
                                   f"only sets of {size} datasets with a lead within rounding noise "
                                   f"({', '.join(subset)}) come close; judged again the place holds.", search))
                continue
            plural = "dataset" if size == 1 else "datasets"
            out.append(Finding("data", place.position, who(place.holder), False, who(new), subset,
                               f"without {plural} {', '.join(subset)}, {_describe_change(place, new, who, scores)} "
                               f"{_lead(scores, new, place, names)}.", search))
        else:
            out.append(Finding("data", place.position, who(place.holder), True, (), (),
                               f"no set of up to {largest} of the {len(datasets)} datasets changes it "
                               f"(all {scored:,} sets checked).", search))
    return out


def _run_findings(runs, judged: _Judge, certified, who, run_ids, *, max_removed, budget,
                  tracker: _Tracker) -> list[Finding]:
    names = np.array(sorted(judged.methods), dtype=object)
    if len(run_ids) < 2:
        return [Finding("runs", p.position, who(p.holder), None, (), (),
                        "one run per method and dataset: no run to remove.", "") for p in certified]
    column = runs["run"]
    labels = tuple(str(r) for r in run_ids)

    def without(subset: Sequence[str]) -> np.ndarray:
        chosen = [r for r, label in zip(run_ids, labels) if label in subset]
        return judged.scores(runs[~column.isin(chosen)])

    tracker.stage("judging without runs", budget)
    return _judged_search("runs", "run", labels, without, certified, who, names, max_removed=max_removed,
                          budget=budget, tracker=tracker, why="removing runs changes the aggregation over runs")


def _judged_search(family, noun, items, without, certified, who, names, *, max_removed, budget, why,
                   tracker: _Tracker) -> list[Finding]:
    """Judge each subset of ``items`` removed: exhaustively while ``budget`` allows, then greedily
    (extending the set that brought the winner closest to losing, one item at a time)."""
    largest = min(max_removed, len(items) - 1)
    found: dict[int, tuple] = {}  # position -> (items removed, new holders, exhaustive?, scores)
    used, exact_upto, best_set, greedy_to = 0, 0, (), 0
    winner = certified[0]
    for size in range(1, largest + 1):
        combos = list(itertools.combinations(items, size))
        exhaustive = used + len(combos) <= budget
        if not exhaustive:
            combos = [tuple(sorted(best_set + (item,), key=items.index)) for item in items if item not in best_set]
            if used + len(combos) > budget:
                break
        used += len(combos)
        best_margin = np.inf
        for subset in combos:
            scores = without(subset)
            tracker.advance()
            for place in certified:
                new = place.holders_after(scores)
                if place.position not in found and not (new == place.holder).all():
                    found[place.position] = (subset, new, exhaustive, scores)
            margin = float(winner.margin(scores))
            if margin < best_margin:
                best_margin, best_set = margin, subset
        if exhaustive:
            exact_upto = size
        else:
            greedy_to = size
        if all(p.position in found for p in certified):
            break
    search = f"{why}: each set judged again ({used} re-judgings, budget {budget}): " + \
        (f"every set of up to {exact_upto} of the {len(items)} {noun}s" if exact_upto else "no exhaustive size fits") + \
        (f", then greedy up to {greedy_to}" if greedy_to else "")
    out = []
    for place in certified:
        if place.position in found:
            subset, new, exhaustive, scores = found[place.position]
            plural = noun if len(subset) == 1 else f"{noun}s"
            bound = "" if exhaustive else (" (found by the greedy search" + (
                f"; every set of up to {exact_upto} was checked" if exact_upto else "") +
                ": a smaller set is not excluded)")
            out.append(Finding(family, place.position, who(place.holder), False, who(new), subset,
                               f"without {plural} {', '.join(subset)}, {_describe_change(place, new, who, scores)} "
                               f"{_lead(scores, new, place, names)}{bound}.", search))
        elif used == 0:
            out.append(Finding(family, place.position, who(place.holder), None, (), (),
                               f"not searched: judging again each {noun} removed would take {len(items)} "
                               f"re-judgings, more than the budget of {budget}.", search))
        else:
            checked = (f"no set of up to {exact_upto} of the {len(items)} {noun}s changes it"
                       if exact_upto else f"no {noun} set searched changes it")
            extra = f"; the greedy search to {greedy_to} found none either" if greedy_to else ""
            out.append(Finding(family, place.position, who(place.holder), True, (), (),
                               f"{checked}{extra} ({used} re-judgings).", search))
    return out


# --------------------------------------------------------------------------- rules


def _variant_table(judged: _Judge, rules: Rules, certified, who, official, *, tracker: _Tracker
                   ) -> tuple[pd.DataFrame, tuple[str, ...]]:
    names = np.array(sorted(judged.methods), dtype=object)
    rows = []
    skipped: list[str] = []
    variants = rules_variants(rules)
    tracker.stage("judging rules variants", len(variants))
    for name, description, variant in variants:
        tracker.advance()
        try:
            scores = judged.scores(judged.runs, rules=variant)
        except SrdashError as exc:  # e.g. every criterion with data weighted 0 under a preset
            skipped.append(f"{name} ({exc})")
            continue
        places = _places(scores)
        winner = who(places == 1)
        order = np.lexsort((names, -np.round(scores, _SCORE_DECIMALS)))
        rows.append({"variant": name, "description": description, "winner": _group(winner),
                     "winner_score": float(scores[places == 1].max()),
                     "podium": "; ".join(f"{places[i]} {names[i]}" for i in order[:3]),
                     "changes": winner != who(certified[0].holder), "rules": variant, "_scores": scores})
    table = pd.DataFrame(rows, columns=["variant", "description", "winner", "winner_score", "podium", "changes",
                                        "rules", "_scores"])
    return table, tuple(skipped)


def _rules_finding(variants: pd.DataFrame, place: _Place, who) -> Finding:
    names = np.array(who(np.ones(len(place.holder), bool)), dtype=object)
    search = f"{len(variants)} variants, each judged directly"
    changed = []
    for row, scores in zip(variants.itertuples(), variants["_scores"]):
        new = place.holders_after(scores)
        if not (new == place.holder).all():
            changed.append((row, new, scores))
    if not changed:
        return Finding("rules", place.position, who(place.holder), True, (), (),
                       f"none of the {len(variants)} rules variants changes it.", search)
    row, new, scores = changed[0]
    others = f"; {len(changed) - 1} more variant(s) change it too" if len(changed) > 1 else ""
    return Finding("rules", place.position, who(place.holder), False, who(new), tuple(r.variant for r, _, _ in changed),
                   f"with {row.variant} ({row.description}), {_describe_change(place, new, who, scores)} "
                   f"{_lead(scores, new, place, names)}{others}.", search)


# --------------------------------------------------------------------------- weights and entrants


def _weight_findings(verdict, judged: _Judge, certified, who, best_first, *, samples, seed, limit,
                     tracker: _Tracker) -> list[Finding]:
    rescorer = Rescorer.from_verdict(verdict, runs=judged.runs)
    out = []
    for place in certified:
        holder = who(place.holder)
        if place.position > 1:
            out.append(Finding("weights", place.position, holder, None, (), (),
                               "the weight search answers who can win; see place 1.", ""))
            continue
        if rescorer.n_weights < 2:
            out.append(Finding("weights", 1, holder, None, (), (), "one weighted criterion: scaling it changes "
                               "nothing.", ""))
            continue
        official = dict(zip(rescorer.weight_names, rescorer.official_weights.tolist()))
        others = [m for m in best_first if not (len(holder) == 1 and m == holder[0])]
        searched = others if limit is None else others[:limit]
        # past the limit, the best-placed others only (the sentence says so)
        among = (f"among the {len(searched)} best-placed of the {len(others)} other methods searched"
                 if len(searched) < len(others) else "")
        tracker.stage("searching winning weights", len(searched))
        answers = []
        for m in searched:
            answers.append(find_winning_weights(rescorer, m, samples=samples, seed=seed))
            tracker.advance()
        found = sorted((float(np.abs(np.array(list(a.weights.values())) - rescorer.official_weights
                                     / rescorer.official_weights.sum()).sum()), a.method, a)
                       for a in answers if a.status == "found")
        approach = answers[0].approach if answers else ""
        search = (f"find_winning_weights for each of the {len(answers)} other methods searched: {approach}; the point printed "
                  "is rounded to the fewest decimals (at least 3) at which the method still wins, judged again at "
                  "the printed weights")

        def scores_at(weights):
            return judged.scores(judged.runs, rules=judged.rules.with_options(weights=weights))

        # the nearest point found, rounded and judged again as printed (a point just past a crossing
        # can round to the other side); the next nearest method if no rounding of it holds
        printed = next((p for p in (printed_winning_weights(scores_at, sorted(judged.methods), method, answer.weights,
                                                            official=official) for _, method, answer in found)
                        if p is not None), None)
        if printed is not None:
            weights = ", ".join(f"{k} {v}" for k, v in printed.text.items())
            official_text = ", ".join(f"{k} {v:g}" for k, v in official.items())
            out.append(Finding("weights", 1, holder, False, (printed.method,), (weights,),
                               f"at weights {weights} (official {official_text}; L1 distance {printed.distance:.3g} "
                               f"on the simplex, the nearest of the {len(found)} method(s) that can win"
                               f"{' ' + among if among else ''}) {printed.method} leads by {printed.margin_text}.",
                               search))
        elif found:
            out.append(Finding("weights", 1, holder, None, (), (),
                               f"not confirmed: the search found weights under which {len(found)} method(s) lead, "
                               f"but judged again at those weights (rounded to up to {MOST_DECIMALS} decimals, and "
                               "unrounded) none is first alone.", search))
        else:
            proved = sum(a.status == "impossible" for a in answers)
            whom = (f"any of the {len(searched)} best-placed of the {len(others)} other methods" if among
                    else "another method")
            out.append(Finding("weights", 1, holder, True, (), (),
                               f"no weights make {whom} win ({proved} of {len(answers)} proved impossible, "
                               f"{len(answers) - proved} not found by the search).", search))
    return out


def _entrant_findings(verdict, runs, certified, who, official, *, tracker: _Tracker) -> list[Finding]:
    rescorer = Rescorer.from_verdict(verdict, runs=runs)
    methods = rescorer.methods
    names = np.array(methods, dtype=object)
    out = []
    if len(methods) < 3:
        return [Finding("entrants", p.position, who(p.holder), None, (), (),
                        "fewer than three methods: removing one leaves no contest.", "") for p in certified]
    tracker.stage("removing each method", len(methods))
    reduced = {}
    for m in methods:  # each computed once, as irrelevant_alternatives
        reduced[m] = rescorer.without(m).scores()
        tracker.advance()
    search = f"each of the {len(methods)} methods removed in turn (Rescorer.without)"
    for place in certified:
        changed = []
        for index, removed in enumerate(methods):
            if place.holder[index]:
                continue
            keep = np.arange(len(methods)) != index
            scores = np.full(len(methods), -np.inf)
            scores[keep] = reduced[removed]
            new = place.holders_after(scores, keep=keep)
            if not (new == place.holder).all():
                changed.append((float(place.margin(np.where(keep, scores, np.nan))), removed, new, scores))
        others = int((~place.holder).sum())
        if not changed:
            rank = "first" if place.position == 1 else f"at place {place.position} among the rest"
            out.append(Finding("entrants", place.position, who(place.holder), True, (), (),
                               f"removing any one of the other {others} methods leaves {_group(who(place.holder))} "
                               f"{rank}.", search))
            continue
        changed.sort(key=lambda item: (item[0], item[1]))
        _, removed, new, scores = changed[0]
        more = f"; removing {len(changed) - 1} other method(s) changes it too" if len(changed) > 1 else ""
        out.append(Finding("entrants", place.position, who(place.holder), False, who(new), (removed,),
                           f"without {removed}, the ranks of the others change and "
                           f"{_describe_change(place, new, who, scores)} {_lead(scores, new, place, names)}{more}.", search))
    return out


# --------------------------------------------------------------------------- invariance


def _invariance(runs: pd.DataFrame, rules: Rules, judged: _Judge, official: np.ndarray, *, seed: int
                ) -> dict[str, bool]:
    methods = sorted(judged.methods)
    expected = np.round(official, _SCORE_DECIMALS)

    def same(scores: np.ndarray) -> bool:
        return bool(np.array_equal(np.round(scores, _SCORE_DECIMALS), expected)
                    and np.array_equal(_places(scores), _places(official)))

    checks = {}
    shuffled = runs.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    checks["rows shuffled"] = same(judged.scores(shuffled))
    width = len(str(len(methods)))
    renamed = {m: f"method_{len(methods) - i:0{width}d}" for i, m in enumerate(methods)}  # sort in reverse
    table = runs.assign(method=runs["method"].astype(str).map(renamed))
    verdict = judge(table, rules, methods=list(renamed.values()))
    judged.count += 1
    board = verdict.leaderboard.set_index(verdict.leaderboard["method"].astype(str))["score"]
    checks["methods renamed"] = same(board.reindex([renamed[m] for m in methods]).to_numpy(dtype=float))
    reversed_rows = runs.sort_values("method", ascending=False, kind="stable").reset_index(drop=True)
    checks["methods listed in reverse order"] = same(judged.scores(reversed_rows, methods=methods[::-1]))
    return checks


# --------------------------------------------------------------------------- text


def certificate_text(certificate: WinnerCertificate, *, variants: bool = True) -> str:
    """The certificate as plain text (``srdash explain`` prints it).

    Parameters
    ----------
    certificate : WinnerCertificate
    variants : bool
        Also print the table of winners per rules variant.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.demo.examples import accuracy_rules
    >>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "r2_test": [0.9, 0.5, 0.1]})
    >>> text = certificate_text(winner_certificate(runs, rules=accuracy_rules()), variants=False)
    >>> print(text.splitlines()[0])
    Why this winner: a (score 3), rules 'rules', 3 methods, 1 dataset, 1 run per method and dataset.
    """
    c = certificate
    runs = f"{len(c.runs)} runs" if len(c.runs) > 1 else "1 run per method and dataset"
    winner = _group(c.winner)
    lines = [f"Why this winner: {winner} (score {c.scores[c.winner[0]]:.6g}), rules '{c.rules.name}', "
             f"{len(c.methods)} methods, {len(c.datasets)} dataset{'s' if len(c.datasets) != 1 else ''}, {runs}."]
    for position, holder in c.podium:
        lines.append("")
        lines.append(f"Place {position}: {_group(holder)}")
        for finding in c.findings:
            if finding.place == position:
                lines.append("  " + finding.line())
    if variants and len(c.variants):
        lines += ["", f"Rules variants ({len(c.variants)}, each judged directly; winner per variant):"]
        width = max(len(v) for v in c.variants["variant"])
        for row in c.variants.itertuples():
            mark = "changes" if row.changes else "stays"
            lines.append(f"  {row.variant:<{width}}  {mark:<7}  {row.winner} ({row.winner_score:.4g})")
    if c.skipped_variants:
        lines.append(f"  Not judged: {'; '.join(c.skipped_variants)}.")
    checks = "; ".join(f"{name}: {'yes' if ok else 'no'}" for name, ok in c.invariance.items())
    lines += ["", f"Name- and order-invariant: {'yes' if c.invariant else 'no'} ({checks})."]
    lines.append(f"Judged again {c.rejudgings} times. Places: 1 = best; scores compared to {_SCORE_DECIMALS} "
                 "decimals.")
    return "\n".join(lines)
