"""The demo's methods (ExactSR, LinearRegression, PolyRidge, LassoSR, GreedyGP, BloatGP, MeanBaseline; see
:mod:`srdash.demo.competition`), each fitting a :class:`~srdash.demo.formulas.Model` to a dataset's training
split, and the property a run's model earns (the generator's own check of exact re-discovery)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np

from srdash.demo.data import DemoDataset
from srdash.demo.exact import exact_least_squares
from srdash.demo.formulas import Model, Term, applied, make_model, monomial, round_sig, scaled, sum_term, variable

__all__ = ["DEMO_METHODS", "METHODS", "property_value"]


#: The demo's methods, in generation order.
DEMO_METHODS = ("ExactSR", "LinearRegression", "PolyRidge", "LassoSR", "GreedyGP", "BloatGP", "MeanBaseline")


def _bootstrap(dataset: DemoDataset, rng) -> np.ndarray:
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


def _library(dataset: DemoDataset) -> list:
    """Candidate terms of the greedy method: monomials, sin/cos, sums in sin."""
    x = dataset.features
    terms = []
    for i, name in enumerate(x):
        powers = [0] * len(x)
        powers[i] = 1
        terms.append(monomial(x, powers))
        powers[i] = 2
        terms.append(monomial(x, powers))
        terms.append(applied("sin", variable(name)))
        terms.append(applied("cos", variable(name)))
        if len(x) == 1:
            powers[i] = 3
            terms.append(monomial(x, powers))
            terms.append(applied("exp", Term(f"-{name}**2", frozenset([name]),
                                             lambda columns, name=name: -columns[name] ** 2)))
    for i, j in itertools.combinations(range(len(x)), 2):
        powers = [0] * len(x)
        powers[i] = powers[j] = 1
        terms.append(monomial(x, powers))
        terms.append(applied("sin", sum_term(variable(x[i]), variable(x[j]))))
    return terms


def _exact_sr(dataset: DemoDataset, rng) -> Model:
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
    return make_model(intercept, coefficients, terms, digits=6, denominator=template.denominator,
                  intercept_first=False)


def _linear_regression(dataset: DemoDataset, rng) -> Model:
    """Ordinary least squares on the whole training set (scikit-learn's LinearRegression), solved exactly:
    coefficients in full precision, the same bits on every machine."""
    intercept, coefficients = exact_least_squares(dataset.matrix("train"), dataset.target("train"))
    terms = [variable(f) for f in dataset.features]
    return make_model(intercept, coefficients, terms, digits=None)


def _polynomial_terms(dataset: DemoDataset):
    from sklearn.preprocessing import PolynomialFeatures

    expansion = PolynomialFeatures(degree=2, include_bias=False).fit(dataset.matrix("train")[:2])
    return [monomial(dataset.features, powers) for powers in expansion.powers_]


def _poly_ridge(dataset: DemoDataset, rng) -> Model:
    """Degree-2 PolynomialFeatures + Ridge on a bootstrap sample, written out."""
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import PolynomialFeatures

    rows = _bootstrap(dataset, rng)
    expansion = PolynomialFeatures(degree=2, include_bias=False)
    design = expansion.fit_transform(dataset.matrix("train")[rows])
    fitted = Ridge(alpha=1.0).fit(design, dataset.target("train")[rows])
    terms = [monomial(dataset.features, powers) for powers in expansion.powers_]
    return make_model(fitted.intercept_, fitted.coef_, terms, digits=6)


def _lasso_sr(dataset: DemoDataset, rng) -> Model:
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
    return make_model(intercept, coefficients, terms, digits=6, drop_zeros=True)


def _greedy_selection(dataset: DemoDataset, rng, rows, n_terms: int, *, share: float):
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


def _greedy_gp(dataset: DemoDataset, rng) -> Model:
    """Greedy nonlinear terms, then one or two spurious terms in features it had not used."""
    rows = _bootstrap(dataset, rng)
    intercept, coefficients, terms = _greedy_selection(dataset, rng, rows, int(rng.integers(3, 8)), share=0.8)
    used = frozenset().union(*(t.features for t in terms))
    unused = [f for f in dataset.features if f not in used]
    if unused and rng.random() < 0.75:
        columns = dataset.columns("train", rows)
        residual = dataset.target("train")[rows] - make_model(intercept, coefficients, terms, digits=None).predict(columns)
        for name in rng.choice(unused, size=min(len(unused), int(rng.integers(1, 3))), replace=False):
            term = variable(str(name))
            values = term.evaluate(columns)
            slope = np.cov(values, residual)[0, 1] / np.var(values, ddof=1)
            terms.append(term)
            coefficients.append(slope if abs(slope) > 1e-3 else rng.choice([-1, 1]) * rng.uniform(0.001, 0.01))
    return make_model(intercept, coefficients, terms, digits=4)


def _random_nested(rng, features, depth: int) -> Term:
    """A random nested expression (sin, cos, tanh, exp of bounded values, products, sums)."""
    if depth == 0 or rng.random() < 0.25:
        name = features[rng.integers(len(features))]
        scale = round(float(rng.uniform(0.1, 1.5)), 3)
        return scaled(scale, variable(name)) if rng.random() < 0.5 else variable(name)
    kind = rng.choice(["sin", "cos", "tanh", "exp_sin", "exp_cos", "product", "sin_sum"])
    a = _random_nested(rng, features, depth - 1)
    if kind in ("sin", "cos", "tanh"):
        return applied(str(kind), a)
    if kind in ("exp_sin", "exp_cos"):
        return applied("exp", applied(str(kind)[4:], a))
    b = _random_nested(rng, features, depth - 1)
    if kind == "product":
        return Term(f"{a.text}*{_parenthesised(b)}", a.features | b.features,
                     lambda columns: a.evaluate(columns) * b.evaluate(columns))
    return applied("sin", sum_term(a, b))


def _parenthesised(term: Term) -> str:
    return term.text if "+" not in term.text and "-" not in term.text else f"({term.text})"


def _bloat_gp(dataset: DemoDataset, rng) -> Model:
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
    weights = [round_sig(w, 6) for w in weights]
    remainder = y - _evaluate_terms(bloat, columns) @ np.array(weights)

    def fit(z, target):
        ridge = np.linalg.solve(z.T @ z + 1e-3 * np.eye(z.shape[1]), z.T @ (target - target.mean()))
        return target.mean(), ridge

    intercept, coefficients = _standardised_fit(_evaluate_terms(core, columns), remainder, fit)
    return make_model(intercept, list(coefficients) + weights, core + bloat, digits=6)


def _mean_baseline(dataset: DemoDataset, rng) -> Model:
    return make_model(np.mean(dataset.target("train")), [], [], digits=6)


METHODS = {
    "ExactSR": _exact_sr,
    "LinearRegression": _linear_regression,
    "PolyRidge": _poly_ridge,
    "LassoSR": _lasso_sr,
    "GreedyGP": _greedy_gp,
    "BloatGP": _bloat_gp,
    "MeanBaseline": _mean_baseline,
}


def _is_ground_truth(model: Model, truth: Model) -> bool:
    """Equal to the truth up to an additive or a multiplicative constant, after rounding to 3 decimals."""
    if (model.denominator and model.denominator.text) != (truth.denominator and truth.denominator.text):
        return False

    def rounded(m: Model) -> dict:
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


def property_value(dataset: DemoDataset, model: Model, r2_test: float) -> float:
    if dataset.kind == "exact_formula":
        return 1.0 if _is_ground_truth(model, dataset.truth) else 0.0
    if dataset.kind == "feature_selection":
        unused = [f for f in dataset.irrelevant if f not in model.features]
        return len(unused) / len(dataset.irrelevant)
    return r2_test
