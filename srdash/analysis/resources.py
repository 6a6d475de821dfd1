"""Resources: training time per method, the accuracy-time and size-time fronts, and runs over
a stated time budget (when the results carry SRBench's ``training time (s)``).

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"method": list("aabb"), "dataset": ["d1", "d2"] * 2,
...                   "training time (s)": [10.0, 30.0, 100.0, 300.0]})
>>> training_times(t).table[["method", "median", "q25", "q75", "runs"]]
  method  median    q25    q75  runs
0      a    20.0   15.0   25.0     2
1      b   200.0  150.0  250.0     2
>>> over_budget(t, budget=50).table[["method", "dataset", "training time (s)"]]
  method dataset  training time (s)
0      b      d2              300.0
1      b      d1              100.0
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.analysis import _tables
from srdash.analysis.fronts import ParetoFronts, pareto_fronts

__all__ = ["TrainingTimes", "OverBudget", "training_times", "time_fronts", "over_budget", "TIME_COLUMN"]

#: SRBench's training-time column.
TIME_COLUMN = "training time (s)"


@dataclass(frozen=True)
class TrainingTimes:
    """Training time per method.

    Attributes
    ----------
    table : DataFrame
        ``method``, ``median``, ``q25``, ``q75``, ``min``, ``max`` (seconds), ``runs``
        (rows with a time), fastest (median) first.
    column : str
    """

    table: pd.DataFrame
    column: str


@dataclass(frozen=True)
class OverBudget:
    """Runs whose training time exceeded a budget.

    Attributes
    ----------
    table : DataFrame
        The offending rows (``method``, ``dataset``, the time column, ``over`` = time /
        budget), longest first.
    per_method : DataFrame
        ``method``, ``over`` (runs over the budget), ``runs``, ``share`` (over / runs).
    budget : float
    """

    table: pd.DataFrame
    per_method: pd.DataFrame
    budget: float


def training_times(table: pd.DataFrame, *, time: str = TIME_COLUMN, method: str | None = None) -> TrainingTimes:
    """Median training time per method with its spread (quartiles, range).

    Parameters
    ----------
    table : DataFrame
    time : str, keyword-only
        The time column, in seconds.
    method : str, optional, keyword-only
        Column of the method names (default 'method', else 'algorithm').

    Returns
    -------
    TrainingTimes

    Raises
    ------
    ValidationError
        When a column is missing.
    """
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, time], what="training times")
    frame = pd.DataFrame({"method": table[method].astype(str).to_numpy(),
                          "time": _tables.numeric(table, time).to_numpy()}).dropna()
    grouped = frame.groupby("method", sort=True)["time"]
    out = pd.DataFrame({"median": grouped.median(), "q25": grouped.quantile(0.25), "q75": grouped.quantile(0.75),
                        "min": grouped.min(), "max": grouped.max(), "runs": grouped.size()}).reset_index()
    out = out.sort_values(["median", "method"], kind="stable").reset_index(drop=True)
    return TrainingTimes(table=out, column=time)


def time_fronts(
    table: pd.DataFrame,
    *,
    time: str = TIME_COLUMN,
    accuracy: str = "r2_test",
    size: str = "model_size",
    method: str | None = None,
    dataset: str = "dataset",
    space: str = "value",
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> tuple[ParetoFronts, ParetoFronts]:
    """The accuracy-time and size-time Pareto fronts (see :func:`srdash.analysis.fronts.pareto_fronts`).

    Returns
    -------
    (ParetoFronts, ParetoFronts)
        Objectives named ('accuracy', 'time') and ('size', 'time'); shorter times are better.
    """
    common = dict(method=method, dataset=dataset, space=space, n_bootstrap=n_bootstrap, seed=seed)
    accuracy_time = pareto_fronts(table, accuracy=accuracy, size=time, names=("accuracy", "time"), **common)
    size_time = pareto_fronts(table, accuracy=size, size=time, accuracy_direction="lower",
                              names=("size", "time"), **common)
    return accuracy_time, size_time


def over_budget(table: pd.DataFrame, *, budget: float, time: str = TIME_COLUMN, method: str | None = None,
                dataset: str = "dataset") -> OverBudget:
    """Runs whose training time exceeded ``budget`` seconds.

    Raises
    ------
    ValidationError
        When a column is missing.
    ValueError
        When ``budget`` is not a positive number.
    """
    if not isinstance(budget, (int, float)) or isinstance(budget, bool) or not budget > 0:
        raise ValueError(f"The 'budget' option must be a positive number of seconds. Got {budget!r}.")
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, dataset, time], what="runs over the time budget")
    seconds = _tables.numeric(table, time)
    with np.errstate(invalid="ignore"):
        over = (seconds > budget).to_numpy()
    rows = pd.DataFrame({"method": table[method].astype(str).to_numpy(),
                         "dataset": table[dataset].astype(str).to_numpy(), time: seconds.to_numpy()})
    offending = rows[over].assign(over=lambda f: f[time] / budget)
    offending = offending.sort_values([time, "method"], ascending=[False, True], kind="stable")
    counts = pd.DataFrame({"method": rows["method"], "is_over": over}).groupby("method", sort=True)["is_over"]
    per_method = pd.DataFrame({"over": counts.sum().astype(int), "runs": counts.size()}).reset_index()
    per_method["share"] = per_method["over"] / per_method["runs"]
    return OverBudget(table=offending.reset_index(drop=True), per_method=per_method, budget=float(budget))
