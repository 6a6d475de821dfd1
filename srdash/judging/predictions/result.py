"""The outcome of scoring a prediction competition (:class:`PredictionResult`, with its fingerprint), its
combined leaderboards (:class:`CombinedLeaderboards`), and its per-run table for the ranking engine
(:func:`to_runs_table`)."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np
import pandas as pd

from srdash._version import __version__
from srdash.errors import Problem, SrdashError
from srdash.io.predictions import SUBSETS, one_of
from srdash.judging.fingerprint import canonical_sha256
from srdash.judging.metrics import Metric, get_metric
from srdash.judging.predictions.leaderboards import DEFAULT_DECIMALS, shakeup_table, subset_leaderboard
from srdash.judging.provenance import hash_roles

if TYPE_CHECKING:  # pragma: no cover
    from srdash.judging.rules import Rules

__all__ = ["PredictionResult", "CombinedLeaderboards", "to_runs_table"]


@dataclass(frozen=True)
class PredictionResult:
    """The outcome of scoring a prediction competition.

    Attributes
    ----------
    submissions : DataFrame
        One row per submission: ``team``, ``submission``, ``submission_index``,
        ``submitted_at``, ``selected``, ``status`` ('ok' or 'rejected'),
        ``reason`` (why it was rejected; empty if ok), one
        ``<metric>_preliminary`` and ``<metric>_final`` column per metric
        (short names, e.g. ``rmse_final``; NaN when rejected),
        ``counts_preliminary`` and ``counts_final`` (whether the rule made this
        the team's submission on that leaderboard) and ``file``.
    preliminary_leaderboard, final_leaderboard : DataFrame
        One row per team, best first: ``place`` (1 = best), ``team``,
        ``score`` (the ranking metric on that subset), ``submission`` (the one
        that counts) and ``entries`` (submissions handed in, rejected ones
        included). Ties: equal scores (after rounding to ``decimals``) share the
        smallest place and the next place is skipped (1, 2, 2, 4); tied teams
        are listed alphabetically. A team without a counted valid submission
        has no score and shares the last place.
    shakeup : DataFrame
        One row per team, by final place: ``team``, ``preliminary_place``,
        ``final_place``, ``change`` (preliminary minus final place: positive =
        moved up), ``preliminary_score``, ``final_score``.
    metric : Metric
        The metric that ranks the leaderboards.
    metrics : tuple of Metric
        Every metric computed (the ranking one first).
    rule : str
        Which submission counted per team ('last', 'best-preliminary', 'selected').
    max_selected : int
        N for the 'selected' rule.
    problems : tuple of Problem
        Every problem of every rejected submission.
    warnings : tuple of str
        Things the reader must know (teams that selected nothing, ...).
    sources : tuple of str
        The target files.
    """

    submissions: pd.DataFrame
    preliminary_leaderboard: pd.DataFrame
    final_leaderboard: pd.DataFrame
    shakeup: pd.DataFrame
    metric: Metric
    metrics: tuple[Metric, ...]
    rule: str
    max_selected: int
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    decimals: int | None = DEFAULT_DECIMALS
    combined: "CombinedLeaderboards | None" = None

    @property
    def teams(self) -> tuple[str, ...]:
        """Every team that handed in a submission, sorted."""
        return tuple(sorted(map(str, self.submissions["team"].unique())))

    @functools.cached_property
    def fingerprint(self) -> str:
        """The verdict fingerprint of this prediction competition: its identity.

        SHA-256 of the final and preliminary leaderboards of every metric (and the combined ones),
        the scoring settings (metrics, rule, decimals, the combining rules' SHA-256), every
        submission (team, name, time, selection, status) with its file's content, the targets'
        content, and the srdash version. Files enter by content and by their path relative to the
        folder holding them all, so the same files in any folder give the same fingerprint.

        Examples
        --------
        >>> from srdash.judging.predictions import Targets, score_submissions
        >>> targets = Targets.from_arrays([0.0, 0.0, 0.0, 0.0], ["preliminary"] * 2 + ["final"] * 2)
        >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
        >>> one = score_submissions(listing, targets, metric="rmse",
        ...                         predictions={"a.txt": [0, 3, 0, 3], "b.txt": [2, 2, 2, 2]})
        >>> two = score_submissions(listing, targets, metric="rmse",
        ...                         predictions={"a.txt": [0, 3, 0, 3], "b.txt": [2, 2, 2, 1]})
        >>> len(one.fingerprint), one.fingerprint == two.fingerprint
        (64, False)
        """
        return _prediction_fingerprint(self)

    def ranked_by(self, metric: str | Metric) -> "PredictionResult":
        """The same result with its leaderboards and shake-up ranked by another scored metric.

        The submissions that count stay the ones chosen by the first metric
        (``metrics[0]``), so that every per-metric leaderboard and the combined
        one rank the same submissions.

        Raises
        ------
        SrdashError
            When ``metric`` was not scored.

        Examples
        --------
        >>> from srdash.judging.predictions import Targets, score_submissions
        >>> targets = Targets.from_arrays([0.0, 0.0, 0.0, 0.0], ["preliminary"] * 2 + ["final"] * 2)
        >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
        >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
        ...                            predictions={"a.txt": [0, 3, 0, 3], "b.txt": [2, 2, 2, 2]})
        >>> result.final_leaderboard["team"].tolist(), result.ranked_by("mae").final_leaderboard["team"].tolist()
        (['b', 'a'], ['a', 'b'])
        """
        chosen = get_metric(metric)
        if chosen not in self.metrics:
            scored = ", ".join(f"'{m.short_name}'" for m in self.metrics)
            raise SrdashError(f"The metric '{chosen.short_name}' was not scored; scored metrics: {scored}.")
        if chosen == self.metric:
            return self
        preliminary = subset_leaderboard(self.submissions, "preliminary", chosen, self.decimals)
        final = subset_leaderboard(self.submissions, "final", chosen, self.decimals)
        return replace(self, metric=chosen, preliminary_leaderboard=preliminary, final_leaderboard=final,
                       shakeup=shakeup_table(preliminary, final))

    @property
    def rejected(self) -> pd.DataFrame:
        """The rejected submissions: ``team``, ``submission``, ``reason``."""
        table = self.submissions
        return table.loc[table["status"] == "rejected", ["team", "submission", "reason"]].reset_index(drop=True)

    def leaderboard(self, subset: str) -> pd.DataFrame:
        """The leaderboard of ``subset`` ('preliminary' or 'final')."""
        one_of("subset", subset, SUBSETS)
        return self.preliminary_leaderboard if subset == "preliminary" else self.final_leaderboard


@dataclass(frozen=True, eq=False)
class CombinedLeaderboards:
    """Several metrics combined into one leaderboard per subset by the ranking engine.

    Build with :func:`combine_metrics` (or get ``PredictionResult.combined``).

    Attributes
    ----------
    preliminary_leaderboard, final_leaderboard : DataFrame
        One row per team, best first: ``place`` (1 = best; equal scores share
        the smallest place), ``team``, ``score`` (higher is better), then for
        rank-harmonic rules each metric's value (``rmse``, ...) and rank
        (``rmse_rank``: higher is better, K = best, K = number of teams), for
        normalised-weighted rules each meta-score and each metric's value;
        ``submission`` (the one that counts), ``entries`` (submissions handed
        in) and ``status`` ('ok', or 'no valid
        submission': such a team takes the lowest ranks, or for
        normalised-weighted rules has no score and shares the last place).
    shakeup : DataFrame
        As :attr:`PredictionResult.shakeup`, for the combined places.
    rules : Rules
        The rules that combined the metrics.
    verdicts : Mapping of str to Verdict or MultiObjectiveVerdict
        The ranking engine's verdict on each subset ('preliminary', 'final').
    runs : Mapping of str to DataFrame
        The per-run table each verdict was judged from (:func:`to_runs_table`).
    rule : str
        Which submission counted per team (see :func:`score_submissions`).
    """

    preliminary_leaderboard: pd.DataFrame
    final_leaderboard: pd.DataFrame
    shakeup: pd.DataFrame
    rules: "Rules"
    verdicts: Mapping[str, object]
    runs: Mapping[str, pd.DataFrame]
    rule: str = "last"

    @property
    def description(self) -> str:
        """One sentence saying how the metrics were combined."""
        if self.rules.rule_kind.judges_submissions:
            return (f"normalised, weighted meta-scores of the rules '{self.rules.name}' "
                    "(higher is better)")
        parts = [f"{c.label} ({c.direction} is better, weight {c.weight:g})" for c in self.rules.criteria]
        return "harmonic mean of the per-metric ranks: " + ", ".join(parts)

    def leaderboard(self, subset: str) -> pd.DataFrame:
        """The combined leaderboard of ``subset`` ('preliminary' or 'final')."""
        one_of("subset", subset, SUBSETS)
        return self.preliminary_leaderboard if subset == "preliminary" else self.final_leaderboard


def to_runs_table(result: PredictionResult, *, subsets: Sequence[str] = SUBSETS,
                  submissions: str = "counted") -> pd.DataFrame:
    """The long per-run table of the ranking engine, one metric per column.

    Each team is a ``method``, each subset a ``dataset`` and each submission a
    ``run`` (its ``submission_index``), so that :func:`srdash.judging.ranking.judge`
    can combine several metrics (rules with one criterion per metric column,
    with the metric's direction).

    Parameters
    ----------
    result : PredictionResult
    subsets : sequence of {'preliminary', 'final'}, keyword-only
        The subsets to include as datasets (default both).
    submissions : {'counted', 'all'}, keyword-only
        'counted': per team and subset, the submission the rule counted (a team
        without one has no row, which the ranking engine treats as DNF).
        'all': every submission, rejected ones with status 'rejected' and NaN
        metrics (the worst value for the ranking engine).

    Returns
    -------
    DataFrame
        Columns ``method``, ``dataset``, ``run``, ``model`` (NA), ``components``
        (NaN), one column per metric (short name: ``rmse``, ``mae``, ...),
        ``status``, ``reason``, ``submission``, ``submitted_at``.

    Examples
    --------
    >>> from srdash.judging.predictions import Targets, score_submissions
    >>> targets = Targets.from_arrays([1.0, 2.0, 3.0, 5.0], ["preliminary", "final"] * 2)
    >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"a.txt": [1, 2, 3, 4], "b.txt": [2, 2, 3, 5]})
    >>> to_runs_table(result, subsets=["final"])[["method", "dataset", "run", "rmse", "mae"]]
      method dataset  run      rmse  mae
    0      a   final    1  0.707107  0.5
    1      b   final    1  0.000000  0.0
    """
    for subset in subsets:
        one_of("subset", subset, SUBSETS)
    one_of("submissions", submissions, ("counted", "all"))
    table = result.submissions
    parts = []
    for subset in subsets:
        chosen = table[table[f"counts_{subset}"]] if submissions == "counted" else table
        part = pd.DataFrame({
            "method": chosen["team"].astype(object).to_numpy(),
            "dataset": subset,
            "run": chosen["submission_index"].to_numpy(),
            "model": pd.Series([pd.NA] * len(chosen), dtype=object),
            "components": np.nan,
            **{m.short_name: chosen[f"{m.short_name}_{subset}"].to_numpy() for m in result.metrics},
            "status": chosen["status"].to_numpy(),
            "reason": chosen["reason"].to_numpy(),
            "submission": chosen["submission"].to_numpy(),
            "submitted_at": chosen["submitted_at"].to_numpy(),
        })
        parts.append(part)
    runs = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return runs.sort_values(["dataset", "method", "run"], kind="stable").reset_index(drop=True)


def _prediction_fingerprint(result: PredictionResult) -> str:
    files = [("targets", Path(p)) for p in result.sources if Path(p).is_file()]
    files += [("submissions", Path(f)) for f in map(str, result.submissions["file"]) if f and Path(f).is_file()]
    parents = [str(path.absolute().parent) for _, path in files]
    root = Path(os.path.commonpath(parents)) if parents else Path.cwd()
    hashes = hash_roles(files, root=root)

    def board(frame: pd.DataFrame) -> list:
        columns = [c for c in ("place", "team", "score", "submission") if c in frame.columns]
        return frame[columns].astype(str).values.tolist()

    boards = {}
    for metric in result.metrics:
        ranked = result.ranked_by(metric)
        boards[metric.name] = {"final": board(ranked.final_leaderboard),
                               "preliminary": board(ranked.preliminary_leaderboard)}
    if result.combined is not None:
        for subset, verdict in result.combined.verdicts.items():
            boards[f"combined:{subset}"] = board(verdict.leaderboard)
    listing = result.submissions
    columns = [c for c in ("team", "submission", "submitted_at", "selected", "status") if c in listing]
    submissions = sorted(listing[columns].astype(str).values.tolist())
    settings = {"metrics": [m.name for m in result.metrics], "rule": result.rule, "max_selected": result.max_selected,
                "decimals": result.decimals,
                "combine_rules": None if result.combined is None else result.combined.rules.sha256}
    payload = {"boards": boards, "settings": settings, "submissions": submissions,
               "inputs": sorted(hashes.items()), "versions": {"srdash": __version__}}
    return canonical_sha256(payload)
