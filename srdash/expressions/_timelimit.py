"""Worker processes that run a function under a hard per-task time limit.

Nothing here knows about sympy: :class:`WorkerPool` runs any importable
function in reusable worker processes and kills (SIGKILL) a worker whose task
overruns its limit, then replaces it. :func:`soft_time_limit` is the polite
limit a task can set on itself *inside* a worker (where it is always the main
thread, so ``SIGALRM`` works).

Why processes and not threads or ``concurrent.futures``: ``signal.alarm`` only
works in a process's main thread, and ``Future.result(timeout=...)`` returns
without stopping the work. Killing a process is the only limit that holds from
any thread (a Jupyter widget callback, a web server worker) and against code
that never returns to the interpreter loop.

Workers are fresh interpreters started with ``subprocess`` and fed over a
pipe: safe from threads, from daemonic processes (a Dask worker cannot have
``multiprocessing`` children) and from scripts without an
``if __name__ == "__main__":`` guard (``spawn``/``forkserver`` re-run them).
"""

from __future__ import annotations

import atexit
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Pipe, wait
from typing import Any, Callable, Hashable, Iterator

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "SoftTimeLimitExceeded",
    "TaskResult",
    "WorkerPool",
    "soft_time_limit",
    "thread_cpu_limit",
]

#: Default cap on each worker's address space (``RLIMIT_AS``), in bytes.
DEFAULT_MEMORY_LIMIT = 4 * 2**30

# A worker that has not reported ready after this long is considered broken.
_STARTUP_LIMIT = 120.0
_MAX_FAILED_STARTS = 3
# How often the soft limit re-fires after it first expires, in case the running
# code swallowed the first exception with a bare ``except:``.
_REFIRE_INTERVAL = 0.1
#: Seconds an idle worker of a pool that keeps spares waits, once its pool has closed, for the next pool of
#: the same function to take it instead of starting an interpreter (and importing sympy: about 0.8 s of CPU).
SPARE_SECONDS = 30.0
#: At most this many spares per function and settings.
_MAX_SPARES = max(2, os.cpu_count() or 1)


class SoftTimeLimitExceeded(BaseException):
    """Raised inside the main thread when a :func:`soft_time_limit` expires.

    It derives from ``BaseException`` (like ``KeyboardInterrupt``) so that
    library code with ``except Exception:`` clauses does not swallow it.
    """


class soft_time_limit:  # noqa: N801 - used like a function: ``with soft_time_limit(5):``
    """Context manager raising :class:`SoftTimeLimitExceeded` after ``seconds``.

    Uses ``SIGALRM`` (``setitimer``), so it only works in the main thread of a
    process; elsewhere it raises ``RuntimeError``. It interrupts Python code
    only: work stuck in C code is stopped by :class:`WorkerPool`'s hard limit.

    Parameters
    ----------
    seconds : float or None
        Time allowed; None or ``inf`` means no limit. Values <= 0 expire at once.
    clock : {'wall', 'cpu'}
        ``wall`` counts elapsed time (``ITIMER_REAL``/``SIGALRM``); ``cpu`` counts
        the CPU time of this process (``ITIMER_PROF``/``SIGPROF``), so that a
        busy machine does not turn a model into a timeout: what is judged must
        not depend on what else the machine is doing.

    Examples
    --------
    >>> import time
    >>> try:
    ...     with soft_time_limit(0.05):
    ...         time.sleep(5)
    ... except SoftTimeLimitExceeded:
    ...     print("stopped")
    stopped
    """

    def __init__(self, seconds: float | None, *, clock: str = "wall"):
        if clock not in ("wall", "cpu"):
            raise ValueError(f"The 'clock' option must be one of 'wall', 'cpu'. Got {clock!r}.")
        self.seconds = seconds
        self._signal, self._timer = ((signal.SIGALRM, signal.ITIMER_REAL) if clock == "wall"
                                     else (signal.SIGPROF, signal.ITIMER_PROF))
        self._active = False
        self._previous = None

    def _on_alarm(self, signum, frame):
        if self._active:
            raise SoftTimeLimitExceeded(f"time limit of {self.seconds:g} s exceeded")

    def __enter__(self):
        if self.seconds is None or math.isinf(self.seconds):
            return self
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError(
                "soft_time_limit() uses SIGALRM and only works in the main thread; "
                "run the work in a WorkerPool to limit it from another thread."
            )
        self._previous = signal.signal(self._signal, self._on_alarm)
        self._active = True
        signal.setitimer(self._timer, max(self.seconds, 1e-4), _REFIRE_INTERVAL)
        return self

    def __exit__(self, *exc_info):
        if self._previous is None:
            return False
        try:
            self._active = False
        finally:
            # Disarm even if the alarm fired while leaving the block.
            signal.setitimer(self._timer, 0, 0)
            signal.signal(self._signal, self._previous)
            self._previous = None
        return False


class thread_cpu_limit:  # noqa: N801 - used like a function: ``with thread_cpu_limit(5):``
    """Context manager raising :class:`SoftTimeLimitExceeded` after ``seconds`` of this thread's CPU time.

    Works in any thread, where :func:`soft_time_limit` (a signal) cannot: a
    watchdog thread reads this thread's CPU clock (``pthread_getcpuclockid``;
    the wall clock where there is none) every few milliseconds and, past the
    deadline, raises the exception in this thread with
    ``PyThreadState_SetAsyncExc``, again every 0.1 s until the block is left
    (in case the code swallowed it). The limited code runs at full speed; like
    a signal, the exception only arrives between two bytecodes: one long C call
    (a big-integer conversion) is not stopped, which is why the callers also
    bound the size of what they hand to such calls.

    Examples
    --------
    >>> import threading
    >>> def spin():
    ...     try:
    ...         with thread_cpu_limit(0.05):
    ...             while True:
    ...                 pass
    ...     except SoftTimeLimitExceeded:
    ...         print("stopped")
    >>> worker = threading.Thread(target=spin); worker.start(); worker.join()
    stopped
    """

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._active = False
        self._watchdog: threading.Thread | None = None

    def __enter__(self):
        if self.seconds is None or math.isinf(self.seconds):
            return self
        ident = threading.get_ident()
        try:
            clock = time.pthread_getcpuclockid(ident)
            now = lambda: time.clock_gettime(clock)  # noqa: E731
        except (AttributeError, OSError):  # no per-thread CPU clock on this platform
            now = time.monotonic
        deadline = now() + max(self.seconds, 0.0)
        interval = min(0.02, max(self.seconds / 4, 0.001))
        self._active = True
        self._watchdog = threading.Thread(target=self._watch, args=(ident, now, deadline, interval),
                                          name="srdash-cpu-limit", daemon=True)
        self._watchdog.start()
        return self

    def _watch(self, ident: int, now: Callable[[], float], deadline: float, interval: float) -> None:
        import ctypes

        while not self._done.wait(interval):
            try:
                expired = now() > deadline
            except OSError:  # the thread is gone
                return
            if not expired:
                continue
            with self._lock:
                if not self._active:
                    return
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident),
                                                           ctypes.py_object(SoftTimeLimitExceeded))
            interval = _REFIRE_INTERVAL

    def __exit__(self, *exc_info):
        if self._watchdog is None:
            return False
        import ctypes

        with self._lock:
            self._active = False
            # Withdraw an exception fired but not yet delivered: it must not escape the block.
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.get_ident()), None)
        self._done.set()
        self._watchdog.join()
        self._watchdog = None
        return False


@dataclass(frozen=True)
class TaskResult:
    """What became of one task.

    Attributes
    ----------
    task_id : hashable
        The id given to :meth:`WorkerPool.submit`.
    outcome : {'returned', 'raised', 'killed', 'died'}
        ``returned``: ``value`` holds the return value. ``raised``: the function
        raised; ``error`` holds ``"ExceptionType: message"``. ``killed``: the task
        overran the hard limit and its worker was killed. ``died``: the worker
        exited during the task (crash, out of memory, killed from outside).
    value : object
        The return value (``returned`` only), else None.
    error : str
        Description of what went wrong, ``""`` when the task returned.
    seconds : float
        Time the task ran (measured in the worker when it returned or raised,
        by the parent otherwise).
    """

    task_id: Hashable
    outcome: str
    value: Any = None
    error: str = ""
    seconds: float = math.nan


def _address_space() -> int:
    """This process's current address-space size in bytes (0 if unknown)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _limit_memory(limit: int) -> None:
    import resource

    # On top of what the worker already maps after its imports (libraries reserve
    # address space they never use), so that the limit is what a task may add.
    limit = _address_space() + limit
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # not enforceable here (e.g. macOS): run without it
        pass


def _die_with_parent(parent: int | None) -> None:
    """Ask Linux to kill this worker (SIGKILL) when the thread that started it ends.

    A parent stopped by SIGTERM or SIGKILL runs no clean-up: without this, a
    worker busy with a long simplification would run on, orphaned, until its
    task ends. (The pipe closing only stops a worker waiting for a task.)
    Elsewhere (macOS, Windows) nothing is done.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _worker_main(conn, func: Callable, memory_limit: int | None, parent: int | None = None) -> None:
    """Loop of a worker process: receive ``(task_id, args)``, send the outcome."""
    _die_with_parent(parent)
    # Ctrl-C reaches the whole process group; the parent decides what to do.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if memory_limit:
        _limit_memory(memory_limit)
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent went away
            return
        if message is None:
            return
        task_id, args = message
        start = time.perf_counter()
        try:
            reply = (task_id, "returned", func(*args), "")
        except BaseException as exc:  # noqa: BLE001 - report everything to the parent
            reply = (task_id, "raised", None, f"{type(exc).__name__}: {exc}")
        elapsed = time.perf_counter() - start
        try:
            conn.send(reply + (elapsed,))
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable return value
            conn.send((task_id, "raised", None, f"could not send the result back: {exc}", elapsed))


# Run by a fresh interpreter: ``python -c _BOOT FD``. It adopts the parent's
# sys.path, so the task function imports the same modules the parent has.
_BOOT = (
    "import sys\n"
    "from multiprocessing.connection import Connection\n"
    "conn = Connection(int(sys.argv[1]))\n"
    "sys.path[:] = conn.recv()\n"
    "from srdash.expressions._timelimit import _worker_main\n"
    "_worker_main(conn, *conn.recv())\n"
)


class _Worker:
    __slots__ = ("process", "conn", "stderr", "ready", "started", "task", "task_started", "key")

    def __init__(self, process, conn, stderr, key=None):
        self.process = process
        self.conn = conn
        self.stderr = stderr
        self.ready = False
        self.started = time.monotonic()
        self.task = None  # (task_id, args) while busy
        self.task_started = math.nan
        self.key = key  # what its start fixed (_spare_key), for a pool that keeps spares; else None

    def stop(self) -> None:
        """Ask it to exit (kill it after a second), and close its pipe and error file."""
        if self.process.poll() is None:
            try:
                self.conn.send(None)
                self.process.wait(1.0)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.end(kill=True)

    def end(self, *, kill: bool) -> None:
        """Kill it if it still runs (``kill``), reap it, and close its pipe and error file."""
        if kill and self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(5.0)
        except subprocess.TimeoutExpired:  # unkillable (D state): leave it to the OS
            pass
        self.conn.close()
        self.stderr.close()

    def stderr_tail(self, limit: int = 2000) -> str:
        try:
            self.stderr.seek(0)
            return self.stderr.read().decode(errors="replace")[-limit:].strip()
        except (OSError, ValueError):
            return ""


#: Environment variables that can change what a worker computes, read when it starts: sympy's and mpmath's
#: (cache, ground types), Python's own and the locale. A spare is only taken by a pool under the same values.
_WORKER_ENVIRONMENT_PREFIXES = ("SYMPY", "MPMATH", "PYTHON", "LC_", "LANG")


def _spare_key(func: Callable, memory_limit: int | None) -> tuple:
    """What a worker's start fixed: this process and the thread that started it (``PR_SET_PDEATHSIG`` kills
    the worker when that thread ends), the function it imported, its memory cap, the import path and the
    environment variables that can change its work (:data:`_WORKER_ENVIRONMENT_PREFIXES`). A spare is only
    taken under the same key."""
    environment = frozenset((name, value) for name, value in os.environ.items()
                            if name.startswith(_WORKER_ENVIRONMENT_PREFIXES))
    return (os.getpid(), threading.current_thread(), func, memory_limit, tuple(sys.path), environment)


class _Spares:
    """Idle workers of closed pools (``keep_spares``), each kept :data:`SPARE_SECONDS` for the next pool."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by_key: dict[tuple, list[tuple[float, _Worker]]] = {}
        self.timer: threading.Timer | None = None

    def take(self, key: tuple) -> _Worker | None:
        """A live spare started under ``key``, or None."""
        with self.lock:
            kept = self.by_key.get(key, [])
            while kept:
                _expires, worker = kept.pop()
                if worker.process.poll() is None:
                    return worker
                worker.stop()
        return None

    def park(self, worker: _Worker) -> bool:
        """Keep ``worker`` (idle, ready, alive, started in this process) for the next pool; False: not kept."""
        if worker.key is None or worker.key[0] != os.getpid():
            return False
        with self.lock:
            kept = self.by_key.setdefault(worker.key, [])
            if len(kept) >= _MAX_SPARES:
                return False
            kept.append((time.monotonic() + SPARE_SECONDS, worker))
            if self.timer is None:
                self.timer = threading.Timer(SPARE_SECONDS + 0.5, self.expire)
                self.timer.daemon = True
                self.timer.start()
        return True

    def expire(self, *, everything: bool = False) -> None:
        """Stop the spares kept past their time (``everything``: all of this process's)."""
        now = time.monotonic()
        with self.lock:
            self.timer = None
            ending = []
            for key, kept in list(self.by_key.items()):
                if key[0] != os.getpid():  # a fork's copy: its parent's workers, not to be touched
                    continue
                ending += [worker for expires, worker in kept if everything or expires <= now]
                kept[:] = [] if everything else [(e, w) for e, w in kept if e > now]
                if not kept:
                    del self.by_key[key]
            if self.by_key and not everything:
                self.timer = threading.Timer(SPARE_SECONDS / 2, self.expire)
                self.timer.daemon = True
                self.timer.start()
        for worker in ending:
            worker.stop()

    def forget(self) -> None:
        """In a forked child: the parent's spares are not this process's."""
        self.lock = threading.Lock()
        self.by_key = {}
        self.timer = None


_SPARES = _Spares()
atexit.register(lambda: _SPARES.expire(everything=True))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_SPARES.forget)


class WorkerPool:
    """Reusable worker processes running ``func(*args)`` under a hard time limit.

    Submit tasks with :meth:`submit`, then iterate :meth:`results`; tasks may be
    submitted while iterating (e.g. to retry one). A task that runs longer than
    ``time_limit`` seconds has its worker killed with SIGKILL; a fresh worker
    takes its place for the next task. Use the pool as a context manager so
    the workers are always stopped.

    Each worker is a new interpreter (``subprocess``, not ``multiprocessing``):
    starting one is safe from any thread and from daemonic processes (a Dask
    worker), and does not re-run the caller's ``__main__`` script. It costs one
    interpreter start plus the import of ``func``'s module (about 0.5 s with
    sympy), paid once per worker since workers are reused. Workers run with
    ``PYTHONHASHSEED=0`` so that results cannot depend on which worker ran a
    task, and with one thread for numerical libraries. Their standard output is
    discarded. On Linux a worker is killed with its parent (``PR_SET_PDEATHSIG``:
    when the thread that started it ends, e.g. the parent stopped by SIGTERM),
    so no simplification outlives the command that asked for it.

    Parameters
    ----------
    func : callable
        Module-level (importable) function; its arguments and return value must
        be picklable.
    processes : int, keyword-only
        Maximum number of worker processes (started lazily, never more than
        there are tasks).
    time_limit : float or None, keyword-only
        Hard limit per task in seconds, counted from the moment the task is sent
        to a ready worker. None: no limit.
    memory_limit : int or None, keyword-only
        Bytes of address space each worker may add to what it maps after
        start-up (default 4 GiB; enforced with ``RLIMIT_AS``): an allocation
        beyond it raises ``MemoryError`` in the worker instead of exhausting the
        machine. None: no limit.
    keep_spares : bool, keyword-only
        When the pool closes, keep its idle workers :data:`SPARE_SECONDS` for
        the next pool of the same function, started in the same thread with
        the same memory limit, import path and sympy, Python and locale
        environment variables (what a worker's start fixed), instead of
        stopping them: that pool starts no interpreter. A worker runs every
        task alike whichever pool sends it (tasks carry everything else), as
        the tasks of one pool already share their workers. Spares stop when
        their time is up, and at exit.

    Examples
    --------
    >>> import math
    >>> with WorkerPool(math.sqrt, processes=1, time_limit=30) as pool:
    ...     for i in (4, 9):
    ...         pool.submit(i, i)
    ...     sorted(r.value for r in pool.results())
    [2.0, 3.0]
    """

    def __init__(
        self,
        func: Callable,
        *,
        processes: int = 1,
        time_limit: float | None = None,
        memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
        keep_spares: bool = False,
    ):
        if processes < 1:
            raise ValueError(f"The 'processes' option must be at least 1. Got {processes}.")
        self.func = func
        self.processes = int(processes)
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self._workers: list[_Worker] = []
        self._queue: deque = deque()
        self._ready_results: deque = deque()
        #: Number of worker processes started so far (replacements included).
        self.started_processes = 0
        #: Number of spares of earlier pools taken instead (``keep_spares``).
        self.reused_processes = 0
        self.keep_spares = bool(keep_spares)
        self._failed_starts = 0
        self._closed = False

    # -- public API -----------------------------------------------------------
    def submit(self, task_id: Hashable, *args) -> None:
        """Queue ``func(*args)``; its :class:`TaskResult` carries ``task_id``."""
        if self._closed:
            raise RuntimeError("This WorkerPool is closed.")
        self._queue.append((task_id, args))

    def results(self) -> Iterator[TaskResult]:
        """Yield a :class:`TaskResult` per task as tasks finish, until none is left."""
        while self._queue or self._busy() or self._ready_results:
            if self._ready_results:
                yield self._ready_results.popleft()
                continue
            self._dispatch()
            self._collect()

    def close(self) -> None:
        """Stop every worker (idle ones politely, busy ones with SIGKILL); with ``keep_spares``, idle ones are
        kept for the next pool instead (:data:`SPARE_SECONDS`)."""
        self._closed = True
        if self.keep_spares:
            self._workers = [worker for worker in self._workers
                             if not (worker.task is None and worker.ready and worker.process.poll() is None
                                     and _SPARES.park(worker))]
        for worker in self._workers:
            if worker.task is None and worker.process.poll() is None:
                try:
                    worker.conn.send(None)
                except (OSError, ValueError):
                    pass
        deadline = time.monotonic() + 1.0
        for worker in list(self._workers):
            if worker.task is None:
                try:
                    worker.process.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
            self._discard(worker, kill=True)
        self._workers = []
        self._queue.clear()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- internals ------------------------------------------------------------
    def _busy(self) -> list[_Worker]:
        return [w for w in self._workers if w.task is not None]

    def _start_worker(self) -> _Worker:
        key = _spare_key(self.func, self.memory_limit) if self.keep_spares else None
        spare = _SPARES.take(key) if key is not None else None
        if spare is not None:
            self.reused_processes += 1
            self._workers.append(spare)
            return spare
        parent_conn, child_conn = Pipe(duplex=True)
        stderr = tempfile.TemporaryFile()
        # One thread per worker for numerical libraries: the pool is the parallelism.
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   MKL_NUM_THREADS="1")
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(child_conn.fileno())],
                pass_fds=(child_conn.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=stderr, env=env, close_fds=True,
            )
        finally:
            child_conn.close()
        self.started_processes += 1
        worker = _Worker(process, parent_conn, stderr, key)
        self._workers.append(worker)
        try:
            parent_conn.send(list(sys.path))
            parent_conn.send((self.func, self.memory_limit, os.getpid()))
        except (OSError, ValueError):
            pass  # it died at once; _collect() notices
        return worker

    def _discard(self, worker: _Worker, *, kill: bool) -> None:
        worker.end(kill=kill)
        if worker in self._workers:
            self._workers.remove(worker)

    def _dispatch(self) -> None:
        # Replace workers that died while idle.
        for worker in [w for w in self._workers if w.task is None and w.process.poll() is not None]:
            self._discard(worker, kill=False)
        waiting = len(self._queue)
        idle = [w for w in self._workers if w.task is None and w.ready]
        starting = sum(1 for w in self._workers if w.task is None and not w.ready)
        # Start workers for queued tasks no ready or starting worker will take.
        while len(self._workers) < self.processes and waiting > len(idle) + starting:
            self._start_worker()
            starting += 1
        for worker in idle:
            if not self._queue:
                break
            task = self._queue.popleft()
            try:
                worker.conn.send(task)
            except (OSError, ValueError):  # died just now: retry on another worker
                self._queue.appendleft(task)
                self._discard(worker, kill=True)
                continue
            worker.task = task
            worker.task_started = time.monotonic()

    def _deadline(self, worker: _Worker) -> float:
        if not worker.ready:
            return worker.started + _STARTUP_LIMIT
        if worker.task is None or self.time_limit is None:
            return math.inf
        return worker.task_started + self.time_limit

    def _collect(self) -> None:
        """Wait for one event (a message, a death or a deadline) and handle it."""
        watched = [w for w in self._workers if w.task is not None or not w.ready]
        if not watched:
            return
        next_deadline = min(self._deadline(w) for w in watched)
        timeout = None if math.isinf(next_deadline) else max(0.0, next_deadline - time.monotonic())
        # A worker's death closes its end of the pipe, which makes it readable.
        ready = set(wait([w.conn for w in watched], timeout))
        for worker in watched:
            if worker.conn in ready:
                self._receive(worker)
        now = time.monotonic()
        for worker in [w for w in self._workers if self._deadline(w) <= now]:
            if worker.task is None:  # never became ready
                self._failed_starts += 1
                self._discard(worker, kill=True)
                if self._failed_starts >= _MAX_FAILED_STARTS:
                    raise RuntimeError(
                        f"{self._failed_starts} worker processes in a row did not start within "
                        f"{_STARTUP_LIMIT:g} s; cannot run tasks.")
                continue
            task_id = worker.task[0]
            self._discard(worker, kill=True)
            self._ready_results.append(TaskResult(
                task_id, "killed", error=f"killed after the hard limit of {self.time_limit:g} s",
                seconds=now - worker.task_started))

    def _receive(self, worker: _Worker) -> None:
        try:
            if not worker.conn.poll():
                raise EOFError
            message = worker.conn.recv()
        except (EOFError, OSError):
            try:
                code = worker.process.wait(1.0)
            except subprocess.TimeoutExpired:
                code = None
            task = worker.task
            details = ""
            if not worker.ready:
                self._failed_starts += 1
                details = worker.stderr_tail()
            self._discard(worker, kill=True)
            if self._failed_starts >= _MAX_FAILED_STARTS:
                raise RuntimeError(
                    f"{self._failed_starts} worker processes in a row exited during start-up "
                    f"(last exit code {code}); cannot run tasks. Last error output:\n{details}")
            if task is not None:
                how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                self._ready_results.append(TaskResult(
                    task[0], "died", error=f"the worker process died ({how})",
                    seconds=time.monotonic() - worker.task_started))
            return
        if len(message) == 2:  # ("ready", pid), sent once at start-up
            worker.ready = True
            self._failed_starts = 0
            return
        task_id, outcome, value, error, seconds = message
        worker.task = None
        self._ready_results.append(TaskResult(task_id, outcome, value, error, seconds))
