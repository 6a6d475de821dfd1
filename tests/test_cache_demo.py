"""Prepared once, reused by every visitor: the dashboard's preparation and the demo's shipped results.

Each visitor of a served competition gets a fresh kernel that builds the
dashboard (``Dashboard.from_environment``); here each "visitor" is a fresh
Python process doing the same, with the server's cache folder. The work is
counted where it happens: worker pools started (simplification, equivalence
checks: the WorkerPool of srdash.expressions.complexity and .equivalence) and models evaluated on data
(srdash.expressions.evaluate_model).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from srdash import expressions
from srdash.demo.competition import cached_demo
from srdash.demo.prepared import load_prepared, seed_cache
from srdash.cache import ResultCache

REPO = Path(__file__).resolve().parent.parent

VISITOR = textwrap.dedent("""
    import json, sys
    import srdash.expressions as ex
    import srdash.expressions.complexity as complexity
    import srdash.expressions.equivalence as equivalence

    work = {"pools": 0, "evaluated": 0}
    Pool, evaluate = complexity.WorkerPool, ex.evaluate_model

    class CountingPool(Pool):
        def __init__(self, *args, **kwargs):
            work["pools"] += 1
            super().__init__(*args, **kwargs)

    def counting_evaluate(*args, **kwargs):
        work["evaluated"] += 1
        return evaluate(*args, **kwargs)

    complexity.WorkerPool = equivalence.WorkerPool = CountingPool
    ex.evaluate_model = counting_evaluate
    from srdash.apps.dashboard import Dashboard

    app = Dashboard.from_environment(served=False)  # no browser here: do not wait for one
    assert app.wait(600), "the preparation did not finish"
    assert app.verdict is not None, app.log_panel.value if hasattr(app.log_panel, "value") else "no verdict"
    print(json.dumps({**work, "leaderboard": app.verdict.leaderboard["method"].tolist(),
                      "statuses": app.runs["status"].value_counts().sort_index().to_dict()}))
""")


def _visit(tmp_path: Path, environment: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    env.update({"PYTHONPATH": str(REPO), "SRDASH_CACHE_DIR": str(tmp_path / "server-cache"), **environment})
    done = subprocess.run([sys.executable, "-c", VISITOR], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def demo_files(tmp_path_factory) -> dict:
    return cached_demo(cache_dir=tmp_path_factory.mktemp("demo"), seed_prepared=False)


@pytest.mark.slow
def test_a_second_visitor_of_a_served_competition_does_no_preparation_work(tmp_path, demo_files):
    # A small competition that is not the demo (nothing shipped for it): an exact-formula dataset and a
    # feature-selection one, two methods, one run each: 4 models to simplify, evaluate and check.
    from srdash.judging.competition import competition_from_options

    table = pd.read_csv(demo_files["results"])
    chosen = table[table["dataset"].isin(["exact_formula_easier", "featureselection_easy"])
                   & table["method"].isin(["ExactSR", "LassoSR"]) & (table["run"] < 1)]
    assert len(chosen) == 4
    results = tmp_path / "results.csv"
    chosen.to_csv(results, index=False)
    competition = competition_from_options(results, descriptions=demo_files["descriptions"], jobs=1)
    environment = {"SRDASH_COMPETITION": competition.to_json()}  # what `srdash serve` gives every visitor

    first = _visit(tmp_path, environment)
    assert first["pools"] >= 1 and first["evaluated"] >= 1  # the first visitor prepares
    second = _visit(tmp_path, environment)
    assert (second["pools"], second["evaluated"]) == (0, 0)  # the second only reads the cache
    assert second["leaderboard"] == first["leaderboard"] and second["statuses"] == first["statuses"]


@pytest.mark.slow
def test_the_demo_needs_no_sympy_work_on_a_fresh_install(tmp_path):
    visitor = _visit(tmp_path, {})  # no input: the demo, in an empty cache folder
    assert (visitor["pools"], visitor["evaluated"]) == (0, 0)
    assert sum(visitor["statuses"].values()) > 500


# --------------------------------------------------------------------------- the shipped results are right


class _NoWorkers:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a worker pool was started: the shipped prepared results do not cover this "
                             "question; regenerate them with `python -m srdash.demo.prepared`")


def test_the_shipped_results_are_for_this_sympy():
    document = load_prepared()
    assert document["sympy"] == expressions.complexity.sympy.__version__, (
        "srdash/demo/prepared.json.gz was made with another sympy: regenerate it with "
        "`python -m srdash.demo.prepared`")
    kinds = pd.Series([row[0] for row in document["rows"]]).value_counts().to_dict()
    # "measure": what the other presets of the dashboard's Rules dropdown count (tree nodes, rounded nodes, R² on
    # the data), so that choosing one measures nothing on the demo
    assert set(kinds) == {"complexity", "equivalence", "evaluation", "measure"}


def test_the_shipped_demo_files_are_what_the_generator_writes(demo_files):
    # The demo opens without generating its files (2 s of scikit-learn): srdash ships the generator's output for
    # seed 0. The generator must still write exactly those bytes (else: python -m srdash.demo.prepared).
    from srdash.demo.prepared import shipped_demo_files

    names, files = shipped_demo_files()
    demo_files = {name: path for name, path in demo_files.items() if name != "trust"}  # SQLite: written, not shipped
    assert names == {name: path.name for name, path in demo_files.items()}
    for name, path in demo_files.items():
        assert files[path.name] == path.read_bytes(), f"{path.name} differs from the shipped copy"


def test_a_fresh_demo_is_written_from_the_shipped_files(tmp_path, monkeypatch):
    from srdash.demo import cached as demo  # where cached_demo looks write_demo up

    def no_generation(*args, **kwargs):
        raise AssertionError("the demo was generated although its files are shipped")

    monkeypatch.setattr(demo, "write_demo", no_generation)
    paths = cached_demo(cache_dir=tmp_path)
    table = pd.read_csv(paths["results"])
    assert len(table) == 684 and table["method"].nunique() == 7  # the demo: 7 methods, 10 datasets
    assert sorted(table["dataset"].unique())[0] == "exact_formula_easier"


def test_a_recomputed_sample_equals_the_shipped_results(tmp_path, demo_files, monkeypatch):
    from srdash.io.datasets import load_dataset_table
    from srdash.judging.evaluation import evaluate_runs

    table = pd.read_csv(demo_files["results"])
    datasets = pd.read_csv(demo_files["datasets"]).set_index("dataset")
    descriptions = load_dataset_table(demo_files["descriptions"])
    # Every 37th distinct (dataset, model) of the qualified methods: 8 models of all kinds of datasets.
    distinct = table[table["method"] != "MeanBaseline"].drop_duplicates(["dataset", "model"])
    sample = distinct.iloc[::37]
    assert len(sample) >= 6
    features = [datasets.loc[d, "features"].split() for d in sample["dataset"]]
    exact = distinct[distinct["dataset"].str.startswith("exact_")].iloc[::17]
    truths = [descriptions[d].truth for d in exact["dataset"]]
    exact_features = [descriptions[d].features for d in exact["dataset"]]

    shipped = ResultCache(tmp_path / "shipped")
    assert seed_cache(shipped) == len(load_prepared()["rows"])
    with monkeypatch.context() as patch:
        patch.setattr(expressions.complexity, "WorkerPool", _NoWorkers)
        patch.setattr(expressions.equivalence, "WorkerPool", _NoWorkers)
        from_shipped = expressions.complexity_table(sample["model"], features=features, cache=shipped)
        verdicts_shipped = expressions.equivalence_table(exact["model"].tolist(), truths, features=exact_features,
                                                         timeout=10.0, cache=shipped)
        evaluated_shipped = evaluate_runs(sample, descriptions, cache=shipped)
    assert from_shipped.attrs["cache"]["from_cache"] == len(sample)

    recomputed = expressions.complexity_table(sample["model"], features=features, cache=False, jobs=2)
    columns = ["components", "simplicity", "simplified", "status", "features_used"]
    pd.testing.assert_frame_equal(from_shipped[columns], recomputed[columns])
    assert verdicts_shipped == expressions.equivalence_table(exact["model"].tolist(), truths, features=exact_features,
                                                             timeout=10.0, jobs=2)
    pd.testing.assert_frame_equal(evaluated_shipped.metrics, evaluate_runs(sample, descriptions).metrics)
    shipped.close()


def test_the_demo_format_changes_with_the_shipped_files():
    # The built-in demo is written once per srdash version and DEMO_FORMAT (its folder's name): files that change
    # without a new format would leave an earlier checkout's demo, and its other fingerprint, in users' caches
    # (found after the exact LinearRegression: the cached demo still judged 5a22d15d7ff4, `srdash demo -o`
    # f38b862a1495).
    import hashlib

    from srdash.demo.competition import DEMO_FORMAT
    from srdash.demo.prepared import shipped_demo_files

    _, files = shipped_demo_files()
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name] + b"\0")
    # when the files change: bump DEMO_FORMAT and put the new pair here
    assert (DEMO_FORMAT, digest.hexdigest()[:16]) == (3, "310a4f9389719061")
