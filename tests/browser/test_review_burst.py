"""No card lost at page load (issue 33, item 4): 24 review pages whose cards are ready to be built while the page loads.

The race is forced: the served review's slow work (its inputs prepared) ends when the page connects to the
kernel (the page's first request, ``kernel_info``), 0 to 0.3 s later, and building the cards takes 2 s (each
card waits 0.25 s between its parts and itself). A page that got widgets created while it was loading lost
them: before the build moved to the kernel's thread 1 page of 6 showed no card; after it 1-2 pages of 24;
with the cards made apart and attached once the page was displayed, still 1 of 12: the page, flooded with
new widgets while it asked for the kernel's snapshot, fell back to asking for each widget alone, and a box
named a widget it had not created yet ("widget model not found" in the browser's console, "Click to show
javascript error" on the page). Now a served page creates widgets only once the browser has displayed it
(apps.panels.BackgroundWork.build): each page must show every card's place (a card comes into the page once
the browser has scrolled near it, apps.panels.WhenNear), the cards near the window at load must come without
a scroll and the last card once scrolled to, and no page's console may say that a widget model was not found.

A review whose competition ``srdash review`` kept prepared is built in the notebook's cell instead, before the
page exists (``ReviewPage``): no race there. This one reviews a results file, so it takes the background path.

One server for the module, srdash's own serving (Voilà with the review's configuration) of a two-cell copy
of the review notebook that forces the race; six pages at a time (six browser contexts), four rounds.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from srdash.io.loading import load_results
from srdash.judging.preparation import prepare_runs
from srdash.judging.trust import TrustStore
from review_cards import PLACES
from voila_server import VoilaServer, refuse_other_machines

pytestmark = [pytest.mark.browser]

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

PAGES = 24
AT_ONCE = 6
#: Eight methods on the first dataset: eight cards per page.
METHODS = [f"m{i}" for i in range(8)]
#: A bound for what never happens: a page's cards, once it shows the review, arrive within seconds.
PAGE_TIMEOUT_MS = 120_000
#: Tall enough that the first cards' places are in the window at load (they follow the overview's eight rows).
VIEWPORT = {"width": 1300, "height": 2000}
# Every card's place in the window holds its card (none left waiting), and there is at least one such place.
NEAR_CARDS_IN_JS = """() => {
  const near = [...document.querySelectorAll('.srdash-card-later')].filter(
    place => place.checkVisibility() && place.getBoundingClientRect().top < window.innerHeight);
  return near.length > 0 && near.every(place => place.querySelector('.srdash-card'));
}"""

NOTEBOOK_CELLS = [
    "import os\n"
    "import threading\n"
    "import time\n"
    "import ipywidgets\n"
    "import srdash.apps.review.app as review_app\n"
    "import srdash.apps.review.page as review_page\n"
    "from srdash.apps.review import ReviewPage, access_key_from_query\n"
    "from srdash.apps.visit import query_string\n"
    "# forced: the build starts when the page connects (its first request, kernel_info), 0 to 0.3 s later\n"
    "kernel = get_ipython().kernel\n"
    "page_connected = threading.Event()\n"
    "answer_kernel_info = kernel.shell_handlers['kernel_info_request']\n"
    "\n"
    "def noted(*args, **kwargs):\n"
    "    page_connected.set()\n"
    "    return answer_kernel_info(*args, **kwargs)\n"
    "\n"
    "kernel.shell_handlers['kernel_info_request'] = noted\n"
    "prepare = review_page.review_inputs_from_environment\n"
    "\n"
    "def prepared_as_the_page_connects(*args, **kwargs):\n"
    "    if kwargs.get('kept_only'):   # a results file, not a kept competition: nothing at once\n"
    "        return prepare(*args, **kwargs)\n"
    "    inputs = prepare(*args, **kwargs)\n"
    "    page_connected.wait(120)\n"
    "    time.sleep(os.getpid() % 7 * 0.05)\n"
    "    return inputs\n"
    "\n"
    "class Pause(ipywidgets.VBox):\n"
    "    def __init__(self, *args, **kwargs):   # forced: 0.25 s between a card's parts and the card itself\n"
    "        time.sleep(0.25)\n"
    "        super().__init__(*args, **kwargs)\n"
    "\n"
    "class SlowCard(review_app.ModelCard, Pause):\n"
    "    pass\n"
    "\n"
    "review_page.review_inputs_from_environment = prepared_as_the_page_connects\n"
    "review_app.ModelCard = SlowCard",
    "page = ReviewPage(os.environ, access_key=access_key_from_query(query_string()), served=True)\n"
    "page",
]

LAUNCHER = '''"""srdash review's serving (cli/review.py) of another notebook: the one forcing the race."""
import sys
from pathlib import Path

from srdash.apps import server as app
from srdash.cli.review import review_environment

notebook, results, store = sys.argv[1:4]
port = int(sys.argv[sys.argv.index("--port") + 1])
env = review_environment(judge="ann", store=Path(store), rules="srbench2022-realworld", input_path=Path(results))
command = app.voila_command(notebook, port=port, review=True)
sys.exit(app.serve_dashboard(command, env, url=f"http://127.0.0.1:{port}/"))
'''


def _notebook() -> dict:
    return {"cells": [{"cell_type": "code", "execution_count": None, "id": f"cell{i}", "metadata": {},
                       "outputs": [], "source": source} for i, source in enumerate(NOTEBOOK_CELLS)],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture(scope="module")
def burst_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("review-burst")
    rows = [{"method": method, "dataset": dataset, "run": 0, "model": f"{i + 1}*x1 + {i}", "r2_test": 0.5 + i / 20}
            for dataset in ("d1", "d2") for i, method in enumerate(METHODS)]
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    TrustStore(folder / "trust.sqlite", seed=0).close()
    # The models simplified once, into the server's cache (its SRDASH_CACHE_DIR, made here first: a path that
    # does not exist is taken for the database file): else the first six kernels, opened together, each
    # simplify all sixteen in a worker of its own (1.7-2.7 CPU-s sampled), and their build starts when that
    # ends, later than the forced race says.
    (folder / "cache").mkdir()
    prepare_runs(load_results(folder / "results.csv"), cache=folder / "cache")
    (folder / "burst.ipynb").write_text(json.dumps(_notebook()))
    (folder / "burst_review_server.py").write_text(LAUNCHER)
    server = VoilaServer([str(folder / "burst.ipynb"), str(folder / "results.csv"), str(folder / "trust.sqlite")],
                         folder, name="review-burst", module="burst_review_server")
    try:
        yield server
    finally:
        server.stop()


def test_24_pages_whose_cards_are_built_while_they_load_lose_no_card(burst_server, browser):
    outside: list[str] = []
    seen: list[int] = []
    said: list[str] = []
    errors: list[str] = []   # the pages' console errors
    for _ in range(PAGES // AT_ONCE):
        contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(AT_ONCE)]
        try:
            pages = []
            for context in contexts:
                refuse_other_machines(context, outside)
                page = context.new_page()
                page.on("console", lambda message: errors.append(message.text[:300]) if message.type == "error" else None)
                page.goto(burst_server.url, wait_until="commit", timeout=PAGE_TIMEOUT_MS)
                pages.append(page)
            for page in pages:
                places = page.locator(PLACES)
                try:   # the review is on the page (its first dataset), with every row and card's place: a lost
                    # widget (or a lost review) never comes, and this waits out the bound
                    expect(page.locator("h2", has_text="Dataset 1 of 2: d1")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
                    expect(page.locator(".srdash-compare .srdash-rank-row:visible")).to_have_count(
                        len(METHODS), timeout=PAGE_TIMEOUT_MS)
                    expect(places).to_have_count(len(METHODS), timeout=PAGE_TIMEOUT_MS)
                    # the cards in the window at load come without a scroll; the last once scrolled to
                    page.wait_for_function(NEAR_CARDS_IN_JS, timeout=PAGE_TIMEOUT_MS)
                    places.last.scroll_into_view_if_needed(timeout=PAGE_TIMEOUT_MS)
                    expect(places.last.locator(".srdash-card")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
                except (AssertionError, sync_api.Error):
                    said.append(page.locator("body").inner_text()[:600])   # what the page shows instead
                seen.append(places.count())
        finally:
            for context in contexts:
                context.close()
    assert seen == [len(METHODS)] * PAGES and said == [], (
        f"cards' places seen on each of {PAGES} pages (expected {len(METHODS)}): {seen}; "
        f"the pages where a card did not come show: {said}")
    assert not [error for error in errors if "widget model not found" in error], errors
    assert outside == []
