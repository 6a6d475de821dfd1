"""The real-world verdict: the representative runs judged on accuracy, simplicity and the judges' trust."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

from srdash.judging.rules import Rules, load_rules
from srdash.judging.trust.settings import ReviewSettings, review_settings
from srdash.judging.trust.summary import TrustSummary, trust_summary

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from srdash.judging.ranking import Verdict

__all__ = ["realworld_table", "realworld_verdict"]


def realworld_table(representatives: pd.DataFrame, summary: TrustSummary) -> pd.DataFrame:
    """The representative runs with their aggregated ``trust`` (1 = most trusted; NaN: not reviewed).

    Examples
    --------
    >>> import pandas as pd
    >>> reps = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.8]})
    >>> entries = pd.DataFrame({"judge": "ann", "dataset": "d", "method": ["a", "b"],
    ...                         "kind": "rating", "value": [2.0, 4.0]})
    >>> realworld_table(reps, trust_summary(entries, reps))[["method", "r2_test", "trust"]]
      method  r2_test  trust
    0      a      0.9    2.0
    1      b      0.8    1.0
    """
    table = representatives.drop(columns=[c for c in ("trust",) if c in representatives.columns])
    return table.merge(summary.table[["dataset", "method", "trust"]], on=["dataset", "method"], how="left")


def realworld_verdict(runs: pd.DataFrame, entries: pd.DataFrame, rules: str | Rules = "srbench2022-realworld", *,
                      settings: ReviewSettings | None = None, methods: Sequence[str] | None = None) -> Verdict:
    """Judge the real-world track: representative runs, accuracy, simplicity and trust.

    Parameters
    ----------
    runs : DataFrame
        The prepared per-run table (:func:`srdash.judging.pipeline.prepare_runs`).
    entries : DataFrame
        The trust entries (:meth:`TrustStore.entries`).
    rules : str or Rules
        Rules with a criterion on the ``trust`` column (direction ``lower``);
        their ``[representative]`` table picks the runs.
    settings : ReviewSettings, optional
        Default: the rules' (see :func:`review_settings`).
    methods : sequence of str, optional
        The competition's methods (default: those in ``runs``).

    Returns
    -------
    Verdict
        Its ``per_dataset`` has the representative's values and the ``trust``
        column; its warnings say which datasets lack a complete review and
        which entries were left out.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"method": ["a", "a", "a", "b"], "dataset": "d", "run": [0, 1, 2, 0],
    ...                      "r2_test": [0.9, 0.7, 0.8, 0.8], "simplicity": -1.0})
    >>> entries = pd.DataFrame({"judge": "ann", "dataset": "d", "method": ["a", "b"],
    ...                         "kind": "rank", "value": [2.0, 1.0]})
    >>> verdict = realworld_verdict(runs, entries)
    >>> verdict.per_dataset[["method", "accuracy", "trust", "trust_rank"]]
      method  accuracy  trust  trust_rank
    0      a       0.8    2.0         1.0
    1      b       0.8    1.0         2.0
    """
    from srdash.judging.ranking import judge  # lazy: pandas
    from srdash.judging.representative import representative_choice, representative_runs  # lazy: pandas

    rules = load_rules(rules)
    settings = settings or review_settings(rules)
    accuracy = next((c for c in rules.criteria if c.column == "r2_test"), None)
    representatives = representative_runs(runs, choice=representative_choice(rules),
                                          decimals=accuracy.decimals if accuracy else 3)
    summary = trust_summary(entries, representatives, settings=settings)
    table = realworld_table(representatives, summary)
    notes = []
    if "trust" not in table.columns or table["trust"].isna().all():
        # Before the review's first entry the track can only be shown provisionally, and says so.
        rules = replace(rules, criteria=tuple(replace(c, optional=True) if c.column == "trust" else c
                                              for c in rules.criteria))
        notes.append("No trust entry yet: this real-world verdict is provisional, ranked without trust until "
                     "the review gives its entries.")
    verdict = judge(table, rules, methods=methods if methods is not None else sorted(set(runs["method"])))
    unreviewed = sorted(set(table.loc[table["trust"].isna(), "dataset"]))
    if unreviewed and table["trust"].notna().any():
        notes.append(f"No complete trust review yet on {', '.join(unreviewed)}: there, every model gets the "
                     "same (worst) trust value.")
    for row in summary.problems.itertuples():
        notes.append(f"Trust entries of {row.judge} on {row.dataset}: {row.detail}.")
    return replace(verdict, warnings=verdict.warnings + tuple(notes))
