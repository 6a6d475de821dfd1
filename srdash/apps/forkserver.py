"""Kernels forked from one warm process (the "zygote"), so that a served app's visitors share its imports.

A fresh kernel (``python -m ipykernel_launcher``) imports ipykernel, numpy,
pandas, plotly, ipywidgets and srdash before it runs a line of the notebook:
about 2 s of CPU and 120 MB of memory of its own, for every visitor. With
``--kernels fork`` (the default of ``srdash serve`` where the system has
``fork``), one process imports all that once, and every kernel is a fork of
it: the kernels share those memory pages until one of them writes to a page
(copy-on-write), and a kernel starts without importing anything.

The pieces
----------
:class:`KernelZygote`
    Started by :func:`srdash.apps.server.serve_dashboard` before Voilà. It
    makes a private folder (mode 0700) holding the zygote's Unix socket and a
    kernelspec, ``kernels/python3/kernel.json``, whose command is the launcher
    (:mod:`srdash.apps.forkkernel`); :meth:`KernelZygote.environment` puts
    that folder first on Voilà's ``JUPYTER_PATH``, so the ``python3`` kernel
    of srdash's notebooks is the launcher for that Voilà process only. The
    socket is bound before the zygote starts: a kernel asked for while the
    zygote still imports waits in the socket's queue.
The zygote (``python -m srdash.apps.forkserver --listen-fd N``)
    Imports the modules it is given (:data:`PRELOAD` for the dashboard: no
    sympy, scikit-learn or dask, which a prepared dashboard kernel must not
    import, see tests/test_kernel_imports.py), freezes what the garbage
    collector tracks (``gc.freeze``: a child's collections then do not write
    to the shared pages), then serves requests. Requests are read as their
    bytes arrive, from every connection at once (one poll loop, no thread): a
    connection that sends nothing or sends slowly delays no other kernel; it
    is dropped after ``request_timeout`` seconds, or when
    :data:`MAX_PENDING` others wait behind it (the oldest goes). It forks only
    while it holds a single thread, no zmq context and no asyncio loop
    (:func:`fork_hazards`; a thread does not survive a fork and a lock it held
    stays locked), else it refuses and the launcher starts the kernel alone.
    OpenBLAS and OpenMP are told to use one thread and pyarrow's jemalloc to
    start no background thread (:data:`SINGLE_THREADED`), so it holds one.
A forked kernel
    Starts a new session (Ctrl-C in the terminal of ``srdash serve`` does not
    interrupt it, as for a spawned kernel), takes the launcher's standard
    streams, folder, umask and environment (with ``JPY_PARENT_PID`` naming the
    zygote, also given to ipykernel's parent poller), and runs the kernel
    application with the launcher's arguments, as ``ipykernel_launcher``
    does, then exits. What the zygote's imports decided without a kernel is
    set as in a fresh kernel: numpy's global random state is seeded afresh
    (Python's ``random`` reseeds itself after a fork) and plotly's default
    renderer is the one it chooses under ipykernel.

Lifetimes: no kernel without its launcher, none without the zygote
-------------------------------------------------------------------
- The launcher dies (even by SIGKILL, as jupyter_client kills a kernel that
  does not shut down): the zygote sees its connection close and kills the
  kernel's process group.
- The kernel exits: the zygote reaps it and reports its status; the launcher
  exits with it.
- ``srdash serve`` stops: it stops Voilà (which shuts its kernels down), then
  closes the zygote's stdin; the zygote then terminates its remaining kernels
  and exits. When ``srdash serve`` is killed, the zygote sees its stdin close
  (and gets SIGTERM on Linux) all the same. On Linux a kernel also gets
  SIGKILL when the zygote dies; elsewhere ipykernel's parent poller ends it.

Examples
--------
>>> sorted(SINGLE_THREADED)
['JE_ARROW_MALLOC_CONF', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS']
>>> default_kernels() in KERNEL_MODES
True
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import importlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, Mapping, Sequence

from srdash.apps import forkkernel

__all__ = ["KERNEL_MODES", "PRELOAD", "REVIEW_PRELOAD", "SINGLE_THREADED", "KernelZygote", "default_kernels", "fork_hazards", "serve"]

#: How a served app's kernels start: forked from the zygote, or each a fresh Python.
KERNEL_MODES = ("fork", "spawn")
#: What the dashboard's zygote imports: what a dashboard kernel imports until its page is built (the kernel
#: application, the scientific stack, the widgets, srdash's dashboard and the modules it imports when it
#: reads a prepared competition), and nothing a prepared dashboard does not need. ``module:function`` also
#: calls ``function()`` once imported (:func:`warm_plotly`). tests/test_forkserver.py checks that a forked
#: kernel builds the page with few imports of its own.
PRELOAD = (
    # the kernel application, and what it imports when it starts (its debugger, IPython's magics)
    "ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "ipykernel.debugger", "debugpy",
    "IPython.core.completerlib", "IPython.core.debugger", "IPython.core.oinspect", "IPython.core.logger",
    "IPython.extensions.storemagic", "tornado.platform.asyncio", "psutil",
    # the scientific stack and the widgets
    "numpy", "pandas", "pyarrow.parquet", "pyarrow.dataset", "scipy.special", "plotly.graph_objects", "plotly.io",
    "plotly.offline", "plotly.colors", "ipywidgets",
    # srdash's dashboard, and what it imports to read a prepared competition
    "srdash.apps.dashboard", "srdash.cache", "srdash.judging.snapshot", "srdash.judging.evaluation",
    "srdash.judging.properties", "srdash.judging.qualification", "srdash.judging.representative",
    "srdash.judging.trust", "srdash.analysis.significance", "srdash.demo.competition", "srdash.io.datasets",
    "srdash.apps.forkserver:warm_plotly")
#: What the review's zygote imports: the dashboard's, the review app, and sympy, which a review kernel imports
#: (formulas typeset in LaTeX), with what sympy imports the first time it builds a sum or a product
#: (sympy.tensor.tensor: 0.1 s in each kernel otherwise, when the datasets' ground truths are parsed).
REVIEW_PRELOAD = (*PRELOAD, "srdash.apps.review", "srdash.judging.jury", "srdash.expressions", "sympy",
                  "sympy.tensor.tensor", "sympy.sets.setexpr")
#: The zygote's environment on top of the app's: native libraries start no thread in it.
SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                   "JE_ARROW_MALLOC_CONF": "background_thread:false"}
#: The kernel name srdash's notebooks use (their metadata), which the kernelspec replaces.
KERNEL_NAME = "python3"
#: Start of the name of the private folder of a zygote's socket and kernelspec.
FOLDER_PREFIX = "srdash-kernels-"
#: Seconds the zygote waits for a launcher's request once connected (others are served meanwhile).
REQUEST_TIMEOUT = 10.0
#: Connections whose request is still arriving, at most; one more drops the one connected longest ago.
MAX_PENDING = 32
#: The file the zygote writes beside its socket once it has imported what it preloads and serves.
READY_FILE = "ready"
#: Seconds the zygote gives its kernels to end after SIGTERM when it stops.
STOP_GRACE = 3.0
_PR_SET_PDEATHSIG = 1


def default_kernels() -> str:
    """``"fork"`` where the system can fork and pass file descriptors over Unix sockets (Linux, macOS), else
    ``"spawn"``."""
    able = hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")
    return "fork" if able else "spawn"


def warm_plotly() -> None:
    """Build and serialise a small figure of each kind srdash draws, so that plotly's lazily imported figure
    classes, validators and default template are loaded once, in the zygote, for every kernel."""
    import plotly.graph_objects as go

    figure = go.Figure(
        [go.Scatter(x=[0, 1], y=[1, 0], mode="lines+markers", marker={"line": {"width": 1}}, line={"dash": "dot"}),
         go.Heatmap(z=[[0, 1]], colorbar={"title": {"text": "t"}}, textfont={"size": 9}),
         go.Bar(x=[0], y=[1], error_y={"array": [0.1]}), go.Box(y=[0, 1])],
        layout={"title": {"text": "t", "subtitle": {"text": "s"}}, "legend": {"title": {"text": "l"}},
                "xaxis": {"title": {"text": "x"}}, "yaxis": {"title": {"text": "y"}}, "margin": {"l": 0}})
    figure.add_annotation(text="a", showarrow=False)
    figure.add_shape(type="line", x0=0, x1=1, y0=0, y1=1)
    figure.to_json()


def fork_hazards() -> list[str]:
    """Why this process must not fork now (empty: it may): threads, a zmq context, an asyncio loop.

    Examples
    --------
    >>> import threading
    >>> release = threading.Event()
    >>> waiting = threading.Thread(target=release.wait)
    >>> waiting.start()
    >>> any(hazard.endswith("Python threads") for hazard in fork_hazards())
    True
    >>> release.set(); waiting.join()
    """
    hazards = []
    if threading.active_count() != 1:
        hazards.append(f"{threading.active_count()} Python threads")
    try:
        tasks = len(os.listdir("/proc/self/task"))
    except OSError:  # not Linux: native threads are not counted
        tasks = 1
    if tasks > 1:
        hazards.append(f"{tasks} threads")
    zmq = sys.modules.get("zmq")
    if zmq is not None and getattr(getattr(zmq, "Context", None), "_instance", None) is not None:
        hazards.append("a zmq context")
    asyncio = sys.modules.get("asyncio")
    policy = getattr(getattr(asyncio, "events", None), "_event_loop_policy", None)
    if policy is not None and getattr(getattr(policy, "_local", None), "_loop", None) is not None:
        hazards.append("an asyncio event loop")
    return hazards


def _die_with_parent(signum: int, parent: int) -> None:
    """On Linux, get ``signum`` when the parent dies (``prctl(PR_SET_PDEATHSIG)``); exit if it already has."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the parent pipe / parent poller do it
        return
    if os.getppid() != parent:
        os._exit(1)


class KernelZygote:
    """The zygote of one served app, and the kernelspec that sends its Voilà's kernels to it.

    Parameters
    ----------
    env : mapping
        The app's environment: the zygote's is :meth:`environment` of it plus :data:`SINGLE_THREADED`, as
        close as can be to what its kernels get from Voilà (what a module reads from the environment when it
        is imported, it reads in the zygote).
    preload : sequence of str
        Modules the zygote imports before it serves.
    python : str, optional
        Interpreter of the zygote and of the launcher (default: the running one).
    preexec_fn : callable, optional
        Run in the zygote before it starts (e.g. to die with this process).
    request_timeout : float, optional
        Seconds a connection may take to send its whole request (default :data:`REQUEST_TIMEOUT`).

    Use :meth:`environment` for Voilà's environment and :meth:`stop` (or
    ``with``) when Voilà has stopped.
    """

    def __init__(self, env: Mapping[str, str], *, preload: Sequence[str] = PRELOAD, python: str | None = None,
                 preexec_fn: Callable[[], None] | None = None, request_timeout: float = REQUEST_TIMEOUT):
        python = python or sys.executable
        self.folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))  # mode 0700: only this user
        if len(str(self.folder)) > 80:  # a Unix socket's path holds about 100 bytes (macOS's temp folders are long)
            shutil.rmtree(self.folder)
            self.folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX, dir="/tmp"))
        self.socket_path = self.folder / "zygote.sock"
        self.kernel_dir = self.folder / "kernels" / KERNEL_NAME
        self.process: subprocess.Popen | None = None
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(self.socket_path))
            listener.listen(64)
            self.kernel_dir.mkdir(parents=True)
            spec = {**_replaced_kernelspec(),
                    "argv": [python, "-I", "-S", str(Path(forkkernel.__file__).resolve()), "--zygote",
                             str(self.socket_path), "-f", "{connection_file}"],
                    "interrupt_mode": "signal"}  # the launcher relays SIGINT
            (self.kernel_dir / "kernel.json").write_text(json.dumps(spec, indent=1))
            self.process = subprocess.Popen(
                [python, "-m", "srdash.apps.forkserver", "--listen-fd", str(listener.fileno()),
                 "--preload", ",".join(preload), "--request-timeout", repr(float(request_timeout))],
                # debugpy (imported for ipykernel's debugger) warns on import about Python's frozen modules; a
                # spawned kernel's warning goes to its frontend, the zygote's would reach the terminal
                env={**self.environment(env), **SINGLE_THREADED, "PYDEVD_DISABLE_FILE_VALIDATION": "1"},
                stdin=subprocess.PIPE, pass_fds=(listener.fileno(),),
                start_new_session=True, preexec_fn=preexec_fn)
        except BaseException:
            self.stop()
            raise
        finally:
            listener.close()  # the zygote holds it now

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` with the zygote's kernelspec first on ``JUPYTER_PATH`` (for the Voilà process only)."""
        paths = [str(self.folder)] + [p for p in env.get("JUPYTER_PATH", "").split(os.pathsep) if p]
        return {**env, "JUPYTER_PATH": os.pathsep.join(paths)}

    def stop(self, *, timeout: float = 10.0) -> None:
        """Stop the zygote (it terminates its remaining kernels) and remove its folder."""
        process = self.process
        if process is not None and process.poll() is None:
            if not (self.folder / READY_FILE).exists():
                # Still importing (a server stopped at its start, e.g. by a bad input file): no kernel can
                # exist yet, and it would read its stdin only once its imports are done.
                process.terminate()
            try:
                process.stdin.close()  # end of file: the zygote stops
            except OSError:
                pass
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "KernelZygote":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _replaced_kernelspec() -> dict:
    """The ``python3`` kernelspec Voilà would use without srdash's (its display name, metadata, environment);
    ipykernel's defaults when it cannot be read."""
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME).to_dict()
    except Exception:  # noqa: BLE001 - no installed kernelspec: what ipykernel would write
        spec = {"display_name": "Python 3 (ipykernel)", "language": "python", "metadata": {"debugger": True}}
    return {key: value for key, value in spec.items() if key not in ("argv", "interrupt_mode")}


class _Kernel:
    """A forked kernel and the connection of its launcher (None once the launcher has gone)."""

    def __init__(self, pid: int, conn: socket.socket):
        self.pid, self.conn, self.buffer = pid, conn, bytearray()

    def send(self, line: str) -> bool:
        if self.conn is None:
            return False
        try:
            self.conn.sendall(line.encode() + b"\n")
            return True
        except OSError:
            return False

    def signal(self, signum: int) -> None:
        try:
            os.killpg(self.pid, signum)  # the kernel leads its own session: its subprocesses get it too
        except ProcessLookupError:
            pass
        except PermissionError:
            try:
                os.kill(self.pid, signum)
            except OSError:
                pass


class _Zygote:
    """The serving loop: accept requests, fork kernels, reap them, relay signals."""

    def __init__(self, listener: socket.socket, *, request_timeout: float = REQUEST_TIMEOUT):
        self.listener = listener
        self.listener.setblocking(False)
        self.request_timeout = float(request_timeout)
        self.parent = os.getppid()
        self.pid = os.getpid()
        self.kernels: dict[int, _Kernel] = {}       # by pid, until reaped
        self.connections: dict[int, _Kernel] = {}   # by the launcher connection's fd, until it closes
        self.pending: dict[int, _Pending] = {}      # by fd: requests still arriving (oldest first)
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(self.wake_write, False)
        self.poller = select.poll()  # no file descriptor of its own, unlike epoll: nothing shared with the kernels
        self.poller.register(self.listener.fileno(), select.POLLIN)
        self.poller.register(0, select.POLLIN)  # srdash serve's pipe: end of file when it stops or dies
        self.poller.register(self.wake_read, select.POLLIN)

    def run(self) -> None:
        signal.set_wakeup_fd(self.wake_write)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # wakes the poll (set_wakeup_fd)
        try:
            while True:
                self._reap()
                if os.getppid() != self.parent:
                    return
                self._expire()
                for fd, _events in self.poller.poll(self._poll_timeout()):
                    if fd == self.listener.fileno():
                        self._accept()
                    elif fd == 0:
                        if not os.read(0, 4096):
                            return
                    elif fd == self.wake_read:
                        try:
                            while os.read(self.wake_read, 4096):
                                pass
                        except BlockingIOError:
                            pass
                    elif fd in self.pending:
                        self._read_pending(self.pending[fd])
                    elif fd in self.connections:
                        self._receive(fd)
        finally:
            if os.getpid() == self.pid:
                self._stop()

    def _poll_timeout(self) -> int:
        """Milliseconds until the next pending request's deadline (at most a second: the parent is checked)."""
        if not self.pending:
            return 1000
        soonest = min(pending.deadline for pending in self.pending.values())
        return max(0, min(1000, int((soonest - time.monotonic()) * 1000) + 1))

    def _accept(self) -> None:
        """Take every waiting connection; its request is read as it arrives (:meth:`_read_pending`)."""
        while True:
            try:
                conn, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # e.g. out of descriptors: the connection waits in the queue
                print(f"srdash kernel zygote: cannot accept a connection: {error}", file=sys.stderr, flush=True)
                return
            conn.setblocking(False)
            if len(self.pending) >= MAX_PENDING:
                oldest = next(iter(self.pending.values()))
                self._refuse(oldest, f"more than {MAX_PENDING} connections waited to send their request; "
                                     "the one connected longest ago was dropped")
            pending = _Pending(conn, time.monotonic() + self.request_timeout)
            self.pending[conn.fileno()] = pending
            self.poller.register(conn.fileno(), select.POLLIN)

    def _expire(self) -> None:
        now = time.monotonic()
        for pending in [p for p in self.pending.values() if p.deadline <= now]:
            self._refuse(pending, f"a connection sent no whole request within {self.request_timeout:g} s")

    def _refuse(self, pending: "_Pending", why: str) -> None:
        print(f"srdash kernel zygote: {why}", file=sys.stderr, flush=True)
        try:
            pending.conn.send(f"error {' '.join(why.split())}\n".encode())
        except OSError:
            pass
        self._forget(pending)
        pending.close()

    def _forget(self, pending: "_Pending") -> None:
        fd = pending.conn.fileno()
        if self.pending.pop(fd, None) is not None:
            self.poller.unregister(fd)

    def _read_pending(self, pending: "_Pending") -> None:
        """Read what has arrived of a request (never waiting); fork its kernel once it is whole."""
        try:
            request = pending.read()
        except (BlockingIOError, InterruptedError):
            return
        except (_Refused, OSError, ValueError, TypeError) as error:
            self._refuse(pending, str(error))
            return
        if request is None:
            return
        self._forget(pending)
        conn, fds = pending.conn, pending.fds
        try:
            hazards = fork_hazards()
            if hazards:
                raise _Refused(f"the zygote holds {', '.join(hazards)}; it cannot fork safely")
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                self._become_kernel(conn, request, fds)  # never returns
        except (_Refused, OSError, ValueError, KeyError, TypeError) as error:
            self._refuse(pending, str(error))
            return
        finally:
            for fd in fds:
                os.close(fd)
            fds.clear()
        kernel = _Kernel(pid, conn)
        kernel.buffer.extend(pending.rest)
        self.kernels[pid] = kernel
        self.connections[conn.fileno()] = kernel
        self.poller.register(conn.fileno(), select.POLLIN)
        if not kernel.send(f"pid {pid}"):
            self._launcher_gone(kernel)

    def _receive(self, fd: int) -> None:
        kernel = self.connections[fd]
        try:
            data = kernel.conn.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._launcher_gone(kernel)
            return
        kernel.buffer.extend(data)
        while b"\n" in kernel.buffer:
            line, _, rest = bytes(kernel.buffer).partition(b"\n")
            kernel.buffer[:] = rest
            words = line.split()
            if len(words) == 2 and words[0] == b"signal" and words[1].isdigit():
                signum = int(words[1])
                if signum in forkkernel.RELAYED and kernel.pid in self.kernels:
                    kernel.signal(signum)

    def _launcher_gone(self, kernel: _Kernel) -> None:
        """The launcher's connection closed: its kernel goes too."""
        if kernel.pid in self.kernels:
            kernel.signal(signal.SIGKILL)
        self._close(kernel)

    def _close(self, kernel: _Kernel) -> None:
        if kernel.conn is not None:
            fd = kernel.conn.fileno()
            self.connections.pop(fd, None)
            self.poller.unregister(fd)
            kernel.conn.close()
            kernel.conn = None

    def _reap(self) -> None:
        while self.kernels:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            kernel = self.kernels.pop(pid, None)
            if kernel is not None:
                kernel.send(f"exit {os.waitstatus_to_exitcode(status)}")
                self._close(kernel)

    def _stop(self) -> None:
        """Terminate the remaining kernels (SIGKILL after :data:`STOP_GRACE` seconds) and close every connection."""
        for kernel in self.kernels.values():
            kernel.signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        while self.kernels and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.05)
        for kernel in list(self.kernels.values()):
            kernel.signal(signal.SIGKILL)
        while self.kernels:
            self._reap()
            time.sleep(0.01)
        for kernel in list(self.connections.values()):
            self._close(kernel)
        for pending in list(self.pending.values()):
            self._forget(pending)
            pending.close()
        self.listener.close()

    def _become_kernel(self, conn: socket.socket, request: dict, fds: list[int]) -> None:
        """In the forked child: become the kernel the request asks for; never returns."""
        code = 1
        try:
            os.setsid()
            signal.set_wakeup_fd(-1)
            for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
                signal.signal(signum, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            _die_with_parent(signal.SIGKILL, self.pid)
            for kernel in self.connections.values():
                kernel.conn.close()
            for pending in self.pending.values():
                pending.close()
            conn.close()
            self.listener.close()
            os.close(self.wake_read)
            os.close(self.wake_write)
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            for fd in fds:
                os.close(fd)
            fds.clear()
            os.chdir(request["cwd"])
            os.umask(int(request["umask"]))
            os.environ.clear()
            os.environ.update({str(k): str(v) for k, v in request["env"].items()})
            os.environ["JPY_PARENT_PID"] = str(self.pid)
            argv = [str(a) for a in request["argv"]]
            sys.argv = [forkkernel.__file__, *argv]
            from ipykernel.kernelapp import IPKernelApp

            # ipykernel's parent poller watches the zygote (the trait's default was read from the zygote's
            # environment when it imported ipykernel); the launcher's arguments come after and win
            app = IPKernelApp.instance()
            app.initialize([f"--IPKernelApp.parent_handle={self.pid}", *argv])
            _as_in_a_fresh_kernel()
            app.start()  # what IPKernelApp.launch_instance (ipykernel_launcher) does
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        except BaseException:  # noqa: BLE001 - shown on the kernel's stderr (Voilà's terminal), then exit 1
            traceback.print_exc()
            code = 1
        finally:
            try:
                import atexit

                atexit._run_exitfuncs()  # what an interpreter's exit would run (IPython's history, logging)
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)


class _Refused(Exception):
    pass


def _as_in_a_fresh_kernel() -> None:
    """In a forked kernel, once its shell exists: set what the zygote's imports decided without a kernel.

    - numpy's global random state is seeded afresh (every kernel had the zygote's; Python's ``random``
      reseeds itself after a fork).
    - plotly chose its default renderer when it was imported, from the IPython shell it found: none in the
      zygote. A kernel that imports plotly itself finds ipykernel's shell and chooses ``plotly_mimetype``
      (unless ``PLOTLY_RENDERER`` says otherwise).
    - ipywidgets registers its comm targets when it is imported in a shell: none in the zygote. Without
      ``jupyter.widget.control`` a page cannot fetch its widgets in one message: its widget manager
      falls back to one request per widget (the dashboard's first page load: 144 requests, and a reply
      to each, instead of one and one).
    """
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()
    plotly_io = sys.modules.get("plotly.io")
    if plotly_io is not None and not os.environ.get("PLOTLY_RENDERER"):
        plotly_io.renderers.default = "plotly_mimetype"  # public: plotly.io.renderers
    if "ipywidgets" in sys.modules:
        sys.modules["ipywidgets"].register_comm_target()


class _Pending:
    """A connection whose launcher's request (:mod:`srdash.apps.forkkernel`) is still arriving: the bytes and
    descriptors received so far, and the time by which the whole request must be in."""

    def __init__(self, conn: socket.socket, deadline: float):
        self.conn, self.deadline = conn, deadline
        self.data = bytearray()
        self.fds: list[int] = []
        self.rest = b""  # what came after the request (a signal line sent early)

    def read(self) -> dict | None:
        """Read what is there without waiting: the request once it is whole, else None.

        Raises ``BlockingIOError`` when nothing was there, :class:`_Refused` for what is no launcher's request.
        """
        header_size = forkkernel.HEADER.size
        wanted = header_size if len(self.data) < header_size else header_size + self._size() - len(self.data)
        data, fds, flags, _address = socket.recv_fds(self.conn, max(1, min(1 << 20, wanted)), 3)
        self.fds.extend(fds)
        if flags & getattr(socket, "MSG_CTRUNC", 0) or len(self.fds) > 3:
            raise _Refused("a request that is not a kernel launcher's")
        if not data:
            raise _Refused("a launcher closed its connection before its whole request")
        self.data.extend(data)
        if len(self.data) < header_size or len(self.data) < header_size + self._size():
            return None
        if len(self.fds) != 3:
            raise _Refused("a request that is not a kernel launcher's")
        size = self._size()
        payload, self.rest = bytes(self.data[header_size:header_size + size]), bytes(self.data[header_size + size:])
        request = json.loads(payload)
        if not (isinstance(request, dict) and isinstance(request.get("argv"), list)
                and isinstance(request.get("env"), dict) and isinstance(request.get("cwd"), str)
                and isinstance(request.get("umask"), int)):
            raise _Refused("a request without argv, env, cwd and umask")
        return request

    def _size(self) -> int:
        """The payload's size, from the header (which must be a launcher's)."""
        magic, size = forkkernel.HEADER.unpack(bytes(self.data[:forkkernel.HEADER.size]))
        if magic != forkkernel.MAGIC or size > forkkernel.MAX_REQUEST:
            raise _Refused("a request that is not a kernel launcher's")
        return size

    def close(self) -> None:
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds.clear()
        self.conn.close()


def serve(listener: socket.socket, *, preload: Sequence[str] = PRELOAD,
          request_timeout: float = REQUEST_TIMEOUT) -> None:
    """Be the zygote: import ``preload``, then fork a kernel for each launcher that connects to ``listener``.

    Returns when stdin reaches its end (``srdash serve`` stopped), the parent
    process is gone or SIGTERM arrives, after terminating the kernels still running.
    """
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # its own session; srdash serve stops it
    try:  # the folder KernelZygote made: removed also when srdash serve was killed and could not remove it
        folder = Path(listener.getsockname()).parent
    except (OSError, TypeError):
        folder = None
    pid = os.getpid()
    try:
        _preload_and_serve(listener, preload, request_timeout)
    finally:
        if os.getpid() == pid and folder is not None and folder.name.startswith(FOLDER_PREFIX):
            shutil.rmtree(folder, ignore_errors=True)


def _preload_and_serve(listener: socket.socket, preload: Sequence[str], request_timeout: float) -> None:
    for name in preload:
        module, _, function = name.partition(":")
        try:
            loaded = importlib.import_module(module)
            if function:
                getattr(loaded, function)()
        except Exception as error:  # noqa: BLE001 - a kernel then imports it itself (and reports the error)
            print(f"srdash kernel zygote: could not preload {name}: {error}", file=sys.stderr, flush=True)
    gc.collect()
    gc.freeze()
    try:  # from now on it may fork kernels, and it stops when its stdin closes (see KernelZygote.stop)
        Path(listener.getsockname()).with_name(READY_FILE).touch()
    except (OSError, TypeError, ValueError):
        pass
    hazards = fork_hazards()
    if hazards:  # every request is refused, and its launcher starts a kernel alone
        print(f"srdash kernel zygote: holds {', '.join(hazards)} after its imports: kernels will not be forked.",
              file=sys.stderr, flush=True)
    _Zygote(listener, request_timeout=request_timeout).run()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m srdash.apps.forkserver",
                                     description="The kernel zygote of a served srdash app (started by srdash serve).")
    parser.add_argument("--listen-fd", type=int, required=True, help="A listening Unix socket (inherited).")
    parser.add_argument("--preload", default=",".join(PRELOAD), help="Modules to import first, comma-separated.")
    parser.add_argument("--request-timeout", type=float, default=REQUEST_TIMEOUT,
                        help="Seconds a connection may take to send its whole request.")
    args = parser.parse_args(argv)
    if sys.path and sys.path[0] in ("", os.getcwd()):  # `-m` put the current folder first: no module of it shadows
        del sys.path[0]
    listener = socket.socket(fileno=args.listen_fd)
    serve(listener, preload=[name for name in args.preload.split(",") if name], request_timeout=args.request_timeout)


if __name__ == "__main__":
    main()
