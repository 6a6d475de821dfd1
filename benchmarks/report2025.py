"""`srdash report` of the generated SRBench-2025-scale demo (`srdash demo --scale 2025`), cold and warm, by stage.

For docs/scaling.md. The demo (25 methods x 24 datasets x 30 runs) is written once into a temporary folder; then
its report is written by two fresh processes in turn on one SRDASH_CACHE_DIR: the first on an empty cache (cold),
the second on the cache the first left (warm). Each process does what `srdash report` does (judge the competition,
build the report, write the HTML page) with the report's own stage callbacks (the lines `srdash report` prints),
and records the wall and CPU seconds of each stage: which computation (the bootstrap, the winner certificate, ...)
and which group of sections and figures. The page is written with a fixed generation time, so the two pages'
SHA-256 must be equal (printed). Last, `srdash report` itself is run once more on the warm cache (wall and CPU
seconds of the whole command, imports included). With ``--profile N`` the warm process also prints the N srdash
functions with the most cumulative time (cProfile; the profile slows the run several times). No assertions.

Usage: python benchmarks/report2025.py [--seed 0] [--profile 0]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

ONE_REPORT = r"""
import json, os, resource, sys, time
start, start_cpu = time.perf_counter(), time.process_time()
sys.path.insert(0, sys.argv[1])
competition_file, page, profile = sys.argv[2], sys.argv[3], int(sys.argv[4])
stages = []

def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

def stage(text):
    stages.append([text, time.perf_counter(), cpu()])

def work():
    stage("Imports and reading the competition file")
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import judge_competition
    from srdash.report.build import build_competition_report, write_report
    competition = load_competition(competition_file)
    stage("Preparing and judging the competition")
    result = judge_competition(competition)
    report = build_competition_report(result, generated_at="2026-11-27T00:00:00Z", stage=stage)
    write_report(report, page, stage=stage)
    stage("end")
    return result.fingerprint

if profile:
    import cProfile, io, pstats
    profiler = cProfile.Profile()
    fingerprint = profiler.runcall(work)
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text).sort_stats("cumulative")
    stats.print_stats(r"srdash/", profile)
    sys.stderr.write(text.getvalue())
else:
    fingerprint = work()
print(json.dumps({"stages": stages, "fingerprint": fingerprint}))
"""


def _run(code: list[str], env: dict) -> tuple[str, float, float]:
    """Run a command: its stdout and stderr (joined by a NUL), wall seconds and CPU seconds (its children too)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(code, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(done.stderr[-3000:])
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return done.stdout + "\x00" + done.stderr, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", type=int, default=0, help="Print the N srdash functions with the most "
                                                               "cumulative time in the warm report (0: none).")
    options = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    env["PYTHONPATH"] = str(REPO)
    with tempfile.TemporaryDirectory() as folder:
        env["SRDASH_CACHE_DIR"] = os.path.join(folder, "cache")
        demo = os.path.join(folder, "demo")
        subprocess.run([sys.executable, "-m", "srdash", "demo", "--scale", "2025", "--seed", str(options.seed),
                        "-o", demo], env=env, check=True, capture_output=True)
        competition = os.path.join(demo, "competition.toml")
        runs = {}
        for path in ("cold", "warm"):
            page = os.path.join(folder, f"{path}.html")
            profile = options.profile if path == "warm" else 0
            output, wall, cpu = _run([sys.executable, "-c", ONE_REPORT, str(REPO), competition, page, str(profile)],
                                     env)
            stdout, stderr = output.split("\x00", 1)
            out = json.loads(stdout.strip().splitlines()[-1])
            out.update(wall=wall, cpu=cpu, sha256=_sha256(page), profile=stderr if profile else "")
            runs[path] = out
        _, cli_wall, cli_cpu = _run([sys.executable, "-m", "srdash", "report", competition, "-o",
                                     os.path.join(folder, "cli.html")], env)
    print(f"`srdash report` of the 2025-scale demo (seed {options.seed}): 25 methods x 24 datasets x 30 runs")
    print(f"  {'stage':<100} {'cold s':>7} {'cpu s':>6} {'warm s':>7} {'cpu s':>6}")
    cold, warm = _durations(runs["cold"]["stages"]), _durations(runs["warm"]["stages"])
    for name in cold:
        c, w = cold[name], warm.get(name, (float("nan"), float("nan")))
        print(f"  {name[:100]:<100} {c[0]:7.2f} {c[1]:6.2f} {w[0]:7.2f} {w[1]:6.2f}")
    for path in ("cold", "warm"):
        out = runs[path]
        print(f"  {path}: the process {out['wall']:.2f} s ({out['cpu']:.2f} CPU-s, workers included); "
              f"page SHA-256 {out['sha256'][:16]}; verdict fingerprint {out['fingerprint'][:12]}")
    print(f"  same page cold and warm: {runs['cold']['sha256'] == runs['warm']['sha256']}")
    print(f"  `srdash report` on the warm cache: {cli_wall:.2f} s ({cli_cpu:.2f} CPU-s)")
    print(f"  load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if runs["warm"]["profile"]:
        print(runs["warm"]["profile"])


def _durations(stages: list) -> dict:
    """Seconds (wall, CPU) of each stage: from its start to the next one's."""
    return {text: (stages[i + 1][1] - at, stages[i + 1][2] - cpu)
            for i, (text, at, cpu) in enumerate(stages[:-1])}


def _sha256(path: str) -> str:
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


if __name__ == "__main__":
    main()
