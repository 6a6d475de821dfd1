"""Leaderboards of one metric: places from the counted submissions' scores, and the shake-up between
the preliminary and the final leaderboard."""

from __future__ import annotations

import numpy as np
import pandas as pd

from srdash.judging.metrics import Metric, get_metric

__all__ = ["DEFAULT_DECIMALS", "oriented_scores", "subset_leaderboard", "shakeup_table", "metric_list"]

# Leaderboard scores are compared after rounding to this many decimals (as in
# srdash.judging.ranking) so that sums done in a different order cannot split a tie.
DEFAULT_DECIMALS = 9


def oriented_scores(values: np.ndarray, metric: Metric) -> np.ndarray:
    """``values`` turned so that higher is better, NaN (no score) the worst of all."""
    oriented = values if metric.direction == "higher" else -values
    return np.where(np.isnan(oriented), -np.inf, oriented)


def subset_leaderboard(table: pd.DataFrame, subset: str, metric: Metric, decimals: int | None) -> pd.DataFrame:
    """The leaderboard of ``subset`` by ``metric`` from a scored submissions table (the counted
    submission of each team; see :attr:`~srdash.judging.predictions.PredictionResult.submissions`).
    Equal scores after rounding to ``decimals`` share the smallest place."""
    teams = sorted(table["team"].unique())
    counted = table[table[f"counts_{subset}"]].set_index("team")
    board = pd.DataFrame({"team": pd.Series(teams, dtype=object)})
    board["score"] = board["team"].map(counted[f"{metric.short_name}_{subset}"]).astype(float)
    board["submission"] = board["team"].map(counted["submission"]).astype(object)
    board["entries"] = board["team"].map(table.groupby("team").size()).astype(int)
    oriented = oriented_scores(board["score"].to_numpy(), metric)
    if decimals is not None:
        oriented = np.round(oriented, decimals)
    board.insert(0, "place", pd.Series(oriented).rank(method="min", ascending=False).astype(int).to_numpy())
    return board.sort_values(["place", "team"], kind="stable").reset_index(drop=True)


def shakeup_table(preliminary: pd.DataFrame, final: pd.DataFrame) -> pd.DataFrame:
    """Each team's preliminary and final place and score, by final place."""
    merged = (preliminary[["team", "place", "score"]]
              .merge(final[["team", "place", "score"]], on="team", suffixes=("_p", "_f")))
    return pd.DataFrame({
        "team": merged["team"].astype(object),
        "preliminary_place": merged["place_p"],
        "final_place": merged["place_f"],
        "change": merged["place_p"] - merged["place_f"],
        "preliminary_score": merged["score_p"],
        "final_score": merged["score_f"],
    }).sort_values(["final_place", "team"], kind="stable").reset_index(drop=True)


def metric_list(metric, extra_metrics) -> list[Metric]:
    """``metric`` and then ``extra_metrics`` (a name or a sequence), each once, as :class:`Metric`."""
    if isinstance(extra_metrics, (str, Metric)):
        extra_metrics = [extra_metrics]
    metrics = []
    for m in [metric, *extra_metrics]:
        m = get_metric(m)
        if m not in metrics:
            metrics.append(m)
    return metrics
