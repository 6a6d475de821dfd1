"""The judges' trust combined: which entries count, one trust position per model, and where the judges
agree or disagree.

A judge's entries on a dataset count only when complete and valid (:func:`entry_problems`); the
counted positions (1 = most trusted) combine by mean or median (:func:`trust_summary`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from srdash.judging.trust.agreement import kendalls_w, ranks_from_ratings
from srdash.judging.trust.settings import ReviewSettings

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["entry_problems", "TrustSummary", "trust_summary"]


def entry_problems(values: Mapping[str, float | None], *, kind: str, strict: bool = True,
                   labels: Mapping[str, str] | None = None) -> dict[str, str]:
    """What is missing or inconsistent in one judge's entries on one dataset.

    Parameters
    ----------
    values : mapping of method to value or None
        Every model shown on the dataset, with the judge's value (None: none yet).
    kind : {'rank', 'rating'}
    strict : bool
        Ranks must be 1..n, each once.
    labels : mapping of method to shown name, optional
        Used in the messages (default: the method names).

    Returns
    -------
    dict of method to message
        Only the methods with a problem; empty when the entries are complete and valid.

    Examples
    --------
    >>> problems = entry_problems({"a": 1, "b": 1, "c": None}, kind="rank",
    ...                           labels={"a": "Model A", "b": "Model B", "c": "Model C"})
    >>> for method, problem in problems.items():
    ...     print(method, problem)
    a Rank 1 is also given to Model B: give each rank once.
    b Rank 1 is also given to Model A: give each rank once.
    c No rank yet.
    >>> entry_problems({"a": 4, "b": 2}, kind="rating")
    {}
    """
    import pandas as pd

    labels = labels or {}
    noun = "rank" if kind == "rank" else "rating"
    given = {m: v for m, v in values.items() if v is not None and not pd.isna(v)}
    n = len(values)
    problems = {}
    for method, value in values.items():
        if method not in given:
            problems[method] = f"No {noun} yet."
        elif kind == "rank" and value > n:
            problems[method] = f"Rank {value:g} is more than the number of models ({n}): use 1 to {n}."
        elif kind == "rank" and strict:
            others = [labels.get(o, o) for o, v in given.items() if o != method and v == value]
            if others:
                problems[method] = f"Rank {value:g} is also given to {' and '.join(others)}: give each rank once."
    return problems


@dataclass(frozen=True, eq=False)
class TrustSummary:
    """The judges' trust, combined.

    Attributes
    ----------
    table : DataFrame
        One row per reviewed (dataset, method): ``trust`` (the aggregated rank,
        1 = most trusted; NaN when no judge completed the dataset) and
        ``judges`` (the number of judges whose ranks count).
    judge_ranks : DataFrame
        ``judge``, ``dataset``, ``method``, ``kind``, ``value``, ``trust_rank``
        (1 = most trusted) of every complete and valid set of entries.
    agreement : DataFrame
        Per dataset: ``judges``, ``models`` and ``kendalls_w`` (NaN with fewer
        than two judges).
    disagreements : DataFrame
        Per (dataset, method) reviewed by at least two judges: ``ranks`` (e.g.
        ``"ann 1, bob 3"``) and ``spread`` (highest minus lowest rank), the
        largest spread first.
    problems : DataFrame
        ``judge``, ``dataset``, ``detail``: entries left out (incomplete,
        inconsistent, or for a model not reviewed).
    aggregation : str
    """

    table: pd.DataFrame
    judge_ranks: pd.DataFrame
    agreement: pd.DataFrame
    disagreements: pd.DataFrame
    problems: pd.DataFrame
    aggregation: str = "mean-rank"


def _models_frame(models, entries: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    if models is None:
        return entries[["dataset", "method"]].drop_duplicates()
    if isinstance(models, pd.DataFrame):
        return models[["dataset", "method"]].drop_duplicates()
    return pd.DataFrame([(d, m) for d, methods in models.items() for m in methods], columns=["dataset", "method"])


def trust_summary(entries: pd.DataFrame, models=None, *, settings: ReviewSettings | None = None) -> TrustSummary:
    """Combine the judges' entries into one trust value per model, with their agreement.

    Parameters
    ----------
    entries : DataFrame
        As :meth:`TrustStore.entries` returns them.
    models : DataFrame or mapping, optional
        The models under review: a table with ``dataset`` and ``method``
        columns (e.g. the representative runs) or a mapping dataset -> methods.
        Default: the models that have entries.
    settings : ReviewSettings, optional
        Strictness of ranks and the aggregation (mean rank by default).

    Returns
    -------
    TrustSummary

    Examples
    --------
    Two judges, three models; bob swaps the first two. Rank sums 3, 3, 6 (mean
    4), S = 1 + 1 + 4 = 6, W = 12 * 6 / (2**2 * (3**3 - 3)) = 0.75:

    >>> import pandas as pd
    >>> entries = pd.DataFrame({"judge": ["ann"] * 3 + ["bob"] * 3, "dataset": "d",
    ...                         "method": ["a", "b", "c"] * 2, "kind": "rank",
    ...                         "value": [1.0, 2.0, 3.0, 2.0, 1.0, 3.0]})
    >>> summary = trust_summary(entries)
    >>> summary.table[["method", "trust", "judges"]]
      method  trust  judges
    0      a    1.5       2
    1      b    1.5       2
    2      c    3.0       2
    >>> round(float(summary.agreement["kendalls_w"].iloc[0]), 2)
    0.75
    >>> summary.disagreements[["dataset", "method", "ranks", "spread"]].head(2)
      dataset method         ranks  spread
    0       d      a  ann 1, bob 2     1.0
    1       d      b  ann 2, bob 1     1.0
    """
    import pandas as pd

    settings = settings or ReviewSettings()
    models = _models_frame(models, entries).sort_values(["dataset", "method"], ignore_index=True)
    reviewed = {d: list(g["method"]) for d, g in models.groupby("dataset", sort=True)}
    given = entries[entries["value"].notna()]
    judge_rows, problem_rows = [], []
    for (judge, dataset), group in given.groupby(["judge", "dataset"], sort=True):
        if dataset not in reviewed:
            problem_rows.append((judge, dataset, "no model of this dataset is under review; entries ignored"))
            continue
        shown = reviewed[dataset]
        extra = sorted(set(group["method"]) - set(shown))
        if extra:
            problem_rows.append((judge, dataset, f"entries for models not under review ignored: {', '.join(extra)}"))
        values = dict(zip(group["method"], group["value"]))
        kind = group["kind"].iloc[0]
        problems = entry_problems({m: values.get(m) for m in shown}, kind=kind, strict=settings.strict_ranks)
        if problems:
            missing = sum(1 for p in problems.values() if p.startswith("No "))
            detail = (f"{missing} of {len(shown)} models without a value" if missing
                      else "; ".join(f"{m}: {p}" for m, p in problems.items()))
            problem_rows.append((judge, dataset, f"left out: {detail}"))
            continue
        ordered = [values[m] for m in shown]
        # ratings: higher = more trust; positions (strict, or tied when allowed): as given, 1 = most trusted
        positions = (ranks_from_ratings(ordered) if kind == "rating"
                     else pd.Series(ordered, dtype=float).rank(method="average").to_numpy())
        judge_rows += [(judge, dataset, m, kind, float(values[m]), float(p)) for m, p in zip(shown, positions)]
    judge_ranks = pd.DataFrame(judge_rows, columns=["judge", "dataset", "method", "kind", "value", "trust_rank"])
    combine = "mean" if settings.aggregation == "mean-rank" else "median"
    grouped = judge_ranks.groupby(["dataset", "method"], sort=True)["trust_rank"]
    combined = pd.DataFrame({"trust": grouped.agg(combine), "judges": grouped.size()}).reset_index()
    table = models.merge(combined, on=["dataset", "method"], how="left")
    table["judges"] = table["judges"].fillna(0).astype(int)
    table["trust"] = table["trust"].astype(float)

    agreement_rows, spread_rows = [], []
    for dataset, group in judge_ranks.groupby("dataset", sort=True):
        matrix = group.pivot(index="judge", columns="method", values="trust_rank")
        agreement_rows.append((dataset, matrix.shape[0], matrix.shape[1], kendalls_w(matrix.to_numpy())))
        if matrix.shape[0] >= 2:
            for method in matrix.columns:
                column = matrix[method]
                listed = ", ".join(f"{j} {r:g}" for j, r in column.items())
                spread_rows.append((dataset, method, listed, float(column.max() - column.min()),
                                    float(column.std(ddof=0))))
    agreement = pd.DataFrame(agreement_rows, columns=["dataset", "judges", "models", "kendalls_w"])
    disagreements = pd.DataFrame(spread_rows, columns=["dataset", "method", "ranks", "spread", "std"])
    disagreements = disagreements.sort_values(["spread", "std", "dataset", "method"],
                                              ascending=[False, False, True, True], ignore_index=True)
    problems = pd.DataFrame(problem_rows, columns=["judge", "dataset", "detail"])
    return TrustSummary(table=table, judge_ranks=judge_ranks, agreement=agreement,
                        disagreements=disagreements.drop(columns="std"), problems=problems,
                        aggregation=settings.aggregation)
