"""srdash's kernel provisioner: each kernel forked from one warm zygote instead of a fresh Python.

jupyter_client picks a kernel's provisioner by name from the entry points of
the group ``jupyter_client.kernel_provisioners``; srdash registers
:class:`ForkProvisioner` there as ``srdash-fork``, and srdash's Voilà
configuration (:func:`srdash.apps.gate.configure`) makes it the default
(``KernelProvisionerFactory.default_provisioner_name``). It is jupyter_client's
:class:`~jupyter_client.provisioning.LocalProvisioner` (written to be
subclassed) with one step changed: the kernel's process is forked by the
zygote (:mod:`srdash.apps.zygote`) rather than started with ``Popen``. The
connection file, ports, environment, signals, shutdown and clean-up are
LocalProvisioner's own; the kernel is an ordinary ipykernel.

The zygote is started by the first kernel asked for, with that kernel's
environment, and imports ``preload`` (what the app's notebook imports), so
a kernel's start costs a fork rather than its imports: measured in
docs/scaling.md, "Kernels forked again, through a provisioner". Whenever a
zygote cannot serve (not Linux, it did not start, it reported a hazard, it
died), the kernel is started as LocalProvisioner starts it; a kernel is never
refused for that.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import select
import signal
import socket
import subprocess
import sys
import threading
from typing import Any

from jupyter_client.provisioning import LocalProvisioner
from traitlets import Float, List, Unicode

from srdash.apps.zygote import read_message, write_message

__all__ = ["ForkProvisioner", "ForkedProcess", "ZygoteClient", "PROVISIONER_NAME", "can_fork"]

#: The entry point's name (pyproject.toml, ``[project.entry-points."jupyter_client.kernel_provisioners"]``).
PROVISIONER_NAME = "srdash-fork"


def can_fork() -> bool:
    """Whether this system offers what forked kernels need: ``fork``, ``pidfd_open`` and ``pidfd_send_signal``."""
    return hasattr(os, "fork") and hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal")


class ForkedProcess:
    """The part of ``subprocess.Popen`` LocalProvisioner uses, for a kernel forked by the zygote.

    Watched and signalled through its pidfd, so never confused with a later process given the same pid. The
    kernel is the zygote's child, so its exit status is the zygote's to collect: :meth:`poll` answers ``None``
    while it runs and 0 once it has ended.
    """

    stdin = stdout = stderr = None

    def __init__(self, pid: int, pidfd: int):
        self.pid = pid
        self.pidfd = pidfd
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self.pidfd >= 0:
            ready, _, _ = select.select([self.pidfd], [], [], 0)
            if ready:
                self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            ready, _, _ = select.select([self.pidfd], [], [], timeout)
            if not ready:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
            self._ended()
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            signal.pidfd_send_signal(self.pidfd, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def _ended(self) -> None:
        self.returncode = 0
        os.close(self.pidfd)
        self.pidfd = -1


class ZygoteClient:
    """One zygote, started on first use with the given environment; asks it for kernels (blocking calls)."""

    def __init__(self, modules: list[str], env: dict[str, str]):
        self._lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock = ours
        # started from the event loop's thread: the zygote's death signal follows that thread, which lives as
        # long as Voilà does
        self.process = subprocess.Popen([sys.executable, "-m", "srdash.apps.zygote", str(theirs.fileno()), *modules],
                                        pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL)
        theirs.close()
        self.problem = ""
        self.problems: list[str] = []
        self.answered = False
        self.told = False

    def wait_ready(self, timeout: float) -> None:
        """Wait (blocking) for the zygote's imports; sets :attr:`problem` if it is not ready in ``timeout`` s."""
        with self._lock:
            if self.answered:
                return
            ready, _, _ = select.select([self.sock], [], [], timeout)
            hello, _fds = read_message(self.sock) if ready else (None, [])
            if hello is None:
                self.problem = "the zygote did not start" if ready else f"the zygote was not ready in {timeout} s"
            elif not hello.get("ready"):
                self.problem = str(hello.get("hazard") or "the zygote refused")
            self.problems = list(hello.get("problems", [])) if hello else []
            self.answered = True

    @property
    def serving(self) -> bool:
        """Ready, without a problem, and running."""
        return self.answered and not self.problem and self.process.poll() is None

    def fork(self, cmd: list[str], env: dict[str, str], cwd: str) -> ForkedProcess:
        """A kernel forked from the zygote, running ``cmd``'s ipykernel; ``OSError``/``RuntimeError`` if not."""
        with self._lock:
            write_message(self.sock, {"argv": list(cmd), "env": dict(env), "cwd": str(cwd)})
            answer, fds = read_message(self.sock)
        if answer is None:
            self.problem = "the zygote ended"
            raise RuntimeError(self.problem)
        if "pid" not in answer or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise RuntimeError(str(answer.get("error", "the zygote answered without a kernel")))
        return ForkedProcess(int(answer["pid"]), fds[0])

    def stop(self) -> None:
        self.sock.close()  # the zygote stops its kernels and exits at the end of its socket
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class ForkProvisioner(LocalProvisioner):
    """LocalProvisioner, whose kernels are forked from a warm zygote (see the module's docstring)."""

    preload = List(Unicode(), default_value=[], help="The modules the zygote imports before forking kernels.",
                   config=True)
    ready_timeout = Float(120.0, help="Seconds to wait for the zygote's imports before starting kernels "
                          "without it.", config=True)

    _zygotes: dict[tuple, ZygoteClient] = {}  # one per Voilà process and set of modules

    async def _zygote(self, env: dict[str, str]) -> ZygoteClient | None:
        if not can_fork():
            return None
        key = (os.getpid(), tuple(self.preload))
        client = ForkProvisioner._zygotes.get(key)
        if client is None or (client.process.poll() is not None and not client.problem):
            client = ForkProvisioner._zygotes[key] = ZygoteClient(list(self.preload), env)
        if not client.answered:
            await asyncio.get_running_loop().run_in_executor(None, client.wait_ready, self.ready_timeout)
            if not client.told:  # said once, by the first kernel that waited
                client.told = True
                for problem in ([client.problem] if client.problem else []) + client.problems:
                    self.log.warning("srdash: kernels forked from a zygote: %s", problem)
        return client if client.serving else None

    async def launch_kernel(self, cmd: list[str], **kwargs: Any):
        """Fork the kernel from the zygote; as LocalProvisioner does when the zygote cannot."""
        env = dict(kwargs.get("env") or os.environ)
        cwd = str(kwargs.get("cwd") or pathlib.Path.cwd())
        loop = asyncio.get_running_loop()
        process = None
        if cmd[1:3] == ["-m", "ipykernel_launcher"]:
            try:
                client = await self._zygote(env)
                if client is not None:
                    process = await loop.run_in_executor(None, client.fork, cmd, env, cwd)
            except (OSError, RuntimeError, ValueError) as error:
                self.log.warning("srdash: a kernel starts without the zygote: %s", error)
        if process is None:
            return await super().launch_kernel(cmd, **kwargs)
        self.process = process
        self.pid = process.pid
        self.pgid = process.pid  # the kernel leads a session of its own
        self.cwd = cwd
        return self.connection_info
