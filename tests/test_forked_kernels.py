"""Kernels forked from the zygote through srdash's kernel provisioner (srdash/apps/provisioner.py, zygote.py).

Each test starts real kernels through jupyter_client's own KernelManager, configured as srdash's Voilà
configuration configures it (the provisioner chosen by its entry point's name), with a zygote that imports
only ``json`` (an app's zygote imports pandas and plotly: seconds; what a kernel shares is measured in
benchmarks/visitors.py). Waits are bounds on a process ending, never timings of srdash's work.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked kernels are Linux-only")

BOUND = 60.0  # seconds a process may take to start or end on a loaded machine


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _command(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # ended; its parent has not collected it yet


def _wait_until(check, what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _manager(preload=("json",)):
    from jupyter_client.manager import AsyncKernelManager
    from traitlets.config import Config

    config = Config()
    config.ForkProvisioner.preload = list(preload)
    config.KernelManager.transport = "ipc"
    # a connection file of its own, hence ipc sockets of its own (``<file>-ipc-N``), as jupyter_server gives each
    # kernel; with the default base ("kernel-ipc" in the folder) two kernels of one folder can pick the same N
    # when one's heartbeat has not bound yet
    return AsyncKernelManager(config=config, connection_file=str(Path.cwd() / f"k-{uuid.uuid4().hex[:8]}.json"))


@pytest.fixture(autouse=True)
def forked_by_default():
    """jupyter_client's provisioner factory (a process-wide singleton) configured as srdash's Voilà configures it."""
    from jupyter_client.provisioning.factory import KernelProvisionerFactory
    from traitlets.config import Config

    from srdash.apps.gate import PROVISIONER

    config = Config()
    config.KernelProvisionerFactory.default_provisioner_name = PROVISIONER  # as gate.configure sets it
    KernelProvisionerFactory.clear_instance()
    KernelProvisionerFactory.instance(config=config)
    yield
    KernelProvisionerFactory.clear_instance()  # the next test's kernels: jupyter_client's defaults again


async def _run(manager, code: str) -> str:
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=BOUND)
        printed: list[str] = []
        reply = await client.execute_interactive(
            code, timeout=BOUND,
            output_hook=lambda m: printed.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
        return "".join(printed) if reply["content"]["status"] == "ok" else f"error: {reply['content']['ename']}"
    finally:
        client.stop_channels()


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_kernel_is_forked_from_the_zygote_runs_code_is_interrupted_and_ends(folder):
    async def scenario():
        manager = _manager()
        await manager.start_kernel()
        try:
            kernel = manager.provisioner.pid
            zygote = _parent(kernel)
            # a child of the zygote, not of this process; the zygote is a child of this process
            assert "srdash.apps.zygote" in _command(zygote) and _parent(zygote) == os.getpid()
            out = await _run(manager, "import os, sys; print(os.getpid(), os.getpgid(0) == os.getpid(), "
                                      "'pandas' in sys.modules, os.getcwd())")
            pid, own_group, pandas, cwd = out.split()
            # the kernel leads its own process group (a signal to it reaches no zygote) and runs in the folder asked
            assert int(pid) == kernel and own_group == "True" and Path(cwd) == folder.resolve()
            assert pandas == "False"  # this zygote imported json only
            client = manager.client()
            client.start_channels()
            await client.wait_for_ready(timeout=BOUND)
            msg_id = client.execute("import time; time.sleep(120)")
            await asyncio.sleep(0.5)
            await manager.interrupt_kernel()  # LocalProvisioner's own send_signal, through the kernel's group
            while True:
                reply = await client.get_shell_msg(timeout=BOUND)
                if reply["parent_header"].get("msg_id") == msg_id:
                    break
            client.stop_channels()
            assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
            assert await manager.is_alive()
        finally:
            await manager.shutdown_kernel(now=False)
        assert not await manager.is_alive()
        _wait_until(lambda: not Path(f"/proc/{kernel}").exists(), "the zygote collects its ended kernel")

    asyncio.run(scenario())


def test_a_forked_kernel_has_ipywidgets_comm_targets_as_a_kernel_importing_ipywidgets_does(folder):
    """The zygote imported ipywidgets before any kernel ran: each kernel registers its comm targets (else a page
    falls back from one request for all its widgets' states to one request per widget: 176 on the dashboard)."""
    async def scenario():
        manager = _manager(preload=("ipywidgets",))
        await manager.start_kernel()
        try:
            out = await _run(manager, "import sys, comm; print('ipywidgets' in sys.modules, "
                                      "sorted(comm.get_comm_manager().targets))")
            assert out.split(maxsplit=1)[0] == "True"  # imported by the zygote, before this kernel
            assert "'jupyter.widget'" in out and "'jupyter.widget.control'" in out
        finally:
            await manager.shutdown_kernel(now=True)

    asyncio.run(scenario())


def test_the_zygote_is_reached_only_through_its_socket_pair_and_listens_on_nothing(folder):
    """Issue 33, item 5: no client can delay a kernel's start by idling on the zygote's socket: it has none."""
    async def scenario():
        manager = _manager()
        await manager.start_kernel()
        try:
            zygote = _parent(manager.provisioner.pid)
            sockets = {os.readlink(f"/proc/{zygote}/fd/{fd}") for fd in os.listdir(f"/proc/{zygote}/fd")}
            inodes = {link[len("socket:["):-1] for link in sockets if link.startswith("socket:[")}
            listening = [line for line in Path("/proc/net/unix").read_text().splitlines()[1:]
                         if line.split()[6] in inodes and line.split()[3] == "00010000"]  # __SO_ACCEPTCON
            named = [line for line in Path("/proc/net/unix").read_text().splitlines()[1:]
                     if line.split()[6] in inodes and len(line.split()) > 7]
            assert inodes and not listening and not named
            # and a second kernel starts from the same zygote while the first one runs
            second = _manager()
            await second.start_kernel()
            try:
                assert _parent(second.provisioner.pid) == zygote
                assert "ok" in await _run(second, "print('ok')")
            finally:
                await second.shutdown_kernel(now=True)
        finally:
            await manager.shutdown_kernel(now=True)

    asyncio.run(scenario())


def test_a_kernel_ends_when_its_zygote_is_killed(folder):
    async def scenario():
        manager = _manager(preload=("json", "csv"))  # a zygote of its own
        await manager.start_kernel()
        kernel = manager.provisioner.pid
        zygote = _parent(kernel)
        try:
            os.kill(zygote, signal.SIGKILL)
            _wait_until(lambda: _gone(kernel), "the kernel ends with its zygote (PR_SET_PDEATHSIG)")
            _wait_until(lambda: not manager.provisioner.process.poll() is None, "the provisioner sees it ended")
        finally:
            await manager.shutdown_kernel(now=True)

    asyncio.run(scenario())


def test_a_zygote_with_a_thread_running_forks_nothing_and_kernels_start_as_jupyter_client_starts_them(
        folder, monkeypatch):
    (folder / "threaded_at_import.py").write_text(
        "import threading, time\nthreading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n")
    monkeypatch.setenv("PYTHONPATH", f"{folder}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")

    async def scenario():
        manager = _manager(preload=("threaded_at_import",))
        await manager.start_kernel()
        try:
            kernel = manager.provisioner.pid
            assert _parent(kernel) == os.getpid()  # spawned by jupyter_client, not forked
            assert "ipykernel_launcher" in _command(kernel)
            assert "ok" in await _run(manager, "print('ok')")
        finally:
            await manager.shutdown_kernel(now=True)

    asyncio.run(scenario())


def test_a_request_the_zygote_cannot_read_is_refused_with_a_reason():
    from srdash.apps.zygote import checked_request, read_message, write_message

    with pytest.raises(ValueError, match="Only ipykernel_launcher is forked. Got \\['-c', 'import os'\\]"):
        checked_request({"argv": ["python", "-c", "import os"], "env": {}, "cwd": "/"})
    with pytest.raises(ValueError, match="'env' must map strings to strings"):
        checked_request({"argv": ["python", "-m", "ipykernel_launcher"], "env": {"A": 1}, "cwd": "/"})
    with pytest.raises(ValueError, match="'argv' must be a list of strings"):
        checked_request({"argv": "python -m ipykernel_launcher", "env": {}, "cwd": "/"})
    ours, theirs = socket.socketpair()
    with ours, theirs:
        write_message(ours, {"argv": ["x" * 100]})
        # json.dumps: '{"argv": ["' (11 characters) + 100 x + '"]}' (3) = 114 bytes
        with pytest.raises(ValueError, match="A message of 114 bytes is over the limit of 10"):
            read_message(theirs, limit=10)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        write_message(ours, {"pid": 7})
        assert read_message(theirs) == ({"pid": 7}, [])
        ours.close()
        assert read_message(theirs) == (None, [])


def test_fork_hazards_name_a_running_python_thread():
    from srdash.apps.zygote import fork_hazards

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="holder", daemon=True)
    thread.start()
    try:
        assert "the Python thread 'holder' runs" in fork_hazards()
    finally:
        stop.set()
        thread.join()
    assert "the Python thread 'holder' runs" not in fork_hazards()
    # this process has no zmq context running (its I/O threads would be named ZMQbg/...), a fork-safe import
    assert not any("ZMQbg" in hazard for hazard in fork_hazards())
