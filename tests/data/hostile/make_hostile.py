"""Hostile inputs of issue 24 other than the decompression bombs (``make_bombs.py``), built on demand.

Each function builds the input of one class of issue 24 (the class number is the
order of the issue's list, as in ``tests/test_hostile.py``) into a folder given
by the caller, or returns it as a string; nothing is committed. Used by
``tests/test_hostile.py`` and ``benchmarks/hostile.py``, which load this file by
its path (``tests/data`` is not a package).
"""

from __future__ import annotations

import json
import os
import pickle
import re
import signal
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

# --------------------------------------------------------------------------- measuring a bound


def _rss_kib(field: str) -> int:
    return int(re.search(rf"{field}:\s+(\d+)", Path("/proc/self/status").read_text()).group(1))


def cost(work, *args, **kwargs) -> tuple[float, float | None]:
    """Seconds and peak memory growth (MB of RSS above the RSS at the start) of ``work(*args, **kwargs)``, here.

    The peak is Linux's high-water mark, reset first (``/proc/self/clear_refs``); the MB are None
    where it cannot be reset. Whatever ``work`` raises is swallowed: refusing is the work measured.
    """
    try:
        Path("/proc/self/clear_refs").write_text("5")
        before = _rss_kib("VmRSS")
    except OSError:
        before = None
    start = time.perf_counter()
    try:
        work(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a refusal is the expected outcome
        pass
    seconds = time.perf_counter() - start
    return seconds, None if before is None else max(0.0, (_rss_kib("VmHWM") - before) / 1024)


# --------------------------------------------------------------------------- class 1: number literals

#: The models the issue reported, timed by the test (loosely) and the benchmark (precisely).
LITERAL_MODELS = {
    "x1 + 2e9999999": "x1 + 2e9999999",
    "erf(sin(1.<3,000 digits>))": "erf(sin(1." + "3" * 3000 + "))",
    "x1*1.<5,000 digits>e-5": "x1*1." + "7" * 5000 + "e-5",
    "100 digits in 4 nested functions": "erf(sin(exp(tanh(1." + "3" * 99 + "*x1))))",
    "1e308*1e308*1e308*x1": "1e308*1e308*1e308*x1",
}


def literal_model(whole: str, fraction: str | None, exponent: int | None, functions: list[str]) -> str:
    """A model holding one number literal (digits, fraction, exponent) nested in ``functions``."""
    literal = whole + ("" if fraction is None else "." + fraction) + ("" if exponent is None else f"e{exponent}")
    if not any(c.isdigit() for c in literal.split("e")[0]):
        literal = "1" + literal
    model = f"x1*{literal}"
    for name in functions:
        model = f"{name}({model}) + {literal}"
    return model


# --------------------------------------------------------------------------- class 3: the cache trusted too much


class _Payload:
    """Unpickled, runs ``touch TARGET`` (what a pickled preparation could do before issue 24)."""

    def __init__(self, target: Path):
        self.target = target

    def __reduce__(self):
        return os.system, (f"touch {self.target}",)


def _snapshot_blob(document) -> bytes:
    text = json.dumps(document).encode()
    return zlib.compress(b"srdash-snapshot-2\n" + struct.pack(">Q", len(text)) + text)


def forged_snapshots(target: Path) -> list[tuple[bytes, str]]:
    """Snapshot blobs a writer of the cache folder could sign, each with the refusal it meets (a regex).

    A pickle that would create ``target``, and format-2 documents naming a function or a class
    beyond the dataclasses a prepared competition is made of.
    """
    return [(zlib.compress(pickle.dumps(_Payload(target))), "not a format-2 snapshot"),
            (_snapshot_blob({"$dataclass": "os.system", "fields": {}}), r"a snapshot may not build os\.system"),
            (_snapshot_blob({"$tuple": [{"$dataclass": "pandas.read_pickle",
                                         "fields": {"filepath_or_buffer": "x.pkl"}}]}),
             r"a snapshot may not build pandas\.read_pickle"),
            (_snapshot_blob({"$scalar": "|O", "value": 1}), "unexpected scalar type")]


def competition_naming(folder: Path, key: str, value: str) -> Path:
    """A competition folder whose file names its own ``[simplification] key = value`` (a cache, a scheduler)."""
    (folder / "results.csv").write_text("method,dataset,r2_test,components\na,d,0.5,3\n")
    path = folder / "competition.toml"
    path.write_text(f'results = "results.csv"\n[simplification]\n{key} = {value}\n')
    return path


# --------------------------------------------------------------------------- class 4: silent duplicates and merges

_RUN = {"algorithm": "A", "dataset": "d", "random_state": 0, "r2_test": 0.1, "symbolic_model": "x1"}


def json_repeated_key(folder: Path, *, trimmed: bool = False) -> Path:
    """A folder of SRBench JSON results whose ``run.json`` repeats 'r2_test' (or ' r2_test ' if ``trimmed``)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_RUN)[:-1] + (', " r2_test ": 0.9}' if trimmed else ', "r2_test": 0.9}')
    (folder / "run.json").write_text(text)
    (folder / "other.json").write_text(json.dumps({**_RUN, "algorithm": "B", "r2_test": 0.5}))
    return folder


def same_run_in_two_files(folder: Path) -> Path:
    """A competition whose two results files both hold method A, dataset d, run 1; returns the competition file."""
    (folder / "a.csv").write_text("method,dataset,run,r2_test,components\nA,d,0,0.5,3\nA,d,1,0.6,3\n")
    (folder / "b.csv").write_text("method,dataset,run,r2_test,components\nB,d,0,0.7,3\nA,d,1,0.9,3\n")
    (folder / "competition.toml").write_text('results = ["a.csv", "b.csv"]\n[simplification]\ncache = false\n')
    return folder / "competition.toml"


# --------------------------------------------------------------------------- class 6: a kernel per wrong key


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (FileNotFoundError, ProcessLookupError):
        return []


def tree_rss_mb(pid: int) -> float:
    """Resident memory (MB) of ``pid`` and all its descendants, e.g. a Voila server and its kernels."""
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0) / 1024
        pending += children(current)
    return total


# --------------------------------------------------------------------------- class 7: work that outlives its command

_ORPHANING_PARENT = """
import sys, threading, time
sys.path[:0] = {path!r}
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


def start_parent_with_a_busy_worker(path: list[str]) -> tuple[subprocess.Popen, int]:
    """A process whose simplification worker sleeps 120 s; returns it and the worker's pid once busy."""
    parent = subprocess.Popen([sys.executable, "-c", _ORPHANING_PARENT.format(path=path)], stdout=subprocess.PIPE,
                              text=True)
    return parent, int(parent.stdout.readline())


def seconds_until_gone(pid: int, limit: float) -> float | None:
    """Seconds until process ``pid`` has ended (or is a zombie nobody reaped), or None if still running at ``limit``."""
    start = time.perf_counter()
    status = Path(f"/proc/{pid}/status")
    while time.perf_counter() - start < limit:
        try:
            state = next(line for line in status.read_text().splitlines() if line.startswith("State:"))
        except (FileNotFoundError, ProcessLookupError):
            return time.perf_counter() - start
        if "Z" in state.split()[1]:
            return time.perf_counter() - start
        time.sleep(0.001)
    return None


def sigterm_to_parent_of_a_busy_worker(path: list[str], limit: float = 10.0) -> float | None:
    """Seconds from SIGTERM to a parent whose worker is busy until that worker's end (None: still running)."""
    parent, worker = start_parent_with_a_busy_worker(path)
    try:
        start = time.perf_counter()
        parent.send_signal(signal.SIGTERM)
        parent.wait(limit)
        gone = seconds_until_gone(worker, limit)
        if gone is None:
            os.kill(worker, signal.SIGKILL)
            return None
        return time.perf_counter() - start
    finally:
        parent.kill()
        parent.wait()


# --------------------------------------------------------------------------- class 11: names that display alike

LOOKALIKE_METHODS = ["Operon", "Oper\u200bon", "\u202eOperon", "\uff2fperon", "PySR"]


def lookalike_results(path: Path) -> Path:
    """A results CSV whose method names display as 'Operon' four ways (zero-width, bidi, fullwidth) and 'PySR'."""
    rows = [f"{name},d,{run},0.5,3" for name, run in zip(LOOKALIKE_METHODS, [0, 1, 2, 3, 0])]
    path.write_text("method,dataset,run,r2_test,components\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- class 14: a comment of 20 MiB

def huge_comment(size: int = 20 * 2**20) -> str:
    """A review comment of ``size`` characters (the issue's 20 MiB grew the store by 80 MiB)."""
    return "x" * size


def store_bytes(path: Path) -> int:
    """Bytes a trust store takes on disk with its write-ahead log and shared-memory index."""
    return sum(Path(f"{path}{suffix}").stat().st_size for suffix in ("", "-wal", "-shm")
               if Path(f"{path}{suffix}").exists())


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    json_repeated_key(folder / "repeated-key")
    same_run_in_two_files(folder)
    lookalike_results(folder / "lookalike.csv")
    print("written into", folder)
