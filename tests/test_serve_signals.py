"""`srdash serve` ends everything it started when its terminal closes (SIGHUP), as after Ctrl-C or SIGTERM.

srdash.apps.server.serve_dashboard stops Voilà (which shuts its kernels down) on SIGTERM and SIGHUP; SIGKILL of `srdash serve` is tests/test_killed_suite.py's business.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import child_processes  # tests/ is on sys.path (pytest prepends it)
import pytest
from child_processes import descendants

from srdash.apps.server import free_port

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("to", ["the server", "its process group"])
def test_a_hang_up_stops_srdash_serve_voila_and_the_kernels(tmp_path, to):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    env.update({"SRDASH_CACHE_DIR": str(tmp_path / "cache"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
                "JUPYTER_DATA_DIR": str(tmp_path / "data"), "IPYTHONDIR": str(tmp_path / "ipython"),
                "PYTHONPATH": str(REPO)})
    port = free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        server = child_processes.start([sys.executable, "-m", "srdash", "serve", "--port", str(port), "--jobs", "1",
                                        "--visitors", "1"], env=env, cwd=tmp_path, stdout=log,
                                       stderr=subprocess.STDOUT)
    try:
        started = time.monotonic()
        child_processes.wait_until_serving(server, f"http://127.0.0.1:{port}/", log=log_path)

        def kernel_runs() -> bool:  # Voilà's waiting kernel
            return any("ipykernel" in _command_line(pid) for pid in descendants(server.pid))  # forked ones too

        deadline = time.monotonic() + child_processes.START_BOUND
        while not kernel_runs():
            assert time.monotonic() < deadline and server.poll() is None, log_path.read_text(errors="replace")
            time.sleep(0.2)
        started = time.monotonic() - started
        tree = set(descendants(server.pid))
        assert len(tree) >= 2, tree  # Voilà, a kernel (and the preparing child)

        if to == "the server":
            server.send_signal(signal.SIGHUP)
        else:  # as a closing terminal does: every process of its foreground group
            os.killpg(server.pid, signal.SIGHUP)
        # bound: a clean stop takes about 2 s; scaled by how slow this machine was to start the server
        code = server.wait(max(60.0, 2 * started))
        deadline = time.monotonic() + max(30.0, started)
        while [pid for pid in tree if _alive(pid)] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [pid for pid in tree if _alive(pid)] == [], log_path.read_text(errors="replace")
    finally:
        child_processes.kill(server)
    assert code == 0, log_path.read_text(errors="replace")
    assert "Stopping the dashboard..." in log_path.read_text(errors="replace")


def _command_line(pid: int) -> str:
    try:
        return child_processes.command_line(pid)  # a kernel forked by srdash's zygote says so
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
