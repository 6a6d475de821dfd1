"""The result cache (srdash.cache): timeouts with their limit, integrity, hit counts."""

from __future__ import annotations

import json
import sqlite3

import pytest

from srdash import expressions
from srdash.expressions import complexity, equivalence
from srdash.expressions import complexity_table, equivalence_table
from srdash.cache import ResultCache, cache_key

# Takes several seconds of sympy.simplify: times out under a 1 s limit (as in tests/test_complexity.py).
SLOW_MODEL = "(x1 + 0.5)**7*(x2 - 1.3)**5/(x1*x2 + 0.7)**3 + sin(x1*x2)**3*cos(x1 - x2)**2"


class _NoWorkers:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a worker pool was started")


def _row(store: ResultCache, kind: str = "complexity") -> tuple:
    with sqlite3.connect(store.path) as connection:
        return connection.execute("SELECT key, status, value, time_limit, cpu_seconds FROM results_v2 "
                                  "WHERE kind = ?", (kind,)).fetchall()


# --------------------------------------------------------------------------- the reuse rules, on stored rows


@pytest.mark.parametrize(("stored", "limit", "retry", "found"), [
    # a timeout under 10 s also times out under 10 s or 5 s; under 20 s it may finish: computed again
    ("timeout", 10.0, False, True),
    ("timeout", 5.0, False, True),
    ("timeout", 20.0, False, False),
    ("timeout", 10.0, True, False),  # --retry-timeouts
    # a result that took 3 CPU seconds under a 10 s limit holds under any limit above 3 s
    ("ok", 20.0, False, True),
    ("ok", 4.0, False, True),
    ("ok", 2.0, False, False),
    ("ok", 10.0, True, True),  # retrying timeouts leaves finished results alone
])
def test_a_stored_row_answers_only_under_the_limits_it_holds_for(tmp_path, stored, limit, retry, found):
    with ResultCache(tmp_path) as store:
        store.put_many([("k", {"status": stored, "components": 3.0, "cpu_seconds": 3.0 if stored == "ok" else 10.0})],
                       limit=10.0)
        assert ("k" in store.get_many(["k"], limit=limit, retry_timeouts=retry)) is found
        assert store.stats.as_dict()["hits"] == int(found)


def test_rows_record_their_limit_and_cpu_seconds(tmp_path):
    with ResultCache(tmp_path) as store:
        store.put_many([("k", {"status": "timeout", "components": 9.0, "seconds": 12.5, "cpu_seconds": 10.01})],
                       limit=10.0)
        (key, status, _, limit, cpu), = _row(store)
        assert (key, status, limit, cpu) == ("k", "timeout", 10.0, 10.01)
        entry = store.get_many(["k"], limit=10.0)["k"]
        assert (entry["time_limit"], entry["cpu_seconds"], entry["seconds"]) == (10.0, 10.01, 12.5)


def test_stats_count_hits_misses_and_kinds(tmp_path):
    with ResultCache(tmp_path) as store:
        store.put_many([("a", {"status": "ok"}), ("b", {"status": "ok"})], kind="equivalence", limit=10.0)
        store.get_many(["a", "b", "c"], kind="equivalence", limit=10.0)
        store.get_many(["a"], kind="complexity", limit=10.0)  # another kind: not the same result
        stats = store.stats.as_dict()
    assert (stats["hits"], stats["misses"], stats["stored"]) == (2, 2, 2)
    assert stats["by_kind"]["equivalence"]["hits"] == 2 and stats["by_kind"]["complexity"]["misses"] == 1


# --------------------------------------------------------------------------- timeouts, end to end


def test_a_cached_timeout_is_not_retried_under_the_same_limit_but_is_under_a_longer_one(tmp_path, monkeypatch):
    path = tmp_path / "cache.sqlite"
    # The CPU-time limit stops the model, not the wall-clock backstop (5 s for a 1 s limit): on a loaded machine
    # (the suite's four workers on two cores) the worker could get less than 1 s of CPU in 5 s, be killed, and
    # keep no CPU seconds (a killed worker's are not known: stored as NULL). That path is
    # test_complexity's; here the backstop is out of reach.
    with monkeypatch.context() as patch:
        patch.setattr(complexity.ComplexitySettings, "hard_limit", property(lambda settings: 120.0))
        cold = complexity_table([SLOW_MODEL, "x1 + x2"], timeout=1.0, cache=path)
    assert cold["status"].tolist() == ["timeout", "ok"]
    assert cold.attrs["cache"] == {"rows": 2, "from_cache": 0, "computed": 2}
    with ResultCache(path) as store:
        statuses = {status: (limit, cpu) for _, status, _, limit, cpu in _row(store)}
    # Kept with its limit and the CPU seconds it had used: about the whole budget (1.0 s; 0.98-1.06 s seen, the
    # limit's timer and the task's clock count slightly different things).
    assert statuses["timeout"][0] == 1.0 and 0.5 < statuses["timeout"][1] < 5.0

    monkeypatch.setattr(complexity, "WorkerPool", _NoWorkers)  # any computation would fail the test
    monkeypatch.setattr(equivalence, "WorkerPool", _NoWorkers)
    warm = complexity_table([SLOW_MODEL, "x1 + x2"], timeout=1.0, cache=path)
    assert warm["status"].tolist() == ["timeout", "ok"] and warm["reason"].equals(cold["reason"])
    assert warm.attrs["cache"] == {"rows": 2, "from_cache": 2, "computed": 0}
    # A shorter limit would time out too: still no work.
    assert complexity_table([SLOW_MODEL], timeout=0.5, cache=path).attrs["cache"]["from_cache"] == 1
    # A longer limit might let it finish: computed again.
    with pytest.raises(AssertionError, match="a worker pool was started"):
        complexity_table([SLOW_MODEL], timeout=2.0, cache=path)
    # retry_timeouts: computed again under the same limit.
    with pytest.raises(AssertionError, match="a worker pool was started"):
        complexity_table([SLOW_MODEL], timeout=1.0, cache=path, retry_timeouts=True)
    with ResultCache(path, retry_timeouts=True) as store, pytest.raises(AssertionError, match="a worker pool"):
        complexity_table([SLOW_MODEL], timeout=1.0, cache=store)


def test_retried_timeout_replaces_the_row_with_the_new_limit(tmp_path):
    path = tmp_path / "cache.sqlite"
    complexity_table([SLOW_MODEL], timeout=0.5, cache=path)
    again = complexity_table([SLOW_MODEL], timeout=1.0, cache=path)
    assert again.attrs["cache"]["computed"] == 1 and again["status"].tolist() == ["timeout"]
    with ResultCache(path) as store:
        assert [limit for _, _, _, limit, _ in _row(store)] == [1.0]


# --------------------------------------------------------------------------- integrity


@pytest.mark.parametrize("change", ["value", "status", "limit", "mac"])
def test_a_tampered_row_is_not_used(tmp_path, change):
    path = tmp_path / "cache.sqlite"
    cold = complexity_table(["x1 + x2"], cache=path)
    statements = {
        "value": ("UPDATE results_v2 SET value = ?", json.dumps({"model": "x1 + x2", "components": 99.0,
                                                                 "simplified": "x1 + x2", "reason": "",
                                                                 "features_used": "x1 x2", "seconds": 0.1})),
        "status": ("UPDATE results_v2 SET status = ?", "rejected"),
        "limit": ("UPDATE results_v2 SET time_limit = ?", 1000.0),
        "mac": ("UPDATE results_v2 SET mac = ?", "0" * 64),
    }
    statement, value = statements[change]
    with sqlite3.connect(path) as connection:
        connection.execute(statement, (value,))
    with ResultCache(path) as store:
        warm = complexity_table(["x1 + x2"], cache=store)
        assert store.stats.as_dict()["tampered"] == 1
        assert warm.attrs["cache"]["computed"] == 1  # computed again, not read
        assert warm["components"].tolist() == cold["components"].tolist() == [3.0]
        # ... and the row is rewritten, signed: the next read is a plain hit.
        assert complexity_table(["x1 + x2"], cache=store).attrs["cache"]["from_cache"] == 1


def test_rows_signed_with_another_key_are_not_used(tmp_path):
    path = tmp_path / "cache.sqlite"
    complexity_table(["x1 + x2"], cache=path)
    (tmp_path / "cache.sqlite.key").write_bytes(b"k" * 32)  # another secret
    with ResultCache(path) as store:
        assert store.get_many([key for key, *_ in _row(store)]) == {}
        assert store.stats.as_dict()["tampered"] == 1


def test_the_key_file_is_private(tmp_path):
    with ResultCache(tmp_path) as store:
        len(store)
    assert (tmp_path / "complexity.sqlite.key").stat().st_mode & 0o077 == 0


def test_export_and_import_carry_rows_to_another_cache(tmp_path):
    with ResultCache(tmp_path / "a") as source:
        source.put_many([("k", {"status": "ok", "components": 3.0, "seconds": 0.1})], limit=10.0)
        rows = source.export_rows()
    with ResultCache(tmp_path / "b") as target:
        assert target.import_rows(rows) == 1 and target.import_rows(rows) == 0  # kept rows win
        assert target.get_many(["k"], limit=10.0)["k"]["components"] == 3.0


# --------------------------------------------------------------------------- equivalence verdicts


def test_equivalence_verdicts_are_cached(tmp_path, monkeypatch):
    truth = "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1"
    models = [f"{truth} + 2", f"3*({truth}) + 1", ""]
    path = tmp_path / "cache.sqlite"
    cold = equivalence_table(models, [truth] * 3, timeout=10.0, cache=path)
    assert [ok for ok, _ in cold] == [True, False, False]
    monkeypatch.setattr(complexity, "WorkerPool", _NoWorkers)
    monkeypatch.setattr(equivalence, "WorkerPool", _NoWorkers)
    with ResultCache(path) as store:
        warm = equivalence_table(models, [truth] * 3, timeout=10.0, cache=store)
        assert store.stats.as_dict()["hits"] == 2  # the missing model is settled without the cache
    assert warm == cold
    # Another ground truth is another question.
    with pytest.raises(AssertionError, match="a worker pool was started"):
        equivalence_table(models[:1], ["x1"], timeout=10.0, cache=path)


def test_an_equivalence_timeout_is_kept_with_its_limit(tmp_path, monkeypatch):
    path = tmp_path / "cache.sqlite"
    key = cache_key(SLOW_MODEL, None, {"procedure": equivalence.EQUIVALENCE_PROCEDURE,
                                       "sympy": equivalence.sympy.__version__, "truth": "x1"})
    detail = "not equivalent: the model simplifying it took longer than the time limit of 1 s"
    with ResultCache(path) as store:
        store.put_many([(key, {"status": "timeout", "equivalent": False, "detail": detail})], kind="equivalence",
                       limit=1.0)
    monkeypatch.setattr(complexity, "WorkerPool", _NoWorkers)
    monkeypatch.setattr(equivalence, "WorkerPool", _NoWorkers)
    assert equivalence_table([SLOW_MODEL], ["x1"], timeout=1.0, cache=path) == [(False, detail)]
    with pytest.raises(AssertionError, match="a worker pool was started"):
        equivalence_table([SLOW_MODEL], ["x1"], timeout=5.0, cache=path)
    with pytest.raises(AssertionError, match="a worker pool was started"):
        equivalence_table([SLOW_MODEL], ["x1"], timeout=1.0, cache=path, retry_timeouts=True)


# --------------------------------------------------------------------------- evaluation and qualification fits


def test_evaluation_metrics_are_cached_by_data_file_content(tmp_path, monkeypatch):
    import pandas as pd

    from srdash.io.datasets import write_property_datasets
    from srdash.judging.evaluation import evaluate_runs

    runs = pd.DataFrame({"method": ["truth", "line", "nan"], "dataset": "exact_easy",
                         "model": ["1.5*x1 - 0.5*x2 + 2", "1.5*x1", "log(x1 - 100)"]})
    table = write_property_datasets(tmp_path / "data", seed=0)
    with ResultCache(tmp_path / "cache") as store:
        cold = evaluate_runs(runs, table, cache=store)
        monkeypatch.setattr(expressions, "evaluate_model", _NoWorkers)  # any evaluation fails the test
        warm = evaluate_runs(runs, table, cache=store)
        pd.testing.assert_frame_equal(warm.metrics, cold.metrics)
        pd.testing.assert_frame_equal(warm.problems, cold.problems)
        assert store.stats.by_kind["evaluation"]["hits"] == 3
        # Other data in the same file: another question, computed again.
        path = table["exact_easy"].files["test"]
        data = pd.read_csv(path)
        data.loc[0, "y"] += 1.0
        data.to_csv(path, index=False)
        with pytest.raises(AssertionError, match="a worker pool was started"):
            evaluate_runs(runs, table, cache=store)


def test_qualification_baseline_fits_are_cached(tmp_path, monkeypatch):
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LinearRegression

    from srdash.judging.qualification import fit_baseline

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=60)})
    frame["target"] = 2 * frame["x"] + rng.normal(scale=0.5, size=60)
    with ResultCache(tmp_path) as store:
        cold = fit_baseline({"line": frame}, seeds=[0, 1], cache=store)

        def refuse(*args, **kwargs):
            raise AssertionError("a baseline was fitted")

        monkeypatch.setattr(LinearRegression, "fit", refuse)
        warm = fit_baseline({"line": frame}, seeds=[0, 1], cache=store)
        pd.testing.assert_frame_equal(warm, cold)
        other = frame.assign(target=frame["target"] + frame["x"])  # other data: fitted again
        with pytest.raises(AssertionError, match="a baseline was fitted"):
            fit_baseline({"line": other}, seeds=[0], cache=store)
