"""Time to a ready demo dashboard, as a ratio to Voilà serving a trivial notebook on the same machine.

Measured in one run, in headless Chromium (Debian's /usr/bin/chromium, Playwright):

- baseline, cold: from starting ``python -m voila trivial.ipynb`` to the text "Ready" on the
  page (the notebook has one cell, ``print("Ready")``);
- baseline, re-open: a new page on the same server until "Ready";
- demo, fresh install: from starting ``srdash serve`` (no INPUT: the built-in demo) with an
  empty cache folder (``SRDASH_CACHE_DIR``) to the dashboard's status line "Ready in ...";
- demo, re-open and second visitor: a new page (a new browser context: another visitor, a new
  kernel) on the same server until "Ready in ...".

Targets (issue 13): fresh install <= 2x the baseline; re-open and second visitor <= 1.3x.
No assertions; timings on a shared machine are noisy: compare the ratios of one run.

Usage: python benchmarks/serve_open.py [--repeat 1] [--preheat]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
TRIVIAL = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                      "source": ["print('Ready')"]}],
           "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
           "nbformat": 4, "nbformat_minor": 5}


def _environment(folder: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    env.update({"PYTHONPATH": str(REPO), "SRDASH_CACHE_DIR": str(folder / "cache"),
                "JUPYTER_RUNTIME_DIR": str(folder / "runtime"), "JUPYTER_DATA_DIR": str(folder / "data"),
                "IPYTHONDIR": str(folder / "ipython")})
    return env


def _free_port() -> int:
    from srdash.apps.server import free_port

    return free_port()


def _open(browser, url: str, text: str, timeout_s: float = 600) -> float:
    """Seconds from navigation until ``text`` is visible, in a new context (a new visitor)."""
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url, timeout=timeout_s * 1000)
    found = page.get_by_text(text).first
    found.wait_for(state="visible", timeout=timeout_s * 1000)
    seconds = time.perf_counter() - start
    if text != "Ready":
        print(f"  [{seconds:.1f} s] the page says: {found.text_content().strip()[:200]}")
    context.close()
    return seconds


def _serve(command, env, folder: Path, port: int):
    log = open(folder / f"server-{port}.log", "wb")
    return subprocess.Popen(command, env=env, cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True), log


def _until_ready(browser, process, url: str, text: str, started: float) -> float:
    """Seconds from ``started`` (the server's start) until ``text`` shows on a first page."""
    from srdash.apps.server import wait_until_ready

    wait_until_ready(url, timeout=300, process=process)
    _open(browser, url, text)
    return time.perf_counter() - started


def _stop(process, log) -> None:
    import signal

    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
    log.close()


def measure(browser, *, preheat: bool = False) -> dict:
    result = {}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        notebook = folder / "trivial.ipynb"
        notebook.write_text(json.dumps(TRIVIAL))
        env = _environment(folder)

        port = _free_port()
        url = f"http://127.0.0.1:{port}/"
        started = time.perf_counter()
        process, log = _serve([sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}",
                               "--Voila.ip=127.0.0.1"], env, folder, port)
        try:
            result["baseline cold"] = _until_ready(browser, process, url, "Ready", started)
            result["baseline re-open"] = _open(browser, url, "Ready")
        finally:
            _stop(process, log)

        port = _free_port()
        url = f"http://127.0.0.1:{port}/"
        started = time.perf_counter()
        process, log = _serve([sys.executable, "-m", "srdash", "serve", "--port", str(port),
                               *(["--preheat"] if preheat else [])], env, folder, port)
        try:
            result["demo fresh install"] = _until_ready(browser, process, url, "Ready in", started)
            result["demo re-open"] = _open(browser, url, "Ready in")
            result["demo second visitor"] = _open(browser, url, "Ready in")
        finally:
            _stop(process, log)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--preheat", action="store_true", help="serve the demo with `srdash serve --preheat`")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(args.repeat):
                result = measure(browser, preheat=args.preheat)
                cold, warm = result["baseline cold"], result["baseline re-open"]
                print(f"\n{'path':24s} {'seconds':>8s} {'vs baseline':>12s}")
                for label, seconds in result.items():
                    base = cold if "cold" in label or "fresh" in label else warm
                    print(f"{label:24s} {seconds:8.2f} {seconds / base:11.2f}x")
        finally:
            browser.close()
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
