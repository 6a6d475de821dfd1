"""Time to a ready demo dashboard, as a ratio to Voilà serving a trivial notebook on the same machine.

Measured in one run, in headless Chromium (Debian's /usr/bin/chromium, Playwright):

- baseline, cold: from starting ``python -m voila trivial.ipynb`` to the text "Ready" on the
  page (the notebook has one cell, ``print("Ready")``);
- baseline, re-open: a new page on the same server until "Ready";
- demo, fresh install: from starting ``srdash serve`` (no INPUT: the built-in demo) with an
  empty cache folder (``SRDASH_CACHE_DIR``) to the dashboard's status line "Ready in ...";
- demo, re-open and second visitor: a new page (a new browser context: another visitor, a new
  kernel) on the same server until "Ready in ...", once the server is warm again (``--settle``
  seconds after the previous page: Voilà has refilled its waiting kernel);
- demo, back to back: a visitor right after another (the server is still starting the kernel that
  will wait for the next visitor), for information;
- "first figure": the same pages until their first plotly figure is drawn (the page shows its
  text first, then its figures).

"Until the text shows" is the first animation frame in which the text is in the page and laid out
(recorded by a script in the page, from the page's navigation start): the frame that paints it.

Targets (issue 13): fresh install <= 2x the baseline; re-open and second visitor <= 1.3x.
No assertions; timings on a shared machine are noisy: compare the ratios of one run.

Usage: python benchmarks/serve_open.py [--repeat 1] [--no-preheat] [--settle 8]
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


FIGURE = ".jp-OutputArea .js-plotly-plot"
_figure_times: list[float] = []

# When the page is ready: its ready element (a CSS selector) or text laid out, time-stamped at the animation frame
# that paints it (a frame's callbacks run just before it is painted). The probe asks the page for no work of its own:
# it looks in a frame only when the page's DOM changed since the last one (a MutationObserver: nodes added, text
# changed, a class or style set), and a page produces that frame anyway to show the change. For a text, a change
# counts only once it brought the text (the text is looked for in what was added or changed, not in the whole
# page), or once the text is in the page but not yet laid out; then a stylesheet loaded counts too, and a look every
# 100 ms catches what no change announces. The Python side awaits the promise window.__srdashReady (no polling).
# The probe before (srdash's until 2026-11-28) looked at every animation frame, and Playwright's waits polled at
# every frame too: every waiting page produced 60 frames a second and laid itself out in each, and for a text
# walked all of the page's text: work no visitor's browser does, and more of it the longer and the larger the page
# (docs/scaling.md, "The readiness probe"). Waiting from Python (Playwright's wait_for) would measure later on the
# dashboard: its script cannot run while plotly draws the figures that follow the text (~0.9 s).
READY_PROBE = """
([selector, text]) => {
  let settle;
  window.__srdashReady = new Promise((resolve) => { settle = resolve; });
  let done = false, present = false, asked = false;
  const laidOut = (element) => element.getBoundingClientRect().width > 0;
  const ready = () => {  // the ready mark, laid out (asked in a frame: the frame lays the page out anyway)
    if (selector) {
      const element = document.querySelector(selector);
      present = present || element !== null;
      return element !== null && laidOut(element);
    }
    if (!document.body) return false;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      if (node.data.includes(text)) {
        present = true;
        if (node.parentElement && laidOut(node.parentElement)) return true;
      }
    return false;
  };
  const look = () => {
    asked = false;
    if (done || !ready()) return;
    done = true;
    observer.disconnect();
    clearInterval(timer);
    settle(performance.now());
  };
  const ask = () => { if (!done && !asked) { asked = true; requestAnimationFrame(look); } };
  const mentions = (records) => {  // whether a change may have brought the text
    for (const record of records) {
      if (record.type === "characterData" && record.target.data.includes(text)) return true;
      if (record.type === "childList")
        for (const node of record.addedNodes) if ((node.textContent || "").includes(text)) return true;
    }
    return false;
  };
  const observer = new MutationObserver((records) => { if (selector || present || mentions(records)) ask(); });
  observer.observe(document, {childList: true, subtree: true, characterData: true, attributes: true,
                              attributeFilter: ["class", "style", "hidden"]});
  document.addEventListener("load", () => { if (present) ask(); }, true);
  const timer = setInterval(() => { if (present) ask(); }, 100);
}
"""


def _open(browser, url: str, text: str, timeout_s: float = 600) -> float:
    """Seconds from navigation until ``text`` is painted, in a new context (a new visitor).

    For the dashboard, the seconds until its first figure is drawn go to ``_figure_times``.
    """
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    context.add_init_script(f"({READY_PROBE})({json.dumps([None, text])})")
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url, timeout=timeout_s * 1000)
    seconds = page.evaluate("window.__srdashReady") / 1000.0  # ms since this page's navigation started
    if text != "Ready":
        found = page.get_by_text(text).first
        page.locator(FIGURE).first.wait_for(state="visible", timeout=timeout_s * 1000)
        _figure_times.append(time.perf_counter() - start)
        print(f"  [{seconds:.1f} s, first figure {_figure_times[-1]:.1f} s] the page says: "
              f"{found.text_content().strip()[:200]}")
    context.close()
    return seconds


def _until_ready(browser, process, url: str, text: str, started: float) -> float:
    """Seconds from ``started`` (the server's start) until ``text`` shows on a first page."""
    from srdash.apps.server import wait_until_ready

    wait_until_ready(url, timeout=300, process=process)
    navigation = time.perf_counter()
    return navigation - started + _open(browser, url, text)


def _serve(command, env, folder: Path, port: int):
    log = open(folder / f"server-{port}.log", "wb")
    return subprocess.Popen(command, env=env, cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True), log


def _stop(process, log) -> None:
    import signal

    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
    log.close()


def measure(browser, *, preheat: bool = True, settle: float = 8.0) -> dict:
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
            time.sleep(settle)
            result["baseline re-open"] = _open(browser, url, "Ready")
        finally:
            _stop(process, log)

        port = _free_port()
        url = f"http://127.0.0.1:{port}/"
        started = time.perf_counter()
        process, log = _serve([sys.executable, "-m", "srdash", "serve", "--port", str(port),
                               "--preheat" if preheat else "--no-preheat"], env, folder, port)
        try:
            result["demo fresh install"] = _until_ready(browser, process, url, "Ready in", started)
            time.sleep(settle)
            result["demo re-open"] = _open(browser, url, "Ready in")
            time.sleep(settle)
            result["demo second visitor"] = _open(browser, url, "Ready in")
            result["demo back to back"] = _open(browser, url, "Ready in")
        finally:
            _stop(process, log)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-preheat", action="store_true", help="serve the demo with `srdash serve --no-preheat`")
    parser.add_argument("--settle", type=float, default=8.0,
                        help="seconds to wait before a re-open or a second visitor (the server gets warm again)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(args.repeat):
                _figure_times.clear()
                result = measure(browser, preheat=not args.no_preheat, settle=args.settle)
                cold, warm = result["baseline cold"], result["baseline re-open"]
                print(f"\n{'path':24s} {'seconds':>8s} {'vs baseline':>12s} {'first figure':>13s}")
                figures = iter(_figure_times)
                for label, seconds in result.items():
                    base = cold if "cold" in label or "fresh" in label else warm
                    figure = f"{next(figures):12.2f}s" if label.startswith("demo") else ""
                    print(f"{label:24s} {seconds:8.2f} {seconds / base:11.2f}x {figure}")
        finally:
            browser.close()
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
