"""Weight sensitivity of a verdict, for any rules.

Organisers choose weights; a verdict that flips when a weight moves a little is
fragile. This module answers, for any verdict:

* **live**: the leaderboard under other weights (:class:`Rescorer`), fast enough
  to follow a slider: the expensive steps (reading files, simplifying models,
  ranking) are done once, and a weight change only redoes the final weighted
  mean;
* **global**: place probabilities over weight vectors drawn uniformly from the
  simplex, the Kendall tau of each sampled ranking to the official one
  (:func:`place_probabilities`), and, with exactly three weights, the winner over
  the whole simplex (:func:`ternary_winner_map`);
* **targeted**: weights that would make a given method win, or a statement that
  none exist (:func:`find_winning_weights`: a linear program where the
  aggregation is linear, a search otherwise; the result says which);
* **irrelevant alternatives**: which pairs swap places when one other method is
  removed (:func:`irrelevant_alternatives`).

What the weights are depends on the rules' kind:

* ``rank-harmonic`` (SRBench): the criteria weights of the weighted harmonic
  mean of per-dataset ranks. The rank array (methods x datasets x criteria) is
  computed once by :func:`srdash.judging.ranking.judge`; re-scoring is
  :func:`srdash.judging.ranking.scores_from_ranks`, a weighted harmonic mean and a mean.
* ``normalised-weighted`` (EvalRS): the meta-score weights. Stage 2 is
  ``sum(w * meta) / sum(w)``, linear in the weights on the simplex; a team
  below a threshold keeps its fixed score.

Scaling all weights changes nothing, so weight vectors are compared on the
simplex (normalised to sum 1). Places: 1 = best; equal scores (to 9 decimals)
share the smallest place. A method *wins* when it is alone in first place.

Examples
--------
>>> import pandas as pd
>>> from srdash.demo.examples import accuracy_and_simplicity_rules
>>> from srdash.judging.ranking import judge
>>> runs = pd.DataFrame({"method": ["a", "b", "c"] * 2, "dataset": ["d1"] * 3 + ["d2"] * 3, "run": 0,
...                      "r2_test": [0.9, 0.5, 0.7] * 2, "simplicity": [-2.0, -0.5, -1.0] * 2})
>>> rescorer = Rescorer.from_verdict(judge(runs, accuracy_and_simplicity_rules()), runs=runs)
>>> rescorer.weight_names
('accuracy', 'simplicity')
>>> rescorer.leaderboard()[["place", "method", "score"]].round(4)
   place method  score
0      1      c    2.0
1      2      a    1.5
2      2      b    1.5
>>> rescorer.leaderboard([1.0, 0.0])["method"].tolist()
['a', 'c', 'b']
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.errors import RulesError, SrdashError
from srdash.judging.multiobjective import MultiObjectiveVerdict, Submissions, judge_submissions
from srdash.judging.kernel import scores_from_ranks, scores_many, scores_over_all
from srdash.judging.ranking import Verdict, judge, place_from_scores, rank_within_dataset
from srdash.judging.rules import Rules, load_rules

__all__ = [
    "Rescorer",
    "load_rescorer",
    "rescorer_of",
    "sample_weights",
    "kendall_tau",
    "PlaceProbabilities",
    "place_probabilities",
    "TernaryMap",
    "ternary_winner_map",
    "WeightSweep",
    "weight_sweep",
    "WinningWeights",
    "find_winning_weights",
    "irrelevant_alternatives",
]

HARMONIC = "harmonic"
LINEAR = "linear"
# Places compare scores rounded to this many decimals (as place_from_scores does):
# a lead smaller than this is a tie.
_SCORE_DECIMALS = 9
_TIE = 10.0 ** -_SCORE_DECIMALS
# Weight vectors scored per block in vectorised re-scoring (bounds memory).
_BLOCK = 128


def _normalised(weights: np.ndarray) -> np.ndarray:
    return weights / weights.sum(axis=-1, keepdims=True)


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
        >>> from srdash.demo.examples import accuracy_or_simplicity
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
        >>> from srdash.demo.examples import accuracy_or_simplicity
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
        >>> from srdash.demo.examples import accuracy_or_simplicity
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
        >>> from srdash.demo.examples import accuracy_or_simplicity
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


def rescorer_of(result) -> Rescorer:
    """The :class:`Rescorer` of a judged competition (:func:`srdash.judging.pipeline.judge_competition`):
    its official order is the competition's verdict."""
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
    from srdash.io.loading import load_results
    from srdash.judging.pipeline import prepare_runs

    if source is None:
        from srdash.demo.competition import demo_competition

        results = demo_competition()
    else:
        results = load_results(source, datasets=datasets)
    # the rules' measures, and only those (no model is simplified unless a criterion asks for it)
    runs = prepare_runs(results, rules=rules, timeout=timeout, jobs=jobs, cache=cache)
    return Rescorer.from_verdict(judge(runs, rules), runs=runs)


# --------------------------------------------------------------------------- global analysis


def sample_weights(n_weights: int, samples: int, *, seed: int = 0) -> np.ndarray:
    """Weight vectors drawn uniformly from the simplex (a flat Dirichlet), reproducibly.

    Parameters
    ----------
    n_weights : int
    samples : int
    seed : int
        Seed of :func:`numpy.random.default_rng`: the same seed gives the same vectors.

    Returns
    -------
    ndarray of shape (samples, n_weights)
        Non-negative rows summing to 1.

    Examples
    --------
    >>> w = sample_weights(3, 4, seed=1)
    >>> w.shape, bool(np.allclose(w.sum(axis=1), 1)), bool((sample_weights(3, 4, seed=1) == w).all())
    ((4, 3), True, True)
    """
    if not isinstance(samples, (int, np.integer)) or samples < 1:
        raise SrdashError(f"The number of samples must be a positive integer. Got {samples!r}.")
    if n_weights < 1:
        raise SrdashError(f"Need at least one weight. Got {n_weights!r}.")
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(n_weights), size=int(samples))


def _places_many(scores: np.ndarray) -> np.ndarray:
    """Row-wise places (1 = best, ties share the smallest), as place_from_scores does."""
    rounded = np.round(scores, _SCORE_DECIMALS)
    places = np.empty(rounded.shape, dtype=np.int32)
    for start in range(0, len(rounded), _BLOCK):
        block = rounded[start:start + _BLOCK]
        places[start:start + _BLOCK] = 1 + (block[:, None, :] > block[:, :, None]).sum(axis=2)
    return places


def kendall_tau(rankings: np.ndarray, reference: Sequence[float]) -> np.ndarray:
    """Kendall's tau-b of each ranking (row) to a reference ranking.

    Parameters
    ----------
    rankings : array of shape (n_rankings, n_items) or (n_items,)
        Places or scores (any monotone scale; ties allowed).
    reference : array of shape (n_items,)

    Returns
    -------
    ndarray of shape (n_rankings,)
        1 = same order, -1 = reversed; NaN when a ranking is all ties.

    Examples
    --------
    >>> kendall_tau(np.array([[1, 2, 3], [3, 2, 1], [1, 3, 2]]), [1, 2, 3]).round(4).tolist()
    [1.0, -1.0, 0.3333]
    """
    rankings = np.atleast_2d(np.asarray(rankings, dtype=float))
    reference = np.asarray(reference, dtype=float)
    i, j = np.triu_indices(len(reference), k=1)
    ref_sign = np.sign(reference[i] - reference[j])
    out = np.empty(len(rankings))
    for start in range(0, len(rankings), _BLOCK):
        block = rankings[start:start + _BLOCK]
        sign = np.sign(block[:, i] - block[:, j])
        concordance = (sign * ref_sign).sum(axis=1)
        untied = np.count_nonzero(sign, axis=1) * np.count_nonzero(ref_sign)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start:start + len(block)] = concordance / np.sqrt(untied)
    return out


@dataclass(frozen=True, eq=False)
class PlaceProbabilities:
    """Places over weight vectors sampled uniformly from the simplex.

    Attributes
    ----------
    table : DataFrame
        One row per competitor in official order: the competitor, ``official_place``,
        ``p_win`` (probability of place 1, shared places included), ``mean_place``
        and ``place_1`` ... ``place_K`` (probability of each place).
    weights : ndarray of shape (samples, n_weights)
    places : ndarray of shape (samples, n_methods)
        In :attr:`Rescorer.methods` order.
    kendall_tau : ndarray of shape (samples,)
        Tau-b of each sampled ranking to the official one.
    seed : int
    methods, weight_names : tuple of str
    entity : str
    """

    table: pd.DataFrame
    weights: np.ndarray
    places: np.ndarray
    kendall_tau: np.ndarray
    seed: int
    methods: tuple[str, ...]
    weight_names: tuple[str, ...]
    entity: str = "method"

    @property
    def samples(self) -> int:
        return len(self.weights)


def place_probabilities(rescorer: Rescorer, *, samples: int = 10_000, seed: int = 0) -> PlaceProbabilities:
    """Probability of each place for each competitor, over weights uniform on the simplex.

    Parameters
    ----------
    rescorer : Rescorer
    samples : int
        Number of weight vectors.
    seed : int
        The same seed gives the same vectors and the same table.

    Returns
    -------
    PlaceProbabilities

    Examples
    --------
    >>> from srdash.demo.examples import accuracy_or_simplicity
    >>> result = place_probabilities(accuracy_or_simplicity(), samples=1000, seed=0)
    >>> result.table[["method", "official_place", "p_win", "place_1", "place_2"]].round(2)
      method  official_place  p_win  place_1  place_2
    0      a               1    0.5      0.5      0.5
    1      b               1    0.5      0.5      0.5
    """
    weights = sample_weights(rescorer.n_weights, samples, seed=seed)
    places = _places_many(rescorer._scores_many(weights))
    official = rescorer.official_places
    tau = kendall_tau(places, official)
    n = len(rescorer.methods)
    counts = np.stack([(places == p).mean(axis=0) for p in range(1, n + 1)], axis=1)
    table = pd.DataFrame({rescorer.entity: list(rescorer.methods), "official_place": official,
                          "p_win": counts[:, 0], "mean_place": places.mean(axis=0)})
    for p in range(1, n + 1):
        table[f"place_{p}"] = counts[:, p - 1]
    table = table.sort_values(["official_place", "mean_place", rescorer.entity], kind="stable").reset_index(drop=True)
    return PlaceProbabilities(table=table, weights=weights, places=places, kendall_tau=tau, seed=int(seed),
                              methods=rescorer.methods, weight_names=rescorer.weight_names, entity=rescorer.entity)


@dataclass(frozen=True, eq=False)
class TernaryMap:
    """The winner at every point of a regular grid over the simplex of three weights.

    Attributes
    ----------
    weights : ndarray of shape (points, 3)
        Normalised weight vectors.
    winners : tuple of str
        The winner at each point; tied winners joined by " = ".
    weight_names, weight_labels : tuple of str
    official : ndarray of shape (3,)
        The official weights, normalised.
    official_winner : str
    """

    weights: np.ndarray
    winners: tuple[str, ...]
    weight_names: tuple[str, ...]
    weight_labels: tuple[str, ...]
    official: np.ndarray
    official_winner: str

    def share(self, winner: str) -> float:
        """Share of the grid points where ``winner`` wins."""
        return float(np.mean([w == winner for w in self.winners]))


def _winner_names(methods: Sequence[str], places: np.ndarray) -> list[str]:
    return [" = ".join(m for m, p in zip(methods, row) if p == 1) for row in places]


def ternary_winner_map(rescorer: Rescorer, *, resolution: int = 30) -> TernaryMap:
    """Who wins where, over the whole simplex of exactly three weights.

    Parameters
    ----------
    rescorer : Rescorer
        With exactly three weights.
    resolution : int
        Grid steps per side: ``(resolution + 1) * (resolution + 2) / 2`` points.

    Raises
    ------
    SrdashError
        When the rules do not have exactly three weights.

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.5, 0.7],
    ...                      "simplicity": [-2.0, -0.5, -1.0], "property": [0.1, 0.2, 0.9]})
    >>> tmap = ternary_winner_map(Rescorer.from_verdict(judge(runs, load_rules("srbench2022"))), resolution=4)
    >>> len(tmap.winners), tmap.winners[0], tmap.official_winner
    (15, 'c', 'c')
    """
    if rescorer.n_weights != 3:
        raise SrdashError(f"A ternary map needs exactly three weights; these rules have {rescorer.n_weights} "
                          f"({', '.join(rescorer.weight_names)}).")
    if not isinstance(resolution, (int, np.integer)) or resolution < 1:
        raise SrdashError(f"The resolution must be a positive integer. Got {resolution!r}.")
    grid = np.array([(i, j, resolution - i - j) for i in range(resolution + 1) for j in range(resolution + 1 - i)],
                    dtype=float) / resolution
    places = _places_many(rescorer._scores_many(grid))
    official = rescorer.official_weights / rescorer.official_weights.sum()
    official_winner = _winner_names(rescorer.methods, rescorer.official_places[None, :])[0]
    return TernaryMap(weights=grid, winners=tuple(_winner_names(rescorer.methods, places)),
                      weight_names=rescorer.weight_names, weight_labels=rescorer.weight_labels,
                      official=official, official_winner=official_winner)


@dataclass(frozen=True, eq=False)
class WeightSweep:
    """Places as one weight varies and the others stay fixed (input of a bump chart).

    Attributes
    ----------
    weight_name, weight_label : str
        The varied weight.
    values : ndarray of shape (points,)
    places : ndarray of shape (points, n_methods)
        Float, NaN where every weight is 0.
    methods : tuple of str
    current : float
        The varied weight's current value.
    weights : ndarray
        The full current weight vector.
    """

    weight_name: str
    weight_label: str
    values: np.ndarray
    places: np.ndarray
    methods: tuple[str, ...]
    current: float
    weights: np.ndarray


def weight_sweep(rescorer: Rescorer, name: str, *, weights=None, maximum: float | None = None,
                 points: int = 41) -> WeightSweep:
    """Places of every competitor as the weight ``name`` goes from 0 to ``maximum``.

    Parameters
    ----------
    rescorer : Rescorer
    name : str
        One of :attr:`Rescorer.weight_names`.
    weights : optional
        The other weights (default: official).
    maximum : float, optional
        Default: three times the largest official weight.
    points : int

    Examples
    --------
    >>> from srdash.demo.examples import accuracy_or_simplicity
    >>> sweep = weight_sweep(accuracy_or_simplicity(), "accuracy", points=3)
    >>> sweep.values.tolist(), sweep.places.tolist()
    ([0.0, 1.5, 3.0], [[2.0, 1.0], [1.0, 2.0], [1.0, 2.0]])
    """
    if name not in rescorer.weight_names:
        raise RulesError(f"Unknown weight '{name}'. Weights: {', '.join(rescorer.weight_names)}.")
    base = rescorer.weights_from(weights)
    index = rescorer.weight_names.index(name)
    top = float(maximum) if maximum is not None else 3.0 * float(rescorer.official_weights.max())
    values = np.linspace(0.0, top, int(points))
    matrix = np.repeat(base[None, :], len(values), axis=0)
    matrix[:, index] = values
    valid = matrix.sum(axis=1) > 0
    places = np.full((len(values), len(rescorer.methods)), np.nan)
    if valid.any():
        places[valid] = _places_many(rescorer._scores_many(matrix[valid]))
    return WeightSweep(weight_name=name, weight_label=rescorer.weight_labels[index], values=values,
                       places=places, methods=rescorer.methods, current=float(base[index]), weights=base)


# --------------------------------------------------------------------------- targeted search


@dataclass(frozen=True)
class WinningWeights:
    """The answer to "which weights would make this method win?".

    Attributes
    ----------
    method : str
    status : {'found', 'impossible', 'not found'}
        ``impossible`` is proved (by the linear program, or because another
        competitor is at least as good on every component); ``not found`` means
        the search failed, which is not a proof.
    weights : Mapping of str to float or None
        Normalised to sum 1: among the weights found, those closest to the
        official ones.
    margin : float
        The method's lead over the runner-up at ``weights`` (the best reachable
        lead, negative if it trails, when nothing was found).
    approach : str
        ``'linear program'`` or a description of the search.
    explanation : str
        One or two sentences for the reader.
    """

    method: str
    status: str
    weights: Mapping[str, float] | None
    margin: float
    approach: str
    explanation: str

    @property
    def exists(self) -> bool | None:
        """True (found), False (proved impossible) or None (not found by search)."""
        return {"found": True, "impossible": False}.get(self.status)


def _margins(scores: np.ndarray, index: int) -> np.ndarray:
    others = np.delete(scores, index, axis=1)
    return scores[:, index] - others.max(axis=1)


def _dominator(rescorer: Rescorer, index: int) -> str | None:
    """A competitor at least as good as ``index`` on every component (then ``index`` can never lead)."""
    mine = rescorer.components[index]
    fixed = rescorer.fixed_scores
    for j, other in enumerate(rescorer.methods):
        if j == index:
            continue
        if rescorer.linear:
            both_fixed = not np.isnan(fixed[index]) and not np.isnan(fixed[j])
            neither_fixed = np.isnan(fixed[index]) and np.isnan(fixed[j])
            if (both_fixed and fixed[j] >= fixed[index]) or (neither_fixed and (rescorer.components[j] >= mine).all()):
                return other
        elif (rescorer.components[j] >= mine).all():
            return other
    return None


def find_winning_weights(rescorer: Rescorer, method: str, *, samples: int = 20_000, seed: int = 0) -> WinningWeights:
    """Weights under which ``method`` is alone in first place, or a statement that none exist.

    Normalised-weighted rules (linear in the weights on the simplex): a linear
    program maximises the method's lead over every other competitor; if the
    best lead is positive, a second linear program finds the winning weights
    closest (L1) to the official ones. The answer is exact.

    Rank-harmonic rules (not linear): a search over ``samples`` weight vectors
    drawn uniformly from the simplex plus its corners, edge midpoints and the
    official weights, then a local refinement (Nelder-Mead) of the best one.
    "Impossible" is stated only with a proof: another method whose rank is at
    least as high on every dataset and criterion; otherwise a failed search
    says "not found".

    Parameters
    ----------
    rescorer : Rescorer
    method : str
    samples : int
        Search size (rank-harmonic rules).
    seed : int

    Returns
    -------
    WinningWeights

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules

    Ranks (3 = best): a (accuracy 3, simplicity 2), b (1, 3), c (2, 1); a wins with equal weights.

    >>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0,
    ...                      "r2_test": [0.9, 0.4, 0.5], "simplicity": [-1.0, -0.5, -2.0]})
    >>> from srdash.demo.examples import accuracy_and_simplicity_rules
    >>> rescorer = Rescorer.from_verdict(judge(runs, accuracy_and_simplicity_rules()))
    >>> rescorer.leaderboard()["method"].tolist()
    ['a', 'b', 'c']
    >>> answer = find_winning_weights(rescorer, "b", samples=200)
    >>> answer.status, answer.weights["simplicity"] > answer.weights["accuracy"]
    ('found', True)
    >>> answer = find_winning_weights(rescorer, "c", samples=200)
    >>> answer.status, answer.explanation
    ('impossible', "No weights make 'c' win: 'a' ranks at least as high on every dataset and criterion, so it scores at least as high under any weights.")
    """
    if method not in rescorer.methods:
        raise SrdashError(f"Unknown {rescorer.entity} '{method}'. Known: {', '.join(rescorer.methods)}.")
    index = rescorer.methods.index(method)
    names = rescorer.weight_names
    official = rescorer.official_weights / rescorer.official_weights.sum()
    if len(rescorer.methods) == 1:
        return WinningWeights(method, "found", MappingProxyType(dict(zip(names, official.tolist()))), math.inf,
                              "none needed", f"'{method}' is the only competitor.")
    if rescorer.linear:
        return _winning_weights_lp(rescorer, index, official)
    return _winning_weights_search(rescorer, index, official, samples=samples, seed=seed)


def _linear_terms(rescorer: Rescorer) -> tuple[np.ndarray, np.ndarray]:
    """Score_j(w) = a_j . w + b_j for w on the simplex."""
    fixed = ~np.isnan(rescorer.fixed_scores)
    a = np.where(fixed[:, None], 0.0, rescorer.components)
    b = np.where(fixed, rescorer.fixed_scores, 0.0)
    return a, b


def _winning_weights_lp(rescorer: Rescorer, index: int, official: np.ndarray) -> WinningWeights:
    from scipy.optimize import linprog

    method = rescorer.methods[index]
    names = rescorer.weight_names
    a, b = _linear_terms(rescorer)
    others = [j for j in range(len(rescorer.methods)) if j != index]
    c = len(names)
    # variables: w (c), t ; maximise t subject to (a_j - a_x) . w + t <= b_x - b_j, sum w = 1, w >= 0
    a_ub = np.hstack([a[others] - a[index], np.ones((len(others), 1))])
    b_ub = b[index] - b[others]
    a_eq = np.hstack([np.ones((1, c)), np.zeros((1, 1))])
    result = linprog(np.r_[np.zeros(c), -1.0], A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0],
                     bounds=[(0, None)] * c + [(None, None)], method="highs")
    if result.status != 0:  # pragma: no cover - the problem is always feasible and bounded
        raise SrdashError(f"The linear program failed: {result.message}")
    best_lead = -float(result.fun)
    if best_lead <= _TIE:
        rival = _dominator(rescorer, index)
        why = f" '{rival}' is at least as good on every meta-score." if rival else ""
        what = "at best tie for first place" if best_lead > -_TIE else f"at best trail the leader by {-best_lead:.4g}"
        return WinningWeights(method, "impossible", None, best_lead, "linear program",
                              f"No weights make '{method}' win: the linear program shows it can {what}.{why}")
    target = min(best_lead / 2, max(best_lead / 100, 1e-6))
    # closest to the official weights (L1): variables w (c), d (c); minimise sum d
    a_ub2 = np.vstack([
        np.hstack([a[others] - a[index], np.zeros((len(others), c))]),
        np.hstack([np.eye(c), -np.eye(c)]),
        np.hstack([-np.eye(c), -np.eye(c)]),
    ])
    b_ub2 = np.r_[b[index] - b[others] - target, official, -official]
    closest = linprog(np.r_[np.zeros(c), np.ones(c)], A_ub=a_ub2, b_ub=b_ub2,
                      A_eq=np.hstack([np.ones((1, c)), np.zeros((1, c))]), b_eq=[1.0],
                      bounds=[(0, None)] * (2 * c), method="highs")
    weights = np.clip(closest.x[:c], 0, None) if closest.status == 0 else np.clip(result.x[:c], 0, None)
    weights = weights / weights.sum()
    margin = float(_margins(rescorer._scores_many(weights[None, :]), index)[0])
    if margin <= _TIE:  # numerical edge: fall back to the max-lead weights
        weights = np.clip(result.x[:c], 0, None)
        weights = weights / weights.sum()
        margin = float(_margins(rescorer._scores_many(weights[None, :]), index)[0])
    distance = float(np.abs(weights - official).sum())
    return WinningWeights(method, "found", MappingProxyType(dict(zip(names, weights.tolist()))), margin,
                          "linear program",
                          f"'{method}' wins with these weights (the winning weights closest to the official "
                          f"ones, L1 distance {distance:.3g} on the simplex); its largest possible lead is "
                          f"{best_lead:.4g}.")


def _winning_weights_search(rescorer: Rescorer, index: int, official: np.ndarray, *, samples: int,
                            seed: int) -> WinningWeights:
    from scipy.optimize import minimize

    method = rescorer.methods[index]
    names = rescorer.weight_names
    c = len(names)
    corners = np.eye(c)
    midpoints = np.array([(corners[i] + corners[j]) / 2 for i, j in itertools.combinations(range(c), 2)]).reshape(-1, c)
    candidates = np.vstack([official[None, :], corners, midpoints, sample_weights(c, samples, seed=seed)])
    approach = (f"search ({len(candidates)} weight vectors: uniform samples from the simplex, its corners, edge "
                "midpoints and the official weights; then a local refinement)")
    margins = _margins(rescorer._scores_many(candidates), index)
    winning = margins > _TIE
    if not winning.any():
        start = candidates[int(np.argmax(margins))]

        def loss(z: np.ndarray) -> float:
            w = np.exp(z - z.max())
            return -float(_margins(rescorer._scores_many((w / w.sum())[None, :]), index)[0])

        refined = minimize(loss, np.log(np.clip(start, 1e-6, None)), method="Nelder-Mead",
                           options={"maxiter": 200 * c, "xatol": 1e-6, "fatol": 1e-12})
        w = np.exp(refined.x - refined.x.max())
        w = w / w.sum()
        lead = -float(refined.fun)
        if lead > _TIE:
            candidates, margins, winning = w[None, :], np.array([lead]), np.array([True])
        else:
            best_lead = float(max(margins.max(), lead))
            rival = _dominator(rescorer, index)
            if rival is not None:
                # a prediction competition's teams are ranked on metrics, with no datasets
                where = "every metric" if rescorer.entity == "team" else "every dataset and criterion"
                return WinningWeights(method, "impossible", None, best_lead, approach,
                                      f"No weights make '{method}' win: '{rival}' ranks at least as high on "
                                      f"{where}, so it scores at least as high under any weights.")
            return WinningWeights(method, "not found", None, best_lead, approach,
                                  f"The search found no weights under which '{method}' wins (best lead "
                                  f"{best_lead:.4g}). This is a search, not a proof.")
    distances = np.abs(candidates[winning] - official).sum(axis=1)
    choice = int(np.argmin(distances))
    weights = candidates[winning][choice]
    margin = float(margins[winning][choice])
    return WinningWeights(method, "found", MappingProxyType(dict(zip(names, weights.tolist()))), margin, approach,
                          f"'{method}' wins with these weights (the closest to the official ones among those found, "
                          f"L1 distance {distances[choice]:.3g} on the simplex); lead over the runner-up {margin:.4g}.")


# --------------------------------------------------------------------------- irrelevant alternatives


def irrelevant_alternatives(rescorer: Rescorer, *, weights=None) -> pd.DataFrame:
    """Remove one competitor at a time and list the pairs of others that swap places.

    Under rank-based rules the others' ranks, hence scores, depend on who takes
    part; a verdict whose order changes when a competitor leaves depends on that
    competitor's presence.

    Parameters
    ----------
    rescorer : Rescorer
    weights : optional
        Weights to judge with (default: official).

    Returns
    -------
    DataFrame
        One row per removed competitor, most disruptive first: ``removed``,
        ``winner`` (with everyone), ``winner_without``, ``winner_changes``,
        ``swaps`` (pairs whose order reverses) and ``swapped_pairs`` (text:
        "x/y" means x was ahead of y and is now behind).

    Examples
    --------
    Three methods on two datasets, each of ``b`` and ``c`` second on one of them:

    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> runs = pd.DataFrame({"method": ["a", "b", "c", "a", "b", "c"], "run": 0,
    ...                      "dataset": ["d1", "d1", "d1", "d2", "d2", "d2"],
    ...                      "r2_test": [0.9, 0.8, 0.1, 0.9, 0.1, 0.8]})
    >>> from srdash.demo.examples import accuracy_rules
    >>> rules = accuracy_rules()
    >>> table = irrelevant_alternatives(Rescorer.from_verdict(judge(runs, rules)))
    >>> table[["removed", "winner", "winner_without", "swaps"]]
      removed winner winner_without  swaps
    0       a      a          b = c      0
    1       b      a              a      0
    2       c      a              a      0
    """
    w = rescorer.weights_from(weights)
    methods = np.array(rescorer.methods, dtype=object)
    places = _places_many(rescorer.scores(w)[None, :])[0]
    winner = " = ".join(methods[places == 1])
    rows = []
    for index, removed in enumerate(rescorer.methods if len(rescorer.methods) >= 3 else ()):
        reduced = rescorer.without(removed)
        keep = np.arange(len(methods)) != index
        names, before = methods[keep], places[keep]
        after = _places_many(reduced.scores(w)[None, :])[0]
        # x/y: x was strictly ahead of y and is now strictly behind
        ahead, behind = np.nonzero((before[:, None] < before[None, :]) & (after[:, None] > after[None, :]))
        swapped = [f"{names[i]}/{names[j]}" for i, j in zip(ahead, behind)]
        winner_without = " = ".join(names[after == 1])
        leader_before = " = ".join(names[before == before.min()])  # the best of the others before the removal
        rows.append({"removed": removed, "winner": winner, "winner_without": winner_without,
                     "winner_changes": winner_without != leader_before,
                     "swaps": len(swapped), "swapped_pairs": "; ".join(swapped)})
    table = pd.DataFrame(rows, columns=["removed", "winner", "winner_without", "winner_changes", "swaps",
                                        "swapped_pairs"])
    return table.sort_values(["winner_changes", "swaps", "removed"], ascending=[False, False, True],
                             kind="stable").reset_index(drop=True)
