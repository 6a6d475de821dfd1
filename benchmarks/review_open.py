"""Seconds for a judge's kernel to build the review page, and for "Next dataset", without a browser.

Each kernel is a fresh Python process that does what a visitor's kernel of ``srdash review`` does: the
environment ``srdash review`` gives Voilà (``srdash.cli.review.review_environment``), then the page's
data path (``review_inputs_from_environment``) and the review (``ReviewApp(..., figures_when_near=True)``,
as ``ReviewPage`` builds it once served), inside a running asyncio loop as a kernel's handlers are. Then
the judge's rhythm, dataset after dataset: one trust entry on the shown dataset, the loop runs what the
app scheduled meanwhile, then "Next dataset" (the button's ``click()``: its handler, as a press does).

Scenarios:

- ``blackbox``: ``srdash review ../shared/realdata/srbench_results/blackbox_results.csv`` (21 methods x 122
  datasets, no model strings: the real size of the cards' list);
- ``blackbox-competition``: the same results named by a competition file with a ``[realworld]`` table, so the
  review reads the prepared competition (as ``srdash review competition.toml``);
- ``demo``: ``srdash review`` without INPUT (the built-in demo's real-world track: 6 models on 3 datasets,
  formulas, test data and figures).

Each scenario runs twice in fresh processes: ``cold`` with an empty srdash cache (nothing prepared yet),
``warm`` with the cache the cold kernel (or ``srdash review``'s own preparation, with ``--as-served``) left.
Printed per kernel: imports, page built (data path + widgets), then "Next dataset": the first press and the
median and maximum of the next ones (each after an entry). No assertion: timings on a shared machine are
noisy; compare within one run. ``--profile DIR`` writes cProfile files of the page build and of the presses
and prints their top functions.

``--browser``: the same judge in headless Chromium on a real ``srdash review`` server (Voilà), in place of the
kernels above: seconds from navigation until the overview's first rank button shows (the detail cards below are
put into the page as the judge scrolls to them), then per press, after an entry in the overview and a few seconds
of reading, from the press (in the page) until the next dataset's heading and all its overview's rows of rank
buttons, none with an entry yet, are laid out (checked at every animation frame; NaN after 60 s).

Usage: python benchmarks/review_open.py [--scenario blackbox|blackbox-competition|demo ...] [--presses 6]
       [--profile DIR] [--as-served] [--browser [--read 3]]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BLACKBOX = REPO / ".." / "shared" / "realdata" / "srbench_results" / "blackbox_results.csv"
SCENARIOS = ("blackbox", "blackbox-competition", "demo")


def _blackbox_competition(folder: Path) -> Path:
    """A competition file naming the black-box results, with srbench2022's property criterion optional (the
    black-box datasets test no property) and a real-world track over every dataset."""
    from srdash.judging.rules import load_rules

    rules = load_rules("srbench2022").text.replace('column = "property"\n', 'column = "property"\noptional = true\n')
    (folder / "srbench2022-blackbox.toml").write_text(rules)
    path = folder / "competition.toml"
    path.write_text(f'title = "SRBench black-box results"\nresults = "{BLACKBOX.resolve()}"\n'
                    'rules = "srbench2022-blackbox.toml"\n\n[realworld]\nstore = "trust.sqlite"\n')
    return path


def review_env(scenario: str, folder: Path) -> dict:
    """The environment ``srdash review`` gives Voilà for ``scenario`` (its store and cache in ``folder``)."""
    from srdash.cli.review import review_environment
    from srdash.judging.competition import load_competition
    from srdash.judging.trust import TrustStore

    base = {"SRDASH_CACHE_DIR": str(folder / "cache")}
    if scenario == "blackbox":
        store = folder / "trust.sqlite"
        if not store.exists():
            TrustStore(store, seed=0).close()
        return review_environment(judge="ann", store=store, rules="srbench2022-realworld", input_path=BLACKBOX,
                                  base=base)
    if scenario == "blackbox-competition":
        path = folder / "competition.toml"
        if not path.exists():
            _blackbox_competition(folder)
            TrustStore(folder / "trust.sqlite", seed=0).close()
    else:
        from srdash.demo.competition import cached_demo

        path = cached_demo(cache_dir=folder / "cache")["competition"]
    competition = load_competition(path)
    return review_environment(judge="ann", store=competition.realworld.store,
                              rules=competition.realworld.rules.source.removeprefix("preset:"),
                              competition=competition, base=base)


def _profiled(profile_dir: str | None, name: str, action):
    if not profile_dir:
        return action()
    profiler = cProfile.Profile()
    value = profiler.runcall(action)
    path = Path(profile_dir) / f"{name}.prof"
    profiler.dump_stats(str(path))
    print(f"--- {name} (cProfile, top 15 by cumulative time; {path})", file=sys.stderr)
    pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(15)
    return value


async def _kernel(scenario: str, folder: Path, presses: int, profile_dir: str | None, label: str) -> dict:
    started = time.perf_counter()
    from srdash.apps.review import ReviewApp
    from srdash.apps.review.environment import review_inputs_from_environment

    imported = time.perf_counter()
    env = review_env(scenario, folder)
    os.environ["SRDASH_CACHE_DIR"] = env["SRDASH_CACHE_DIR"]  # a served kernel's own environment: its cache
    set_up = time.perf_counter()

    def build():
        inputs = review_inputs_from_environment(env)
        return ReviewApp(**inputs, figures_when_near=True)

    cpu = time.process_time()
    app = _profiled(profile_dir, f"{label}-page", build)
    built, page_cpu = time.perf_counter(), time.process_time() - cpu
    cards = len(app.cards.get(app.dataset, ()))
    await asyncio.sleep(0)  # the loop runs what the page's build scheduled
    times, cpus, entries, idle = [], [], [], []

    async def judge_and_press() -> None:
        for _ in range(presses):
            card = app.cards[app.dataset][0]
            start = time.perf_counter()
            card.trust.value = 1 if card.trust.value != 1 else 2  # an entry, saved at once
            entries.append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(3):  # the judge reads the cards: the loop runs what the app scheduled
                await asyncio.sleep(0)
            idle.append(time.perf_counter() - start)
            start, cpu = time.perf_counter(), time.process_time()
            app.next_button.click()
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
            await asyncio.sleep(0)

    if profile_dir:
        profiler = cProfile.Profile()
        profiler.enable()
        await judge_and_press()
        profiler.disable()
        path = Path(profile_dir) / f"{label}-presses.prof"
        profiler.dump_stats(str(path))
        print(f"--- {label}: presses (cProfile, top 15 by cumulative time; {path})", file=sys.stderr)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(15)
    else:
        await judge_and_press()
    app.store.close()
    return {"imports": imported - started, "set_up": set_up - imported, "page": built - set_up,
            "datasets": len(app.datasets), "cards": cards,
            "page_cpu": page_cpu, "next_first": times[0], "next_first_cpu": cpus[0],
            "next_median": statistics.median(times[1:]) if len(times) > 1 else None,
            "next_median_cpu": statistics.median(cpus[1:]) if len(cpus) > 1 else None,
            "next_max": max(times[1:]) if len(times) > 1 else None, "entry_max": max(entries),
            "ahead_max": max(idle)}


def _child(args) -> None:
    result = asyncio.run(_kernel(args.child, Path(args.folder), args.presses, args.profile, args.label))
    print(json.dumps(result))


def _run(scenario: str, folder: Path, label: str, args) -> dict:
    command = [sys.executable, __file__, "--child", scenario, "--folder", str(folder), "--presses",
               str(args.presses), "--label", label]
    if args.profile:
        command += ["--profile", args.profile]
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}, "PYTHONPATH": str(REPO)}
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if args.profile:
        sys.stderr.write(done.stderr)
    if done.returncode:
        raise SystemExit(f"{label} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _prepare_as_served(scenario: str, folder: Path) -> float:
    """What ``srdash review`` does once before any judge arrives (``--as-served``): check, then prepare."""
    command = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import review_open; "
               "review_open.served_preparation(sys.argv[2], sys.argv[3])", str(Path(__file__).parent), scenario,
               str(folder)]
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True)
    return time.perf_counter() - start


def served_preparation(scenario: str, folder: str) -> None:
    """``srdash review``'s preparation for ``scenario`` (:func:`srdash.cli.review.prepare_review`), if it has one."""
    from srdash.cli import review

    env = review_env(scenario, Path(folder))
    os.environ["SRDASH_CACHE_DIR"] = env["SRDASH_CACHE_DIR"]
    prepare = getattr(review, "prepare_review", None)
    options = json.loads(env["SRDASH_REVIEW"])
    if prepare is not None and "competition" in options:
        from srdash.judging.competition import competition_from_json

        prepare(competition_from_json(options["competition"]), stage=lambda text: None)


# In the page: press "Next dataset" and time, at every animation frame, until the next dataset's heading and the
# overview's rows of rank buttons of all the models it announces ("N models.") are laid out.
_PRESS = """
() => new Promise(resolve => {
  const heading = () => [...document.querySelectorAll('h2')].map(h => h.textContent).find(t => t.startsWith('Dataset '));
  const before = heading();
  const start = performance.now();
  [...document.querySelectorAll('button')].find(b => b.textContent.includes('Next dataset')).click();
  const look = () => {
    let now = null, done = false;
    try {   // a page caught between two states must not end the look (the promise would never settle)
      now = heading();
      const info = [...document.querySelectorAll('div')].map(d => d.textContent).find(t => / models\. /.test(t) && t.length < 400);
      const count = info ? /(\d+) models\./.exec(info) : null;
      const wanted = count ? parseInt(count[1]) : -1;
      const rows = [...document.querySelectorAll('.srdash-compare .srdash-rank-row')].filter(b => b.getBoundingClientRect().width > 0);
      // the new dataset's rows: as many as it announces, none with an entry yet (the shown one had one)
      done = now && now !== before && rows.length === wanted && rows.every(b => !b.querySelector('button.mod-active'));
    } catch (error) {}
    if (done) resolve([performance.now() - start, now]);
    else if (performance.now() - start > 60000) resolve([NaN, now]);
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})
"""


def _browser(scenario: str, folder: Path, presses: int, read: float) -> dict:
    """One judge in Chromium on ``srdash review`` of ``scenario``: page open, then ``presses`` presses."""
    from playwright.sync_api import sync_playwright

    from srdash.apps.server import free_port, wait_until_ready
    from visitors import REVIEW_READY   # the overview's first rank button: the first control a judge uses

    env_options = json.loads(review_env(scenario, folder)["SRDASH_REVIEW"])
    target = env_options.get("input") or ([] if scenario == "demo" else str(folder / "competition.toml"))
    arguments = ([target] if target else []) + ["--judge", "ann"] + (
        ["--store", env_options["store"]] if scenario == "blackbox" else [])
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    env.update({"PYTHONPATH": str(REPO), "SRDASH_CACHE_DIR": str(folder / "cache"),
                "JUPYTER_RUNTIME_DIR": str(folder / "runtime"), "JUPYTER_DATA_DIR": str(folder / "data"),
                "IPYTHONDIR": str(folder / "ipython")})
    with open(folder / "server.log", "wb") as log:
        server = subprocess.Popen([sys.executable, "-m", "srdash", "review", *arguments, "--port", str(port)],
                                  env=env, cwd=folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_until_ready(url, timeout=300, process=server)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                     args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                start = time.perf_counter()
                # timed until the first rank button shows; not waiting for the "load" event, which a request that
                # never ends can hold back
                page.goto(url, wait_until="commit", timeout=600_000)
                page.locator(f"{REVIEW_READY}:visible").first.wait_for(state="visible", timeout=600_000)
                opened = time.perf_counter() - start
                print(f"  page open: {opened:.2f} s", file=sys.stderr, flush=True)
                times = []
                for _ in range(presses):
                    page.locator(f"{REVIEW_READY}:visible").first.click()  # an entry: rank 1, in the overview
                    time.sleep(read)  # the judge reads the cards
                    times.append(page.evaluate(_PRESS)[0] / 1000.0)
                    print(f"  press {len(times)}: {times[-1]:.2f} s", file=sys.stderr, flush=True)
                browser.close()
        finally:
            server.terminate()
            server.wait(60)
    return {"open": opened, "presses": times}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", action="append", choices=SCENARIOS)
    parser.add_argument("--presses", type=int, default=6, help="'Next dataset' presses per kernel")
    parser.add_argument("--profile", help="folder for cProfile files (printed on stderr)")
    parser.add_argument("--as-served", action="store_true",
                        help="let srdash review's own preparation run before the cold kernel")
    parser.add_argument("--browser", action="store_true", help="measure in Chromium on a real srdash review server")
    parser.add_argument("--read", type=float, default=3.0, help="--browser: seconds the judge reads before a press")
    parser.add_argument("--child", choices=SCENARIOS, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--label", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    for scenario in args.scenario or SCENARIOS:
        if scenario.startswith("blackbox") and not BLACKBOX.exists():
            print(f"{scenario}: skipped ({BLACKBOX} is absent)")
            continue
        with tempfile.TemporaryDirectory(prefix="srdash-review-open-") as folder:
            if args.browser:
                seen = _browser(scenario, Path(folder), args.presses, args.read)
                presses = seen["presses"]
                print(f"{scenario:21s} browser: page open {seen['open']:.2f} s; Next dataset: "
                      + ", ".join(f"{t:.2f}" for t in presses)
                      + f" s (median {statistics.median(presses):.2f} s)")
                continue
            if args.as_served:
                print(f"{scenario}: srdash review's preparation {_prepare_as_served(scenario, Path(folder)):.2f} s")
            for phase in ("cold", "warm"):
                seen = _run(scenario, Path(folder), f"{scenario}-{phase}", args)
                rest = ("" if seen["next_median"] is None else
                        f", then median {seen['next_median']:.3f} s ({seen['next_median_cpu']:.3f} CPU s; max "
                        f"{seen['next_max']:.3f} s)")
                print(f"{scenario:21s} {phase}: imports {seen['imports']:.2f} s, page {seen['page']:.2f} s "
                      f"({seen['page_cpu']:.2f} CPU s; {seen['datasets']} datasets, {seen['cards']} cards); "
                      f"Next dataset: first {seen['next_first']:.3f} s ({seen['next_first_cpu']:.3f} CPU s){rest}; "
                      f"an entry saved within {seen['entry_max']:.3f} s; built ahead while the judge reads: "
                      f"at most {seen['ahead_max']:.3f} s")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
