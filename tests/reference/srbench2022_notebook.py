"""The SRBench 2022 organisers' scoring, transcribed from their notebooks (not from srdash's steps).

Source: SRBench repository (github.com/cavalab/srbench), branch ``srcomp``,
``competition-2022/postprocessing/stage1.ipynb`` (synthetic track),
``stage2_final_ratings.ipynb`` (real-world track) and ``competition-2022/experiment/metrics/evaluation.py``
(the per-run simplicity). Cells are numbered as they appear in the notebook file, markdown cells
included. The notebooks ran Python 3.9.7 (their metadata); the Anaconda release with that
Python (2021.11) has pandas 1.3.4 and scipy 1.7.1, whose arithmetic is reproduced here:

- ``pandas13_group_mean``: pandas 1.3's ``groupby(...).mean()`` (``group_mean`` in
  ``pandas/_libs/groupby.pyx``): per group, in row order, NaN skipped,
  ``y = val - comp; t = sumx + y; comp = t - sumx - y; sumx = t``, then ``sumx / count``.
  pandas 3.1 no longer does this when a group's rows are contiguous and NaN-free
  (``numpy.add.reduceat``), so the installed pandas' mean is not used.
- ``scipy17_hmean``: scipy 1.7's ``stats.hmean``: ``size / np.sum(1.0 / a)`` for ``a >= 0``
  (a 0 gives 1/0 = inf and a result of 0; scipy >= 1.9 computes ``1 / mean(1 / a)``).
- ranks with pandas' ``groupby(...).rank(ascending=False, method='dense')``: floats compared
  exactly, NaN kept as NaN (pandas' behaviour has not changed since).

Stage 1 (``stage1``), cell by cell:

- evaluation.py ``simplicity``: ``-np.round(np.log(num_components)/np.log(5), 1)`` per run;
- cell 4: ``df['simplicity'] = (df['simplicity']-df['simplicity'].min())/``
  ``(df['simplicity'].max()-df['simplicity'].min())`` over every row of the results;
- cell 12: ``df_sum = df.groupby(['algorithm','task','difficulty','dataset'], as_index=False)[mets].mean()``
  with ``mets = ['r2_test','simplicity','property_score']``; ``n_algs = df.algorithm.nunique()``;
  ``df_sum['r2_test'] = df_sum['r2_test'].round(3)``; per column
  ``df_sum[col+'_rank'] = n_algs - df_sum.groupby('dataset')[col].rank(ascending=False, method='dense')``;
- cell 14: ``max_rank = df_sum.algorithm.nunique()``; per (dataset, algorithm) ``x[x.isna()] = max_rank``
  then ``stats.hmean(x.values[0])`` of the three ranks (r2, simplicity, property, in that order);
  ``df_sumh = df_sum.merge(hmean_score, on=['dataset','algorithm'])`` (rows keep df_sum's order);
- cell 16: ``winners = df_sumh.groupby(['algorithm'])['hmean_score'].mean().sort_values(ascending=False)``.

A (method, dataset) without any run has no row in ``df_sum``: it is not ranked and not averaged.
When every dataset is named as the 2022 datasets are (``exact_formula_easy``, ``noise_hard``, ...),
``task`` and ``difficulty`` come from the name as in cell 4
(``task = x.split('_')[0] if 'exact' not in x else '_'.join(x.split('_')[:2])``, the difficulty the
next part, mapped ``{'easier':'0-easier','easy':'1-easy','medium':'2-medium','hard':'3-hard'}``;
the loader had renamed ``_base`` to ``_easy``, kept apart here as ``1-base``), so each method's
datasets are averaged in that order; other names (where cell 4 would fail) group by (algorithm,
dataset). The notebook read the runs in the file system's order (``Path.rglob``); here they are
summed in the order given.

Stage 2, the representative models (``stage2_representatives``), cell 14:
``median_scores = df.groupby(['task','horizon','algorithm'])['r2_test'].median().unstack()``; per
(task, algorithm) with a median that is not NaN, ``entry = dfg.loc[(dfg.r2_test-row.loc[alg]).abs().idxmin()]``
(the first row at the smallest distance, in the rows' order). Here one horizon, runs in the order given.

Stage 2 (``stage2``), cell by cell, from the representative models on:

- cell 17: ``df_best['simplicity'] = (df_best['simplicity']-df_best['simplicity'].min())/(...max()-...min())``
  over the representative models;
- cell 19: ``df_final = df_best.merge(expertdf, on=['task','algorithm'])`` (inner: only rated models);
- cell 23: ``df_sum = df_final.groupby(['algorithm','task'], as_index=False)[mets].max()`` with
  ``mets = ['r2_test','simplicity','expert_score']``; ``n_algs = df_final.algorithm.nunique()``;
  r2 rounded to 3 decimals; ranks ``n_algs - rank(ascending=False, method='dense')`` per task;
  ``trust_score = stats.hmean(x.values[0])`` per (task, algorithm); merged back on df_sum;
- cell 25: ``winners = df_sum.groupby(['algorithm'])['trust_score'].mean().sort_values(ascending=False)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["pandas13_group_mean", "scipy17_hmean", "simplicity", "stage1", "stage2", "stage2_representatives"]


def pandas13_group_mean(frame: pd.DataFrame, keys: list[str], columns: list[str]) -> pd.DataFrame:
    """``frame.groupby(keys, as_index=False)[columns].mean()`` as pandas 1.3 computed it (row order, Kahan)."""
    sums: dict[tuple, list[float]] = {}
    compensations: dict[tuple, list[float]] = {}
    counts: dict[tuple, list[int]] = {}
    for row in frame[keys + columns].itertuples(index=False):
        key, values = tuple(row[:len(keys)]), row[len(keys):]
        sumx = sums.setdefault(key, [0.0] * len(columns))
        comp = compensations.setdefault(key, [0.0] * len(columns))
        nobs = counts.setdefault(key, [0] * len(columns))
        for j, val in enumerate(values):
            val = float(val)
            if val == val:  # not NaN
                nobs[j] += 1
                y = val - comp[j]
                t = sumx[j] + y
                comp[j] = t - sumx[j] - y
                sumx[j] = t
    rows = [list(key) + [s / n if n else np.nan for s, n in zip(sums[key], counts[key])] for key in sorted(sums)]
    return pd.DataFrame(rows, columns=keys + columns)


def scipy17_hmean(a: np.ndarray) -> float:
    """``scipy.stats.hmean(a)`` of scipy 1.7 for a 1-d array."""
    a = np.asarray(a, dtype=float)
    if not np.all(a >= 0):
        raise ValueError("Harmonic mean only defined if all elements greater than or equal to zero")
    with np.errstate(divide="ignore"):
        return float(a.shape[0] / np.sum(1.0 / a))


def simplicity(components: pd.Series) -> pd.Series:
    """evaluation.py: ``-np.round(np.log(num_components)/np.log(5), 1)``."""
    return -np.round(np.log(components) / np.log(5), 1)


_DIFFICULTY = {"easier": "0-easier", "easy": "1-easy", "base": "1-base", "medium": "2-medium", "hard": "3-hard"}


def _task_and_difficulty(df: pd.DataFrame) -> list[str]:
    """Cell 4's task and difficulty columns, when every dataset name has their form; the groupby keys."""
    names = df["dataset"].astype(str)
    task = names.apply(lambda x: x.split("_")[0] if "exact" not in x else "_".join(x.split("_")[:2]))
    difficulty = names.apply(lambda x: (x.split("_")[1:2] if "exact" not in x else x.split("_")[2:3]) or [""])
    difficulty = difficulty.apply(lambda parts: _DIFFICULTY.get(parts[0]))
    if difficulty.isna().any():
        return ["algorithm", "dataset"]
    df["task"], df["difficulty"] = task, difficulty
    return ["algorithm", "task", "difficulty", "dataset"]


def _dense_ranks(df_sum: pd.DataFrame, by: str, mets: list[str], n_algs: int) -> list[str]:
    rank_mets = []
    for col in mets:
        colname = col + "_rank"
        df_sum[colname] = n_algs - df_sum.groupby(by)[col].rank(ascending=False, method="dense")
        assert df_sum[colname].max() <= df_sum.algorithm.nunique()
        rank_mets.append(colname)
    return rank_mets


def stage1(runs: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame]:
    """Winners (score by method, best first) and df_sumh, from per-run results.

    ``runs``: ``method``, ``dataset``, ``run``, ``r2_test``, ``components``, ``property``.
    """
    df = runs.rename(columns={"method": "algorithm", "property": "property_score"})
    df["simplicity"] = simplicity(df["components"])
    df["simplicity"] = (df["simplicity"] - df["simplicity"].min()) / (df["simplicity"].max()
                                                                      - df["simplicity"].min())
    mets = ["r2_test", "simplicity", "property_score"]
    df_sum = pandas13_group_mean(df, _task_and_difficulty(df), mets)
    n_algs = df.algorithm.nunique()
    df_sum["r2_test"] = df_sum["r2_test"].round(3)
    rank_mets = _dense_ranks(df_sum, "dataset", mets, n_algs)
    max_rank = df_sum.algorithm.nunique()
    hmean_score = [scipy17_hmean(row.fillna(max_rank).to_numpy()) for _, row in df_sum[rank_mets].iterrows()]
    df_sumh = df_sum.assign(hmean_score=hmean_score)
    winners = pandas13_group_mean(df_sumh, ["algorithm"], ["hmean_score"]).set_index("algorithm")["hmean_score"]
    return winners.sort_values(ascending=False), df_sumh


def stage2(representatives: pd.DataFrame, expert_scores: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame]:
    """Winners (trust score by method, best first) and df_sum, from the representative models.

    ``representatives``: ``method``, ``task``, ``r2_test``, ``simplicity`` (evaluation.py's, not
    normalised); ``expert_scores``: ``method``, ``task``, ``expert_score`` (1-5, 5 = most trust).
    """
    df_best = representatives.rename(columns={"method": "algorithm"})
    df_best["simplicity"] = (df_best["simplicity"] - df_best["simplicity"].min()) / (df_best["simplicity"].max()
                                                                                     - df_best["simplicity"].min())
    df_final = df_best.merge(expert_scores.rename(columns={"method": "algorithm"}), on=["task", "algorithm"])
    mets = ["r2_test", "simplicity", "expert_score"]
    df_sum = df_final.groupby(["algorithm", "task"], as_index=False)[mets].max()
    n_algs = df_final.algorithm.nunique()
    df_sum["r2_test"] = df_sum["r2_test"].round(3)
    rank_mets = _dense_ranks(df_sum, "task", mets, n_algs)
    df_sum["trust_score"] = [scipy17_hmean(row.to_numpy()) for _, row in df_sum[rank_mets].iterrows()]
    winners = pandas13_group_mean(df_sum, ["algorithm"], ["trust_score"]).set_index("algorithm")["trust_score"]
    return winners.sort_values(ascending=False), df_sum


def stage2_representatives(runs: pd.DataFrame) -> pd.DataFrame:
    """Cell 14: per (method, task) the run nearest the median R2. ``runs``: ``method``, ``task``, ``r2_test``."""
    df = runs.rename(columns={"method": "algorithm"})
    median_scores = df.groupby(["task", "algorithm"])["r2_test"].median().unstack()
    frames = []
    for idx, row in median_scores.iterrows():
        for alg in row.index:
            if np.isnan(row[alg]):
                continue
            dfg = df.loc[(df.task == idx) & (df.algorithm == alg)]
            entry = dfg.loc[(dfg.r2_test - row.loc[alg]).abs().idxmin()]
            assert isinstance(entry, pd.Series)
            frames.append(entry.to_dict())
    return pd.DataFrame.from_records(frames).rename(columns={"algorithm": "method"})
