"""The SRBench views (Pareto front, performance profiles, pairwise p-values, CD diagram) render
in the real dashboard (`srdash serve`, Voilà) and in the offline report, in headless Chromium."""

from __future__ import annotations

import re
import time

import pandas as pd
import pytest

from srdash.apps.dashboard import LINEAGE_VIEW_TITLE
from srdash.report.build import build_report, render_html
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules
from voila_server import PLOT, plot_title

pytestmark = pytest.mark.browser

expect = pytest.importorskip("playwright.sync_api").expect

OFFLINE_OK = re.compile(r"font-?awesome|fontawesome", re.IGNORECASE)
TITLES = ("Pareto fronts", "Performance profiles (r2_test)", "Pairwise Wilcoxon signed-rank tests")


def results_table() -> pd.DataFrame:
    # three methods, four datasets, two runs; components given, so no sympy work
    rows = []
    for d, dataset in enumerate(["d1", "d2", "d3", "d4"]):
        for run in range(2):
            rows += [("<b>A</b>", dataset, run, 0.90 - 0.02 * d, 30.0),
                     ("B", dataset, run, 0.70 + 0.01 * run, 5.0),
                     ("C", dataset, run, 0.50 + 0.03 * d, 8.0)]
    # srbench2022 ranks a property: the same for everyone here
    from srdash.expressions import simplicity_from_components

    table = pd.DataFrame(rows, columns=["method", "dataset", "run", "r2_test", "components"]).assign(property=0.5)
    return table.assign(simplicity=simplicity_from_components(table["components"]))


@pytest.fixture(scope="module")
def server(start_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("lineage-app")
    results_table().to_csv(folder / "results.csv", index=False)
    return start_server(["serve", str(folder / "results.csv")], name="lineage")


@pytest.fixture(scope="module")
def page(server, browser):
    """The module's one page of the dashboard (a page costs a kernel), its leaderboard shown, with its failed
    requests and errors."""
    context = browser.new_context(viewport={"width": 1400, "height": 4200})
    page = context.new_page()
    failed, errors = [], []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url, timeout=120_000)
    expect(page.locator(".srdash-leaderboard .srdash-method").first).to_be_visible(timeout=180_000)
    yield page, failed, errors
    context.close()


def test_dashboard_srbench_view_renders(page):
    page, failed, errors = page
    page.get_by_text(LINEAGE_VIEW_TITLE, exact=True).click()
    for title in TITLES:
        expect(plot_title(page, title).first).to_be_visible(timeout=60_000)
    # the method name is shown as text, never as markup
    assert page.locator(f"{PLOT} b", has_text="A").count() == 0
    expect(page.locator(".srdash-log")).not_to_contain_text("Error")
    assert not errors, errors
    assert [url for url in failed if not OFFLINE_OK.search(url)] == []


def test_report_srbench_section_renders_offline(browser, tmp_path):
    runs = results_table()
    report = build_report(judge(runs, load_rules("srbench2022")), runs=runs, samples=50)
    path = tmp_path / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
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
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(path.as_uri())
        section = page.locator("#lineage")
        for title in TITLES:
            expect(section.locator(".js-plotly-plot .gtitle", has_text=title).first).to_be_visible(timeout=60_000)
        # the critical-difference diagram once in the report (here in the SRBench views: this report has no
        # Significance section; tests/test_lineage_report.py checks the report that has one)
        expect(page.locator(".js-plotly-plot .gtitle", has_text="Critical difference")).to_have_count(1)
        expect(section.locator(".js-plotly-plot .gtitle", has_text="Critical difference")).to_be_visible()
        assert outside == [] and errors == [], (outside, errors)
    finally:
        context.close()


def test_the_terminal_shows_srdash_lines_not_voila_warnings(server, page):
    # Voila used to warn that the notebook "is not trusted", its kernels that they ran "over TCP without
    # encryption", and tornado about its websocket ping timeout: Voila now logs errors only, the kernels
    # use local sockets and the ping timeout is the interval. After the module's page was served and used.
    deadline = time.monotonic() + 60   # srdash announces the link once its own readiness check has passed
    while "srdash dashboard: http://127.0.0.1:" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    log = server.log()
    assert "srdash dashboard: http://127.0.0.1:" in log
    assert "WARNING" not in log and "not trusted" not in log and "without encryption" not in log, log
    assert "websocket_ping_timeout" not in log, log
    assert "Competition prepared for every visitor" in log  # srdash says what it does itself
