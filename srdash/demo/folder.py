"""The demo written as a competition folder: results, dataset table, qualification stage, data files and their
descriptions, ``competition.toml`` and the real-world track's trust store (:func:`write_demo`)."""

from __future__ import annotations

from pathlib import Path

from srdash.demo.generate import demo_qualification, generate_demo
from srdash.errors import SrdashError
from srdash.io.csvsafe import write_csv
from srdash.io.datasets import load_dataset_table, write_descriptions
from srdash.judging.trust import TrustStore

__all__ = ["demo_descriptions", "write_demo", "write_demo_store", "DEMO_COMPETITION_FILE", "DEMO_REALWORLD_DATASETS",
           "DEMO_EXPERT", "DEMO_EXPERT_RANKS"]


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
    paths = write_demo(directory, seed=seed)
    return load_dataset_table(paths["descriptions"])


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
    >>> from srdash.demo.generate import demo_competition
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = write_demo(folder)
    ...     loaded = load_results(paths["results"], datasets=paths["datasets"])
    >>> list(paths)[:5]
    ['results', 'datasets', 'descriptions', 'qualification', 'exact_formula_easier_train']
    >>> loaded.table.equals(demo_competition().table)
    True
    """
    results, dataset_table, datasets = generate_demo(seed)
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
    path = Path(path)
    if path.exists():
        return path
    with TrustStore(path, seed=seed) as store:
        for dataset in DEMO_REALWORLD_DATASETS:
            for method, rank in DEMO_EXPERT_RANKS.items():
                store.record(DEMO_EXPERT, dataset, method, kind="rank", value=float(rank))
    return path
