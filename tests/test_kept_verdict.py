"""A verdict kept with the prepared competition (srdash.judging.kept_verdict) and the leaderboard's panel kept with
it (srdash.apps.board_view): read back bit for bit, and judged again whenever what is kept is stale or corrupt."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pandas as pd
import pytest

import srdash.judging.kept_verdict as kept_verdict
from srdash.apps import board_view
from srdash.demo.competition import cached_demo
from srdash.judging import snapshot
from srdash.judging.competition import load_competition
from srdash.judging.kept_verdict import kept_judgement, kept_verdict_key, load_kept_verdict
from srdash.judging.pipeline import judge_prepared, prepare_competition, prepared_from_snapshot

# The demo's verdict fingerprint, pinned by tests/test_move_unchanged.py (srdash score of the demo).
DEMO_FINGERPRINT = "f38b862a1495"


@pytest.fixture(scope="module")
def demo():
    competition = load_competition(cached_demo()["competition"])
    prepare_competition(competition)   # keeps the snapshot, as `srdash serve` does once
    found = prepared_from_snapshot(competition)
    assert found is not None
    return found.prepared


def _judged_again(monkeypatch) -> list:
    """Counts the judgements kept_judgement makes (a kept verdict read back makes none)."""
    calls = []

    def counted(prepared, **options):
        calls.append(options)
        return judge_prepared(prepared, **options)

    monkeypatch.setattr(kept_verdict, "judge_prepared", counted)
    return calls


def assert_same_result(kept, fresh) -> None:
    assert kept.fingerprint == fresh.fingerprint
    assert kept.tracks.keys() == fresh.tracks.keys()
    for name, verdict in fresh.tracks.items():
        other = kept.tracks[name]
        for table in ("leaderboard", "per_dataset", "problems"):
            pd.testing.assert_frame_equal(getattr(other, table), getattr(verdict, table), check_exact=True,
                                          check_column_type=True, check_index_type=True)
        assert other.warnings == verdict.warnings
        assert dict(other.provenance) == dict(verdict.provenance)
        assert other.criteria == verdict.criteria and other.rules == verdict.rules
        assert other.n_methods == verdict.n_methods


def _cache(prepared):
    return prepared.competition.simplification.open_cache()


def test_a_kept_verdict_is_the_fresh_judgement_bit_for_bit(demo, monkeypatch):
    fresh = judge_prepared(demo, refused_realworld="warn")
    assert fresh.fingerprint.startswith(DEMO_FINGERPRINT)
    kept_judgement(demo, refused_realworld="warn")          # judged, or read: kept either way
    calls = _judged_again(monkeypatch)
    kept = kept_judgement(demo, refused_realworld="warn")
    assert calls == []                                      # read back, not judged
    assert_same_result(kept, fresh)
    assert kept.prepared is demo and kept.competition is demo.competition


def test_a_stale_kept_verdict_is_judged_again(demo, monkeypatch, tmp_path):
    kept_judgement(demo, refused_realworld="warn")
    calls = _judged_again(monkeypatch)
    # other options, other trust entries, another refusal rule: each is another key, judged afresh
    min_ties = replace(demo, competition=replace(demo.competition, rules=demo.competition.rules.with_options(
        rank_method="min")))
    fewer = replace(demo, trust_entries=demo.trust_entries.iloc[:-1])
    for prepared, refused in ((min_ties, "warn"), (fewer, "warn"), (demo, "raise")):
        assert kept_verdict_key(prepared, refused_realworld=refused) != kept_verdict_key(demo, refused_realworld="warn")
        assert_same_result(kept_judgement(prepared, refused_realworld=refused),
                           judge_prepared(prepared, refused_realworld=refused))
    assert len(calls) == 3
    # a trust store without entries: whether it exists is in the refusal's words, so in the key
    competition = demo.competition
    store = tmp_path / "trust.sqlite"
    empty = replace(demo, trust_entries=demo.trust_entries.iloc[:0], competition=replace(
        competition, realworld=replace(competition.realworld, store=store)))
    absent = kept_verdict_key(empty, refused_realworld="warn")
    store.write_bytes(b"")
    assert kept_verdict_key(empty, refused_realworld="warn") != absent
    # a competition prepared afresh (not read from a snapshot) is never kept
    assert kept_verdict_key(replace(demo, cache_stats={}), refused_realworld="warn") is None


def test_a_corrupt_kept_verdict_is_judged_again_and_replaced(demo, monkeypatch):
    key = kept_verdict_key(demo, refused_realworld="warn")
    other = replace(demo, competition=replace(demo.competition, rules=demo.competition.rules.with_options(
        rank_method="max")))
    kept_judgement(demo, refused_realworld="warn")
    kept_judgement(other, refused_realworld="warn")
    cache = _cache(demo)
    try:
        # 1. a changed byte: the signature fails
        with sqlite3.connect(cache.path) as connection:
            connection.execute("UPDATE snapshots_v1 SET value = ? WHERE key = ?", (b"x" * 64, key))
        # 2. (after 1 is judged again) a signed verdict of other options put under this key
        calls = _judged_again(monkeypatch)
        assert_same_result(kept_judgement(demo, refused_realworld="warn"), judge_prepared(demo, refused_realworld="warn"))
        assert len(calls) == 1 and load_kept_verdict(demo, cache, refused_realworld="warn") is not None
        manifest, blob = cache.get_snapshot(kept_verdict_key(other, refused_realworld="warn"))
        cache.put_snapshot(key, manifest, blob)
        assert load_kept_verdict(demo, cache, refused_realworld="warn") is None   # never shown: removed
        assert cache.get_snapshot(key) is None
        # 3. its own key, but a leaderboard its fingerprint does not hold (places swapped)
        kept_judgement(demo, refused_realworld="warn")
        data = snapshot.loads(cache.get_snapshot(key)[1])
        board = data["main"]["leaderboard"]
        data["main"]["leaderboard"] = board.assign(method=board["method"].iloc[::-1].to_numpy())
        cache.put_snapshot(key, manifest, snapshot.dumps(data))
        assert load_kept_verdict(demo, cache, refused_realworld="warn") is None
    finally:
        cache.close()
    assert_same_result(kept_judgement(demo, refused_realworld="warn"), judge_prepared(demo, refused_realworld="warn"))
    assert len(calls) == 3   # after 1, to keep it again for 3, after 3


def test_the_refusal_option_is_checked(demo):
    with pytest.raises(ValueError, match="The 'refused_realworld' option must be one of 'raise', 'warn'. Got 'skip'."):
        kept_verdict_key(demo, refused_realworld="skip")


def test_the_leaderboard_panel_and_significance_are_kept_as_computed(demo, monkeypatch):
    result = kept_judgement(demo, refused_realworld="warn")
    panel = board_view.leaderboard_panel_html(result, result.verdict)
    sentence = board_view.significance_panel_html(result, result.verdict)
    assert "Nemenyi post-hoc" in panel and "runner-up" in sentence   # the resolution and the test are in them

    def refused(*args, **kwargs):
        raise AssertionError("computed again")

    monkeypatch.setattr(board_view, "shown_leaderboard", refused)
    monkeypatch.setattr(board_view, "significance_html", refused)
    assert board_view.leaderboard_panel_html(result, result.verdict) == panel
    assert board_view.significance_panel_html(result, result.verdict) == sentence
    monkeypatch.undo()
    # the same as computed without any cache
    bare = replace(result, competition=replace(result.competition, simplification=replace(
        result.competition.simplification, cache=False)))
    assert board_view.leaderboard_panel_html(bare, bare.verdict) == panel
    assert board_view.significance_panel_html(bare, bare.verdict) == sentence


def test_the_page_figures_are_kept_and_sent_byte_for_byte_as_drawn(demo, monkeypatch):
    import json

    from srdash.apps.panels import FigurePanel
    from srdash.figures.leaderboard import rank_heatmap, simplicity_curve

    result = kept_judgement(demo, refused_realworld="warn")
    verdict, runs, rules = result.verdict, result.runs, result.verdict.rules
    cache = result.competition.simplification.cache
    drawn = {"heatmap": rank_heatmap(verdict, criterion="accuracy"), "curve": simplicity_curve(runs)}

    def kept():
        return {"heatmap": board_view.kept_verdict_figure("rank heatmap", result, verdict,
                                                          lambda: rank_heatmap(verdict, criterion="accuracy"),
                                                          settings={"criterion": "accuracy"}),
                "curve": board_view.kept_figure("simplicity curve", lambda: simplicity_curve(runs), runs=runs,
                                                rules=rules, cache=cache)}

    first = kept()   # drawn and kept, or read
    monkeypatch.setattr(board_view.pio, "to_json", lambda *a, **k: pytest.fail("drawn again"))
    again = kept()   # read back: no figure drawn
    monkeypatch.undo()
    for name, figure in drawn.items():
        sent = []
        for shown in (figure, first[name], again[name]):
            panel = FigurePanel()
            panel.show(shown)
            sent.append(json.dumps(panel.outputs))
        assert sent[0] == sent[1] == sent[2]   # the same bytes reach the page
    other = board_view.kept_verdict_figure("rank heatmap", result, verdict, lambda: rank_heatmap(verdict),
                                           settings={"criterion": None})
    assert other != first["heatmap"]   # another criterion, another figure


def test_nothing_is_kept_for_rules_that_judge_submissions(demo):
    # evalrs2022 scores submissions with weighted meta-scores: `srdash serve` opens them in the sensitivity view
    from srdash.judging.rules import load_rules

    competition = replace(demo.competition, rules=load_rules("evalrs2022"))
    assert competition.rules.rule_kind.judges_submissions
    assert board_view.keep_first_page(competition) is False
