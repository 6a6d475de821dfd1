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

The package's rooms: :mod:`~srdash.analysis.sensitivity.rescorer` (re-scoring),
:mod:`~srdash.analysis.sensitivity.places` (sampled weights, place probabilities),
:mod:`~srdash.analysis.sensitivity.maps` (the ternary map and the weight sweep),
:mod:`~srdash.analysis.sensitivity.winning` (winning weights),
:mod:`~srdash.analysis.sensitivity.alternatives` (irrelevant alternatives) and
:mod:`~srdash.analysis.sensitivity.examples` (the tiny rescorers of the docstrings). Every name is
importable from here.

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

from srdash.analysis.sensitivity.alternatives import irrelevant_alternatives
from srdash.analysis.sensitivity.maps import TernaryMap, WeightSweep, ternary_winner_map, weight_sweep
from srdash.analysis.sensitivity.places import PlaceProbabilities, kendall_tau, place_probabilities, sample_weights
from srdash.analysis.sensitivity.rescorer import HARMONIC, LINEAR, Rescorer, load_rescorer, rescorer_of
from srdash.analysis.sensitivity.winning import WinningWeights, find_winning_weights

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
