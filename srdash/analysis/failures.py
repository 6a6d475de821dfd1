"""Failures in plain sight: each method's failed runs by type, and the verdict on what it delivered.

Every problem a verdict lists has a ``kind`` (:attr:`srdash.judging.ranking.Verdict.problems`).
:data:`FAILURE_TYPE_OF_KIND` maps the kinds that are failures of a method to five types, the
leaderboard's columns (in this order):

========================  ==============  ================================================================
type                      column          problem kinds
========================  ==============  ================================================================
did not finish            ``dnf``         ``DNF``: no run at all on a dataset (the leaderboard's own column)
timed out                 ``timed_out``   ``timeout``
did not parse             ``did_not_parse`` ``parse_error``, ``rejected``, ``simplify_error``
non-finite on the data    ``non_finite``  ``non_finite``, ``constant``, ``evaluation_error``
missing                   ``missing``     ``missing value``, ``missing run``, ``missing_run``, ``no_model``
========================  ==============  ================================================================

Other kinds (``metric_mismatch``, ``similar name``, ...) are not failures of the method and are not
counted. A run that fails in two ways (a timeout listed by the judging and by a property) counts once
per type. ``imputed`` says whether any of these failures entered the verdict with a value the rules filled
in (the worst value, the last rank) rather than being left out: a DNF unless ``dnf = "left-out"``; a failed
or missing run value unless ``missing_run_value = "skipped"``; a non-finite prediction always (its
metrics are the worst possible).

The other view, "only where the method delivered" (:func:`delivered_verdict`), judges the same runs
again with the same rules and ranking kernel (:func:`srdash.judging.ranking.judge`) after keeping only
the runs a method delivered: a run whose model was read (status ``ok``, ``given`` or ``measured``) and
whose every criterion value is a finite number. A (method, dataset) without such a run is left out of
that dataset's ranking and of the method's mean (``dnf = "left-out"``), and a run value still missing
is skipped (``missing_run_value = "skipped"``): nothing is filled in. docs/rules.md states the same.

Examples
--------
>>> import pandas as pd
>>> from srdash.demo.examples import accuracy_rules
>>> from srdash.judging.ranking import judge
>>> runs = pd.DataFrame({"method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"], "run": 0,
...                      "r2_test": [0.9, None, 0.5, 0.7]})
>>> failures_by_type(judge(runs, accuracy_rules()))
  method  timed_out  did_not_parse  non_finite  missing imputed
0      a          0              0           0        0      no
1      b          0              0           0        1     yes
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from srdash.errors import SrdashError
from srdash.judging.ranking import Verdict, judge

__all__ = ["FAILURE_TYPES", "FAILURE_COLUMNS", "FAILURE_TYPE_OF_KIND", "FAILURE_VIEWS", "failures_by_type",
           "delivered_runs", "delivered_verdict", "DELIVERED_STATUSES"]

#: The five failure types, in the order the leaderboard shows them, with their leaderboard column.
FAILURE_TYPES: Mapping[str, str] = {
    "did not finish": "dnf",
    "timed out": "timed_out",
    "did not parse": "did_not_parse",
    "non-finite on the data": "non_finite",
    "missing": "missing",
}
#: The columns :func:`failures_by_type` adds (``dnf`` is already the leaderboard's).
FAILURE_COLUMNS = ("timed_out", "did_not_parse", "non_finite", "missing", "imputed")

#: The one place where a problem's ``kind`` becomes a failure type.
FAILURE_TYPE_OF_KIND: Mapping[str, str] = {
    "DNF": "did not finish",
    "timeout": "timed out",
    "parse_error": "did not parse",
    "rejected": "did not parse",
    "simplify_error": "did not parse",
    "non_finite": "non-finite on the data",
    "constant": "non-finite on the data",
    "evaluation_error": "non-finite on the data",
    "missing value": "missing",
    "missing run": "missing",
    "missing_run": "missing",
    "no_model": "missing",
}

#: The two views of a leaderboard: the verdict as the rules count failures, and the verdict on what each
#: method delivered (:func:`delivered_verdict`).
FAILURE_VIEWS: Mapping[str, str] = {
    "as-ruled": "failures as the rules count them",
    "delivered": "only where the method delivered",
}

#: Run statuses of a model that was read (the others failed: timeout, rejected, parse or simplify error).
DELIVERED_STATUSES = ("ok", "given", "measured")


def failures_by_type(verdict: Verdict) -> pd.DataFrame:
    """Each method's failed runs by type, and whether any value was filled in for them.

    Parameters
    ----------
    verdict : Verdict
        A verdict of runs (``rank-harmonic`` rules); its ``problems`` are counted.

    Returns
    -------
    DataFrame
        One row per method of the leaderboard, in its order: ``method``, ``timed_out``,
        ``did_not_parse``, ``non_finite``, ``missing`` (numbers of distinct failed runs, or cells for
        a missing run without a run id) and ``imputed`` (``'yes'`` or ``'no'``). Did-not-finish is the
        leaderboard's ``dnf`` column.
    """
    methods = list(verdict.leaderboard["method"])
    problems = verdict.problems
    kinds = problems["kind"].map(FAILURE_TYPE_OF_KIND) if len(problems) else pd.Series(dtype=object)
    failed = problems.assign(type=kinds)[kinds.notna()] if len(problems) else problems.assign(type=[])
    failed = failed[failed["method"].isin(methods)]
    # one failure per (method, dataset, run, type): a timeout may be listed by the judging and by a property
    failed = failed.assign(run=failed["run"].astype(object).where(failed["run"].notna(), "-"))
    failed = failed.drop_duplicates(["method", "dataset", "run", "type"])
    counts = failed.groupby(["method", "type"]).size()
    out = pd.DataFrame({"method": methods})
    for kind, column in FAILURE_TYPES.items():
        if column == "dnf":
            continue
        out[column] = [int(counts.get((m, kind), 0)) for m in methods]
    filled = failed[_filled(failed["kind"], verdict.rules)]
    out["imputed"] = np.where(out["method"].isin(set(filled["method"])), "yes", "no")
    return out


def _filled(kinds: pd.Series, rules) -> pd.Series:
    """Which failures entered the verdict with a value the rules filled in (module docstring)."""
    dnf_filled = getattr(rules, "dnf", "last") != "left-out"
    run_filled = getattr(rules, "missing_run_value", "worst") != "skipped"
    types = kinds.map(FAILURE_TYPE_OF_KIND)
    return ((types == "did not finish") & dnf_filled) | (types == "non-finite on the data") | (
        types.isin(["timed out", "did not parse", "missing"]) & run_filled)


def delivered_runs(runs: pd.DataFrame, verdict: Verdict) -> pd.DataFrame:
    """The runs each method delivered: model read, every ranked criterion's value a finite number.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.demo.examples import accuracy_rules
    >>> runs = pd.DataFrame({"method": ["a", "b", "b"], "dataset": "d", "run": [0, 0, 1],
    ...                      "r2_test": [0.9, float("-inf"), 0.5], "status": ["ok", "ok", "parse_error"]})
    >>> delivered_runs(runs, judge(runs, accuracy_rules()))[["method", "run"]].to_dict("list")
    {'method': ['a'], 'run': [0]}
    """
    keep = pd.Series(True, index=runs.index)
    if "status" in runs.columns:
        keep &= runs["status"].isin(DELIVERED_STATUSES) | runs["status"].isna()
    for criterion in verdict.criteria:
        values = pd.to_numeric(runs[criterion.column], errors="coerce").to_numpy(dtype=float)
        keep &= np.isfinite(values)
    return runs[keep].reset_index(drop=True)


def delivered_verdict(runs: pd.DataFrame, verdict: Verdict) -> Verdict:
    """The verdict judged again on what each method delivered (the module docstring defines it).

    Parameters
    ----------
    runs : DataFrame
        The per-run table the verdict was judged from (``CompetitionResult.runs``).
    verdict : Verdict
        The verdict as the rules count failures.

    Returns
    -------
    Verdict
        Judged by :func:`srdash.judging.ranking.judge` with the verdict's rules, ``dnf = "left-out"`` and
        ``missing_run_value = "skipped"``, on :func:`delivered_runs`; every method of the verdict is
        listed (one that delivered nothing scores 0 on no dataset).

    Raises
    ------
    SrdashError
        When the rules cannot leave failures out (``run_aggregation = 'rank-mean'`` ranks every run slot).
    """
    rules = verdict.rules
    if getattr(rules, "run_aggregation", None) == "rank-mean":
        raise SrdashError(f"The rules '{rules.name}' rank every run slot (run_aggregation = 'rank-mean'), so a "
                          "failure cannot be left out: the view 'only where the method delivered' needs rules "
                          "that aggregate runs with the median or the mean.")
    options = {"dnf": "left-out", "missing_run_value": "skipped"}
    if getattr(rules, "runs_per_dataset", 0):
        options["runs_per_dataset"] = 0  # a missing run is a failure of the other view, not of this one
    delivered = rules.with_options(**options)
    kept = delivered_runs(runs, verdict)
    methods = list(verdict.leaderboard["method"])
    return judge(kept, delivered, methods=methods)
