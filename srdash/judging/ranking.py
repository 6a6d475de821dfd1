"""Ranking and aggregation: from per-run criteria to a verdict.

The procedure (``kind = "rank-harmonic"`` rules, as in SRBench 2022):

1. per run, each criterion's value is rounded to the criterion's decimals;
2. per (method, dataset), the runs are combined with the median (or mean) and
   rounded again, so that near-equal values tie;
3. per dataset and criterion, methods are ranked so that **higher is better**:
   ranks run from 1 (worst) to K (best), K = number of methods; ties follow the
   rules' ``rank_method``;
4. the dataset score is the weighted harmonic mean of the criteria ranks;
5. the final score is the mean of the dataset scores.

Means (over runs, over datasets) are Kahan-compensated sums in row order
(:mod:`srdash.judging.compensated`, as pandas 1.3's ``groupby().mean()``), so a verdict does not
depend on the installed pandas.

Missing values follow one documented rule: a (method, dataset) pair without any
run is *DNF* and takes the lowest positions (tied among DNFs) on every
criterion; a run whose value is missing (NaN, e.g. a model that could not be
parsed) counts as the worst possible value (-inf once oriented so that higher is
better) and takes part in the median like any other value. A criterion with no
value at all in the input stops the verdict (:class:`srdash.errors.CriterionWithoutData`),
unless the rules mark it ``optional``: then it is left out of the harmonic mean, with a warning.

Those are the defaults. The rules' options (docs/rules.md) can normalise a criterion over the
whole table before aggregation, round only per run or only after aggregation, compare values
within a tolerance, leave DNFs out of a method's mean or give them the worst value of the
table, skip missing run values, and count a missing rank as K (``srbench2022-as-run`` uses
these to compute what the SRBench 2022 organisers' notebook computed). With exact comparison,
values equal to 12 significant digits but ranked apart are listed in the verdict's warnings.

Examples
--------
>>> import pandas as pd
>>> from srdash.judging.rules import parse_rules
>>> rules = parse_rules('''
... [[criteria]]
... name = "accuracy"
... column = "r2_test"
... decimals = 3
... ''')
>>> table = pd.DataFrame({
...     "method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"],
...     "run": 0, "r2_test": [0.9, 0.8, 0.5, 0.7]})
>>> judge(table, rules).leaderboard[["place", "method", "score"]]
   place method  score
0      1      a    1.5
1      1      b    1.5
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.judging.domains import check_domains
from srdash.judging import compensated, provenance
from srdash.judging.kernel import rank_higher_better, scores_from_ranks, weighted_harmonic_mean
from srdash.errors import CriterionWithoutData, SrdashError
from srdash.judging.measures import measure
from srdash.judging.rules import Criterion, Rules

__all__ = [
    "Verdict",
    "judge",
    "aggregate_runs",
    "rank_within_dataset",
    "weighted_harmonic_mean",
    "scores_from_ranks",
    "place_from_scores",
    "harmonic_over_all",
    "compare_verdicts",
    "versions",
]

# Scores are compared after rounding to this many decimals so that sums done
# in a different order (a permuted input) cannot split a genuine tie.
_SCORE_DECIMALS = 9


def versions() -> dict[str, str]:
    """Versions that a verdict depends on (see :func:`srdash.judging.provenance.versions`).

    Examples
    --------
    >>> sorted(versions())
    ['numpy', 'pandas', 'python', 'srdash', 'sympy']
    """
    return provenance.versions()


@dataclass(frozen=True)
class Verdict:
    """The outcome of judging a competition under one set of rules.

    Attributes
    ----------
    leaderboard : DataFrame
        One row per method, best first: ``place`` (1 = best; tied scores share
        the smallest place), ``method``, ``score`` (mean over datasets of the
        dataset scores; higher is better; with ``dnf = "left-out"`` over the
        datasets the method has results for), ``<criterion>_rank`` (mean rank
        over datasets; higher is better, K = best), ``datasets`` (number of
        datasets where the method has a result) and ``dnf`` (datasets judged where it has none;
        ``datasets + dnf`` is the number of datasets judged).
    per_dataset : DataFrame
        One row per (dataset, method): ``status`` ('ok' or 'DNF'), ``runs``,
        the aggregated ``<criterion>`` value (in its own direction; NaN for
        DNF, -inf/+inf when every run failed), ``<criterion>_rank`` and
        ``dataset_score`` (both NaN for a DNF left out by ``dnf = "left-out"``).
    problems : DataFrame
        ``kind``, ``method``, ``dataset``, ``run``, ``detail``: rejected or
        failed models, timeouts, missing values and DNF cells.
    criteria : tuple of Criterion
        The criteria actually ranked (those with data).
    warnings : tuple of str
        Things the reader of the verdict must know (dropped criteria, version
        mismatches, float-noise ties ranked apart, ...).
    rules : Rules
    n_methods : int
        K, the number of methods ranked.
    provenance : Mapping
        Versions and the rules hash; the pipeline adds input hashes.
    """

    leaderboard: pd.DataFrame
    per_dataset: pd.DataFrame
    problems: pd.DataFrame
    criteria: tuple[Criterion, ...]
    warnings: tuple[str, ...]
    rules: Rules
    n_methods: int
    provenance: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def winner(self) -> str:
        """The method in first place (ties: alphabetical first)."""
        return str(self.leaderboard["method"].iloc[0])

    def with_provenance(self, **entries: str) -> "Verdict":
        """A copy with more provenance entries."""
        merged = dict(self.provenance)
        merged.update(entries)
        return replace(self, provenance=MappingProxyType(merged))


def _oriented(values: pd.Series, criterion: Criterion) -> pd.Series:
    """Values oriented so that higher is better, missing values -> -inf."""
    oriented = values if criterion.direction == "higher" else -values
    return oriented.fillna(-np.inf)


def _round(values: pd.Series, decimals: int | None) -> pd.Series:
    return values if decimals is None else values.round(decimals)


def _normalised(values: pd.Series, criterion: Criterion) -> pd.Series:
    """Min-max normalised over every finite value of the table (``normalisation = "min-max-table"``)."""
    if criterion.normalisation == "none":
        return values
    finite = values[np.isfinite(values)]
    if finite.empty:
        return values
    low, high = finite.min(), finite.max()
    if high == low:  # one value: every finite value becomes 0 (rather than 0/0)
        return values.where(~np.isfinite(values), 0.0)
    return (values - low) / (high - low)


def _per_run_values(table: pd.DataFrame, rules: Rules, criteria: Sequence[Criterion]) -> pd.DataFrame:
    """dataset, method, run, padded and each criterion rounded, normalised and oriented (higher = better).

    With the rules' ``runs_per_dataset`` N > 0, a (method, dataset) with fewer than N runs gets the
    missing ones as runs without any value (``padded`` True). Missing values become -inf (the worst),
    stay NaN when the rules' ``missing_run_value`` is ``"skipped"``, or become the worst finite value
    of the criterion over every run of the table with ``"worst-value"``. Runs failing the rules'
    ``min_relative`` threshold get -inf on every criterion (a missing run is missing, not failing).
    """
    # A canonical row order: a float mean summed in another order can round
    # differently at the decimals' boundary, and a permuted input must not.
    keys = [k for k in ("dataset", "method", "run") if k in table.columns]
    table = table.sort_values(keys, kind="stable")
    per_run = pd.DataFrame({
        "dataset": table["dataset"].to_numpy(),
        "method": table["method"].to_numpy(),
        "run": table["run"].to_numpy() if "run" in table.columns else 0,
        "padded": False,
    })
    for c in criteria:
        values = pd.to_numeric(table[c.column], errors="coerce").astype(float)
        if c.rounding in ("both", "per-run"):
            values = _round(values, c.decimals)
        values = _normalised(values, c)
        per_run[c.name] = (values if c.direction == "higher" else -values).to_numpy()
    if rules.min_relative is not None:
        column, ratio = rules.min_relative
        if column not in table.columns:
            raise SrdashError(f"The rules' threshold [filters] min_relative uses the column '{column}', which the "
                              f"table does not have. Columns: {', '.join(map(str, table.columns))}.")
        value = pd.to_numeric(table[column], errors="coerce").to_numpy()
        best = pd.Series(value).groupby(per_run["dataset"].to_numpy()).transform("max").to_numpy()
        with np.errstate(invalid="ignore"):
            passes = (best > 0) & (value > ratio * best)
        for c in criteria:
            per_run.loc[~passes, c.name] = -np.inf
    if rules.runs_per_dataset:
        per_run = _padded(per_run, rules.runs_per_dataset)
    for c in criteria:
        if rules.missing_run_value == "worst":
            per_run[c.name] = per_run[c.name].fillna(-np.inf)
        elif rules.missing_run_value == "worst-value":
            measured = per_run[c.name][np.isfinite(per_run[c.name])]
            per_run[c.name] = per_run[c.name].fillna(measured.min() if len(measured) else -np.inf)
    return per_run


def _padded(per_run: pd.DataFrame, runs: int) -> pd.DataFrame:
    """Per-run values with a value-less row for each run a (method, dataset) lacks of ``runs``."""
    counts = per_run.groupby(["dataset", "method"], sort=True).size()
    lacking = counts[counts < runs]
    if lacking.empty:
        return per_run
    index = lacking.index.repeat((runs - lacking).to_numpy())
    extra = pd.DataFrame({"dataset": index.get_level_values(0), "method": index.get_level_values(1),
                          "run": np.nan, "padded": True})
    return pd.concat([per_run, extra], ignore_index=True)


def aggregate_runs(table: pd.DataFrame, rules: Rules, *, methods: Sequence[str] | None = None) -> pd.DataFrame:
    """Combine the runs of each (method, dataset) into one value per criterion.

    Parameters
    ----------
    table : DataFrame
        Per-run table with ``method``, ``dataset`` and the criteria columns.
    rules : Rules
        Its ``run_aggregation`` says how (``rank-mean`` shows the median here;
        its ranks come from :func:`judge`).
    methods : sequence of str, optional
        Methods of the competition (default: those in ``table``). A method
        absent from a dataset is DNF there.

    Returns
    -------
    DataFrame
        One row per (dataset, method) of the full grid, sorted: ``status``,
        ``runs`` and one column per criterion (oriented back to the
        criterion's own direction; NaN for DNF, unless the rules'
        ``dnf = "worst-value"`` fills it).

    Examples
    --------
    The missing third run of ``a`` counts as the worst value, so the median of
    (0.5, 0.9, -inf) is 0.5:

    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a", "a", "a", "b"], "dataset": "d", "run": [0, 1, 2, 0],
    ...                   "r2_test": [0.5, 0.9, np.nan, 0.7]})
    >>> aggregate_runs(t, load_rules("srbench2022"))[["method", "runs", "accuracy"]]
      method  runs  accuracy
    0      a     3       0.5
    1      b     1       0.7
    """
    criteria = [c for c in rules.criteria if c.column in table.columns]
    # unique() first: iterating a whole (arrow-backed) string column is slow
    all_methods = sorted(set(methods) if methods is not None else table["method"].unique())
    datasets = sorted(table["dataset"].unique())
    grid = pd.MultiIndex.from_product([datasets, all_methods], names=["dataset", "method"])
    per_run = _per_run_values(table, rules, criteria)
    how = "median" if rules.run_aggregation == "rank-mean" else rules.run_aggregation
    grouped = per_run.groupby(["dataset", "method"], sort=True)
    names = [c.name for c in criteria]
    if how == "mean":  # compensated, in run order: pandas' own mean changed arithmetic in pandas 3.1
        means = compensated.group_mean(per_run[names].to_numpy(dtype=float), grouped.ngroup().to_numpy(),
                                       grouped.ngroups)
        combined = pd.DataFrame(means, index=grouped.size().index, columns=names)
    else:
        combined = grouped[names].agg(how)
    combined["runs"] = (~per_run["padded"]).groupby([per_run["dataset"], per_run["method"]], sort=True).sum()
    out = combined.reindex(grid)
    out["runs"] = out["runs"].fillna(0).astype(int)
    out["status"] = np.where(out["runs"] > 0, "ok", "DNF")
    for c in criteria:
        back = _round(out[c.name], c.decimals) if c.rounding in ("both", "after-aggregation") else out[c.name]
        if rules.dnf == "worst-value":
            # the srbench2025 preset's choice (SRBench 2025's own ranks leave a DNF unranked): the worst value
            # measured (finite) of the criterion in the whole table
            measured = per_run[c.name][np.isfinite(per_run[c.name])]
            worst = measured.min() if len(measured) else -np.inf
            back = back.where(out["status"] == "ok", worst)
        out[c.name] = back if c.direction == "higher" else -back
    out = out.reset_index()
    return out[["dataset", "method", "status", "runs"] + [c.name for c in criteria]]


def _rank_mean(table: pd.DataFrame, rules: Rules, criteria: Sequence[Criterion], methods: Sequence[str],
               n_methods: int) -> pd.DataFrame:
    """Rank methods among the runs sharing a run id, then average each method's ranks over the runs."""
    per_run = _per_run_values(table, rules, criteria)
    slots = per_run[["dataset", "run"]].drop_duplicates()
    grid = slots.merge(pd.DataFrame({"method": list(methods)}), how="cross")
    full = grid.merge(per_run, on=["dataset", "method", "run"], how="left")
    slot_key = pd.Series(full["dataset"].astype(str) + "\x00" + full["run"].astype(str), index=full.index)
    ranked = full[["dataset", "method"]].copy()
    for c in criteria:
        values = full[c.name].fillna(-np.inf)  # a missing run of a method: worst
        ranked[f"{c.name}_rank"] = rank_within_dataset(values, slot_key, method=rules.rank_method,
                                                       n_methods=n_methods, tolerance=rules.tie_tolerance)
    return ranked.groupby(["dataset", "method"], sort=True).mean().reset_index()


def rank_within_dataset(values: pd.Series, datasets: pd.Series, *, direction: str = "higher",
                        method: str = "average", n_methods: int | None = None, tolerance: float = 0.0,
                        missing: str = "worst") -> pd.Series:
    """Rank methods within each dataset, higher rank = better.

    Parameters
    ----------
    values : Series
        One value per (dataset, method); NaN means DNF and ranks lowest (tied).
    datasets : Series
        The dataset of each value (same index).
    direction : {'higher', 'lower'}
        Which values are better.
    method : {'average', 'min', 'max', 'dense', 'k-minus-dense', 'dense-from-best'}
        Tie rule. ``average``/``min``/``max``: tied values get the average,
        lowest or highest of the positions they occupy (1 = worst, K = best);
        ``dense``: 1 for the worst value, +1 for each better distinct value;
        ``k-minus-dense``: K minus the dense rank counted from the best value;
        ``dense-from-best``: K + 1 minus that dense rank (the best gets K).
    n_methods : int, optional
        K for ``k-minus-dense`` (default: the group size).
    tolerance : float
        Values at most this far apart tie (see :func:`srdash.judging.kernel.rank_higher_better`);
        0: exact comparison.
    missing : {'worst', 'unranked'}
        NaN values rank lowest (tied), or are not ranked (their rank is NaN and
        they take no position).

    Examples
    --------
    >>> v = pd.Series([0.9, 0.9, 0.5, np.nan])
    >>> d = pd.Series(["x"] * 4)
    >>> rank_within_dataset(v, d).tolist()
    [3.5, 3.5, 2.0, 1.0]
    >>> rank_within_dataset(v, d, method="k-minus-dense").tolist()
    [3.0, 3.0, 2.0, 1.0]
    >>> rank_within_dataset(v, d, direction="lower", method="min").tolist()
    [2.0, 2.0, 4.0, 1.0]
    >>> rank_within_dataset(v, d, method="k-minus-dense", missing="unranked").tolist()
    [3.0, 3.0, 2.0, nan]
    """
    oriented = (values if direction == "higher" else -values).astype(float)
    if missing == "worst":
        oriented = oriented.fillna(-np.inf)
    oriented = oriented.to_numpy()
    codes, _ = pd.factorize(datasets.to_numpy(), sort=False)
    out = np.full(len(oriented), np.nan)
    order = np.argsort(codes, kind="stable")
    boundaries = np.flatnonzero(np.diff(codes[order])) + 1
    for rows in np.split(order, boundaries):
        k = n_methods or len(rows)
        rows = rows[~np.isnan(oriented[rows])]
        if len(rows):
            out[rows] = rank_higher_better(oriented[rows], method, n_methods=k, tolerance=tolerance)
    return pd.Series(out, index=values.index)


def harmonic_over_all(per_dataset: pd.DataFrame, criteria: Sequence[Criterion]) -> pd.Series:
    """Each method's weighted harmonic mean of all its (dataset, criterion) ranks.

    The ``[ranking] score = "harmonic-over-all"`` option (SRBench 2023 track 1): with
    ranks r[d, c] and weights w[c], ``score = D * sum(w) / sum_d sum_c (w[c] / r[d, c])``
    over the D datasets; a rank of 0 gives 0. With equal weights this is the guide's
    ``2*n / sum(1/acc[i] + 1/simpl[i])``. Not the mean of the per-dataset harmonic means:
    ranks (1, 1) on one dataset and (3, 3) on another give 1.5 here and 2 there.

    Parameters
    ----------
    per_dataset : DataFrame
        ``method`` and one ``<criterion>_rank`` column per criterion, one row per dataset.
    criteria : sequence of Criterion

    Returns
    -------
    Series
        Score by method (index sorted).

    Examples
    --------
    >>> from srdash.judging.rules import Criterion
    >>> table = pd.DataFrame({"method": ["a", "a"], "x_rank": [1.0, 3.0], "y_rank": [1.0, 3.0]})
    >>> harmonic_over_all(table, [Criterion("x", "x"), Criterion("y", "y")]).tolist()  # 4 / (1 + 1 + 1/3 + 1/3)
    [1.5]
    """
    weights = np.array([c.weight for c in criteria], dtype=float)
    ranks = per_dataset[[f"{c.name}_rank" for c in criteria]].to_numpy(dtype=float)
    with np.errstate(divide="ignore"):
        inverse = np.where(ranks > 0, weights / np.where(ranks > 0, ranks, 1.0), np.where(weights > 0, np.inf, 0.0))
    per_row = inverse.sum(axis=1)
    grouped = pd.Series(per_row).groupby(per_dataset["method"].to_numpy(), sort=True)
    # compensated, in the rows' order: one arithmetic whatever pandas' own sum does (srdash.judging.compensated)
    sums = compensated.group_mean(per_row.reshape(-1, 1), grouped.ngroup().to_numpy(), grouped.ngroups,
                                  divide=False)[:, 0]
    total = pd.Series(sums, index=grouped.size().index)
    score = grouped.size() * weights.sum() / total
    return score.where(np.isfinite(total), 0.0)


def place_from_scores(scores: Sequence[float], *, exact: bool = False) -> np.ndarray:
    """Places (1 = best); equal scores share the smallest place.

    Parameters
    ----------
    scores : sequence of float
    exact : bool
        False: scores are compared rounded to 9 decimals, so scores that differ only
        in float noise share a place; True: compared exactly (the rules' ``places = "exact"``).

    Examples
    --------
    >>> place_from_scores([2.0, 3.5, 2.0, 1.0]).tolist()
    [2, 1, 2, 4]
    >>> place_from_scores([0.1 + 0.2, 0.3]).tolist(), place_from_scores([0.1 + 0.2, 0.3], exact=True).tolist()
    ([1, 1], [1, 2])
    """
    values = np.asarray(scores, dtype=float)
    compared = pd.Series(values if exact else np.round(values, _SCORE_DECIMALS))
    return compared.rank(method="min", ascending=False).astype(int).to_numpy()


def _refuse_missing_criteria(table: pd.DataFrame, rules: Rules, with_data: Sequence[Criterion]) -> None:
    """No silent gaps: a required criterion without any value stops the verdict, saying how to supply it."""
    missing = [c for c in rules.criteria if c not in with_data and not c.optional]
    if not missing:
        return
    lines = [f"Criterion '{c.name}' of the rules '{rules.name}' has no data: the column '{c.column}' is "
             f"{'empty' if c.column in table.columns else 'missing'}. It is measured '{c.measure}' "
             f"({measure(c.measure).summary.rstrip('.')}): {measure(c.measure).how_to_supply}."
             for c in missing]
    lines.append("A verdict without it would rank on the other criteria alone: give its data, choose rules "
                 "without it, or mark it `optional = true` in the rules (docs/rules.md).")
    raise CriterionWithoutData("\n".join(lines), criteria=[c.name for c in missing])


_MISSING_RUN_DETAIL = {
    "worst": "counted as the worst value",
    "skipped": "left out of the aggregation over runs",
    "worst-value": "counted as the worst value of the table",
}

_DNF_DETAIL = {
    "last": "no result on this dataset; ranked last on every criterion",
    "left-out": "no result on this dataset; left out of the ranking there and of the method's mean",
    "worst-value": "no result on this dataset; counted as the worst value of the table on every criterion",
}


def _row_values(frame: pd.DataFrame, columns: Sequence[str], missing=None) -> list:
    """Each of ``columns`` as the values ``frame.iterrows()`` rows would hold (taken from the same interleaved
    ``frame.values``), ``missing`` for a column the frame lacks; without building a Series per row."""
    values = frame.to_numpy() if len(frame.columns) else np.empty((len(frame), 0), dtype=object)
    return [values[:, frame.columns.get_loc(c)] if c in frame.columns else [missing] * len(frame) for c in columns]


def _problems(table: pd.DataFrame, aggregated: pd.DataFrame, criteria: Sequence[Criterion],
              rules: Rules) -> pd.DataFrame:
    rows = []
    # A run whose model failed (refused, unreadable, timed out) is listed once, with its reason and the
    # criteria it counts as worst on, rather than once more per missing value.
    failed = (~table["status"].isin(["ok", "given", "measured"]) & table["status"].notna() if "status" in table.columns
              else pd.Series(False, index=table.index)).to_numpy(dtype=bool)
    missing_of = {c.column: pd.to_numeric(table[c.column], errors="coerce").isna().to_numpy(dtype=bool)
                  for c in criteria}
    if failed.any():
        worst_of = [(c.label, missing_of[c.column][failed]) for c in criteria]
        statuses, methods, datasets, runs, reasons = _row_values(table[failed],
                                                                ("status", "method", "dataset", "run", "reason"))
        for i, (status, method, dataset, run, reason) in enumerate(zip(statuses, methods, datasets, runs, reasons)):
            reason = str(reason or "").strip()
            worst = [label for label, missing in worst_of if missing[i]]
            if worst:
                reason = (reason.rstrip(".") + "; " if reason else "") + \
                    f"counted as the worst value on {', '.join(worst)}"
            rows.append({"kind": status, "method": method, "dataset": dataset, "run": run, "detail": reason})
    for c in criteria:
        missing = missing_of[c.column] & ~failed
        if not missing.any():
            continue
        detail = f"no {c.label} ({c.column}); " + _MISSING_RUN_DETAIL[rules.missing_run_value]
        for method, dataset, run in zip(*_row_values(table[missing], ("method", "dataset", "run"))):
            rows.append({"kind": "missing value", "method": method, "dataset": dataset, "run": run, "detail": detail})
    if rules.runs_per_dataset:
        short = aggregated[(aggregated["status"] == "ok") & (aggregated["runs"] < rules.runs_per_dataset)]
        for method, dataset, runs in zip(*_row_values(short, ("method", "dataset", "runs"))):
            lacking = rules.runs_per_dataset - int(runs)
            rows.append({"kind": "missing run", "method": method, "dataset": dataset, "run": None,
                         "detail": f"{lacking} of the {rules.runs_per_dataset} runs missing; each "
                                   + _MISSING_RUN_DETAIL[rules.missing_run_value]})
    for method, dataset in zip(*_row_values(aggregated[aggregated["status"] == "DNF"], ("method", "dataset"))):
        rows.append({"kind": "DNF", "method": method, "dataset": dataset, "run": None,
                     "detail": _DNF_DETAIL[rules.dnf]})
    problems = pd.DataFrame(rows, columns=["kind", "method", "dataset", "run", "detail"])
    return problems.sort_values(["kind", "dataset", "method"], kind="stable").reset_index(drop=True)


def _domain_problems_as_worst(original: pd.DataFrame, checked: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    """Values the domain check removed, set to the worst value (so that ``missing_run_value = "skipped"``
    or ``"worst-value"`` does not skip or fill them: a value outside its domain is a problem, not a missing
    value)."""
    out = checked
    for c in rules.criteria:
        if c.domain is None or c.column not in original.columns:
            continue
        removed = (pd.to_numeric(original[c.column], errors="coerce").notna()
                   & pd.to_numeric(checked[c.column], errors="coerce").isna())
        if removed.any():
            out = out.copy() if out is checked else out
            out[c.column] = pd.to_numeric(out[c.column], errors="coerce")
            out.loc[removed, c.column] = -np.inf if c.direction == "higher" else np.inf
    return out


#: The SRBench 2022 notebook's difficulties in its order ('0-easier' < '1-easy' < '2-medium' < '3-hard');
#: its loader renamed '_base' to '_easy'.
_DIFFICULTIES_2022 = {"easier": 0, "easy": 1, "base": 1, "medium": 2, "hard": 3}


def _srbench2022_key(name: str) -> tuple[str, int, str]:
    """(task, difficulty, name) as the 2022 notebook derived them from a dataset's name (stage1.ipynb, the
    loading cell); a name not of that form sorts by itself."""
    parts = name.split("_")
    exact = "exact" in name
    task = "_".join(parts[:2]) if exact else parts[0]
    position = 2 if exact else 1
    difficulty = parts[position] if len(parts) > position else ""
    if difficulty not in _DIFFICULTIES_2022:
        return name, -1, name
    return task, _DIFFICULTIES_2022[difficulty], name


def _summing_order(datasets: pd.Series, how: str) -> np.ndarray:
    """Row positions in the order the rules' ``dataset_order`` sums each method's datasets (rows sorted by name)."""
    if how == "name":
        return np.arange(len(datasets))
    keys = [_srbench2022_key(str(d)) for d in datasets]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


#: Two values equal to this many significant digits are "the same number" to a reader.
_NOISE_DIGITS = 12


def _float_noise_ties(per_dataset: pd.DataFrame, criteria: Sequence[Criterion]) -> list[str]:
    """Warnings for values equal to 12 significant digits that exact comparison ranked apart."""
    notes = []
    for c in criteria:
        ranked = per_dataset[per_dataset[f"{c.name}_rank"].notna() & np.isfinite(per_dataset[c.name].astype(float))]
        if ranked.empty:
            continue
        values = ranked[c.name].astype(float).to_numpy()
        shown = np.array([float(f"{v:.{_NOISE_DIGITS}g}") for v in values])
        codes = pd.factorize(ranked["dataset"].to_numpy())[0]
        if len(np.unique(np.column_stack([codes, values]), axis=0)) == len(np.unique(np.column_stack([codes, shown]),
                                                                                   axis=0)):
            continue  # no two values of a dataset print alike yet differ: nothing to warn about
        frame = pd.DataFrame({"dataset": ranked["dataset"].to_numpy(), "shown": shown, "value": values,
                              "method": ranked["method"].to_numpy(),
                              "rank": ranked[f"{c.name}_rank"].to_numpy()})
        distinct = frame.groupby(["dataset", "shown"], sort=True)["value"].transform("nunique")
        for (dataset, _), group in frame[distinct > 1].groupby(["dataset", "shown"], sort=True):
            group = group.sort_values(["rank", "method"], ascending=[False, True], kind="stable")
            listed = ", ".join(f"'{row.method}' {row.value!r} (rank {row.rank:g})" for row in group.itertuples())
            notes.append(f"Float-noise tie ranked apart on dataset '{dataset}', criterion '{c.name}': values equal "
                         f"to {_NOISE_DIGITS} significant digits were compared exactly: {listed}.")
    return notes


def judge(table: pd.DataFrame, rules: Rules, *, methods: Sequence[str] | None = None) -> Verdict:
    """Judge a competition: per-run criteria in, verdict out.

    Parameters
    ----------
    table : DataFrame
        Per-run table (``method``, ``dataset``, criteria columns; see
        ``docs/architecture.md``), already validated.
    rules : Rules
        Rules of kind ``rank-harmonic``.
    methods : sequence of str, optional
        The competition's methods (default: every method in ``table``); K is
        their number.

    Returns
    -------
    Verdict

    Raises
    ------
    SrdashError
        When no criterion of the rules has any data.

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0,
    ...                   "r2_test": [0.9, 0.8], "simplicity": [-1.0, -0.5]})
    >>> v = judge(t.assign(property=[0.5, 0.7]), load_rules("srbench2022"))
    >>> v.leaderboard[["method", "accuracy_rank", "simplicity_rank", "property_rank"]].to_dict("list")
    {'method': ['b', 'a'], 'accuracy_rank': [1.0, 2.0], 'simplicity_rank': [2.0, 1.0], 'property_rank': [2.0, 1.0]}

    A criterion without data stops the verdict, unless the rules mark it optional:

    >>> judge(t, load_rules("srbench2022"))
    Traceback (most recent call last):
    ...
    srdash.errors.CriterionWithoutData: Criterion 'property' of the rules 'srbench2022' has no data: the column 'property' is missing. ...
    """
    if not rules.rule_kind.judges_runs:
        raise SrdashError(f"judge() ranks per-run results; the rules '{rules.name}' are of kind '{rules.kind}', "
                          "which judges submissions.")
    # Values outside a criterion's domain (R2 > 1, inf, ...) are problems counted as the worst value.
    checked = check_domains(table, rules)
    if rules.missing_run_value != "worst":  # a value outside its domain stays the worst, not a missing value
        checked_table = _domain_problems_as_worst(table, checked.table, rules)
    else:
        checked_table = checked.table
    table, notes = checked_table, list(checked.problems)
    criteria = []
    for c in rules.criteria:
        if c.column in table.columns and pd.to_numeric(table[c.column], errors="coerce").notna().any():
            criteria.append(c)
        elif c.optional:
            notes.append(f"Criterion '{c.name}' has no data (column '{c.column}' is missing or empty); "
                         "it is optional and left out of the harmonic mean.")
    _refuse_missing_criteria(table, rules, criteria)
    if not criteria:
        raise SrdashError(
            f"None of the criteria of the rules '{rules.name}' has data: expected column(s) "
            f"{', '.join(repr(c.column) for c in rules.criteria)}; the table has {', '.join(map(repr, table.columns))}."
        )
    if sum(c.weight for c in criteria) <= 0:
        raise SrdashError("Every criterion with data has weight 0; give at least one a positive weight.")
    sympy_warning = provenance.sympy_version_warning(rules)
    if sympy_warning:
        notes.append(sympy_warning)

    used_rules = rules if len(criteria) == len(rules.criteria) else replace(rules, criteria=tuple(criteria))
    aggregated = aggregate_runs(table, used_rules, methods=methods)
    n_methods = aggregated["method"].nunique()
    per_dataset = aggregated.copy()
    if rules.run_aggregation == "rank-mean":
        run_ranks = _rank_mean(table, used_rules, criteria, sorted(per_dataset["method"].unique()), n_methods)
        # a DNF method's runs are all missing, so it already takes the lowest
        # positions (tied with runs that failed the threshold) in every run
        per_dataset = per_dataset.merge(run_ranks, on=["dataset", "method"], how="left")
    else:
        ok = per_dataset["status"] == "ok"
        for c in criteria:
            oriented = per_dataset[c.name] if c.direction == "higher" else -per_dataset[c.name]
            if rules.dnf == "last":
                oriented = oriented.where(ok, -np.inf)
            elif rules.dnf == "left-out":
                oriented = oriented.where(ok, np.nan)
            no_value = ok & oriented.isna()  # every run missing, with missing_run_value = "skipped"
            if rules.missing_rank == "worst":
                oriented = oriented.where(~no_value, -np.inf)
            rank = rank_within_dataset(oriented, per_dataset["dataset"], method=rules.rank_method,
                                       n_methods=n_methods, tolerance=rules.tie_tolerance, missing="unranked")
            if rules.missing_rank == "best":  # not ranked; counts as K (the SRBench 2022 notebook)
                rank = rank.where(~no_value, float(n_methods))
            per_dataset[f"{c.name}_rank"] = rank
        if rules.ties == "exact":
            notes.extend(_float_noise_ties(per_dataset, criteria))
    ranks = [per_dataset[f"{c.name}_rank"].to_numpy() for c in criteria]
    weights = np.array([c.weight for c in criteria], dtype=float)
    per_dataset["dataset_score"] = weighted_harmonic_mean(np.column_stack(ranks), weights)
    if rules.dnf == "left-out":  # not ranked there: the final score is the mean over the other datasets
        per_dataset.loc[per_dataset["status"] != "ok", "dataset_score"] = np.nan

    grouped = per_dataset.groupby("method", sort=True)
    with_result = pd.Series(per_dataset["status"].to_numpy() != "DNF", index=per_dataset.index)
    # each method's datasets summed in the rules' dataset order, compensated (as pandas' mean did before pandas 3.1)
    order = _summing_order(per_dataset["dataset"], rules.dataset_order)
    score = compensated.group_mean(per_dataset[["dataset_score"]].to_numpy(dtype=float)[order],
                                   grouped.ngroup().to_numpy()[order], grouped.ngroups)[:, 0]
    leaderboard = pd.DataFrame({
        "score": pd.Series(score, index=grouped.size().index),
        **{f"{c.name}_rank": grouped[f"{c.name}_rank"].mean() for c in criteria},
        # one definition in every output: datasets with a result of the method; dnf the judged ones without
        "datasets": with_result.groupby(per_dataset["method"], sort=True).sum().astype(int),
        "dnf": (~with_result).groupby(per_dataset["method"], sort=True).sum().astype(int),
    }).reset_index()
    if rules.score == "harmonic-over-all":
        scored = per_dataset.iloc[order][per_dataset["dataset_score"].iloc[order].notna().to_numpy()]
        leaderboard["score"] = harmonic_over_all(scored, criteria).reindex(leaderboard["method"]).to_numpy()
    nowhere = leaderboard["score"].isna()  # dnf = "left-out" and no result on any dataset
    if nowhere.any():
        leaderboard.loc[nowhere, "score"] = 0.0
        notes.append(f"No result on any dataset: {', '.join(map(str, leaderboard.loc[nowhere, 'method']))}; with "
                     "DNFs left out of the mean there is nothing to average, so the score is 0.")
    leaderboard.insert(0, "place", place_from_scores(leaderboard["score"], exact=rules.places == "exact"))
    leaderboard = leaderboard.sort_values(["place", "method"], kind="stable").reset_index(drop=True)

    block = provenance.provenance_block(rules)
    return Verdict(
        leaderboard=leaderboard,
        per_dataset=per_dataset,
        problems=_problems(table, aggregated, criteria, rules),
        criteria=tuple(criteria),
        warnings=tuple(notes),
        rules=rules,
        n_methods=int(n_methods),
        provenance=MappingProxyType(block),
    )


def compare_verdicts(verdicts: Sequence[Verdict]) -> pd.DataFrame:
    """Places and scores of every method under several verdicts, side by side.

    Parameters
    ----------
    verdicts : sequence of Verdict
        Verdicts of the same competition under different rules (named by
        ``verdict.rules.name``, which must be unique).

    Returns
    -------
    DataFrame
        ``method``, then ``place:<rules>`` and ``score:<rules>`` per verdict, and
        ``differs`` (True when the method's place is not the same under every
        verdict); ordered by the first verdict's places.

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": list("PPPQQQ"), "dataset": "d", "run": [0, 1, 2] * 2,
    ...                   "r2_test": [0.9, 0.9, 0.1, 0.8, 0.8, 0.8], "simplicity": -1.0, "property": 1.0})
    >>> table = compare_verdicts([judge(t, load_rules(p)) for p in ("srbench2022", "srbench2022-as-run")])
    >>> table[["method", "place:srbench2022", "place:srbench2022-as-run", "differs"]]
      method  place:srbench2022  place:srbench2022-as-run  differs
    0      P                  1                         2     True
    1      Q                  2                         1     True
    """
    names = [v.rules.name for v in verdicts]
    if len(set(names)) != len(names):
        raise SrdashError(f"compare_verdicts() needs verdicts under differently named rules. Got {names}.")
    table = None
    for verdict in verdicts:
        board = verdict.leaderboard.set_index("method")[["place", "score"]]
        board.columns = [f"place:{verdict.rules.name}", f"score:{verdict.rules.name}"]
        table = board if table is None else table.join(board, how="outer")
    places = table[[f"place:{n}" for n in names]]
    table["differs"] = places.nunique(axis=1, dropna=False) > 1
    first = f"place:{names[0]}"
    return table.reset_index().sort_values([first, "method"], kind="stable").reset_index(drop=True)
