"""Scoring the submissions: each file read and checked, every valid one scored with every metric on
both subsets, and the rule that says which submission counts per team (:func:`score_submissions`)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.predictions import (ORDERS, SUBSETS, Targets, list_submissions, one_of, quoted, solution_from_array,
                                   solution_from_file, target_metric_problems)
from srdash.judging.metrics import Metric
from srdash.judging.predictions.combined import check_combine_rules, combine_metrics
from srdash.judging.predictions.leaderboards import (DEFAULT_DECIMALS, metric_list, oriented_scores,
                                                     shakeup_table, subset_leaderboard)
from srdash.judging.predictions.result import PredictionResult

if TYPE_CHECKING:  # pragma: no cover
    from srdash.judging.rules import Rules

__all__ = ["RULES", "score_submissions"]

#: Which submission counts per team (see :func:`score_submissions`).
RULES = ("last", "best-preliminary", "selected")


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
            order = np.argsort(-oriented_scores(ok[prelim_column].to_numpy(), metric), kind="stable")
            candidates = ok.iloc[np.sort(order[:max_selected])]
            auto_selected.append(team)
        if len(candidates):
            counts["preliminary"][candidates.index[metric.best_of(candidates[prelim_column].to_numpy())]] = True
            counts["final"][candidates.index[metric.best_of(candidates[final_column].to_numpy())]] = True
    return pd.Series(counts["preliminary"], index=table.index), pd.Series(counts["final"], index=table.index), \
        auto_selected


def score_submissions(submissions: str | os.PathLike | pd.DataFrame, targets: Targets, *, metric: str | Metric,
                      extra_metrics: Sequence[str | Metric] = (), rule: str = "last", max_selected: int = 2,
                      decimals: int | None = DEFAULT_DECIMALS, order: str = "submitted_at",
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
    >>> import pandas as pd
    >>> from srdash.io.predictions import Targets
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
    metrics = metric_list(metric, extra_metrics)
    one_of("rule", rule, RULES)
    one_of("order", order, ORDERS)
    if not isinstance(max_selected, (int, np.integer)) or isinstance(max_selected, bool) or max_selected < 1:
        raise SrdashError(f"The 'max_selected' option must be an integer >= 1. Got {max_selected!r}.")
    if decimals is not None and (not isinstance(decimals, (int, np.integer)) or decimals < 0):
        raise SrdashError(f"The 'decimals' option must be a non-negative integer or None. Got {decimals!r}.")
    listing = list_submissions(submissions, order=order)
    listing_source = "<DataFrame>" if isinstance(submissions, pd.DataFrame) else str(submissions)
    # Submission files must stay inside the folder given (or the listing CSV's folder).
    root = (None if isinstance(submissions, pd.DataFrame) else
            Path(submissions) if Path(submissions).is_dir() else Path(submissions).parent)
    problems = target_metric_problems(targets, metrics)
    if rule == "selected":
        per_team = listing[listing["selected"]].groupby("team")["submission"].agg(list)
        for team, names in per_team.items():
            if len(names) > max_selected:
                problems.append(Problem(listing_source, None, "selected",
                                        f"team {quoted(team)} selected {len(names)} submissions "
                                        f"({', '.join(map(quoted, names))}); the rule 'selected' allows at most "
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
            values, found = solution_from_array(predictions[name], name, targets, integer_labels, label_metric)
        else:
            values, found = solution_from_file(Path(path), targets, integer_labels=integer_labels,
                                               metric_name=label_metric, root=root)
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
                     f"submission(s) were used (as Kaggle does): {', '.join(map(quoted, auto_selected))}.")
    if not (status == "ok").any():
        notes.append("No submission could be scored: every submission was rejected.")
    preliminary = subset_leaderboard(table, "preliminary", metrics[0], decimals)
    final = subset_leaderboard(table, "final", metrics[0], decimals)
    result = PredictionResult(
        submissions=table, preliminary_leaderboard=preliminary, final_leaderboard=final,
        shakeup=shakeup_table(preliminary, final), metric=metrics[0], metrics=tuple(metrics), rule=rule,
        max_selected=int(max_selected), problems=tuple(all_problems), warnings=tuple(notes),
        sources=tuple(targets.sources), decimals=decimals,
    )
    if combine_rules is not None:
        result = replace(result, combined=combine_metrics(result, rules=combine_rules))
    elif len(metrics) > 1 and (status == "ok").any():
        result = replace(result, combined=combine_metrics(result))
    return result
