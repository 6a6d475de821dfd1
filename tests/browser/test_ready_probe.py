"""The benchmarks' readiness probe (``benchmarks/serve_open.py``'s ``READY_PROBE``), on small pages of its own.

``benchmarks/visitors.py`` and ``serve_open.py`` time a page until its ready mark (a selector, or a text) is laid
out, from a script in the page. What they compare (issue 33: ten pages of srdash against ten of Voilà's one-cell page)
is only fair if the probe is neither early nor late, and costs the page nothing while it waits: a probe that looked at
every animation frame made every waiting page paint 60 frames a second, more of them the longer a page took.

Each page here is served by Playwright (``page.route``): no server. It calls ``reveal()`` after a delay: it asks for
two animation frames (the frame that paints the change and the one after), then makes the mark visible (a style
change of an ancestor: the mark was in the page but not laid out, as Voilà's own page first holds its cells) or
adds it. The probe must stamp the frame that paints the change: not before that frame began (the time every
callback of the frame is given), and before the next frame's callbacks run. Frames are the page's own clock, so the
bounds hold at any load.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from serve_open import READY_PROBE  # noqa: E402

URL = "http://probe.test/"

# Runs before the probe (init scripts run in the order added): counts the probe's requests for a frame, and gives
# the page reveal(): the frame that paints a change and the one after, stamped by the page itself.
_COUNTING = """
window.__frames = 0;
const ask = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (callback) => { window.__frames += 1; return ask(callback); };
window.reveal = (change) => {
  ask((frame) => { window.__paintFrame = frame; ask(() => { window.__nextFrame = performance.now(); }); });
  change();
};
"""


def _page(browser, html: str, mark: list):
    context = browser.new_context(viewport={"width": 800, "height": 600})
    context.add_init_script(_COUNTING)
    context.add_init_script(f"({READY_PROBE})({json.dumps(mark)})")
    page = context.new_page()
    page.route(URL, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(URL)
    return context, page


HIDDEN_THEN_SHOWN = """<!doctype html><html><body>
<div id="box" style="display:none"><p>filler</p><button class="rank">A</button><pre>Ready in 1.0 s</pre></div>
<script>setTimeout(() => reveal(() => { document.getElementById('box').style.display = 'block'; }), 300);</script>
</body></html>"""

ADDED_LATER = """<!doctype html><html><body><p>filler</p>
<script>setTimeout(() => reveal(() => {
  const box = document.createElement('div');
  box.innerHTML = '<button class="rank">A</button><pre>Ready in 1.0 s</pre>';
  document.body.appendChild(box);
}), 300);</script>
</body></html>"""


@pytest.mark.parametrize("html", [HIDDEN_THEN_SHOWN, ADDED_LATER], ids=["shown-later", "added-later"])
@pytest.mark.parametrize("mark", [[".rank", None], [None, "Ready in"]], ids=["selector", "text"])
def test_the_probe_stamps_the_frame_that_paints_the_mark(browser, html, mark):
    context, page = _page(browser, html, mark)
    try:
        stamp = page.evaluate("window.__srdashReady")
        page.wait_for_function("window.__nextFrame !== undefined")
        painted, following = page.evaluate("[window.__paintFrame, window.__nextFrame]")
        # stamped in the frame that paints the change: after it began, before the next frame's callbacks
        assert painted <= stamp < following
        assert stamp >= 300  # never before the change (ms since the navigation started)
    finally:
        context.close()


def test_the_probe_asks_for_no_frame_while_the_page_does_not_change(browser):
    # a page whose mark never comes and which changes nothing after loading: a probe looking at every frame would
    # ask for about 30 frames in half a second (60 per second on an idle machine)
    context, page = _page(browser, "<!doctype html><html><body><p>Loading</p></body></html>", [".rank", None])
    try:
        page.wait_for_load_state("load")
        page.wait_for_timeout(100)  # a look asked for by the page's loading has had its frame
        before = page.evaluate("window.__frames")
        page.wait_for_timeout(500)
        assert page.evaluate("window.__frames") == before
        # a change to the page: the probe looks once, in the frame that shows it
        page.evaluate("document.body.appendChild(document.createElement('p'))")
        page.wait_for_timeout(200)
        assert page.evaluate("window.__frames") == before + 1
    finally:
        context.close()
