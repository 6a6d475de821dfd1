"""The zygote: one warm process that forks each visitor's kernel, its imports done once and shared.

A served kernel spends most of its start importing (ipykernel, pandas, plotly,
ipywidgets, srdash's apps: 0.6 of its 1.35 CPU-s) and holds those modules in
memory of its own. The zygote imports them once, freezes what the garbage
collector tracks (``gc.freeze``: a child's collections then do not write to
the pages it shares with the zygote), and forks one child per kernel asked
for by :class:`srdash.apps.provisioner.ForkProvisioner`. A child starts
ipykernel from the command line jupyter_client gave (``-m ipykernel_launcher
-f CONNECTION_FILE``), in the environment and folder given, in a session of
its own (so a signal to its process group reaches it and its children only).

The zygote talks to one client only: the Voilà process that started it, over
the socket pair it was handed (no path on disk another process could connect
to, so nobody can delay a kernel's start by idling on it). A request is a
length-prefixed JSON object of bounded size; the answer carries the child's
pid and, with it, a pidfd (``os.pidfd_open``), so that the client signals and
watches exactly that process even after its pid is reused. When the client's
end closes (Voilà stopped or was killed), the zygote sends its children
SIGTERM and exits; each child also gets SIGKILL if the zygote dies
(``PR_SET_PDEATHSIG``) and ipykernel's own parent poller ends it once its
parent changes.

The zygote refuses to fork (and says why) when its imports left a thread
running that a fork would break (:func:`fork_hazards`): a fork copies one
thread only, and a lock another thread held would never be released in the
child. The client then starts kernels as
jupyter_client does. Linux only (``pidfd_open``, ``prctl``); elsewhere the
provisioner never starts a zygote.

Run as ``python -m srdash.apps.zygote FD MODULE...``.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import select
import signal
import socket
import struct
import sys
import traceback
from pathlib import Path
from typing import Callable, Sequence

__all__ = ["MAX_REQUEST", "KERNEL_MODULES", "KERNEL_NAME", "fork_hazards", "read_message", "write_message", "checked_request",
           "Zygote", "main"]

#: The largest request read (bytes): a command line, an environment and a folder.
MAX_REQUEST = 1 << 20
#: What ipykernel imports as it starts (its shell, its debugger): imported by the zygote before any app module.
KERNEL_MODULES = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "ipykernel.debugger",
                  "IPython.core.debugger", "IPython.core.completerlib", "sqlite3")
#: What a forked kernel is called in ``ps`` and ``/proc/PID/comm`` (its command line is the zygote's).
KERNEL_NAME = "srdash-kernel"
_PR_SET_PDEATHSIG = 1
_PR_SET_NAME = 15
_HEADER = struct.Struct(">I")


def fork_hazards() -> list[str]:
    """The threads of this process a fork would leave broken in the child: empty when forking is safe.

    Python threads other than the main one (a lock one of them held would never be released in the child) and
    zmq's I/O threads (a zmq context does not survive a fork; the operating system names them ``ZMQbg/...``).
    The threads C libraries start for themselves and make fork-aware with ``pthread_atfork`` (OpenBLAS's workers,
    jemalloc's background thread, which numpy and pyarrow start on import) are not hazards.

    >>> import threading
    >>> stop = threading.Event()
    >>> holder = threading.Thread(target=stop.wait, name="holder")
    >>> holder.start()
    >>> "the Python thread 'holder' runs" in fork_hazards()
    True
    >>> stop.set(); holder.join()
    """
    import threading

    hazards = [f"the Python thread {thread.name!r} runs" for thread in threading.enumerate()
               if thread is not threading.main_thread()]
    try:
        names = [Path(f"/proc/self/task/{task}/comm").read_text().strip() for task in os.listdir("/proc/self/task")]
    except OSError:
        names = []
    hazards += [f"the thread {name!r} runs" for name in names if name.startswith("ZMQbg")]
    return hazards


def write_message(sock: socket.socket, message: dict, fds: Sequence[int] = ()) -> None:
    """Send ``message`` as a length-prefixed JSON object, with ``fds`` passed alongside (SCM_RIGHTS)."""
    data = json.dumps(message).encode()
    payload = _HEADER.pack(len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [payload], list(fds))
        payload = payload[sent:]
    if payload:
        sock.sendall(payload)


def read_message(sock: socket.socket, *, limit: int = MAX_REQUEST) -> tuple[dict | None, list[int]]:
    """Read one message written by :func:`write_message`: ``(object, fds)``, or ``(None, [])`` at the end.

    A message longer than ``limit`` bytes, or not a JSON object, raises ``ValueError``.
    """
    data, fds, _flags, _address = socket.recv_fds(sock, _HEADER.size, 4)
    if not data:
        return None, []
    while len(data) < _HEADER.size:
        more = sock.recv(_HEADER.size - len(data))
        if not more:
            return None, []
        data += more
    (size,) = _HEADER.unpack(data)
    if size > limit:
        raise ValueError(f"A message of {size} bytes is over the limit of {limit}.")
    body = bytearray()
    while len(body) < size:
        more = sock.recv(min(size - len(body), 1 << 16))
        if not more:
            return None, []
        body += more
    message = json.loads(body)
    if not isinstance(message, dict):
        raise ValueError("A message must be a JSON object.")
    return message, list(fds)


def checked_request(request: dict) -> tuple[list[str], dict[str, str], str]:
    """The command's arguments after ``-m ipykernel_launcher``, the environment and the folder of a request.

    Raises ``ValueError`` for anything else than ``{"argv": [str...], "env": {str: str}, "cwd": str}`` whose
    command runs ``ipykernel_launcher`` as a module.

    >>> checked_request({"argv": ["python", "-m", "ipykernel_launcher", "-f", "k.json"], "env": {}, "cwd": "/"})
    (['-f', 'k.json'], {}, '/')
    """
    argv, env, cwd = request.get("argv"), request.get("env"), request.get("cwd")
    if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)):
        raise ValueError("The request's 'argv' must be a list of strings.")
    if not (isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        raise ValueError("The request's 'env' must map strings to strings.")
    if not isinstance(cwd, str):
        raise ValueError("The request's 'cwd' must be a string.")
    if argv[1:3] != ["-m", "ipykernel_launcher"]:
        raise ValueError(f"Only ipykernel_launcher is forked. Got {argv[1:3]!r}.")
    return argv[3:], env, cwd


class Zygote:
    """Fork kernels on request from one client (see the module's docstring).

    Parameters
    ----------
    sock : socket.socket
        This process's end of the socket pair the client made.
    modules : sequence of str
        The app's modules to import (after :data:`KERNEL_MODULES`); a module that fails to import is reported
        and left out.
    warm : callable, optional
        Called once after the imports (e.g. to load what a first figure loads).
    """

    def __init__(self, sock: socket.socket, modules: Sequence[str], *, warm: Callable[[], None] | None = None):
        self.sock = sock
        self.children: set[int] = set()
        self.problems: list[str] = []
        for name in (*KERNEL_MODULES, *modules):
            try:
                importlib.import_module(name)
            except Exception as error:  # an app that cannot be imported still gets kernels: spawned ones
                self.problems.append(f"importing {name}: {type(error).__name__}: {error}")
        if warm is not None:
            try:
                warm()
            except Exception as error:
                self.problems.append(f"warming: {type(error).__name__}: {error}")
        self.hazard = "; ".join(fork_hazards())
        gc.collect()
        gc.freeze()
        self.prctl = _prctl()

    def serve(self) -> None:
        """Answer requests until the client's end closes; then stop the children and return."""
        write_message(self.sock, {"ready": not self.hazard, "hazard": self.hazard, "problems": self.problems})
        poller = select.poll()
        poller.register(self.sock, select.POLLIN)
        while True:
            events = poller.poll(1000)
            self._reap()
            if not events:
                continue
            try:
                request, fds = read_message(self.sock)
            except (ValueError, OSError):  # the stream can no longer be trusted: stop as at its end
                break
            for fd in fds:  # nothing is passed to the zygote
                os.close(fd)
            if request is None:
                break
            self._answer(request)
        for pid in self.children:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def _answer(self, request: dict) -> None:
        if self.hazard:
            write_message(self.sock, {"error": self.hazard})
            return
        try:
            argv, env, cwd = checked_request(request)
        except ValueError as error:
            write_message(self.sock, {"error": str(error)})
            return
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            self._become_kernel(argv, env, cwd, parent)
        self.children.add(pid)
        pidfd = os.pidfd_open(pid)  # before any reaping: the pid is still this child's
        try:
            write_message(self.sock, {"pid": pid}, [pidfd])
        finally:
            os.close(pidfd)

    def _become_kernel(self, argv: list[str], env: dict[str, str], cwd: str, parent: int) -> None:
        """In the child: never returns."""
        code = 1
        try:
            self.sock.close()
            os.setsid()
            if self.prctl is not None:
                self.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
                self.prctl(_PR_SET_NAME, KERNEL_NAME.encode(), 0, 0, 0)
            if os.getppid() != parent:  # the zygote died before prctl
                os._exit(1)
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
                signal.signal(signum, signal.SIG_DFL)
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            # ipykernel's parent poller watches the zygote (its default was read from the zygote's environment)
            argv = [*argv, f"--IPKernelApp.parent_handle={parent}"]
            if "ipywidgets" in sys.modules:
                # ipywidgets registers its comm targets when imported in a running kernel; imported here before the
                # kernel, it does so as an IPython extension: without them a page asks for each widget alone
                argv.append("--IPKernelApp.extensions=ipywidgets")
            sys.argv = ["ipykernel_launcher", *argv]
            from ipykernel.kernelapp import launch_new_instance

            launch_new_instance(argv=argv)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)

    def _reap(self) -> None:
        for pid in list(self.children):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.children.discard(pid)


def _prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def warm_plotly() -> None:
    """Load what plotly loads for a first figure (its validators), so that each kernel shares them."""
    import plotly.graph_objects as go

    go.Figure(go.Scatter(x=[0], y=[0])).to_dict()


def main(args: Sequence[str] | None = None) -> int:
    """``python -m srdash.apps.zygote FD MODULE...``: serve the client on socket ``FD``."""
    args = list(sys.argv[1:] if args is None else args)
    sock = socket.socket(fileno=int(args[0]))
    prctl = _prctl()
    if prctl is not None:  # the zygote goes when Voilà goes, even killed
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    modules = args[1:]
    # debugpy (ipykernel's debugger) otherwise warns on import that Python's modules are frozen; the kernels get
    # their own environment
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    Zygote(sock, modules, warm=warm_plotly if any(m.startswith("srdash.apps") for m in modules) else None).serve()
    return 0


if __name__ == "__main__":  # pragma: no cover - run by the provisioner
    sys.exit(main())
