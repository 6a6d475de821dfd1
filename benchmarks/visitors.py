"""N visitors at once: how long the last one waits, and how much memory the server then holds.

Measured in one run, in headless Chromium (Debian's /usr/bin/chromium, Playwright), on
``srdash serve`` (no INPUT: the built-in demo) with its defaults, or with ``--visitors K``:

- one visitor: a page alone, once the server is warm (its waiting kernels started), until the
  dashboard's status line "Ready in ..." is painted (as seen from the page, see serve_open.py), or,
  with ``--app review`` (``srdash review --judge ...`` on the demo's real-world track), until the
  first model card's trust control is painted; with ``--app voila``, the floor: Voilà itself serving a
  notebook of one cell, ``print("Ready")``, with a waiting (preheated) kernel for each of the N
  visitors, until "Ready" is painted. Its ratios are what the N browsers alone cost this machine;
  no Voilà app can do better on it;
- N visitors: N pages (N browser contexts: N visitors, N kernels) opened at the same moment,
  each until its status line is painted; the first and the last are printed, as a ratio to the
  single visitor;
- memory: the resident memory (RSS, and PSS, which counts shared pages once) of ``srdash serve``,
  Voilà and every kernel it runs, summed, after the N pages are ready;

Each row runs on a server of its own, started for it (then stopped), so the row for N holds the
kernels of its N visitors and the kernels waiting for the next ones, nothing left from other rows.
The single visitor is the row N = 1 (measured first even when not asked for).
- CPU: the seconds of CPU the server (srdash, Voilà, its kernels) used while the N pages opened,
  and what the rest of the machine used meanwhile (mostly the N Chromium pages: on a real jury,
  each visitor's own machine).

PSS is the honest sum of the memory of several processes that share pages; RSS counts each shared page once
per process.

Targets (issue 25), for N = 10 on 2 cores: the last visitor within 2.5x a single visitor;
server plus kernels at most 1.2 GB (PSS). No assertions: timings on a shared machine are noisy;
compare the ratios of one run.

Usage: python benchmarks/visitors.py [N ...] [--app dashboard|review|voila] [--visitors K | --no-preheat]
       [--settle 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_open import _SEEN, TRIVIAL, _environment, _free_port, _serve, _stop  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
READY = "Ready in"
_TEXT = {"dashboard": READY, "voila": "Ready"}  # the text each app's page is ready with
# When the review's first card control is painted: checked at every animation frame, in the page.
_CARD_SEEN = """
() => {
  window.__srdashSeen = null;
  const look = () => {
    const control = document.querySelector('.srdash-card select');
    if (window.__srdashSeen === null && control && control.getBoundingClientRect().width > 0) {
      window.__srdashSeen = performance.now();
      return;
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}
"""


def _tree(pid: int) -> list[int]:
    """pid and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def _memory_mb(pid: int) -> tuple[float, float, int]:
    """(RSS, PSS) in MB summed over ``pid``'s process tree, and the number of processes."""
    rss = pss = 0
    pids = _tree(pid)
    for each in pids:
        try:
            for line in Path(f"/proc/{each}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            continue
    return rss / 1024, pss / 1024, len(pids)


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids`` (and of their reaped children)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / ticks


def _machine_cpu_seconds() -> float:
    """CPU seconds the whole machine spent busy (all cores), from /proc/stat."""
    fields = [int(f) for f in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


async def _visit(browser, url: str, app: str) -> float:
    """Seconds from navigation until the page is ready (see the module's doc), in a new context (a new visitor)."""
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    if app == "review":
        await context.add_init_script(f"({_CARD_SEEN})()")
    else:
        await context.add_init_script(f"({_SEEN})({json.dumps(_TEXT[app])})")
    page = await context.new_page()
    await page.goto(url, timeout=600_000)
    ready = page.locator(".srdash-card select").first if app == "review" else page.get_by_text(_TEXT[app]).first
    await ready.wait_for(state="visible", timeout=600_000)
    await page.wait_for_function("window.__srdashSeen !== null", timeout=600_000)
    seconds = await page.evaluate("window.__srdashSeen") / 1000.0
    return seconds, context


async def _together(browser, url: str, n: int, app: str) -> list[float]:
    visits = await asyncio.gather(*(_visit(browser, url, app) for _ in range(n)))
    return [seconds for seconds, _ in visits], [context for _, context in visits]


async def _on_a_fresh_server(command: list[str], n: int, settle: float, app: str):
    """Start the server, wait ``settle`` s (its waiting kernels start), open ``n`` pages together.

    Returns the pages' seconds to ready, the idle server's (RSS, PSS, processes), the server's
    (RSS, PSS, processes) once they are ready, and the CPU seconds of the server and of the rest of
    the machine while they opened.
    """
    from playwright.async_api import async_playwright

    from srdash.apps.server import wait_until_ready

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        env = _environment(folder)
        port = _free_port()
        url = f"http://127.0.0.1:{port}/"
        if app == "voila":  # the floor: a waiting kernel for each visitor, and nothing to compute
            (folder / "trivial.ipynb").write_text(json.dumps(TRIVIAL))
            command = [*command, str(folder / "trivial.ipynb"), "--no-browser", "--Voila.ip=127.0.0.1",
                       "--preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={n}",
                       "--VoilaKernelManager.fill_delay=0"]
        process, log = _serve([*command, "--port", str(port)], env, folder, port)
        try:
            wait_until_ready(url, timeout=300, process=process)
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM,
                                                           args=["--no-sandbox", "--disable-gpu"])
                time.sleep(settle)
                idle = _memory_mb(process.pid)
                server_before, machine_before = _cpu_seconds(_tree(process.pid)), _machine_cpu_seconds()
                seconds, contexts = await _together(browser, url, n, app)
                server = _cpu_seconds(_tree(process.pid)) - server_before
                other = _machine_cpu_seconds() - machine_before - server
                busy = _memory_mb(process.pid)
                for context in contexts:
                    await context.close()
                await browser.close()
        finally:
            _stop(process, log)
    return seconds, idle, busy, server, other


async def measure(counts: list[int], visitors: int | None, settle: float, app: str = "dashboard",
                  preheat: bool = True) -> None:
    if app == "review":
        command = [sys.executable, "-m", "srdash", "review", "--judge", "bench"]
    elif app == "voila":
        command = [sys.executable, "-m", "voila"]
    else:
        command = [sys.executable, "-m", "srdash", "serve"]
        if visitors is not None:
            command += ["--visitors", str(visitors)]
        if not preheat:
            command += ["--no-preheat"]
    single = None
    for n in sorted({1, *counts}):
        seconds, idle, busy, server, other = await _on_a_fresh_server(command, n, settle, app)
        if single is None:  # N = 1 comes first
            (single,) = seconds
            print(f"one visitor: {single:.2f} s; server idle: {idle[0]:.0f} MB RSS, {idle[1]:.0f} MB PSS, "
                  f"{idle[2]} processes")
            print(f"\n{'N':>3s} {'first':>7s} {'last':>7s} {'last/one':>9s} {'RSS MB':>8s} {'PSS MB':>8s} "
                  f"{'procs':>6s} {'server CPU s':>13s} {'other CPU s':>12s}")
        if n not in counts:
            continue
        rss, pss, processes = busy
        print(f"{n:3d} {min(seconds):7.2f} {max(seconds):7.2f} {max(seconds) / single:8.2f}x "
              f"{rss:8.0f} {pss:8.0f} {processes:6d} {server:13.1f} {other:12.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("counts", nargs="*", type=int, default=[1, 5, 10])
    parser.add_argument("--app", choices=["dashboard", "review", "voila"], default="dashboard")
    parser.add_argument("--visitors", type=int, default=None, help="passed to `srdash serve --visitors`")
    parser.add_argument("--settle", type=float, default=20.0,
                        help="seconds to wait once a server answers (its waiting kernels start) before its pages open")
    parser.add_argument("--no-preheat", dest="preheat", action="store_false",
                        help="passed to `srdash serve`: no kernel waits; each visitor's kernel starts with the visit")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"\napp: {args.app} (load average {os.getloadavg()[0]:.1f})")
    asyncio.run(measure(args.counts, args.visitors, args.settle, args.app, args.preheat))
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
