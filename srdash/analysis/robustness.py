"""Rank uncertainty: how sure is a leaderboard of its order?

A leaderboard is computed from a sample of datasets (and, per dataset, a sample
of runs). :func:`bootstrap` redraws that sample ``n_bootstrap`` times and judges
each redraw with the same rules, giving per method

- the probability of each place (``place_probability``), and with it the
  probability of winning (``p_win`` = probability of place 1);
- a percentile interval of the final score (``score_low``, ``score_high``;
  95 % by default).

The two-stage bootstrap
-----------------------
1. *Datasets*: draw D datasets with replacement from the D of the competition
   (a dataset drawn twice counts twice).
2. *Runs*, within each drawn dataset: draw as many run ids with replacement as
   the dataset has. Run ids are drawn **jointly for all methods** of a dataset,
   because in SRBench-style benchmarks a run id (random state) fixes the data
   split that every method is trained and tested on. A method aggregates the
   drawn runs it has; one that has none of them is DNF on that draw.

The verdict of a redraw follows the rules exactly (rounding, run aggregation,
tie rule, harmonic mean, mean over datasets); the per-model work (parsing and
simplifying models) was done once by :func:`srdash.judging.pipeline.prepare_runs` and is
never repeated. Three engines, from cheapest to most general:

- ``dataset scores``: when only datasets are resampled (or every cell has a
  single run), a dataset's score does not depend on the other datasets, so the
  per-dataset scores of the full verdict are resampled directly:
  ``score_b(m) = mean over the D drawn datasets of dataset_score(d, m)``.
- ``vectorised``: with run resampling, for ``median``/``mean`` aggregation
  without a run filter: per-run values are stored once in a
  (dataset, run, method, criterion) array and whole blocks of redraws are
  aggregated, ranked and scored with NumPy by the ranking kernel
  (:mod:`srdash.judging.kernel`, as ``judge``); the tests check that it gives
  the redraws' scores of :func:`srdash.judging.ranking.judge`. One deliberate difference: a mean of values rounded to ``decimals`` is
  computed exactly (in units of ``10**-decimals``) and rounded half to even, so
  it does not depend on the order of the runs; ``judge`` rounds a
  floating-point sum, which for a mean lying exactly halfway (0.7475 at 3
  decimals) can land on either side. Such cells are counted in ``notes``.
- ``judge per resample``: any other rules (``rank-mean`` aggregation, a
  ``min_relative`` run filter), or ``engine="judge"``:
  :func:`srdash.judging.ranking.judge` on each redrawn table. Exact, slower.

All engines consume the same random numbers, so for a given seed they give the
same redraws.

Places and ties
---------------
In each redraw places follow :func:`srdash.judging.ranking.place_from_scores`. Methods
tied on positions ``p .. p+t-1`` each get ``1/t`` of each of those places, so
every row and every column of ``place_probability`` sums to 1 and two
indistinguishable methods get ``p_win = 0.5`` each (not 1 each).

Examples
--------
>>> import pandas as pd
>>> from srdash.demo.examples import accuracy_rules, two_methods
>>> rules = accuracy_rules()
>>> table = pd.DataFrame({"method": ["a", "b"] * 4, "dataset": [f"d{i // 2}" for i in range(8)],
...                       "run": 0, "r2_test": [0.9, 0.1] * 4})
>>> result = bootstrap(table, rules, n_bootstrap=200, seed=1)
>>> result.summary[["place", "method", "p_win", "score_low", "score_high"]]
   place method  p_win  score_low  score_high
0      1      a    1.0        2.0         2.0
1      2      b    0.0        1.0         1.0
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from srdash.analysis.kept import kept_array
from srdash.errors import SrdashError
from srdash.judging.kernel import rank_higher_better, weighted_harmonic_mean
from srdash.judging.ranking import Verdict, judge
from srdash.judging.rules import Rules

__all__ = ["Robustness", "bootstrap", "runs_are_vectorised", "RESAMPLE_OPTIONS", "ENGINES"]

#: What :func:`bootstrap` can resample.
RESAMPLE_OPTIONS = ("both", "datasets", "runs")
#: Engines :func:`bootstrap` can be asked for.
ENGINES = ("auto", "judge")

#: Scores equal to this many decimals tie (the rounding of srdash.judging.ranking.place_from_scores).
SCORE_DECIMALS = 9
# Elements of the largest block array the vectorised engine builds at once.
_BLOCK_ELEMENTS = 4_000_000


@dataclass(frozen=True)
class Robustness:
    """Bootstrap estimate of a verdict's rank uncertainty.

    Attributes
    ----------
    summary : DataFrame
        One row per method in leaderboard order: ``place`` and ``score`` (of the
        full verdict), ``p_win`` (probability of place 1), ``expected_place``
        (mean place over redraws; 1 = best), ``score_low``/``score_high`` (the
        percentile interval of the final score at level ``confidence``).
    place_probability : DataFrame
        Methods (index, leaderboard order) x places 1..K (columns; 1 = best):
        the share of redraws in which the method took that place; rows and
        columns sum to 1.
    scores : DataFrame
        The final score of every method (columns, leaderboard order) in every
        redraw (rows).
    verdict : Verdict
        The verdict on the full data.
    n_bootstrap, seed : int
    resample : str
        What was resampled: ``'datasets'``, ``'runs'`` or ``'datasets and runs'``.
    confidence : float
    engine : str
        ``'dataset scores'``, ``'vectorised'`` or ``'judge per resample'`` (see
        the module docstring).
    notes : tuple of str
        What the reader must know (e.g. that no dataset has several runs).
    """

    summary: pd.DataFrame
    place_probability: pd.DataFrame
    scores: pd.DataFrame
    verdict: Verdict
    n_bootstrap: int
    seed: int
    resample: str
    confidence: float
    engine: str
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The summary with one ``p_place_<k>`` column per place, for a CSV file.

        Examples
        --------
        >>> import pandas as pd
        >>> from srdash.demo.examples import accuracy_rules, two_methods
        >>> rules = accuracy_rules()
        >>> t = two_methods()
        >>> list(bootstrap(t, rules, n_bootstrap=10).to_frame().columns)
        ['place', 'method', 'score', 'p_win', 'expected_place', 'score_low', 'score_high', 'p_place_1', 'p_place_2']
        """
        places = self.place_probability.add_prefix("p_place_").reset_index(drop=True)
        return pd.concat([self.summary.reset_index(drop=True), places], axis=1)


def bootstrap(
    table: pd.DataFrame,
    rules: Rules,
    *,
    n_bootstrap: int = 1000,
    seed: int = 0,
    resample: str = "both",
    confidence: float = 0.95,
    methods: Sequence[str] | None = None,
    engine: str = "auto",
    progress: Callable[[int, int], None] | None = None,
    cache: str | Path | bool | None = False,
) -> Robustness:
    """Bootstrap the verdict over datasets and runs.

    Parameters
    ----------
    table : DataFrame
        The prepared per-run table (see :func:`srdash.judging.pipeline.prepare_runs`),
        already validated.
    rules : Rules
        Rules of kind ``rank-harmonic``.
    n_bootstrap : int
        Number of redraws B (>= 1). The Monte-Carlo standard error of a
        probability p is ``sqrt(p (1 - p) / B)``, at most 0.016 for B = 1000.
    seed : int
        Seed of the random generator (>= 0): same data, rules and seed give the
        same numbers.
    resample : {'both', 'datasets', 'runs'}
        Resample datasets, runs within datasets, or both (the module docstring
        explains each). When no dataset has several runs, runs are not
        resampled and a note says so.
    confidence : float
        Level of the percentile interval of the final score, in (0, 1).
    methods : sequence of str, optional
        The competition's methods, as in :func:`srdash.judging.ranking.judge`.
    engine : {'auto', 'judge'}
        ``auto``: the cheapest exact engine (module docstring); ``judge``: call
        :func:`srdash.judging.ranking.judge` on every redrawn table (slow; a reference).
    progress : callable, optional
        Called as ``progress(done, total)`` while redraws are judged.
    cache : path, None or False
        When every redraw is judged by :func:`srdash.judging.ranking.judge` (``engine='judge'``, or rules the
        vectorised engine does not cover), keep the redraws' scores in srdash's cache
        (:mod:`srdash.analysis.kept`; a folder or file, None: the default one) and read them back for the same
        table, rules and options; False (the default): keep nothing.

    Returns
    -------
    Robustness

    Raises
    ------
    SrdashError
        For an invalid option (the message names it and what is allowed), and
        as :func:`srdash.judging.ranking.judge` does.

    Examples
    --------
    Two methods that trade wins dataset by dataset:

    >>> import pandas as pd
    >>> from srdash.demo.examples import accuracy_rules, two_methods
    >>> rules = accuracy_rules()
    >>> t = pd.DataFrame({"method": ["a", "b"] * 20, "dataset": [f"d{i // 2:02d}" for i in range(40)],
    ...                   "run": 0, "r2_test": [0.9, 0.1, 0.1, 0.9] * 10})
    >>> result = bootstrap(t, rules, n_bootstrap=2000, seed=0)
    >>> result.summary["p_win"].round(1).tolist()
    [0.5, 0.5]
    """
    _check_options(n_bootstrap, seed, resample, confidence, engine)
    verdict = judge(table, rules, methods=methods)
    per_dataset = verdict.per_dataset
    all_methods = sorted(per_dataset["method"].unique())
    datasets = sorted(per_dataset["dataset"].unique())
    n_datasets, n_methods = len(datasets), len(all_methods)
    rng = np.random.default_rng(seed)

    resample_datasets = resample in ("both", "datasets")
    resample_runs = resample in ("both", "runs")
    notes: list[str] = []
    layout = _RunLayout.build(table, datasets, all_methods)
    if resample_runs and layout.max_runs <= 1:
        notes.append("No dataset has more than one run, so runs were not resampled.")
        resample_runs = False
    if not resample_datasets and not resample_runs:
        raise SrdashError("Nothing to resample: resample='runs' needs datasets with several runs, and no "
                          "dataset has more than one. Use resample='datasets' or 'both'.")

    if resample_datasets:
        drawn = rng.integers(0, n_datasets, size=(n_bootstrap, n_datasets))
    else:
        drawn = np.broadcast_to(np.arange(n_datasets), (n_bootstrap, n_datasets))

    if engine == "auto" and not resample_runs:
        engine = "dataset scores"
        matrix = (per_dataset.pivot(index="dataset", columns="method", values="dataset_score")
                  .reindex(index=datasets, columns=all_methods).to_numpy(dtype=float))
        boot = _over_datasets(matrix[drawn], rules)
        if progress is not None:
            progress(n_bootstrap, n_bootstrap)
    else:
        force_judge = engine == "judge"

        def redraws():
            return _run_bootstrap(table, rules, verdict, layout, drawn, rng, all_methods, progress,
                                  resample_runs=resample_runs, force_judge=force_judge)

        if cache is not False and (force_judge or not runs_are_vectorised(rules)):
            # one judging per redraw (seconds to minutes at real sizes): the scores are kept, bit for bit
            settings = {"n_bootstrap": int(n_bootstrap), "seed": int(seed), "resample": resample,
                        "resample_runs": resample_runs, "methods": None if methods is None else list(methods)}
            boot = kept_array("bootstrap judged per redraw", table, rules, lambda: redraws()[1],
                              shape=(n_bootstrap, n_methods), settings=settings, cache=cache)
            engine = "judge per resample"
            if progress is not None:
                progress(n_bootstrap, n_bootstrap)
        else:
            engine, boot, engine_notes = redraws()
            notes += engine_notes

    order = list(verdict.leaderboard["method"])
    position = [all_methods.index(m) for m in order]
    boot = boot[:, position]
    probabilities = _place_probabilities(boot)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(boot, [tail, 1.0 - tail], axis=0)
    places = np.arange(1, n_methods + 1)
    summary = pd.DataFrame({
        "place": verdict.leaderboard["place"].to_numpy(),
        "method": order,
        "score": verdict.leaderboard["score"].to_numpy(),
        "p_win": probabilities[:, 0],
        "expected_place": probabilities @ places,
        "score_low": low,
        "score_high": high,
    })
    place_probability = pd.DataFrame(probabilities, index=pd.Index(order, name="method"),
                                     columns=pd.Index(places, name="place"))
    what = {(True, True): "datasets and runs", (True, False): "datasets", (False, True): "runs"}
    return Robustness(
        summary=summary,
        place_probability=place_probability,
        scores=pd.DataFrame(boot, columns=pd.Index(order, name="method")),
        verdict=verdict,
        n_bootstrap=int(n_bootstrap),
        seed=int(seed),
        resample=what[(resample_datasets, resample_runs)],
        confidence=float(confidence),
        engine=engine,
        notes=tuple(notes),
    )


def _check_options(n_bootstrap, seed, resample, confidence, engine) -> None:
    def whole(value) -> bool:
        return isinstance(value, (int, np.integer)) and not isinstance(value, bool)

    if not whole(n_bootstrap) or n_bootstrap < 1:
        raise SrdashError(f"The 'n_bootstrap' option must be a whole number >= 1. Got {n_bootstrap!r}.")
    if not whole(seed) or seed < 0:
        raise SrdashError(f"The 'seed' option must be a whole number >= 0. Got {seed!r}.")
    if resample not in RESAMPLE_OPTIONS:
        listed = ", ".join(f"'{o}'" for o in RESAMPLE_OPTIONS)
        raise SrdashError(f"The 'resample' option must be one of {listed}. Got {resample!r}.")
    if not isinstance(confidence, (int, float)) or isinstance(confidence, bool) or not 0 < confidence < 1:
        raise SrdashError(f"The 'confidence' option must be a number strictly between 0 and 1. Got {confidence!r}.")
    if engine not in ENGINES:
        listed = ", ".join(f"'{e}'" for e in ENGINES)
        raise SrdashError(f"The 'engine' option must be one of {listed}. Got {engine!r}.")


def runs_are_vectorised(rules: Rules) -> bool:
    """Whether redraws of runs under ``rules`` take the ``vectorised`` engine (else one judging per redraw).

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> runs_are_vectorised(load_rules("srbench2022")), runs_are_vectorised(load_rules("srbench2022-as-run"))
    (True, False)
    """
    return (rules.run_aggregation in ("median", "mean") and getattr(rules, "min_relative", None) is None
            and not rules.uses_extended_options)


def _place_probabilities(scores: np.ndarray) -> np.ndarray:
    """(B, K) scores -> (K, K) place shares, ties split evenly over the tied positions."""
    n_draws, n_methods = scores.shape
    rounded = np.round(scores, SCORE_DECIMALS)
    better = (rounded[:, None, :] > rounded[:, :, None]).sum(axis=-1)  # [b, i]: methods scoring above i
    tied = (rounded[:, None, :] == rounded[:, :, None]).sum(axis=-1)   # including i itself
    method = np.broadcast_to(np.arange(n_methods), (n_draws, n_methods))
    counts = np.zeros(n_methods * n_methods)
    for offset in range(int(tied.max())):
        share = offset < tied
        slot = method[share] * n_methods + better[share] + offset
        counts += np.bincount(slot, weights=1.0 / tied[share], minlength=n_methods * n_methods)
    return counts.reshape(n_methods, n_methods) / n_draws


# --------------------------------------------------------------------------- run resampling


@dataclass(frozen=True)
class _RunLayout:
    """Where each run of the per-run table sits in a (dataset, method, run slot) grid.

    ``row[d, m, r]`` is the table row of method m's run with the r-th run id of
    dataset d (-1 when absent); ``n_runs[d]`` is the number of run ids of d.
    """

    row: np.ndarray
    n_runs: np.ndarray

    @property
    def max_runs(self) -> int:
        return int(self.row.shape[2])

    @classmethod
    def build(cls, table: pd.DataFrame, datasets: Sequence[str], methods: Sequence[str]) -> "_RunLayout":
        run = table["run"] if "run" in table.columns else pd.Series(0, index=table.index)
        d = pd.Index(datasets).get_indexer(table["dataset"])
        m = pd.Index(methods).get_indexer(table["method"])
        slot = (pd.Series(run.to_numpy()).groupby(d).rank(method="dense").to_numpy() - 1).astype(int)
        n_runs = np.zeros(len(datasets), dtype=int)
        np.maximum.at(n_runs, d, slot + 1)
        row = np.full((len(datasets), len(methods), max(int(n_runs.max(initial=0)), 1)), -1, dtype=np.int64)
        row[d, m, slot] = np.arange(len(table))
        return cls(row=row, n_runs=n_runs)


def _run_bootstrap(table, rules, verdict, layout, drawn, rng, methods, progress, *, resample_runs, force_judge):
    """Redraws judged run by run; returns (engine, (B, K) scores in `methods` order, notes)."""
    n_bootstrap, n_datasets = drawn.shape
    criteria = verdict.criteria
    used_rules = rules if len(criteria) == len(rules.criteria) else replace(rules, criteria=tuple(criteria))
    block = max(1, _BLOCK_ELEMENTS // (n_datasets * len(methods) * len(criteria) * layout.max_runs))
    engine, notes, values = "judge per resample", [], None
    if runs_are_vectorised(rules) and not force_judge:
        # The vectorised engine is tested against judging every redraw (tests/test_robustness.py), not checked
        # against it here.
        values = _oriented_run_values(table, criteria, layout)
        engine = "vectorised"
        boundary = int(_halfway_means(values, layout, used_rules).sum()) if rules.run_aggregation == "mean" else 0
        if boundary:
            notes.append(
                f"{boundary} run mean(s) of the full data lie exactly halfway between two rounded values (such as "
                "0.7475 at 3 decimals): the bootstrap rounds their exact mean half to even, where "
                "srdash.judging.ranking.judge rounds a floating-point sum, which can land one unit of the last "
                "decimal away.")
    scores = np.empty((n_bootstrap, len(methods)))
    for start in range(0, n_bootstrap, block):
        stop = min(start + block, n_bootstrap)
        chunk = drawn[start:stop]
        if resample_runs:
            uniform = rng.random((stop - start, n_datasets, layout.max_runs))
            positions = np.floor(uniform * layout.n_runs[chunk][..., None]).astype(np.int64)
        else:
            positions = np.broadcast_to(np.arange(layout.max_runs), (stop - start, n_datasets, layout.max_runs))
        if values is not None:
            aggregated = _aggregate(values, layout, chunk, positions, used_rules)
            scores[start:stop] = _over_datasets(_dataset_scores(aggregated, used_rules), used_rules)
        else:
            for i in range(stop - start):
                resampled = _resampled_table(table, layout, chunk[i], positions[i])
                board = judge(resampled, used_rules, methods=methods).leaderboard
                scores[start + i] = board.set_index("method")["score"].reindex(methods).to_numpy()
        if progress is not None:
            progress(stop, n_bootstrap)
    return engine, scores, notes


def _halfway_means(values, layout, rules) -> np.ndarray:
    """(D, K, C): the exact mean of a cell's runs lies halfway between two rounded values."""
    valid = (np.arange(layout.max_runs) < layout.n_runs[:, None])[:, :, None, None]  # (D, R, 1, 1)
    usable = valid & np.isfinite(values)
    failed = (valid & (values == -np.inf)).any(axis=1)
    out = np.zeros(failed.shape, dtype=bool)
    for j, c in enumerate(rules.criteria):
        if c.decimals is None:
            continue
        units = np.where(usable[..., j], np.rint(values[..., j] * 10.0 ** c.decimals), 0.0)
        units = units.sum(axis=1).astype(np.int64)
        n = np.maximum(usable[..., j].sum(axis=1), 1)
        out[..., j] = (2 * (units % n) == n) & ~failed[..., j]
    return out


def _oriented_run_values(table, criteria, layout) -> np.ndarray:
    """(D, R, K, C) per-run values rounded, oriented higher = better, missing = -inf; NaN where absent.

    Runs come before methods so that gathering the drawn runs of a dataset
    copies whole (method, criterion) blocks.
    """
    row = np.moveaxis(layout.row, 2, 1)                                              # (D, R, K)
    present = row >= 0
    out = np.full(row.shape + (len(criteria),), np.nan)
    for j, c in enumerate(criteria):
        value = pd.to_numeric(table[c.column], errors="coerce")
        if c.decimals is not None:
            value = value.round(c.decimals)
        value = (value if c.direction == "higher" else -value).fillna(-np.inf).to_numpy(dtype=float)
        plane = np.full(row.shape, np.nan)
        plane[present] = value[row[present]]
        out[..., j] = plane
    return out


def _aggregate(values, layout, drawn, positions, rules) -> np.ndarray:
    """(b, D, K, C) aggregated values of b redraws: drawn datasets (b, D), run positions (b, D, R).

    Oriented higher = better; -inf where every drawn run failed or the method
    has none of the drawn runs (DNF).
    """
    valid = np.arange(layout.max_runs) < layout.n_runs[drawn][..., None]           # (b, D, R)
    gathered = values[drawn[:, :, None], positions]                                 # (b, D, R, K, C)
    keep = valid[..., None, None] & ~np.isnan(gathered)
    count = keep.sum(axis=2)                                                         # (b, D, K, C)
    if rules.run_aggregation == "median":
        # as pandas: the middle value, or the mean of the two middle values
        ordered = np.sort(np.where(keep, gathered, np.nan), axis=2)                  # NaN last
        low = np.take_along_axis(ordered, (np.maximum(count - 1, 0) // 2)[:, :, None], axis=2)[:, :, 0]
        high = np.take_along_axis(ordered, (count // 2)[:, :, None], axis=2)[:, :, 0]
        aggregated = (low + high) / 2.0
    else:
        aggregated = np.empty(count.shape)
        for j, c in enumerate(rules.criteria):
            aggregated[..., j] = _mean(gathered[..., j], keep[..., j], count[..., j], c.decimals)
    aggregated = np.where(count > 0, aggregated, -np.inf)
    for j, c in enumerate(rules.criteria):
        if c.decimals is not None:
            aggregated[..., j] = np.round(aggregated[..., j], c.decimals)
    return aggregated


def _mean(values, keep, count, decimals) -> np.ndarray:
    """Mean over axis 2 (runs) of the kept values; -inf if any is -inf.

    With ``decimals``, the values are multiples of 10**-decimals, so the mean
    is computed exactly in those units and rounded half to even: it does not
    depend on the order the runs were drawn in.
    """
    failed = (keep & (values == -np.inf)).any(axis=2)
    usable = keep & np.isfinite(values)
    if decimals is None:
        mean = np.where(usable, values, 0.0).sum(axis=2) / np.maximum(count, 1)
    else:
        scale = 10.0 ** decimals
        units = np.where(usable, np.rint(values * scale), 0.0).sum(axis=2).astype(np.int64)
        n = np.maximum(count, 1).astype(np.int64)
        quotient, remainder = np.divmod(units, n)
        up = (2 * remainder > n) | ((2 * remainder == n) & (quotient % 2 == 1))
        mean = (quotient + up) / scale
    return np.where(failed, -np.inf, mean)


def _over_datasets(dataset_scores: np.ndarray, rules) -> np.ndarray:
    """(b, D, K) dataset scores -> (b, K) final scores, as the rules' ``[ranking] score`` says.

    ``dataset-mean``: the mean. ``harmonic-over-all``: one harmonic mean of every (dataset,
    criterion) rank, which is the harmonic mean over datasets of the dataset scores (each
    dataset's weighted harmonic mean of its ranks); a dataset score of 0 gives 0.
    """
    # A NaN dataset score is a DNF left out (``dnf = "left-out"``): the mean is over the other datasets.
    kept = (~np.isnan(dataset_scores)).sum(axis=1)
    if rules.score != "harmonic-over-all":
        with np.errstate(invalid="ignore", divide="ignore"):  # no drawn dataset with a result: 0, as judge says
            return np.where(kept > 0, np.nansum(dataset_scores, axis=1) / kept, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = np.where(dataset_scores > 0, 1.0 / np.where(dataset_scores > 0, dataset_scores, 1.0),
                           np.where(np.isnan(dataset_scores), 0.0, np.inf))
        total = inverse.sum(axis=1)
        return np.where(np.isinf(total) | (kept == 0), 0.0, kept / total)


def _dataset_scores(aggregated, rules) -> np.ndarray:
    """(b, D, K) dataset scores from (b, D, K, C) aggregated values."""
    n_methods = aggregated.shape[2]
    ranks = rank_higher_better(np.moveaxis(aggregated, 2, -1), rules.rank_method, n_methods=n_methods)  # (b, D, C, K)
    weights = np.array([c.weight for c in rules.criteria], dtype=float)
    return weighted_harmonic_mean(np.moveaxis(ranks, 2, -1), weights)


def _resampled_table(table, layout, drawn, positions) -> pd.DataFrame:
    """The per-run table of one redraw: drawn dataset slots renamed, runs renumbered in draw order."""
    n_datasets = len(drawn)
    valid = np.arange(layout.max_runs)[None, :] < layout.n_runs[drawn][:, None]     # (D, R)
    rows = layout.row[drawn[:, None], :, positions]                                  # (D, R, K)
    slot, run, _ = np.nonzero(valid[:, :, None] & (rows >= 0))
    picked = rows[valid[:, :, None] & (rows >= 0)]
    out = table.iloc[picked].reset_index(drop=True)
    width = len(str(n_datasets))
    out["dataset"] = [f"{s:0{width}d}" for s in slot]
    out["run"] = run
    return out
