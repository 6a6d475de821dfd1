"""N visitors at once: how long the last one waits, and what the server spends on them (CPU, memory).

Measured in one run, in headless Chromium (Debian's /usr/bin/chromium, Playwright), on one of three apps,
each given the same pool of waiting (preheated) kernels:

- ``--app dashboard`` (the default): ``srdash serve --visitors K`` (no INPUT: the built-in demo), until
  the dashboard's status line "Ready in ..." is painted (as seen from the page, see serve_open.py);
- ``--app review``: ``srdash review --judge bench --visitors K`` on the demo's real-world track, until
  the overview's first rank button (``REVIEW_READY``, "All models at a glance") is painted: the first control
  a judge uses (the detail cards below are put into the page as the judge scrolls to them);
- ``--app voila``, the floor: Voilà itself (``python -m voila``, its own settings) serving a notebook of
  one cell, ``print("Ready")``, with ``--preheat_kernel=True --VoilaConfiguration.default_pool_size=K
  --VoilaKernelManager.fill_delay=5`` (srdash's refill delay, ``apps.server.FILL_DELAY``), until
  "Ready" is painted. Nothing to compute, nothing to draw: the best any Voilà app can do on this machine.

The pool: K waiting kernels, ``--visitors K``; by default K = N, one waiting kernel per visitor of the
row, for all three apps (an organiser expecting ten judges passes ``--visitors 10``; ``srdash serve``'s
own default is one per core, ``srdash review``'s none). The comparison is fair because every app gets
the same K and the same refill delay: a visitor takes a kernel that has run the notebook, and Voilà
starts its replacement 5 s later. ``--no-preheat``: no pool for any app.

Each row runs on a server of its own, started for it and stopped after (the row for N holds its N
visitors' kernels and the replacements started for the next ones). The single visitor is the row
N = 1 (measured and printed first even when not asked for). Printed for each row:

- first, last: seconds from navigation to a ready page of the first and the last of the N pages
  (N browser contexts: N visitors) opened at the same moment, and last / one, a ratio to the single
  visitor;
- memory: RSS and PSS (which counts a page shared by several processes once) of the server (srdash,
  Voilà, every kernel), summed, once the N pages are ready; PSS is the honest sum;
- server CPU: the CPU seconds of the server's processes while the N pages opened, split between
  srdash's supervising process (with its checking child), Voilà's process and the kernels; then,
  "until quiet", the same once the server has stopped working (the pool refilled: each visitor's
  replacement kernel is part of what a visitor costs), per visitor; "other CPU" is what the rest of
  the machine used while the pages opened (mostly the N Chromium pages: on a real jury, each visitor's
  own machine).

srdash's own bytecode is compiled first (``compileall`` on the checkout's ``srdash``, written to its
``__pycache__`` folders, which git ignores), as installing a wheel does: with ``PYTHONDONTWRITEBYTECODE``
set, as on the machines these runs were made on, each kernel would otherwise compile srdash's modules
from source at its start (0.28 s of CPU of the 1.04 s a dashboard kernel spends importing and building
its page, 2026-11-27).

``--profile DIR``: every Python process the server starts (Voilà, its kernels) runs under cProfile and
writes ``DIR/<role>-<pid>.prof`` when it exits (a ``sitecustomize`` put first on the server's
``PYTHONPATH`` for the run; read them with ``python -m pstats``). Profiling slows what it measures:
read the profiles for where the time goes, the table of a run without it for how much.

Targets (issue 33), for N = 10 on 2 cores, against the floor in the same session: the last of ten
within 1.1x the floor's last of ten, server CPU per visitor within 1.3x the floor's, and the server
with its kernels within 1.0 GB PSS. No assertions: timings on a shared machine are noisy; compare
the ratios of one session.

``--rounds R``: the issue's comparison in one command. R rounds of the three apps on N visitors (the last N
given; each app on a fresh server, the order rotated from round to round so that none always follows the same
one), each run's last of N, CPU per visitor (until quiet), PSS and other CPU, then each app's medians and their
ratios to the floor's medians. On this machine the floor's own last of ten moved by 2.9 s (12.1-15.0 s) within
one hour: read a ratio over several rounds, not one (docs/scaling.md, 2026-11-28).

Usage: python benchmarks/visitors.py [N ...] [--app dashboard|review|voila] [--visitors K | --no-preheat]
       [--settle 20] [--profile DIR]
       python benchmarks/visitors.py 10 --rounds 3 --visitors 2
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_open import READY_PROBE, REPO, TRIVIAL, _environment, _free_port, _serve, _stop  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
READY = "Ready in"
_TEXT = {"dashboard": READY, "voila": "Ready"}  # the text each app's page is ready with
#: The review's first control a judge uses: the overview's first rank button.
REVIEW_READY = ".srdash-compare .srdash-rank-row button"


def ready_mark(app: str) -> list:
    """What ``serve_open.READY_PROBE`` waits for on ``app``'s page: [selector, None] or [None, text]."""
    return [REVIEW_READY, None] if app == "review" else [None, _TEXT[app]]


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


ROLES = ("srdash", "voila", "kernels")


def _role(pid: int) -> str:
    """Which part of the server ``pid`` is: a kernel, Voilà's process, or srdash's own (and its children)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "srdash"
    if b"ipykernel" in command or b"srdash.apps.zygote" in command:  # forked kernels and their zygote
        return "kernels"
    return "voila" if b"voila" in command else "srdash"


def _memory_mb(pid: int) -> tuple[float, float, int, dict[str, float]]:
    """(RSS, PSS) in MB summed over ``pid``'s process tree, the number of processes, and PSS by role."""
    rss = pss = 0
    by_role = dict.fromkeys(ROLES, 0)
    pids = _tree(pid)
    for each in pids:
        try:
            for line in Path(f"/proc/{each}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
                    by_role[_role(each)] += int(line.split()[1])
        except OSError:
            continue
    return rss / 1024, pss / 1024, len(pids), {role: kb / 1024 for role, kb in by_role.items()}


def _cpu_by_role(pids: list[int]) -> dict[str, float]:
    """User + system CPU seconds of ``pids`` (and of their reaped children), by role (:func:`_role`)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = dict.fromkeys(ROLES, 0)
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total[_role(pid)] += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return {role: value / ticks for role, value in total.items()}


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids`` (and of their reaped children)."""
    return sum(_cpu_by_role(pids).values())


def _minus(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    """CPU used between two readings, by role. A process gone meanwhile (a kernel shut down) would subtract what
    it had used; none is shut down while the pages open (culling waits 300 s)."""
    return {role: after[role] - before[role] for role in ROLES}


def _machine_cpu_seconds() -> float:
    """CPU seconds the whole machine spent busy (all cores), from /proc/stat."""
    fields = [int(f) for f in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _until_quiet(pid: int, *, still: float = 3.0, below: float = 0.1, limit: float = 180.0) -> None:
    """Wait until ``pid``'s tree has used less than ``below`` CPU seconds in ``still`` seconds once the last
    kernel taken has begun to be replaced (the pool refilled), at most ``limit`` seconds more."""
    from srdash.apps.server import FILL_DELAY

    time.sleep(FILL_DELAY + 1.0)  # the last kernel taken is replaced this long after (Voilà's fill_delay)
    deadline = time.monotonic() + limit
    previous = _cpu_seconds(_tree(pid))
    while time.monotonic() < deadline:
        time.sleep(still)
        now = _cpu_seconds(_tree(pid))
        if now - previous < below:
            return
        previous = now


# Put first on the server's PYTHONPATH by --profile: every Python process it starts (Voilà, its kernels) runs
# under cProfile and writes its profile when it exits (a kernel shut down by Voilà, Voilà stopped by SIGTERM).
_PROFILE_HOOK = """
import atexit, cProfile, os, time
_folder = os.environ.get("SRDASH_BENCH_PROFILE")
if _folder:
    with open("/proc/self/cmdline", "rb") as _file:  # sys.argv is not set yet when sitecustomize runs
        _command = _file.read()
    _role = "kernel" if b"ipykernel" in _command else "voila" if b"voila" in _command else "srdash"
    _profile = cProfile.Profile(time.process_time)  # CPU seconds (of the whole process), not wall time
    _profile.enable()
    def _write():
        _profile.disable()
        _profile.dump_stats(os.path.join(_folder, f"{_role}-{os.getpid()}.prof"))
    atexit.register(_write)
"""


async def _visit(browser, url: str, app: str) -> float:
    """Seconds from navigation until the page is ready (see the module's doc), in a new context (a new visitor)."""
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    await context.add_init_script(f"({READY_PROBE})({json.dumps(ready_mark(app))})")
    page = await context.new_page()
    await page.goto(url, timeout=600_000)
    # the probe's promise: no polling from here, nothing the page itself would not do
    seconds = await asyncio.wait_for(page.evaluate("window.__srdashReady"), 600) / 1000.0
    return seconds, context


async def _together(browser, url: str, n: int, app: str) -> list[float]:
    visits = await asyncio.gather(*(_visit(browser, url, app) for _ in range(n)))
    return [seconds for seconds, _ in visits], [context for _, context in visits]


def _command(app: str, pool: int, folder: Path) -> list[str]:
    """The server's command line for ``app`` with ``pool`` waiting kernels (0: none)."""
    if app == "voila":  # the floor: Voilà's own settings, srdash's pool and refill delay
        from srdash.apps.server import FILL_DELAY

        (folder / "trivial.ipynb").write_text(json.dumps(TRIVIAL))
        command = [sys.executable, "-m", "voila", str(folder / "trivial.ipynb"), "--no-browser", "--Voila.ip=127.0.0.1"]
        if pool:
            command += ["--preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={pool}",
                        f"--VoilaKernelManager.fill_delay={FILL_DELAY}"]
        return command
    if app == "review":
        return [sys.executable, "-m", "srdash", "review", "--judge", "bench", "--visitors", str(pool)]
    return [sys.executable, "-m", "srdash", "serve", *(["--visitors", str(pool)] if pool else ["--no-preheat"])]


async def _on_a_fresh_server(app: str, n: int, pool: int, settle: float, profile: Path | None):
    """Start the server, wait ``settle`` s (its waiting kernels start), open ``n`` pages together.

    Returns a dict: the pages' seconds to ready, the idle server's and the busy server's memory
    (:func:`_memory_mb`), the server's CPU seconds by role while the pages opened and until it was quiet
    again, and the CPU seconds of the rest of the machine while they opened.
    """
    from playwright.async_api import async_playwright

    from srdash.apps.server import wait_until_ready

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        env = _environment(folder)
        if profile is not None:
            hook = folder / "hook"
            hook.mkdir()
            (hook / "sitecustomize.py").write_text(_PROFILE_HOOK)
            env["PYTHONPATH"] = os.pathsep.join([str(hook), env["PYTHONPATH"]])
            env["SRDASH_BENCH_PROFILE"] = str(profile.resolve())
        port = _free_port()
        url = f"http://127.0.0.1:{port}/"
        process, log = _serve([*_command(app, pool, folder), "--port", str(port)], env, folder, port)
        try:
            wait_until_ready(url, timeout=300, process=process)
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM,
                                                           args=["--no-sandbox", "--disable-gpu"])
                time.sleep(settle)
                found = {"idle": _memory_mb(process.pid)}
                server_before, machine_before = _cpu_by_role(_tree(process.pid)), _machine_cpu_seconds()
                found["seconds"], contexts = await _together(browser, url, n, app)
                server = _cpu_by_role(_tree(process.pid))
                found["other"] = _machine_cpu_seconds() - machine_before - sum(server.values())
                found["cpu"] = _minus(server, server_before)
                found["busy"] = _memory_mb(process.pid)
                _until_quiet(process.pid)
                found["quiet_cpu"] = _minus(_cpu_by_role(_tree(process.pid)), server_before)
                found["quiet"] = _memory_mb(process.pid)
                for context in contexts:
                    await context.close()
                await browser.close()
        finally:
            _stop(process, log)
    return found


async def measure(counts: list[int], visitors: int | None, settle: float, app: str = "dashboard",
                  preheat: bool = True, profile: Path | None = None) -> None:
    single = None
    for n in sorted({1, *counts}):
        pool = 0 if not preheat else visitors if visitors is not None else n
        found = await _on_a_fresh_server(app, n, pool, settle, profile)
        seconds = found["seconds"]
        if single is None:  # N = 1 comes first
            (single,) = seconds
            rss, pss, processes, _ = found["idle"]
            print(f"one visitor: {single:.2f} s; idle server (pool of {pool}): {rss:.0f} MB RSS, {pss:.0f} MB PSS, "
                  f"{processes} processes")
            print(f"\n{'N':>3s} {'pool':>4s} {'first':>7s} {'last':>7s} {'last/one':>9s} {'RSS MB':>8s} "
                  f"{'PSS MB':>8s} {'procs':>6s} {'server CPU s':>13s} {'other CPU s':>12s} "
                  f"{'quiet CPU s':>12s} {'per visitor':>12s} {'quiet PSS':>10s}")
        rss, pss, processes, pss_by_role = found["busy"]
        cpu, quiet = found["cpu"], found["quiet_cpu"]
        print(f"{n:3d} {pool:4d} {min(seconds):7.2f} {max(seconds):7.2f} {max(seconds) / single:8.2f}x "
              f"{rss:8.0f} {pss:8.0f} {processes:6d} {sum(cpu.values()):13.1f} {found['other']:12.1f} "
              f"{sum(quiet.values()):12.1f} {sum(quiet.values()) / n:12.2f} {found['quiet'][1]:10.0f}", flush=True)
        print("      while the pages opened, CPU s: " + ", ".join(f"{r} {cpu[r]:.1f}" for r in ROLES)
              + "; until quiet: " + ", ".join(f"{r} {quiet[r]:.1f}" for r in ROLES)
              + "; PSS MB: " + ", ".join(f"{r} {pss_by_role[r]:.0f}" for r in ROLES)
              + f" (quiet: {found['quiet'][2]} processes)", flush=True)


ROUND_APPS = ("voila", "review", "dashboard")


async def rounds(n: int, count: int, visitors: int | None, settle: float, preheat: bool = True) -> None:
    """``count`` rounds of the floor, the review and the dashboard, N visitors each on a fresh server, the apps'
    order rotated from round to round; then each app's medians and their ratios to the floor's (the targets'
    terms: the last of N, the server's CPU per visitor until quiet, the PSS once the N pages are ready)."""
    pool = 0 if not preheat else visitors if visitors is not None else n
    found: dict[str, list[tuple[float, float, float, float]]] = {app: [] for app in ROUND_APPS}
    print(f"{'round':>5s} {'app':>10s} {'last':>7s} {'per visitor':>12s} {'PSS MB':>8s} {'other CPU s':>12s}")
    for index in range(count):
        shift = index % len(ROUND_APPS)
        for app in ROUND_APPS[shift:] + ROUND_APPS[:shift]:
            run = await _on_a_fresh_server(app, n, pool, settle, None)
            row = (max(run["seconds"]), sum(run["quiet_cpu"].values()) / n, run["busy"][1], run["other"])
            found[app].append(row)
            print(f"{index + 1:5d} {app:>10s} {row[0]:7.2f} {row[1]:12.2f} {row[2]:8.0f} {row[3]:12.1f}", flush=True)
    floor = [statistics.median(column) for column in zip(*found["voila"])]
    print(f"\nmedians of {count} round(s), N = {n}, pool {pool}; ratios to the floor's medians "
          "(targets: last 1.1x, CPU per visitor 1.3x, PSS 1000 MB)")
    for app in ROUND_APPS:
        last, cpu, pss, other = (statistics.median(column) for column in zip(*found[app]))
        print(f"{app:>10s}  last {last:6.2f} s {last / floor[0]:5.2f}x   per visitor {cpu:5.2f} CPU-s "
              f"{cpu / floor[1]:5.2f}x   PSS {pss:5.0f} MB (largest {max(r[2] for r in found[app]):.0f})   "
              f"other CPU {other:5.1f} s {other / floor[3]:5.2f}x", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("counts", nargs="*", type=int, default=[1, 5, 10])
    parser.add_argument("--app", choices=["dashboard", "review", "voila"], default="dashboard")
    parser.add_argument("--visitors", type=int, default=None,
                        help="waiting kernels for every app (default: N, one per visitor of the row)")
    parser.add_argument("--settle", type=float, default=20.0,
                        help="seconds to wait once a server answers (its waiting kernels start) before its pages open")
    parser.add_argument("--no-preheat", dest="preheat", action="store_false",
                        help="no waiting kernel for any app: each visitor's kernel starts with the visit")
    parser.add_argument("--rounds", type=int, default=0,
                        help="R rounds of the floor, the review and the dashboard on the last N, the order rotated; "
                             "then medians and ratios to the floor (--app and --profile are then not used)")
    parser.add_argument("--profile", type=Path, default=None,
                        help="folder for a cProfile of each of the server's Python processes (see the module's doc)")
    args = parser.parse_args()
    import compileall

    compileall.compile_dir(str(REPO / "srdash"), quiet=1)  # as an installed wheel has it (see the module's doc)
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    apps = ", ".join(ROUND_APPS) + ", in rotation" if args.rounds > 0 else args.app
    print(f"{os.cpu_count()} CPUs; app: {apps} (load average {os.getloadavg()[0]:.1f})")
    if args.rounds > 0:
        asyncio.run(rounds(args.counts[-1] if args.counts else 10, args.rounds, args.visitors, args.settle,
                           args.preheat))
    else:
        asyncio.run(measure(args.counts, args.visitors, args.settle, args.app, args.preheat, args.profile))
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
