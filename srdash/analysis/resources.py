"""Resources: training time per method, the accuracy-time and size-time fronts, runs over a
stated time budget (when the results carry SRBench's ``training time (s)``), and the time,
energy and carbon of every run as SRBench 2025 records them with eco2AI (``duration(s)``,
``power_consumption(kWh)``, ``CO2_emissions(kg)``, ``CPU_name``, ``GPU_name``): per method the
median per run and the total (:func:`resource_summary`).

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

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd

from srdash.analysis import _tables
from srdash.analysis.fronts import ParetoFronts, pareto_fronts
from srdash.errors import ValidationError
from srdash.io.loading import number_cells

__all__ = ["TrainingTimes", "OverBudget", "ResourceSummary", "training_times", "time_fronts", "over_budget",
           "resource_summary", "TIME_COLUMN", "RESOURCE_COLUMNS", "HARDWARE_COLUMNS"]

#: SRBench's training-time column.
TIME_COLUMN = "training time (s)"
#: The resources a run can carry: SRBench's training time and eco2AI's duration, energy and CO2.
RESOURCE_COLUMNS = (TIME_COLUMN, "duration(s)", "power_consumption(kWh)", "CO2_emissions(kg)")
#: eco2AI's hardware columns.
HARDWARE_COLUMNS = ("CPU_name", "GPU_name")


def _resources(table: pd.DataFrame, columns, source: str) -> dict[str, np.ndarray]:
    """Resource columns as floats, read by the rule of metric columns (:func:`srdash.io.loading.number_cells`)
    and at least 0: text that is not a number, an infinity (``1e999``) or a negative value is a problem
    naming the file, row and column (all listed at once), never a NaN or an overflow in a median or total.
    Empty and ``nan`` cells are missing (the run is not counted), as in metric columns."""
    values, problems = {}, []
    for column in dict.fromkeys(columns):
        values[column], found = number_cells(table[column].tolist(), source=source, column=column, minimum=0,
                                             what="a resource column")
        problems += found
    if problems:
        raise ValidationError(problems, header=f"The resource columns of {source} are not valid")
    return values


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


def training_times(table: pd.DataFrame, *, time: str = TIME_COLUMN, method: str | None = None,
                   source: str = "<table>") -> TrainingTimes:
    """Median training time per method with its spread (quartiles, range).

    Parameters
    ----------
    table : DataFrame
    time : str, keyword-only
        The time column, in seconds.
    method : str, optional, keyword-only
        Column of the method names (default 'method', else 'algorithm').
    source : str, keyword-only
        The table's file, as named in messages.

    Returns
    -------
    TrainingTimes

    Raises
    ------
    ValidationError
        When a column is missing, or listing every time that is not a finite number >= 0.
    """
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, time], what="training times")
    frame = pd.DataFrame({"method": table[method].astype(str).to_numpy(),
                          "time": _resources(table, [time], source)[time]}).dropna()
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
                dataset: str = "dataset", source: str = "<table>") -> OverBudget:
    """Runs whose training time exceeded ``budget`` seconds.

    Raises
    ------
    ValidationError
        When a column is missing, or listing every time that is not a finite number >= 0.
    ValueError
        When ``budget`` is not a positive number.
    """
    if not isinstance(budget, (int, float)) or isinstance(budget, bool) or not budget > 0:
        raise ValueError(f"The 'budget' option must be a positive number of seconds. Got {budget!r}.")
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, dataset, time], what="runs over the time budget")
    seconds = pd.Series(_resources(table, [time], source)[time])
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


@dataclass(frozen=True)
class ResourceSummary:
    """Time, energy and carbon per method.

    Attributes
    ----------
    table : DataFrame
        ``method``, then for each resource column present ``<column> median`` (per run) and
        ``<column> total`` (over every run), ``runs``, and the most frequent ``CPU_name`` /
        ``GPU_name`` when present; by the first resource's median, smallest first.
    totals : dict of str to float
        Each resource column's total over every run of every method.
    columns : tuple of str
        The resource columns summarised.
    missing : mapping of str to int
        Per resource column, the runs without a value (empty or ``nan``), not counted in
        its medians and totals.
    """

    table: pd.DataFrame
    totals: dict
    columns: tuple[str, ...]
    missing: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))


def resource_summary(table: pd.DataFrame, *, columns=None, method: str | None = None,
                     source: str = "<table>") -> ResourceSummary:
    """Median per run and total of each resource (time, energy, CO2) per method.

    Parameters
    ----------
    table : DataFrame
        One row per run.
    columns : sequence of str, optional, keyword-only
        The resource columns (default: those of :data:`RESOURCE_COLUMNS` present).
    method : str, optional, keyword-only
        Column of the method names (default 'method', else 'algorithm').
    source : str, keyword-only
        The table's file, as named in messages.

    Returns
    -------
    ResourceSummary

    Raises
    ------
    ValidationError
        When a named column is missing, or none of :data:`RESOURCE_COLUMNS` is present; or listing
        every cell (file, row, column) that is not a finite number >= 0 (text, ``1e999``, ``inf``,
        a negative value). Empty and ``nan`` cells are missing, counted in ``missing``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"algorithm": ["a", "a", "b"], "power_consumption(kWh)": [0.1, 0.3, 2.0],
    ...                   "CO2_emissions(kg)": [0.05, 0.15, 1.0]})
    >>> s = resource_summary(t)
    >>> s.table[["method", "power_consumption(kWh) median", "power_consumption(kWh) total"]]
      method  power_consumption(kWh) median  power_consumption(kWh) total
    0      a                            0.2                           0.4
    1      b                            2.0                           2.0
    >>> round(s.totals["CO2_emissions(kg)"], 3)
    1.2
    """
    method = _tables.method_column(table, method)
    if columns is None:
        columns = [c for c in RESOURCE_COLUMNS if c in table.columns] or [RESOURCE_COLUMNS[0]]
    columns = list(dict.fromkeys(columns))
    _tables.check_columns(table, [method, *columns], what="the resource summary")
    frame = pd.DataFrame({"method": table[method].astype(str).to_numpy(), **_resources(table, columns, source)})
    grouped = frame.groupby("method", sort=True)
    out = pd.DataFrame(index=pd.Index(sorted(frame["method"].unique()), name="method"))
    for column in columns:
        out[f"{column} median"] = grouped[column].median()
        out[f"{column} total"] = grouped[column].sum(min_count=1)
    out["runs"] = grouped.size()
    for column in HARDWARE_COLUMNS:
        if column in table.columns:
            names = pd.DataFrame({"method": frame["method"], "name": table[column].astype("string").to_numpy()})
            out[column] = names.dropna().groupby("method")["name"].agg(lambda s: s.value_counts().index[0])
    out = out.reset_index().sort_values([f"{columns[0]} median", "method"], kind="stable").reset_index(drop=True)
    totals = {column: float(frame[column].sum(min_count=1)) for column in columns}
    missing = MappingProxyType({column: int(frame[column].isna().sum()) for column in columns})
    return ResourceSummary(table=out, totals=totals, columns=tuple(columns), missing=missing)
