"""Kernels forked from one warm process (issue 25): srdash.apps.forkserver (the zygote) and
srdash.apps.forkkernel (the launcher jupyter_client runs), driven by jupyter_client as Voilà drives them,
without Voilà (tests/browser/test_visitors.py serves a page with them).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager

from srdash.apps import forkkernel
from srdash.apps.forkserver import SINGLE_THREADED, KernelZygote, default_kernels

pytestmark = pytest.mark.skipif(default_kernels() != "fork", reason="the system cannot fork kernels")

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(scope="module")
def zygote():
    """The dashboard's zygote (srdash's default preload), for the whole module."""
    with KernelZygote(ENV) as started:
        yield started


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _gone(pid: int) -> bool:
    """The process has ended (reaped, or a zombie left to whoever adopted it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def _until(condition, *, timeout: float = 30.0, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def _start(kernel_dirs, cwd: Path, *, env=None, **kwargs):
    manager = KernelManager(kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(d) for d in kernel_dirs]),
                            kernel_name="python3")
    manager.start_kernel(cwd=str(cwd), env=dict(env or ENV), **kwargs)
    client = manager.blocking_client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
    except BaseException:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
        raise
    return manager, client


def _run(client, code: str) -> dict:
    """Run ``code``; its reply's content, with what it printed as ``stdout``."""
    printed = []

    def output(message):
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])

    reply = client.execute_interactive(code, output_hook=output, timeout=120)["content"]
    reply["stdout"] = "".join(printed)
    return reply


def _facts(client) -> dict:
    return json.loads(_run(client, "import json, os, sys\nprint(json.dumps({'pid': os.getpid(), "
                                   "'cwd': os.getcwd(), 'mark': os.environ.get('SRDASH_TEST_VISITOR'), "
                                   "'modules': sorted(sys.modules)}))")["stdout"])


def test_a_kernel_is_forked_from_the_zygote_with_the_launchers_folder_and_environment(zygote, tmp_path):
    manager, client = _start([zygote.folder / "kernels"], tmp_path, env={**ENV, "SRDASH_TEST_VISITOR": "v1"})
    launcher = manager.provisioner.process
    try:
        assert _run(client, "print(1 + 1)")["stdout"] == "2\n"
        facts = _facts(client)
        # the kernel is the zygote's child, not the process jupyter_client started (the launcher)
        assert _parent(facts["pid"]) == zygote.pid and facts["pid"] != launcher.pid
        assert b"forkkernel.py" in Path(f"/proc/{launcher.pid}/cmdline").read_bytes()
        # it took the launcher's folder and environment, not the zygote's
        assert facts["cwd"] == str(tmp_path) and facts["mark"] == "v1"
        modules = set(facts["modules"])
        # what it shares was imported before it existed (it imported nothing itself to run this)...
        assert {"pandas", "plotly.graph_objects", "ipywidgets", "srdash.apps.dashboard"} <= modules
        # ...and none of what a prepared dashboard kernel must not import (tests/test_kernel_imports.py)
        assert not modules & {"sympy", "sklearn", "dask", "distributed", "scipy.stats"}
        # what the zygote's imports chose without a kernel is set as a fresh kernel would have it
        assert _run(client, "import plotly.io as pio; print(pio.renderers.default)")["stdout"] == "plotly_mimetype\n"
        # ipywidgets' comm targets are the kernel's: a page asks for all its widgets in one message
        targets = _run(client, "print(sorted(get_ipython().kernel.comm_manager.targets))")["stdout"]
        assert targets == "['jupyter.widget', 'jupyter.widget.control']\n"
        kernel = facts["pid"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel()
    # shut down by its message, as Voilà does: the launcher exits with the kernel's status, the kernel is reaped
    assert launcher.wait(30) == 0
    _until(lambda: _gone(kernel), what="the shut-down kernel is reaped by the zygote")


def test_two_kernels_are_two_forks_with_their_own_random_state(zygote, tmp_path):
    first, first_client = _start([zygote.folder / "kernels"], tmp_path)
    second, second_client = _start([zygote.folder / "kernels"], tmp_path)
    draw = "import numpy, os; print(os.getpid(), numpy.random.random())"
    try:
        pid_a, value_a = _run(first_client, draw)["stdout"].split()
        pid_b, value_b = _run(second_client, draw)["stdout"].split()
        assert pid_a != pid_b and _parent(int(pid_a)) == _parent(int(pid_b)) == zygote.pid
        assert value_a != value_b  # numpy's global state is not the zygote's, copied into both
    finally:
        for manager, client in ((first, first_client), (second, second_client)):
            client.stop_channels()
            manager.shutdown_kernel(now=True)


def test_an_interrupt_reaches_the_forked_kernel(zygote, tmp_path):
    manager, client = _start([zygote.folder / "kernels"], tmp_path)
    try:
        # stop_on_error=False: with its default (True, as a notebook runs cells), the kernel aborts every
        # request that reaches it before it has finished handling the error, unrun and with the reply status
        # "aborted" (ipykernel's stop_on_error_timeout); on a loaded machine the next cell can be one of them
        # (seen in CI, and in 3 of 610 interrupts on 2 cores loaded with 4 busy loops: the reply to
        # `print(1 + 1)` was "aborted"). The kernel's way, not the relay's.
        asleep = tmp_path / "asleep"
        request = client.execute(f"import time, pathlib\npathlib.Path({str(asleep)!r}).touch()\ntime.sleep(120)",
                                 stop_on_error=False)
        deadline = time.monotonic() + 60
        while not asleep.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.05)  # from the file's creation to the sleep: one line of Python
        manager.interrupt_kernel()  # SIGINT to the launcher's process group, as jupyter_client sends it
        while True:
            reply = client.get_shell_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == request:
                break
        assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
        after = _run(client, "print(1 + 1)")  # the kernel lives on
        assert (after["status"], after["stdout"]) == ("ok", "2\n")
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_a_killed_launcher_takes_its_kernel_with_it(zygote, tmp_path):
    manager, client = _start([zygote.folder / "kernels"], tmp_path)
    try:
        kernel = _facts(client)["pid"]
        launcher = manager.provisioner.process
        os.kill(launcher.pid, signal.SIGKILL)
        launcher.wait(10)
        _until(lambda: _gone(kernel), what="the zygote kills the kernel of a launcher that died")
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    # the zygote serves the next one
    manager, client = _start([zygote.folder / "kernels"], tmp_path)
    try:
        assert _parent(_facts(client)["pid"]) == zygote.pid
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_without_a_zygote_the_launcher_becomes_a_kernel_itself_and_says_so(tmp_path):
    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-I", "-S", forkkernel.__file__, "--zygote", str(tmp_path / "nobody.sock"),
                 "-f", "{connection_file}"], "display_name": "Python 3", "language": "python"}))
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        manager, client = _start([tmp_path / "kernels"], tmp_path, stderr=stderr)
        launcher = manager.provisioner.process
        try:
            assert _run(client, "print(1 + 1)")["stdout"] == "2\n"
            facts = _facts(client)
            assert facts["pid"] == launcher.pid  # it replaced itself with python -m ipykernel_launcher
            assert "srdash.apps.dashboard" not in facts["modules"]  # nothing preloaded
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
    said = (tmp_path / "stderr.txt").read_text()
    assert "kernel not forked" in said and "nobody.sock" in said and "starting it alone" in said


def _kernel_of(zygote, tmp_path):
    """A kernel forked by ``zygote``: its manager, its process id and its launcher's process (channels closed)."""
    manager, client = _start([zygote.folder / "kernels"], tmp_path)
    kernel = _facts(client)["pid"]
    client.stop_channels()
    return manager, kernel, manager.provisioner.process


def test_stopping_the_zygote_ends_its_kernels_and_their_launchers(tmp_path):
    zygote = KernelZygote(ENV, preload=["ipykernel.kernelapp"])
    try:
        manager, kernel, launcher = _kernel_of(zygote, tmp_path)
    finally:
        zygote.stop()
    _until(lambda: _gone(kernel), what="the zygote ends its kernels when it stops")
    # the zygote reported the kernel's end (SIGTERM): the launcher ends the same way
    assert launcher.wait(30) == -signal.SIGTERM
    assert not zygote.folder.exists()  # the socket and the kernelspec are removed
    manager.shutdown_kernel(now=True)


def test_a_killed_zygote_takes_its_kernels_with_it(tmp_path):
    zygote = KernelZygote(ENV, preload=["ipykernel.kernelapp"])
    try:
        manager, kernel, launcher = _kernel_of(zygote, tmp_path)
        zygote.process.kill()
        zygote.process.wait(10)
        _until(lambda: _gone(kernel), what="a kernel ends when its zygote dies (no orphan kernel)")
        assert launcher.wait(30) == 1  # the launcher cannot know the kernel's status: 1, and says why
    finally:
        zygote.stop()
    manager.shutdown_kernel(now=True)


def test_native_libraries_start_no_thread_in_the_zygote_and_a_thread_forbids_forking():
    code = ("import threading, time\nfrom srdash.apps.forkserver import fork_hazards\nimport pandas, numpy\n"
            "print(fork_hazards())\nthreading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n"
            "print(fork_hazards())")
    done = subprocess.run([sys.executable, "-c", code], env={**ENV, **SINGLE_THREADED}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()[-2:]
    assert before == "[]"  # OpenBLAS and pyarrow's jemalloc start no thread with SINGLE_THREADED
    assert "2 Python threads" in after


def test_a_forked_kernel_builds_the_prepared_dashboard_with_few_imports_of_its_own(zygote, tmp_path):
    from srdash.demo.competition import cached_demo
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import prepare_competition

    competition = load_competition(cached_demo()["competition"])
    expected = sorted(prepare_competition(competition).runs["method"].unique())  # stored for every visitor
    env = {k: v for k, v in ENV.items() if k != "SRDASH_COMPETITION"}  # the demo, as `srdash serve` without INPUT
    manager, client = _start([zygote.folder / "kernels"], tmp_path, env=env)
    try:
        before = set(_facts(client)["modules"])
        built = _run(client, "from srdash.apps import Dashboard\napp = Dashboard.from_environment()\n"
                             "import json, sys\nprint(json.dumps({'leaderboard': sorted(app.verdict.leaderboard"
                             "['method']), 'modules': sorted(sys.modules)}))")
        assert built["status"] == "ok", built
        seen = json.loads(built["stdout"].strip().splitlines()[-1])
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert seen["leaderboard"] == expected  # the page is built
    imported = set(seen["modules"]) - before
    assert not {m.split(".")[0] for m in imported} & {"sympy", "sklearn", "dask", "distributed"}
    assert "scipy.stats" not in imported
    # the zygote's preload (forkserver.PRELOAD) holds what the page needs: a kernel imports a few modules more
    # (about 12 when this was written), not hundreds (a spawned kernel: about 1,500)
    assert len(imported) < 60, sorted(imported)


def test_after_the_reviews_preload_parsing_a_ground_truth_imports_nothing_more():
    """A review kernel parses the datasets' ground truths; sympy imports sympy.tensor.tensor (and
    sympy.combinatorics: 0.1 s) the first time it adds terms, which the review's zygote does for every kernel."""
    from srdash.apps.forkserver import REVIEW_PRELOAD

    preload = [name for name in REVIEW_PRELOAD if ":" not in name]
    code = ("import importlib, json, sys\n"
            f"for name in {preload!r}:\n    importlib.import_module(name)\n"
            "before = set(sys.modules)\n"
            "from srdash.expressions import parse_model\n"
            "parse_model('0.4*x1*x2 - 1.5*x1 + sin(x2)**2')\n"
            "print(json.dumps(sorted(set(sys.modules) - before)))")
    done = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_a_zygote_still_importing_is_terminated_and_a_ready_one_stops_when_its_stdin_closes():
    # `srdash serve` and `srdash review` start the zygote while their inputs are checked; a bad input stops it
    # at once. A zygote still importing reads its stdin only once its imports are done (seconds with sympy):
    # it holds no kernel yet, so it is terminated (SIGTERM) rather than waited for. A ready one (READY_FILE
    # beside its socket) is told to stop by the end of its stdin, and ends its kernels itself (exit code 0).
    from srdash.apps.forkserver import READY_FILE, REVIEW_PRELOAD

    importing = KernelZygote(ENV, preload=REVIEW_PRELOAD)
    assert not (importing.folder / READY_FILE).exists()
    importing.stop()
    assert importing.process.returncode == -signal.SIGTERM and not importing.folder.exists()
    ready = KernelZygote(ENV, preload=["json"])
    deadline = time.monotonic() + 60
    while not (ready.folder / READY_FILE).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    ready.stop()
    assert ready.process.returncode == 0


# --------------------------------------------------------------------------- idle and slow clients (issue 32)


def _connected(path) -> "socket.socket":
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    return sock


def _still_open(sock) -> bool:
    """The zygote has neither closed ``sock`` nor written to it (it waits for the request)."""
    sock.setblocking(False)
    try:
        return not sock.recv(1)  # b"" would be the zygote's end of the connection
    except BlockingIOError:
        return True
    finally:
        sock.setblocking(True)


def test_idle_and_slow_connections_do_not_delay_another_kernels_start(tmp_path):
    # Before issue 32 the zygote read one request at a time, waiting up to 10 s on each connection: three
    # connections that sent nothing delayed the next kernel by 30.8 s. Here they may wait 600 s (longer than
    # any start, however loaded the machine): the kernel must start while they are all still open.
    from srdash.apps import forkkernel

    zygote = KernelZygote(ENV, preload=["ipykernel.kernelapp"], request_timeout=600)
    idle = []
    try:
        idle = [_connected(zygote.socket_path) for _ in range(3)]
        slow = _connected(zygote.socket_path)
        slow.sendall(forkkernel.MAGIC[:2])  # half a header, then nothing
        manager, client = _start([zygote.folder / "kernels"], tmp_path)
        try:
            assert _parent(_facts(client)["pid"]) == zygote.pid
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
        assert all(_still_open(sock) for sock in [*idle, slow])
    finally:
        for sock in idle:
            sock.close()
        zygote.stop()


def test_a_connection_that_sends_no_request_in_time_is_dropped_with_a_reason(tmp_path):
    zygote = KernelZygote(ENV, preload=["json"], request_timeout=0.5)
    try:
        quiet, garbage = _connected(zygote.socket_path), _connected(zygote.socket_path)
        garbage.sendall(b"GET / HTTP/1.0\r\n\r\n")  # 8 bytes of header: not a launcher's magic
        quiet.settimeout(60)
        garbage.settimeout(60)
        assert quiet.recv(4096).decode().startswith("error a connection sent no whole request within 0.5 s")
        assert garbage.recv(4096) == b"error a request that is not a kernel launcher's\n"
        assert quiet.recv(10) == b""  # closed (the other may be reset: it sent bytes the zygote did not read)
        quiet.close()
        garbage.close()
        # the zygote serves on
        manager, client = _start([zygote.folder / "kernels"], tmp_path)
        try:
            assert _parent(_facts(client)["pid"]) == zygote.pid
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
    finally:
        zygote.stop()


def test_connections_waiting_for_their_request_are_bounded_the_oldest_goes():
    from srdash.apps.forkserver import MAX_PENDING

    zygote = KernelZygote(ENV, preload=["json"], request_timeout=600)
    held = []
    try:
        held = [_connected(zygote.socket_path) for _ in range(MAX_PENDING + 1)]
        held[0].settimeout(60)
        said = held[0].recv(4096).decode()
        assert said == (f"error more than {MAX_PENDING} connections waited to send their request; the one "
                        "connected longest ago was dropped\n")
        assert all(_still_open(sock) for sock in held[1:])
    finally:
        for sock in held:
            sock.close()
        zygote.stop()
