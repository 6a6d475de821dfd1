"""The ranking kernel against the reference definitions (scipy), and the properties every door relies on."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from srdash.judging.kernel import rank_higher_better, scores_from_ranks, scores_many, weighted_harmonic_mean

# values with many ties and missing values (-inf), as rounded criteria give
_values = arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 9)),
                 elements=st.sampled_from([-np.inf, -1.0, 0.0, 0.25, 0.5, 0.5, 1.0]))


@settings(max_examples=200, deadline=None)
@given(_values, st.sampled_from(["average", "min", "max", "dense"]))
def test_ranks_equal_scipy_rankdata(values, method):
    expected = stats.rankdata(values, method=method, axis=-1)
    assert np.array_equal(rank_higher_better(values, method), expected)


@settings(max_examples=200, deadline=None)
@given(_values, st.integers(0, 3))
def test_k_minus_dense_is_k_minus_the_dense_rank_from_the_best(values, extra):
    k = values.shape[-1] + extra  # K may exceed the row (DNF methods elsewhere)
    expected = k - stats.rankdata(-values, method="dense", axis=-1)
    assert np.array_equal(rank_higher_better(values, "k-minus-dense", n_methods=k), expected)


@settings(max_examples=100, deadline=None)
@given(_values, st.randoms(use_true_random=False))
def test_permuting_methods_permutes_their_ranks(values, rnd):
    order = list(range(values.shape[-1]))
    rnd.shuffle(order)
    assert np.array_equal(rank_higher_better(values[:, order], "average"), rank_higher_better(values, "average")[:, order])


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 4)), elements=st.floats(0.5, 10)),
       st.lists(st.floats(0.1, 5), min_size=4, max_size=4))
def test_harmonic_mean_equals_scipy_hmean(ranks, weights):
    w = np.array(weights[:ranks.shape[1]])
    assert weighted_harmonic_mean(ranks, w) == pytest.approx(stats.hmean(ranks, axis=-1, weights=w))


def test_scaling_every_weight_changes_nothing():
    rng = np.random.default_rng(0)
    ranks = rng.integers(1, 6, size=(5, 7, 3)).astype(float)
    w = np.array([1.0, 2.0, 0.5])
    assert scores_from_ranks(ranks, w) == pytest.approx(scores_from_ranks(ranks, 10 * w))


def test_scores_many_equals_one_vector_at_a_time():
    rng = np.random.default_rng(1)
    ranks = rng.integers(0, 6, size=(4, 6, 3)).astype(float)  # rank 0 as k-minus-dense can give
    weights = rng.random((300, 3))
    weights[5] = [0.0, 1.0, 0.0]
    expected = np.array([scores_from_ranks(ranks, w) for w in weights])
    assert scores_many(ranks, weights) == pytest.approx(expected)


def test_a_method_that_improves_never_loses_rank():
    values = np.array([[0.5, 0.7, 0.7, -np.inf]])
    before = rank_higher_better(values, "average")[0, 0]
    values[0, 0] = 0.7
    assert rank_higher_better(values, "average")[0, 0] >= before


def test_an_unknown_tie_rule_is_refused():
    with pytest.raises(ValueError, match="The 'method' option must be one of 'average', .* Got 'mean'"):
        rank_higher_better(np.zeros((1, 2)), "mean")
