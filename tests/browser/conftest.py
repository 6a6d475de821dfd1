"""The real `srdash serve` on the demo, driven by headless Chromium (Playwright, sync API).

The server runs once per test session on a free port, with hermetic cache and
Jupyter runtime folders, and is stopped with SIGTERM (Voilà then shuts its
kernels down). Chromium is Debian's (/usr/bin/chromium): Playwright cannot
download browsers here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
SERVER_START_TIMEOUT = 120


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)
            # A real server and browser on 2 shared cores: a page that renders late
            # under load is retried (pytest-rerunfailures) rather than failing CI;
            # an assertion that fails three times is a real failure.
            item.add_marker(pytest.mark.flaky(reruns=2, reruns_delay=2))


def _free_port() -> int:
    from srdash.app import free_port

    return free_port()


def _wait_for(url: str, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"`srdash serve` exited with code {process.returncode} before answering")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise TimeoutError(f"{url} did not answer within {timeout} s")


@pytest.fixture(scope="session")
def server_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("srdash-serve")


@pytest.fixture(scope="session")
def dashboard_url(server_dir):
    """URL of a real `srdash serve` (the demo competition), stopped with SIGTERM at the end."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    port = _free_port()
    env = dict(os.environ)
    env.update({
        "SRDASH_CACHE_DIR": str(server_dir / "cache"),
        "JUPYTER_RUNTIME_DIR": str(server_dir / "runtime"),
        "JUPYTER_DATA_DIR": str(server_dir / "data"),  # Voilà writes a notebook-signing key there
        "IPYTHONDIR": str(server_dir / "ipython"),
        "PYTHONUNBUFFERED": "1",
    })
    for name in ("SRDASH_INPUT", "SRDASH_DATASETS"):
        env.pop(name, None)
    log = open(server_dir / "serve.log", "wb")
    # --timeout 1: about 40 of the demo's models need more than the default 10 s of
    # sympy.simplify (timeouts are not cached); 1 s keeps the wait to a few minutes.
    process = subprocess.Popen(
        [sys.executable, "-m", "srdash", "serve", "--port", str(port), "--jobs", "2", "--timeout", "1"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(url + "voila/static/voila.js", process, SERVER_START_TIMEOUT)
        yield url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)  # srdash serve stops Voilà, which stops its kernels
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        log.close()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium; per module, because Playwright's sync API allows one instance at a time."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("screenshots")
