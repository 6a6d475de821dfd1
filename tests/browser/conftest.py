"""The real `srdash serve` on the demo, driven by headless Chromium (Playwright, sync API).

The server runs once per test session on a free port, with hermetic cache and
Jupyter runtime folders, and is stopped with SIGTERM (Voilà then shuts its
kernels down). Chromium is Debian's (/usr/bin/chromium): Playwright cannot
download browsers here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from voila_server import CHROMIUM, VoilaServer

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
#: How long an ``expect(...)`` without its own timeout waits, in ms. Playwright's default, 5 s, is what a widget
#: update takes on a 2-core machine at load 10-20 (0.1-0.5 s idle); a bound only for what never happens, with
#: Playwright's message saying what was awaited.
EXPECT_TIMEOUT_MS = 60_000
#: How long an action or a ``wait_for_*`` call without its own timeout waits (a click waits for its element to be
#: visible, enabled and still), in ms: Playwright's default, 30 s, set on every context the ``browser`` fixture
#: makes. The same reasoning and the same bound as :data:`EXPECT_TIMEOUT_MS`.
ACTION_TIMEOUT_MS = 60_000


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            # No retries: a browser test that needs one is a bug to find (a wait on the
            # wrong thing, a race in the app), not something to hide.
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def server_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("srdash-serve")


@pytest.fixture(scope="session")
def dashboard_server(server_dir) -> VoilaServer:
    """A real `srdash serve` (the demo competition), stopped with SIGTERM at the end; its terminal in ``.log()``."""
    # The default time limit: the demo's results prepared by srdash ship with it (srdash.demo.prepared),
    # so the page needs no sympy work even with the empty cache of this server.
    server = VoilaServer(["serve", "--jobs", "2"], server_dir, name="serve")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def dashboard_url(dashboard_server) -> str:
    """URL of :func:`dashboard_server`."""
    return dashboard_server.url


@pytest.fixture(scope="module")
def start_server(tmp_path_factory):
    """``start_server(arguments, name=..., env=...)``: a :class:`VoilaServer` stopped at the module's end."""
    started: list[VoilaServer] = []
    folder = tmp_path_factory.mktemp("servers")

    def start(arguments, *, name: str = "server", env=None) -> VoilaServer:
        server = VoilaServer(arguments, folder, name=name, env=env)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.process.poll() is None:
            server.stop()


class _Chromium:
    """A Playwright ``Browser`` whose new contexts wait :data:`ACTION_TIMEOUT_MS` by default."""

    def __init__(self, chromium):
        self._chromium = chromium

    def new_context(self, **options):
        context = self._chromium.new_context(**options)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        return context

    def __getattr__(self, name):
        return getattr(self._chromium, name)


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium; per module, because Playwright's sync API allows one instance at a time."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    playwright_api.expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield _Chromium(chromium)
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("screenshots")
