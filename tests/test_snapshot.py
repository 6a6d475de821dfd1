"""A competition prepared once (srdash.judging.snapshot): reused whole, checked, never stale, never trusted blindly."""

from __future__ import annotations

import dataclasses
import pickle
import sqlite3
import threading
import time
import warnings

import pandas as pd
import pytest

from srdash.expressions import complexity, equivalence
from srdash.cache import ResultCache
from srdash.judging import snapshot
from srdash.judging.competition import competition_from_options
from srdash.judging.pipeline import judge_prepared, prepare_competition, prepared_from_snapshot

PLOTLY = "application/vnd.plotly.v1+json"
# Two methods on two datasets, one run each; the models are simplified by sympy (no components given).
RESULTS = pd.DataFrame({
    "method": ["a", "b", "a", "b"],
    "dataset": ["d1", "d1", "d2", "d2"],
    "r2_test": [0.91, 0.85, 0.72, 0.80],
    "model": ["x1 + x1", "0.5*x1*x1 + 1", "x1*x2", "x1 + x2 + x1*x2*x2"],
    "property": [0.5, 0.4, 0.3, 0.2],
})


class _NoWorkers:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a worker pool was started: the snapshot was not used")


@pytest.fixture
def competition(tmp_path):
    results = tmp_path / "results.csv"
    RESULTS.to_csv(results, index=False)
    return competition_from_options(results, jobs=1, cache=str(tmp_path / "cache"))


def _cache(competition) -> ResultCache:
    return ResultCache(competition.simplification.cache)


def test_a_second_preparation_reads_the_snapshot_and_gives_the_same_verdict(competition, monkeypatch):
    first = judge_prepared(prepare_competition(competition))
    assert first.provenance["cache_misses"] == "4"  # the first preparation did the work (4 distinct models)
    monkeypatch.setattr(complexity, "WorkerPool", _NoWorkers)
    monkeypatch.setattr(equivalence, "WorkerPool", _NoWorkers)
    again = prepare_competition(competition)
    second = judge_prepared(again)
    assert second.fingerprint == first.fingerprint
    pd.testing.assert_frame_equal(again.runs, first.runs)
    assert "reused" in second.provenance["cache_snapshot"] and "cache_misses" not in second.provenance
    # the competition is the caller's (its workers and cache), not the one that prepared it
    assert again.competition is competition


def test_workers_and_cache_folder_do_not_change_the_key_but_the_time_limit_does(competition):
    more_workers = dataclasses.replace(competition, simplification=dataclasses.replace(
        competition.simplification, jobs=4))
    longer = dataclasses.replace(competition, simplification=dataclasses.replace(
        competition.simplification, timeout=20.0))
    assert snapshot.snapshot_key(more_workers) == snapshot.snapshot_key(competition)
    assert snapshot.snapshot_key(longer) != snapshot.snapshot_key(competition)


def test_one_changed_byte_of_an_input_means_a_new_preparation(competition, tmp_path):
    prepare_competition(competition)
    assert prepared_from_snapshot(competition) is not None
    path = tmp_path / "results.csv"
    path.write_text(path.read_text().replace("0.91", "0.95"))  # a's R2 on d1
    assert prepared_from_snapshot(competition) is None
    prepared = prepare_competition(competition)
    assert prepared.runs.loc[prepared.runs["method"].eq("a") & prepared.runs["dataset"].eq("d1"),
                             "r2_test"].item() == 0.95
    assert "snapshot" not in prepared.cache_stats  # prepared again (its rows came from the cache)


def test_a_changed_snapshot_is_not_used(competition):
    prepare_competition(competition)
    store = _cache(competition)
    with sqlite3.connect(store.path) as connection:
        (blob,) = connection.execute("SELECT value FROM snapshots_v1").fetchone()
        connection.execute("UPDATE snapshots_v1 SET value = ?", (bytes(blob)[:-1] + b"\0",))
    with store:
        assert snapshot.load_snapshot(competition, store) is None
        assert store.stats.as_dict()["by_kind"]["snapshot"]["tampered"] == 1
        assert store.get_snapshot(snapshot.snapshot_key(competition)) is None  # removed
    assert "snapshot" not in prepare_competition(competition).cache_stats


def test_a_signed_blob_still_builds_only_allowed_objects(competition, tmp_path):
    # Even a blob signed with the cache's own key (written through its API) may not call os.system.
    import os
    import zlib

    class Hostile:
        def __reduce__(self):
            return os.system, (f"touch {tmp_path / 'pwned'}",)

    key = snapshot.snapshot_key(competition)
    manifest = {"format": snapshot.SNAPSHOT_FORMAT, "created": time.time(), "files": {}, "warnings": []}
    with _cache(competition) as store:
        store.put_snapshot(key, manifest, zlib.compress(pickle.dumps(Hostile())))
        assert snapshot.load_snapshot(competition, store) is None
    assert not (tmp_path / "pwned").exists()


def test_a_preparation_with_uncached_results_is_not_kept(competition):
    prepared = prepare_competition(competition)
    # e.g. a model killed by the wall clock (the machine's load): computed, not stored
    partial = dataclasses.replace(prepared, cache_stats={"by_kind": {"complexity": {"misses": 4, "stored": 3}}})
    with _cache(competition) as store:
        store.forget_snapshot(snapshot.snapshot_key(competition))
        assert not snapshot.store_snapshot(competition, partial, store)
        assert snapshot.load_snapshot(competition, store) is None


def test_retry_timeouts_never_uses_a_snapshot(competition):
    prepare_competition(competition)
    retrying = dataclasses.replace(competition, simplification=dataclasses.replace(
        competition.simplification, retry_timeouts=True))
    assert prepared_from_snapshot(retrying) is None
    assert "snapshot" not in prepare_competition(retrying).cache_stats


def test_warnings_of_the_preparation_are_raised_again(tmp_path):
    # Method names that differ by surrounding spaces are merged, with a warning, at every preparation.
    results = tmp_path / "results.csv"
    RESULTS.assign(method=["a", "b ", "a", "b"]).to_csv(results, index=False)
    competition = competition_from_options(results, jobs=1, cache=str(tmp_path / "cache"))
    with warnings.catch_warnings(record=True) as first:
        warnings.simplefilter("always")
        prepare_competition(competition)
    with warnings.catch_warnings(record=True) as second:
        warnings.simplefilter("always")
        reused = prepare_competition(competition)
    assert "snapshot" in reused.cache_stats
    assert [str(w.message) for w in first if "trimming" in str(w.message)]
    assert [str(w.message) for w in second] == [str(w.message) for w in first]
    assert [w.category for w in second] == [w.category for w in first]


def test_one_preparer_at_a_time_the_other_waits_then_reads(competition):
    store = _cache(competition)
    waited = []
    order = []

    def second():
        with snapshot.preparing(competition, _cache(competition), waiting=lambda: waited.append(True)):
            order.append("second")

    with snapshot.preparing(competition, store):
        assert snapshot.being_prepared(competition, _cache(competition))
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.3)
        order.append("first")
    thread.join(10)
    assert order == ["first", "second"] and waited == [True]
    assert not snapshot.being_prepared(competition, store)


def test_a_dashboard_shows_a_prepared_competition_at_once(competition):
    from srdash.apps.dashboard import Dashboard

    expected = judge_prepared(prepare_competition(competition))
    app = Dashboard(competition)
    # no background work: the verdict is there when the constructor returns
    assert not app.busy and app.result.fingerprint == expected.fingerprint
    assert "prepared competition read in" in app.progress.label.value
    assert app.heatmap.outputs[0]["data"]["text/plain"].startswith("<plotly figure")


def test_a_served_dashboard_draws_its_figures_once_the_page_is_displayed_and_they_are_near_the_screen(
        competition):
    from srdash.apps.dashboard import Dashboard

    prepare_competition(competition)
    app = Dashboard(competition, served=True)
    assert app.verdict is not None and "Ready in" in app.progress.label.value  # the text is complete
    assert app.heatmap.outputs[0]["data"]["text/plain"] == "Drawing the per-dataset ranks…"
    app.page_ready._on_message(app.page_ready, {"event": "displayed"}, [])  # the browser's beacon
    # each figure waits in a placeholder of its height until the browser sees it near the window
    for panel in (app.heatmap, app.curve):
        view = panel.outputs[0]["data"]["application/vnd.jupyter.widget-view+json"]
        assert view["model_id"] == panel.near_screen.model_id
    waiting_height = app.heatmap.near_screen.layout.min_height
    app.heatmap.near_screen._handle_custom_msg({"event": "near"}, [])   # the heatmap's placeholder speaks
    assert app.heatmap.outputs[0]["data"]["text/plain"].startswith("<plotly figure")
    # the placeholder was as high as the figure that replaced it: the page does not jump
    assert waiting_height == f"{app.heatmap.outputs[0]['data'][PLOTLY]['layout']['height']}px"
    assert "application/vnd.jupyter.widget-view+json" in app.curve.outputs[0]["data"]  # the curve still waits


def test_the_snapshot_format_keeps_a_prepared_competition_exactly_and_refuses_what_it_cannot(competition):
    import numpy as np

    prepared = prepare_competition(competition)
    bare = dataclasses.replace(prepared, competition=None, trust_entries=None)
    back = snapshot.loads(snapshot.dumps(bare))
    pd.testing.assert_frame_equal(back.runs, prepared.runs, check_exact=True)
    assert [type(v) for v in back.runs["model"]] == [type(v) for v in prepared.runs["model"]]
    mixed = pd.DataFrame({"text": pd.Series(["a", None, np.nan], dtype=object), "n": [1, 2, 3]})  # None, NaN apart
    again = snapshot.loads(snapshot.dumps({"frame": mixed, "t": (1, np.int64(2), float("inf"))}))
    assert again["frame"]["text"].iloc[1] is None and np.isnan(again["frame"]["text"].iloc[2])
    assert again["t"] == (1, 2, float("inf")) and type(again["t"][1]) is np.int64
    with pytest.raises(TypeError, match="a snapshot does not keep"):
        snapshot.dumps({"model": __import__("sympy").Symbol("x")})   # not data: no snapshot is written
