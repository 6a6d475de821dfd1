"""The real `srdash predictions serve` on a small generated competition, in headless Chromium.

The competition (targets all 0, so a prediction is its error), scored with RMSE and MAE:

    team       preliminary errors  RMSE   MAE  | final errors  RMSE   MAE
    a          (2, 2)              2      2    | (0, 3)        2.121  1.5
    <b>x</b>   (0, 3)              2.121  1.5  | (2, 2)        2      2
    c          (1, 2.5)            1.904  1.75 | (1, 2.5)      1.904  1.75

Team c also hands in a later file with 'oops' on line 3: it is rejected, and under the rule
'last' c's last *valid* submission counts. Ranks (3 = best) and their harmonic means
H(x, y) = 2 / (1/x + 1/y):

    preliminary  RMSE c 3, a 2, x 1; MAE x 3, c 2, a 1 -> c 2.4, x 1.5, a 4/3 -> c, <b>x</b>, a
    final        RMSE c 3, x 2, a 1; MAE a 3, c 2, x 1 -> c 2.4, a 1.5, x 4/3 -> c, a, <b>x</b>

and ranked by MAE alone the final leaderboard is a (1.5), c (1.75), <b>x</b> (2).

A desk's page (1400 px) serves the tests in file order (an app's page costs a kernel); a phone's (390 px) has
its own. Both also check what reads at a glance (issue 38): rows one line tall, numbers with the tables' fixed
decimals, captions that wrap inside the window, buttons that show their whole label.
"""

from __future__ import annotations

import re

import pytest
from voila_server import (PLOT, cut_buttons, figure_text_problems, first_screen_problems, layout_problems,
                          plot_title, screenshot, watched_page)

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

# Only Font Awesome's CSS is fetched from the network by Voilà's lab template.
OFFLINE_OK = re.compile(r"font-?awesome|fontawesome", re.IGNORECASE)
BOLD = "<b>x</b>"
FILES = {"a.txt": "2\n2\n0\n3\n", "x.txt": "0\n3\n2\n2\n", "c.txt": "1\n2.5\n1\n2.5\n", "c-late.txt": "1\n2\noops\n2\n"}
LISTING = ("team,file,submitted_at\n"
           "a,a.txt,2024-05-01T10:00:00Z\n"
           "<b>x</b>,x.txt,2024-05-01T11:00:00Z\n"
           "c,c.txt,2024-05-01T12:00:00Z\n"
           "c,c-late.txt,2024-05-01T13:00:00Z\n")


@pytest.fixture(scope="module")
def app_url(start_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("predictions-app")
    (folder / "p.txt").write_text("0\n0\n\n\n")
    (folder / "f.txt").write_text("\n\n0\n0\n")
    for name, text in FILES.items():
        (folder / name).write_text(text)
    (folder / "listing.csv").write_text(LISTING)
    server = start_server(["predictions", "serve", str(folder / "listing.csv"),
                           "--targets-preliminary", str(folder / "p.txt"), "--targets-final", str(folder / "f.txt"),
                           "--metric", "rmse", "--metric", "mae"], name="predictions")
    return server.url


def _expect_order(page, subset: str, teams: list[str]) -> None:
    """The leaderboard's rows are ``teams``, in order (retried: each table is its own widget)."""
    rows = page.locator(f".srdash-pred-{subset} tbody tr")
    expect(rows).to_have_count(len(teams), timeout=30_000)
    for i, team in enumerate(teams):
        expect(rows.nth(i)).to_have_attribute("data-team", team, timeout=30_000)


@pytest.fixture(scope="module")
def desk(app_url, browser):
    """The module's desk page (1400 px; tall: the lab template scrolls inside its own container, so a full-page
    screenshot is the viewport) with what it asked of other machines, its failed requests and its errors."""
    # every request leaving 127.0.0.1 is aborted and recorded in outside
    with watched_page(browser, app_url, width=1400, height=5000) as watched:
        yield watched


def test_predictions_app_shows_leaderboards_shakeup_and_rejections(desk, tmp_path):
    page, outside, failed, errors = desk
    final_rows = page.locator(".srdash-pred-final tbody tr")
    expect(final_rows).to_have_count(3, timeout=120_000)
    # combined leaderboards (several metrics), hand-derived in the module docstring
    _expect_order(page, "final", ["c", "a", BOLD])
    _expect_order(page, "preliminary", ["c", BOLD, "a"])
    assert page.locator(".srdash-pred-final tbody tr").first.locator("td").first.inner_text() == "1"

    # the slope chart is drawn
    expect(plot_title(page, "(combined metrics; rule 'last')")).to_be_visible(timeout=60_000)

    # the rejected submission, with its reason and line number
    rejected = page.locator(".srdash-pred-rejected tbody tr")
    expect(rejected).to_have_count(1)
    expect(rejected.first).to_contain_text("c-late.txt")
    expect(rejected.first).to_contain_text("row 3: 'oops' is not a number")

    # the team named <b>x</b> is text, not markup
    bold_cell = page.locator(".srdash-pred-final td.srdash-team").nth(2)
    assert bold_cell.inner_text() == BOLD
    assert page.locator(".srdash-predictions td.srdash-team b").count() == 0

    # the metric selector re-ranks: MAE alone
    page.locator(".srdash-pred-ranking button", has_text="MAE").click()
    expect(page.locator(".srdash-pred-final-panel .srdash-pred-caption")).to_contain_text("MAE, lower is better",
                                                                                    timeout=20_000)
    _expect_order(page, "final", ["a", "c", BOLD])
    expect(plot_title(page, "(MAE, lower is better; rule 'last')")).to_be_visible(timeout=30_000)
    expect(page.locator(".srdash-log")).not_to_contain_text("Error")

    screenshot(page, tmp_path, "predictions-app")
    assert outside == [], outside                # nothing left the machine: page, widgets, figures
    assert not errors, errors
    assert [url for url in failed if not OFFLINE_OK.search(url)] == []


def test_redrawing_the_chart_leaves_one_chart_in_its_panel(desk):
    """Each metric switch redraws the one FigurePanel in place: never a second chart in the panel (the desk's
    page, on MAE after the test above)."""
    page = desk[0]
    for label, title in (("RMSE", "(RMSE, lower is better; rule 'last')"),
                         ("MAE", "(MAE, lower is better; rule 'last')"),
                         ("Combined", "(combined metrics; rule 'last')"),
                         ("RMSE", "(RMSE, lower is better; rule 'last')")):
        page.locator(".srdash-pred-ranking button", has_text=label).click()
        expect(plot_title(page.locator(".srdash-pred-chart"), title)).to_be_visible(timeout=30_000)
    charts = page.locator(".srdash-pred-chart .js-plotly-plot")
    expect(charts).to_have_count(1)
    # and it is the last one asked for (RMSE: final places c 1, <b>x</b> 2, a 3, see the module docstring)
    final_names = charts.locator(".y2tick text")
    expect(final_names).to_have_text(["(1) c", f"(2) {BOLD}", "(3) a"])
    expect(page.locator(".srdash-log")).not_to_contain_text("Error")


# What must not run past the window: the tables (unless they scroll inside a panel that fits), the app's
# panels, buttons and sliders.
LAYOUT = ('.srdash-predictions table, .srdash-sensitivity table, .srdash-predictions .widget-box, '
          '.srdash-predictions .jp-OutputArea, .srdash-predictions button, .srdash-predictions .widget-slider')


_PRELIMINARY_ROW = ".srdash-pred-preliminary tbody tr:first-child"
#: the first row's place, team and score, and the verdict fingerprint
_FIRST_SCREEN = (*(f"{_PRELIMINARY_ROW} td:nth-child({i})" for i in (1, 2, 3)), ".srdash-fingerprint-value")
_SCROLL_SIGN_JS = """() => {
  const panel = document.querySelector('.srdash-pred-preliminary-panel');
  return panel.scrollWidth <= panel.clientWidth + 1 || getComputedStyle(panel).backgroundImage.includes('gradient');
}"""


def _no_clipped_or_overlapping_text(page, width: int, tmp_path) -> None:
    """The checks of the page, ``width`` px wide, in its first state (the combined leaderboards)."""
    expect(page.locator(".srdash-pred-final tbody tr")).to_have_count(3, timeout=120_000)
    expect(plot_title(page, "(combined metrics; rule 'last')")).to_be_visible(timeout=60_000)
    # the first screen (900 px tall on a desk, 844 on a phone) shows the leaderboard's first row (place,
    # team, score) and the verdict fingerprint; the table is wider than a phone: it scrolls in its box
    height = 900 if width > 600 else 844
    assert first_screen_problems(page, _FIRST_SCREEN, width, height) == []
    assert page.evaluate(_SCROLL_SIGN_JS), "the preliminary leaderboard is cut without a scroll sign"
    # issue 38: one line a row (about 25 px at 13 px text; 110 px before, its cells wrapping)
    heights = page.evaluate("""() => [...document.querySelectorAll('.srdash-pred-leaderboard tbody tr')]
                               .map(r => r.getBoundingClientRect().height)""")
    assert heights and max(heights) < 40, heights
    # c's combined score, H(3, 2) = 2.4, with the tables' 4 decimals; its RMSE 1.9039 (sqrt(1 + 6.25) / sqrt(2))
    expect(page.locator(".srdash-pred-final tbody tr").first).to_contain_text("2.4000")
    expect(page.locator(".srdash-pred-final tbody tr").first).to_contain_text("1.9039")
    # each caption wraps within the window, whole
    captions = page.evaluate("""() => [...document.querySelectorAll('.srdash-pred-caption')]
                                .map(c => [c.getBoundingClientRect().right, c.scrollWidth - c.clientWidth])""")
    assert captions and all(right <= width + 1 and over <= 1 for right, over in captions), captions
    assert cut_buttons(page) == []
    # the weight sensitivity of the combined leaderboard: three more figures (bump chart, heatmap, tau)
    page.get_by_role("button", name="Analyse the metric weights").click()
    expect(plot_title(page, "Place probabilities over 1,000")).to_be_visible(timeout=60_000)
    expect(plot_title(page, "Kendall τ")).to_be_visible(timeout=60_000)
    expect(page.locator(PLOT)).to_have_count(4)
    page.wait_for_timeout(1000)                       # plotly's responsive resize
    screenshot(page, tmp_path, f"predictions-{width}px")
    problems = layout_problems(page, LAYOUT) + figure_text_problems(page)
    # the bump chart included (once a FigureWidget drawn at plotly's default 700 px on a phone)
    assert problems == [], "\n".join(problems)
    assert cut_buttons(page) == []
    expect(page.locator(".srdash-log")).to_have_count(1)   # one log per app, the sensitivity view's included
    expect(page.locator(".srdash-log")).not_to_contain_text("Error")


def test_the_predictions_app_at_a_wide_screen_has_no_clipped_or_overlapping_text(desk, tmp_path):
    """The desk's page, back on the combined leaderboards (its first state) after the tests above."""
    page = desk[0]
    page.locator(".srdash-pred-ranking button", has_text="Combined").click()
    _no_clipped_or_overlapping_text(page, 1400, tmp_path)


def test_the_predictions_app_on_a_phone_has_no_clipped_or_overlapping_text(app_url, browser, tmp_path):
    # tall: the lab template scrolls inside its own container, so the full-page screenshot is the viewport
    context = browser.new_context(viewport={"width": 390, "height": 5000})
    try:
        page = context.new_page()
        page.goto(app_url, timeout=120_000)
        _no_clipped_or_overlapping_text(page, 390, tmp_path)
    finally:
        context.close()
