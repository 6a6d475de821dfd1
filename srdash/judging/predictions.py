"""Prediction-file competitions: score files of predictions against hidden targets.

The files are read by :mod:`srdash.io.predictions`, the metrics are in
:mod:`srdash.judging.metrics` and the shake-up figure is
:func:`srdash.figures.predictions.shakeup_figure`; this module scores.

The classic procedure of TunedIT and of Kaggle's public/private leaderboards:
every test sample belongs to exactly one of two subsets, ``preliminary`` (scored
during the competition) and ``final`` (scored at the end, decides the
competition). Each team hands in files with one prediction per test sample.

Formats
-------
Targets
    Two text files (:func:`read_targets`), one line per test sample: the target
    where the sample belongs to that subset, an empty line where it does not. Or
    one CSV (:func:`read_targets_csv`) with columns ``id``, ``target``,
    ``subset`` (``preliminary`` or ``final``).
Solutions
    A text file with one prediction per line, in the order of the test samples,
    or a CSV with columns ``id``, ``prediction`` in any order
    (:func:`read_solution`). A file is read as CSV when its name ends in
    ``.csv`` or its first line contains a comma. The ids of text targets are
    their line numbers (``"1"``, ``"2"``, ...).
Submissions
    A folder of ``team/submission-file`` files or a CSV listing ``team, file``
    and optionally ``submitted_at``, ``selected`` (:func:`list_submissions`).

Locations in messages
---------------------
Every problem names its file and row: for text files the row is the line number
(1 = first line); for CSV files it is the data row, header excluded (so data
row 1 is line 2 of the file). A file's problems are all reported at once; when
one kind of problem hits many lines, the first 10 are listed and then counted.

Examples
--------
>>> targets = Targets.from_arrays([1.0, 2.0, 3.0, 4.0],
...                               ["preliminary", "final", "preliminary", "final"])
>>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
>>> predictions = {"a.txt": [1.0, 2.0, 3.0, 5.0], "b.txt": [2.0, 2.0, 4.0, 4.0]}
>>> result = score_submissions(listing, targets, metric="mae", predictions=predictions)
>>> result.final_leaderboard
   place team  score submission  entries
0      1    b    0.0      b.txt        1
1      2    a    0.5      a.txt        1
>>> result.shakeup
  team  preliminary_place  final_place  change  preliminary_score  final_score
0    b                  2            1       1                1.0          0.0
1    a                  1            2      -1                0.0          0.5
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.predictions import (ORDERS, SUBSETS, Targets, _one_of, _show, _solution, _solution_from_array,
                                   _target_metric_problems, list_submissions, read_targets, read_targets_csv)
from srdash.judging.metrics import Metric, get_metric

if TYPE_CHECKING:  # pragma: no cover
    from srdash.judging.rules import Rules

__all__ = [
    "RULES",
    "PredictionResult",
    "CombinedLeaderboards",
    "score_submissions",
    "metric_rules",
    "combine_metrics",
    "check_combine_rules",
    "to_runs_table",
    "OPTION_KEYS",
    "score_from_options",
]

RULES = ("last", "best-preliminary", "selected")

# Leaderboard scores are compared after rounding to this many decimals (as in
# srdash.judging.ranking) so that sums done in a different order cannot split a tie.
_DEFAULT_DECIMALS = 9


# --------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class PredictionResult:
    """The outcome of scoring a prediction competition.

    Attributes
    ----------
    submissions : DataFrame
        One row per submission: ``team``, ``submission``, ``submission_index``,
        ``submitted_at``, ``selected``, ``status`` ('ok' or 'rejected'),
        ``reason`` (why it was rejected; empty if ok), one
        ``<metric>_preliminary`` and ``<metric>_final`` column per metric
        (short names, e.g. ``rmse_final``; NaN when rejected),
        ``counts_preliminary`` and ``counts_final`` (whether the rule made this
        the team's submission on that leaderboard) and ``file``.
    preliminary_leaderboard, final_leaderboard : DataFrame
        One row per team, best first: ``place`` (1 = best), ``team``,
        ``score`` (the ranking metric on that subset), ``submission`` (the one
        that counts) and ``entries`` (submissions handed in, rejected ones
        included). Ties: equal scores (after rounding to ``decimals``) share the
        smallest place and the next place is skipped (1, 2, 2, 4); tied teams
        are listed alphabetically. A team without a counted valid submission
        has no score and shares the last place.
    shakeup : DataFrame
        One row per team, by final place: ``team``, ``preliminary_place``,
        ``final_place``, ``change`` (preliminary minus final place: positive =
        moved up), ``preliminary_score``, ``final_score``.
    metric : Metric
        The metric that ranks the leaderboards.
    metrics : tuple of Metric
        Every metric computed (the ranking one first).
    rule : str
        Which submission counted per team ('last', 'best-preliminary', 'selected').
    max_selected : int
        N for the 'selected' rule.
    problems : tuple of Problem
        Every problem of every rejected submission.
    warnings : tuple of str
        Things the reader must know (teams that selected nothing, ...).
    sources : tuple of str
        The target files.
    """

    submissions: pd.DataFrame
    preliminary_leaderboard: pd.DataFrame
    final_leaderboard: pd.DataFrame
    shakeup: pd.DataFrame
    metric: Metric
    metrics: tuple[Metric, ...]
    rule: str
    max_selected: int
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    decimals: int | None = _DEFAULT_DECIMALS
    combined: "CombinedLeaderboards | None" = None

    @property
    def teams(self) -> tuple[str, ...]:
        """Every team that handed in a submission, sorted."""
        return tuple(sorted(map(str, self.submissions["team"].unique())))

    @functools.cached_property
    def fingerprint(self) -> str:
        """The verdict fingerprint of this prediction competition: its identity.

        SHA-256 of the final and preliminary leaderboards of every metric (and the combined ones),
        the scoring settings (metrics, rule, decimals, the combining rules' SHA-256), every
        submission (team, name, time, selection, status) with its file's content, the targets'
        content, and the srdash version. Files enter by content and by their path relative to the
        folder holding them all, so the same files in any folder give the same fingerprint.

        Examples
        --------
        >>> targets = Targets.from_arrays([0.0, 0.0, 0.0, 0.0], ["preliminary"] * 2 + ["final"] * 2)
        >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
        >>> one = score_submissions(listing, targets, metric="rmse",
        ...                         predictions={"a.txt": [0, 3, 0, 3], "b.txt": [2, 2, 2, 2]})
        >>> two = score_submissions(listing, targets, metric="rmse",
        ...                         predictions={"a.txt": [0, 3, 0, 3], "b.txt": [2, 2, 2, 1]})
        >>> len(one.fingerprint), one.fingerprint == two.fingerprint
        (64, False)
        """
        return _prediction_fingerprint(self)

    def ranked_by(self, metric: str | Metric) -> "PredictionResult":
        """The same result with its leaderboards and shake-up ranked by another scored metric.

        The submissions that count stay the ones chosen by the first metric
        (``metrics[0]``), so that every per-metric leaderboard and the combined
        one rank the same submissions.

        Raises
        ------
        SrdashError
            When ``metric`` was not scored.

        Examples
        --------
        >>> targets = Targets.from_arrays([0.0, 0.0, 0.0, 0.0], ["preliminary"] * 2 + ["final"] * 2)
        >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
        >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
        ...                            predictions={"a.txt": [0, 3, 0, 3], "b.txt": [2, 2, 2, 2]})
        >>> result.final_leaderboard["team"].tolist(), result.ranked_by("mae").final_leaderboard["team"].tolist()
        (['b', 'a'], ['a', 'b'])
        """
        chosen = get_metric(metric)
        if chosen not in self.metrics:
            scored = ", ".join(f"'{m.short_name}'" for m in self.metrics)
            raise SrdashError(f"The metric '{chosen.short_name}' was not scored; scored metrics: {scored}.")
        if chosen == self.metric:
            return self
        preliminary = _leaderboard(self.submissions, "preliminary", chosen, self.decimals)
        final = _leaderboard(self.submissions, "final", chosen, self.decimals)
        return replace(self, metric=chosen, preliminary_leaderboard=preliminary, final_leaderboard=final,
                       shakeup=_shakeup(preliminary, final))

    @property
    def rejected(self) -> pd.DataFrame:
        """The rejected submissions: ``team``, ``submission``, ``reason``."""
        table = self.submissions
        return table.loc[table["status"] == "rejected", ["team", "submission", "reason"]].reset_index(drop=True)

    def leaderboard(self, subset: str) -> pd.DataFrame:
        """The leaderboard of ``subset`` ('preliminary' or 'final')."""
        _one_of("subset", subset, SUBSETS)
        return self.preliminary_leaderboard if subset == "preliminary" else self.final_leaderboard


def _reason(problems: Sequence[Problem], limit: int = 1000) -> str:
    # Bounded: the first problems, then a count (every one is in the result's problems).
    parts = []
    for shown, p in enumerate(problems):
        where = "" if p.row is None else f"row {p.row}: "
        column = "" if p.column is None else f"column '{p.column}': "
        if parts and sum(map(len, parts)) + len(where + column + p.message) > limit:
            parts.append(f"... and {len(problems) - shown} more problems (listed in the result's problems)")
            break
        parts.append(f"{where}{column}{p.message}")
    return " | ".join(parts)


def _choose(table: pd.DataFrame, metric: Metric, rule: str, max_selected: int) -> tuple[pd.Series, pd.Series, list]:
    """Which submission counts per team on each leaderboard (boolean columns)."""
    prelim_column, final_column = f"{metric.short_name}_preliminary", f"{metric.short_name}_final"
    counts = {"preliminary": np.zeros(len(table), dtype=bool), "final": np.zeros(len(table), dtype=bool)}
    auto_selected = []
    for team, group in table.groupby("team", sort=True):
        ok = group[group["status"] == "ok"]
        if rule == "last":
            if len(ok):
                counts["preliminary"][ok.index[-1]] = counts["final"][ok.index[-1]] = True
            continue
        if rule == "best-preliminary":
            if len(ok):
                best = ok.index[metric.best_of(ok[prelim_column].to_numpy())]
                counts["preliminary"][best] = counts["final"][best] = True
            continue
        # 'selected': Kaggle's rule. A team that selected nothing gets its best preliminary ones.
        if group["selected"].any():
            candidates = ok[ok["selected"]]
        else:
            order = np.argsort(-_oriented(ok[prelim_column].to_numpy(), metric), kind="stable")
            candidates = ok.iloc[np.sort(order[:max_selected])]
            auto_selected.append(team)
        if len(candidates):
            counts["preliminary"][candidates.index[metric.best_of(candidates[prelim_column].to_numpy())]] = True
            counts["final"][candidates.index[metric.best_of(candidates[final_column].to_numpy())]] = True
    return pd.Series(counts["preliminary"], index=table.index), pd.Series(counts["final"], index=table.index), \
        auto_selected


def _oriented(values: np.ndarray, metric: Metric) -> np.ndarray:
    oriented = values if metric.direction == "higher" else -values
    return np.where(np.isnan(oriented), -np.inf, oriented)


def _leaderboard(table: pd.DataFrame, subset: str, metric: Metric, decimals: int | None) -> pd.DataFrame:
    teams = sorted(table["team"].unique())
    counted = table[table[f"counts_{subset}"]].set_index("team")
    board = pd.DataFrame({"team": pd.Series(teams, dtype=object)})
    board["score"] = board["team"].map(counted[f"{metric.short_name}_{subset}"]).astype(float)
    board["submission"] = board["team"].map(counted["submission"]).astype(object)
    board["entries"] = board["team"].map(table.groupby("team").size()).astype(int)
    oriented = _oriented(board["score"].to_numpy(), metric)
    if decimals is not None:
        oriented = np.round(oriented, decimals)
    board.insert(0, "place", pd.Series(oriented).rank(method="min", ascending=False).astype(int).to_numpy())
    return board.sort_values(["place", "team"], kind="stable").reset_index(drop=True)


def score_submissions(submissions: str | os.PathLike | pd.DataFrame, targets: Targets, *, metric: str | Metric,
                      extra_metrics: Sequence[str | Metric] = (), rule: str = "last", max_selected: int = 2,
                      decimals: int | None = _DEFAULT_DECIMALS, order: str = "submitted_at",
                      predictions: Mapping[str, Sequence[float]] | None = None,
                      combine_rules: "Rules | str | os.PathLike | None" = None,
                      progress: Callable[[int, int], None] | None = None) -> PredictionResult:
    """Score every submission and build the preliminary and final leaderboards.

    Each submission file is read and validated (:func:`read_solution`); a
    rejected file is listed with its reason and does not stop the others.
    Valid ones are scored with every metric on both subsets.

    Which submission counts per team is the ``rule``:

    ==================  ======================================  =====================================
    rule                preliminary leaderboard                 final leaderboard
    ==================  ======================================  =====================================
    last                the team's last valid submission        the same submission
    best-preliminary    the best preliminary score              the same submission
    selected            best preliminary among the selected     best final among the selected
    ==================  ======================================  =====================================

    'selected' is Kaggle's rule: each team selects up to ``max_selected``
    submissions (the ``selected`` column of the listing); a team that selected
    none gets its ``max_selected`` best preliminary ones (with a warning); a team
    whose selected submissions were all rejected has no score. Among equal
    scores the earlier submission counts. Rejected submissions never count
    (under 'last', the last *valid* one counts).

    Parameters
    ----------
    submissions : path or DataFrame
        A folder or listing CSV, or a DataFrame, as for :func:`list_submissions`.
    targets : Targets
    metric : str or Metric, keyword-only
        The metric ranking the leaderboards: 'accuracy', 'r2', 'rmse', 'mae'
        (or the full names of :data:`METRICS`).
    extra_metrics : sequence of str or Metric, keyword-only
        Further metrics to compute (columns of ``submissions``; see :func:`to_runs_table`).
    rule : {'last', 'best-preliminary', 'selected'}, keyword-only
    max_selected : int, keyword-only
        N of the 'selected' rule (default 2).
    decimals : int or None, keyword-only
        Scores are compared after rounding to this many decimals (default 9),
        so that float noise cannot split a tie. None compares exact floats.
    order : {'submitted_at', 'name'}, keyword-only
        Order of a team's submissions, as for :func:`list_submissions`.
    predictions : mapping of str to array-like, keyword-only
        In-memory predictions by listed file name, used instead of reading
        those files (validated the same way, rows = positions).
    combine_rules : Rules, preset name or path of a .toml file, keyword-only
        Rules combining the metrics into one leaderboard per subset
        (:func:`combine_metrics`; their criteria name the metrics). Default:
        with several metrics, the harmonic mean of the per-metric ranks
        (:func:`metric_rules`); with one metric, no combined leaderboard.
    progress : callable, keyword-only
        Called as ``progress(done, total)`` after each submission is read and scored.

    Returns
    -------
    PredictionResult
        With ``combined`` set when several metrics were scored (or
        ``combine_rules`` given) and at least one submission is valid.

    Raises
    ------
    SrdashError
        For an unknown metric, rule or order, or a bad ``max_selected``.
    ValidationError
        When the listing is not valid, the targets do not suit a metric
        (non-integer labels for accuracy, constant targets for R2), or a team
        selected more than ``max_selected`` submissions.

    Examples
    --------
    >>> targets = Targets.from_arrays([1.0, 2.0], ["preliminary", "final"])
    >>> listing = pd.DataFrame({"team": ["a", "a"], "file": ["1.txt", "2.txt"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"1.txt": [1.0, 3.0], "2.txt": [1.0, float("nan")]})
    >>> result.submissions[["submission", "status", "rmse_final", "counts_final"]]
      submission    status  rmse_final  counts_final
    0      1.txt        ok         1.0          True
    1      2.txt  rejected         NaN         False
    >>> print(result.rejected.loc[0, "reason"])
    row 2: the prediction is NaN ('nan'); predictions must be finite numbers.
    """
    metrics = _metric_list(metric, extra_metrics)
    _one_of("rule", rule, RULES)
    _one_of("order", order, ORDERS)
    if not isinstance(max_selected, (int, np.integer)) or isinstance(max_selected, bool) or max_selected < 1:
        raise SrdashError(f"The 'max_selected' option must be an integer >= 1. Got {max_selected!r}.")
    if decimals is not None and (not isinstance(decimals, (int, np.integer)) or decimals < 0):
        raise SrdashError(f"The 'decimals' option must be a non-negative integer or None. Got {decimals!r}.")
    listing = list_submissions(submissions, order=order)
    listing_source = "<DataFrame>" if isinstance(submissions, pd.DataFrame) else str(submissions)
    # Submission files must stay inside the folder given (or the listing CSV's folder).
    root = (None if isinstance(submissions, pd.DataFrame) else
            Path(submissions) if Path(submissions).is_dir() else Path(submissions).parent)
    problems = _target_metric_problems(targets, metrics)
    if rule == "selected":
        per_team = listing[listing["selected"]].groupby("team")["submission"].agg(list)
        for team, names in per_team.items():
            if len(names) > max_selected:
                problems.append(Problem(listing_source, None, "selected",
                                        f"team {_show(team)} selected {len(names)} submissions "
                                        f"({', '.join(map(_show, names))}); the rule 'selected' allows at most "
                                        f"{max_selected} (max_selected)."))
    if problems:
        raise ValidationError(problems, header="Cannot score the submissions")
    if combine_rules is not None:  # refuse rules that do not fit before reading every file
        check_combine_rules(combine_rules, metrics)

    integer_labels = any(m.integer_labels for m in metrics)
    label_metric = next((m.short_name for m in metrics if m.integer_labels), "accuracy")
    masks = {s: targets.mask(s) for s in SUBSETS}
    truth = {s: targets.values[masks[s]] for s in SUBSETS}
    scores = {f"{m.short_name}_{s}": np.full(len(listing), np.nan) for m in metrics for s in SUBSETS}
    status = np.full(len(listing), "ok", dtype=object)
    reasons = np.full(len(listing), "", dtype=object)
    all_problems: list[Problem] = []
    for i, (name, path) in enumerate(zip(listing["submission"], listing["file"])):
        if predictions is not None and name in predictions:
            values, found = _solution_from_array(predictions[name], name, targets, integer_labels, label_metric)
        else:
            values, found = _solution(Path(path), targets, integer_labels=integer_labels, metric_name=label_metric,
                                      root=root)
        if found:
            status[i], reasons[i] = "rejected", _reason(found)
            all_problems += found
        else:
            for m in metrics:
                for s in SUBSETS:
                    scores[f"{m.short_name}_{s}"][i] = m._compute(truth[s], values[masks[s]])
        if progress is not None:
            progress(i + 1, len(listing))

    table = listing[["team", "submission", "submission_index", "submitted_at", "selected"]].copy()
    table["status"] = status
    table["reason"] = reasons
    for column, values in scores.items():
        table[column] = values
    counts_p, counts_f, auto_selected = _choose(table, metrics[0], rule, max_selected)
    table["counts_preliminary"] = counts_p
    table["counts_final"] = counts_f
    table["file"] = listing["file"]

    notes = []
    if auto_selected:
        notes.append(f"{len(auto_selected)} team(s) selected no submission; their {max_selected} best preliminary "
                     f"submission(s) were used (as Kaggle does): {', '.join(map(_show, auto_selected))}.")
    if not (status == "ok").any():
        notes.append("No submission could be scored: every submission was rejected.")
    preliminary = _leaderboard(table, "preliminary", metrics[0], decimals)
    final = _leaderboard(table, "final", metrics[0], decimals)
    result = PredictionResult(
        submissions=table, preliminary_leaderboard=preliminary, final_leaderboard=final,
        shakeup=_shakeup(preliminary, final), metric=metrics[0], metrics=tuple(metrics), rule=rule,
        max_selected=int(max_selected), problems=tuple(all_problems), warnings=tuple(notes),
        sources=tuple(targets.sources), decimals=decimals,
    )
    if combine_rules is not None:
        result = replace(result, combined=combine_metrics(result, rules=combine_rules))
    elif len(metrics) > 1 and (status == "ok").any():
        result = replace(result, combined=combine_metrics(result))
    return result


def _shakeup(preliminary: pd.DataFrame, final: pd.DataFrame) -> pd.DataFrame:
    """Each team's preliminary and final place and score, by final place."""
    merged = (preliminary[["team", "place", "score"]]
              .merge(final[["team", "place", "score"]], on="team", suffixes=("_p", "_f")))
    return pd.DataFrame({
        "team": merged["team"].astype(object),
        "preliminary_place": merged["place_p"],
        "final_place": merged["place_f"],
        "change": merged["place_p"] - merged["place_f"],
        "preliminary_score": merged["score_p"],
        "final_score": merged["score_f"],
    }).sort_values(["final_place", "team"], kind="stable").reset_index(drop=True)


def _metric_list(metric, extra_metrics) -> list[Metric]:
    if isinstance(extra_metrics, (str, Metric)):
        extra_metrics = [extra_metrics]
    metrics = []
    for m in [metric, *extra_metrics]:
        m = get_metric(m)
        if m not in metrics:
            metrics.append(m)
    return metrics


def to_runs_table(result: PredictionResult, *, subsets: Sequence[str] = SUBSETS,
                  submissions: str = "counted") -> pd.DataFrame:
    """The long per-run table of the ranking engine, one metric per column.

    Each team is a ``method``, each subset a ``dataset`` and each submission a
    ``run`` (its ``submission_index``), so that :func:`srdash.judging.ranking.judge`
    can combine several metrics (rules with one criterion per metric column,
    with the metric's direction).

    Parameters
    ----------
    result : PredictionResult
    subsets : sequence of {'preliminary', 'final'}, keyword-only
        The subsets to include as datasets (default both).
    submissions : {'counted', 'all'}, keyword-only
        'counted': per team and subset, the submission the rule counted (a team
        without one has no row, which the ranking engine treats as DNF).
        'all': every submission, rejected ones with status 'rejected' and NaN
        metrics (the worst value for the ranking engine).

    Returns
    -------
    DataFrame
        Columns ``method``, ``dataset``, ``run``, ``model`` (NA), ``components``
        (NaN), one column per metric (short name: ``rmse``, ``mae``, ...),
        ``status``, ``reason``, ``submission``, ``submitted_at``.

    Examples
    --------
    >>> targets = Targets.from_arrays([1.0, 2.0, 3.0, 5.0], ["preliminary", "final"] * 2)
    >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"a.txt": [1, 2, 3, 4], "b.txt": [2, 2, 3, 5]})
    >>> to_runs_table(result, subsets=["final"])[["method", "dataset", "run", "rmse", "mae"]]
      method dataset  run      rmse  mae
    0      a   final    1  0.707107  0.5
    1      b   final    1  0.000000  0.0
    """
    for subset in subsets:
        _one_of("subset", subset, SUBSETS)
    _one_of("submissions", submissions, ("counted", "all"))
    table = result.submissions
    parts = []
    for subset in subsets:
        chosen = table[table[f"counts_{subset}"]] if submissions == "counted" else table
        part = pd.DataFrame({
            "method": chosen["team"].astype(object).to_numpy(),
            "dataset": subset,
            "run": chosen["submission_index"].to_numpy(),
            "model": pd.Series([pd.NA] * len(chosen), dtype=object),
            "components": np.nan,
            **{m.short_name: chosen[f"{m.short_name}_{subset}"].to_numpy() for m in result.metrics},
            "status": chosen["status"].to_numpy(),
            "reason": chosen["reason"].to_numpy(),
            "submission": chosen["submission"].to_numpy(),
            "submitted_at": chosen["submitted_at"].to_numpy(),
        })
        parts.append(part)
    runs = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return runs.sort_values(["dataset", "method", "run"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- several metrics combined


@dataclass(frozen=True, eq=False)
class CombinedLeaderboards:
    """Several metrics combined into one leaderboard per subset by the ranking engine.

    Build with :func:`combine_metrics` (or get ``PredictionResult.combined``).

    Attributes
    ----------
    preliminary_leaderboard, final_leaderboard : DataFrame
        One row per team, best first: ``place`` (1 = best; equal scores share
        the smallest place), ``team``, ``score`` (higher is better), then for
        rank-harmonic rules each metric's value (``rmse``, ...) and rank
        (``rmse_rank``: higher is better, K = best, K = number of teams), for
        normalised-weighted rules each meta-score and each metric's value;
        ``submission`` (the one that counts), ``entries`` (submissions handed
        in) and ``status`` ('ok', or 'no valid
        submission': such a team takes the lowest ranks, or for
        normalised-weighted rules has no score and shares the last place).
    shakeup : DataFrame
        As :attr:`PredictionResult.shakeup`, for the combined places.
    rules : Rules
        The rules that combined the metrics.
    verdicts : Mapping of str to Verdict or MultiObjectiveVerdict
        The ranking engine's verdict on each subset ('preliminary', 'final').
    runs : Mapping of str to DataFrame
        The per-run table each verdict was judged from (:func:`to_runs_table`).
    rule : str
        Which submission counted per team (see :func:`score_submissions`).
    """

    preliminary_leaderboard: pd.DataFrame
    final_leaderboard: pd.DataFrame
    shakeup: pd.DataFrame
    rules: "Rules"
    verdicts: Mapping[str, object]
    runs: Mapping[str, pd.DataFrame]
    rule: str = "last"

    @property
    def description(self) -> str:
        """One sentence saying how the metrics were combined."""
        if self.rules.rule_kind.judges_submissions:
            return (f"normalised, weighted meta-scores of the rules '{self.rules.name}' "
                    "(higher is better)")
        parts = [f"{c.label} ({c.direction} is better, weight {c.weight:g})" for c in self.rules.criteria]
        return "harmonic mean of the per-metric ranks: " + ", ".join(parts)

    def leaderboard(self, subset: str) -> pd.DataFrame:
        """The combined leaderboard of ``subset`` ('preliminary' or 'final')."""
        _one_of("subset", subset, SUBSETS)
        return self.preliminary_leaderboard if subset == "preliminary" else self.final_leaderboard

    def rescorer(self, subset: str = "final"):
        """A :class:`srdash.analysis.sensitivity.Rescorer` of the combined verdict on ``subset`` (weight sensitivity)."""
        from srdash.analysis.sensitivity import Rescorer

        _one_of("subset", subset, SUBSETS)
        return Rescorer.from_verdict(self.verdicts[subset], runs=self.runs[subset])


def _toml_string(text: str) -> str:
    import json

    return json.dumps(str(text), ensure_ascii=False)  # a JSON string is a valid TOML basic string


def metric_rules(metrics: Sequence[str | Metric], *, weights: Sequence[float] | None = None,
                 decimals: int | None = _DEFAULT_DECIMALS) -> "Rules":
    """Rank-harmonic rules with one criterion per metric (the default way to combine metrics).

    On each subset the teams are ranked on each metric (ranks: higher is
    better, K = best; ties share the average position), and a team's score is
    the weighted harmonic mean of its ranks, ``sum(w) / sum(w / rank)``.

    Parameters
    ----------
    metrics : sequence of str or Metric
        At least one; each criterion is named after the metric's short name and
        reads the column of that name in :func:`to_runs_table`.
    weights : sequence of float, keyword-only
        One weight per metric (default 1 each).
    decimals : int or None, keyword-only
        Values are compared after rounding to this many decimals (as the
        leaderboards do).

    Returns
    -------
    Rules
        With the generated TOML in ``text`` (for provenance).

    Examples
    --------
    >>> rules = metric_rules(["rmse", "r2"])
    >>> [(c.name, c.direction) for c in rules.criteria]
    [('rmse', 'lower'), ('r2', 'higher')]
    >>> rules.kind, rules.rank_method
    ('rank-harmonic', 'average')
    """
    from srdash.judging.rules import parse_rules

    chosen = _metric_list(metrics[0], metrics[1:]) if len(metrics) else []
    if not chosen:
        raise SrdashError("metric_rules needs at least one metric.")
    weights = [1.0] * len(chosen) if weights is None else [float(w) for w in weights]
    if len(weights) != len(chosen):
        raise SrdashError(f"Give one weight per metric: {len(chosen)} metrics, {len(weights)} weights.")
    labels = ", ".join(m.label for m in chosen)
    lines = [
        '# Generated by srdash.judging.predictions.metric_rules: one criterion per prediction metric.',
        'name = "prediction-metrics"',
        f"title = {_toml_string('Prediction metrics combined: harmonic mean of ranks (' + labels + ')')}",
        'description = """',
        "On each subset (preliminary, final) the teams are ranked on every metric (higher rank is",
        "better, K = best, ties share the average position); a team's score is the weighted harmonic",
        "mean of its ranks. A team without a valid submission takes the lowest ranks.",
        '"""',
        'kind = "rank-harmonic"',
        "",
        "[ranking]",
        'run_aggregation = "median"',
        'rank_method = "average"',
    ]
    for metric, weight in zip(chosen, weights):
        lines += ["", "[[criteria]]", f'name = "{metric.short_name}"', f'column = "{metric.short_name}"',
                  f'direction = "{metric.direction}"']
        if decimals is not None:
            lines.append(f"decimals = {int(decimals)}")
        lines += [f"weight = {weight!r}", f"label = {_toml_string(metric.label)}",
                  f"description = {_toml_string(f'{metric.label} of the predictions ({metric.direction} is better).')}"]
    return parse_rules("\n".join(lines) + "\n", source="generated:prediction-metrics",
                       default_name="prediction-metrics")


def _load_rules(rules) -> "Rules":
    from srdash.judging.rules import load_rules

    return load_rules(rules)


def check_combine_rules(rules: "Rules | str | os.PathLike", metrics: Sequence[str | Metric]) -> "Rules":
    """Load ``rules`` and check that they can combine ``metrics`` (see :func:`combine_metrics`).

    Returns
    -------
    Rules

    Raises
    ------
    RulesError
        Unknown rules, or a criterion that reads a column which is not a scored
        metric's short name, or declares the wrong direction.

    Examples
    --------
    >>> check_combine_rules(metric_rules(["rmse", "mae"]), ["rmse"])
    Traceback (most recent call last):
    ...
    srdash.errors.RulesError: The rules 'prediction-metrics' do not fit the scored metrics ('rmse'): criterion 'mae' reads column 'mae', which is not a scored metric. Each criterion's column must be the short name of a scored metric (accuracy, r2, rmse, mae: score it with --metric), with that metric's direction.
    """
    rules = _load_rules(rules)
    metrics = [get_metric(m) for m in metrics]
    scored = {m.short_name: m for m in metrics}
    problems = []
    for criterion in rules.criteria:
        metric = scored.get(criterion.column)
        if metric is None:
            problems.append(f"criterion '{criterion.name}' reads column '{criterion.column}', which is not a "
                            "scored metric")
        elif criterion.direction != metric.direction:
            problems.append(f"criterion '{criterion.name}' says {criterion.direction} is better, but "
                            f"{metric.short_name} is {metric.direction}-is-better")
    if problems:
        listed = ", ".join(f"'{name}'" for name in scored)
        from srdash.errors import RulesError

        raise RulesError(f"The rules '{rules.name}' do not fit the scored metrics ({listed}): "
                         + "; ".join(problems) + ". Each criterion's column must be the short name of a scored "
                         "metric (accuracy, r2, rmse, mae: score it with --metric), with that metric's direction.")
    return rules


def combine_metrics(result: PredictionResult, *, rules: "Rules | str | os.PathLike | None" = None
                    ) -> CombinedLeaderboards:
    """Combine the scored metrics into one leaderboard per subset with the ranking engine.

    Each subset is judged on its own: the teams are the methods and each
    team's counted submission is its run (:func:`to_runs_table`). Rank-harmonic
    rules go through :func:`srdash.judging.ranking.judge`; normalised-weighted rules
    through :func:`srdash.judging.multiobjective.judge_submissions` (one submission per
    team: the counted one).

    Parameters
    ----------
    result : PredictionResult
    rules : Rules, preset name or path of a .toml file, keyword-only
        Their criteria read the metric columns (short names, e.g. ``column =
        "rmse"``) with the metrics' directions. Default: :func:`metric_rules`
        over every scored metric (harmonic mean of ranks, equal weights).

    Returns
    -------
    CombinedLeaderboards

    Raises
    ------
    RulesError
        When a criterion reads a column that is not a scored metric, or
        declares the wrong direction.
    SrdashError
        When no submission could be scored.

    Examples
    --------
    Two metrics that disagree (errors on the final samples, targets 0):
    a (0, 3): RMSE 2.121, MAE 1.5; b (2, 2): RMSE 2, MAE 2; c (1, 2.5): RMSE 1.904, MAE 1.75.
    Ranks (3 = best): RMSE c 3, b 2, a 1; MAE a 3, c 2, b 1. Harmonic means:
    c 2 / (1/3 + 1/2) = 2.4, a 2 / (1 + 1/3) = 1.5, b 2 / (1/2 + 1) = 1.333.

    >>> targets = Targets.from_arrays([0.0] * 4, ["preliminary"] * 2 + ["final"] * 2)
    >>> listing = pd.DataFrame({"team": ["a", "b", "c"], "file": ["a", "b", "c"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"a": [0, 3, 0, 3], "b": [2, 2, 2, 2], "c": [1, 2.5, 1, 2.5]})
    >>> board = combine_metrics(result).final_leaderboard
    >>> board[["place", "team", "score", "rmse_rank", "mae_rank"]].round(3)
       place team  score  rmse_rank  mae_rank
    0      1    c  2.400        3.0       2.0
    1      2    a  1.500        1.0       3.0
    2      3    b  1.333        2.0       1.0
    """
    rules = metric_rules(result.metrics, decimals=result.decimals) if rules is None else _load_rules(rules)
    check_combine_rules(rules, result.metrics)
    if not (result.submissions["status"] == "ok").any():
        raise SrdashError("No submission could be scored (every submission was rejected): there is nothing to "
                          "combine.")
    teams = list(result.teams)
    boards, verdicts, runs_by_subset = {}, {}, {}
    for subset in SUBSETS:
        runs = to_runs_table(result, subsets=[subset])
        if rules.rule_kind.judges_submissions:
            verdict, board = _combined_normalised(runs, rules, teams)
        else:
            verdict, board = _combined_harmonic(runs, rules, teams)
        entries = board["team"].map(result.submissions.groupby("team").size()).astype(int)
        board.insert(board.columns.get_loc("submission") + 1, "entries", entries)
        boards[subset], verdicts[subset], runs_by_subset[subset] = board, verdict, runs
    return CombinedLeaderboards(
        preliminary_leaderboard=boards["preliminary"], final_leaderboard=boards["final"],
        shakeup=_shakeup(boards["preliminary"], boards["final"]), rules=rules,
        verdicts=MappingProxyType(verdicts), runs=MappingProxyType(runs_by_subset), rule=result.rule,
    )


def _combined_harmonic(runs: pd.DataFrame, rules: "Rules", teams: list[str]):
    from srdash.judging.ranking import judge

    verdict = judge(runs, rules, methods=teams)
    lb = verdict.leaderboard
    counted = runs.drop_duplicates("method", keep="last").set_index("method")
    board = pd.DataFrame({"place": lb["place"].to_numpy(), "team": lb["method"].astype(object).to_numpy(),
                          "score": lb["score"].to_numpy(dtype=float)})
    for criterion in verdict.criteria:
        board[criterion.column] = board["team"].map(counted[criterion.column]).astype(float)
        board[f"{criterion.name}_rank"] = lb[f"{criterion.name}_rank"].to_numpy(dtype=float)
    board["submission"] = board["team"].map(counted["submission"]).astype(object)
    board["status"] = np.where(lb["dnf"].to_numpy() > 0, "no valid submission", "ok")
    return verdict, board


def _combined_normalised(runs: pd.DataFrame, rules: "Rules", teams: list[str]):
    from srdash.judging.multiobjective import judge_submissions, scheme_from_rules

    scheme = scheme_from_rules(rules)
    columns = list(dict.fromkeys(c.column for c in scheme.metrics))
    table = pd.DataFrame({scheme.team_column: runs["method"].astype(str).to_numpy(),
                          **{c: runs[c].to_numpy(dtype=float) for c in columns}})
    if scheme.time_column:
        table[scheme.time_column] = runs["submitted_at"].to_numpy()
    verdict = judge_submissions(table, rules)
    lb = verdict.leaderboard
    counted = runs.drop_duplicates("method", keep="last").set_index("method")
    ranked = pd.DataFrame({"place": lb["place"].to_numpy(), "team": lb["team"].astype(object).to_numpy(),
                           "score": lb["stage2"].to_numpy(dtype=float),
                           **{g: lb[g].to_numpy(dtype=float) for g in verdict.meta_scores}})
    missing = [t for t in teams if t not in set(ranked["team"])]
    if missing:  # no valid submission: no score, sharing the last place
        ranked = pd.concat([ranked, pd.DataFrame({"place": len(ranked) + 1, "team": pd.Series(missing, dtype=object),
                                                  "score": np.nan})], ignore_index=True)
    for column in columns:
        ranked[column] = ranked["team"].map(counted[column]).astype(float)
    ranked["submission"] = ranked["team"].map(counted["submission"]).astype(object)
    ranked["status"] = np.where(ranked["team"].isin(missing), "no valid submission", "ok")
    ranked["place"] = ranked["place"].astype(int)
    return verdict, ranked.reset_index(drop=True)


# --------------------------------------------------------------------------- options (app, CLI)

#: Keys of the options of :func:`score_from_options` (the JSON in ``SRDASH_PREDICTIONS``).
OPTION_KEYS = ("targets_preliminary", "targets_final", "targets_csv", "submissions", "metrics", "rule",
               "max_selected", "order", "rules")


def score_from_options(options: Mapping[str, object], *,
                       progress: Callable[[int, int], None] | None = None) -> PredictionResult:
    """Read the targets and score the submissions that ``options`` describe.

    This is how the predictions app (``SRDASH_PREDICTIONS``, written by
    ``srdash predictions serve``) names a competition.

    Parameters
    ----------
    options : mapping
        ``submissions`` (folder or listing CSV; required); either
        ``targets_preliminary`` and ``targets_final`` or ``targets_csv``;
        ``metrics`` (list of metric names, default ``['rmse']``; the first one
        chooses the counted submissions); ``rule``, ``max_selected``, ``order``
        (as :func:`score_submissions`); ``rules`` (preset or .toml file
        combining the metrics, optional). Paths should be absolute.
    progress : callable, keyword-only
        ``progress(done, total)`` after each submission.

    Returns
    -------
    PredictionResult

    Raises
    ------
    SrdashError
        Unknown or missing keys, or invalid values; ValidationError for invalid files.

    Examples
    --------
    >>> score_from_options({"submissions": "s.csv", "metric": "rmse"})
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: Unknown prediction option(s) 'metric'. Options: targets_preliminary, targets_final, targets_csv, submissions, metrics, rule, max_selected, order, rules.
    """
    unknown = [key for key in options if key not in OPTION_KEYS]
    if unknown:
        raise SrdashError(f"Unknown prediction option(s) {', '.join(repr(k) for k in unknown)}. "
                          f"Options: {', '.join(OPTION_KEYS)}.")
    if not options.get("submissions"):
        raise SrdashError("The prediction options need 'submissions' (a folder of team/file or a listing CSV).")
    csv_path = options.get("targets_csv")
    pair = (options.get("targets_preliminary"), options.get("targets_final"))
    if csv_path and any(pair):
        raise SrdashError("Give either 'targets_csv' or both 'targets_preliminary' and 'targets_final', not both.")
    if not csv_path and not all(pair):
        raise SrdashError("The targets are missing: give 'targets_preliminary' and 'targets_final' (two text "
                          "files) or 'targets_csv' (one CSV with id, target, subset).")
    metrics = options.get("metrics") or ["rmse"]
    if isinstance(metrics, str):
        metrics = [metrics]
    targets = read_targets_csv(csv_path) if csv_path else read_targets(*pair)
    return score_submissions(options["submissions"], targets, metric=metrics[0], extra_metrics=list(metrics[1:]),
                             rule=options.get("rule", "last"), max_selected=options.get("max_selected", 2),
                             order=options.get("order", "submitted_at"), combine_rules=options.get("rules") or None,
                             progress=progress)


def _prediction_fingerprint(result: PredictionResult) -> str:
    import hashlib
    import json

    from srdash._version import __version__
    from srdash.judging.provenance import hash_roles

    files = [("targets", Path(p)) for p in result.sources if Path(p).is_file()]
    files += [("submissions", Path(f)) for f in map(str, result.submissions["file"]) if f and Path(f).is_file()]
    parents = [str(path.absolute().parent) for _, path in files]
    root = Path(os.path.commonpath(parents)) if parents else Path.cwd()
    hashes = hash_roles(files, root=root)

    def board(frame: pd.DataFrame) -> list:
        columns = [c for c in ("place", "team", "score", "submission") if c in frame.columns]
        return frame[columns].astype(str).values.tolist()

    boards = {}
    for metric in result.metrics:
        ranked = result.ranked_by(metric)
        boards[metric.name] = {"final": board(ranked.final_leaderboard),
                               "preliminary": board(ranked.preliminary_leaderboard)}
    if result.combined is not None:
        for subset, verdict in result.combined.verdicts.items():
            boards[f"combined:{subset}"] = board(verdict.leaderboard)
    listing = result.submissions
    columns = [c for c in ("team", "submission", "submitted_at", "selected", "status") if c in listing]
    submissions = sorted(listing[columns].astype(str).values.tolist())
    settings = {"metrics": [m.name for m in result.metrics], "rule": result.rule, "max_selected": result.max_selected,
                "decimals": result.decimals,
                "combine_rules": None if result.combined is None else result.combined.rules.sha256}
    payload = {"boards": boards, "settings": settings, "submissions": submissions,
               "inputs": sorted(hashes.items()), "versions": {"srdash": __version__}}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
