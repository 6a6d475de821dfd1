"""Figures and buttons that read at a glance (issue 38), in the real `srdash serve` and `srdash predictions serve`,
at a phone's 390 x 844 and a desk's 1400 x 900: one page per size, every view with a figure opened once.

- the Pareto front's point labels do not overlap ("LassoSRGreedyGP");
- every button shows its whole label (scrollWidth <= clientWidth: "Find weights" read "Find we...");
- every heatmap's tick labels and cell texts are at least 10 px (plotly shrank them to 4 px), every row labelled;
- the critical-difference diagram appears once on the page (it was in two views);
- the predictions app's rows are one line tall and its captions wrap inside the window ("...score highe").
"""

from __future__ import annotations

import pytest
from voila_server import PLOT, plot_title, screenshot

from srdash.apps.more_views import COMPARISON_VIEW_TITLE, LINEAGE_VIEW_TITLE, PROPERTY_VIEW_TITLE

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

APP_READY_TIMEOUT_MS = 240_000
SIZES = {"phone": (390, 844), "desk": (1400, 900)}
# The views holding a heatmap, the "Find weights" button, the CD diagram, the Pareto front, the comparison; and
# what each shows once built (a figure's title, or a selector).
VIEWS = ((PROPERTY_VIEW_TITLE, "Property score per dataset"), ("Weight sensitivity", "Winner over all weights"),
         ("Rank uncertainty and significance", "Critical difference diagram"), (LINEAGE_VIEW_TITLE, "Pareto fronts"),
         (COMPARISON_VIEW_TITLE, ".srdash-cd-elsewhere"))

CUT_BUTTONS_JS = """() => [...document.querySelectorAll('button')]
  .filter(b => b.getBoundingClientRect().width > 0 && b.scrollWidth > b.clientWidth + 1)
  .map(b => `'${b.textContent.trim()}' (${b.scrollWidth} > ${b.clientWidth})`)"""

# Per heatmap figure shown: its title, the smallest font of its tick labels and cell texts, and its row labels.
HEATMAP_TEXT_JS = """(plot) => [...document.querySelectorAll(plot)]
  .filter(p => p.querySelector('.heatmaplayer') && p.getBoundingClientRect().width > 0)
  .map(p => {
    const texts = [...p.querySelectorAll('.xtick text, .ytick text, .heatmaplayer text')]
      .filter(t => t.textContent.trim());
    return {title: (p.querySelector('.gtitle') || {textContent: ''}).textContent.slice(0, 50),
            smallest: Math.min(...texts.map(t => parseFloat(getComputedStyle(t).fontSize))),
            rows: p.querySelectorAll('.ytick text').length};
  })"""

# Pairs of point labels (scatter text) of the shown Pareto fronts whose boxes overlap by more than a pixel.
LABEL_OVERLAPS_JS = """(plot) => {
  const overlaps = [];
  [...document.querySelectorAll(plot)].filter(p => p.getBoundingClientRect().width > 0
      && (p.querySelector('.gtitle') || {textContent: ''}).textContent.startsWith('Pareto fronts')).forEach(p => {
    const boxes = [...p.querySelectorAll('.textpoint text')].filter(t => t.textContent.trim())
      .map(t => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [s, a] = boxes[i], [t, b] = boxes[j];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) overlaps.push(`'${s}' overlaps '${t}'`);
    }
  });
  return overlaps;
}"""


def _open_views(page):
    """Open each view in turn (the accordion shows one at a time); yield its title once it is drawn."""
    yield "first screen"
    for title, shows in VIEWS:
        page.get_by_text(title, exact=True).click()
        expect(page.locator(".srdash-computing")).to_have_count(0, timeout=180_000)
        shown = page.locator(shows) if shows.startswith(".") else plot_title(page, shows)
        expect(shown.first).to_be_visible(timeout=180_000)
        page.wait_for_timeout(1500)                               # plotly's responsive resize
        yield title


@pytest.mark.parametrize("size", list(SIZES))
def test_dashboard_buttons_heatmaps_and_one_cd_diagram(size, browser, dashboard_url, screenshot_dir):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(dashboard_url, timeout=120_000)
        expect(page.locator(".srdash-leaderboard .srdash-method").first).to_be_visible(timeout=APP_READY_TIMEOUT_MS)
        titles = []
        for view in _open_views(page):
            assert page.evaluate(CUT_BUTTONS_JS) == [], view
            if view == LINEAGE_VIEW_TITLE:   # the "LassoSRGreedyGP"
                assert page.evaluate(LABEL_OVERLAPS_JS, PLOT) == []
            if view == "Weight sensitivity":
                expect(page.get_by_role("button", name="Find weights")).to_be_visible(timeout=60_000)
            for heatmap in page.evaluate(HEATMAP_TEXT_JS, PLOT):
                assert heatmap["smallest"] >= 10, (view, heatmap)
                assert heatmap["rows"] >= 2, (view, heatmap)
                titles.append(heatmap["title"])
            if view == "first screen":
                screenshot(page, screenshot_dir, f"phone-figures-dashboard-{width}px")
        # the property scores, the place probabilities (sensitivity and bootstrap), the pairwise tests
        assert any(t.startswith("Property score per dataset") for t in titles), titles
        assert any(t.startswith("Place probabilities") for t in titles), titles
        # the views opened stay in the page: one critical-difference diagram among them
        assert page.locator(f"{PLOT} .gtitle", has_text="Critical difference diagram").count() == 1
        screenshot(page, screenshot_dir, f"phone-figures-comparison-{width}px")
    finally:
        context.close()


@pytest.fixture(scope="module")
def predictions_url(start_server, tmp_path_factory):
    # the competition of test_predictions_app.py: three teams, RMSE and MAE, scores like 2.4 and 1.33333
    folder = tmp_path_factory.mktemp("predictions-figures")
    files = {"p.txt": "0\n0\n\n\n", "f.txt": "\n\n0\n0\n", "a.txt": "2\n2\n0\n3\n", "x.txt": "0\n3\n2\n2\n",
             "c.txt": "1\n2.5\n1\n2.5\n",
             "listing.csv": "team,file\na,a.txt\nx,x.txt\nc,c.txt\n"}
    for name, text in files.items():
        (folder / name).write_text(text)
    server = start_server(["predictions", "serve", str(folder / "listing.csv"), "--targets-preliminary",
                           str(folder / "p.txt"), "--targets-final", str(folder / "f.txt"),
                           "--metric", "rmse", "--metric", "mae"], name="predictions-figures")
    return server.url


@pytest.mark.parametrize("size", list(SIZES))
def test_predictions_rows_fit_and_numbers_have_fixed_decimals(size, browser, predictions_url, screenshot_dir):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(predictions_url, timeout=120_000)
        rows = page.locator(".srdash-pred-final tbody tr")
        expect(rows).to_have_count(3, timeout=APP_READY_TIMEOUT_MS)
        page.wait_for_timeout(1000)
        screenshot(page, screenshot_dir, f"phone-figures-predictions-{width}px")
        # one line a row (about 25 px at 13 px text; 110 px before, its cells wrapping)
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
        assert page.evaluate(CUT_BUTTONS_JS) == []
    finally:
        context.close()
