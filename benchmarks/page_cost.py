"""What a page costs its visitor's browser: Chromium's CPU seconds for one page, and where they go.

One page at a time, each in a headless Chromium of its own (Debian's /usr/bin/chromium, launched by Playwright as
``benchmarks/visitors.py`` launches it), on a server started for the app (``visitors.py``'s commands, with a pool of
waiting kernels, one per page, started ``--settle`` seconds before the first page):

- ``voila``, the floor: Voilà's own page for a notebook of one cell, ``print("Ready")``, until "Ready" is laid out;
- ``review``: a judge's page (``srdash review --judge bench``, the demo's real-world track), until the overview's
  first rank button is laid out (``visitors.REVIEW_READY``: the first control a judge uses; the detail cards below
  are put into the page as the judge scrolls to them);
- ``dashboard``: ``srdash serve`` (the built-in demo), until its status line "Ready in ..." is laid out.

Whether the page is ready is seen by the benchmarks' one probe (``serve_open.READY_PROBE``, as ``visitors.py``):
a script in the page that looks only when the page changed, in the frame that shows the change, so that it asks
the page for no work of its own (until 2026-11-28 this benchmark looked every 50 ms instead: docs/scaling.md,
"The readiness probe").

The browser first opens a small page of the same server (a 404 of its static folder) so that the page measured runs
in a renderer already started: what is measured is the page, not Chromium's start. From the navigation until the
page is ready and ``--after`` seconds more (2 s: what the page draws just after, the dashboard's figures), the
CPU seconds (utime + stime from /proc/PID/stat) of every Chromium process of that browser are summed (a process
started meanwhile counts whole). Printed per app: the median over ``--repeat`` pages, each page's, and the ratio to
the floor's median; the seconds from navigation to ready; from Chromium's own counters (CDP
``Performance.getMetrics``, the page's main thread, in the median page) the seconds of script, layout, style
recalculation and tasks (their wall time: they grow with the machine's load), the number of DOM nodes (live and not
yet collected) and the JS heap; then the median page's CPU seconds by Chromium process (browser, renderer, GPU,
utility: the network service).

``--profile``: one more page per app under CDP's sampling ``Profiler`` (200 µs), its main-thread time summed per
script (the file a function comes from) and for Chromium's own "(program)" and "(garbage collector)". The profiler
slows what it samples: read it for where the time goes, the table without it for how much.

``--trace``: one more page per app under Chromium's tracing (timeline, V8, Blink, compositor categories): the CPU
seconds each thread of the browser spent in tasks, and the renderer's main thread's own CPU seconds by event (from
the events' thread time).

No assertions: CPU seconds move less with the machine's load than wall time, but they move (1.3-1.8 CPU-s for the
floor's page in one evening at loads of 5-16): compare the ratios of one run, over several pages.

Usage: python benchmarks/page_cost.py [--app voila review dashboard] [--repeat 3] [--after 2] [--settle 20]
       [--profile] [--trace]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_open import READY_PROBE, REPO, _environment, _free_port, _serve, _stop  # noqa: E402
from visitors import CHROMIUM, _command, _tree, ready_mark  # noqa: E402

APPS = ("voila", "review", "dashboard")
_METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def _chromium_ticks() -> dict[tuple[int, str], int]:
    """Clock ticks (utime + stime, and of reaped children) of every Chromium process this benchmark started, by
    (pid, the process's type: browser, renderer, gpu-process, utility...)."""
    ticks = {}
    for pid in _tree(os.getpid()):
        try:
            # Chromium rewrites its processes' titles: their arguments end up in one string, space-separated
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
            if not command or b"chromium" not in command[0]:
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kind = next((a[7:].decode() for a in command if a.startswith(b"--type=")), "browser")
        ticks[pid, kind] = sum(int(f) for f in fields[11:15])
    return ticks


_TRACE_CATEGORIES = ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink",
                     "cc", "gpu", "viz"]


def _by_event(trace: bytes) -> tuple[dict[str, float], dict[str, float]]:
    """A Chromium trace's CPU seconds by thread (in its top-level events) and the renderer main thread's own CPU
    seconds by event (an event's less its children's: script, style, layout, paint...), from the events' thread
    time (``tdur``; their wall time where Chromium records none)."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    by_thread: dict[tuple, list] = defaultdict(list)
    for event in events:
        if event.get("ph") == "X" and "dur" in event:
            by_thread[(event["pid"], event["tid"])].append(event)
    threads: dict[str, float] = defaultdict(float)
    main: dict[str, float] = defaultdict(float)
    for key, spans in by_thread.items():
        spans.sort(key=lambda e: (e["ts"], -e["dur"]))
        thread = names.get(key, "?")
        stack: list[list] = []   # [end, name, own CPU seconds]: an event's thread time less its children's
        for span in spans:
            cpu = span.get("tdur", span["dur"]) / 1e6   # the thread's CPU time where Chromium records it
            while stack and span["ts"] >= stack[-1][0]:
                end, name, own = stack.pop()
                if thread == "CrRendererMain":
                    main[name] += own
            if stack:
                stack[-1][2] -= cpu
            else:
                threads[thread] += cpu
            stack.append([span["ts"] + span["dur"], span["name"], cpu])
        for end, name, own in stack:
            if thread == "CrRendererMain":
                main[name] += own
    return dict(threads), dict(main)


def _by_script(profile: dict) -> dict[str, float]:
    """Seconds of a CDP ``Profiler`` profile by script file (a function's url, its last part) or Chromium's part."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    seconds: dict[str, float] = defaultdict(float)
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"]):
        frame = nodes[node_id]["callFrame"]
        url = frame["url"]
        name = url.split("?")[0].rstrip("/").rsplit("/", 1)[-1] if url else frame["functionName"] or "(anonymous)"
        seconds[name[:60]] += delta / 1e6
    return dict(seconds)


async def _one_page(playwright, url: str, app: str, *, after: float, profile: bool, trace: bool = False) -> dict:
    """One page in a browser of its own: Chromium's CPU seconds, its counters and (``profile``) where time went."""
    browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
    try:
        context = await browser.new_context(viewport={"width": 1400, "height": 900})
        await context.add_init_script(f"({READY_PROBE})({json.dumps(ready_mark(app))})")
        page = await context.new_page()
        await page.goto(url + "voila/static/srdash-page-cost-404")   # the renderer starts for this origin
        cdp = await context.new_cdp_session(page)
        await cdp.send("Performance.enable")
        if profile:
            await cdp.send("Profiler.enable")
            await cdp.send("Profiler.setSamplingInterval", {"interval": 200})
            await cdp.send("Profiler.start")
        if trace:
            await browser.start_tracing(page=page, categories=_TRACE_CATEGORIES)
        before = _chromium_ticks()
        metrics_before = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
        await page.goto(url, timeout=600_000)
        seconds = await asyncio.wait_for(page.evaluate("window.__srdashReady"), 600) / 1000.0
        await asyncio.sleep(after)
        now = _chromium_ticks()
        metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
        by_kind: dict[str, float] = defaultdict(float)
        for (pid, kind), ticks in now.items():
            by_kind[kind] += (ticks - before.get((pid, kind), 0)) / os.sysconf("SC_CLK_TCK")
        found = {"cpu": sum(by_kind.values()), "by_kind": dict(by_kind),
                 "ready": seconds, "nodes": metrics.get("Nodes", 0), "heap": metrics.get("JSHeapUsedSize", 0) / 2**20,
                 **{name: metrics.get(name, 0) - metrics_before.get(name, 0) for name in _METRICS}}
        if trace:
            found["threads"], found["events"] = _by_event(await browser.stop_tracing())
        if profile:
            found["profile"] = _by_script((await cdp.send("Profiler.stop"))["profile"])
        await context.close()
    finally:
        await browser.close()
    return found


async def _measure_app(app: str, repeat: int, *, after: float, settle: float, profile: bool,
                       trace: bool = False) -> list[dict]:
    from playwright.async_api import async_playwright

    from srdash.apps.server import wait_until_ready

    pages = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        port = _free_port()
        url = f"http://127.0.0.1:{port}/"
        process, log = _serve([*_command(app, repeat + int(profile) + int(trace), folder), "--port", str(port)],
                              _environment(folder), folder, port)
        try:
            wait_until_ready(url, timeout=300, process=process)
            time.sleep(settle)   # the waiting kernels start: each page takes a kernel that has run its notebook
            async with async_playwright() as playwright:
                for index in range(repeat + int(profile) + int(trace)):
                    pages.append(await _one_page(playwright, url, app, after=after,
                                                 profile=profile and index == repeat,
                                                 trace=trace and index == repeat + int(profile)))
        finally:
            _stop(process, log)
    return pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", nargs="+", choices=APPS, default=list(APPS))
    parser.add_argument("--repeat", type=int, default=3, help="pages measured per app (the median is printed)")
    parser.add_argument("--after", type=float, default=2.0, help="seconds measured once the page is ready")
    parser.add_argument("--settle", type=float, default=20.0,
                        help="seconds to wait once a server answers (its waiting kernels start)")
    parser.add_argument("--profile", action="store_true", help="one more page per app under CDP's Profiler")
    parser.add_argument("--trace", action="store_true", help="one more page per app under Chromium's tracing")
    args = parser.parse_args()
    import compileall

    compileall.compile_dir(str(REPO / "srdash"), quiet=1)   # as an installed wheel has it (see visitors.py)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    results = {app: asyncio.run(_measure_app(app, args.repeat, after=args.after, settle=args.settle,
                                             profile=args.profile, trace=args.trace))
               for app in args.app}
    median = {app: statistics.median(p["cpu"] for p in pages[:args.repeat]) for app, pages in results.items()}
    floor = median.get("voila")
    print(f"\n{'page':10s} {'CPU s (median)':>15s} {'each':>22s} {'vs floor':>9s} {'ready s':>8s} {'script':>7s} "
          f"{'layout':>7s} {'style':>7s} {'task':>7s} {'nodes':>7s} {'heap MB':>8s}")
    for app, pages in results.items():
        measured = pages[:args.repeat]
        middle = sorted(measured, key=lambda p: p["cpu"])[len(measured) // 2]
        ratio = f"{median[app] / floor:8.2f}x" if floor else "       -"
        each = " ".join(f"{p['cpu']:.2f}" for p in measured)
        print(f"{app:10s} {median[app]:15.2f} {each:>22s} {ratio} "
              f"{middle['ready']:8.2f} {middle['ScriptDuration']:7.2f} {middle['LayoutDuration']:7.2f} "
              f"{middle['RecalcStyleDuration']:7.2f} {middle['TaskDuration']:7.2f} {middle['nodes']:7.0f} "
              f"{middle['heap']:8.1f}")
    print("\nCPU s by Chromium process (the median page): " + "; ".join(
        f"{app} " + ", ".join(f"{kind} {seconds:.2f}" for kind, seconds in sorted(
            sorted(pages[:args.repeat], key=lambda p: p["cpu"])[len(pages[:args.repeat]) // 2]["by_kind"].items()))
        for app, pages in results.items()))
    for app, pages in results.items():
        if args.profile:
            by_script = sorted(pages[-1]["profile"].items(), key=lambda item: -item[1])
            print(f"\n{app}: main-thread seconds by script (profiled page, {sum(pages[-1]['profile'].values()):.2f} s"
                  " sampled, idle included)")
            for name, seconds in by_script[:14]:
                print(f"  {seconds:7.3f}  {name}")
    for app, pages in results.items():
        if args.trace:
            threads, events = pages[-1]["threads"], pages[-1]["events"]
            print(f"\n{app}: traced page, seconds in tasks by thread (all of the browser's processes)")
            for name, seconds in sorted(threads.items(), key=lambda item: -item[1])[:8]:
                print(f"  {seconds:7.3f}  {name}")
            print(f"{app}: the renderer's main thread, self seconds by event")
            for name, seconds in sorted(events.items(), key=lambda item: -item[1])[:16]:
                print(f"  {seconds:7.3f}  {name}")
    print(f"\nload average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
