"""A generated SRBench-2025-scale competition: 25 methods x 24 datasets x 30 runs (``srdash demo --scale 2025``).

Its purpose is scale and shape, not realism: the table has the per-run columns SRBench 2025
writes (its ``srbench_2025`` branch), so every analysis, the dashboard and the report can be
tried, and timed, on a table of that size. It is generated with numpy alone from one seed in
well under a second; the same seed gives the same files, byte for byte.

Columns (one row per run)
    ``algorithm``, ``dataset``, ``random_state`` (0..29), ``r2_train``, ``r2_test``,
    ``mse_train``, ``mse_test``, ``mae_train``, ``mae_test``, ``model`` (the model string),
    ``model_size`` (a stand-in drawn with the model: a naive node count of its terms; SRBench 2025
    writes the nodes of the sympy tree of the rounded model there, the count srdash's ``size`` makes
    on ``model`` with the preset's ``rounded-nodes`` measure), ``training time (s)``, and eco2AI's
    ``duration(s)``, ``power_consumption(kWh)``, ``CO2_emissions(kg)``, ``CPU_name``.

Methods
    Synthetic, named by family (``GP-1`` .. ``GP-5``, ``Neural-1`` .., ``Sparse-1`` ..,
    ``Bayes-1`` .., ``Search-1`` ..): each family has a typical accuracy, model size, run time
    and power draw, and each method its own offset. No number is any real method's.

Datasets
    ``feynman_01`` .. ``feynman_12`` (a known equation each, in ``datasets.csv``'s
    ``ground_truth``), ``bb_fri_01`` .. ``bb_fri_06`` (named like PMLB's Friedman datasets, so
    :func:`srdash.analysis.comparison.friedman_datasets` splits them off) and ``bb_real_01`` ..
    ``bb_real_06``.

Runs
    Every (method, dataset) has 30 runs; as stochastic searches often do, a method's runs on a
    dataset converge to one of three model strings (run ``r`` has solution ``r % 3``), which keeps
    the sympy work of measuring them small (1,800 distinct strings). Each seed has its own
    train/test split in SRBench, so the metrics differ from run to run. The metrics are drawn,
    not computed by evaluating the model strings (unlike the built-in demo,
    :mod:`srdash.demo.competition`). Some runs failed: no model and no metrics (``Bayes-2`` on
    three datasets entirely, and about 1 % of the other runs), or are missing from the table
    (``Neural-5`` delivered 25 runs on four datasets); the preset counts them as the worst value.

Examples
--------
>>> table = demo_2025_table()
>>> table.shape
(17980, 16)
>>> table["algorithm"].nunique(), table["dataset"].nunique(), int(table["random_state"].max()) + 1
(25, 24, 30)
>>> int(table["model"].isna().sum()) > 90
True
>>> demo_2025_table().equals(table)
True
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from srdash.errors import SrdashError
from srdash.io.csvsafe import write_csv

__all__ = ["demo_2025_table", "demo_2025_datasets", "write_demo_2025", "DEMO_2025_METHODS", "DEMO_2025_DATASETS",
           "DEMO_2025_COMPETITION_FILE"]

_N_RUNS = 30
_POOL = 3

# family: (accuracy skill, terms in a model, seconds per run, watts, share of runs that fail)
_FAMILIES = {
    "GP": (2.2, 9, 1800.0, 95.0, 0.01),
    "Neural": (1.2, 5, 240.0, 180.0, 0.005),
    "Sparse": (0.9, 3, 40.0, 60.0, 0.0),
    "Bayes": (1.6, 4, 3000.0, 70.0, 0.02),
    "Search": (1.8, 6, 900.0, 85.0, 0.01),
}

#: The methods, in generation order.
DEMO_2025_METHODS = tuple(f"{family}-{i}" for family in _FAMILIES for i in range(1, 6))

#: The datasets, in generation order.
DEMO_2025_DATASETS = (tuple(f"feynman_{i:02d}" for i in range(1, 13)) + tuple(f"bb_fri_{i:02d}" for i in range(1, 7))
                      + tuple(f"bb_real_{i:02d}" for i in range(1, 7)))

# The known equations of the feynman datasets (features x1..x3).
_TRUTHS = ("x1*x2", "x1**2/2", "sin(x1)*x2", "exp(-x1)*x2", "x1/x2", "x1 + x2*x3", "x1*x2*x3", "cos(x1) + x2",
           "sqrt(x1)*x3", "x1**3 - x2", "log(x1)*x2", "x1*x2/(x3 + 1)")

# The library the model strings are drawn from (features x1..x3; every one parsed by srdash's whitelist).
_LIBRARY = ("x1", "x2", "x3", "x1*x2", "x2*x3", "x1**2", "x2**2", "sin(x1)", "cos(x2)", "exp(-x3)", "sqrt(x1)",
            "log(x2)", "x1/x2", "x3/x1", "sin(x2*x3)", "x1*x2*x3", "tanh(x3)", "x1**3")

_FAILED_DNF = ("Bayes-2", ("bb_real_02", "bb_real_05", "feynman_07"))   # no run succeeded
_SHORT = ("Neural-5", ("feynman_03", "feynman_09", "bb_fri_04", "bb_real_01"), 25)  # runs delivered

_CPUS = ("AMD EPYC 7742 64-Core Processor", "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz")
_CARBON_INTENSITY = 0.385  # kg CO2 per kWh

_COLUMNS = ["algorithm", "dataset", "random_state", "r2_train", "r2_test", "mse_train", "mse_test", "mae_train",
            "mae_test", "model", "model_size", "training time (s)", "duration(s)", "power_consumption(kWh)",
            "CO2_emissions(kg)", "CPU_name"]


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SrdashError(f"The 'seed' option must be a non-negative integer. Got {seed!r}.")
    return int(seed)


def _model_string(rng, n_terms: int) -> tuple[str, int]:
    """A sum of ``n_terms`` library terms with 4-significant-digit coefficients (one in five below 1e-4, which the
    2025 size measure rounds to 0), and a naive node count of its terms (the table's ``model_size``, a stand-in)."""
    terms = rng.choice(len(_LIBRARY), size=min(n_terms, len(_LIBRARY)), replace=False)
    pieces = [f"{rng.normal(0.0, 2.0):.4g}"]
    for t in terms:
        coefficient = rng.normal(0.0, 2.0) if rng.random() > 0.2 else rng.normal(0.0, 3e-5)
        pieces.append(f"{coefficient:.4g}*{_LIBRARY[t]}")
    text = " + ".join(pieces).replace("+ -", "- ")
    size = 1 + sum(3 + _LIBRARY[t].count("*") * 2 + _LIBRARY[t].count("(") for t in terms)
    return text, int(size)


def demo_2025_datasets(*, seed: int = 0) -> pd.DataFrame:
    """The datasets: ``dataset``, ``features``, ``kind``, ``ground_truth`` (empty for black-box), ``n_train``."""
    seed = _check_seed(seed)
    rng = np.random.default_rng([seed, 1])
    kinds = ["feynman"] * 12 + ["friedman"] * 6 + ["real"] * 6
    return pd.DataFrame({
        "dataset": list(DEMO_2025_DATASETS),
        "features": ["x1 x2 x3"] * len(DEMO_2025_DATASETS),
        "kind": kinds,
        "ground_truth": list(_TRUTHS) + [""] * 12,
        "n_train": rng.integers(100, 5000, size=len(DEMO_2025_DATASETS)).tolist(),
    })


def demo_2025_table(*, seed: int = 0) -> pd.DataFrame:
    """The per-run table (columns above), sorted by (dataset, algorithm, random_state)."""
    seed = _check_seed(seed)
    datasets = demo_2025_datasets(seed=seed)
    rng = np.random.default_rng([seed, 0])
    n_m, n_d = len(DEMO_2025_METHODS), len(DEMO_2025_DATASETS)
    families = [m.split("-")[0] for m in DEMO_2025_METHODS]
    skill = np.array([_FAMILIES[f][0] for f in families]) + rng.normal(0.0, 0.5, n_m)
    terms = np.array([_FAMILIES[f][1] for f in families]) + rng.integers(-1, 3, n_m)
    seconds = np.array([_FAMILIES[f][2] for f in families]) * np.exp(rng.normal(0.0, 0.4, n_m))
    watts = np.array([_FAMILIES[f][3] for f in families]) * np.exp(rng.normal(0.0, 0.15, n_m))
    fail = np.array([_FAMILIES[f][4] for f in families])
    difficulty = rng.uniform(-3.0, 1.0, n_d)            # log of a typical 1 - R2
    variance = np.exp(rng.normal(0.0, 1.5, n_d))         # of the target
    size_factor = datasets["n_train"].to_numpy() / 1000.0
    cpu = rng.integers(0, len(_CPUS), n_d)

    # per (method, dataset, solution): the model string and its quality
    models = {}
    for m in range(n_m):
        for d in range(n_d):
            for v in range(_POOL):
                solution_rng = np.random.default_rng([seed, 2, m, d, v])
                models[m, d, v] = _model_string(solution_rng, max(1, int(terms[m]) + int(solution_rng.integers(-1, 2))))

    m_idx, d_idx, r_idx = (a.ravel() for a in np.meshgrid(np.arange(n_m), np.arange(n_d), np.arange(_N_RUNS),
                                                            indexing="ij"))
    n = m_idx.size
    noise = rng.normal(0.0, 0.35, n)
    solution_offset = rng.normal(0.0, 0.3, (n_m, n_d, _POOL))[m_idx, d_idx, r_idx % _POOL]
    log_error = difficulty[d_idx] - skill[m_idx] + 0.08 * terms[m_idx] + solution_offset + noise
    error_test = np.exp(log_error)
    error_train = error_test * np.exp(rng.normal(-0.2, 0.1, n))
    mse_test, mse_train = error_test * variance[d_idx], error_train * variance[d_idx]
    duration = seconds[m_idx] * size_factor[d_idx] ** 0.5 * np.exp(rng.normal(0.0, 0.25, n))
    duration = np.minimum(duration, 2 * 3600.0)
    energy = duration * watts[m_idx] / 3.6e6
    table = pd.DataFrame({
        "algorithm": np.array(DEMO_2025_METHODS)[m_idx],
        "dataset": np.array(DEMO_2025_DATASETS)[d_idx],
        "random_state": r_idx,
        "r2_train": 1.0 - error_train, "r2_test": 1.0 - error_test,
        "mse_train": mse_train, "mse_test": mse_test,
        "mae_train": 0.8 * np.sqrt(mse_train), "mae_test": 0.8 * np.sqrt(mse_test),
        "model": [models[m, d, r % _POOL][0] for m, d, r in zip(m_idx, d_idx, r_idx)],
        "model_size": [models[m, d, r % _POOL][1] for m, d, r in zip(m_idx, d_idx, r_idx)],
        "training time (s)": duration * 0.97,
        "duration(s)": duration,
        "power_consumption(kWh)": energy,
        "CO2_emissions(kg)": energy * _CARBON_INTENSITY,
        "CPU_name": np.array(_CPUS)[cpu[d_idx]],
    })
    failed = rng.random(n) < fail[m_idx]
    dnf_method, dnf_datasets = _FAILED_DNF
    failed |= (table["algorithm"] == dnf_method).to_numpy() & table["dataset"].isin(dnf_datasets).to_numpy()
    metric_columns = ["r2_train", "r2_test", "mse_train", "mse_test", "mae_train", "mae_test", "model_size"]
    table.loc[failed, metric_columns] = np.nan
    table["model"] = table["model"].where(~failed, None)
    short_method, short_datasets, delivered = _SHORT
    dropped = ((table["algorithm"] == short_method) & table["dataset"].isin(short_datasets)
               & (table["random_state"] >= delivered))
    table = table[~dropped.to_numpy()]
    for column in ("r2_train", "r2_test", "mse_train", "mse_test", "mae_train", "mae_test"):
        table[column] = table[column].round(6)
    for column in ("training time (s)", "duration(s)"):
        table[column] = table[column].round(2)
    for column in ("power_consumption(kWh)", "CO2_emissions(kg)"):
        table[column] = table[column].map(lambda x: float(f"{x:.5g}"))
    table["model_size"] = table["model_size"].astype("Int64")
    table = table.sort_values(["dataset", "algorithm", "random_state"], kind="stable").reset_index(drop=True)
    return table[_COLUMNS]


#: The 2025-scale demo's competition file (docs/competition.md).
DEMO_2025_COMPETITION_FILE = """\
# A generated SRBench-2025-scale competition (seed {seed}), written by srdash (`srdash demo --scale 2025`):
# 25 synthetic methods x 24 datasets x 30 runs, with SRBench 2025's per-run columns and eco2AI's energy
# columns. Judge it with `srdash score competition.toml`, open it with `srdash serve competition.toml`.
title = "srdash demo: a generated SRBench-2025-scale benchmark"
results = "results.csv"
rules = "srbench2025"
datasets = "datasets.csv"

[simplification]
timeout = 10    # seconds of CPU time per model (here: counting the nodes of the rounded tree)
"""


def write_demo_2025(directory, *, seed: int = 0) -> dict:
    """Write the 2025-scale demo: ``results.csv``, ``datasets.csv`` and ``competition.toml``.

    Returns
    -------
    dict of str to Path
        ``"results"``, ``"datasets"``, ``"competition"``.

    Examples
    --------
    >>> import tempfile
    >>> from srdash.judging.competition import load_competition
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = write_demo_2025(folder)
    ...     competition = load_competition(paths["competition"])
    >>> competition.rules.name, [path.name for path in competition.results]
    ('srbench2025', ['results.csv'])
    """
    folder = Path(directory)
    table = demo_2025_table(seed=seed)
    datasets = demo_2025_datasets(seed=seed)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        paths = {"results": folder / "results.csv", "datasets": folder / "datasets.csv",
                 "competition": folder / "competition.toml"}
        write_csv(table, paths["results"], index=False, formulas="keep")
        write_csv(datasets, paths["datasets"], index=False, formulas="keep")
        paths["competition"].write_text(DEMO_2025_COMPETITION_FILE.format(seed=seed), encoding="utf-8")
    except OSError as exc:
        raise SrdashError(f"Cannot write the 2025-scale demo to {str(folder)!r}: {exc}") from exc
    return paths
