"""Re-scoring a verdict under other weights (:class:`Rescorer`): the expensive steps (reading files,
simplifying models, ranking) done once, a weight change redoing only the final weighted mean."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.demo.competition import demo_competition
from srdash.errors import RulesError, SrdashError
from srdash.io.loading import load_results
from srdash.io.predictions import SUBSETS
from srdash.judging.kernel import scores_from_ranks, scores_many, scores_over_all
from srdash.judging.multiobjective import MultiObjectiveVerdict, Submissions, judge_submissions
from srdash.judging.pipeline import prepare_runs
from srdash.judging.predictions import CombinedLeaderboards
from srdash.judging.ranking import Verdict, judge, place_from_scores, rank_within_dataset
from srdash.judging.rules import Rules, load_rules

__all__ = ["HARMONIC", "LINEAR", "Rescorer", "rescorer_of", "load_rescorer"]

#: The score is a mean over datasets of the weighted harmonic mean of ranks (rank-harmonic rules).
HARMONIC = "harmonic"
#: The score is the weighted mean of meta-scores (normalised-weighted rules).
LINEAR = "linear"


@dataclass(frozen=True, eq=False)
class Rescorer:
    """A verdict's scores as a cheap function of its weights.

    Build with :meth:`from_verdict` (or :func:`load_rescorer`). Everything
    expensive is done by then; :meth:`scores` and :meth:`scores_many` only
    combine precomputed arrays.

    Attributes
    ----------
    methods : tuple of str
        Competitors (methods or teams), sorted.
    weight_names, weight_labels : tuple of str
        The weights: criteria (rank-harmonic rules) or meta-scores
        (normalised-weighted rules).
    official_weights : ndarray of shape (n_weights,)
        The rules' weights.
    aggregation : {'harmonic', 'linear'}
        ``harmonic``: mean over datasets of the weighted harmonic mean of ranks;
        ``linear``: weighted mean of meta-scores.
    components : ndarray
        Ranks of shape (methods, datasets, criteria) for ``harmonic`` (higher is
        better, K = best); meta-scores of shape (methods, groups) for ``linear``.
    fixed_scores : ndarray of shape (methods,)
        A score that no weight changes (a failed threshold), NaN elsewhere.
    verdict : Verdict or MultiObjectiveVerdict
        The official verdict.
    runs : DataFrame or None
        The per-run table (rank-harmonic rules), needed to re-judge without a
        method when ranks cannot be recomputed from the per-dataset values.
    entity : {'method', 'team'}
        What the competitors are called.
    """

    methods: tuple[str, ...]
    weight_names: tuple[str, ...]
    weight_labels: tuple[str, ...]
    official_weights: np.ndarray
    aggregation: str
    components: np.ndarray
    fixed_scores: np.ndarray
    verdict: Verdict | MultiObjectiveVerdict
    runs: pd.DataFrame | None = None
    entity: str = "method"
    # Rescorers without one method, computed on first use (irrelevant alternatives).
    _reduced: dict = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ build
    @classmethod
    def from_verdict(cls, verdict: Verdict | MultiObjectiveVerdict, *, runs: pd.DataFrame | None = None) -> "Rescorer":
        """Precompute what re-scoring needs from a verdict.

        Parameters
        ----------
        verdict : Verdict or MultiObjectiveVerdict
            From :func:`srdash.judging.ranking.judge` or
            :func:`srdash.judging.multiobjective.judge_submissions`.
        runs : DataFrame, optional
            The per-run table the verdict was judged from (rank-harmonic rules).

        Returns
        -------
        Rescorer

        Examples
        --------
        Normalised-weighted rules re-score the meta-scores, linearly:

        >>> from srdash.judging.multiobjective import judge_submissions
        >>> frame = pd.DataFrame({"participant_id": ["a", "b"], "hit_rate": [0.02, 0.2], "mrr": [0.002, 0.05],
        ...     "mred_country": -0.005, "mred_track_popularity": -0.006, "mred_user_activity": -0.01,
        ...     "mred_artist_popularity": -0.0037, "mred_gender": -0.001, "being_less_wrong": [0.4, 0.3],
        ...     "latent_diversity": -0.3})
        >>> rescorer = Rescorer.from_verdict(judge_submissions(frame, "evalrs2022"))
        >>> rescorer.linear, rescorer.weight_names, rescorer.official_weights.tolist()
        (True, ('performance', 'fairness', 'behavioural'), [1.0, 1.5, 1.5])
        """
        if isinstance(verdict, MultiObjectiveVerdict):
            board = verdict.leaderboard.sort_values("team", kind="stable")
            groups = verdict.scheme.groups
            components = board[[g.name for g in groups]].to_numpy(dtype=float)
            fixed = np.full(len(board), np.nan)
            failed = (board["status"] != "ok").to_numpy()
            fixed[failed] = board["stage2"].to_numpy(dtype=float)[failed]
            weights = np.array([verdict.weights[g.name] for g in groups], dtype=float)
            return cls(methods=tuple(board["team"].astype(str)), weight_names=tuple(g.name for g in groups),
                       weight_labels=tuple(g.label for g in groups), official_weights=_frozen(weights),
                       aggregation=LINEAR, components=_frozen(components), fixed_scores=_frozen(fixed),
                       verdict=verdict, runs=None, entity="team")
        if not isinstance(verdict, Verdict):
            raise SrdashError(f"A Rescorer is built from a Verdict or a MultiObjectiveVerdict. Got {type(verdict).__name__}.")
        criteria = verdict.criteria
        ranks = _rank_array(verdict.per_dataset, [c.name for c in criteria])
        methods = tuple(sorted(verdict.per_dataset["method"].astype(str).unique()))
        weights = np.array([c.weight for c in criteria], dtype=float)
        return cls(methods=methods, weight_names=tuple(c.name for c in criteria),
                   weight_labels=tuple(c.label for c in criteria), official_weights=_frozen(weights),
                   aggregation=HARMONIC, components=_frozen(ranks), fixed_scores=_frozen(np.full(len(methods), np.nan)),
                   verdict=verdict, runs=runs, entity="method")

    # ------------------------------------------------------------------ facts
    @property
    def rules(self) -> Rules:
        """The verdict's rules."""
        return self.verdict.rules

    @property
    def linear(self) -> bool:
        """True when the score is linear in the (normalised) weights."""
        return self.aggregation == LINEAR

    @property
    def n_weights(self) -> int:
        return len(self.weight_names)

    @property
    def what_is_weighted(self) -> str:
        """One sentence saying what the weights weigh."""
        if self.linear:
            return ("The weights are the meta-score weights of the stage-2 score, sum(w·meta) / sum(w); "
                    "teams below a threshold keep their fixed score.")
        return ("The weights are the criteria weights of the harmonic mean of per-dataset ranks "
                "(ranks: 1 = worst, K = best), averaged over datasets.")

    def weights_from(self, weights: Mapping[str, float] | Sequence[float] | np.ndarray | None) -> np.ndarray:
        """Check a weight vector (a mapping by name, a sequence in :attr:`weight_names` order, or None
        for the official weights) and return it as an array.

        Raises
        ------
        RulesError
            Unknown names, a wrong length, a negative or non-finite weight, or all weights 0.

        Examples
        --------
        >>> from srdash.analysis.sensitivity.examples import accuracy_or_simplicity
        >>> rescorer = accuracy_or_simplicity()
        >>> rescorer.weights_from({"simplicity": 3}).tolist()
        [1.0, 3.0]
        >>> rescorer.weights_from([0, 0])
        Traceback (most recent call last):
        ...
        srdash.errors.RulesError: At least one weight must be > 0 (scaling all weights changes nothing, but all zero leaves nothing to rank by).
        """
        if weights is None:
            return np.array(self.official_weights, dtype=float)
        if isinstance(weights, Mapping):
            unknown = sorted(set(weights) - set(self.weight_names))
            if unknown:
                raise RulesError(f"Unknown weight(s) {', '.join(map(str, unknown))}. "
                                 f"Weights: {', '.join(self.weight_names)}.")
            vector = np.array([float(weights.get(n, w)) for n, w in zip(self.weight_names, self.official_weights)])
        else:
            vector = np.asarray(weights, dtype=float)
            if vector.shape != (self.n_weights,):
                raise RulesError(f"Expected {self.n_weights} weights ({', '.join(self.weight_names)}). "
                                 f"Got {vector.shape[0] if vector.ndim == 1 else vector.shape}.")
        _check_vector(vector, self.weight_names)
        return vector

    # ------------------------------------------------------------------ scoring
    def scores(self, weights=None) -> np.ndarray:
        """Scores of :attr:`methods` under ``weights`` (higher is better).

        Rank-harmonic rules: :func:`srdash.judging.ranking.scores_from_ranks` on the
        precomputed ranks. Normalised-weighted rules: ``meta @ w / sum(w)``.

        Examples
        --------
        >>> from srdash.analysis.sensitivity.examples import accuracy_or_simplicity
        >>> rescorer = accuracy_or_simplicity()
        >>> rescorer.scores().round(4).tolist(), rescorer.scores([3.0, 1.0]).round(4).tolist()
        ([1.3333, 1.3333], [1.6, 1.1429])
        """
        w = self.weights_from(weights)
        if self.linear:
            return np.where(np.isnan(self.fixed_scores), np.einsum("mc,c->m", self.components, w) / w.sum(),
                            self.fixed_scores)
        if self.rules.score == "harmonic-over-all":  # SRBench 2023: one harmonic mean of all ranks
            return scores_over_all(self.components, w[None, :])[0]
        return scores_from_ranks(self.components, w)

    def scores_many(self, weight_matrix: np.ndarray) -> np.ndarray:
        """Scores under many weight vectors at once.

        Parameters
        ----------
        weight_matrix : array of shape (n_vectors, n_weights)
            Non-negative rows, each with a positive entry.

        Returns
        -------
        ndarray of shape (n_vectors, n_methods)

        Examples
        --------
        >>> from srdash.analysis.sensitivity.examples import accuracy_or_simplicity
        >>> rescorer = accuracy_or_simplicity()
        >>> rescorer.scores_many(np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])).round(3).tolist()
        [[2.0, 1.0], [1.333, 1.333], [1.0, 2.0]]
        """
        w = np.asarray(weight_matrix, dtype=float)
        if w.ndim != 2 or w.shape[1] != self.n_weights:
            raise RulesError(f"Expected a weight matrix of shape (n, {self.n_weights}). Got {w.shape}.")
        if not np.isfinite(w).all() or (w < 0).any() or (w.sum(axis=1) <= 0).any():
            raise RulesError("Every weight must be a finite number >= 0, with at least one > 0 in each vector.")
        return self._scores_many(w)

    def _scores_many(self, w: np.ndarray) -> np.ndarray:
        # Not a BLAS matmul: with 2 or 3 weights the threaded BLAS call is dominated by
        # its own overhead (tens of ms on a busy 2-core machine).
        if self.linear:
            out = np.einsum("mc,nc->nm", self.components, w) / w.sum(axis=1)[:, None]
            fixed = ~np.isnan(self.fixed_scores)
            out[:, fixed] = self.fixed_scores[fixed]
            return out
        if self.rules.score == "harmonic-over-all":
            return scores_over_all(self.components, w)
        return scores_many(self.components, w)

    def places(self, weights=None) -> np.ndarray:
        """Places of :attr:`methods` (1 = best; equal scores share the smallest place).

        Examples
        --------
        >>> from srdash.analysis.sensitivity.examples import accuracy_or_simplicity
        >>> rescorer = accuracy_or_simplicity()
        >>> rescorer.places().tolist(), rescorer.places({"accuracy": 2}).tolist()
        ([1, 1], [1, 2])
        """
        return place_from_scores(self.scores(weights))

    @property
    def official_places(self) -> np.ndarray:
        """Places under the rules' own weights."""
        return self.places(None)

    def leaderboard(self, weights=None) -> pd.DataFrame:
        """The leaderboard under ``weights``: ``place``, the competitor, ``score``,
        ``official_place`` and ``change`` (places gained against the official
        verdict; positive = better), best first."""
        scores = self.scores(weights)
        places = place_from_scores(scores)
        official = self.official_places
        board = pd.DataFrame({"place": places, self.entity: list(self.methods), "score": scores,
                              "official_place": official, "change": official - places})
        return board.sort_values(["place", self.entity], kind="stable").reset_index(drop=True)

    # ------------------------------------------------------------------ removal
    def without(self, method: str) -> "Rescorer":
        """The rescorer of the same competition without ``method`` (judged again where
        the other methods' scores depend on it). Computed once, then remembered.

        Examples
        --------
        Ranks depend on who takes part: without ``c``, ``a`` and ``b`` tie.

        >>> from srdash.demo.examples import accuracy_rules
        >>> from srdash.judging.ranking import judge
        >>> runs = pd.DataFrame({"method": ["a", "b", "c"] * 2, "dataset": ["d1"] * 3 + ["d2"] * 3,
        ...                      "r2_test": [0.9, 0.5, 0.7, 0.5, 0.9, 0.1]})
        >>> rescorer = Rescorer.from_verdict(judge(runs, accuracy_rules()))
        >>> rescorer.scores().tolist(), rescorer.without("c").scores().tolist()
        ([2.5, 2.0, 1.5], [1.5, 1.5])
        """
        if method not in self.methods:
            raise SrdashError(f"Unknown {self.entity} '{method}'. Known: {', '.join(self.methods)}.")
        if len(self.methods) < 2:
            raise SrdashError("Cannot remove the only competitor.")
        if method not in self._reduced:
            self._reduced[method] = self._without(method)
        return self._reduced[method]

    def _without(self, method: str) -> "Rescorer":
        keep = np.array([m != method for m in self.methods])
        others = tuple(m for m in self.methods if m != method)
        if self.linear:
            verdict = self.verdict
            scheme = verdict.scheme
            # With constant references the others' scores do not depend on who takes part.
            depends = [how for how in (scheme.baseline_from, scheme.best_from)
                       if how.endswith("-of-teams") or how == f"team:{method}"]
            if not depends:
                return _replace(self, methods=others, components=self.components[keep],
                                fixed_scores=self.fixed_scores[keep])
            table = verdict.submissions
            columns = ["submission", "team"] + (["submitted_at"] if "submitted_at" in table else []) + \
                [c.column for c in scheme.metrics]
            reduced = judge_submissions(Submissions(table=table.loc[table["team"] != method, columns]),
                                        verdict.rules, weights=dict(verdict.weights))
            return Rescorer.from_verdict(reduced)
        verdict = self.verdict
        rules = verdict.rules
        if (rules.run_aggregation in ("median", "mean") and getattr(rules, "min_relative", None) is None
                and not rules.uses_extended_options):
            # Ranks depend only on the per-dataset values: rank them again without the method.
            per_dataset = verdict.per_dataset[verdict.per_dataset["method"] != method].reset_index(drop=True)
            reranked = per_dataset[["dataset", "method"]].copy()
            for c in verdict.criteria:
                values = per_dataset[c.name].where(per_dataset["status"] == "ok")
                reranked[f"{c.name}_rank"] = rank_within_dataset(
                    values, per_dataset["dataset"], direction=c.direction, method=rules.rank_method,
                    n_methods=len(others)).to_numpy()
            ranks = _rank_array(reranked, [c.name for c in verdict.criteria])
            return _replace(self, methods=others, components=_frozen(ranks),
                            fixed_scores=_frozen(np.full(len(others), np.nan)))
        if self.runs is None:
            raise SrdashError(f"Removing a method under the rules '{rules.name}' (run aggregation "
                              f"'{rules.run_aggregation}', a relative threshold or options on ties, DNFs, missing "
                              "values, rounding or normalisation) means judging again from the "
                              "per-run table: build the Rescorer with runs=...")
        reduced = judge(self.runs[self.runs["method"] != method], rules.with_options(
            weights=dict(zip(self.weight_names, self.official_weights))), methods=others)
        rescorer = Rescorer.from_verdict(reduced, runs=None)
        return _replace(rescorer, weight_names=self.weight_names, weight_labels=self.weight_labels,
                        official_weights=self.official_weights)


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=float)
    array.setflags(write=False)
    return array


def _replace(rescorer: Rescorer, **changes) -> Rescorer:
    values = {name: getattr(rescorer, name) for name in
              ("methods", "weight_names", "weight_labels", "official_weights", "aggregation", "components",
               "fixed_scores", "verdict", "runs", "entity")}
    values.update(changes)
    return Rescorer(**values)


def _rank_array(per_dataset: pd.DataFrame, criteria: Sequence[str]) -> np.ndarray:
    """(methods, datasets, criteria) ranks, methods and datasets sorted."""
    layers = [per_dataset.pivot(index="method", columns="dataset", values=f"{name}_rank").sort_index()
              .sort_index(axis=1).to_numpy(dtype=float) for name in criteria]
    return np.stack(layers, axis=-1)


def _check_vector(vector: np.ndarray, names: Sequence[str]) -> None:
    bad = [f"{n} = {v!r}" for n, v in zip(names, vector.tolist()) if not (math.isfinite(v) and v >= 0)]
    if bad:
        raise RulesError(f"Weights must be finite numbers >= 0. Got {', '.join(bad)}.")
    if vector.sum() <= 0:
        raise RulesError("At least one weight must be > 0 (scaling all weights changes nothing, "
                         "but all zero leaves nothing to rank by).")


def rescorer_of(result, *, subset: str | None = None) -> Rescorer:
    """The :class:`Rescorer` of a judged competition, or of a prediction competition's combined leaderboards.

    Parameters
    ----------
    result : CompetitionResult or CombinedLeaderboards
        A judged competition (:func:`srdash.judging.pipeline.judge_competition`): its official order
        is the competition's verdict. Or the combined leaderboards of a prediction competition
        (:func:`srdash.judging.predictions.combine_metrics`, ``PredictionResult.combined``): the
        weights are the metrics' (or the meta-scores') weights.
    subset : {'preliminary', 'final'}, optional, keyword-only
        Combined leaderboards only: the subset whose verdict is re-scored (default 'final').

    Raises
    ------
    SrdashError
        An unknown subset, or a subset for a judged competition (it has one verdict).

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.predictions import Targets, score_submissions
    >>> targets = Targets.from_arrays([0.0] * 4, ["preliminary"] * 2 + ["final"] * 2)
    >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a", "b"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"a": [0, 3, 0, 3], "b": [2, 2, 2, 2]})
    >>> rescorer_of(result.combined).weight_names
    ('rmse', 'mae')
    >>> rescorer_of(result.combined, subset="public")
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The 'subset' option must be one of 'preliminary', 'final'. Got 'public'.
    """
    if isinstance(result, CombinedLeaderboards):
        subset = "final" if subset is None else subset
        if subset not in SUBSETS:
            listed = ", ".join(f"'{s}'" for s in SUBSETS)
            raise SrdashError(f"The 'subset' option must be one of {listed}. Got {subset!r}.")
        return Rescorer.from_verdict(result.verdicts[subset], runs=result.runs[subset])
    if subset is not None:
        raise SrdashError(f"The 'subset' option is for combined prediction leaderboards; a judged competition "
                          f"has one verdict. Got {subset!r}.")
    return Rescorer.from_verdict(result.verdict, runs=result.runs)


def load_rescorer(source=None, rules: Rules | str = "srbench2022", *, datasets=None, jobs: int = 1,
                  timeout: float = 10.0, cache=None) -> Rescorer:
    """Read, validate and judge once, and return the :class:`Rescorer`.

    Parameters
    ----------
    source : path, DataFrame or None
        Results (rank-harmonic rules; None: the built-in demo competition) or
        submissions (normalised-weighted rules; required).
    rules : Rules or str
        A preset name or a rules file.
    datasets, jobs, timeout, cache
        Passed to :func:`srdash.io.loading.load_results` and
        :func:`srdash.judging.pipeline.prepare_runs` (rank-harmonic rules; the models
        are simplified only when a criterion uses the ``simplicity`` column).

    Returns
    -------
    Rescorer

    Examples
    --------
    >>> results = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "components": [3, 25],
    ...                         "r2_test": [0.9, 0.5], "property": [0.1, 0.8]})
    >>> rescorer = load_rescorer(results, "srbench2022")
    >>> rescorer.weight_names, rescorer.leaderboard()["method"].tolist()
    (('accuracy', 'simplicity', 'property'), ['a', 'b'])
    """
    rules = load_rules(rules)
    if rules.rule_kind.judges_submissions:
        if source is None:
            raise SrdashError(f"The rules '{rules.name}' judge submissions: give a submissions file "
                              "(CSV or Parquet, one row per submission).")
        return Rescorer.from_verdict(judge_submissions(source, rules))
    if source is None:
        results = demo_competition()
    else:
        results = load_results(source, datasets=datasets)
    # the rules' measures, and only those (no model is simplified unless a criterion asks for it)
    runs = prepare_runs(results, rules=rules, timeout=timeout, jobs=jobs, cache=cache)
    return Rescorer.from_verdict(judge(runs, rules), runs=runs)
