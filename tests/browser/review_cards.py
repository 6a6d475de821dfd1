"""A judge's detail cards in the browser: a served review puts each card into the page only once the browser has
scrolled near its place (srdash.apps.panels.WhenNear); a test that needs the cards scrolls to them, as a judge does.
"""

from __future__ import annotations

import pytest

expect = pytest.importorskip("playwright.sync_api").expect

#: Each shown card's place: its placeholder until scrolled to, then the card (``.srdash-card``) inside it.
PLACES = ".srdash-card-later:visible"

# Scroll the page so that the element's top is 50 px inside the bottom of the window (or as near as the page
# scrolls). Inside the window: the lab template scrolls inside its own container, which clips what the browser
# sees to the window, NearScreen's 200 px margin (of the window) notwithstanding. Returns where the page was.
_SCROLL_NEAR_JS = """(element) => {
  let scroller = element.parentElement;
  while (scroller && !(scroller.scrollHeight > scroller.clientHeight
                       && ['auto', 'scroll'].includes(getComputedStyle(scroller).overflowY))) {
    scroller = scroller.parentElement;
  }
  scroller = scroller || document.scrollingElement;
  const was = scroller.scrollTop;
  scroller.scrollTop += element.getBoundingClientRect().top - (window.innerHeight - 50);
  return was;
}"""
_SCROLL_BACK_JS = """([element, top]) => {
  let scroller = element.parentElement;
  while (scroller && !(scroller.scrollHeight > scroller.clientHeight
                       && ['auto', 'scroll'].includes(getComputedStyle(scroller).overflowY))) {
    scroller = scroller.parentElement;
  }
  (scroller || document.scrollingElement).scrollTop = top;
}"""


def scroll_to_cards(page, n: int, *, timeout: float = 120_000) -> None:
    """Scroll to each of the shown dataset's ``n`` detail cards until each is in the page, then back to where the
    page was. A card already in the page is passed by; one that never comes fails the test.

    From the last card up: each card comes at the bottom of the window, and the cards that came before it move
    down with it, so that no card's figures come into the window (plotly's drawing: most of a card's cost).
    """
    places = page.locator(PLACES)
    expect(places).to_have_count(n, timeout=timeout)
    start = None
    for i in reversed(range(n)):
        card = places.nth(i).locator(".srdash-card")
        if card.count():
            continue
        was = places.nth(i).evaluate(_SCROLL_NEAR_JS)
        start = was if start is None else start
        expect(card).to_be_visible(timeout=timeout)
    if start is not None:
        page.evaluate(_SCROLL_BACK_JS, [places.first.element_handle(), start])
    expect(page.locator(".srdash-card:visible")).to_have_count(n, timeout=timeout)
