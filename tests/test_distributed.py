"""Scoring on a real Dask cluster (``distributed.LocalCluster``, 2 worker processes).

What must hold on a cluster as on a laptop: the same components for the same
models, the hard per-task time limit (Dask itself cannot stop a running task:
the limit is enforced by a killable subprocess inside the task), and the memory
limit (a runaway task marks the task, and the Dask worker carries on).
"""

from __future__ import annotations

import contextlib
import logging
import math
import time

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

from busy_machine import busy_machine  # noqa: E402
from srdash.expressions.distributed import SCHEDULER_VARIABLE, DaskWorkerPool, resolve_scheduler  # noqa: E402
from srdash.errors import SrdashError  # noqa: E402

# Generous bounds: these machines are shared, and a kill must only be "prompt", not exact.
KILL_SLACK = 20.0


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as local_cluster:
        yield local_cluster


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster, set_as_default=False) as connected:
        yield connected


def _transitions(client) -> int:
    return client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_counter)


# --------------------------------------------------------------------------- choosing the scheduler


def test_resolve_scheduler_reads_the_environment_and_validates():
    assert resolve_scheduler(None, environ={SCHEDULER_VARIABLE: " tcp://h:8786 "}) == "tcp://h:8786"
    assert resolve_scheduler("tcp://h:8786", environ={}) == "tcp://h:8786"
    assert resolve_scheduler(False, environ={SCHEDULER_VARIABLE: "tcp://h:8786"}) is None
    assert resolve_scheduler(None, environ={SCHEDULER_VARIABLE: "  "}) is None
    with pytest.raises(SrdashError, match=r"must look like tcp://HOST:PORT .* Got 'h:8786' \(from the "
                                          r"SRDASH_SCHEDULER environment variable\)\."):
        resolve_scheduler(None, environ={SCHEDULER_VARIABLE: "h:8786"})
    with pytest.raises(SrdashError, match=r"Got 'tcp://h'\.$"):
        resolve_scheduler("tcp://h")
    with pytest.raises(SrdashError, match=r"an address such as tcp://HOST:PORT or a distributed.Client\. Got int\."):
        resolve_scheduler(8786)


def test_unreachable_scheduler_is_a_clear_error():
    with pytest.raises(SrdashError, match=r"Cannot connect to the Dask scheduler at tcp://127.0.0.1:9 within 2 s .*"
                                          r"`dask scheduler`"):
        with DaskWorkerPool(math.sqrt, scheduler="tcp://127.0.0.1:9", connect_timeout=2):
            pass


# --------------------------------------------------------------------------- limits on the cluster


def test_hard_time_limit_holds_on_the_cluster(cluster):
    with DaskWorkerPool(sum, scheduler=cluster.scheduler_address, time_limit=1.0) as pool:
        started = time.monotonic()
        pool.submit("stuck", range(10**13))  # hours of CPU time in one C call: only a kill stops it
        pool.submit("quick", range(10))
        results = {r.task_id: r for r in pool.results()}
        elapsed = time.monotonic() - started
        assert results["quick"].outcome == "returned"
        assert results["stuck"].outcome == "killed"
        assert results["stuck"].error == "killed after the hard limit of 1 s of CPU time"
        assert 1.0 <= results["stuck"].cpu_seconds < 1.0 + KILL_SLACK
        assert elapsed < 600  # the endless task was stopped, not waited for
        # the killed subprocess was replaced: the same pool keeps working
        pool.submit("after", range(3))
        assert [r.value for r in pool.results()] == [3]


def test_memory_limit_marks_the_task_and_the_worker_survives(cluster):
    with DaskWorkerPool(bytearray, scheduler=cluster.scheduler_address, time_limit=60,
                        memory_limit=1 * 2**30) as pool:
        pool.submit("runaway", 8 * 2**30)
        (runaway,) = pool.results()
        assert (runaway.outcome, runaway.error) == ("raised", "MemoryError: ")
        pool.submit("small", 10)
        (small,) = pool.results()
        assert small.outcome == "returned" and small.value == bytearray(10)


def test_pool_accepts_a_client_and_leaves_it_open(client):
    with DaskWorkerPool(math.sqrt, scheduler=client, time_limit=30) as pool:
        for i in (4, 9, 16):
            pool.submit(i, i)
        assert sorted((r.task_id, r.value) for r in pool.results()) == [(4, 2.0), (9, 3.0), (16, 4.0)]
    assert client.status == "running"


# --------------------------------------------------------------------------- same components as sequential


@pytest.fixture(scope="module")
def demo_models():
    """Distinct (model, features) pairs of the demo: a spread of quick ones, repeated, plus failures."""
    from srdash.demo.competition import HOSTILE_MODEL, cached_demo
    from srdash.io.loading import load_results

    # the demo as the dashboard reads it (the shipped files, the generator's bytes: test_demo_fingerprint), not
    # generated again here (2.7 CPU-s)
    paths = cached_demo()
    results = load_results(paths["results"], datasets=paths["datasets"])
    table = results.table[results.table["method"] != "BloatGP"]  # BloatGP's models take seconds each
    distinct = table.drop_duplicates("model").sort_values(["dataset", "method", "run"])
    picked = distinct.iloc[:: max(1, len(distinct) // 16)]
    models = picked["model"].tolist() + [HOSTILE_MODEL, "x1 +* x2", None] + picked["model"].tolist()[:4]
    datasets = picked["dataset"].tolist() + ["noise_base"] * 3 + picked["dataset"].tolist()[:4]
    features = [results.features[d] for d in datasets]
    slow = results.table[results.table["method"] == "BloatGP"]
    slowest = slow.loc[slow["model"].str.len().idxmax()]
    return models, features, (slowest["model"], results.features[slowest["dataset"]])


def test_cluster_components_identical_to_sequential(demo_models, cluster, client):
    from srdash.expressions import complexity_table

    models, features, _ = demo_models
    sequential = complexity_table(models, features=features, cache=False)
    before = _transitions(client)
    on_cluster = complexity_table(models, features=features, cache=False, scheduler=cluster.scheduler_address)
    assert _transitions(client) > before  # the work went through the cluster
    columns = ["components", "simplicity", "simplified", "status", "reason", "features_used"]
    pd.testing.assert_frame_equal(on_cluster[columns], sequential[columns])
    assert set(sequential["status"]) == {"ok", "rejected", "parse_error"}


@pytest.mark.parametrize("load", ["idle", "busy"])
def test_cluster_time_limit_gives_the_sequential_timeout(demo_models, cluster, load):
    # The limits count the task's CPU time: with every core kept busy by other processes, 'x1 + x2' is no
    # timeout at 0.2 s (it was, on a loaded machine, when the subprocess was killed on the wall clock).
    from srdash.expressions import complexity_table

    _, _, (slow_model, slow_features) = demo_models
    models = [slow_model, "x1 + x2"]
    with busy_machine() if load == "busy" else contextlib.nullcontext([]) as loops:
        sequential = complexity_table(models, features=[slow_features, None], timeout=0.2, cache=False)
        on_cluster = complexity_table(models, features=[slow_features, None], timeout=0.2, cache=False,
                                      scheduler=cluster.scheduler_address)
        assert all(loop.poll() is None for loop in loops)
    assert on_cluster["status"].tolist() == sequential["status"].tolist() == ["timeout", "ok"]
    pd.testing.assert_series_equal(on_cluster["components"], sequential["components"])
    # stopped by its CPU-time limit (the soft one), not waited for
    assert on_cluster.loc[0, "reason"].startswith("sympy.simplify did not finish within 0.2 s")


def test_scheduler_from_the_environment(demo_models, cluster, client, monkeypatch):
    from srdash.expressions import complexity_table

    models, features, _ = demo_models
    monkeypatch.setenv(SCHEDULER_VARIABLE, cluster.scheduler_address)
    before = _transitions(client)
    table = complexity_table(models[:3], features=features[:3], cache=False)
    assert _transitions(client) > before
    assert (table["status"] == "ok").all()


def _results_csv(path):
    pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0,
                  "model": ["x1 + x2", "x1*x1/x1", "exp(x1) + 0.0001*x2"],
                  "r2_test": [0.9, 0.8, 0.7], "property": 0.5}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("command", [["report", "--samples", "20"], ["score"], ["complexity"]])
def test_commands_simplify_on_the_scheduler(command, cluster, client, tmp_path, monkeypatch):
    import os

    from click.testing import CliRunner

    from srdash.cli import main

    monkeypatch.delenv(SCHEDULER_VARIABLE, raising=False)
    results = _results_csv(tmp_path / "results.csv")
    output = tmp_path / ("report.md" if command[0] == "report" else "out.csv")
    before = _transitions(client)
    result = CliRunner().invoke(main, [command[0], str(results), "-o", str(output), "--no-cache", *command[1:],
                                       "--scheduler", cluster.scheduler_address])
    assert result.exit_code == 0, result.output
    assert _transitions(client) > before  # the models were simplified on the cluster
    assert SCHEDULER_VARIABLE not in os.environ  # the option does not leak out of the command
    if command[0] == "report":  # x1*x1/x1 simplifies to x1, the simplest model: b wins
        assert "| 1 | b |" in output.read_text(encoding="utf-8")
    elif command[0] == "complexity":
        assert pd.read_csv(output)["components"].tolist() == [3.0, 1.0, 2.0]

    result = CliRunner().invoke(main, [command[0], str(results), "-o", str(output), "--no-cache",
                                       "--scheduler", "localhost:8786"])
    assert result.exit_code == 1
    assert "The Dask scheduler address must look like tcp://HOST:PORT" in result.output
