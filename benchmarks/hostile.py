"""What each class of hostile input of issue 24 costs now: measured seconds and MB, no assertions.

Classes measured (each prints one block):

1. Number literals: the time sympy alone takes to build a float literal with a huge
   exponent (``2e<k>`` for growing k: the cost srdash now refuses before sympy
   sees it), and the time srdash takes to parse, write as LaTeX and evaluate
   the hostile literals of the issue, in the main thread and in a worker thread;
   plus the overhead of the worker-thread CPU limit on an honest model.

2. Decompression bombs: for each bomb of ``tests/data/hostile/make_bombs.py``, its
   size on disk, the peak memory (RSS) and time of reading it whole the naive way
   (``pandas.read_parquet(...).astype(str)`` / ``read_csv`` of the decompressed text; at a tenth of
   the bomb's scale, in a subprocess) and those of srdash refusing it. Memory is the growth of
   the peak RSS over the imports' peak: 0 means below that high-water mark.

3. The cache trusted too much: reading the demo's kept preparation in its data format
   (JSON + Parquet, format 2, which cannot run code) against a pickle of the same object
   (what format 1 was), and its size.

7. Work that outlives its command: the seconds between SIGTERM to a parent whose
   simplification worker is busy and that worker's end (before issue 24: never,
   until its task ended).

8. A kernel per wrong key: a served review with keys issued gets 20 requests with wrong
   keys; the time of each refusal, the kernels started (before issue 24: one per request,
   about 140 MB each until culled) and the growth of the server's process tree in MB.

Timings on shared machines are noisy: compare the numbers of one run.

Usage: python benchmarks/hostile.py [--classes 1 2 3 7 8]
"""

from __future__ import annotations

import argparse
import threading
import time

import numpy as np


def _seconds(work, *args) -> float:
    start = time.perf_counter()
    work(*args)
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

    hostile = {
        "x1 + 2e9999999": "x1 + 2e9999999",
        "erf(sin(1.<3,000 digits>))": "erf(sin(1." + "3" * 3000 + "))",
        "x1*1.<5,000 digits>e-5": "x1*1." + "7" * 5000 + "e-5",
        "100 digits in 4 nested functions": "erf(sin(exp(tanh(1." + "3" * 99 + "*x1))))",
        "1e308*1e308*1e308*x1": "1e308*1e308*1e308*x1",
    }
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
import resource, sys, time
sys.path.insert(0, {root!r})
import gzip, io
import pandas as pd
import pyarrow.parquet
from srdash.io.loading import load_results
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start = time.perf_counter()
{work}
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before)
"""


def _measured(work: str) -> tuple[float, float]:
    """Seconds and peak RSS growth (MB) of ``work`` in a fresh interpreter, after the imports."""
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-c", _MEASURE.format(root=root, work=work)], capture_output=True,
                         text=True).stdout.split()
    return (float(out[0]), float(out[1])) if len(out) == 2 else (float("nan"), float("nan"))


def bombs() -> None:
    import importlib.util
    import tempfile
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "make_bombs", Path(__file__).resolve().parents[1] / "tests" / "data" / "hostile" / "make_bombs.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    refuse = "try:\n    load_results({path!r})\nexcept Exception as exc:\n    print(str(exc)[-90:], file=sys.stderr)"
    naive = {"parquet": "pd.read_parquet({path!r}).astype(str)",  # text columns, as the results loader holds them
             "csv": "pd.read_csv(io.BytesIO(gzip.decompress(open({path!r}, 'rb').read())), dtype=str)"}
    scaled = {"rows.parquet": {"rows": 500_000}, "dictionary.parquet": {"rows": 20_000},
              "pages.parquet": {"size": 30 * 2**20}, "big.csv.gz": {"size": 10 * 2**20},
              "rows.csv.gz": {"rows": 200_000}}
    print("class 2: decompression bombs (naive read at 1/10 scale; srdash at full scale)")
    with tempfile.TemporaryDirectory() as folder:
        for name, build in make.BOMBS.items():
            kind = "parquet" if name.endswith(".parquet") else "csv"
            full = build(Path(folder) / name)
            small = build(Path(folder) / ("small-" + name), **scaled[name])
            naive_s, naive_mb = _measured(naive[kind].format(path=str(small)))
            srdash_s, srdash_mb = _measured(refuse.format(path=str(full)))
            print(f"  {name:<20} {full.stat().st_size / 1024:8.0f} KB on disk; naive read of a tenth: "
                  f"{naive_s:6.2f} s, {naive_mb:7.0f} MB; srdash refuses the whole: {srdash_s:5.2f} s, "
                  f"{srdash_mb:5.0f} MB")


_ORPHAN = """
import sys, threading, time
sys.path.insert(0, {root!r})
from srdash.expressions._timelimit import WorkerPool
pool = WorkerPool(time.sleep, processes=1, time_limit=None)
pool.submit(0, 120)

def announce():
    while not pool._workers or pool._workers[0].task is None:
        time.sleep(0.01)
    print(pool._workers[0].process.pid, flush=True)

threading.Thread(target=announce, daemon=True).start()
list(pool.results())
"""


def orphans() -> None:
    import signal
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN.format(root=root)], stdout=subprocess.PIPE, text=True)
    worker = int(parent.stdout.readline())
    start = time.perf_counter()
    parent.send_signal(signal.SIGTERM)
    parent.wait(10)
    status = Path(f"/proc/{worker}/status")
    while time.perf_counter() - start < 10:
        try:
            state = next(line for line in status.read_text().splitlines() if line.startswith("State:"))
        except (FileNotFoundError, ProcessLookupError):
            break
        if "Z" in state.split()[1]:
            break
        time.sleep(0.001)
    else:
        import os

        os.kill(worker, signal.SIGKILL)
        print("class 7: the busy worker outlived its parent by more than 10 s (killed now)")
        return
    print(f"class 7: a busy worker ended {time.perf_counter() - start:.3f} s after SIGTERM to its parent")


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
    print(f"class 3: the demo's kept preparation ({len(prepared.runs)} runs): data format {len(blob) / 1024:.0f} KB "
          f"read in {data:.3f} s; a pickle {len(pickled) / 1024:.0f} KB read in {unpickled:.3f} s "
          f"({data / unpickled:.1f}x, and it could run code)")


def _tree_rss_mb(pid: int) -> float:
    from pathlib import Path

    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024
            pending += [int(c) for c in Path(f"/proc/{current}/task/{current}/children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError, StopIteration):
            continue
    return total


def _children(pid: int) -> list[int]:
    from pathlib import Path

    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        return []


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
            before = _tree_rss_mb(server.pid)
            seconds = []
            for i in range(20):
                start = time.perf_counter()
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/?key=wrong-{i}", timeout=120)
                except urllib.error.HTTPError as refused:
                    assert refused.code == 403
                seconds.append(time.perf_counter() - start)
            kernels = sum(len(_children(voila)) for voila in _children(server.pid))
            after = _tree_rss_mb(server.pid)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(30)
    print(f"class 8: 20 requests with wrong keys: refused in {np.median(seconds) * 1000:.0f} ms each (median; first "
          f"{seconds[0] * 1000:.0f} ms), {kernels} kernels started, server tree {before:.0f} -> {after:.0f} MB")


CLASSES = {"1": literals, "2": bombs, "3": snapshots, "7": orphans, "8": wrong_keys}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", nargs="*", default=list(CLASSES), choices=list(CLASSES))
    options = parser.parse_args()
    for name in options.classes:
        CLASSES[name]()


if __name__ == "__main__":
    main()
