"""The demo's tables generated from one seed: every method's runs on every dataset (:func:`demo_competition`)
and the qualification stage (:func:`demo_qualification`); see :mod:`srdash.demo.competition`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from srdash.demo.data import make_datasets, qualification_datasets
from srdash.demo.formulas import r2_score
from srdash.demo.methods import METHODS, property_value
from srdash.errors import SrdashError
from srdash.io.loading import Results, load_results

__all__ = ["HOSTILE_MODEL", "demo_competition", "demo_qualification", "generate_demo"]


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

_QUALIFICATION_RUNS = 3


def _qualification_rows(seed: int) -> pd.DataFrame:
    rows = []
    for d, dataset in enumerate(qualification_datasets(seed)):
        test_columns, y_test = dataset.columns("test"), dataset.target("test")
        for m, (method, build) in enumerate(METHODS.items()):
            for run in range(_QUALIFICATION_RUNS):
                model = build(dataset, np.random.default_rng([seed, 5, d, m, run]))
                rows.append((method, dataset.name, run, model.text(), r2_score(y_test, model.predict(test_columns))))
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


def generate_demo(seed: int):
    """The demo for ``seed`` (a non-negative integer): ``(results, dataset table, datasets)``, what
    :func:`demo_competition` and :func:`srdash.demo.folder.write_demo` are made of."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SrdashError(f"The 'seed' option must be a non-negative integer. Got {seed!r}.")
    from threadpoolctl import threadpool_limits  # installed with scikit-learn

    # One BLAS thread: the same sums in the same order on every machine (so the
    # same bytes), and no thread contention on these small problems.
    with threadpool_limits(limits=1):
        return _generate_single_threaded(int(seed))


def _generate_single_threaded(seed: int):
    datasets = make_datasets(seed)
    rows = []
    for d, dataset in enumerate(datasets):
        test_columns, y_test = dataset.columns("test"), dataset.target("test")
        for m, (method, build) in enumerate(METHODS.items()):
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
                r2_test = r2_score(y_test, model.predict(test_columns))
                rows.append((method, dataset.name, int(run), model.text(), r2_test,
                             property_value(dataset, model, r2_test)))
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
    return generate_demo(seed)[0]
