"""SRBench 2025's own per-metric mean ranks, computed as its collate script computes them.

The script is ``postprocessing/scripts/collate_experiments_results.py`` on the ``srbench_2025``
branch of cavalab/srbench. It reads one row per run that wrote a result (columns ``algorithm``,
``dataset``, ``random_state``, ``r2_test``, ``model_size``, ...), then

1. takes the **median of the runs that exist** for each (algorithm, dataset): a failed run wrote
   no result, so it is not a row, and a missing value is skipped by the median;
2. **ranks** the methods on each dataset with ``Series.rank`` (``method='average'``: tied methods
   share the mean of their positions; ``na_option='keep'``), descending for a column whose name
   contains ``r2`` and ascending otherwise (``model_size``), and rounds the ranks to 3 decimals.
   A (method, dataset) without any value -- a DNF, or every run failed -- is **unranked** there:
   the other methods are ranked among fewer;
3. reports each method's **arithmetic mean of its ranks** over the datasets where it has one.

This is not srdash's verdict with the ``srbench2025`` rules, which counts a failed or missing run
(up to 30 runs) as the worst value of the table and combines the two ranks; see docs/rules.md.

Differences from the script, by design: every method in the table is ranked (the script keeps
the methods of its own list of symbolic-regression algorithms, ``improving_names.symbolic_algs``,
after renaming them); the values are taken from the table as given (a ``model_size`` of -1, which
SRBench writes when sympy cannot count a model, is ranked as the smallest, as the script does; a
note says so).

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"algorithm": ["a", "a", "b", "b", "c"], "dataset": ["d1", "d2", "d1", "d2", "d1"],
...                   "r2_test": [0.9, 0.5, 0.8, 0.7, 0.95], "model_size": [10, 12, 5, 5, None]})
>>> ranks = srbench2025_mean_ranks(t)
>>> ranks.table[["method", "r2_test_avg_rank", "model_size_avg_rank", "model_size_datasets"]]
  method  r2_test_avg_rank  model_size_avg_rank  model_size_datasets
0      c               1.0                  NaN                    0
1      a               2.0                  2.0                    2
2      b               2.0                  1.0                    2
>>> print(ranks.notes[0].split(". ")[0])
r2_test: 1 method(s) unranked on some of the 2 datasets (no value there: a DNF or every run failed): c (1)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.analysis import _tables
from srdash.errors import Problem, ValidationError

__all__ = ["SRBench2025Ranks", "srbench2025_mean_ranks", "COLLATE_SCRIPT"]

#: Where the computation comes from.
COLLATE_SCRIPT = ("cavalab/srbench, branch srbench_2025, "
                  "postprocessing/scripts/collate_experiments_results.py")

#: Text that means "no value", as srdash's loader reads it (srdash.io.loading).
_MISSING_TEXT = ("", "nan", "na", "n/a", "null", "none")

#: At most this many bad cells are listed in one error (a hostile file can have millions).
_MAX_PROBLEMS = 20


@dataclass(frozen=True)
class SRBench2025Ranks:
    """SRBench 2025's per-metric mean ranks (:func:`srbench2025_mean_ranks`).

    Attributes
    ----------
    table : DataFrame
        One row per method: ``method``, ``<metric>_avg_rank`` for each metric (1 = best; NaN when
        the method has no rank at all), ``<metric>_datasets`` (the datasets its mean covers). Best
        mean rank on the first metric first, then by name.
    per_dataset : DataFrame
        ``method``, ``dataset``, each metric's median over the runs and its ``<metric>_rank``
        (NaN: unranked on that dataset).
    metrics : tuple of (str, str)
        ``(column, direction)`` of each metric ranked, direction 'higher' or 'lower' is better.
    notes : tuple of str
        What the reader of the ranks should know: unranked pairs, negative sizes.
    """

    table: pd.DataFrame
    per_dataset: pd.DataFrame
    metrics: tuple
    notes: tuple


def _direction(column: str) -> str:
    # the script's rule: ``ascending = 'r2' not in col``
    return "higher" if "r2" in column else "lower"


def _check(table: pd.DataFrame, *, columns: dict, source: str) -> dict:
    """The metric columns as floats; one ValidationError listing every missing column or bad cell."""
    missing = [c for c in dict.fromkeys(columns.values()) if c not in table.columns]
    if missing:
        present = ", ".join(map(str, table.columns)) or "(none)"
        raise ValidationError([Problem(source, None, c, f"the column '{c}' is missing ({what}); columns: {present}.")
                               for what, c in columns.items() if c in missing],
                              header="Cannot compute SRBench 2025's mean ranks")
    problems, total = [], 0
    for what in ("method", "dataset"):
        column = columns[what]
        empty = table[column].isna().to_numpy() | (table[column].astype(str).str.strip() == "").to_numpy()
        total += int(empty.sum())
        problems += [Problem(source, int(i) + 1, column, f"the {what} name is empty.")
                     for i in np.flatnonzero(empty)[:_MAX_PROBLEMS]]
    values = {}
    for what in ("accuracy", "size"):
        column = columns.get(what)
        if column is None:
            continue
        raw = table[column]
        numbers = pd.to_numeric(raw, errors="coerce").astype(float)
        # an empty cell is a run without that value (the script's median skips it); other text is an error
        empty = raw.isna().to_numpy() | raw.astype(str).str.strip().str.lower().isin(_MISSING_TEXT).to_numpy()
        bad = numbers.isna().to_numpy() & ~empty
        total += int(bad.sum())
        problems += [Problem(source, int(i) + 1, column, f"not a number: {str(raw.iloc[i])[:40]!r}; expected a "
                             "number, or an empty cell for a run without a value.")
                     for i in np.flatnonzero(bad)[:_MAX_PROBLEMS]]
        values[column] = numbers.to_numpy()
    if problems:
        shown = f"; the first {_MAX_PROBLEMS} of {total} shown" if total > _MAX_PROBLEMS else ""
        raise ValidationError(problems[:_MAX_PROBLEMS], header=f"Cannot compute SRBench 2025's mean ranks{shown}")
    return values


def srbench2025_mean_ranks(table: pd.DataFrame, *, accuracy: str = "r2_test", size: str | None = "model_size",
                           method: str | None = None, dataset: str = "dataset",
                           source: str = "<table>") -> SRBench2025Ranks:
    """Each method's mean rank on ``accuracy`` and on ``size``, as SRBench 2025's collate script computes them.

    Per (method, dataset) the median of the values there are; per dataset the methods ranked on that
    median (``pandas.Series.rank(method='average')``, rounded to 3 decimals; 1 = best: the highest
    value of a column whose name contains ``r2``, the lowest otherwise); per method the arithmetic
    mean of its ranks over the datasets where it has one. A (method, dataset) without a value (a
    DNF, every run failed) is unranked on that dataset (see the module docstring).

    Parameters
    ----------
    table : DataFrame
        One row per run (or per (method, dataset)); empty cells are runs without that value.
    accuracy : str, keyword-only
        The accuracy column (SRBench: ``r2_test``).
    size : str or None, keyword-only
        The model-size column (SRBench: ``model_size``, the nodes of the sympy tree of the model after
        rounding its floats); None: rank the accuracy only.
    method : str, optional, keyword-only
        The method column (default 'method', else SRBench's 'algorithm').
    dataset : str, keyword-only
        The dataset column.
    source : str, keyword-only
        The file the table came from, named in errors.

    Returns
    -------
    SRBench2025Ranks

    Raises
    ------
    ValidationError
        A column is missing (the error lists the columns there are), a method or dataset name is
        empty, or a metric cell holds text that is not a number (file, row and column named).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.5, 0.5], "model_size": [3, 9]})
    >>> srbench2025_mean_ranks(t).table[["method", "r2_test_avg_rank", "model_size_avg_rank"]]
      method  r2_test_avg_rank  model_size_avg_rank
    0      a               1.5                  1.0
    1      b               1.5                  2.0
    >>> srbench2025_mean_ranks(t.drop(columns="model_size"), source="results.csv")
    Traceback (most recent call last):
    ...
    srdash.errors.ValidationError: Cannot compute SRBench 2025's mean ranks (1 problem):
      - results.csv, column 'model_size': the column 'model_size' is missing (size); columns: method, dataset, r2_test.
    """
    method = _tables.method_column(table, method)
    columns = {"method": method, "dataset": dataset, "accuracy": accuracy}
    if size is not None:
        columns["size"] = size
    values = _check(table, columns=columns, source=source)
    metrics = tuple((c, _direction(c)) for c in values)
    frame = pd.DataFrame({"method": table[method].astype(str).to_numpy(),
                          "dataset": table[dataset].astype(str).to_numpy(), **values})
    # groupby(...).median() skips missing values: the median of the runs that exist (collate lines 108-109)
    medians = frame.groupby(["method", "dataset"], sort=True)[list(values)].median().reset_index()
    for column, direction in metrics:
        ranks = medians.groupby("dataset")[column].rank(method="average", ascending=direction == "lower",
                                                        na_option="keep")
        medians[column + "_rank"] = ranks.round(3)  # collate line 121
    summary = pd.DataFrame({"method": medians["method"].unique()})
    grouped = medians.groupby("method", sort=True)
    for column, _ in metrics:
        summary[column + "_avg_rank"] = grouped[column + "_rank"].mean().reindex(summary["method"]).to_numpy()
    for column, _ in metrics:
        summary[column + "_datasets"] = grouped[column + "_rank"].count().reindex(summary["method"]).to_numpy()
    first = metrics[0][0] + "_avg_rank"
    summary = summary.sort_values([first, "method"], kind="stable", na_position="last").reset_index(drop=True)
    return SRBench2025Ranks(table=summary, per_dataset=medians, metrics=metrics,
                            notes=_notes(medians, frame, metrics))


def _notes(medians: pd.DataFrame, frame: pd.DataFrame, metrics: tuple) -> tuple:
    notes = []
    n_datasets = medians["dataset"].nunique()
    for column, direction in metrics:
        # a method without rows on a dataset is absent from ``medians``: counting ranks catches it too
        ranked = medians.groupby("method", sort=True)[column + "_rank"].count()
        short = ranked[ranked < n_datasets]
        if len(short):
            listed = ", ".join(f"{m} ({n_datasets - int(n)})" for m, n in short.head(8).items())
            more = f" and {len(short) - 8} more" if len(short) > 8 else ""
            notes.append(f"{column}: {len(short)} method(s) unranked on some of the {n_datasets} datasets (no "
                         f"value there: a DNF or every run failed): {listed}{more}. As in SRBench 2025's script, "
                         "the others are ranked among fewer and a method's mean covers its own datasets.")
        negative = int((frame[column] < 0).sum()) if direction == "lower" else 0
        if negative:
            notes.append(f"{column}: {negative} run(s) have a negative size (SRBench writes -1 when sympy "
                         "cannot count a model); SRBench 2025's script ranks them as the smallest, and so do "
                         "these ranks.")
    return tuple(notes)
