"""The sensitivity notebook served by the real Voilà, driven by headless Chromium.

The competition is written by this test so that moving one weight slider must
change the leaderboard order (ranks: 3 = best, dataset score = harmonic mean):

    method  accuracy rank  property rank   score with weights (accuracy 1, property p)
    A       3              1               (1 + p) / (1/3 + p)
    B       1              3               (1 + p) / (1 + p/3)
    C       2              2               2 for every p

on both datasets. With the official weights (1, 1): C 2, A 1.5, B 1.5 -> C first.
A beats C exactly when (1 + p) / (1/3 + p) > 2, i.e. p < 1/3. Pressing the left
arrow 14 times on the property slider (step 0.05) takes p from 1 to 0.30:
A (1.3 / 0.6333 = 2.05), C (2), B (1.3 / 1.1 = 1.18) -> A first.

A desk's page (1400 px) serves the slider test, then the layout checks (a page costs a kernel); a phone's
(390 px) has its own.
"""

from __future__ import annotations

import re

import pytest
from voila_server import (PLOT, figure_text_problems, layout_problems, plot_title, screenshot, watched_page,
                          weight_slider_problems)

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

# Only Font Awesome's CSS is fetched from the network by Voilà's lab template.
OFFLINE_OK = re.compile(r"font-?awesome|fontawesome", re.IGNORECASE)

RULES = """
name = "two-criteria"
title = "Two criteria: accuracy and property"
kind = "rank-harmonic"
[ranking]
run_aggregation = "median"
rank_method = "average"
[[criteria]]
name = "accuracy"
column = "r2_test"
label = "Accuracy"
[[criteria]]
name = "property"
column = "property"
label = "Property"
"""
RESULTS = """method,dataset,run,components,r2_test,property
A,d1,0,5,0.9,0.1
B,d1,0,5,0.5,0.9
C,d1,0,5,0.7,0.5
A,d2,0,5,0.8,0.2
B,d2,0,5,0.4,0.8
C,d2,0,5,0.6,0.5
"""


@pytest.fixture(scope="module")
def app_url(start_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sensitivity-app")
    (folder / "rules.toml").write_text(RULES)
    (folder / "results.csv").write_text(RESULTS)
    server = start_server(["serve", str(folder / "results.csv"), "--rules", str(folder / "rules.toml"),
                           "--view", "sensitivity"], name="sensitivity")
    return server.url


def _order(page) -> list[str]:
    return [row.get_attribute("data-name") for row in page.locator(".srdash-sensitivity-leaderboard tbody tr").all()]


@pytest.fixture(scope="module")
def desk(app_url, browser):
    """The module's desk page (1400 px; tall: the lab template scrolls inside its own container, so a full-page
    screenshot is the viewport) with what it asked of other machines, its failed requests and its errors."""
    # every request leaving 127.0.0.1 is aborted and recorded in outside
    with watched_page(browser, app_url, width=1400, height=4000) as watched:
        yield watched


def test_moving_a_weight_slider_changes_the_leaderboard_order(desk, tmp_path):
    page, outside, failed, errors = desk
    rows = page.locator(".srdash-sensitivity-leaderboard tbody tr")
    expect(rows).to_have_count(3, timeout=120_000)
    assert _order(page) == ["C", "A", "B"]
    expect(plot_title(page, "Places as the weight of")).to_be_visible(
        timeout=60_000)
    expect(plot_title(page, "Place probabilities over 2,000")).to_be_visible(
        timeout=60_000)

    slider = page.locator(".srdash-weight-property")
    readout = slider.locator(".widget-readout")
    expect(readout).to_have_text("1.00")
    slider.locator(".noUi-handle").focus()
    for _ in range(14):  # step 0.05: from 1.00 to 0.30
        page.keyboard.press("ArrowLeft")
    expect(readout).to_have_text("0.30")
    expect(rows.first).to_have_attribute("data-name", "A", timeout=20_000)
    assert _order(page) == ["A", "C", "B"]
    # the bump chart now varies the property weight and marks 0.30
    expect(plot_title(page, "weight of Property")).to_be_visible()
    expect(page.locator(".srdash-log")).not_to_contain_text("Error")

    screenshot(page, tmp_path, "sensitivity-after-slider")
    assert outside == [], outside                # nothing left the machine: page, widgets, figures
    assert not errors, errors
    assert [url for url in failed if not OFFLINE_OK.search(url)] == []


# What must not run past the window: tables (unless they scroll inside a panel that fits), panels, controls.
LAYOUT = ('.srdash-sensitivity table, .srdash-sensitivity .widget-box, .srdash-sensitivity button, '
          '.srdash-sensitivity .widget-slider')


def _no_clipped_or_overlapping_text(page, width: int, tmp_path) -> None:
    """The view's layout checks at ``width`` px (whatever its weights: each holds for any)."""
    expect(page.locator(".srdash-sensitivity-leaderboard tbody tr")).to_have_count(3, timeout=120_000)
    expect(plot_title(page, "Place probabilities over 2,000")).to_be_visible(timeout=60_000)
    expect(plot_title(page, "Kendall τ")).to_be_visible(timeout=60_000)
    expect(page.locator(PLOT)).to_have_count(3)     # bump chart, heatmap, tau (two weights: no ternary map)
    # two criteria: a plain note instead of the ternary map
    expect(page.locator(".srdash-sensitivity")).to_contain_text(
        "No winner map here: it shows the shares of exactly three weights on a triangle, and there are "
        "2 weights, one per criterion.")
    page.wait_for_timeout(1000)                       # plotly's responsive resize
    screenshot(page, tmp_path, f"sensitivity-{width}px")
    problems = layout_problems(page, LAYOUT) + figure_text_problems(page)
    assert problems == [], "\n".join(problems)
    # every weight slider has a track a thumb can travel (at least 120 px), and dragging it moves it
    assert page.locator(".srdash-weight-slider .noUi-target").count() == 2
    assert weight_slider_problems(page, ".srdash-sensitivity", drag="property") == []
    expect(page.locator(".srdash-log")).not_to_contain_text("Error")


def test_the_view_at_a_wide_screen_has_no_clipped_or_overlapping_text(desk, tmp_path):
    """The desk's page, its property weight at 0.30 after the test above."""
    _no_clipped_or_overlapping_text(desk[0], 1400, tmp_path)


def test_the_view_on_a_phone_has_no_clipped_or_overlapping_text(app_url, browser, tmp_path):
    # tall: the lab template scrolls inside its own container, so the full-page screenshot is the viewport
    context = browser.new_context(viewport={"width": 390, "height": 4000})
    try:
        page = context.new_page()
        page.goto(app_url, timeout=120_000)
        _no_clipped_or_overlapping_text(page, 390, tmp_path)
    finally:
        context.close()
