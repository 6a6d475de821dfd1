"""The data of small property datasets of every kind (exact formulas, irrelevant and surrogate features,
an extrapolation partition, one function at several noise levels), generated from one seed.

:func:`write_property_data` writes the data files and returns their descriptions document;
:func:`srdash.io.datasets.write_property_datasets` (``srdash datasets``) writes that document beside
them and reads it back through the validation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from srdash.io.csvsafe import write_csv

__all__ = ["write_property_data"]



@dataclass(frozen=True)
class _Generated:
    name: str
    kind: str
    truth: str
    function: Any            # numpy function of the columns mapping
    features: tuple[str, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)
    noise_level: float = 0.0
    description: str = ""


def _x(n: int) -> tuple[str, ...]:
    return tuple(f"x{i}" for i in range(1, n + 1))


def _noise_curve(c):
    return (0.1 * c["x1"] ** 3 - c["x1"]) / (0.5 * c["x1"] ** 2 + 1)


_GENERATED = (
    _Generated("exact_easy", "exact", "1.5*x1 - 0.5*x2 + 2",
               lambda c: 1.5 * c["x1"] - 0.5 * c["x2"] + 2, _x(4),
               description="Linear; x3 and x4 unused."),
    _Generated("exact_medium", "exact", "x1*x2 + 0.5*x3**2 - 1",
               lambda c: c["x1"] * c["x2"] + 0.5 * c["x3"] ** 2 - 1, _x(4),
               description="Polynomial of degree 2; x4 unused."),
    _Generated("exact_hard", "exact", "(2*x1*x2 - x3)/(1 + 0.5*x1**2)",
               lambda c: (2 * c["x1"] * c["x2"] - c["x3"]) / (1 + 0.5 * c["x1"] ** 2), _x(4),
               description="Rational function; x4 unused."),
    _Generated("feature_absence", "feature_absence", "0.9*x1*x2 + 0.5*x3**2 - 1.2*x4",
               lambda c: 0.9 * c["x1"] * c["x2"] + 0.5 * c["x3"] ** 2 - 1.2 * c["x4"], _x(10),
               extra={"irrelevant": _x(10)[4:]}, noise_level=0.05,
               description="Six irrelevant features x5..x10."),
    _Generated("local_optima", "local_optima", "0.8*x1*x2 + 1.5*x3*x4 + 0.3*x2**2",
               lambda c: 0.8 * c["x1"] * c["x2"] + 1.5 * c["x3"] * c["x4"] + 0.3 * c["x2"] ** 2, _x(6),
               extra={"surrogates": ("x5", "x6")},
               description="x5 and x6 approximate 0.8*x1*x2 and 1.5*x3*x4 (10% noise); 100 training rows."),
    _Generated("extrapolation", "extrapolation", "tanh(0.3*x1) + 0.2*sin(4*x1)",
               lambda c: np.tanh(0.3 * c["x1"]) + 0.2 * np.sin(4 * c["x1"]), ("x1",),
               extra={"partition": "extrapolation"}, noise_level=0.02,
               description="Train and test: -10 <= x1 <= 10; extrapolation partition: 10 < x1 <= 20."),
) + tuple(
    _Generated(f"noise_{round(level * 100)}", "noise", "(0.1*x1**3 - x1)/(0.5*x1**2 + 1)", _noise_curve, ("x1",),
               extra={"group": "noise"}, noise_level=level,
               description=f"One function, {round(level * 100)}% of the target's variance is noise.")
    for level in (0.0, 0.05, 0.1, 0.2)
)


def _with_noise(y: np.ndarray, level: float, rng) -> np.ndarray:
    # As the 2022 generator: noise sd = sd(y) * sqrt(level / (1 - level)), so that noise
    # is `level` of the noisy target's variance.
    if level == 0:
        return y
    return y + rng.normal(0.0, np.std(y) * math.sqrt(level / (1 - level)), size=y.shape)


def _generate(item: _Generated, rng, shared_rng) -> dict[str, pd.DataFrame]:
    n_train, n_test = (100, 400) if item.kind == "local_optima" else (200, 400)
    if item.kind == "extrapolation":
        inside = rng.uniform(-10, 10, size=n_train + n_test)
        parts = {"train": inside[:n_train], "test": inside[n_train:],
                 "extrapolation": rng.uniform(10, 20, size=200)}
        columns = {p: {"x1": np.sort(v)} for p, v in parts.items()}
    elif item.kind == "noise":
        # The datasets of a noise group share their inputs: only the noise differs.
        columns = {"train": {"x1": np.linspace(-8, 8, 50)}, "test": {"x1": shared_rng.uniform(-8, 8, size=n_test)}}
    else:
        atoms = [f for f in item.features if f not in item.extra.get("surrogates", ())]
        columns = {"train": {f: rng.uniform(-5, 5, n_train) for f in atoms},
                   "test": {f: rng.uniform(-5, 5, n_test) for f in atoms}}
        if item.kind == "local_optima":
            for part in columns.values():
                c = part
                for name, value in (("x5", 0.8 * c["x1"] * c["x2"]), ("x6", 1.5 * c["x3"] * c["x4"])):
                    c[name] = _with_noise(value, 0.1, rng)
    frames = {}
    sizes = {p: len(next(iter(c.values()))) for p, c in columns.items()}
    y_all = np.concatenate([item.function(columns[p]) for p in columns])
    y_all = _with_noise(y_all, item.noise_level, rng)
    start = 0
    for partition, c in columns.items():
        frame = pd.DataFrame({f: c[f] for f in item.features})
        frame["y"] = y_all[start:start + sizes[partition]]
        start += sizes[partition]
        frames[partition] = frame
    return frames


def write_property_data(directory: str | Path, *, seed: int = 0) -> dict:
    """Write the data files of :func:`srdash.io.datasets.write_property_datasets`; return their descriptions.

    Parameters
    ----------
    directory : path-like
        Created if needed; ``<name>_<partition>.csv`` files of the same names are replaced.
    seed : int
        Seed of the random numbers; the same seed writes the same files.

    Returns
    -------
    dict
        The descriptions document (format: :mod:`srdash.io.datasets`), not yet written or validated.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    root_rng = np.random.default_rng(seed)
    streams = root_rng.spawn(len(_GENERATED))
    entries = []
    for item, rng in zip(_GENERATED, streams):
        frames = _generate(item, rng, np.random.default_rng([seed, 1]))
        files = {}
        for partition, frame in frames.items():
            file = f"{item.name}_{partition}.csv"
            write_csv(frame, folder / file, index=False, float_format="%.10g")
            files[partition] = file
        entry = {"name": item.name, "property": item.kind, "files": files, "target": "y",
                 "features": list(item.features), "truth": item.truth, "noise_level": item.noise_level}
        entry.update({k: list(v) if isinstance(v, tuple) else v for k, v in item.extra.items()})
        entry["description"] = item.description
        entries.append(entry)
    document = {
        "description": f"Property datasets written by srdash (seed {seed}): exact formulas, irrelevant "
                       "features, surrogate features, an extrapolation partition and one function at "
                       "four noise levels.",
        "datasets": entries,
    }
    return document
