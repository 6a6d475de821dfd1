"""Performance profiles: the share of (dataset, run) pairs on which a method reaches each
accuracy threshold, and the area under that curve (SRBench 2025).

For a threshold ``t``, a method's profile is ``share(t) = #{pairs with value >= t} / P``
(``value <= t`` when lower is better), P being the number of (dataset, run) pairs of the
whole competition: a pair on which the method has no result, or a missing value, never
reaches a threshold. The area under ``share`` over the threshold range ``[lo, hi]``, divided
by ``hi - lo`` so that it lies in [0, 1], is given under two definitions:

- **exact** (``auc``, srdash's): the area under the step function itself, computed exactly,
  not on a grid: ``AUC = mean over pairs of (clip(value, lo, hi) - lo) / (hi - lo)``
  (``(hi - clip(value, lo, hi)) / (hi - lo)`` when lower is better), because the area under a
  survival curve is the mean of the clipped values.
- **linear** (``auc_linear``, SRBench's way of drawing it): the profile's points -- one per
  distinct value ``u`` in ``[lo, hi]`` (a value above ``hi`` counts as ``hi``), at height
  ``share(u)``, plus the two ends ``(lo, share(lo))`` and ``(hi, share(hi))`` -- joined by
  straight lines, and the area under that polyline. Each step of the exact curve
  becomes a slope, so the linear AUC is larger by half of each step: the sum over consecutive
  points of ``gap * jump / 2`` (about ``range / (2 P)``; for 24 to 122 datasets per seed,
  0.003 to 0.02).

**Per seed** (SRBench 2025): the profile and its two AUCs are computed for each run id (seed)
separately -- over the datasets, P being the datasets that have that run -- and summarised per
method by their median, minimum and maximum over the seeds. **Per dataset**: the AUC over the
runs of each dataset (P being that dataset's runs), a (method x dataset) table.

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"method": ["a", "a", "b", "b"], "dataset": ["d1", "d2"] * 2,
...                   "r2_test": [0.5, 1.0, 0.25, None]})
>>> performance_profiles(t).auc[["method", "auc", "auc_linear"]]
  method    auc  auc_linear
0      a  0.750      0.8750
1      b  0.125      0.3125
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
        ``method``, ``auc`` (exact, in [0, 1], higher is better), ``reached`` (pairs with a
        value), ``pairs`` (P), ``auc_linear``, and over the seeds ``auc_seed_median``,
        ``auc_seed_min``, ``auc_seed_max``, ``auc_linear_seed_median``, ``auc_linear_seed_min``,
        ``auc_linear_seed_max``, ``seeds``; best (exact AUC) first.
    per_seed : DataFrame
        ``method``, ``seed``, ``auc``, ``auc_linear``, ``pairs`` (datasets with that seed).
    per_dataset : DataFrame
        ``method``, ``dataset``, ``auc``, ``auc_linear``, ``pairs`` (runs of that dataset).
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
    per_seed: pd.DataFrame = None
    per_dataset: pd.DataFrame = None


def _areas(values: np.ndarray, lo: float, hi: float, n_pairs: int) -> tuple[float, float]:
    """(exact, linear) AUC of higher-is-better values (NaN removed) over ``n_pairs`` pairs."""
    if n_pairs <= 0:
        return float("nan"), float("nan")
    exact = float((np.clip(values, lo, hi) - lo).sum() / (hi - lo) / n_pairs)
    # the polyline's points: values below lo reach no threshold; values above hi reach all of them
    reaching = np.minimum(values[values >= lo], hi)
    if not reaching.size:
        return exact, 0.0
    distinct, counts = np.unique(reaching, return_counts=True)  # ascending
    reach = counts[::-1].cumsum()[::-1] / n_pairs  # share(u) = #{v >= u} / P
    top = reach[-1] if distinct[-1] >= hi else 0.0
    xs = np.concatenate([[lo], distinct, [hi]])
    ys = np.concatenate([[reach[0]], reach, [top]])
    return exact, float(np.trapezoid(ys, xs) / (hi - lo))


def _area_table(frame: pd.DataFrame, key: str, pairs: pd.Series, lo: float, hi: float) -> pd.DataFrame:
    """AUCs of every (method, key) group of ``frame`` (columns method, key, oriented), P = ``pairs[key]``."""
    rows = []
    methods = sorted(frame["method"].unique())
    grouped = {k: g for k, g in frame.groupby(["method", key], sort=True)}
    for name in methods:
        for value, n_pairs in pairs.items():
            group = grouped.get((name, value))
            values = group["oriented"].to_numpy(dtype=float) if group is not None else np.empty(0)
            exact, linear = _areas(values[~np.isnan(values)], lo, hi, int(n_pairs))
            rows.append({"method": name, key: value, "auc": exact, "auc_linear": linear, "pairs": int(n_pairs)})
    return pd.DataFrame(rows, columns=["method", key, "auc", "auc_linear", "pairs"])


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
        Column of the run ids, the seeds (default: 'run', else 'seed', else 'random_state' if
        present, else one run per dataset).
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
    if run is None:
        run = next((name for name in ("run", "seed", "random_state") if name in table.columns), None)
    _tables.check_columns(table, [method, dataset, value] + ([run] if run else []), what="performance profiles")
    pair = table[dataset].astype(str) + ("\x00" + table[run].astype(str) if run else "")
    frame = pd.DataFrame({"method": table[method].astype(str).to_numpy(), "pair": pair.to_numpy(),
                          "dataset": table[dataset].astype(str).to_numpy(),
                          "seed": table[run].astype(str).to_numpy() if run else "0",
                          "value": _tables.numeric(table, value).to_numpy()})
    # one value per (method, pair): a repeated row keeps the best, as a method reaches what it reached
    frame["oriented"] = _tables.oriented(frame["value"].to_numpy(), direction)
    frame = frame.sort_values("oriented", ascending=False, na_position="last").drop_duplicates(["method", "pair"])
    # areas on higher-is-better values: lower-is-better ones are mirrored onto [lo, hi]
    frame["oriented"] = frame["value"] if direction == "higher" else lo + hi - frame["value"]
    n_pairs = frame["pair"].nunique()
    thresholds = np.linspace(lo, hi, points)
    curves, areas = [], []
    for name, group in frame.groupby("method", sort=True):
        values = group["value"].to_numpy(dtype=float)
        values = values[~np.isnan(values)]
        if direction == "higher":
            share = (values[None, :] >= thresholds[:, None]).sum(axis=1) / n_pairs
        else:
            share = (values[None, :] <= thresholds[:, None]).sum(axis=1) / n_pairs
        oriented = group["oriented"].to_numpy(dtype=float)
        exact, linear = _areas(oriented[~np.isnan(oriented)], lo, hi, n_pairs)
        curves.append(pd.DataFrame({"method": name, "threshold": thresholds, "share": share}))
        areas.append({"method": name, "auc": exact, "reached": int(values.size), "pairs": int(n_pairs),
                      "auc_linear": linear})
    auc = pd.DataFrame(areas, columns=["method", "auc", "reached", "pairs", "auc_linear"])
    seed_pairs = frame.groupby("seed", sort=True)["dataset"].nunique()
    per_seed = _area_table(frame, "seed", seed_pairs, lo, hi)
    dataset_pairs = frame.groupby("dataset", sort=True)["pair"].nunique()
    per_dataset = _area_table(frame, "dataset", dataset_pairs, lo, hi)
    summary = per_seed.groupby("method", sort=True).agg(
        auc_seed_median=("auc", "median"), auc_seed_min=("auc", "min"), auc_seed_max=("auc", "max"),
        auc_linear_seed_median=("auc_linear", "median"), auc_linear_seed_min=("auc_linear", "min"),
        auc_linear_seed_max=("auc_linear", "max"), seeds=("seed", "nunique")).reset_index()
    auc = auc.merge(summary, on="method", how="left")
    auc = auc.sort_values(["auc", "method"], ascending=[False, True], kind="stable").reset_index(drop=True)
    curves_table = (pd.concat(curves, ignore_index=True) if curves
                    else pd.DataFrame(columns=["method", "threshold", "share"]))
    return PerformanceProfiles(curves=curves_table, auc=auc, value=value, direction=direction, bounds=(lo, hi),
                               per_seed=per_seed, per_dataset=per_dataset)
