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
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from srdash.demo import exact
from srdash.demo.exact import exact_least_squares
from srdash.errors import SrdashError
from srdash.io.csvsafe import write_csv
from srdash.io.loading import Results, load_results

__all__ = ["demo_competition", "demo_descriptions", "demo_qualification", "write_demo", "cached_demo", "demo_folder",
           "DEMO_METHODS", "DEMO_DATASETS", "DEMO_QUALIFICATION_DATASETS", "HOSTILE_MODEL"]

#: The demo's methods, in generation order.
DEMO_METHODS = ("ExactSR", "LinearRegression", "PolyRidge", "LassoSR", "GreedyGP", "BloatGP", "MeanBaseline")

#: The demo's datasets, in generation order.
DEMO_DATASETS = (
    "exact_formula_easier", "exact_formula_easy", "exact_formula_medium", "exact_formula_hard",
    "featureselection_easy", "noise_base", "noise_easy", "noise_medium", "noise_hard",
    "extrapolation_easy",
)

#: The qualification stage's datasets (see :func:`demo_qualification`).
DEMO_QUALIFICATION_DATASETS = ("qualification_1", "qualification_2", "qualification_3")

#: The one hostile model string of the demo (of ``GreedyGP`` on ``exact_formula_easier``).
HOSTILE_MODEL = "__import__('os').system('touch /tmp/srdash-pwned')"

_N_RUNS = 10
# Methods whose runs draw from a pool of _POOL distinct solutions (see above).
_POOLED = frozenset({"PolyRidge", "GreedyGP", "BloatGP"})
_POOL = 3
# GreedyGP's missing results: dataset -> number of runs it delivered (0 = DNF).
_GREEDY_RUNS_DELIVERED = {"exact_formula_hard": 0, "featureselection_easy": 7, "noise_medium": 8,
                          "extrapolation_easy": 9}
_HOSTILE_AT = ("GreedyGP", "exact_formula_easier")
_HOSTILE_CLAIMED_R2 = 0.999

Columns = Mapping[str, np.ndarray]


# --------------------------------------------------------------------------- formulas
# A model is an intercept plus coefficient * term, optionally over a fixed
# denominator. Each term carries its text and a numpy function of the same
# formula, so a model string and its predictions cannot disagree.


@dataclass(frozen=True)
class _Term:
    text: str  # never a top-level sum, so "c*text" needs no parentheses
    features: frozenset
    evaluate: Callable[[Columns], np.ndarray] = field(compare=False)


@dataclass(frozen=True)
class _Model:
    intercept: float
    terms: tuple  # of (coefficient, _Term)
    denominator: _Term | None = None
    intercept_first: bool = True

    @property
    def features(self) -> frozenset:
        used = [t.features for c, t in self.terms if c != 0]
        if self.denominator is not None:
            used.append(self.denominator.features)
        return frozenset().union(*used)

    def text(self) -> str:
        parts = [(c, t.text) for c, t in self.terms if c != 0]
        if self.intercept != 0 or not parts:
            constant = (self.intercept, None)
            parts = [constant] + parts if self.intercept_first else parts + [constant]
        pieces = []
        for coefficient, term in parts:
            size = abs(coefficient)
            body = repr(size) if term is None else term if size == 1 else f"{size!r}*{term}"
            sign = "-" if coefficient < 0 else "+"
            pieces.append((f"-{body}" if sign == "-" else body) if not pieces else f" {sign} {body}")
        numerator = "".join(pieces)
        if self.denominator is None:
            return numerator
        return f"({numerator})/({self.denominator.text})"

    def predict(self, columns: Columns) -> np.ndarray:
        n = len(next(iter(columns.values())))
        value = np.full(n, self.intercept, dtype=float)
        for coefficient, term in self.terms:
            if coefficient != 0:
                value = value + coefficient * term.evaluate(columns)
        if self.denominator is not None:
            value = value / self.denominator.evaluate(columns)
        return value


def _round_sig(value: float, digits: int | None) -> float:
    """``value`` rounded to ``digits`` significant digits (None: unchanged); -0.0 becomes 0.0."""
    value = float(value) if digits is None else float(f"{value:.{digits}g}")
    return value + 0.0


def _model(intercept, coefficients, terms, *, digits, denominator=None, intercept_first=True,
           drop_zeros=False) -> _Model:
    pairs = tuple((_round_sig(c, digits), t) for c, t in zip(coefficients, terms))
    if drop_zeros:
        pairs = tuple((c, t) for c, t in pairs if c != 0)
    return _Model(_round_sig(intercept, digits), pairs, denominator, intercept_first)


def _monomial(features: tuple, powers) -> _Term:
    """``x1*x2``, ``x3**2``...: the canonical text shared by every method."""
    factors = [(f, int(p)) for f, p in zip(features, powers) if p]
    text = "*".join(f if p == 1 else f"{f}**{p}" for f, p in factors)

    def evaluate(columns, factors=tuple(factors)):
        value = columns[factors[0][0]] ** factors[0][1]
        for name, power in factors[1:]:
            value = value * columns[name] ** power
        return value

    return _Term(text, frozenset(f for f, _ in factors), evaluate)


def _variable(name: str) -> _Term:
    return _Term(name, frozenset([name]), lambda columns: columns[name])


def _apply(function: str, inner: _Term) -> _Term:
    # exp, log and tanh through mpmath (numpy's differ in the last bits with the CPU's SIMD extensions)
    numpy_function = {"sin": np.sin, "cos": np.cos, "exp": exact.exp, "tanh": exact.tanh, "log": exact.log}[function]
    return _Term(f"{function}({inner.text})", inner.features,
                 lambda columns: numpy_function(inner.evaluate(columns)))


def _erf_term(scale: float, name: str) -> _Term:
    from scipy.special import erf

    return _Term(f"erf({scale!r}*{name})", frozenset([name]), lambda columns: erf(scale * columns[name]))


def _scaled(scale: float, inner: _Term) -> _Term:
    return _Term(f"{scale!r}*{inner.text}", inner.features, lambda columns: scale * inner.evaluate(columns))


def _sum_term(a: _Term, b: _Term) -> _Term:
    """``a + b`` as an argument of a function (so written without outer parentheses)."""
    return _Term(f"{a.text} + {b.text}", a.features | b.features,
                 lambda columns: a.evaluate(columns) + b.evaluate(columns))


def _features(n: int, prefix: str = "x") -> tuple:
    return tuple(f"{prefix}{i}" for i in range(1, n + 1))


def _r2_score(y: np.ndarray, prediction: np.ndarray) -> float:
    """Coefficient of determination ``1 - SS_res / SS_tot`` (as scikit-learn's r2_score)."""
    residual = np.sum((y - prediction) ** 2)
    total = np.sum((y - np.mean(y)) ** 2)
    return float(1.0 - residual / total)


# --------------------------------------------------------------------------- datasets


@dataclass(frozen=True)
class _Dataset:
    name: str
    kind: str  # exact_formula, feature_selection, noise, extrapolation
    features: tuple
    x_train: np.ndarray = field(repr=False)  # (n_train, n_features)
    y_train: np.ndarray = field(repr=False)
    x_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    truth: _Model            # what generated y (before noise)
    ground_truth: str        # the same formula as usually written
    template: _Model         # the structure ExactSR finds (the truth, or an approximation)
    irrelevant: tuple = ()
    noise: float = 0.0

    def columns(self, split: str, rows=None) -> dict:
        x = self.x_train if split == "train" else self.x_test
        if rows is not None:
            x = x[rows]
        return {f: x[:, i] for i, f in enumerate(self.features)}

    def target(self, split: str) -> np.ndarray:
        return self.y_train if split == "train" else self.y_test

    def matrix(self, split: str) -> np.ndarray:
        return self.x_train if split == "train" else self.x_test

    def frame(self, split: str) -> pd.DataFrame:
        """The split as written: one column per feature, then the target ``y``."""
        x, y = (self.x_train, self.y_train) if split == "train" else (self.x_test, self.y_test)
        return pd.DataFrame(dict(zip(self.features, x.T)) | {"y": y})


def _srbench_numerator(features, *, with_log=False, with_sin=False):
    x = features
    terms = [_monomial(x[:2], (1, 1)), _monomial(x[:1], (1,)), _monomial(x[1:2], (1,))]
    coefficients = [0.4, -1.5, 2.5]
    if with_sin:
        terms = [_apply("sin", _sum_term(_variable("x1"), _variable("x2")))] + terms
        coefficients = [5.5] + coefficients
    if with_log:
        terms.append(_apply("log", _Term("30*x3**2", frozenset(["x3"]),
                                         lambda columns: 30 * columns["x3"] ** 2)))
        coefficients.append(1.0)
    return coefficients, terms


_DENOMINATOR = _Term("1 + 0.2*(x1**2 + x2**2)", frozenset(["x1", "x2"]),
                     lambda columns: 1 + 0.2 * (columns["x1"] ** 2 + columns["x2"] ** 2))

_EXACT_GROUND_TRUTHS = {
    "exact_formula_easier": "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1",
    "exact_formula_easy": "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1 + log(30*x3**2)",
    "exact_formula_medium": "(0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1)/(1 + 0.2*(x1**2 + x2**2))",
    "exact_formula_hard": "(5.5*sin(x1 + x2) + 0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1)/(1 + 0.2*(x1**2 + x2**2))",
}
_NOISE_LEVELS = {"noise_base": 0.0, "noise_easy": 0.05, "noise_medium": 0.10, "noise_hard": 0.15}
_NOISE_GROUND_TRUTH = "0.3*x1**2 - 1.2*x1 + 5*sin(x1) + 2"
_FEATURESELECTION_GROUND_TRUTH = "0.6*x1*x3 - 1.8*x5 + 0.25*x7**2 + 2.2*sin(x9) + 0.5"
_EXTRAPOLATION_GROUND_TRUTH = "erf(0.22*x) + 0.17*sin(5.5*x)"


def _make_datasets(seed: int) -> list:
    datasets = []

    def rng_for(index: int):
        return np.random.default_rng([seed, 1, index])

    # Exact formulas: x1..x10 uniform on [-5, 5]; the targets use x1, x2 (x3).
    for index, name in enumerate(DEMO_DATASETS[:4]):
        rng = rng_for(index)
        features = _features(10)
        x_train, x_test = rng.uniform(-5, 5, (500, 10)), rng.uniform(-5, 5, (500, 10))
        coefficients, terms = _srbench_numerator(features, with_log=name.endswith("_easy"),
                                                 with_sin=name.endswith("_hard"))
        denominator = _DENOMINATOR if name.endswith(("_medium", "_hard")) else None
        truth = _model(1.0, coefficients, terms, digits=None, denominator=denominator, intercept_first=False)
        y_train = truth.predict(dict(zip(features, x_train.T)))
        y_test = truth.predict(dict(zip(features, x_test.T)))
        datasets.append(_Dataset(name, "exact_formula", features, x_train, y_train, x_test, y_test, truth,
                                 _EXACT_GROUND_TRUTHS[name], truth,
                                 irrelevant=tuple(f for f in features if f not in truth.features)))

    # Feature selection: odd features relevant, even ones irrelevant.
    rng = rng_for(4)
    features = _features(10)
    x = features
    terms = [_monomial(x, (1, 0, 1)), _monomial(x, (0, 0, 0, 0, 1)), _monomial(x, (0,) * 6 + (2,)),
             _apply("sin", _variable("x9"))]
    truth = _model(0.5, [0.6, -1.8, 0.25, 2.2], terms, digits=None, intercept_first=False)
    x_train, x_test = rng.uniform(-5, 5, (500, 10)), rng.uniform(-5, 5, (500, 10))
    datasets.append(_Dataset("featureselection_easy", "feature_selection", features,
                             x_train, truth.predict(dict(zip(features, x_train.T))),
                             x_test, truth.predict(dict(zip(features, x_test.T))), truth,
                             _FEATURESELECTION_GROUND_TRUTH, truth, irrelevant=features[1::2]))

    # Noise: the same x1 and the same standard-normal draw, scaled to the level.
    rng = rng_for(5)
    features = ("x1",)
    terms = [_monomial(features, (2,)), _monomial(features, (1,)), _apply("sin", _variable("x1"))]
    truth = _model(2.0, [0.3, -1.2, 5.0], terms, digits=None, intercept_first=False)
    x_train, x_test = rng.uniform(-10, 10, (50, 1)), rng.uniform(-10, 10, (500, 1))
    clean_train = truth.predict({"x1": x_train[:, 0]})
    clean_test = truth.predict({"x1": x_test[:, 0]})
    unit_train, unit_test = rng.standard_normal(50), rng.standard_normal(500)
    variance = np.var(np.concatenate([clean_train, clean_test]))
    for name, level in _NOISE_LEVELS.items():
        scale = np.sqrt(level * variance)
        datasets.append(_Dataset(name, "noise", features, x_train, clean_train + scale * unit_train,
                                 x_test, clean_test + scale * unit_test, truth, _NOISE_GROUND_TRUTH,
                                 truth, noise=level))

    # Extrapolation: train on x <= 15, test on x > 15.
    rng = rng_for(9)
    features = ("x",)
    truth = _model(0.0, [1.0, 0.17], [_erf_term(0.22, "x"), _apply("sin", _scaled(5.5, _variable("x")))],
                   digits=None)
    # The SR structure: tanh approximates erf, and tanh is in every parser's whitelist.
    template = _model(0.0, [1.0, 0.17], [_apply("tanh", _scaled(0.25, _variable("x"))),
                                         _apply("sin", _scaled(5.5, _variable("x")))], digits=None)
    # As in SRBench 2022: a grid of step 0.1, train on [-15, 15), test on [15.1, 40].
    x_train = (-15 + 0.1 * np.arange(300)).reshape(-1, 1)
    x_test = (15.1 + 0.1 * np.arange(250)).reshape(-1, 1)
    noise_train, noise_test = 0.1 * rng.standard_normal(300), 0.1 * rng.standard_normal(250)
    datasets.append(_Dataset("extrapolation_easy", "extrapolation", features,
                             x_train, truth.predict({"x": x_train[:, 0]}) + noise_train,
                             x_test, truth.predict({"x": x_test[:, 0]}) + noise_test, truth,
                             _EXTRAPOLATION_GROUND_TRUTH, template))
    return datasets


# --------------------------------------------------------------------------- methods


def _bootstrap(dataset: _Dataset, rng) -> np.ndarray:
    n = len(dataset.y_train)
    return rng.integers(0, n, n)


def _standardised_fit(matrix, y, fit) -> tuple:
    """Fit on standardised columns (``fit(z, y) -> (intercept, coef)``), return raw-scale coefficients."""
    mean, scale = matrix.mean(axis=0), matrix.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    intercept, coefficients = fit((matrix - mean) / scale, y)
    raw = coefficients / scale
    return intercept - raw @ mean, raw


def _evaluate_terms(terms, columns) -> np.ndarray:
    return np.column_stack([t.evaluate(columns) for t in terms])


def _library(dataset: _Dataset) -> list:
    """Candidate terms of the greedy method: monomials, sin/cos, sums in sin."""
    x = dataset.features
    terms = []
    for i, name in enumerate(x):
        powers = [0] * len(x)
        powers[i] = 1
        terms.append(_monomial(x, powers))
        powers[i] = 2
        terms.append(_monomial(x, powers))
        terms.append(_apply("sin", _variable(name)))
        terms.append(_apply("cos", _variable(name)))
        if len(x) == 1:
            powers[i] = 3
            terms.append(_monomial(x, powers))
            terms.append(_apply("exp", _Term(f"-{name}**2", frozenset([name]),
                                             lambda columns, name=name: -columns[name] ** 2)))
    for i, j in itertools.combinations(range(len(x)), 2):
        powers = [0] * len(x)
        powers[i] = powers[j] = 1
        terms.append(_monomial(x, powers))
        terms.append(_apply("sin", _sum_term(_variable(x[i]), _variable(x[j]))))
    return terms


def _exact_sr(dataset: _Dataset, rng) -> _Model:
    """The ground truth's structure with least-squares constants, then slightly perturbed."""
    rows = _bootstrap(dataset, rng)
    columns = dataset.columns("train", rows)
    template = dataset.template
    terms = [t for _, t in template.terms]
    target = dataset.target("train")[rows]
    if template.denominator is not None:
        target = target * template.denominator.evaluate(columns)
    design = np.column_stack([_evaluate_terms(terms, columns), np.ones(len(rows))])
    solution = np.linalg.lstsq(design, target, rcond=None)[0]
    coefficients, intercept = list(solution[:-1]), solution[-1]
    behaviour = rng.random()
    if behaviour < 0.65:  # found it: constants off in the 5th decimal
        coefficients = [c + rng.normal(0, 2e-5) for c in coefficients]
        intercept += rng.normal(0, 2e-5)
    elif behaviour < 0.85:  # a tiny spurious term
        library = _library(dataset)
        extra = library[rng.integers(len(library))]
        if extra.text not in {t.text for t in terms}:
            terms.append(extra)
            coefficients.append(rng.choice([-1, 1]) * rng.uniform(0.002, 0.02))
    else:  # a near miss: one constant a few percent off
        k = rng.integers(len(coefficients))
        coefficients[k] *= 1 + rng.choice([-1, 1]) * rng.uniform(0.02, 0.06)
    return _model(intercept, coefficients, terms, digits=6, denominator=template.denominator,
                  intercept_first=False)


def _linear_regression(dataset: _Dataset, rng) -> _Model:
    """Ordinary least squares on the whole training set (scikit-learn's LinearRegression), solved exactly:
    coefficients in full precision, the same bits on every machine."""
    intercept, coefficients = exact_least_squares(dataset.matrix("train"), dataset.target("train"))
    terms = [_variable(f) for f in dataset.features]
    return _model(intercept, coefficients, terms, digits=None)


def _polynomial_terms(dataset: _Dataset):
    from sklearn.preprocessing import PolynomialFeatures

    expansion = PolynomialFeatures(degree=2, include_bias=False).fit(dataset.matrix("train")[:2])
    return [_monomial(dataset.features, powers) for powers in expansion.powers_]


def _poly_ridge(dataset: _Dataset, rng) -> _Model:
    """Degree-2 PolynomialFeatures + Ridge on a bootstrap sample, written out."""
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import PolynomialFeatures

    rows = _bootstrap(dataset, rng)
    expansion = PolynomialFeatures(degree=2, include_bias=False)
    design = expansion.fit_transform(dataset.matrix("train")[rows])
    fitted = Ridge(alpha=1.0).fit(design, dataset.target("train")[rows])
    terms = [_monomial(dataset.features, powers) for powers in expansion.powers_]
    return _model(fitted.intercept_, fitted.coef_, terms, digits=6)


def _lasso_sr(dataset: _Dataset, rng) -> _Model:
    """Lasso over standardised degree-2 monomials: a sparse formula."""
    from sklearn.linear_model import Lasso

    rows = _bootstrap(dataset, rng)
    terms = _polynomial_terms(dataset)
    design = _evaluate_terms(terms, dataset.columns("train", rows))
    y = dataset.target("train")[rows]
    alpha = 0.02 * np.std(y)

    def fit(z, target):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence chatter on tiny samples
            lasso = Lasso(alpha=alpha, max_iter=20_000).fit(z, target)
        return lasso.intercept_, lasso.coef_

    intercept, coefficients = _standardised_fit(design, y, fit)
    return _model(intercept, coefficients, terms, digits=6, drop_zeros=True)


def _greedy_selection(dataset: _Dataset, rng, rows, n_terms: int, *, share: float):
    """Orthogonal matching pursuit over a random ``share`` of the library."""
    from sklearn.linear_model import OrthogonalMatchingPursuit

    library = _library(dataset)
    keep = rng.random(len(library)) < share
    if not keep.any():
        keep[:] = True
    candidates = [t for t, k in zip(library, keep) if k]
    design = _evaluate_terms(candidates, dataset.columns("train", rows))
    y = dataset.target("train")[rows]
    n_terms = min(n_terms, len(candidates))

    def fit(z, target):
        with warnings.catch_warnings():
            # Noiseless data: once the true terms are in, the rest is "linearly dependent".
            warnings.simplefilter("ignore", RuntimeWarning)
            omp = OrthogonalMatchingPursuit(n_nonzero_coefs=n_terms).fit(z, target)
        return omp.intercept_, omp.coef_

    intercept, coefficients = _standardised_fit(design, y, fit)
    chosen = [i for i in np.flatnonzero(coefficients)]
    return intercept, [coefficients[i] for i in chosen], [candidates[i] for i in chosen]


def _greedy_gp(dataset: _Dataset, rng) -> _Model:
    """Greedy nonlinear terms, then one or two spurious terms in features it had not used."""
    rows = _bootstrap(dataset, rng)
    intercept, coefficients, terms = _greedy_selection(dataset, rng, rows, int(rng.integers(3, 8)), share=0.8)
    used = frozenset().union(*(t.features for t in terms))
    unused = [f for f in dataset.features if f not in used]
    if unused and rng.random() < 0.75:
        columns = dataset.columns("train", rows)
        residual = dataset.target("train")[rows] - _model(intercept, coefficients, terms, digits=None).predict(columns)
        for name in rng.choice(unused, size=min(len(unused), int(rng.integers(1, 3))), replace=False):
            term = _variable(str(name))
            values = term.evaluate(columns)
            slope = np.cov(values, residual)[0, 1] / np.var(values, ddof=1)
            terms.append(term)
            coefficients.append(slope if abs(slope) > 1e-3 else rng.choice([-1, 1]) * rng.uniform(0.001, 0.01))
    return _model(intercept, coefficients, terms, digits=4)


def _random_nested(rng, features, depth: int) -> _Term:
    """A random nested expression (sin, cos, tanh, exp of bounded values, products, sums)."""
    if depth == 0 or rng.random() < 0.25:
        name = features[rng.integers(len(features))]
        scale = round(float(rng.uniform(0.1, 1.5)), 3)
        return _scaled(scale, _variable(name)) if rng.random() < 0.5 else _variable(name)
    kind = rng.choice(["sin", "cos", "tanh", "exp_sin", "exp_cos", "product", "sin_sum"])
    a = _random_nested(rng, features, depth - 1)
    if kind in ("sin", "cos", "tanh"):
        return _apply(str(kind), a)
    if kind in ("exp_sin", "exp_cos"):
        return _apply("exp", _apply(str(kind)[4:], a))
    b = _random_nested(rng, features, depth - 1)
    if kind == "product":
        return _Term(f"{a.text}*{_parenthesised(b)}", a.features | b.features,
                     lambda columns: a.evaluate(columns) * b.evaluate(columns))
    return _apply("sin", _sum_term(a, b))


def _parenthesised(term: _Term) -> str:
    return term.text if "+" not in term.text and "-" not in term.text else f"({term.text})"


def _bloat_gp(dataset: _Dataset, rng) -> _Model:
    """Nested junk terms with small but visible weights, and a greedy core refitted around them.

    The junk (nested sin/exp/tanh) carries a few percent of the target's spread,
    so the expression is large, fits well, and is never exactly the truth.
    """
    rows = _bootstrap(dataset, rng)
    # Smaller on one-feature data, where nested functions of one variable make
    # sympy.simplify (and so judging the demo) very slow.
    one_feature = len(dataset.features) == 1
    _, _, core = _greedy_selection(dataset, rng, rows, 3 if one_feature else 6, share=1.0)
    columns = dataset.columns("train", rows)
    test_columns = dataset.columns("test")
    y = dataset.target("train")[rows]
    n_bloat = int(rng.integers(2, 4) if one_feature else rng.integers(3, 6))
    bloat, weights, texts = [], [], {t.text for t in core}
    while len(bloat) < n_bloat:
        term = _random_nested(rng, dataset.features, 2)
        values, test_values = term.evaluate(columns), term.evaluate(test_columns)
        # Only terms with a function in them: plain monomials would merge with the core's.
        if ("(" in term.text and term.text not in texts and np.all(np.isfinite(values))
                and np.all(np.isfinite(test_values)) and np.std(values) > 1e-6):
            bloat.append(term)
            weights.append(rng.choice([-1, 1]) * rng.uniform(0.01, 0.05) * np.std(y) / np.std(values))
            texts.add(term.text)
    weights = [_round_sig(w, 6) for w in weights]
    remainder = y - _evaluate_terms(bloat, columns) @ np.array(weights)

    def fit(z, target):
        ridge = np.linalg.solve(z.T @ z + 1e-3 * np.eye(z.shape[1]), z.T @ (target - target.mean()))
        return target.mean(), ridge

    intercept, coefficients = _standardised_fit(_evaluate_terms(core, columns), remainder, fit)
    return _model(intercept, list(coefficients) + weights, core + bloat, digits=6)


def _mean_baseline(dataset: _Dataset, rng) -> _Model:
    return _model(np.mean(dataset.target("train")), [], [], digits=6)


_METHODS = {
    "ExactSR": _exact_sr,
    "LinearRegression": _linear_regression,
    "PolyRidge": _poly_ridge,
    "LassoSR": _lasso_sr,
    "GreedyGP": _greedy_gp,
    "BloatGP": _bloat_gp,
    "MeanBaseline": _mean_baseline,
}


# --------------------------------------------------------------------------- property


def _is_ground_truth(model: _Model, truth: _Model) -> bool:
    """Equal to the truth up to an additive or a multiplicative constant, after rounding to 3 decimals."""
    if (model.denominator and model.denominator.text) != (truth.denominator and truth.denominator.text):
        return False

    def rounded(m: _Model) -> dict:
        merged: dict = {}
        for coefficient, term in m.terms:
            merged[term.text] = merged.get(term.text, 0.0) + coefficient
        return {k: round(v, 3) for k, v in merged.items() if round(v, 3) != 0}

    found, expected = rounded(model), rounded(truth)
    if found.keys() != expected.keys() or not found:
        return False
    if found == expected:
        return True
    # A ratio that is a constant: every coefficient, the intercept too, scaled by one factor.
    first = next(iter(found))
    factor = found[first] / expected[first]
    return (all(abs(found[k] - factor * expected[k]) < 1e-9 for k in found)
            and abs(round(model.intercept, 3) - factor * truth.intercept) < 1e-9)


def _property(dataset: _Dataset, model: _Model, r2_test: float) -> float:
    if dataset.kind == "exact_formula":
        return 1.0 if _is_ground_truth(model, dataset.truth) else 0.0
    if dataset.kind == "feature_selection":
        unused = [f for f in dataset.irrelevant if f not in model.features]
        return len(unused) / len(dataset.irrelevant)
    return r2_test


# --------------------------------------------------------------------------- qualification stage

_QUALIFICATION_RUNS = 3


def _qualification_datasets(seed: int) -> list:
    """Three nonlinear functions of x1..x4 with 5 % noise: a straight line cannot fit them."""
    x = _features(4)
    specs = [  # (coefficients, terms, intercept)
        ([1.2, 0.8, -2.0, 1.0], [_monomial(x, (1, 1)), _monomial(x, (0, 0, 2)), _apply("sin", _variable("x4")),
                                 _monomial(x, (1,))], 0.5),
        ([2.0, 0.5, -1.0], [_apply("cos", _variable("x1")), _monomial(x, (0, 2)), _monomial(x, (0, 0, 1, 1))], 1.0),
        ([1.0, -1.5, 3.0, 0.7], [_monomial(x, (2,)), _monomial(x, (0, 1, 1)), _apply("sin", _variable("x4")),
                                 _monomial(x, (0, 0, 0, 1))], -2.0),
    ]
    datasets = []
    for index, (name, (coefficients, terms, intercept)) in enumerate(zip(DEMO_QUALIFICATION_DATASETS, specs)):
        rng = np.random.default_rng([seed, 4, index])
        truth = _model(intercept, coefficients, terms, digits=None, intercept_first=False)
        x_train, x_test = rng.uniform(-3, 3, (200, 4)), rng.uniform(-3, 3, (200, 4))
        clean_train, clean_test = truth.predict(dict(zip(x, x_train.T))), truth.predict(dict(zip(x, x_test.T)))
        scale = np.sqrt(0.05 * np.var(clean_train))
        datasets.append(_Dataset(name, "qualification", x, x_train, clean_train + scale * rng.standard_normal(200),
                                 x_test, clean_test + scale * rng.standard_normal(200), truth, truth.text(), truth,
                                 noise=0.05))
    return datasets


def _qualification_rows(seed: int) -> pd.DataFrame:
    rows = []
    for d, dataset in enumerate(_qualification_datasets(seed)):
        test_columns, y_test = dataset.columns("test"), dataset.target("test")
        for m, (method, build) in enumerate(_METHODS.items()):
            for run in range(_QUALIFICATION_RUNS):
                model = build(dataset, np.random.default_rng([seed, 5, d, m, run]))
                rows.append((method, dataset.name, run, model.text(), _r2_score(y_test, model.predict(test_columns))))
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "model", "r2_test"])


def demo_qualification(*, seed: int = 0) -> pd.DataFrame:
    """The demo's qualification stage: every demo method on three nonlinear datasets, 3 runs each.

    The datasets (``qualification_1`` .. ``_3``, features x1..x4, 5 % noise)
    are generated like the track's; each method is fitted as in the track and
    its ``r2_test`` computed on the test split. ``LinearRegression``'s rows are
    the baseline's (see :mod:`srdash.judging.qualification`). ``MeanBaseline``, a
    constant, loses every comparison and does not qualify.

    Returns
    -------
    DataFrame
        ``method``, ``dataset``, ``run``, ``model``, ``r2_test``.

    Examples
    --------
    >>> from srdash.judging.qualification import qualify
    >>> qualify(demo_qualification()).not_qualified
    ('MeanBaseline',)
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SrdashError(f"The 'seed' option must be a non-negative integer. Got {seed!r}.")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return _qualification_rows(int(seed))


_DESCRIPTION_KINDS = {"exact_formula": "exact", "feature_selection": "feature_absence", "noise": "noise",
                      "extrapolation": "extrapolation"}


def _descriptions_document(datasets) -> dict:
    """The demo's datasets in the dataset-description format (:mod:`srdash.io.datasets`)."""
    entries = []
    for dataset in datasets:
        kind = _DESCRIPTION_KINDS[dataset.kind]
        entry = {"name": dataset.name, "property": kind,
                 "files": {"train": f"{dataset.name}_train.csv", "test": f"{dataset.name}_test.csv"},
                 "features": list(dataset.features), "truth": dataset.ground_truth, "noise_level": dataset.noise}
        if kind == "feature_absence":
            entry["irrelevant"] = list(dataset.irrelevant)
        elif kind == "noise":
            entry["group"] = "noise"
        elif kind == "extrapolation":
            entry["partition"] = "test"
            entry["description"] = "Trained on -15 <= x < 15, tested (extrapolated) on 15 < x <= 40."
        entries.append(entry)
    return {"description": "The datasets of srdash's built-in demo competition (srdash.demo.competition).",
            "defaults": {"target": "y"}, "datasets": entries}


def demo_descriptions(directory, *, seed: int = 0):
    """Write the demo's data files and their dataset descriptions; return the validated table.

    What the dashboard opens the demo with (``srdash serve`` without INPUT):
    the models are then evaluated on these files and each dataset's property
    scored by srdash itself (exact re-discovery, feature absence, noise,
    extrapolation), instead of the demo's own ``property`` column.

    Parameters
    ----------
    directory : path-like
        Created if missing; ``descriptions.yaml`` and ``<dataset>_{train,test}.csv``.
    seed : int

    Returns
    -------
    DatasetTable

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     table = demo_descriptions(folder)
    >>> table["exact_formula_easier"].truth, table["featureselection_easy"].irrelevant[:2]
    ('0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1', ('x2', 'x4'))
    """
    from srdash.io.datasets import load_dataset_table

    paths = write_demo(directory, seed=seed)
    return load_dataset_table(paths["descriptions"])


# --------------------------------------------------------------------------- assembly


def _generate(seed: int):
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SrdashError(f"The 'seed' option must be a non-negative integer. Got {seed!r}.")
    from threadpoolctl import threadpool_limits  # installed with scikit-learn

    # One BLAS thread: the same sums in the same order on every machine (so the
    # same bytes), and no thread contention on these small problems.
    with threadpool_limits(limits=1):
        return _generate_single_threaded(int(seed))


def _generate_single_threaded(seed: int):
    datasets = _make_datasets(seed)
    rows = []
    for d, dataset in enumerate(datasets):
        test_columns, y_test = dataset.columns("test"), dataset.target("test")
        for m, (method, build) in enumerate(_METHODS.items()):
            runs = range(_N_RUNS)
            if method == "GreedyGP" and dataset.name in _GREEDY_RUNS_DELIVERED:
                delivered = _GREEDY_RUNS_DELIVERED[dataset.name]
                runs = sorted(np.random.default_rng([seed, 2, d]).choice(_N_RUNS, delivered, replace=False))
            hostile_run = None
            if (method, dataset.name) == _HOSTILE_AT:
                hostile_run = int(np.random.default_rng([seed, 3]).integers(_N_RUNS))
            for run in runs:
                variant = run % _POOL if method in _POOLED else run
                model = build(dataset, np.random.default_rng([seed, 0, d, m, variant]))
                if run == hostile_run:
                    rows.append((method, dataset.name, int(run), HOSTILE_MODEL, _HOSTILE_CLAIMED_R2, 0.0))
                    continue
                r2_test = _r2_score(y_test, model.predict(test_columns))
                rows.append((method, dataset.name, int(run), model.text(), r2_test,
                             _property(dataset, model, r2_test)))
    table = pd.DataFrame(rows, columns=["method", "dataset", "run", "model", "r2_test", "property"])
    dataset_table = pd.DataFrame({
        "dataset": [d.name for d in datasets],
        "features": [" ".join(d.features) for d in datasets],
        "kind": [d.kind for d in datasets],
        "n_train": [len(d.y_train) for d in datasets],
        "n_test": [len(d.y_test) for d in datasets],
        "ground_truth": [d.ground_truth for d in datasets],
        "irrelevant_features": [" ".join(d.irrelevant) for d in datasets],
        "noise": [d.noise for d in datasets],
    })
    results = load_results(table, datasets=dataset_table)
    return results, dataset_table, datasets


def demo_competition(*, seed: int = 0) -> Results:
    """Generate the demo competition: 10 datasets, 7 methods, up to 10 runs each.

    Parameters
    ----------
    seed : int, default 0
        Seed of every random draw (data, bootstraps, perturbations). The same
        seed gives the same table, byte for byte; another seed gives other data,
        runs and model strings with the same structure.

    Returns
    -------
    Results
        ``table`` with columns ``method``, ``dataset``, ``run``, ``model``,
        ``r2_test`` (computed on the test split) and ``property`` (see the
        module's description), sorted by (dataset, method, run); ``features``
        for every dataset; no ``sources`` (nothing was read from files).

    See Also
    --------
    write_demo : Write the same competition, its dataset table and the data as CSV files.

    Notes
    -----
    One (method, dataset) has no row at all (``GreedyGP`` on
    ``exact_formula_hard``: a DNF), three others have fewer than 10 runs, and
    one run's model is :data:`HOSTILE_MODEL`, with a claimed ``r2_test`` of 0.999.

    Examples
    --------
    >>> results = demo_competition(seed=0)
    >>> results.table.groupby("method").size().to_dict()
    {'BloatGP': 100, 'ExactSR': 100, 'GreedyGP': 84, 'LassoSR': 100, 'LinearRegression': 100, 'MeanBaseline': 100, 'PolyRidge': 100}
    >>> results.features["exact_formula_easier"][:3]
    ('x1', 'x2', 'x3')
    >>> easier = results.table.query("dataset == 'exact_formula_easier' and method == 'LinearRegression'")
    >>> easier["model"].nunique()
    1
    """
    return _generate(seed)[0]


def write_demo(directory, *, seed: int = 0) -> dict:
    """Write the demo competition as CSV files.

    Parameters
    ----------
    directory : str or path-like
        Folder to write into; created if missing. Existing files of the same
        names are overwritten.
    seed : int, default 0
        As in :func:`demo_competition`.

    Returns
    -------
    dict of str to Path
        ``"results"``: ``results.csv`` (the table of :func:`demo_competition`);
        ``"datasets"``: ``datasets.csv`` (``dataset``, ``features``, ``kind``,
        ``n_train``, ``n_test``, ``ground_truth``, ``irrelevant_features``,
        ``noise`` as a fraction of the target variance); ``"descriptions"``:
        ``descriptions.yaml``, the dataset descriptions of the data files (format:
        :mod:`srdash.io.datasets`; ``srdash score --descriptions``);
        ``"qualification"``: ``qualification.csv``, the qualification stage
        (:func:`demo_qualification`; ``srdash score --qualification``); then
        ``"<dataset>_train"`` and ``"<dataset>_test"``: the data, one column per
        feature and the target ``y``; ``"competition"``: ``competition.toml``;
        ``"trust"``: ``trust.sqlite``, the real-world track's trust store with the
        demo expert's ranks (:func:`write_demo_store`).

    Examples
    --------
    >>> import tempfile
    >>> from srdash.io.loading import load_results
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = write_demo(folder)
    ...     loaded = load_results(paths["results"], datasets=paths["datasets"])
    >>> list(paths)[:5]
    ['results', 'datasets', 'descriptions', 'qualification', 'exact_formula_easier_train']
    >>> loaded.table.equals(demo_competition().table)
    True
    """
    from srdash.io.datasets import write_descriptions

    results, dataset_table, datasets = _generate(seed)
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        paths = {"results": folder / "results.csv", "datasets": folder / "datasets.csv",
                 "descriptions": folder / "descriptions.yaml", "qualification": folder / "qualification.csv"}
        # Generated from srdash's constants (no one else's text), byte-identical to the shipped copy: as is.
        write_csv(results.table, paths["results"], index=False, formulas="keep")
        write_csv(dataset_table, paths["datasets"], index=False, formulas="keep")
        write_csv(demo_qualification(seed=seed), paths["qualification"], index=False, formulas="keep")
        for dataset in datasets:
            for split in ("train", "test"):
                path = folder / f"{dataset.name}_{split}.csv"
                write_csv(dataset.frame(split), path, index=False, formulas="keep")
                paths[f"{dataset.name}_{split}"] = path
        write_descriptions(paths["descriptions"], _descriptions_document(datasets),
                           comment="The datasets of the demo competition, written by srdash.demo.competition.")
        paths["competition"] = folder / "competition.toml"
        paths["competition"].write_text(DEMO_COMPETITION_FILE.format(seed=seed), encoding="utf-8")
        paths["trust"] = write_demo_store(folder / "trust.sqlite", seed=seed)
    except OSError as exc:
        raise SrdashError(f"Cannot write the demo competition to {str(folder)!r}: {exc}") from exc
    return paths


#: The demo's competition file: everything its verdict depends on (docs/competition.md).
DEMO_COMPETITION_FILE = """\
# The built-in demo competition (seed {seed}), written by srdash (`srdash demo`).
# Judge it with `srdash score competition.toml`, open it with `srdash serve competition.toml`.
title = "srdash demo: a synthetic SRBench-2022-style track"
results = "results.csv"
rules = "srbench2022"
# The models are evaluated on the datasets' files and each property is scored by srdash.
descriptions = "descriptions.yaml"

[qualification]
# Each method must beat LinearRegression head to head first.
results = "qualification.csv"

[simplification]
timeout = 10    # seconds of CPU time per model

[realworld]
# The real-world track: experts rank each qualified method's representative model by trust, blinded
# (`srdash review competition.toml --judge NAME`). The store holds a demo expert's ranks to start with.
store = "trust.sqlite"
datasets = ["exact_formula_easy", "extrapolation_easy", "noise_base"]
"""

#: The demo's real-world track: its datasets and its demo expert's trust ranks (1 = most trusted), the same on
#: every dataset, of the methods that qualify (MeanBaseline does not).
DEMO_REALWORLD_DATASETS = ("exact_formula_easy", "extrapolation_easy", "noise_base")
DEMO_EXPERT = "demo-expert"
DEMO_EXPERT_RANKS = {"ExactSR": 1, "LassoSR": 2, "LinearRegression": 3, "PolyRidge": 4, "GreedyGP": 5, "BloatGP": 6}


def write_demo_store(path, *, seed: int = 0) -> Path:
    """Write the demo's trust store (the demo expert's ranks) unless it exists; returns its path.

    Examples
    --------
    >>> import tempfile
    >>> from srdash.judging.trust import TrustStore
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     with TrustStore(write_demo_store(Path(folder) / "trust.sqlite"), read_only=True) as store:
    ...         len(store.entries()), sorted(set(store.entries()["judge"]))
    (18, ['demo-expert'])
    """
    from srdash.judging.trust import TrustStore

    path = Path(path)
    if path.exists():
        return path
    with TrustStore(path, seed=seed) as store:
        for dataset in DEMO_REALWORLD_DATASETS:
            for method, rank in DEMO_EXPERT_RANKS.items():
                store.record(DEMO_EXPERT, dataset, method, kind="rank", value=float(rank))
    return path


def demo_folder(seed: int = 0, *, cache_dir: str | Path | None = None) -> Path:
    """Where :func:`cached_demo` keeps the demo's files: srdash's cache folder, per version and seed.

    ``cache_dir`` defaults to the folder of srdash's cache
    (``$SRDASH_CACHE_DIR``, else the user cache directory).

    Examples
    --------
    >>> demo_folder(3, cache_dir="/tmp/c").name.endswith("-seed3")
    True
    """
    from srdash import __version__
    from srdash.cache import default_cache_path

    parent = Path(cache_dir) if cache_dir else default_cache_path().parent
    return parent / f"demo-{__version__}-f{DEMO_FORMAT}-seed{int(seed)}"


#: Bumped whenever the demo's files change within one srdash version (2: a real-world track and its store;
#: 3: LinearRegression solved exactly, exp/log/tanh through mpmath), so a demo written by an older checkout is
#: never mistaken for the current one. ``tests/test_cache_demo.py`` holds the files' hash of each format.
DEMO_FORMAT = 3


def cached_demo(seed: int = 0, *, cache_dir: str | Path | None = None, seed_prepared: bool = True) -> dict:
    """The demo competition's files (:func:`write_demo`), written once per srdash version and seed.

    The apps open the demo on every page load; writing it (about 2 s) is done
    the first time only, in :func:`demo_folder`. The files are written to a
    fresh folder and then renamed into place, so two kernels starting at once
    never read a half-written demo.

    With ``seed_prepared`` (default), when the files are first written, the
    demo's prepared results shipped with srdash (:mod:`srdash.demo.prepared`)
    are added to the cache in the same folder, so judging the demo (seed 0)
    does no sympy work, and the files themselves are the shipped ones (the
    generator's output for seed 0, without its two seconds of work).

    Returns
    -------
    dict of str to Path
        As :func:`write_demo`.
    """
    import json

    folder = demo_folder(seed, cache_dir=cache_dir)
    manifest = folder / "paths.json"
    if manifest.is_file():
        return {name: folder / file for name, file in json.loads(manifest.read_text(encoding="utf-8")).items()}
    # One writer at a time (e.g. `srdash serve` writing it while the first kernel starts): the others
    # wait for it and read its files instead of generating them again.
    with _exclusive(folder.parent / f".{folder.name}.lock"):
        if manifest.is_file():
            return {name: folder / file for name, file in json.loads(manifest.read_text(encoding="utf-8")).items()}
        return _write_cached_demo(folder, manifest, seed=seed, seed_prepared=seed_prepared)


def _exclusive(path: Path):
    """An exclusive ``flock`` on ``path`` (created) while in the block; no lock where that is not possible."""
    import contextlib

    @contextlib.contextmanager
    def locked():
        try:
            import fcntl

            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "a+b")
        except (ImportError, OSError):  # not POSIX, or a read-only folder: the atomic rename still protects
            yield
            return
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    return locked()


def _shipped_files():
    from srdash.demo.shipped import shipped_demo_files

    return shipped_demo_files()


def _write_cached_demo(folder: Path, manifest: Path, *, seed: int, seed_prepared: bool) -> dict:
    import json
    import os
    import shutil
    import tempfile

    if seed_prepared and seed == 0:
        from srdash.demo.shipped import seed_cache
        from srdash.cache import CACHE_FILE_NAME

        try:
            seed_cache(folder.parent / CACHE_FILE_NAME)
        except OSError:  # a cache that cannot be written: the demo computes its results instead
            pass
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    except OSError as exc:
        raise SrdashError(f"Cannot write the demo competition to {str(folder.parent)!r}: {exc}") from exc
    try:
        shipped = _shipped_files() if seed_prepared and seed == 0 else None
        if shipped is not None:  # the files srdash generated for seed 0, shipped with it (srdash.demo.prepared)
            names, files = shipped
            for name, data in files.items():
                (scratch / name).write_bytes(data)
            paths = {name: scratch / file for name, file in names.items()}
            paths["trust"] = write_demo_store(scratch / "trust.sqlite", seed=seed)
        else:
            paths = write_demo(scratch, seed=seed)
        (scratch / "paths.json").write_text(json.dumps({name: path.name for name, path in paths.items()}),
                                            encoding="utf-8")
        try:
            os.replace(scratch, folder)
        except OSError:
            if not manifest.is_file():  # not another kernel's finished copy: a real failure
                raise
    except OSError as exc:
        raise SrdashError(f"Cannot write the demo competition to {str(folder)!r}: {exc}") from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {name: folder / path.name for name, path in paths.items()}

