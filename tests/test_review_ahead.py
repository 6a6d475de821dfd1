"""A judge's "Next dataset" shows cards built while they read (srdash.apps.review.app.ReviewApp), and the review's
bookkeeping stays cheap at SRBench's size (122 datasets): driven through the widgets, inside a running asyncio loop as
a kernel's handlers are, without a browser."""

from __future__ import annotations

import asyncio

import pytest

from srdash.apps.review import ReviewApp
from srdash.judging.trust import TrustStore
from review_tables import sized_representatives as representatives



@pytest.fixture
def store(tmp_path):
    with TrustStore(tmp_path / "trust.sqlite", seed=5) as opened:
        yield opened


def test_after_an_entry_the_next_dataset_is_built_while_the_judge_reads_and_next_shows_it(store):
    async def judge() -> tuple:
        app = ReviewApp(representatives(4), store, judge="ann")
        await asyncio.sleep(0)
        assert list(app.cards) == ["d000"]            # the page's build schedules nothing: it may be loading
        app.cards["d000"][0].trust.value = 1          # the judge's first entry: their page is live
        assert list(app.cards) == ["d000"]            # not within the entry's handler ...
        await asyncio.sleep(0)
        assert list(app.cards) == ["d000", "d001"]    # ... but right after it, on the same loop
        ahead = app.cards["d001"]
        app.next_button.click()
        shown = [child for child in app.cards_box.children if child in ahead]
        await asyncio.sleep(0)
        return app, ahead, shown

    app, ahead, shown = asyncio.run(judge())
    assert app.dataset == "d001" and shown == ahead  # the very cards built ahead, not new ones
    assert list(app.cards) == ["d000", "d001", "d002"]  # and the press built the following dataset's
    assert "Dataset 2 of 4: d001" in app.dataset_info.value


def test_without_a_running_loop_nothing_is_built_ahead(store):
    app = ReviewApp(representatives(3), store, judge="ann")
    app.cards["d000"][0].trust.value = 1
    assert list(app.cards) == ["d000"]
    app.next_button.click()
    assert list(app.cards) == ["d000", "d001"]      # built when shown, as before


def test_cards_built_ahead_are_locked_when_shown_after_the_review_closed(store):
    async def judge():
        app = ReviewApp(representatives(2), store, judge="ann")
        app.cards["d000"][0].trust.value = 1
        await asyncio.sleep(0)
        assert not app.cards["d001"][0].trust.disabled  # built while the review was open
        store.unblind(by="olga")                      # the organiser closes it from their own page
        app.next_button.click()
        return app

    app = asyncio.run(judge())
    assert app.dataset == "d001" and all(card.trust.disabled for card in app.cards["d001"])


def test_an_entry_asks_the_store_for_each_datasets_labels_once_at_srbench_size(store, monkeypatch):
    app = ReviewApp(representatives(122), store, judge="ann")
    asked = []
    labels = store.blinded_labels
    monkeypatch.setattr(store, "blinded_labels", lambda *a, **k: (asked.append(a[1]), labels(*a, **k))[1])
    app.cards["d000"][0].trust.value = 1
    # the progress line checks the 122 datasets once each; the shown dataset's cards once more
    assert len(asked) == 123 and sorted(set(asked)) == [f"d{d:03d}" for d in range(122)]
    assert "Your progress: 0 of 122 datasets reviewed." in app.progress.value


def test_a_press_displays_the_box_built_ahead_and_the_hidden_box_then_holds_the_one_after(store):
    def boxes(app) -> tuple:
        shown = [box for box in app.dataset_boxes.children if box.layout.display != "none"]
        hidden = [box for box in app.dataset_boxes.children if box.layout.display == "none"]
        return shown, hidden

    async def judge() -> tuple:
        app = ReviewApp(representatives(4), store, judge="ann")
        shown, hidden = boxes(app)
        assert shown == [app.cards_box] and app.cards["d000"][0] in shown[0].children
        assert [c for c in hidden[0].children if c in app.cards.get("d001", [])] == []  # nothing ahead yet
        app.cards["d000"][0].trust.value = 1
        await asyncio.sleep(0)                        # d001 built ahead, attached to the hidden box
        shown, hidden = boxes(app)
        assert [c for c in hidden[0].children if hasattr(c, "trust")] == app.cards["d001"]
        ahead_box = hidden[0]
        app.next_button.click()
        pressed = boxes(app)                          # within the press: the boxes swap, nothing is rebuilt
        await asyncio.sleep(0)
        return app, ahead_box, pressed, boxes(app)

    app, ahead_box, (shown_at_press, _), (shown, hidden) = asyncio.run(judge())
    assert shown_at_press == shown == [ahead_box] and app.cards_box is ahead_box
    assert [c for c in shown[0].children if hasattr(c, "trust")] == app.cards["d001"]
    assert app.comparisons["d001"] in shown[0].children
    assert [c for c in hidden[0].children if hasattr(c, "trust")] == app.cards["d002"]   # the one after, hidden
    assert len(app.dataset_boxes.children) == 2                 # the page holds two datasets' cards, never more
    assert "Dataset 2 of 4: d001" in app.dataset_info.value and app.dataset_picker.value == "d001"


def test_an_entry_on_a_card_is_saved_under_the_card_s_own_dataset_whichever_box_is_shown(store):
    # a hidden card cannot be reached in the browser (display: none; tests/browser/test_review_app.py checks it);
    # should a change reach one anyway, it is its own dataset's entry, never the shown dataset's
    async def judge():
        app = ReviewApp(representatives(3), store, judge="ann")
        app.cards["d000"][0].trust.value = 1
        await asyncio.sleep(0)
        hidden_card = app.cards["d001"][1]
        assert hidden_card not in app.cards_box.children and app.dataset == "d000"
        hidden_card.trust.value = 2
        app.previous_button.click()                   # d002: not built ahead, built when shown
        await asyncio.sleep(0)
        app.cards["d002"][0].trust.value = 3
        return app

    app = asyncio.run(judge())
    entries = store.entries()[["dataset", "method", "value"]]
    assert entries.values.tolist() == [["d000", app.cards["d000"][0].method, 1.0],
                                       ["d001", app.cards["d001"][1].method, 2.0],
                                       ["d002", app.cards["d002"][0].method, 3.0]]
    assert app.dataset == "d002" and "Dataset 3 of 3: d002" in app.dataset_info.value
