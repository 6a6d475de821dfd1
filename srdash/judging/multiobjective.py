"""Normalised, weighted meta-score rules (``kind = "normalised-weighted"``, EvalRS 2022 style).

A competition of this kind judges *submissions*: one row per submission of a
team, with one column per metric. The procedure:

1. **stage 1**: each submission's score is the plain mean of its metrics
   (a metric declared ``direction = "lower"`` enters negated, so that higher is
   always better);
2. each team's **best stage-1 submission** is selected (equal scores: the
   earliest ``submitted_at``, then the first in the input);
3. **thresholds** are checked on the selected submission: a failing team gets a
   fixed stage-2 score (EvalRS: ``hit_rate < 0.015`` gives -100) or is excluded;
4. every metric is **min-max normalised**, ``(value - baseline) / (best - baseline)``,
   with a baseline and a best value that are fixed constants or computed from the
   teams' selected submissions;
5. the normalised metrics are averaged into **meta-scores** (one per group; a
   criterion's ``weight`` is its weight inside the group, 1 = plain mean);
6. **stage 2** = ``sum(w_g * meta_g) / sum(w_g)``, the weighted mean of the
   meta-scores with the groups' weights. Higher is better; place 1 is the best.

The rules file declares it with tables read from :attr:`Rules.sections`
(``[submissions]``, ``[stage1]``, ``[normalisation]``, ``[baseline]``, ``[best]``,
``[thresholds.<metric>]``, ``[groups.<name>]``); ``srdash rules evalrs2022``
prints a complete, commented example.

Missing values: a submission with a missing metric value is not eligible (it has
no stage-1 score and is listed in ``problems``); a team without an eligible
submission is left out of the leaderboard and listed in ``problems`` too.

Examples
--------
>>> import pandas as pd
>>> from srdash.judging.rules import parse_rules
>>> rules = parse_rules('''
... kind = "normalised-weighted"
... [submissions]
... team = "team"
... [baseline]
... acc = 0.0
... fair = -1.0
... [best]
... acc = 1.0
... fair = 0.0
... [groups.performance]
... metrics = ["acc"]
... weight = 1.0
... [groups.fairness]
... metrics = ["fair"]
... weight = 3.0
... [[criteria]]
... name = "acc"
... column = "acc"
... [[criteria]]
... name = "fair"
... column = "fair"
... ''')
>>> submissions = pd.DataFrame({"team": ["a", "a", "b"], "acc": [0.2, 0.8, 0.6],
...                             "fair": [0.0, -0.4, -0.2]})
>>> verdict = judge_submissions(submissions, rules)
>>> verdict.leaderboard[["place", "team", "stage1", "stage2", "performance", "fairness"]].round(6)
   place team  stage1  stage2  performance  fairness
0      1    b     0.2    0.75          0.6       0.8
1      2    a     0.2    0.65          0.8       0.6

Team ``a``'s stage-1 scores are (0.2 + 0.0) / 2 = 0.1 and (0.8 - 0.4) / 2 = 0.2, so
its second submission is selected; normalised, acc = (0.8 - 0) / (1 - 0) = 0.8 and
fair = (-0.4 + 1) / (0 + 1) = 0.6, so stage 2 = (1 * 0.8 + 3 * 0.6) / 4 = 0.65.

>>> verdict.submissions[["team", "stage1", "selected"]].round(6)
  team  stage1  selected
0    a     0.1     False
1    a     0.2      True
2    b     0.2      True
"""

from __future__ import annotations

import io
import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np
import pandas as pd

from srdash.errors import Problem, RulesError, SrdashError, ValidationError
from srdash.io.files import FileRefused, expanded_bytes, read_file_bytes, read_parquet_bytes
from srdash.judging.ranking import place_from_scores, versions
from srdash.judging.rules import Criterion, Rules, load_rules

__all__ = [
    "MetricGroup",
    "Threshold",
    "Scheme",
    "Submissions",
    "MultiObjectiveVerdict",
    "scheme_from_rules",
    "load_submissions",
    "judge_submissions",
]

KIND = "normalised-weighted"
_SECTION_KEYS = {
    "submissions": {"team", "submitted_at"},
    "stage1": {"aggregation", "select"},
    "normalisation": {"baseline", "best"},
    "thresholds": None,  # one table per metric, checked below
    "groups": None,  # one table per group, checked below
    "baseline": None,  # metric -> number
    "best": None,
    "ranking": {"run_aggregation", "rank_method"},  # accepted (rules.py reads it), unused here
}
_TOP_KEYS = {"name", "title", "description", "kind", "competition_sympy_version", "criteria"} | set(_SECTION_KEYS)
_GROUP_KEYS = {"metrics", "weight", "label", "description"}
_THRESHOLD_KEYS = {"minimum", "maximum", "action", "score"}
_REFERENCE_CHOICES = {
    "baseline": ("constants", "worst-of-teams", "team:<name>"),
    "best": ("constants", "best-of-teams", "team:<name>"),
}
_TEAM_ALIASES = ("team", "participant_id", "method")
_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}
# At most this many bad cells are listed per column; the rest are counted.
_MAX_CELL_PROBLEMS = 10


@dataclass(frozen=True)
class MetricGroup:
    """A group of metrics averaged into one meta-score.

    Attributes
    ----------
    name : str
        Column name of the meta-score in the leaderboard.
    label : str
    metrics : tuple of str
        Criterion names.
    weight : float
        The meta-score's weight in the stage-2 weighted mean (>= 0).
    description : str
    """

    name: str
    label: str
    metrics: tuple[str, ...]
    weight: float
    description: str = ""


@dataclass(frozen=True)
class Threshold:
    """A filter checked on each team's selected submission.

    A value below ``minimum`` (or above ``maximum``) fails. ``action`` is
    ``'score'`` (the team's stage-2 score becomes ``score``) or ``'exclude'``
    (the team is left out of the leaderboard).
    """

    metric: str
    minimum: float | None
    maximum: float | None
    action: str
    score: float | None

    def fails(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask of the values failing the threshold."""
        values = np.asarray(values, dtype=float)
        failed = np.zeros(values.shape, dtype=bool)
        if self.minimum is not None:
            failed |= values < self.minimum
        if self.maximum is not None:
            failed |= values > self.maximum
        return failed

    def describe(self) -> str:
        """One line saying what failing means."""
        parts = []
        if self.minimum is not None:
            parts.append(f"{self.metric} < {self.minimum:g}")
        if self.maximum is not None:
            parts.append(f"{self.metric} > {self.maximum:g}")
        consequence = f"score {self.score:g}" if self.action == "score" else "excluded"
        return f"{' or '.join(parts)}: {consequence}"


@dataclass(frozen=True)
class Scheme:
    """The options of normalised-weighted rules, validated (see :func:`scheme_from_rules`).

    Attributes
    ----------
    team_column : str
    time_column : str or None
    metrics : tuple of Criterion
    groups : tuple of MetricGroup
    baseline_from, best_from : str
        ``'constants'``, ``'worst-of-teams'`` / ``'best-of-teams'`` or ``'team:<name>'``.
    baseline, best : Mapping of str to float
        The constants (empty when computed).
    thresholds : tuple of Threshold
    """

    team_column: str
    time_column: str | None
    metrics: tuple[Criterion, ...]
    groups: tuple[MetricGroup, ...]
    baseline_from: str
    best_from: str
    baseline: Mapping[str, float]
    best: Mapping[str, float]
    thresholds: tuple[Threshold, ...]

    @property
    def weights(self) -> dict[str, float]:
        """Group name -> weight."""
        return {g.name: g.weight for g in self.groups}


@dataclass(frozen=True, eq=False)
class Submissions:
    """Validated submissions: ``table`` has ``team``, ``submission`` (1-based input
    row), ``submitted_at`` (when known) and one float column per metric column."""

    table: pd.DataFrame
    sources: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class MultiObjectiveVerdict:
    """The outcome of judging submissions under normalised-weighted rules.

    Attributes
    ----------
    leaderboard : DataFrame
        One row per team, best first: ``place`` (1 = best; equal stage-2 scores
        share the smallest place), ``team``, ``stage1`` (the team's best stage-1
        score), ``stage2`` (higher is better), one column per meta-score (named
        after its group), ``stage1_place``, ``status`` (``'ok'`` or the failed
        threshold), ``submissions`` (how many the team made) and ``submission``
        (input row of the selected one).
    submissions : DataFrame
        Every submission: ``submission``, ``team``, ``stage1`` (NaN when not
        eligible), ``eligible``, ``selected`` and the metric columns.
    normalised : DataFrame
        ``team`` and each metric of the selected submission, normalised.
    problems : DataFrame
        ``kind``, ``team``, ``submission``, ``detail``.
    scheme : Scheme
    baseline, best : Mapping of str to float
        The normalisation constants actually used (computed ones included).
    weights : Mapping of str to float
        The meta-score weights used.
    warnings : tuple of str
    rules : Rules
    provenance : Mapping
    """

    leaderboard: pd.DataFrame
    submissions: pd.DataFrame
    normalised: pd.DataFrame
    problems: pd.DataFrame
    scheme: Scheme
    baseline: Mapping[str, float]
    best: Mapping[str, float]
    weights: Mapping[str, float]
    warnings: tuple[str, ...]
    rules: Rules
    provenance: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def winner(self) -> str:
        """The team in first place (ties: alphabetical first)."""
        return str(self.leaderboard["team"].iloc[0])

    @property
    def meta_scores(self) -> tuple[str, ...]:
        """Names of the meta-score columns, in the rules' order."""
        return tuple(g.name for g in self.scheme.groups)

    def with_provenance(self, **entries: str) -> "MultiObjectiveVerdict":
        """A copy with more provenance entries."""
        merged = dict(self.provenance)
        merged.update(entries)
        return replace(self, provenance=MappingProxyType(merged))


# --------------------------------------------------------------------------- rules


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_reference(option: str, value: Any, problems: list[str]) -> None:
    allowed = _REFERENCE_CHOICES[option]
    if not isinstance(value, str) or not (value in allowed[:2] or (value.startswith("team:") and len(value) > 5)):
        listed = ", ".join(f"'{a}'" for a in allowed)
        problems.append(f"[normalisation] '{option}' must be one of {listed}. Got {value!r}.")


def _constants(section: str, raw: Any, metric_names: list[str], problems: list[str]) -> dict[str, float]:
    if not isinstance(raw, Mapping):
        problems.append(f"[{section}] is needed (a number per metric) when [normalisation] {section} = 'constants'.")
        return {}
    unknown = sorted(set(raw) - set(metric_names))
    if unknown:
        problems.append(f"[{section}] names unknown metric(s) {', '.join(unknown)}. Metrics: {', '.join(metric_names)}.")
    missing = [m for m in metric_names if m not in raw]
    if missing:
        problems.append(f"[{section}] has no value for {', '.join(missing)}; every grouped metric needs one.")
    bad = [f"{k} = {v!r}" for k, v in raw.items() if k in metric_names and not _number(v)]
    if bad:
        problems.append(f"[{section}] values must be finite numbers. Got {', '.join(bad)}.")
    return {m: float(raw[m]) for m in metric_names if m in raw and _number(raw[m])}


def scheme_from_rules(rules: Rules | str) -> Scheme:
    """Read and check the options of normalised-weighted rules.

    Every problem is reported at once in one :class:`~srdash.errors.RulesError`.

    Parameters
    ----------
    rules : Rules or str
        Rules of kind ``normalised-weighted`` (or a preset name / path).

    Returns
    -------
    Scheme

    Examples
    --------
    >>> scheme = scheme_from_rules("evalrs2022")
    >>> [(g.name, g.weight, len(g.metrics)) for g in scheme.groups]
    [('performance', 1.0, 2), ('fairness', 1.5, 5), ('behavioural', 1.5, 2)]
    >>> scheme.thresholds[0].describe()
    'hit_rate < 0.015: score -100'
    >>> scheme_from_rules("srbench2022")
    Traceback (most recent call last):
    ...
    srdash.errors.RulesError: The rules 'srbench2022' are of kind 'rank-harmonic'; normalised-weighted scoring needs rules with kind = "normalised-weighted" (e.g. the preset evalrs2022).
    """
    rules = load_rules(rules)
    if not rules.rule_kind.judges_submissions:
        raise RulesError(f"The rules '{rules.name}' are of kind '{rules.kind}'; normalised-weighted scoring needs "
                         f'rules with kind = "{KIND}" (e.g. the preset evalrs2022).')
    problems: list[str] = []
    if rules.text:
        top = tomllib.loads(rules.text)
        unknown = sorted(set(top) - _TOP_KEYS)
        if unknown:
            problems.append(f"unknown top-level key(s) {', '.join(unknown)}. Allowed: {', '.join(sorted(_TOP_KEYS))}.")
    sections = dict(rules.sections)
    for name, allowed in _SECTION_KEYS.items():
        if allowed is not None and name in sections:
            unknown = sorted(set(sections[name]) - allowed)
            if unknown:
                problems.append(f"[{name}] has unknown key(s) {', '.join(unknown)}. Allowed: {', '.join(sorted(allowed))}.")
    metric_names = [c.name for c in rules.criteria]

    submissions = sections.get("submissions", {})
    team_column = submissions.get("team", "team")
    time_column = submissions.get("submitted_at")
    stage1 = sections.get("stage1", {})
    if stage1.get("aggregation", "mean") != "mean":
        problems.append(f"[stage1] 'aggregation' must be 'mean'. Got {stage1['aggregation']!r}.")
    if stage1.get("select", "best") != "best":
        problems.append(f"[stage1] 'select' must be 'best'. Got {stage1['select']!r}.")

    groups = []
    raw_groups = sections.get("groups", {})
    if not raw_groups:
        problems.append("at least one [groups.<name>] table is needed (metrics = [...], weight = ...).")
    seen: dict[str, str] = {}
    for name, raw in raw_groups.items():
        if not isinstance(raw, Mapping):
            problems.append(f"[groups.{name}] must be a table with 'metrics' and 'weight'.")
            continue
        unknown = sorted(set(raw) - _GROUP_KEYS)
        if unknown:
            problems.append(f"[groups.{name}] has unknown key(s) {', '.join(unknown)}. "
                            f"Allowed: {', '.join(sorted(_GROUP_KEYS))}.")
        metrics = raw.get("metrics")
        if not isinstance(metrics, list) or not metrics or not all(isinstance(m, str) for m in metrics):
            problems.append(f"[groups.{name}] needs 'metrics', a non-empty list of criterion names.")
            metrics = []
        strangers = [m for m in metrics if m not in metric_names]
        if strangers:
            problems.append(f"[groups.{name}] names unknown metric(s) {', '.join(strangers)}. "
                            f"Criteria: {', '.join(metric_names)}.")
        for m in metrics:
            if m in seen:
                problems.append(f"metric '{m}' is in two groups ({seen[m]} and {name}); a metric belongs to one group.")
            seen[m] = name
        weight = raw.get("weight", 1.0)
        if not _number(weight) or weight < 0:
            problems.append(f"[groups.{name}] 'weight' must be a number >= 0. Got {weight!r}.")
            weight = 0.0
        groups.append(MetricGroup(name=name, label=str(raw.get("label", name)), metrics=tuple(metrics),
                                  weight=float(weight), description=str(raw.get("description", ""))))
    inside = {c.name: c.weight for c in rules.criteria}
    for g in groups:
        if g.metrics and all(inside.get(m, 1.0) == 0 for m in g.metrics):
            problems.append(f"[groups.{g.name}]: every metric of the group has weight 0; its mean is undefined.")
    if groups and sum(g.weight for g in groups) <= 0:
        problems.append("at least one group needs a weight > 0.")
    grouped = [m for g in groups for m in g.metrics if m in metric_names]

    normalisation = sections.get("normalisation", {})
    baseline_from = normalisation.get("baseline", "constants")
    best_from = normalisation.get("best", "constants")
    _check_reference("baseline", baseline_from, problems)
    _check_reference("best", best_from, problems)
    baseline = _constants("baseline", sections.get("baseline"), grouped, problems) if baseline_from == "constants" else {}
    best = _constants("best", sections.get("best"), grouped, problems) if best_from == "constants" else {}
    equal = [m for m in grouped if m in baseline and m in best and baseline[m] == best[m]]
    if equal:
        problems.append(f"baseline and best are equal for {', '.join(equal)}; min-max normalisation would divide by 0.")

    thresholds = []
    for metric, raw in sections.get("thresholds", {}).items():
        where = f"[thresholds.{metric}]"
        if metric not in metric_names:
            problems.append(f"{where}: unknown metric '{metric}'. Criteria: {', '.join(metric_names)}.")
        if not isinstance(raw, Mapping):
            problems.append(f"{where} must be a table with 'minimum' and/or 'maximum' and 'action'.")
            continue
        unknown = sorted(set(raw) - _THRESHOLD_KEYS)
        if unknown:
            problems.append(f"{where} has unknown key(s) {', '.join(unknown)}. Allowed: {', '.join(sorted(_THRESHOLD_KEYS))}.")
        bounds = {k: raw.get(k) for k in ("minimum", "maximum")}
        if all(v is None for v in bounds.values()):
            problems.append(f"{where} needs 'minimum' and/or 'maximum'.")
        for k, v in bounds.items():
            if v is not None and not _number(v):
                problems.append(f"{where} '{k}' must be a number. Got {v!r}.")
        action = raw.get("action", "score")
        if action not in ("score", "exclude"):
            problems.append(f"{where} 'action' must be one of 'score', 'exclude'. Got {action!r}.")
        score = raw.get("score")
        if action == "score" and not _number(score):
            problems.append(f"{where} with action = 'score' needs 'score', the fixed stage-2 score (a number). "
                            f"Got {score!r}.")
        thresholds.append(Threshold(
            metric=metric,
            minimum=float(bounds["minimum"]) if _number(bounds["minimum"]) else None,
            maximum=float(bounds["maximum"]) if _number(bounds["maximum"]) else None,
            action=action, score=float(score) if _number(score) else None))

    if problems:
        listed = "\n".join(f"  - {p}" for p in problems)
        raise RulesError(f"The rules '{rules.name}' ({rules.source or 'text'}) are not valid "
                         f"({len(problems)} problem{'s' if len(problems) != 1 else ''}):\n{listed}")
    return Scheme(
        team_column=str(team_column),
        time_column=str(time_column) if time_column else None,
        metrics=rules.criteria,
        groups=tuple(groups),
        baseline_from=baseline_from,
        best_from=best_from,
        baseline=MappingProxyType(baseline),
        best=MappingProxyType(best),
        thresholds=tuple(thresholds),
    )


# --------------------------------------------------------------------------- loading


def _read_table(source) -> tuple[pd.DataFrame, str, tuple[str, ...]]:
    if isinstance(source, pd.DataFrame):
        return source, "<DataFrame>", ()
    path = Path(source)
    if not path.exists() and not path.is_symlink():
        raise SrdashError(f"Cannot find the submissions file '{path}'.")
    kind = next((k for s, k in _SUFFIXES.items() if path.name.lower().endswith(s)), None)
    if kind is None and any(path.name.lower().endswith(s + z) for s in (".csv", ".tsv") for z in (".gz", ".bz2", ".zip", ".xz")):
        kind = "tsv" if ".tsv" in path.name.lower() else "csv"
    if kind is None:
        raise SrdashError(f"Cannot read '{path}': submissions come as a .csv, .tsv or .parquet file.")
    try:  # a regular file of bounded size, never a FIFO or device (srdash.io.files)
        data = io.BytesIO(read_file_bytes(path))
    except FileRefused as exc:
        raise SrdashError(f"Cannot read the submissions file '{path}': {exc.reason}") from None
    try:
        if kind == "parquet":
            frame = read_parquet_bytes(data.getvalue(), path=path)
        else:
            frame = pd.read_csv(io.BytesIO(expanded_bytes(data.getvalue(), path=path)),
                                sep="\t" if kind == "tsv" else ",", dtype=str, keep_default_na=False)
    except FileRefused as exc:
        raise SrdashError(f"Cannot read the submissions file '{path}': {exc.reason}") from None
    except Exception as exc:  # the readers raise many types; all mean "unreadable"
        raise SrdashError(f"Cannot read the submissions file '{path}': {exc}") from exc
    return frame, str(path), (str(path),)


def load_submissions(source, rules: Rules | str) -> Submissions:
    """Read submissions and validate them against the rules, reporting every problem at once.

    Parameters
    ----------
    source : path or DataFrame
        A CSV/TSV/Parquet file or a DataFrame (not modified) with one row per
        submission: the team column (the rules' ``[submissions] team``; ``team``,
        ``participant_id`` or ``method`` are accepted when it is absent), one
        column per metric and optionally the ``submitted_at`` column.
    rules : Rules or str

    Returns
    -------
    Submissions

    Raises
    ------
    ValidationError
        Listing each missing column (with the columns present), each empty team
        name and each metric cell that is not a number (with its row).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"participant_id": ["t1", ""], "hit_rate": [0.1, "high"]})
    >>> try:
    ...     load_submissions(frame, "evalrs2022")
    ... except ValidationError as error:
    ...     print(error)
    The submissions in <DataFrame> are not valid (3 problems):
      - <DataFrame>: metric column(s) 'mrr', 'mred_country', 'mred_track_popularity', 'mred_user_activity', 'mred_artist_popularity', 'mred_gender', 'being_less_wrong', 'latent_diversity' missing. Columns: participant_id, hit_rate.
      - <DataFrame>, row 2, column 'participant_id': the team name is empty.
      - <DataFrame>, row 2, column 'hit_rate': 'high' is not a number; a metric column holds numbers (empty means missing).
    """
    scheme = scheme_from_rules(rules)
    frame, name, sources = _read_table(source)
    problems: list[Problem] = []
    columns = [str(c) for c in frame.columns]
    team_column = scheme.team_column
    if team_column not in columns:
        team_column = next((a for a in _TEAM_ALIASES if a in columns), None)
        if team_column is None:
            problems.append(Problem(name, None, scheme.team_column,
                                    f"the team column '{scheme.team_column}' is missing (also accepted: "
                                    f"{', '.join(_TEAM_ALIASES)}). Columns: {', '.join(columns)}."))
    missing = [c.column for c in scheme.metrics if c.column not in columns]
    if missing:
        listed = ", ".join(f"'{c}'" for c in missing)
        problems.append(Problem(name, None, None,
                                f"metric column(s) {listed} missing. Columns: {', '.join(columns)}."))
    table = pd.DataFrame({"submission": np.arange(1, len(frame) + 1)})
    if team_column is not None:
        teams = frame[team_column].astype("string").str.strip()
        for row in np.flatnonzero((teams.isna() | (teams == "")).to_numpy()):
            problems.append(Problem(name, int(row) + 1, team_column, "the team name is empty."))
        table["team"] = teams.fillna("").astype(str).to_numpy()
    for criterion in scheme.metrics:
        if criterion.column in missing:
            continue
        raw = frame[criterion.column]
        values = pd.to_numeric(raw, errors="coerce")
        text = raw.astype("string").str.strip().str.lower()
        blank = raw.isna() | text.isin(["", "nan", "na", "n/a", "null", "none"])
        bad = np.flatnonzero((values.isna() & ~blank).to_numpy())
        for row in bad[:_MAX_CELL_PROBLEMS]:
            problems.append(Problem(name, int(row) + 1, criterion.column,
                                    f"{raw.iloc[row]!r} is not a number; a metric column holds numbers "
                                    "(empty means missing)."))
        if len(bad) > _MAX_CELL_PROBLEMS:
            problems.append(Problem(name, None, criterion.column,
                                    f"{len(bad) - _MAX_CELL_PROBLEMS} more cells are not numbers."))
        table[criterion.column] = values.astype(float).to_numpy()
    if scheme.time_column and scheme.time_column in columns:
        times = pd.to_datetime(frame[scheme.time_column], errors="coerce")
        for row in np.flatnonzero((times.isna() & frame[scheme.time_column].notna()).to_numpy())[:_MAX_CELL_PROBLEMS]:
            problems.append(Problem(name, int(row) + 1, scheme.time_column,
                                    f"{frame[scheme.time_column].iloc[row]!r} is not a date and time."))
        table["submitted_at"] = times.to_numpy()
    if problems:
        raise ValidationError(problems, header=f"The submissions in {name} are not valid")
    return Submissions(table=table, sources=sources)


# --------------------------------------------------------------------------- judging


def _oriented(values: np.ndarray, metrics) -> np.ndarray:
    signs = np.array([1.0 if c.direction == "higher" else -1.0 for c in metrics])
    return values * signs


def _select_best(table: pd.DataFrame, stage1: np.ndarray) -> np.ndarray:
    """Row positions of each team's best eligible submission (ties: earliest, then first)."""
    order = pd.DataFrame({"team": table["team"].to_numpy(), "score": stage1,
                          "time": table["submitted_at"].to_numpy() if "submitted_at" in table else 0,
                          "position": np.arange(len(table))})
    order = order[np.isfinite(order["score"])]
    order = order.sort_values(["team", "score", "time", "position"], ascending=[True, False, True, True],
                              kind="stable", na_position="last")
    return order.drop_duplicates("team")["position"].to_numpy()


def _reference(option: str, how: str, constants: Mapping[str, float], metrics, selected: pd.DataFrame,
               teams: np.ndarray) -> dict[str, float]:
    if how == "constants":
        return {c.name: constants[c.name] for c in metrics}
    if how.startswith("team:"):
        team = how[len("team:"):]
        rows = np.flatnonzero(teams == team)
        if not len(rows):
            raise SrdashError(f"The rules take the {option} from team '{team}', which has no eligible submission.")
        return {c.name: float(selected[c.column].iloc[rows[0]]) for c in metrics}
    want_best = how == "best-of-teams"
    out = {}
    for c in metrics:
        values = selected[c.column]
        higher_best = c.direction == "higher"
        out[c.name] = float(values.max() if want_best == higher_best else values.min())
    return out


def _check_weights_mapping(weights: Mapping[str, float], scheme: Scheme) -> dict[str, float]:
    known = [g.name for g in scheme.groups]
    unknown = sorted(set(weights) - set(known))
    if unknown:
        raise RulesError(f"Unknown meta-score in weights: {', '.join(unknown)}. Meta-scores: {', '.join(known)}.")
    merged = {g.name: float(weights.get(g.name, g.weight)) for g in scheme.groups}
    bad = [f"{k} = {v!r}" for k, v in merged.items() if not (math.isfinite(v) and v >= 0)]
    if bad:
        raise RulesError(f"Meta-score weights must be finite numbers >= 0. Got {', '.join(bad)}.")
    if sum(merged.values()) <= 0:
        raise RulesError("At least one meta-score weight must be > 0.")
    return merged


def judge_submissions(source, rules: Rules | str = "evalrs2022", *,
                      weights: Mapping[str, float] | None = None) -> MultiObjectiveVerdict:
    """Judge submissions under normalised-weighted rules (stage 1 and stage 2).

    Parameters
    ----------
    source : path, DataFrame or Submissions
        Submissions (validated with :func:`load_submissions` unless already a
        :class:`Submissions`).
    rules : Rules or str
        Rules of kind ``normalised-weighted``.
    weights : mapping of group name to weight, optional
        Override the meta-score weights (groups not named keep theirs).

    Returns
    -------
    MultiObjectiveVerdict

    Raises
    ------
    RulesError
        Invalid rules or weights.
    SrdashError
        When no team has an eligible submission, or a computed normalisation
        has best == baseline.

    Examples
    --------
    Scaling every weight changes nothing:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"participant_id": ["a", "b"], "hit_rate": [0.02, 0.2], "mrr": [0.002, 0.05],
    ...     "mred_country": -0.005, "mred_track_popularity": -0.006, "mred_user_activity": -0.01,
    ...     "mred_artist_popularity": -0.0037, "mred_gender": -0.001, "being_less_wrong": 0.3,
    ...     "latent_diversity": -0.3})
    >>> v1 = judge_submissions(frame, "evalrs2022")
    >>> v2 = judge_submissions(frame, "evalrs2022", weights={"performance": 2, "fairness": 3, "behavioural": 3})
    >>> v1.leaderboard["stage2"].round(6).tolist() == v2.leaderboard["stage2"].round(6).tolist()
    True
    """
    rules = load_rules(rules)
    scheme = scheme_from_rules(rules)
    submissions = source if isinstance(source, Submissions) else load_submissions(source, rules)
    group_weights = _check_weights_mapping(weights or {}, scheme)
    table = submissions.table
    metrics = scheme.metrics
    columns = [c.column for c in metrics]
    values = table[columns].to_numpy(dtype=float)
    eligible = np.isfinite(values).all(axis=1)
    stage1 = np.where(eligible, _oriented(values, metrics).mean(axis=1), np.nan)
    chosen = _select_best(table, stage1)

    problems = []
    for position in np.flatnonzero(~eligible):
        absent = [c for c, v in zip(columns, values[position]) if not np.isfinite(v)]
        problems.append({"kind": "missing value", "team": table["team"].iloc[position],
                         "submission": int(table["submission"].iloc[position]),
                         "detail": f"no value for {', '.join(absent)}; the submission is not eligible"})
    all_teams = sorted(set(table["team"]))
    chosen_teams = set(table["team"].iloc[chosen])
    for team in all_teams:
        if team not in chosen_teams:
            problems.append({"kind": "no eligible submission", "team": team, "submission": None,
                             "detail": "every submission of the team misses a metric value; left out of the leaderboard"})
    if not len(chosen):
        raise SrdashError("No team has an eligible submission (one with every metric value); nothing to judge.")

    selected = table.assign(stage1=stage1).iloc[chosen].sort_values("team", kind="stable").reset_index(drop=True)
    teams = selected["team"].to_numpy()
    grouped_metrics = [c for c in metrics if any(c.name in g.metrics for g in scheme.groups)]
    baseline = _reference("baseline", scheme.baseline_from, scheme.baseline, grouped_metrics, selected, teams)
    best = _reference("best", scheme.best_from, scheme.best, grouped_metrics, selected, teams)
    flat = [c.name for c in grouped_metrics if best[c.name] == baseline[c.name]]
    if flat:
        raise SrdashError(f"The computed best and baseline are equal for {', '.join(flat)}; min-max normalisation "
                          "is undefined. Give constants in the rules instead.")
    normalised = pd.DataFrame({"team": teams})
    for c in grouped_metrics:
        normalised[c.name] = (selected[c.column].to_numpy() - baseline[c.name]) / (best[c.name] - baseline[c.name])
    meta = np.column_stack([
        np.average(normalised[list(g.metrics)].to_numpy(), axis=1,
                   weights=[rules.criterion(m).weight for m in g.metrics])
        for g in scheme.groups])
    w = np.array([group_weights[g.name] for g in scheme.groups])
    stage2 = meta @ w / w.sum()

    status = np.array(["ok"] * len(teams), dtype=object)
    keep = np.ones(len(teams), dtype=bool)
    for threshold in scheme.thresholds:
        column = rules.criterion(threshold.metric).column
        failed = threshold.fails(selected[column].to_numpy()) & (status == "ok")
        status[failed] = threshold.describe()
        if threshold.action == "score":
            stage2 = np.where(failed, threshold.score, stage2)
        else:
            keep &= ~failed
            for team in teams[failed]:
                problems.append({"kind": "excluded", "team": team, "submission": None,
                                 "detail": f"{threshold.describe()}: left out of the leaderboard"})
    if not keep.any():
        raise SrdashError("Every team is excluded by the rules' thresholds; nothing to rank.")

    counts = table["team"].value_counts()
    leaderboard = pd.DataFrame({"team": teams, "stage1": selected["stage1"].to_numpy(), "stage2": stage2})
    for i, g in enumerate(scheme.groups):
        leaderboard[g.name] = meta[:, i]
    leaderboard["status"] = status
    leaderboard["submissions"] = counts.reindex(teams).to_numpy().astype(int)
    leaderboard["submission"] = selected["submission"].to_numpy()
    leaderboard = leaderboard[keep].reset_index(drop=True)
    leaderboard.insert(0, "place", place_from_scores(leaderboard["stage2"]))
    stage1_place = place_from_scores(leaderboard["stage1"])
    leaderboard.insert(leaderboard.columns.get_loc("status"), "stage1_place", stage1_place)
    leaderboard = leaderboard.sort_values(["place", "team"], kind="stable").reset_index(drop=True)

    out_submissions = pd.DataFrame({"submission": table["submission"], "team": table["team"], "stage1": stage1,
                                    "eligible": eligible,
                                    "selected": np.isin(np.arange(len(table)), chosen)})
    if "submitted_at" in table:
        out_submissions["submitted_at"] = table["submitted_at"]
    for c in columns:
        out_submissions[c] = table[c]
    problems_frame = pd.DataFrame(problems, columns=["kind", "team", "submission", "detail"])
    notes = []
    if weights:
        notes.append("Meta-score weights differ from the rules': "
                     + ", ".join(f"{k} {v:g}" for k, v in group_weights.items()) + ".")
    provenance = {**{f"{k}_version": v for k, v in versions().items()},
                  "rules": rules.name, "rules_sha256": rules.sha256}
    return MultiObjectiveVerdict(
        leaderboard=leaderboard,
        submissions=out_submissions,
        normalised=normalised[keep].reset_index(drop=True),
        problems=problems_frame,
        scheme=scheme,
        baseline=MappingProxyType(baseline),
        best=MappingProxyType(best),
        weights=MappingProxyType(group_weights),
        warnings=tuple(notes),
        rules=rules,
        provenance=MappingProxyType(provenance),
    )
