"""A served judge's page puts each detail card into the page only once the browser has scrolled near it
(srdash.apps.review.app.ReviewApp(cards_when_near=...), srdash.apps.panels.WhenNear): driven through the widgets,
the browser's "near" message sent as its NearScreen sends it, without a browser."""

from __future__ import annotations

import asyncio

import pytest

from srdash.apps.panels import WhenNear
from srdash.apps.review import ReviewApp
from srdash.apps.review.card import ModelCard
from srdash.judging.trust import TrustStore
from review_tables import sized_representatives as representatives



@pytest.fixture
def store(tmp_path):
    with TrustStore(tmp_path / "trust.sqlite", seed=5) as opened:
        yield opened


def near(beacon) -> None:
    """What a placeholder's front end (its NearScreen) sends once the browser has scrolled it near the screen."""
    beacon._handle_custom_msg({"event": "near"}, [])


def shown_places(app: ReviewApp) -> list:
    """What the displayed box shows of each card (after the overview's heading, the overview and "in detail")."""
    return list(app.cards_box.children[3:])


def test_served_the_box_holds_placeholders_and_a_near_card_appears_with_the_overview_s_entry(store):
    app = ReviewApp(representatives(1), store, judge="ann", figures_when_near=True)
    cards, places = app.cards["d000"], shown_places(app)
    assert app.comparisons["d000"] in app.cards_box.children
    assert not any(isinstance(child, ModelCard) for child in app.cards_box.children)
    beacons = [place.near_screen for place in places]
    assert [place.children for place in places] == [(beacon,) for beacon in beacons]
    assert [beacon.text for beacon in beacons] == [f"{card.label} in detail…" for card in cards]
    assert [place.content for place in places] == cards
    cards[1].rank_buttons.value = 2                     # the judge ranks in the overview, above
    assert store.history(judge="ann")["value"].tolist() == [2.0]
    assert "rank yet" in cards[0].problem.value         # the unshown card already says what is missing
    near(beacons[1])                                    # the judge scrolls to card 1
    assert places[1].children == (cards[1],) and places[1].shown
    assert cards[1].trust.value == 2 and "✓ saved" in cards[1].saved.value
    assert [place.shown for place in places] == [False, True, False]   # only that card
    near(beacons[1])                                    # a second view's message changes nothing
    assert places[1].children == (cards[1],)
    assert store.history(judge="ann")["value"].tolist() == [2.0]     # saved exactly once, on the press


def test_in_a_notebook_the_box_holds_the_cards_themselves(store):
    app = ReviewApp(representatives(1), store, judge="ann", figures_when_near=True, cards_when_near=False)
    assert shown_places(app) == app.cards["d000"]
    default = ReviewApp(representatives(1), store, judge="bob")   # a notebook's: figures and cards at once
    assert shown_places(default) == default.cards["d000"]


def test_a_card_built_ahead_and_scrolled_to_after_next_and_the_close_comes_locked_and_named(store):
    async def judge():
        app = ReviewApp(representatives(2), store, judge="ann", figures_when_near=True)
        app.cards["d000"][0].rank_buttons.value = 1  # the judge's first entry: the next dataset is built ahead
        await asyncio.sleep(0)
        hidden = next(box for box in app.dataset_boxes.children if box is not app.cards_box)
        assert list(hidden.children[3:]) == app.card_places["d001"]      # placeholders, hidden
        store.unblind(by="olga")                    # the organiser closes the review from their own page
        app.revealed = True
        app.next_button.click()
        await asyncio.sleep(0)
        return app

    app = asyncio.run(judge())
    places, cards = shown_places(app), app.cards["d001"]
    assert places == app.card_places["d001"] and not any(place.shown for place in places)
    near(places[2].near_screen)
    assert places[2].children == (cards[2],)
    assert cards[2].trust.disabled and cards[2].rank_buttons.disabled
    assert cards[2].method in cards[2].title.value   # revealed while it waited
