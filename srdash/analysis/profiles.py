"""Performance profiles: the share of (dataset, run) pairs on which a method reaches each
accuracy threshold, and the area under that curve (SRBench 2025).

For a threshold ``t``, a method's profile is ``share(t) = #{pairs with value >= t} / P``
(``value <= t`` when lower is better), P being the number of (dataset, run) pairs of the
whole competition: a pair on which the method has no result, or a missing value, never
reaches a threshold. The **AUC** is the area under ``share`` over the threshold range
``[lo, hi]``, divided by ``hi - lo`` so that it lies in [0, 1]. It is computed exactly, not
by the trapezoid rule on a grid: ``AUC = mean over pairs of (clip(value, lo, hi) - lo) /
(hi - lo)`` (``(hi - clip(value, lo, hi)) / (hi - lo)`` when lower is better), because the
area under a survival curve is the mean of the clipped values.

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"method": ["a", "a", "b", "b"], "dataset": ["d1", "d2"] * 2,
...                   "r2_test": [0.5, 1.0, 0.25, None]})
>>> performance_profiles(t).auc[["method", "auc"]]
  method    auc
0      a  0.750
1      b  0.125
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.analysis import _tables

__all__ = ["PerformanceProfiles", "performance_profiles"]


@dataclass(frozen=True)
class PerformanceProfiles:
    """Performance profiles of every method.

    Attributes
    ----------
    curves : DataFrame
        ``method``, ``threshold``, ``share`` (in [0, 1]) on the threshold grid.
    auc : DataFrame
        ``method``, ``auc`` (in [0, 1], higher is better), ``reached`` (pairs with a
        value), ``pairs`` (P), best first.
    value : str
        The column profiled.
    direction : {'higher', 'lower'}
    bounds : (float, float)
        The threshold range ``(lo, hi)``.
    """

    curves: pd.DataFrame
    auc: pd.DataFrame
    value: str
    direction: str
    bounds: tuple[float, float]


def performance_profiles(
    table: pd.DataFrame,
    *,
    value: str = "r2_test",
    direction: str = "higher",
    method: str | None = None,
    dataset: str = "dataset",
    run: str | None = None,
    bounds: tuple[float, float] = (0.0, 1.0),
    points: int = 101,
) -> PerformanceProfiles:
    """Performance profile and AUC of each method.

    Parameters
    ----------
    table : DataFrame
        One row per (method, dataset[, run]).
    value : str, keyword-only
        The accuracy column.
    direction : {'higher', 'lower'}, keyword-only
    method : str, optional, keyword-only
        Column of the method names (default 'method', else 'algorithm').
    dataset : str, keyword-only
    run : str, optional, keyword-only
        Column of the run ids (default: 'run' if present, else one run per dataset).
    bounds : (float, float), keyword-only
        Threshold range (default [0, 1], for R²).
    points : int, keyword-only
        Number of thresholds of the curves (the AUC does not depend on it).

    Returns
    -------
    PerformanceProfiles

    Raises
    ------
    ValidationError
        When a column is missing.
    ValueError
        For an unknown direction, ``bounds`` with ``lo >= hi`` or ``points < 2``.
    """
    _tables.check_direction("direction", direction)
    lo, hi = (float(b) for b in bounds)
    if not lo < hi:
        raise ValueError(f"The 'bounds' option must be (lo, hi) with lo < hi. Got {bounds!r}.")
    if points < 2:
        raise ValueError(f"The 'points' option must be at least 2. Got {points!r}.")
    method = _tables.method_column(table, method)
    if run is None and "run" in table.columns:
        run = "run"
    _tables.check_columns(table, [method, dataset, value] + ([run] if run else []), what="performance profiles")
    pair = table[dataset].astype(str) + ("\x00" + table[run].astype(str) if run else "")
    frame = pd.DataFrame({"method": table[method].astype(str).to_numpy(), "pair": pair.to_numpy(),
                          "value": _tables.numeric(table, value).to_numpy()})
    # one value per (method, pair): a repeated row keeps the best, as a method reaches what it reached
    frame["oriented"] = _tables.oriented(frame["value"].to_numpy(), direction)
    frame = frame.sort_values("oriented", ascending=False, na_position="last").drop_duplicates(["method", "pair"])
    n_pairs = frame["pair"].nunique()
    thresholds = np.linspace(lo, hi, points)
    curves, areas = [], []
    for name, group in frame.groupby("method", sort=True):
        values = group["value"].to_numpy(dtype=float)
        values = values[~np.isnan(values)]
        if direction == "higher":
            share = (values[None, :] >= thresholds[:, None]).sum(axis=1) / n_pairs
            area = (np.clip(values, lo, hi) - lo).sum() / (hi - lo) / n_pairs
        else:
            share = (values[None, :] <= thresholds[:, None]).sum(axis=1) / n_pairs
            area = (hi - np.clip(values, lo, hi)).sum() / (hi - lo) / n_pairs
        curves.append(pd.DataFrame({"method": name, "threshold": thresholds, "share": share}))
        areas.append({"method": name, "auc": float(area), "reached": int(values.size), "pairs": int(n_pairs)})
    auc = pd.DataFrame(areas, columns=["method", "auc", "reached", "pairs"])
    auc = auc.sort_values(["auc", "method"], ascending=[False, True], kind="stable").reset_index(drop=True)
    curves_table = (pd.concat(curves, ignore_index=True) if curves
                    else pd.DataFrame(columns=["method", "threshold", "share"]))
    return PerformanceProfiles(curves=curves_table, auc=auc, value=value, direction=direction, bounds=(lo, hi))
