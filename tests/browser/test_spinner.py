"""Voilà's loading spinner on srdash's pages turns in steps, not at every frame (srdash-spinner.html).

Voilà turns its spinner with a CSS animation, so a page draws a frame at every refresh while it loads: in a headless
Chromium, 0.07-0.09 CPU-s per second of spinner, against 0.02 turned in steps (docs/scaling.md, "Voilà's spinner").
The page here is Voilà's spinner (its markup and style, from Voilà's own template) with srdash's stylesheet and
script, served by Playwright (``page.route``): no server, no kernel.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jinja2
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_upstream_contract import TEMPLATE, _template_roots  # noqa: E402

URL = "http://spinner.test/"


@pytest.fixture(scope="module")
def loading_page() -> str:
    voila = jinja2.Environment(loader=jinja2.FileSystemLoader([str(root) for root in _template_roots()]))
    spinner = voila.get_template("spinner.macro.html.j2").module
    ours = (TEMPLATE / "srdash-spinner.html").read_text()
    return f"<!doctype html><html><head>{spinner.css()}{ours}</head><body>{spinner.html()}</body></html>"


def _open(browser, html: str, **options):
    context = browser.new_context(viewport={"width": 800, "height": 600}, **options)
    page = context.new_page()
    page.route(URL, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(URL)
    return context, page


_TURNED = "getComputedStyle(document.querySelector('#loading .spinner')).transform"


def test_the_spinner_turns_in_steps_without_an_animation(browser, loading_page):
    context, page = _open(browser, loading_page)
    try:
        # no CSS animation runs (Voilà's "rotation" would be one): nothing asks for a frame at every refresh
        assert page.evaluate("document.getAnimations().length") == 0
        # yet it turns: an eighth of a turn at each step (rotate(45deg) is the matrix below)
        page.wait_for_function(f"{_TURNED} !== 'none'")
        first = page.evaluate(_TURNED)
        page.wait_for_function(f"{_TURNED} !== {first!r}")
        # each step is a change of the element's style: one every 250 ms, so at most 5 in a second (a turn
        # drawn at every frame would be about 60; that it turns at all is shown above)
        steps = page.evaluate("""() => new Promise((resolve) => {
            let count = 0;
            const observer = new MutationObserver((records) => { count += records.length; });
            observer.observe(document.querySelector('#loading .spinner'), {attributes: true,
                                                                            attributeFilter: ['style']});
            setTimeout(() => { observer.disconnect(); resolve(count); }, 1000);
        })""")
        assert steps <= 5
    finally:
        context.close()


def test_the_spinner_stops_turning_once_the_page_removed_it(browser, loading_page):
    context, page = _open(browser, loading_page)
    try:
        page.evaluate("""() => { window.__cleared = false; const clear = window.clearInterval.bind(window);
                                 window.clearInterval = (id) => { window.__cleared = true; clear(id); }; }""")
        page.wait_for_function(f"{_TURNED} !== 'none'")
        page.evaluate("document.getElementById('loading').remove()")  # as Voilà's display_cells does
        page.wait_for_function("window.__cleared === true")
    finally:
        context.close()


def test_the_spinner_stays_still_for_a_visitor_who_asks_for_reduced_motion(browser, loading_page):
    context, page = _open(browser, loading_page, reduced_motion="reduce")
    try:
        page.wait_for_timeout(700)  # about three steps for anyone else
        assert page.evaluate(_TURNED) == "none"
        assert page.evaluate("document.getAnimations().length") == 0
    finally:
        context.close()
