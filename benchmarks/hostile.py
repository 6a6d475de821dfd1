"""What each class of hostile input of issues 24 and 32 costs now: measured seconds and MB, no assertions.

The classes are numbered in the order of the issue's list, as in ``tests/test_hostile.py``,
whose tests assert the same bounds loosely; the inputs are built by the same scripts
(``tests/data/hostile/make_bombs.py``, ``make_hostile.py``), and the in-process costs are
measured by the same function (``make_hostile.cost``: seconds, and the growth of the peak
RSS above the RSS at the start, the peak reset through ``/proc/self/clear_refs``).

1. Number literals: the time sympy alone takes to build a float literal with a huge
   exponent (``2e<k>`` for growing k: the cost srdash now refuses before sympy
   sees it), and the time srdash takes to parse, write as LaTeX and evaluate
   the hostile literals of the issue, in the main thread and in a worker thread;
   plus the overhead of the worker-thread CPU limit on an honest model.

2. Decompression bombs: for each bomb of ``make_bombs.py``, its size on disk, the peak memory
   (RSS) and time of reading it whole the naive way (``pandas.read_parquet(...).astype(str)`` /
   ``read_csv`` of the decompressed text; at a tenth of the bomb's scale, in a subprocess) and
   those of srdash refusing the whole bomb (in this process).

3. The cache trusted too much: reading the demo's kept preparation in its data format
   (JSON + Parquet, format 2, which cannot run code) against a pickle of the same object
   (what format 1 was), and its size; and the time to refuse the forged snapshots.

6. A kernel per wrong key: a served review with keys issued gets 20 requests with wrong
   keys; the time of each refusal, the kernels started (before issue 24: one per request,
   about 140 MB each until culled) and the growth of the server's process tree in MB.

7. Work that outlives its command: the seconds between SIGTERM to a parent whose
   simplification worker is busy and that worker's end (before issue 24: never,
   until its task ended).

14. A 20 MiB comment: the time to refuse it and the growth of the trust store on disk (before:
    80 MiB), against a comment at the 10,000-character limit.

16. A model stopped by the wall clock: the first scoring (a worker started, then killed at a
    wall-clock limit lowered to 0.5 s) against the second (from the cache; before issue 24: the
    whole limit again, 75 s at --timeout 10).

Issue 32 (round 4), inputs built by ``tests/data/hostile/make_inputs.py``:

32.1. A wide prediction file: 100,000 extra columns in the header and rows (3.9 MB), or an
      honest header over rows of 100,002 fields; the naive read of every column (what srdash
      did before) at a tenth of the width, against srdash scoring the whole file.

32.2. Rejection reasons: their length for a header of NUL bytes, of long names with terminal
      escapes, and a file with a problem on every row; and the cost of scoring each.

32.3. Formulas in CSV outputs: writing a 100,000-row table through ``write_csv`` (neutralised)
      against a plain ``to_csv``.

32.4. Junk in energy columns: ``srdash analyse resources`` on the junk cells (exit status and
      problems named) and on an honest file of 100,000 runs.

Timings on shared machines are noisy: compare the numbers of one run.

Usage: python benchmarks/hostile.py [--classes 1 2 3 6 7 14 16 32.1 32.2 32.3 32.4]
"""

from __future__ import annotations

import argparse
import importlib.util
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _script(name: str):
    """A script of ``tests/data/hostile/`` that builds hostile inputs (as ``tests/test_hostile.py`` loads it)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "data" / "hostile" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE = _script("make_hostile")


def _seconds(work, *args, **kwargs) -> float:
    start = time.perf_counter()
    work(*args, **kwargs)
    return time.perf_counter() - start


def _in_thread(work, *args) -> float:
    box = []
    thread = threading.Thread(target=lambda: box.append(_seconds(work, *args)))
    thread.start()
    thread.join()
    return box[0]


def literals() -> None:
    import sympy

    from srdash.errors import ModelRejected
    from srdash.expressions import evaluate_model, latex_of, parse_model

    print("class 1: number literals")
    print("  sympy.Float('2e<k>') alone (what srdash no longer lets sympy do):")
    for k in (1_000, 10_000, 100_000, 300_000):
        print(f"    k = {k:>9,}: {_seconds(sympy.Float, f'2e{k}'):8.3f} s")
    print("    (grows about as k**2: k = 9,999,999 takes more than 400 s)")

    def all_three(model: str) -> None:
        for work in (parse_model, latex_of, lambda m: evaluate_model(m, {"x1": np.linspace(0.1, 1, 3)})):
            try:
                work(model)
            except ModelRejected:
                pass

    hostile = MAKE.LITERAL_MODELS
    print("  srdash parse + LaTeX + evaluation (main thread / worker thread):")
    for name, model in hostile.items():
        print(f"    {name:<36} {_seconds(all_three, model):7.3f} s / {_in_thread(all_three, model):7.3f} s")

    honest = "factor_terms(" + "+".join(f"{i}*x{i}*y" for i in range(470)) + ")"
    sympy.core.cache.clear_cache()
    main = _seconds(parse_model, honest)
    sympy.core.cache.clear_cache()
    thread = _in_thread(parse_model, honest)
    print(f"  CPU limit in a worker thread (a watchdog thread), honest factor_terms of 1,900 nodes: "
          f"{main:.3f} s in the main thread, {thread:.3f} s in a thread ({thread / main:.1f}x)")


_MEASURE = """
import re, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
import gzip, io
import pandas as pd
import pyarrow.parquet
from srdash.io.loading import load_results
rss = lambda field: int(re.search(field + r":\\s+(\\d+)", Path("/proc/self/status").read_text()).group(1))
Path("/proc/self/clear_refs").write_text("5")
before = rss("VmRSS")
start = time.perf_counter()
{work}
print(time.perf_counter() - start, (rss("VmHWM") - before) / 1024)
"""


def _measured(work: str) -> tuple[float, float]:
    """Seconds and peak RSS growth (MB, above the RSS after the imports) of ``work`` in a fresh interpreter."""
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-c", _MEASURE.format(root=root, work=work)], capture_output=True,
                         text=True).stdout.split()
    return (float(out[0]), float(out[1])) if len(out) == 2 else (float("nan"), float("nan"))


def bombs() -> None:
    import tempfile

    from srdash.io.loading import load_results

    make = _script("make_bombs")
    naive = {"parquet": "pd.read_parquet({path!r}).astype(str)",  # text columns, as the results loader holds them
             "csv": "pd.read_csv(io.BytesIO(gzip.decompress(open({path!r}, 'rb').read())), dtype=str)"}
    scaled = {"rows.parquet": {"rows": 500_000}, "dictionary.parquet": {"rows": 20_000},
              "pages.parquet": {"size": 30 * 2**20}, "big.csv.gz": {"size": 10 * 2**20},
              "rows.csv.gz": {"rows": 200_000}}
    print("class 2: decompression bombs (naive read at 1/10 scale; srdash refusing the whole bomb: least seconds "
          "and most MB of two refusals)")
    with tempfile.TemporaryDirectory() as folder:
        for name, build in make.BOMBS.items():
            kind = "parquet" if name.endswith(".parquet") else "csv"
            full = build(Path(folder) / name)
            small = build(Path(folder) / ("small-" + name), **scaled[name])
            naive_s, naive_mb = _measured(naive[kind].format(path=str(small)))
            costs = [MAKE.cost(load_results, full) for _ in range(2)]  # the first imports what it needs
            srdash_s, srdash_mb = min(c[0] for c in costs), max(c[1] for c in costs)
            print(f"  {name:<20} {full.stat().st_size / 1024:8.0f} KB on disk; naive read of a tenth: "
                  f"{naive_s:6.2f} s, {naive_mb:7.0f} MB; srdash refuses the whole: {srdash_s:6.3f} s, "
                  f"{srdash_mb:5.1f} MB")


def orphans() -> None:
    seconds = MAKE.sigterm_to_parent_of_a_busy_worker([str(ROOT)], limit=10.0)
    if seconds is None:
        print("class 7: the busy worker outlived its parent by more than 10 s (killed now)")
    else:
        print(f"class 7: a busy worker ended {seconds:.3f} s after SIGTERM to its parent")


def snapshots() -> None:
    import copyreg
    import io
    import os
    import pickle
    import tempfile
    from dataclasses import replace
    from types import MappingProxyType

    with tempfile.TemporaryDirectory() as folder:
        os.environ["SRDASH_CACHE_DIR"] = folder
        from srdash.demo.competition import cached_demo
        from srdash.judging import snapshot
        from srdash.judging.competition import load_competition
        from srdash.judging.pipeline import prepare_competition

        prepared = prepare_competition(load_competition(cached_demo()["competition"]))
        bare = replace(prepared, competition=None, trust_entries=None, cache_stats=MappingProxyType({}))
        blob = snapshot._dumps(bare)
        class Pickler(pickle.Pickler):  # format 1 kept mapping proxies the same way
            dispatch_table = {**copyreg.dispatch_table, MappingProxyType: lambda proxy: (dict, (dict(proxy),))}

        buffer = io.BytesIO()
        Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(bare)
        pickled = buffer.getvalue()
        snapshot._loads(blob)  # imports
        data = min(_seconds(snapshot._loads, blob) for _ in range(5))
        unpickled = min(_seconds(pickle.loads, pickled) for _ in range(5))
        forged = [MAKE.cost(snapshot._loads, value)[0] for value, _ in MAKE.forged_snapshots(Path(folder) / "pwned")]
        assert not (Path(folder) / "pwned").exists()
        del os.environ["SRDASH_CACHE_DIR"]
    print(f"class 3: the demo's kept preparation ({len(prepared.runs)} runs): data format {len(blob) / 1024:.0f} KB "
          f"read in {data:.3f} s; a pickle {len(pickled) / 1024:.0f} KB read in {unpickled:.3f} s "
          f"({data / unpickled:.1f}x, and it could run code); {len(forged)} forged snapshots refused in at most "
          f"{max(forged) * 1000:.2f} ms each")


def wrong_keys() -> None:
    import os
    import signal
    import subprocess
    import sys
    import tempfile
    import urllib.error
    import urllib.request
    from pathlib import Path

    from srdash.apps.server import free_port, wait_until_ready
    from srdash.judging.trust import TrustStore

    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        with TrustStore(folder / "trust.sqlite", seed=1) as store:
            store.issue_key("ann")
        (folder / "r.csv").write_text("method,dataset,model,r2_test\na,d1,x1,0.5\nb,d1,2*x1,0.6\n")
        port = free_port()
        env = {**os.environ, "SRDASH_CACHE_DIR": str(folder / "cache"),
               "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        server = subprocess.Popen([sys.executable, "-m", "srdash", "review", "r.csv", "--store", "trust.sqlite",
                                   "--port", str(port)], cwd=folder, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_until_ready(f"http://127.0.0.1:{port}/", timeout=120, process=server)
            before = MAKE.tree_rss_mb(server.pid)
            seconds = []
            for i in range(20):
                start = time.perf_counter()
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/?key=wrong-{i}", timeout=120)
                except urllib.error.HTTPError as refused:
                    assert refused.code == 403
                seconds.append(time.perf_counter() - start)
            kernels = sum(len(MAKE.children(voila)) for voila in MAKE.children(server.pid))
            after = MAKE.tree_rss_mb(server.pid)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(30)
    print(f"class 6: 20 requests with wrong keys: refused in {np.median(seconds) * 1000:.0f} ms each (median; first "
          f"{seconds[0] * 1000:.0f} ms), {kernels} kernels started, server tree {before:.0f} -> {after:.0f} MB")


def comments() -> None:
    import tempfile

    from srdash.judging.trust import MAX_COMMENT_CHARS, TrustStore, TrustStoreError

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trust.sqlite"
        with TrustStore(path, seed=1) as store:
            store.record("ann", "d1", "a", kind="rank", value=1)
            start_bytes = MAKE.store_bytes(path)
            huge = MAKE.huge_comment()
            seconds, megabytes = MAKE.cost(store.record, "ann", "d1", "b", kind="rank", comment=huge)
            refused = (MAKE.store_bytes(path) - start_bytes) / 2**20
            try:
                store.record("ann", "d1", "b", kind="rank", comment=huge)
            except TrustStoreError:
                pass
            else:
                raise AssertionError("the 20 MiB comment was saved")
            before = MAKE.store_bytes(path)
            kept = _seconds(store.record, "ann", "d1", "c", kind="rank", comment="x" * MAX_COMMENT_CHARS)
            at_limit = (MAKE.store_bytes(path) - before) / 2**20
    print(f"class 14: a 20 MiB comment refused in {seconds * 1000:.1f} ms, +{megabytes:.1f} MB peak RSS, the store "
          f"+{refused:.2f} MiB on disk; a comment at the 10,000-character limit saved in {kept * 1000:.1f} ms, "
          f"the store +{at_limit:.2f} MiB")


def wall_clock() -> None:
    import tempfile

    import srdash.expressions as expressions
    from srdash.expressions import complexity_table

    original = expressions.complexity._Settings.hard_limit
    expressions.complexity._Settings.hard_limit = property(lambda self: 0.5)  # a model stuck where only the wall clock stops it
    try:
        with tempfile.TemporaryDirectory() as folder:
            cache = Path(folder) / "c.sqlite"
            first = _seconds(complexity_table, ["x1 + x2"], timeout=5, cache=cache)
            second = _seconds(complexity_table, ["x1 + x2"], timeout=5, cache=cache)
            status = complexity_table(["x1 + x2"], timeout=5, cache=cache)["status"].tolist()
    finally:
        expressions.complexity._Settings.hard_limit = original
    print(f"class 16: a model stopped by the wall clock (limit lowered to 0.5 s): first scoring {first:.3f} s, "
          f"second {second * 1000:.1f} ms from the cache (status {status})")


INPUTS = _script("make_inputs")

# What srdash did with a solution CSV before issue 32: every column parsed as text, then stripped.
_NAIVE_SOLUTION = ("t = pd.read_csv({path!r}, dtype=str, keep_default_na=False, index_col=False); "
                   "t.apply(lambda c: c.fillna('').astype(str).str.strip())")


def _scoring_cost(folder: Path) -> tuple[float, float, str]:
    """Seconds, peak MB and reason of scoring the one submission of ``folder``/SUBMISSIONS (least of two)."""
    from srdash.judging.predictions import score_submissions

    box = {}
    costs = [MAKE.cost(lambda: box.setdefault("r", score_submissions(folder / "SUBMISSIONS", INPUTS.targets(),
                                                                      metric="rmse"))) for _ in range(2)]
    reason = box["r"].submissions["reason"].iloc[0]
    return min(c[0] for c in costs), max(c[1] or 0.0 for c in costs), reason


def wide_files() -> None:
    import tempfile

    print("class 32.1: wide prediction files (naive read of every column at 1/10 scale, in a subprocess; srdash "
          "scoring the whole file: least seconds and most MB of two)")
    with tempfile.TemporaryDirectory() as folder:
        for make in (INPUTS.wide_header, INPUTS.wide_rows):
            whole = Path(folder) / make.__name__
            path = make(whole)
            small = make(Path(folder) / ("small-" + make.__name__), columns=10_000)
            naive_s, naive_mb = _measured(_NAIVE_SOLUTION.format(path=str(small)))
            seconds, megabytes, reason = _scoring_cost(whole)
            print(f"  {make.__name__:<12} {path.stat().st_size / 2**20:5.1f} MiB, 100,002 fields a row; naive read "
                  f"of a tenth: {naive_s:6.2f} s, {naive_mb:6.0f} MB; srdash: {seconds:6.3f} s, {megabytes:5.1f} MB "
                  f"({reason[:60]}...)")


def reasons() -> None:
    import tempfile

    print("class 32.2: rejection reasons (length in characters, seconds and MB of scoring the file)")
    with tempfile.TemporaryDirectory() as folder:
        for make in (INPUTS.nul_header, INPUTS.long_header, INPUTS.many_problems):
            whole = Path(folder) / make.__name__
            path = make(whole)
            seconds, megabytes, reason = _scoring_cost(whole)
            print(f"  {make.__name__:<14} {path.stat().st_size:>9,} bytes: reason of {len(reason):,} characters, "
                  f"{seconds:.3f} s, {megabytes:.1f} MB")


def formulas() -> None:
    import pandas as pd

    from srdash.io.csvsafe import write_csv

    rows = 100_000
    names = list(INPUTS.FORMULA_NAMES) + ["Operon", "PySR"]
    frame = pd.DataFrame({"method": [names[i % len(names)] for i in range(rows)],
                          "dataset": [f"d{i % 120}" for i in range(rows)],
                          "r2_test": [0.5 - (i % 7) / 10 for i in range(rows)]})
    plain = _seconds(frame.to_csv, index=False)
    seconds, megabytes = MAKE.cost(write_csv, frame)
    print(f"class 32.3: a {rows:,}-row table with formula names: to_csv {plain:.3f} s, write_csv (neutralised, "
          f"quoted for the CR names) {seconds:.3f} s, +{megabytes or 0:.1f} MB peak")


def energy() -> None:
    import tempfile

    from click.testing import CliRunner

    from srdash.cli import main

    with tempfile.TemporaryDirectory() as folder:
        path = INPUTS.junk_energy(Path(folder))
        honest = INPUTS.junk_energy(Path(folder) / "honest", honest_rows=100_000)
        lines = honest.read_text().splitlines()
        honest.write_text("\n".join(lines[:1] + lines[1 + len(INPUTS.JUNK_ENERGY):]) + "\n")
        runner = CliRunner()
        box = {}
        seconds, megabytes = MAKE.cost(lambda: box.setdefault("junk", runner.invoke(main, ["analyse", "resources",
                                                                                           str(path)])))
        honest_s, honest_mb = MAKE.cost(lambda: runner.invoke(main, ["analyse", "resources", str(honest)]))
    problems = box["junk"].output.count("\n  - ")
    print(f"class 32.4: junk energy cells: exit {box['junk'].exit_code}, {problems} problems named, {seconds:.3f} s, "
          f"+{megabytes or 0:.1f} MB; an honest 100,000-run file: {honest_s:.2f} s, +{honest_mb or 0:.1f} MB")


CLASSES = {"1": literals, "2": bombs, "3": snapshots, "6": wrong_keys, "7": orphans, "14": comments,
           "16": wall_clock, "32.1": wide_files, "32.2": reasons, "32.3": formulas, "32.4": energy}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", nargs="*", default=list(CLASSES), choices=list(CLASSES))
    options = parser.parse_args()
    for name in options.classes:
        CLASSES[name]()


if __name__ == "__main__":
    main()
