"""The demo's datasets, generated from one seed: exact formulas, feature selection, noise, extrapolation,
and the qualification stage's three nonlinear datasets (see :mod:`srdash.demo.competition`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from srdash.demo.formulas import Model, Term, applied, erf_term, feature_names, make_model, monomial, scaled, \
    sum_term, variable

__all__ = ["DEMO_DATASETS", "DEMO_QUALIFICATION_DATASETS", "DemoDataset", "make_datasets", "qualification_datasets"]


#: The demo's datasets, in generation order.
DEMO_DATASETS = (
    "exact_formula_easier", "exact_formula_easy", "exact_formula_medium", "exact_formula_hard",
    "featureselection_easy", "noise_base", "noise_easy", "noise_medium", "noise_hard",
    "extrapolation_easy",
)

#: The qualification stage's datasets (see :func:`srdash.demo.generate.demo_qualification`).
DEMO_QUALIFICATION_DATASETS = ("qualification_1", "qualification_2", "qualification_3")


@dataclass(frozen=True)
class DemoDataset:
    name: str
    kind: str  # exact_formula, feature_selection, noise, extrapolation
    features: tuple
    x_train: np.ndarray = field(repr=False)  # (n_train, n_features)
    y_train: np.ndarray = field(repr=False)
    x_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    truth: Model            # what generated y (before noise)
    ground_truth: str        # the same formula as usually written
    template: Model         # the structure ExactSR finds (the truth, or an approximation)
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
    terms = [monomial(x[:2], (1, 1)), monomial(x[:1], (1,)), monomial(x[1:2], (1,))]
    coefficients = [0.4, -1.5, 2.5]
    if with_sin:
        terms = [applied("sin", sum_term(variable("x1"), variable("x2")))] + terms
        coefficients = [5.5] + coefficients
    if with_log:
        terms.append(applied("log", Term("30*x3**2", frozenset(["x3"]),
                                         lambda columns: 30 * columns["x3"] ** 2)))
        coefficients.append(1.0)
    return coefficients, terms


_DENOMINATOR = Term("1 + 0.2*(x1**2 + x2**2)", frozenset(["x1", "x2"]),
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


def make_datasets(seed: int) -> list:
    datasets = []

    def rng_for(index: int):
        return np.random.default_rng([seed, 1, index])

    # Exact formulas: x1..x10 uniform on [-5, 5]; the targets use x1, x2 (x3).
    for index, name in enumerate(DEMO_DATASETS[:4]):
        rng = rng_for(index)
        features = feature_names(10)
        x_train, x_test = rng.uniform(-5, 5, (500, 10)), rng.uniform(-5, 5, (500, 10))
        coefficients, terms = _srbench_numerator(features, with_log=name.endswith("_easy"),
                                                 with_sin=name.endswith("_hard"))
        denominator = _DENOMINATOR if name.endswith(("_medium", "_hard")) else None
        truth = make_model(1.0, coefficients, terms, digits=None, denominator=denominator, intercept_first=False)
        y_train = truth.predict(dict(zip(features, x_train.T)))
        y_test = truth.predict(dict(zip(features, x_test.T)))
        datasets.append(DemoDataset(name, "exact_formula", features, x_train, y_train, x_test, y_test, truth,
                                 _EXACT_GROUND_TRUTHS[name], truth,
                                 irrelevant=tuple(f for f in features if f not in truth.features)))

    # Feature selection: odd features relevant, even ones irrelevant.
    rng = rng_for(4)
    features = feature_names(10)
    x = features
    terms = [monomial(x, (1, 0, 1)), monomial(x, (0, 0, 0, 0, 1)), monomial(x, (0,) * 6 + (2,)),
             applied("sin", variable("x9"))]
    truth = make_model(0.5, [0.6, -1.8, 0.25, 2.2], terms, digits=None, intercept_first=False)
    x_train, x_test = rng.uniform(-5, 5, (500, 10)), rng.uniform(-5, 5, (500, 10))
    datasets.append(DemoDataset("featureselection_easy", "feature_selection", features,
                             x_train, truth.predict(dict(zip(features, x_train.T))),
                             x_test, truth.predict(dict(zip(features, x_test.T))), truth,
                             _FEATURESELECTION_GROUND_TRUTH, truth, irrelevant=features[1::2]))

    # Noise: the same x1 and the same standard-normal draw, scaled to the level.
    rng = rng_for(5)
    features = ("x1",)
    terms = [monomial(features, (2,)), monomial(features, (1,)), applied("sin", variable("x1"))]
    truth = make_model(2.0, [0.3, -1.2, 5.0], terms, digits=None, intercept_first=False)
    x_train, x_test = rng.uniform(-10, 10, (50, 1)), rng.uniform(-10, 10, (500, 1))
    clean_train = truth.predict({"x1": x_train[:, 0]})
    clean_test = truth.predict({"x1": x_test[:, 0]})
    unit_train, unit_test = rng.standard_normal(50), rng.standard_normal(500)
    variance = np.var(np.concatenate([clean_train, clean_test]))
    for name, level in _NOISE_LEVELS.items():
        scale = np.sqrt(level * variance)
        datasets.append(DemoDataset(name, "noise", features, x_train, clean_train + scale * unit_train,
                                 x_test, clean_test + scale * unit_test, truth, _NOISE_GROUND_TRUTH,
                                 truth, noise=level))

    # Extrapolation: train on x <= 15, test on x > 15.
    rng = rng_for(9)
    features = ("x",)
    truth = make_model(0.0, [1.0, 0.17], [erf_term(0.22, "x"), applied("sin", scaled(5.5, variable("x")))],
                   digits=None)
    # The SR structure: tanh approximates erf, and tanh is in every parser's whitelist.
    template = make_model(0.0, [1.0, 0.17], [applied("tanh", scaled(0.25, variable("x"))),
                                         applied("sin", scaled(5.5, variable("x")))], digits=None)
    # As in SRBench 2022: a grid of step 0.1, train on [-15, 15), test on [15.1, 40].
    x_train = (-15 + 0.1 * np.arange(300)).reshape(-1, 1)
    x_test = (15.1 + 0.1 * np.arange(250)).reshape(-1, 1)
    noise_train, noise_test = 0.1 * rng.standard_normal(300), 0.1 * rng.standard_normal(250)
    datasets.append(DemoDataset("extrapolation_easy", "extrapolation", features,
                             x_train, truth.predict({"x": x_train[:, 0]}) + noise_train,
                             x_test, truth.predict({"x": x_test[:, 0]}) + noise_test, truth,
                             _EXTRAPOLATION_GROUND_TRUTH, template))
    return datasets


def qualification_datasets(seed: int) -> list:
    """Three nonlinear functions of x1..x4 with 5 % noise: a straight line cannot fit them."""
    x = feature_names(4)
    specs = [  # (coefficients, terms, intercept)
        ([1.2, 0.8, -2.0, 1.0], [monomial(x, (1, 1)), monomial(x, (0, 0, 2)), applied("sin", variable("x4")),
                                 monomial(x, (1,))], 0.5),
        ([2.0, 0.5, -1.0], [applied("cos", variable("x1")), monomial(x, (0, 2)), monomial(x, (0, 0, 1, 1))], 1.0),
        ([1.0, -1.5, 3.0, 0.7], [monomial(x, (2,)), monomial(x, (0, 1, 1)), applied("sin", variable("x4")),
                                 monomial(x, (0, 0, 0, 1))], -2.0),
    ]
    datasets = []
    for index, (name, (coefficients, terms, intercept)) in enumerate(zip(DEMO_QUALIFICATION_DATASETS, specs)):
        rng = np.random.default_rng([seed, 4, index])
        truth = make_model(intercept, coefficients, terms, digits=None, intercept_first=False)
        x_train, x_test = rng.uniform(-3, 3, (200, 4)), rng.uniform(-3, 3, (200, 4))
        clean_train, clean_test = truth.predict(dict(zip(x, x_train.T))), truth.predict(dict(zip(x, x_test.T)))
        scale = np.sqrt(0.05 * np.var(clean_train))
        datasets.append(DemoDataset(name, "qualification", x, x_train, clean_train + scale * rng.standard_normal(200),
                                 x_test, clean_test + scale * rng.standard_normal(200), truth, truth.text(), truth,
                                 noise=0.05))
    return datasets
