"""The trust review (`srdash review`, Voilà) in headless Chromium, on seven models in one view: a judge orders
them by mouse and keyboard, a formula of more than 200 components stays readable, the organiser's panel shows two
judges and refuses to reveal without the typed confirmation; and, on a review of two models, personal links say
who the visitor is.

Split from test_review_app.py (whose helpers and fixtures it uses), so that the two files run on two test workers.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from srdash.judging.trust import TrustStore
from test_review_app import (CARD_PROBLEMS_JS, FORMULA_PROBLEMS_JS, OUTSIDE, PAGE_TIMEOUT_MS,  # noqa: F401
                             context, servers, shown_ranks, wait_for_cards)
from voila_server import VoilaServer, first_screen_problems, screenshot

pytestmark = [pytest.mark.browser]

expect = pytest.importorskip("playwright.sync_api").expect


# --------------------------------------------------------------------------- seven models in one view
#
# A second competition: seven methods on one dataset, one run each. Model "m7" has more than
# 200 components (45 distinct products x_i*x_j and 10 squares, each with its own coefficient:
# sympy cannot merge them; srdash counts 231). jo orders the seven with the overview's rank buttons, by mouse and by keyboard,
# and reloads; kim ranks two models only (through the store); the organiser sees both.

FEATURES = [f"x{i}" for i in range(1, 11)]
PAIRS = [(a, b) for i, a in enumerate(FEATURES) for b in FEATURES[i + 1:]]
LONG_TERMS = ([f"{k + 1}.5*{a}*{b}" for k, (a, b) in enumerate(PAIRS)]
              + [f"{k + 0.75}*{a}**2" for k, a in enumerate(FEATURES)])
SEVEN = {f"m{k}": f"{k}.25*x1 + {k}*x2" for k in range(1, 7)}
SEVEN["m7"] = " + ".join(LONG_TERMS)
# jo's ranks for the seven rows, in the order the page shows them (row i gets JO_RANKS[i])
JO_RANKS = [3, 1, 7, 2, 5, 4, 6]


@pytest.fixture(scope="module")
def seven(tmp_path_factory):
    import numpy as np

    folder = tmp_path_factory.mktemp("review-seven")
    rows = [{"method": method, "dataset": "big", "run": 0, "model": model, "r2_test": 0.5 + 0.05 * k}
            for k, (method, model) in enumerate(SEVEN.items())]
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    data = folder / "data"
    data.mkdir()
    generator = np.random.default_rng(0)
    table = pd.DataFrame(generator.uniform(0, 2, size=(40, 10)), columns=FEATURES)
    table["y"] = 1.25 * table["x1"] + table["x2"] + generator.normal(0, 0.1, 40)
    table.to_csv(data / "big_test.csv", index=False)
    TrustStore(folder / "trust.sqlite", seed=1).close()
    return {"folder": folder, "results": folder / "results.csv", "data": data, "store": folder / "trust.sqlite"}


def start_seven(servers, seven, judge, *, organiser=False) -> VoilaServer:
    arguments = ["review", str(seven["results"]), "--judge", judge, "--store", str(seven["store"]),
                 "--data", str(seven["data"])] + (["--organiser"] if organiser else [])
    server = servers["start"](arguments, name=f"seven-{judge}")
    servers["started"].append(server)
    return server


def active_ranks(page) -> list[str]:
    rows = page.locator(".srdash-rank-row:visible")
    return [(rows.nth(i).locator("button.mod-active").text_content() or "").strip()
            if rows.nth(i).locator("button.mod-active").count() else "" for i in range(rows.count())]


@pytest.fixture(scope="module")
def jo_server(servers, seven) -> VoilaServer:
    """jo's review of the seven models, for the two tests that look at jo's page."""
    return start_seven(servers, seven, "jo")


@pytest.fixture(scope="module")
def jo_page(jo_server, context):
    """jo's page, opened once (a review page costs a kernel) for the two tests that look at it."""
    page = context.new_page()
    page.goto(jo_server.url, timeout=PAGE_TIMEOUT_MS)
    wait_for_cards(page, 7)
    yield page
    page.close()


def test_a_judge_orders_seven_models_in_the_overview_by_mouse_and_keyboard(jo_page, seven, tmp_path_factory):
    page = jo_page
    rows = page.locator(".srdash-rank-row:visible")
    expect(rows).to_have_count(7)
    expect(page.get_by_text("All models at a glance")).to_be_visible()
    # every model in one view: the overview fits in one screen of a 1300 x 3000 window
    assert page.locator(".srdash-compare:visible").bounding_box()["height"] < 1400
    assert page.locator(".srdash-compare:visible svg[aria-label='predicted against actual test values']").count() == 7
    for i in range(4):                                           # by mouse
        rows.nth(i).get_by_role("button", name=str(JO_RANKS[i]), exact=True).click()
        expect(rows.nth(i).locator("button.mod-active")).to_have_text(str(JO_RANKS[i]))
    for i in range(4, 7):                                        # by keyboard: Tab to the rank, Enter
        rows.nth(i).locator("button").first.focus()
        for _ in range(JO_RANKS[i] - 1):
            page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.textContent.trim()") == str(JO_RANKS[i])
        page.keyboard.press("Enter")
        expect(rows.nth(i).locator("button.mod-active")).to_have_text(str(JO_RANKS[i]))
    cards = page.locator(".srdash-card:visible")
    for i in range(7):
        expect(cards.nth(i).locator("text=✓ saved")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("every model has a value")).to_be_visible()
    expect(page.get_by_text("All 1 datasets reviewed")).to_be_visible()
    screenshot(page, tmp_path_factory.getbasetemp() / "screenshots", "review-seven-overview")
    page.reload()
    wait_for_cards(page, 7)
    expect(page.locator(".srdash-rank-row:visible")).to_have_count(7)
    assert active_ranks(page) == [str(r) for r in JO_RANKS]
    assert [int(r.split()[0]) for r in shown_ranks(page)] == JO_RANKS      # the cards agree
    with TrustStore(seven["store"], read_only=True) as store:            # saved at once, server running
        assert sorted(store.entries(judge="jo")["value"]) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]


def test_a_formula_of_more_than_200_components_is_readable_inside_its_card(jo_page):
    page = jo_page                                      # jo's page: what a judge has ranked does not matter here
    wait_for_cards(page, 7)
    card = page.locator(".srdash-card:visible", has=page.locator(".srdash-formula-text"))
    expect(card).to_have_count(1)
    components = int(re.search(r"\((\d+) components\)", card.locator(".srdash-metrics").text_content()).group(1))
    assert components > 200
    formula = card.locator(".srdash-formula-text")
    text = formula.text_content()
    assert all(f"{a}*{b}" in text or f"{b}*{a}" in text for a, b in PAIRS)
    assert all(f"{a}**2" in text for a in FEATURES)
    box, card_box = formula.bounding_box(), card.bounding_box()
    assert card_box["x"] + card_box["width"] <= 1300                 # the card fits the window
    assert box["x"] >= card_box["x"] and box["x"] + box["width"] <= card_box["x"] + card_box["width"] + 1
    overflow = formula.evaluate("e => [e.scrollWidth - e.clientWidth, e.scrollHeight - e.clientHeight]")
    assert overflow[0] <= 1 and overflow[1] <= 1, overflow          # nothing hidden: it wraps
    card.get_by_role("button", name="Show the typeset formula").click()
    expect(card.locator(".srdash-formula").nth(1)).to_be_visible()
    expect(card.locator(".srdash-formula").nth(1).locator("mjx-container, .MathJax").first).to_be_attached()
    page.wait_for_timeout(500)                                        # MathJax lays the lines out
    assert page.evaluate(FORMULA_PROBLEMS_JS) == []                  # typeset in lines that fit a desk's card
    page.set_viewport_size({"width": 390, "height": 3000})           # and a phone's: its own, shorter lines
    page.wait_for_timeout(500)
    assert page.evaluate(FORMULA_PROBLEMS_JS) == []
    assert page.evaluate(CARD_PROBLEMS_JS) == []


# The leaderboard's first row (place, method, score: their text) and the entries hash of the organiser's
# panel (a review of loose results: no competition verdict) lie inside the first width x height screen.
_ORGANISER_ROW = ".srdash-organiser table.srdash-leaderboard tbody tr:first-child"
#: the revealed leaderboard's first row (place, method, score) and its entries hash
_ORGANISER_FIRST_SCREEN = (f"{_ORGANISER_ROW} td.srdash-place", f"{_ORGANISER_ROW} td.srdash-method",
                           f"{_ORGANISER_ROW} td.srdash-score", ".srdash-organiser .srdash-entries-hash-value")


def test_the_organisers_panel_shows_two_judges_and_refuses_to_reveal_without_the_typed_confirmation(
        servers, seven, context, tmp_path_factory):
    with TrustStore(seven["store"]) as store:                        # kim ranked two of the seven
        store.record("kim", "big", "m1", kind="rank", value=1)
        store.record("kim", "big", "m2", kind="rank", value=2)
    server = start_seven(servers, seven, "org", organiser=True)
    page = context.new_page()
    page.goto(server.url, timeout=PAGE_TIMEOUT_MS)
    wait_for_cards(page, 7)
    table = page.locator(".srdash-completeness")
    expect(table.locator("tr", has_text="jo")).to_contain_text("✓ done")
    expect(table.locator("tr", has_text="kim")).to_contain_text("2/7")
    expect(page.get_by_text("The review is not complete")).to_be_visible()
    expect(page.get_by_text("kim: big (2/7)")).to_be_visible()
    reveal = page.get_by_role("button", name="Reveal the methods and close the review")
    expect(reveal).to_be_disabled()
    reveal.click(force=True)                                          # a click on the disabled button
    confirm = page.get_by_placeholder("type REVEAL to confirm")
    confirm.fill("reveal")
    expect(reveal).to_be_disabled()
    page.wait_for_timeout(500)
    with TrustStore(seven["store"], read_only=True) as store:
        assert store.closed is None
    screenshot(page, tmp_path_factory.getbasetemp() / "screenshots", "review-seven-organiser")
    confirm.fill("REVEAL")
    expect(reveal).to_be_enabled()
    reveal.click()
    expect(page.get_by_role("button", name="Methods revealed (review closed)")).to_be_disabled(timeout=30_000)
    expect(page.get_by_role("button", name="Reopen the review")).to_be_visible()
    # revealed: the organiser's panel opens on the real-world leaderboard, its first row on the first screen
    first = page.locator(".srdash-organiser table.srdash-leaderboard tbody tr").first
    expect(first).to_be_visible(timeout=30_000)
    fingerprint = page.locator(".srdash-organiser .srdash-entries-hash-value")
    expect(fingerprint).to_have_text(re.compile(r"^[0-9a-f]{12}$"))
    expect(page.locator(".srdash-organiser .srdash-fingerprint")).to_contain_text("Entries hash: ")
    assert first_screen_problems(page, _ORGANISER_FIRST_SCREEN, 1300, 900) == []
    # and on a phone, from the top of the page: the same first row and the fingerprint on its first screen
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("() => { document.querySelectorAll('*').forEach(e => { e.scrollTop = 0; }); window.scrollTo(0, 0); }")
    page.wait_for_timeout(500)                                        # the panel lays itself out again
    screenshot(page, tmp_path_factory.getbasetemp() / "screenshots", "review-seven-organiser-revealed-390px")
    assert first_screen_problems(page, _ORGANISER_FIRST_SCREEN, 390, 844) == []
    page.close()
    server.stop()
    with TrustStore(seven["store"], read_only=True) as store:
        assert store.closed is not None and store.closed[1] == "org"


# --------------------------------------------------------------------------- personal links


def test_personal_links_say_who_the_visitor_is(servers, context, tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    # Two models and no test data: who the visitor is shows on any review, and the seven models with their
    # figures and long formula cost each of the two pages below more in its kernel and browser, for nothing read.
    # Two of the seven's models: simplified already by jo's kernel (the module's servers share one cache), so
    # no kernel here starts a worker to simplify them.
    rows = [{"method": method, "dataset": "d1", "run": 0, "model": SEVEN[method], "r2_test": r2}
            for method, r2 in (("m1", 0.9), ("m2", 0.8))]
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    store_path = folder / "trust.sqlite"
    with TrustStore(store_path, seed=7) as store:
        ann_key = store.issue_key("ann")
        org_key = store.issue_key("carla", role="organiser")
    # no --judge: once keys are issued, the link alone says who the visitor is
    arguments = ["review", str(folder / "results.csv"), "--store", str(store_path)]
    server = servers["start"](arguments, name="review-keys")
    servers["started"].append(server)
    page = context.new_page()
    page.goto(server.url, timeout=PAGE_TIMEOUT_MS)               # no key: refused, with what to do
    expect(page.get_by_text("This review needs your personal link")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    assert page.locator(".srdash-card:visible").count() == 0
    page.goto(server.url + "?key=not-a-key", timeout=PAGE_TIMEOUT_MS)
    expect(page.get_by_text("This access key is not valid")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    page.goto(server.url + f"?key={ann_key}", timeout=PAGE_TIMEOUT_MS)
    wait_for_cards(page, 2)
    expect(page.locator(".srdash-review")).to_contain_text("Judge: ann")
    assert page.locator(".srdash-organiser").count() == 0      # a judge has no organiser's panel
    page.goto(server.url + f"?key={org_key}", timeout=PAGE_TIMEOUT_MS)
    wait_for_cards(page, 2)
    expect(page.locator(".srdash-review")).to_contain_text("Judge: carla")
    expect(page.locator(".srdash-organiser")).to_be_visible()
    page.close()
    server.stop()
    assert OUTSIDE == []           # no page of this file asked anything of another machine
