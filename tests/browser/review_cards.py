"""A judge's detail cards in the browser: a served review puts each card into the page only once the browser has
scrolled near its place (srdash.apps.panels.WhenNear); a test that needs the cards scrolls to them, as a judge does.
"""

from __future__ import annotations

import pytest

expect = pytest.importorskip("playwright.sync_api").expect

#: Each shown card's place: its placeholder until scrolled to, then the card (``.srdash-card``) inside it.
PLACES = ".srdash-card-later:visible"

# The box the page scrolls in, as NearScreen finds it (srdash.apps.panels): the outermost that scrolls, else the
# document (the lab template scrolls inside its own container).
_SCROLLER = """(element) => {
  let found = null;
  for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
    if (node.scrollHeight > node.clientHeight + 1 && ['auto', 'scroll'].includes(getComputedStyle(node).overflowY))
      found = node;
  }
  return found || document.scrollingElement;
}"""
# Scroll the page so that the element's top is 50 px inside the bottom of the window (or as near as the page
# scrolls). Resolves, with where the page was, once the browser has drawn two frames and run its tasks: its
# IntersectionObserver has told NearScreen.
_SCROLL_NEAR_JS = """(element) => {
  const scroller = (%s)(element);
  const was = scroller.scrollTop;
  scroller.scrollTop += element.getBoundingClientRect().top - (window.innerHeight - 50);
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  return frame().then(frame).then(() => new Promise((resolve) => setTimeout(() => resolve(was), 0)));
}""" % _SCROLLER
_SCROLL_BACK_JS = """([element, top]) => { (%s)(element).scrollTop = top; }""" % _SCROLLER
# Scroll the page so that the element's top is ``pixels`` below the bottom of the window.
_SCROLL_BELOW_JS = """(element, pixels) => {
  (%s)(element).scrollTop += element.getBoundingClientRect().top - window.innerHeight - pixels;
}""" % _SCROLLER


def scroll_to_cards(page, n: int, *, timeout: float = 120_000) -> None:
    """Scroll to each of the shown dataset's ``n`` detail cards until each is in the page, then back to where the
    page was. A card already in the page is passed by; one that never comes fails the test.

    From the last card up: each card's place comes to the bottom of the window (the browser tells the kernel),
    then the next one up, without waiting for the card; the cards come meanwhile, below the window, so that no
    card's figures come into it (plotly's drawing: most of a card's cost).
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
    if start is not None:
        page.evaluate(_SCROLL_BACK_JS, [places.first.element_handle(), start])
    expect(page.locator(".srdash-card:visible")).to_have_count(n, timeout=timeout)


def scroll_below_window(place, pixels: int) -> None:
    """Scroll the page so that ``place``'s top is ``pixels`` below the bottom of the window (still out of sight)."""
    place.evaluate(_SCROLL_BELOW_JS, pixels)
