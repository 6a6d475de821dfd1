"""Juries with rubrics: several jurors score each entry on several criteria; the verdict is their mean.

The SRBench 2023 real-world track (track 2) was judged this way: each member of
a jury scored each entry on a rubric (the detail of the pipeline, the
interpretability of the models, the pre- and post-analysis, the insight only
symbolic regression can give) and the final score was the plain mean over the
jurors. A rules file declares such a rubric in a ``[rubric]`` table (see
``docs/rules.md`` and the preset ``srbench2023-track2``)::

    [rubric]
    scale = [1, 5]             # lowest and highest score a juror can give
    normalisation = "none"     # or "z-score": which score ranks the entries
    disagreement = 2.0         # flag an entry when its jurors' scores differ by more

    [[rubric.criteria]]
    name = "pipeline"
    label = "Detail of the pipeline"
    weight = 1.0

Scores
------
A juror's score of an entry is the weighted mean of their criterion scores
(weights scaled to sum to 1, rounded to 9 decimals so that equal means tie); an entry a juror left incomplete (a criterion
without a score) does not count for that juror, and the summary says so.
The entry's **score** is the mean of its jurors' scores (the 2023 rule). Its
**z-score** is the mean of the jurors' *normalised* scores: each juror's
scores minus that juror's mean, divided by that juror's standard deviation
(population, over every entry the juror scored), so a severe juror and a
lenient one weigh the same. A juror whose scores are all equal has z-scores 0.
Both are shown; ``normalisation`` says which one ranks the entries.

Agreement: per dataset, Kendall's W of the jurors' orders
(:func:`srdash.judging.trust.kendalls_w`, over the jurors who scored every entry
of the dataset), and a flag on each entry whose jurors' scores differ by more
than ``disagreement`` (highest minus lowest, on the rubric's scale).

The 2022 single-expert trust ranks are the special case of one juror and one
criterion (:func:`trust_entries_as_scores`): a rank r among n models is the
score n + 1 - r, a rating is its own score, and the jury's order is the
expert's.

Examples
--------
>>> rubric = Rubric(criteria=(RubricCriterion("insight", weight=1.0),), scale=(1, 5))
>>> scores = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob"], "dataset": "d",
...                        "method": ["a", "b", "a", "b"], "criterion": "insight",
...                        "score": [5.0, 1.0, 4.0, 2.0]})
>>> summary = jury_summary(scores, rubric)
>>> summary.table[["method", "score", "score_z", "jurors", "rank"]]
  method  score  score_z  jurors  rank
0      a    4.5      1.0       2   1.0
1      b    1.5     -1.0       2   2.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from srdash.errors import RulesError
from srdash.judging.rules import Rules, load_rules
from srdash.judging.trust import kendalls_w

__all__ = [
    "NORMALISATIONS",
    "SCORE_COLUMNS",
    "RubricCriterion",
    "Rubric",
    "rubric_from_rules",
    "JurySummary",
    "jury_summary",
    "jury_table",
    "trust_entries_as_scores",
]

#: Which of the two scores ranks the entries: the plain mean, or the mean of per-juror z-scores.
NORMALISATIONS = ("none", "z-score")
#: The columns of a table of juror scores (as :meth:`srdash.judging.trust.TrustStore.jury_scores` returns).
SCORE_COLUMNS = ("judge", "dataset", "method", "criterion", "score")

_DECIMALS = 9  # a juror's weighted score is rounded to this many decimals
_RUBRIC_KEYS = {"scale", "normalisation", "disagreement", "criteria", "calibration"}
_CALIBRATION_KEYS = {"method", "expected"}
_CRITERION_KEYS = {"name", "label", "weight", "description"}


@dataclass(frozen=True)
class RubricCriterion:
    """One criterion of a rubric.

    Attributes
    ----------
    name : str
        Identifier (stored with each score).
    label : str
        Shown to the jurors (default: the name).
    weight : float
        Relative weight in a juror's score of an entry (positive).
    description : str
        What the jurors should judge.
    """

    name: str
    label: str = ""
    weight: float = 1.0
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise RulesError(f"A rubric criterion needs a non-empty 'name'. Got {self.name!r}.")
        weight = self.weight
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not (math.isfinite(weight)
                                                                                    and weight > 0):
            raise RulesError(f"rubric criterion '{self.name}': 'weight' must be a positive number. Got {weight!r}.")
        if not self.label:
            object.__setattr__(self, "label", self.name)


@dataclass(frozen=True)
class Rubric:
    """What a jury scores: criteria with weights, on one scale.

    Attributes
    ----------
    criteria : tuple of RubricCriterion
    scale : (float, float)
        The lowest and the highest score (higher = better).
    normalisation : {'none', 'z-score'}
        Which score ranks the entries: the mean of the jurors' scores, or the
        mean of their per-juror z-scores. Both are always computed and shown.
    disagreement : float
        An entry is flagged when its jurors' scores differ by more than this
        (on the scale). Default: a quarter of the scale's range.
    calibration : str, optional
        The method of a calibration entry: every juror scores it (on each
        dataset where it appears), it is left out of the verdict, and the
        summary shows how far each juror's score of it lies from the expected
        one (or from the jury's mean), i.e. who scores severely or leniently.
    calibration_expected : mapping of criterion to score, optional
        The calibration entry's expected score on each criterion.
    """

    criteria: tuple[RubricCriterion, ...]
    scale: tuple[float, float] = (1.0, 5.0)
    normalisation: str = "none"
    disagreement: float | None = None
    calibration: str | None = None
    calibration_expected: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        if not self.criteria:
            raise RulesError("A rubric needs at least one criterion.")
        names = [c.name for c in self.criteria]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise RulesError(f"The rubric names the criterion {', '.join(map(repr, repeated))} more than once.")
        scale = tuple(self.scale) if isinstance(self.scale, (list, tuple)) else ()
        if (len(scale) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                       and math.isfinite(v) for v in scale) or scale[0] >= scale[1]):
            raise RulesError(f"The rubric's 'scale' must be [lowest, highest] with lowest < highest. "
                             f"Got {self.scale!r}.")
        object.__setattr__(self, "scale", (float(scale[0]), float(scale[1])))
        if self.normalisation not in NORMALISATIONS:
            raise RulesError(f"The rubric's 'normalisation' must be one of 'none', 'z-score'. "
                             f"Got {self.normalisation!r}.")
        threshold = self.disagreement
        if threshold is None:
            threshold = (scale[1] - scale[0]) / 4
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not (
                math.isfinite(threshold) and threshold >= 0):
            raise RulesError(f"The rubric's 'disagreement' must be a number of at least 0. Got {threshold!r}.")
        object.__setattr__(self, "disagreement", float(threshold))
        if self.calibration is not None and (not isinstance(self.calibration, str) or not self.calibration.strip()):
            raise RulesError(f"The rubric's calibration 'method' must be a method's name. Got {self.calibration!r}.")
        if self.calibration_expected is not None:
            if self.calibration is None:
                raise RulesError("The rubric's calibration has expected scores but no 'method'.")
            expected = dict(self.calibration_expected)
            missing = [c.name for c in self.criteria if c.name not in expected]
            if missing or set(expected) - set(names):
                raise RulesError(f"The rubric's calibration 'expected' needs one score per criterion "
                                 f"({', '.join(names)}). Got {', '.join(map(str, expected)) or 'none'}.")
            object.__setattr__(self, "calibration_expected",
                               {k: self.check_score(k, v) for k, v in expected.items()})

    @property
    def weights(self) -> dict[str, float]:
        """Criterion -> weight, scaled to sum to 1.

        Examples
        --------
        >>> Rubric((RubricCriterion("a", weight=3), RubricCriterion("b", weight=1))).weights
        {'a': 0.75, 'b': 0.25}
        """
        total = sum(c.weight for c in self.criteria)
        return {c.name: c.weight / total for c in self.criteria}

    def check_score(self, criterion: str, score: Any) -> float:
        """``score`` as a float, after checking the criterion exists and the score is on the scale.

        Raises
        ------
        RulesError
            Unknown criterion, or a score that is not a finite number on the scale.

        Examples
        --------
        >>> rubric = Rubric((RubricCriterion("insight"),), scale=(1, 5))
        >>> rubric.check_score("insight", 4)
        4.0
        >>> rubric.check_score("insight", float("inf"))
        Traceback (most recent call last):
        ...
        srdash.errors.RulesError: A score of 'insight' must be a number from 1 to 5. Got inf.
        """
        names = [c.name for c in self.criteria]
        if criterion not in names:
            raise RulesError(f"The rubric has no criterion {criterion!r}. Criteria: {', '.join(names)}.")
        try:
            number = float(score)
        except (TypeError, ValueError):
            number = float("nan")
        low, high = self.scale
        if isinstance(score, bool) or not (math.isfinite(number) and low <= number <= high):
            raise RulesError(f"A score of {criterion!r} must be a number from {low:g} to {high:g}. Got {score!r}.")
        return number


def rubric_from_rules(rules: str | Rules) -> Rubric | None:
    """The rubric the rules declare in their ``[rubric]`` table, or None (a single trust rank).

    Raises
    ------
    RulesError
        Unknown keys, or invalid values, naming the rules.

    Examples
    --------
    >>> rubric = rubric_from_rules("srbench2023-track2")
    >>> [c.name for c in rubric.criteria], rubric.scale, rubric.normalisation
    (['pipeline', 'interpretability', 'analysis', 'insight'], (1.0, 5.0), 'none')
    >>> rubric_from_rules("srbench2022-realworld") is None
    True
    """
    rules = load_rules(rules)
    section = rules.sections.get("rubric")
    if section is None:
        return None
    where = f"rules '{rules.name}', [rubric]"
    unknown = sorted(set(section) - _RUBRIC_KEYS)
    if unknown:
        raise RulesError(f"{where}: unknown key(s) {', '.join(unknown)}. Allowed: {', '.join(sorted(_RUBRIC_KEYS))}.")
    raw_criteria = section.get("criteria", [])
    if not isinstance(raw_criteria, list) or not raw_criteria:
        raise RulesError(f"{where}: at least one [[rubric.criteria]] table is needed.")
    criteria = []
    for i, raw in enumerate(raw_criteria, start=1):
        unknown = sorted(set(raw) - _CRITERION_KEYS)
        if unknown:
            raise RulesError(f"{where}: unknown key(s) {', '.join(unknown)} in criterion #{i}. "
                             f"Allowed: {', '.join(sorted(_CRITERION_KEYS))}.")
        try:
            criteria.append(RubricCriterion(**raw))
        except (RulesError, TypeError) as exc:
            raise RulesError(f"{where}: {exc}") from exc
    options = {k: section[k] for k in ("scale", "normalisation", "disagreement") if k in section}
    calibration = section.get("calibration")
    if calibration is not None:
        if not isinstance(calibration, dict) or set(calibration) - _CALIBRATION_KEYS or "method" not in calibration:
            raise RulesError(f"{where}: 'calibration' must be a table with 'method' (the calibration entry) and "
                             f"optionally 'expected' (a score per criterion). Got {calibration!r}.")
        options["calibration"] = calibration["method"]
        if "expected" in calibration:
            options["calibration_expected"] = calibration["expected"]
    try:
        return Rubric(criteria=tuple(criteria), **options)
    except RulesError as exc:
        raise RulesError(f"{where}: {exc}") from exc


@dataclass(frozen=True, eq=False)
class JurySummary:
    """The jury's scores, combined.

    Attributes
    ----------
    table : DataFrame
        One row per (dataset, method) under review: ``score`` (mean of the
        jurors' scores; NaN when no juror completed the entry), ``score_z``
        (mean of the jurors' z-scores), ``jurors`` (how many count), ``rank``
        (1 = best within the dataset, by the rubric's normalisation; ties
        share the average; unscored entries last), ``spread`` (highest minus
        lowest juror score) and ``flagged`` (spread above the threshold).
    juror_scores : DataFrame
        ``judge``, ``dataset``, ``method``, ``score`` (weighted mean of the
        criteria) and ``z`` (normalised per juror) of every complete entry.
    agreement : DataFrame
        Per dataset: ``jurors`` (who scored every entry), ``entries`` and
        ``kendalls_w`` (NaN with fewer than two such jurors).
    flags : DataFrame
        The flagged entries: ``dataset``, ``method``, ``scores`` (e.g.
        ``"ann 4.5, bob 1"``), ``spread``, largest first.
    problems : DataFrame
        ``judge``, ``dataset``, ``method``, ``detail``: scores left out.
    rubric : Rubric
    calibration : DataFrame
        With a calibration entry: per juror and dataset, ``score`` (their
        score of it), ``reference`` (the expected score, or else the jury's
        mean of it) and ``offset`` (score minus reference: above 0, a lenient
        juror). The calibration entry is in no other table.
    """

    table: pd.DataFrame
    juror_scores: pd.DataFrame
    agreement: pd.DataFrame
    flags: pd.DataFrame
    problems: pd.DataFrame
    rubric: Rubric
    calibration: pd.DataFrame = None


def _models_frame(models, scores: pd.DataFrame) -> pd.DataFrame:
    if models is None:
        return scores[["dataset", "method"]].drop_duplicates()
    if isinstance(models, pd.DataFrame):
        return models[["dataset", "method"]].drop_duplicates()
    return pd.DataFrame([(d, m) for d, methods in models.items() for m in methods], columns=["dataset", "method"])


def _z_scores(values: pd.Series) -> pd.Series:
    spread = float(values.std(ddof=0))
    if not spread > 0:
        return pd.Series(0.0, index=values.index)
    return (values - values.mean()) / spread


def jury_summary(scores: pd.DataFrame, rubric: Rubric, models=None) -> JurySummary:
    """Combine the jurors' rubric scores into one score per entry, with their agreement.

    Parameters
    ----------
    scores : DataFrame
        Columns ``judge``, ``dataset``, ``method``, ``criterion``, ``score``
        (one row per juror, entry and criterion; missing scores as NaN), as
        :meth:`srdash.judging.trust.TrustStore.jury_scores` returns them.
        Scores are checked against the rubric where they enter the store.
    rubric : Rubric
    models : DataFrame or mapping, optional
        The entries under review (``dataset`` and ``method`` columns, or a
        mapping dataset -> methods). Default: the entries with scores.

    Returns
    -------
    JurySummary

    Examples
    --------
    One juror with two criteria weighted 3:1; entry a scores 0.75 * 4 + 0.25 * 2 = 3.5:

    >>> rubric = Rubric((RubricCriterion("x", weight=3), RubricCriterion("y", weight=1)), scale=(0, 5))
    >>> scores = pd.DataFrame({"judge": "ann", "dataset": "d", "method": ["a", "a", "b", "b"],
    ...                        "criterion": ["x", "y", "x", "y"], "score": [4.0, 2.0, 1.0, 5.0]})
    >>> jury_summary(scores, rubric).table[["method", "score", "rank"]]
      method  score  rank
    0      a    3.5   1.0
    1      b    2.0   2.0
    """
    weights = rubric.weights
    calibration_scores = scores.iloc[0:0]
    if rubric.calibration is not None:
        is_calibration = scores["method"] == rubric.calibration
        calibration_scores, scores = scores[is_calibration], scores[~is_calibration]
        if models is not None:
            models = _models_frame(models, scores)
            models = models[models["method"] != rubric.calibration]
    models = _models_frame(models, scores).sort_values(["dataset", "method"], ignore_index=True)
    under_review = {d: set(g["method"]) for d, g in models.groupby("dataset", sort=True)}
    juror_rows, problem_rows = _weighted_scores(scores, rubric, under_review)
    juror_scores = pd.DataFrame(juror_rows, columns=["judge", "dataset", "method", "score"])
    juror_scores["z"] = (juror_scores.groupby("judge")["score"].transform(_z_scores)
                         if len(juror_scores) else pd.Series(dtype=float))
    grouped = juror_scores.groupby(["dataset", "method"], sort=True)
    combined = pd.DataFrame({"score": grouped["score"].mean(), "score_z": grouped["z"].mean(),
                             "jurors": grouped.size(),
                             "spread": grouped["score"].max() - grouped["score"].min()}).reset_index()
    table = models.merge(combined, on=["dataset", "method"], how="left")
    table["jurors"] = table["jurors"].fillna(0).astype(int)
    for column in ("score", "score_z", "spread"):
        table[column] = table[column].astype(float)
    table.loc[table["jurors"] < 2, "spread"] = np.nan
    ranked_by = "score" if rubric.normalisation == "none" else "score_z"
    # higher score = better = rank 1; an entry no juror completed ranks last (the missing-value rule)
    table["rank"] = (table.groupby("dataset")[ranked_by]
                     .rank(method="average", ascending=False, na_option="bottom").astype(float))
    table["flagged"] = table["spread"] > rubric.disagreement

    agreement_rows = []
    for dataset, group in juror_scores.groupby("dataset", sort=True):
        matrix = group.pivot(index="judge", columns="method", values="score")
        entries = sorted(under_review.get(dataset, ()))
        complete = matrix.reindex(columns=entries).dropna()
        ranks = complete.rank(axis=1, ascending=False, method="average").to_numpy()
        agreement_rows.append((dataset, len(complete), len(entries), kendalls_w(ranks)))
    agreement = pd.DataFrame(agreement_rows, columns=["dataset", "jurors", "entries", "kendalls_w"])

    flag_rows = []
    by_entry = {key: group for key, group in juror_scores.groupby(["dataset", "method"], sort=False)} \
        if table["flagged"].any() else {}
    for row in table[table["flagged"]].itertuples():
        mine = by_entry[(row.dataset, row.method)]
        listed = ", ".join(f"{j} {s:g}" for j, s in zip(mine["judge"], mine["score"]))
        flag_rows.append((row.dataset, row.method, listed, float(row.spread)))
    flags = pd.DataFrame(flag_rows, columns=["dataset", "method", "scores", "spread"])
    flags = flags.sort_values(["spread", "dataset", "method"], ascending=[False, True, True], ignore_index=True)
    problems = pd.DataFrame(problem_rows, columns=["judge", "dataset", "method", "detail"])
    return JurySummary(table=table, juror_scores=juror_scores, agreement=agreement, flags=flags,
                       problems=problems, rubric=rubric, calibration=_calibration(calibration_scores, rubric))


def _weighted_scores(scores: pd.DataFrame, rubric: Rubric, under_review: dict) -> tuple[list, list]:
    """Each juror's weighted score of each entry (rows judge, dataset, method, score) and the problems
    (rows judge, dataset, method, detail), both in the order of (judge, dataset, method).

    One table of entries by criterion instead of a group per entry (60 jurors x 300 entries: 18,000 groups,
    4.9 s); the weighted sums are added in the rubric's order, as ``sum`` does, so they are the same floats.
    """
    keys = ["judge", "dataset", "method"]
    numbers = pd.to_numeric(scores["score"], errors="coerce")
    given = scores.assign(score=numbers)[numbers.notna()]
    if given.empty:
        return [], []
    # a criterion scored twice: the last row counts (as a dict of the rows would have it)
    given = given.drop_duplicates([*keys, "criterion"], keep="last")
    wide = given.set_index([*keys, "criterion"])["score"].astype(float).unstack("criterion").sort_index()
    names = [c.name for c in rubric.criteria]
    scored = wide.reindex(columns=list(dict.fromkeys([*names, *rubric.weights])))
    total = 0
    for criterion, weight in rubric.weights.items():
        total = total + weight * scored[criterion].to_numpy()
    lacking = scored[names].isna().to_numpy()
    juror_rows, problem_rows = [], []
    for (judge, dataset, method), weighted, missing in zip(wide.index, np.broadcast_to(total, len(wide)), lacking):
        if method not in under_review.get(dataset, ()):
            problem_rows.append((judge, dataset, method, "not under review; scores ignored"))
        elif missing.any():
            left_out = ", ".join(name for name, gone in zip(names, missing) if gone)
            problem_rows.append((judge, dataset, method, f"left out: no score for {left_out}"))
        else:
            # rounded so that equal weighted means tie exactly ((2*4 + 1)/3 and (2*2 + 5)/3 differ in the 16th
            # digit); Python's round (correctly rounded), not numpy's
            juror_rows.append((judge, dataset, method, round(float(weighted), _DECIMALS)))
    return juror_rows, problem_rows


def _calibration(scores: pd.DataFrame, rubric: Rubric) -> pd.DataFrame:
    """Each juror's score of the calibration entry against the expected one (or the jury's mean)."""
    columns = ["judge", "dataset", "score", "reference", "offset"]
    weights = rubric.weights
    rows = []
    given = scores[pd.to_numeric(scores["score"], errors="coerce").notna()]
    for (judge, dataset), group in given.groupby(["judge", "dataset"], sort=True):
        values = dict(zip(group["criterion"], group["score"].astype(float)))
        if all(c in values for c in weights):
            rows.append((judge, dataset, round(sum(weights[c] * values[c] for c in weights), _DECIMALS)))
    table = pd.DataFrame(rows, columns=columns[:3])
    if rubric.calibration_expected is not None:
        expected = round(sum(weights[c] * v for c, v in rubric.calibration_expected.items()), _DECIMALS)
        table["reference"] = expected
    else:
        table["reference"] = table.groupby("dataset")["score"].transform("mean") if len(table) else []
    table["offset"] = table["score"] - table["reference"]
    return table.astype({"score": float, "reference": float, "offset": float})[columns]


def jury_table(entries: pd.DataFrame, summary: JurySummary) -> pd.DataFrame:
    """``entries`` (one row per dataset and method) with the jury's ``jury_score`` (the score ranking
    the entries: the plain mean, or the mean z-score) and ``jury_rank`` (1 = best).

    The ``jury_score`` column feeds a rules criterion (direction ``higher``),
    as in the preset ``srbench2023-track2``.

    Examples
    --------
    >>> rubric = Rubric((RubricCriterion("insight"),), scale=(1, 5))
    >>> scores = pd.DataFrame({"judge": "ann", "dataset": "d", "method": ["a", "b"],
    ...                        "criterion": "insight", "score": [2.0, 4.0]})
    >>> entries = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0})
    >>> jury_table(entries, jury_summary(scores, rubric))
      method dataset  run  jury_score  jury_rank
    0      a       d    0         2.0        2.0
    1      b       d    0         4.0        1.0
    """
    column = "score" if summary.rubric.normalisation == "none" else "score_z"
    verdict = summary.table[["dataset", "method", column, "rank"]].rename(
        columns={column: "jury_score", "rank": "jury_rank"})
    table = entries.drop(columns=[c for c in ("jury_score", "jury_rank") if c in entries.columns])
    return table.merge(verdict, on=["dataset", "method"], how="left")


def trust_entries_as_scores(entries: pd.DataFrame, *, criterion: str = "trust",
                            models: Mapping[str, int] | None = None) -> pd.DataFrame:
    """The 2022 trust entries (ranks or ratings) as the scores of a one-criterion rubric.

    A rating is its own score (higher = more trust); a rank r among the n
    models of its judge's dataset becomes n + 1 - r, so the most trusted model
    scores highest. With the rubric ``Rubric((RubricCriterion("trust"),),
    scale=(1, n))`` one expert's jury order is their trust order.

    Parameters
    ----------
    entries : DataFrame
        As :meth:`srdash.judging.trust.TrustStore.entries` returns them.
    criterion : str
        The rubric criterion the values become.
    models : mapping of dataset to number of models, optional
        n per dataset (default: the number of entries of each judge on it).

    Examples
    --------
    >>> entries = pd.DataFrame({"judge": "ann", "dataset": "d", "method": ["a", "b", "c"],
    ...                         "kind": "rank", "value": [2.0, 1.0, 3.0]})
    >>> trust_entries_as_scores(entries)["score"].tolist()
    [2.0, 3.0, 1.0]
    """
    given = entries[entries["value"].notna()]
    counts = given.groupby(["judge", "dataset"])["method"].transform("size")
    n = given["dataset"].map(models) if models is not None else counts
    score = np.where(given["kind"] == "rank", n + 1 - given["value"], given["value"])
    return pd.DataFrame({"judge": given["judge"].to_numpy(), "dataset": given["dataset"].to_numpy(),
                         "method": given["method"].to_numpy(), "criterion": criterion,
                         "score": score.astype(float)})
