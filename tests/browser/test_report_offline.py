"""The static report opened from disk in headless Chromium with the network cut off.

Every request that is not for a file:// URL is aborted and counted, and the
browser context is offline as well: the report must not ask for anything, every
plot must render, and the plots must stay interactive (hover, zoom).

The demo's report (5 MB, a dozen figures) is opened once at a desk's 1400 x 900, for its first screen and then
its plots, and once on a phone.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from srdash.demo.competition import HOSTILE_MODEL, demo_competition
from srdash.io.loading import load_results
from srdash.judging.pipeline import prepare_runs
from srdash.judging.ranking import judge
from srdash.report.build import Report, build_report, render_html, report_figures
from srdash.judging.rules import load_rules
from voila_server import figure_text_problems, first_screen_problems, layout_problems, screenshot

pytestmark = pytest.mark.browser

_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+\.?\d*(?:[eE][-+]?\d+)?|\*\*|[-+*/]")
RENDER_TIMEOUT_MS = 60_000
FINGERPRINT = "5a22d15d7ff4" + "0" * 52


@pytest.fixture(scope="module")
def report_file(tmp_path_factory):
    """The demo's report on disk, and its number of figures.

    Components are given directly (a token count standing in for the simplified
    size) so that no sympy work is needed; the hostile model goes through the
    real pipeline and is rejected.
    """
    table = demo_competition().table
    sizes = table["model"].map(lambda model: float(max(1, len(_TOKEN.findall(str(model))))))
    table = table.assign(components=sizes.where(table["model"] != HOSTILE_MODEL))
    runs = prepare_runs(load_results(table), cache=False)
    report = build_report(judge(runs, load_rules("srbench2022")), runs=runs, samples=500)
    # a competition's report names its verdict in the header (build_competition_report sets it)
    report = replace(report, verdict_fingerprint=FINGERPRINT)
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    return path, len(report_figures(report))


@pytest.fixture(scope="module")
def offline_page(browser, report_file):
    """The demo's report at a desk's 1400 x 900, in an offline context that aborts (and records) every non-file
    request, once every figure is drawn."""
    path, n_figures = report_file
    context = browser.new_context(viewport={"width": 1400, "height": 900}, device_scale_factor=1)
    context.set_offline(True)
    outside: list[str] = []

    def refuse_network(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", refuse_network)
    page = context.new_page()
    failed: list[str] = []
    errors: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(path.as_uri())
        page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length === {n_figures}",
                               timeout=RENDER_TIMEOUT_MS)
        yield page, outside, failed, errors
    finally:
        context.close()


def test_the_report_opens_on_its_title_leaderboard_and_fingerprint_at_a_desk(offline_page):
    """The desk's page as opened (before the test below scrolls it)."""
    _first_screen(offline_page[0], 1400, 900)


def test_report_renders_offline_with_interactive_plots(report_file, offline_page):
    path, n_figures = report_file
    page, outside, failed, errors = offline_page

    # every figure rendered: one drawn plot per figure div, each with its SVG
    assert page.locator(".plotly-graph-div").count() == n_figures
    assert page.locator(".js-plotly-plot .main-svg").count() >= n_figures
    assert int(page.locator("meta[name=srdash-figures]").get_attribute("content")) == n_figures

    # hover: the per-dataset heatmap's hover label names a method and a dataset
    heatmap = page.locator("#srdash-figure-1")
    heatmap.scroll_into_view_if_needed()
    heatmap.locator(".nsewdrag").first.hover()
    label = page.locator("#srdash-figure-1 .hoverlayer .hovertext")
    label.first.wait_for(state="visible", timeout=10_000)
    text = label.first.text_content()
    assert " on " in text and "dataset score" in text
    assert "%{" not in text and re.search(r"rank \d+(\.\d+)? of \d+", text), text  # the cell's values filled in

    # zoom: dragging across the heatmap changes its x range
    before = page.evaluate("document.getElementById('srdash-figure-1')._fullLayout.xaxis.range.slice()")
    box = heatmap.locator(".nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + box["height"] * 0.5)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5, steps=8)
    page.mouse.up()
    page.wait_for_function(
        f"JSON.stringify(document.getElementById('srdash-figure-1')._fullLayout.xaxis.range) !== "
        f"JSON.stringify({before})", timeout=10_000)

    # nothing left the disk and nothing failed
    assert outside == [], outside
    assert failed == [], failed
    assert errors == [], errors


@pytest.fixture(scope="module")
def explained_report(tmp_path_factory):
    """A small report with the winner certificate and a jury model of three judges (no sympy work)."""
    from dataclasses import replace

    import pandas as pd

    from srdash.analysis.certificate import winner_certificate
    from srdash.analysis.jury_model import jury_model

    methods = ["ExactSR", "LassoSR", "LinearRegression", "PolyRidge", "GreedyGP", "BloatGP"]
    runs = pd.DataFrame([{"method": m, "dataset": f"dataset_{d}", "run": 0,
                          "r2_test": 0.99 - 0.1 * i + 0.03 * ((i + d) % 3), "components": 3.0 + 2 * i,
                          "simplicity": -0.5 - 0.2 * i, "property": 0.5, "status": "given"}
                         for d in range(4) for i, m in enumerate(methods)])
    rules = load_rules("srbench2022")
    # a Report of the verdict only (no sensitivity, no bootstrap): the sections under test and few others
    report = Report(title="Explained", verdict=judge(runs, rules), runs=runs)
    orders = {"ann": methods, "bob": methods[1:2] + methods[:1] + methods[2:], "cy": methods[::-1]}
    ranks = pd.DataFrame([(j, f"dataset_{d}", m, float(r)) for j, order in orders.items() for d in range(2)
                          for r, m in enumerate(order, 1)], columns=["judge", "dataset", "method", "rank"])
    report = replace(report, certificate=winner_certificate(runs, rules=rules), jury_model=jury_model(ranks))
    path = tmp_path_factory.mktemp("explained") / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    return path


_SMALL_CELL_TEXT_JS = """() => {
  const problems = [];
  document.querySelectorAll('.js-plotly-plot').forEach((plot, i) => {
    const sizes = [...plot.querySelectorAll('.heatmaplayer text')].map(t => parseFloat(getComputedStyle(t).fontSize));
    const title = (plot.layout && plot.layout.title && plot.layout.title.text) || '';
    if (sizes.length && Math.min(...sizes) < 9) problems.push(`figure ${i} (${title}): cell text ${Math.min(...sizes)} px`);
  });
  return problems;
}"""


@pytest.mark.parametrize("width, height", [(390, 844), (1400, 900)])
def test_why_this_winner_and_the_jury_model_are_legible_at_both_widths(explained_report, browser, width, height,
                                                                        screenshot_dir):
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_offline(True)
    try:
        page = context.new_page()
        page.goto(explained_report.as_uri())
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length > 0",
                               timeout=RENDER_TIMEOUT_MS)
        for key, text in (("why", "Outcome, and why"), ("jury", "Plackett-Luce")):
            section = page.locator(f"section#{key}")
            section.scroll_into_view_if_needed()
            assert section.is_visible() and text in section.inner_text()
        page.wait_for_timeout(1000)                      # plotly's responsive resize
        # nothing runs past the window (a wide table scrolls inside its box) and no figure text is clipped
        assert layout_problems(page, "section#why *, section#jury *, nav.srdash-nav") == []
        assert figure_text_problems(page) == []
        # the numbers in heatmap cells stay legible (plotly shrinks them to fit a cell: at 390 px a six-column
        # heatmap's went down to 3 px before such heatmaps kept a desk width and scrolled sideways)
        page.wait_for_function("[...document.querySelectorAll('.js-plotly-plot')].every(p => p.querySelector('.main-svg'))",
                               timeout=RENDER_TIMEOUT_MS)
        assert page.evaluate(_SMALL_CELL_TEXT_JS) == []
        # the section links stay on one line on a phone (a sticky bar of seven lines hid a third of the screen)
        assert page.locator("nav.srdash-nav").bounding_box()["height"] < 60
        screenshot(page, screenshot_dir, f"report-why-jury-{width}px")
    finally:
        context.close()


_WIDE_TABLES_JS = """([width, height]) => {
  const problems = [];
  // the fingerprint closes the header's first line of facts ("... Verdict fingerprint: 5a22d15d7ff4.")
  if (!document.querySelector('header .srdash-subtitle').textContent.includes('Verdict fingerprint: 5a22d15d7ff4.'))
    problems.push('the header does not name the verdict fingerprint');
  // tables wider than the screen scroll inside their block (which has an edge shadow), the page does not
  if (document.documentElement.scrollWidth > width + 1) problems.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  document.querySelectorAll('table').forEach((table, i) => {
    const block = table.closest('.srdash-scroll, .srdash-block');   // the nearest box that scrolls it
    const r = table.getBoundingClientRect();
    if (r.right > width + 1 && !(block && getComputedStyle(block).overflowX === 'auto' && block.scrollWidth > block.clientWidth
                                 && getComputedStyle(block).backgroundImage.includes('gradient')))
      problems.push(`table ${i} (${table.className}) is cut at the screen's edge without a scroll sign`);
  });
  return problems;
}"""


def _first_screen(page, width: int, height: int) -> None:
    # how the leaderboard is scored waits behind a closed disclosure
    scoring = page.locator("#leaderboard details.srdash-scoring")
    assert scoring.get_attribute("open") is None and "How is this scored?" in scoring.inner_text()
    row = "#leaderboard table.srdash-leaderboard tbody tr:first-child"
    assert first_screen_problems(page, ("header h1", f"{row} td.srdash-place", f"{row} td.srdash-method",
                                        f"{row} td.srdash-score", "header .srdash-subtitle"), width, height) == []
    assert page.evaluate(_WIDE_TABLES_JS, [width, height]) == []


def test_the_report_opens_on_its_title_leaderboard_and_fingerprint_on_a_phone(report_file, browser):
    path, _ = report_file
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1,
                                  is_mobile=True, has_touch=True)
    context.set_offline(True)
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        _first_screen(page, 390, 844)
    finally:
        context.close()
