"""Worker processes that run a function under a hard per-task time limit.

Nothing here knows about sympy: :class:`WorkerPool` runs any importable
function in reusable worker processes and kills (SIGKILL) a worker whose task
overruns its limit, then replaces it. The limit counts the task's own CPU time
(read by the parent from the worker's clock), never the wall clock: a busy
machine slows a task down but does not change its outcome. Only a task that
uses no CPU at all for a long time (blocked for good) is stopped by the wall
clock. :func:`soft_time_limit` (from :mod:`srdash.expressions._cpuclock`) is the
polite limit a task can set on itself *inside* a worker (where it is always the
main thread, so ``SIGALRM`` works).

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

from srdash.expressions._cpuclock import SoftTimeLimitExceeded, process_cpu_seconds, soft_time_limit, thread_cpu_limit

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "STALL_SECONDS",
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
#: Wall-clock seconds a busy worker may go without using any CPU time before it is killed as stuck
#: (blocked on a lock, stopped, sleeping): a loaded machine slows a runnable worker, it never stops its clock
#: for this long.
STALL_SECONDS = 60.0
# Where a process's CPU time cannot be read (no /proc), the limit falls back to the wall clock, this many times
# the limit plus _WALL_FALLBACK_GRACE seconds.
_WALL_FALLBACK_FACTOR = 3.0
_WALL_FALLBACK_GRACE = 2.0
_MAX_FAILED_STARTS = 3
#: Seconds an idle worker of a pool that keeps spares waits, once its pool has closed, for the next pool of
#: the same function to take it instead of starting an interpreter and importing sympy
#: (docs/decisions/2026-11-worker-start-costs.md).
SPARE_SECONDS = 30.0
#: At most this many spares per function and settings.
_MAX_SPARES = max(2, os.cpu_count() or 1)


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
        Wall-clock time the task ran (measured in the worker when it returned or
        raised, by the parent otherwise).
    cpu_seconds : float
        CPU time the task used (its worker's, from the moment the task reached it;
        NaN where it cannot be read).
    """

    task_id: Hashable
    outcome: str
    value: Any = None
    error: str = ""
    seconds: float = math.nan
    cpu_seconds: float = math.nan


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


def _worker_main(conn, func: Callable, memory_limit: int | None, parent: int | None = None,
                 warm_up: Callable | None = None) -> None:
    """Loop of a worker process: receive ``(task_id, args)``, send the outcome."""
    _die_with_parent(parent)
    # Ctrl-C reaches the whole process group; the parent decides what to do.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if memory_limit:
        _limit_memory(memory_limit)
    if warm_up is not None:
        # Before "ready": what the first task would otherwise pay (lazy imports, caches) is charged to none.
        try:
            warm_up()
        except Exception:  # noqa: BLE001 - a failed warm-up only costs the first task some time
            pass
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent went away
            return
        if message is None:
            return
        task_id, args = message
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            reply = (task_id, "returned", func(*args), "")
        except BaseException as exc:  # noqa: BLE001 - report everything to the parent
            reply = (task_id, "raised", None, f"{type(exc).__name__}: {exc}")
        elapsed = (time.perf_counter() - start, time.process_time() - cpu_start)
        try:
            conn.send(reply + elapsed)
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable return value
            conn.send((task_id, "raised", None, f"could not send the result back: {exc}", *elapsed))


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
    __slots__ = ("process", "conn", "stderr", "ready", "started", "task", "task_started", "key", "task_cpu",
                 "cpu_seen", "cpu_seen_at", "checked_at")

    def __init__(self, process, conn, stderr, key=None):
        self.process = process
        self.conn = conn
        self.stderr = stderr
        self.ready = False
        self.started = time.monotonic()
        self.task = None  # (task_id, args) while busy
        self.task_started = math.nan
        self.key = key  # what its start fixed (_spare_key), for a pool that keeps spares; else None
        self.task_cpu: float | None = None  # the worker's CPU seconds when its task reached it (None: unknown)
        self.cpu_seen = math.nan            # its CPU seconds when they last grew, and when (monotonic)
        self.cpu_seen_at = math.nan
        self.checked_at = math.nan          # when they were last read

    def cpu(self) -> float | None:
        """CPU seconds this worker has used (None: cannot be read)."""
        return process_cpu_seconds(self.process.pid)

    def task_cpu_seconds(self) -> float:
        """CPU seconds used by the current task so far (NaN: unknown)."""
        now = self.cpu()
        return math.nan if now is None or self.task_cpu is None else max(0.0, now - self.task_cpu)

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


def _spare_key(func: Callable, memory_limit: int | None, warm_up: Callable | None = None) -> tuple:
    """What a worker's start fixed: this process and the thread that started it (``PR_SET_PDEATHSIG`` kills
    the worker when that thread ends), the function it imported, its memory cap, the import path and the
    environment variables that can change its work (:data:`_WORKER_ENVIRONMENT_PREFIXES`). A spare is only
    taken under the same key."""
    environment = frozenset((name, value) for name, value in os.environ.items()
                            if name.startswith(_WORKER_ENVIRONMENT_PREFIXES))
    return (os.getpid(), threading.current_thread(), func, memory_limit, tuple(sys.path), environment, warm_up)


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


SPARES = _Spares()
atexit.register(lambda: SPARES.expire(everything=True))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=SPARES.forget)


class WorkerPool:
    """Reusable worker processes running ``func(*args)`` under a hard CPU-time limit.

    Submit tasks with :meth:`submit`, then iterate :meth:`results`; tasks may be
    submitted while iterating (e.g. to retry one). A task that uses more than
    ``time_limit`` seconds of CPU time has its worker killed with SIGKILL; a
    fresh worker takes its place for the next task. Use the pool as a context
    manager so the workers are always stopped.

    What is counted is the CPU time of the task itself: the worker's user and
    system time (``/proc/PID/stat``, read by this process, in 10 ms steps) from
    the moment the task reached it, so neither the worker's start (an
    interpreter, imports, ``warm_up``) nor the other processes of a busy machine
    count. A task that has used no CPU time for ``stall_limit`` wall-clock
    seconds (blocked for good) is killed too. Where a process's CPU time cannot
    be read (no ``/proc``: macOS, Windows), the limit falls back to the wall
    clock, 3 x ``time_limit`` + 2 s.

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
        Hard limit per task in seconds of the task's own CPU time, counted from
        the moment the task is sent to a ready worker. None: no limit (and no
        ``stall_limit``).
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
    stall_limit : float, keyword-only
        Wall-clock seconds a task may use no CPU time at all before its worker is
        killed as stuck (:data:`STALL_SECONDS`). A runnable task on a loaded
        machine always gets some CPU time: this never fires because of load.
    warm_up : callable or None, keyword-only
        Module-level function each new worker calls once before it takes tasks
        (e.g. the imports and caches a first task would otherwise pay for, which
        would then count against that task's limit). Its errors are ignored.

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
        stall_limit: float = STALL_SECONDS,
        warm_up: Callable | None = None,
    ):
        if processes < 1:
            raise ValueError(f"The 'processes' option must be at least 1. Got {processes}.")
        if not stall_limit > 0:
            raise ValueError(f"The 'stall_limit' option must be a positive number of seconds. Got {stall_limit!r}.")
        self.func = func
        self.processes = int(processes)
        self.time_limit = time_limit
        self.stall_limit = float(stall_limit)
        self.warm_up = warm_up
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
                                     and SPARES.park(worker))]
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
        key = _spare_key(self.func, self.memory_limit, self.warm_up) if self.keep_spares else None
        spare = SPARES.take(key) if key is not None else None
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
            parent_conn.send((self.func, self.memory_limit, os.getpid(), self.warm_up))
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
            worker.task_started = worker.cpu_seen_at = worker.checked_at = time.monotonic()
            worker.task_cpu = worker.cpu()
            worker.cpu_seen = worker.task_cpu if worker.task_cpu is not None else math.nan

    def _check_at(self, worker: _Worker) -> float:
        """When (monotonic) this worker's limit can next be due: a start-up limit, the wall-clock fallback, or
        the moment its task could have used up its CPU time (one thread's CPU clock runs no faster than the
        wall clock; read at least every second in case it has more threads) or stalled for ``stall_limit``."""
        if not worker.ready:
            return worker.started + _STARTUP_LIMIT
        if worker.task is None or self.time_limit is None:
            return math.inf
        if worker.task_cpu is None:
            return worker.task_started + _WALL_FALLBACK_FACTOR * self.time_limit + _WALL_FALLBACK_GRACE
        left = self.time_limit - (worker.cpu_seen - worker.task_cpu)
        return min(worker.checked_at + min(max(left, 0.01), 1.0), worker.cpu_seen_at + self.stall_limit)

    def _overrun(self, worker: _Worker, now: float) -> str:
        """Why ``worker``'s task must be killed now, or ""."""
        if worker.task_cpu is None:  # no CPU clock here: the wall-clock fallback
            limit = _WALL_FALLBACK_FACTOR * self.time_limit + _WALL_FALLBACK_GRACE
            return (f"killed after the hard limit of {limit:g} s (wall clock: this system does not report a "
                    f"process's CPU time)") if now - worker.task_started >= limit else ""
        cpu = worker.cpu()
        worker.checked_at = now
        if cpu is not None and cpu > worker.cpu_seen:
            worker.cpu_seen, worker.cpu_seen_at = cpu, now
        if worker.cpu_seen - worker.task_cpu >= self.time_limit:
            return f"killed after the hard limit of {self.time_limit:g} s of CPU time"
        if now - worker.cpu_seen_at >= self.stall_limit:
            return f"killed as stuck: it used no CPU time for {self.stall_limit:g} s"
        return ""

    def _collect(self) -> None:
        """Wait for one event (a message, a death or a limit) and handle it."""
        watched = [w for w in self._workers if w.task is not None or not w.ready]
        if not watched:
            return
        next_check = min(self._check_at(w) for w in watched)
        timeout = None if math.isinf(next_check) else max(0.0, next_check - time.monotonic())
        # A worker's death closes its end of the pipe, which makes it readable.
        ready = set(wait([w.conn for w in watched], timeout))
        for worker in watched:
            if worker.conn in ready:
                self._receive(worker)
        now = time.monotonic()
        for worker in list(self._workers):
            if not worker.ready and now >= worker.started + _STARTUP_LIMIT:  # never became ready
                self._failed_starts += 1
                self._discard(worker, kill=True)
                if self._failed_starts >= _MAX_FAILED_STARTS:
                    raise RuntimeError(
                        f"{self._failed_starts} worker processes in a row did not start within "
                        f"{_STARTUP_LIMIT:g} s; cannot run tasks.")
                continue
            if worker.task is None or self.time_limit is None:
                continue
            why = self._overrun(worker, now)
            if not why:
                continue
            task_id, used = worker.task[0], worker.cpu_seen - worker.task_cpu if worker.task_cpu is not None \
                else math.nan
            self._discard(worker, kill=True)
            self._ready_results.append(TaskResult(task_id, "killed", error=why, seconds=now - worker.task_started,
                                                  cpu_seconds=used))

    def _receive(self, worker: _Worker) -> None:
        try:
            if not worker.conn.poll():
                raise EOFError
            message = worker.conn.recv()
        except (EOFError, OSError):
            task = worker.task
            used = worker.task_cpu_seconds() if task is not None else math.nan  # before it is reaped
            try:
                code = worker.process.wait(1.0)
            except subprocess.TimeoutExpired:
                code = None
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
                    seconds=time.monotonic() - worker.task_started, cpu_seconds=used))
            return
        if len(message) == 2:  # ("ready", pid), sent once at start-up
            worker.ready = True
            self._failed_starts = 0
            return
        task_id, outcome, value, error, seconds, cpu_seconds = message
        worker.task = None
        self._ready_results.append(TaskResult(task_id, outcome, value, error, seconds, cpu_seconds))
