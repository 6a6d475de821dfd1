"""The built-in demo competition: a realistic SRBench-2022-style synthetic track.

Everything is generated with numpy and scikit-learn from one seed, in a couple
of seconds, and the same seed always gives the same table, byte for byte.

Datasets (train/test splits, target ``y``)
    * ``exact_formula_{easier,easy,medium,hard}``: features x1..x10, targets are
      the SRBench 2022 ground truths (using x1, x2 and, for *easy*, x3).
      Property: 1.0 when the run's model *is* the ground truth, else 0.0.
    * ``featureselection_easy``: features x1..x10; odd features are relevant,
      even ones irrelevant. Property: share of the irrelevant features the
      model does *not* use.
    * ``noise_{base,easy,medium,hard}``: feature x1, 50 training rows, one
      function with noise of 0, 5, 10 and 15 % of the target variance.
      Property: test R2.
    * ``extrapolation_easy``: feature x, ``erf(0.22*x) + 0.17*sin(5.5*x)`` plus
      noise, trained on x < 15 and tested on 15 < x <= 40. Property: test R2
      (hugely negative for models that do not extrapolate, as in SRBench).

Methods (10 runs each; runs differ by a bootstrap of the training rows and
the method's own randomness)
    * ``ExactSR`` finds the ground truth's structure (constants fitted, then
      slightly perturbed); some runs add a tiny spurious term or miss a constant.
    * ``LinearRegression``: ordinary least squares on the whole training set (what
      scikit-learn's ``LinearRegression`` fits), solved exactly in rationals and
      written out with full-precision coefficients (the same every run).
    * ``PolyRidge``: degree-2 ``PolynomialFeatures`` + ``Ridge``, written out.
    * ``LassoSR``: ``Lasso`` over degree-2 monomials: sparse formulas.
    * ``GreedyGP``: greedy term selection from a library of nonlinear terms,
      plus spurious terms in other (often irrelevant) features. It is the
      flaky entrant: some runs are missing, it has no result at all on
      ``exact_formula_hard`` (a DNF), and one run's model string is hostile
      (``__import__('os').system(...)``, never evaluated here; a judge must
      reject it).
    * ``BloatGP``: large expressions (nested sin/exp/tanh, many terms) that fit well.
    * ``MeanBaseline``: the training mean, a constant (test R2 about 0 or below).

The methods with costly models (``PolyRidge``, ``GreedyGP``, ``BloatGP``)
converge to one of three solutions per dataset (run ``r`` repeats run
``r % 3``), as stochastic searches often do; this keeps the number of distinct
model strings, and so the sympy work of opening the demo, small.

Every ``r2_test`` is computed by evaluating the model on the test split with
the very constants written in its string.

The files are the same on every machine (they are part of the verdict's fingerprint):
nothing written depends on the CPU or the BLAS (:mod:`srdash.demo.exact`). The one
full-precision fit is exact; the other fits' constants are rounded to 6 significant digits
(4 for ``GreedyGP``), far above the last bit; exp, log and tanh, whose numpy versions differ in
the last bits with the CPU's SIMD extensions, are computed by mpmath (pure Python, correctly
rounded to float64) for the data, the fits and every ``r2_test``. Model strings are built together
with a numpy function computing the same formula; no string is ever
evaluated.

The exact-formula property is the generator's own check: the model has the
ground truth's denominator and, after rounding every coefficient to 3 decimals
(dropping those below 0.001), the same terms with the same coefficients up to
an additive constant, or all coefficients scaled by one factor.

The rooms
---------
This module is the demo's door: its public names are defined in
:mod:`srdash.demo.formulas` (terms and models), :mod:`srdash.demo.data` (the
datasets), :mod:`srdash.demo.methods` (the methods and the property),
:mod:`srdash.demo.generate` (the tables), :mod:`srdash.demo.folder` (the
competition folder) and :mod:`srdash.demo.cached` (the built-in demo's folder in
srdash's cache), and importable from here.
"""

from __future__ import annotations

# The demo's public names, defined in its rooms (DEMO_FORMAT, write_demo_store, DEMO_EXPERT... too), importable
# from here as before.
from srdash.demo.cached import DEMO_FORMAT, cached_demo, demo_folder
from srdash.demo.data import DEMO_DATASETS, DEMO_QUALIFICATION_DATASETS
from srdash.demo.folder import (DEMO_COMPETITION_FILE, DEMO_EXPERT, DEMO_EXPERT_RANKS, DEMO_REALWORLD_DATASETS,
                                demo_descriptions, write_demo, write_demo_store)
from srdash.demo.formulas import Columns
from srdash.demo.generate import HOSTILE_MODEL, demo_competition, demo_qualification
from srdash.demo.methods import DEMO_METHODS

__all__ = ["demo_competition", "demo_descriptions", "demo_qualification", "write_demo", "cached_demo", "demo_folder",
           "DEMO_METHODS", "DEMO_DATASETS", "DEMO_QUALIFICATION_DATASETS", "HOSTILE_MODEL"]

