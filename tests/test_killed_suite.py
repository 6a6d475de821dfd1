"""A killed test run leaves nothing running: no `srdash serve`, Voilà, kernel or xdist worker.

A small pytest run (two test files under ``-n 2 --dist loadfile``, as scripts/test.sh runs the suite) starts,
through tests/child_processes.py as the suite does, a real ``srdash serve`` with a waiting kernel in one worker
and a browser-less server (``python -m http.server``) in the other. Once both are up, one xdist worker is
killed (SIGKILL), then pytest itself: every process of that run (they carry the run's ``PYTEST_SRDASH_RUN``
value in their environment, read from /proc) must be gone soon after each kill.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import child_processes  # tests/ is on sys.path (pytest prepends it)
import pytest

REPO = Path(__file__).resolve().parents[1]
#: Bound on the inner run's start (workers, `srdash serve` with one waiting kernel), in seconds: only for a
#: broken run (about 15 s when idle).
START_BOUND = child_processes.START_BOUND

# Each test of the inner run writes what it started into $SUITE_REPORTS/<name>.json once it is up, then waits
# to be killed (the bound only ends a run whose killer failed).
INNER_COMMON = '''
import json, os, subprocess, sys, time
from pathlib import Path

sys.path.insert(0, {tests!r})
import child_processes
from srdash.apps.server import free_port


def report(name, **what):
    path = Path(os.environ["SUITE_REPORTS"]) / (name + ".json")
    path.with_suffix(".tmp").write_text(json.dumps({{"worker": os.getpid(), **what}}))
    path.with_suffix(".tmp").rename(path)


def wait_to_be_killed():
    time.sleep({bound})
    raise AssertionError("not killed")
'''

INNER_SERVE = '''
def test_serve(tmp_path):
    env = {{k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}}
    env.update(SRDASH_CACHE_DIR=str(tmp_path / "cache"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"), IPYTHONDIR=str(tmp_path / "ipython"), PYTHONPATH={repo!r})
    port = free_port()
    # a tiny competition: srdash checks and prepares it at once (the demo would first be written to the cache)
    (tmp_path / "results.csv").write_text("method,dataset,run,r2_test,components,property\\n"
                                          "a,d1,0,0.9,3,0.5\\nb,d1,0,0.8,5,0.5\\n")
    log = open(tmp_path / "serve.log", "wb")
    server = child_processes.start([sys.executable, "-m", "srdash", "serve", "results.csv", "--port", str(port),
                                    "--jobs", "1", "--visitors", "1"], env=env, cwd=tmp_path, stdout=log,
                                   stderr=subprocess.STDOUT)
    child_processes.wait_until_serving(server, f"http://127.0.0.1:{{port}}/", log=tmp_path / "serve.log")
    deadline = time.monotonic() + {bound}
    while not any("ipykernel" in line
                  for line in child_processes.marked_processes(os.environ[child_processes.MARKER]).values()):
        assert time.monotonic() < deadline and server.poll() is None, (tmp_path / "serve.log").read_text()
        time.sleep(0.2)
    report("serve", server=server.pid)
    wait_to_be_killed()
'''

INNER_HTTP = '''
def test_http_server(tmp_path):
    port = free_port()
    server = child_processes.start([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
                                   cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import urllib.request
    deadline = time.monotonic() + {bound}
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{{port}}/", timeout=5).close()
            break
        except OSError:
            assert time.monotonic() < deadline and server.poll() is None
            time.sleep(0.1)
    report("http", server=server.pid)
    wait_to_be_killed()
'''


def _wait_for(what: str, condition, bound: float, explain) -> float:
    """Seconds until ``condition()`` holds; fails with ``explain()`` after ``bound`` seconds."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > bound:
            pytest.fail(f"{what} within {bound:.0f} s: {explain()}")
        time.sleep(0.1)
    return time.monotonic() - start


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
def test_no_process_outlives_a_killed_worker_or_a_killed_run(tmp_path):
    marker = f"killed-suite-{uuid.uuid4().hex}"
    reports = tmp_path / "reports"
    reports.mkdir()
    inner = tmp_path / "inner"
    inner.mkdir()
    common = INNER_COMMON.format(tests=str(REPO / "tests"), bound=START_BOUND)
    (inner / "test_a_serve.py").write_text(common + INNER_SERVE.format(repo=str(REPO), bound=START_BOUND))
    (inner / "test_b_http.py").write_text(common + INNER_HTTP.format(bound=START_BOUND))
    (inner / "conftest.py").write_text((REPO / "conftest.py").read_text())  # the suite's own, as it is
    env = {**os.environ, child_processes.MARKER: marker, "SUITE_REPORTS": str(reports),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    log = open(tmp_path / "run.log", "wb")
    # not child_processes.start: this run must not get SIGTERM from its parent, it is SIGKILLed below
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist",
                            "loadfile", "--basetemp", str(tmp_path / "basetemp"), "-q", "test_a_serve.py",
                            "test_b_http.py"], cwd=inner, env=env, stdout=log, stderr=subprocess.STDOUT,
                           start_new_session=True)

    def left() -> dict[int, str]:
        return child_processes.marked_processes(marker)

    def run_log() -> str:
        return (tmp_path / "run.log").read_text(errors="replace")[-3000:]

    try:
        started = _wait_for("the inner run's servers did not start",
                            lambda: (reports / "serve.json").exists() and (reports / "http.json").exists()
                            or run.poll() is not None, START_BOUND, run_log)
        assert run.poll() is None, run_log()
        serve, http = (json.loads((reports / f"{name}.json").read_text()) for name in ("serve", "http"))
        assert serve["worker"] != http["worker"], "both test files ran in one worker"
        running = left()
        assert {serve["server"], http["server"], serve["worker"], http["worker"]} <= set(running), running
        lines = " | ".join(running.values())
        assert "srdash.apps.voila_main" in lines and "ipykernel" in lines, running

        # The loose bound: what a clean stop of `srdash serve` (Voilà and its kernel) takes, measured
        # at about 2 s, scaled by how slow this machine was to start the run (7-15 s).
        bound = max(30.0, 2 * started)
        print(f"the inner run's servers were up after {started:.1f} s")
        os.kill(http["worker"], signal.SIGKILL)
        _wait_for("the killed worker's server did not end", lambda: not _alive(http["server"]), bound,
                  lambda: child_processes.marked_processes(marker))
        assert _alive(serve["server"]), "the other worker's server ended too"

        run.send_signal(signal.SIGKILL)
        run.wait()
        _wait_for("processes of the killed run are still running", lambda: not left(), bound,
                  lambda: json.dumps(left(), indent=1))
    finally:
        for pid in left():
            os.kill(pid, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
            run.wait()
        log.close()


# --------------------------------------------------------------------------- the helper's refusals and messages


def test_start_refuses_what_it_sets_itself():
    with pytest.raises(TypeError, match=r"The 'start_new_session' option is set by child_processes\.start\. "
                                        r"Got False\.$"):
        child_processes.start([sys.executable, "-c", "pass"], start_new_session=False)


def test_a_server_that_stops_before_serving_is_reported_with_its_output(tmp_path):
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        server = child_processes.start([sys.executable, "-c", "print('Error: no such file'); raise SystemExit(3)"],
                                       stdout=log, stderr=subprocess.STDOUT)
    try:
        with pytest.raises(AssertionError, match=r"stopped before serving \(exit code 3\).*Its output ends with:\n"
                                                 r"Error: no such file"):
            child_processes.wait_until_serving(server, "http://127.0.0.1:9/", log=log_path)
    finally:
        child_processes.kill(server)
