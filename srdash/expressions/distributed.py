"""Run srdash's per-model work on a Dask distributed cluster, under the same hard limits.

:class:`DaskWorkerPool` has the interface of :class:`srdash.expressions._timelimit.WorkerPool`
(``submit(task_id, *args)``, ``results()``, context manager) but runs each task
on a Dask worker. :func:`srdash.expressions.complexity_table` uses it when it is
given a scheduler, so the cluster runs exactly the local procedure: the same
task function, the same deduplication, cache and retry logic in the client, the
same results.

Why not plain ``client.submit(task)``: Dask cannot stop a running task
(``future.result(timeout=...)`` returns but the work goes on, and
``client.restart()`` restarts every worker). So the time limit is enforced
*inside* the Dask task: each Dask worker thread keeps one
:class:`~srdash.expressions._timelimit.WorkerPool` subprocess and runs the task there; a task
that uses more than ``time_limit`` seconds of CPU time (its own, counted in the
subprocess from the moment the task reached it: neither the subprocess's start nor
a busy machine counts) has its subprocess killed (SIGKILL) and replaced, exactly
as on a laptop, and the Dask worker itself carries on. The client waits for the
results without a wall-clock limit. The subprocess's
address space is capped at ``memory_limit`` bytes (``RLIMIT_AS``), so a runaway
simplification raises ``MemoryError`` in the subprocess and the model is marked,
instead of the worker (or the machine) running out of memory. If a Dask worker
dies anyway, the task is reported as ``died`` and the caller's usual retry
applies. Subprocesses start once per Dask worker thread (about 0.5 s with sympy)
and are reused; they are stopped when the Dask worker closes.

The scheduler is chosen by :func:`resolve_scheduler`: an explicit address
(``--scheduler tcp://HOST:PORT`` on the command line), else the
``SRDASH_SCHEDULER`` environment variable, else none (local worker processes).

Starting a cluster::

    dask scheduler --port 8786                                   # on one machine
    dask worker tcp://HOST:8786 --nworkers 4 --nthreads 1 --memory-limit 4GiB   # on each worker machine
    SRDASH_SCHEDULER=tcp://HOST:8786 srdash score results.csv -o leaderboard.csv

Every worker machine needs the same srdash (and sympy) installed: the
component counts depend on the sympy version.

Examples
--------
>>> resolve_scheduler(None, environ={})
>>> resolve_scheduler(None, environ={"SRDASH_SCHEDULER": "tcp://10.0.0.5:8786"})
'tcp://10.0.0.5:8786'
>>> resolve_scheduler(False, environ={"SRDASH_SCHEDULER": "tcp://10.0.0.5:8786"})
>>> resolve_scheduler("10.0.0.5")
Traceback (most recent call last):
...
srdash.errors.SrdashError: The Dask scheduler address must look like tcp://HOST:PORT (for example tcp://10.0.0.5:8786). Got '10.0.0.5'.
"""

from __future__ import annotations

import functools
import os
import re
import threading
import time
import uuid
from typing import Callable, Hashable, Iterator, Mapping

from srdash.expressions._timelimit import DEFAULT_MEMORY_LIMIT, TaskResult, WorkerPool
from srdash.errors import SrdashError

__all__ = ["SCHEDULER_VARIABLE", "DaskWorkerPool", "resolve_scheduler"]

#: Environment variable holding the scheduler address when none is given.
SCHEDULER_VARIABLE = "SRDASH_SCHEDULER"

_ADDRESS = re.compile(r"^(?:(?:tcp|tls)://\S+:\d+|(?:inproc|ucx|ws|wss)://\S+)$")
_PLUGIN_NAME = "srdash-worker-pools"
_POOLS_ATTRIBUTE = "_srdash_worker_pools"
_INSTALL_HINT = "Install it with `pip install 'srdash[dask]'` (dask and distributed)."


def resolve_scheduler(scheduler=None, *, environ: Mapping[str, str] | None = None):
    """The Dask scheduler to use, or None for local worker processes.

    Parameters
    ----------
    scheduler : None, False, str or distributed.Client
        An address such as ``tcp://HOST:PORT``, a connected ``Client`` (used as
        is), ``False`` (local workers, whatever the environment says) or None
        (the ``SRDASH_SCHEDULER`` environment variable if it is set and not
        empty, else local workers).
    environ : mapping, optional, keyword-only
        Environment to read (default ``os.environ``).

    Returns
    -------
    str, Client or None

    Raises
    ------
    SrdashError
        When the address does not look like ``tcp://HOST:PORT`` (or another
        Dask protocol: ``tls``, ``inproc``, ``ucx``, ``ws``, ``wss``).
    """
    if scheduler is False:
        return None
    origin = ""
    if scheduler is None:
        scheduler = (os.environ if environ is None else environ).get(SCHEDULER_VARIABLE, "").strip() or None
        origin = f" (from the {SCHEDULER_VARIABLE} environment variable)"
        if scheduler is None:
            return None
    if not isinstance(scheduler, str):
        if hasattr(scheduler, "submit") and hasattr(scheduler, "scheduler_info"):
            return scheduler  # a distributed.Client
        address = getattr(scheduler, "scheduler_address", None)  # e.g. a LocalCluster
        if isinstance(address, str):
            return address
        raise SrdashError(f"The scheduler must be an address such as tcp://HOST:PORT or a distributed.Client. "
                          f"Got {type(scheduler).__name__}.")
    address = scheduler.strip()
    if not _ADDRESS.match(address):
        raise SrdashError(f"The Dask scheduler address must look like tcp://HOST:PORT (for example "
                          f"tcp://10.0.0.5:8786). Got {scheduler!r}{origin}.")
    return address


def _import_distributed():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise SrdashError(f"Scoring on a Dask cluster needs the 'distributed' package. {_INSTALL_HINT}") from exc
    return distributed


# --------------------------------------------------------------------------- worker side


def _worker_pools(worker) -> dict:
    pools = getattr(worker, _POOLS_ATTRIBUTE, None)
    if pools is None:
        pools = {}
        setattr(worker, _POOLS_ATTRIBUTE, pools)
    return pools


def _close_pools(worker) -> None:
    pools = _worker_pools(worker)
    for _, pool in list(pools.values()):
        pool.close()
    pools.clear()


@functools.lru_cache(maxsize=None)
def _plugin_class() -> type:
    """The worker plugin class, built on first use: importing ``distributed`` costs about 0.3 s,
    which local scoring (which imports this module to read the scheduler setting) should not pay."""
    from distributed import WorkerPlugin

    class _ClosePoolsOnShutdown(WorkerPlugin):
        """Dask worker plugin: stop the srdash subprocesses when the Dask worker closes.

        ``idempotent``: registering it again (every :class:`DaskWorkerPool` does, so
        that a cluster used for the first time gets it) changes nothing, and the warm
        subprocesses stay up between calls.
        """

        name = _PLUGIN_NAME
        idempotent = True

        def setup(self, worker) -> None:
            _worker_pools(worker)

        def teardown(self, worker) -> None:
            _close_pools(worker)

    # Pickled by reference: the workers find it through the module's __getattr__ below.
    _ClosePoolsOnShutdown.__module__ = __name__
    _ClosePoolsOnShutdown.__qualname__ = "_ClosePoolsOnShutdown"
    return _ClosePoolsOnShutdown


def __getattr__(name: str):
    if name == "_ClosePoolsOnShutdown":
        return _plugin_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _run_task(func: Callable, args: tuple, time_limit: float | None, memory_limit: int | None,
              warm_up: Callable | None = None) -> tuple:
    """Runs in a Dask worker thread: ``func(*args)`` in this thread's subprocess, under the hard limit.

    Returns ``(outcome, value, error, seconds, cpu_seconds)`` of the
    :class:`~srdash.expressions._timelimit.TaskResult`. The limit counts the task's CPU time in the subprocess
    (not the subprocess's start, nor the time the task waited for a core on a busy machine).
    """
    from distributed import get_worker

    pools = _worker_pools(get_worker())
    # One subprocess per Dask worker thread, kept warm between tasks; replaced when the
    # function or the limits change (so a long-lived worker never accumulates them).
    thread = threading.get_ident()
    settings = (func, time_limit, memory_limit, warm_up)
    current = pools.get(thread)
    if current is None or current[0] != settings:
        if current is not None:
            current[1].close()
        current = pools[thread] = (settings, WorkerPool(func, processes=1, time_limit=time_limit,
                                                        memory_limit=memory_limit, warm_up=warm_up))
    pool = current[1]
    pool.submit(0, *args)
    result = None
    for result in pool.results():
        pass
    return (result.outcome, result.value, result.error, result.seconds, result.cpu_seconds)


# --------------------------------------------------------------------------- client side


class DaskWorkerPool:
    """Run ``func(*args)`` tasks on a Dask cluster, each under a hard time and memory limit.

    The interface of :class:`srdash.expressions._timelimit.WorkerPool`: :meth:`submit`
    tasks, then iterate :meth:`results` (tasks may be submitted while
    iterating); use it as a context manager. Each task runs on some Dask
    worker, inside a subprocess that is killed when the task overruns
    ``time_limit`` (see the module description), so the limit holds on the
    cluster as it does locally.

    Parameters
    ----------
    func : callable
        Module-level (importable) function, installed on every worker.
    scheduler : str or distributed.Client, keyword-only
        Scheduler address (``tcp://HOST:PORT``) or a connected client (not
        closed by the pool). See :func:`resolve_scheduler`.
    time_limit : float or None, keyword-only
        Hard limit per task in seconds of its CPU time, counted from the moment
        the task reaches its subprocess. The client waits for results without a
        wall-clock limit: a loaded cluster is slower, never a timeout.
    memory_limit : int or None, keyword-only
        ``RLIMIT_AS`` of each subprocess in bytes (default 4 GiB).
    warm_up : callable or None, keyword-only
        Run once by each new subprocess before its first task (see
        :class:`~srdash.expressions._timelimit.WorkerPool`).
    connect_timeout : float, keyword-only
        Seconds to wait for the scheduler and for at least one worker.

    Raises
    ------
    SrdashError
        The scheduler cannot be reached, or no worker joins within
        ``connect_timeout`` (raised on entering the context or at the first
        :meth:`submit`).

    Examples
    --------
    >>> import math
    >>> from distributed import LocalCluster
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
    ...     with DaskWorkerPool(math.sqrt, scheduler=cluster.scheduler_address, time_limit=30) as pool:
    ...         for i in (4, 9):
    ...             pool.submit(i, i)
    ...         sorted(r.value for r in pool.results())
    [2.0, 3.0]
    """

    def __init__(self, func: Callable, *, scheduler, time_limit: float | None = None,
                 memory_limit: int | None = DEFAULT_MEMORY_LIMIT, connect_timeout: float = 30.0,
                 warm_up: Callable | None = None):
        self.func = func
        self.scheduler = resolve_scheduler(scheduler) if scheduler is not None else None
        if self.scheduler is None:
            raise SrdashError("DaskWorkerPool needs a scheduler address (tcp://HOST:PORT) or a distributed.Client.")
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.warm_up = warm_up
        self.connect_timeout = float(connect_timeout)
        self._client = None
        self._owns_client = False
        self._completed = None
        self._pending: dict[str, tuple[Hashable, float]] = {}
        self._closed = False

    # -- public API -----------------------------------------------------------
    @property
    def address(self) -> str:
        """The scheduler's address."""
        if isinstance(self.scheduler, str):
            return self.scheduler
        return str(self.scheduler.scheduler.address)  # a distributed.Client

    def submit(self, task_id: Hashable, *args) -> None:
        """Queue ``func(*args)`` on the cluster; its :class:`TaskResult` carries ``task_id``."""
        if self._closed:
            raise RuntimeError("This DaskWorkerPool is closed.")
        client = self._connect()
        key = f"srdash-{getattr(self.func, '__name__', 'task').strip('_')}-{uuid.uuid4().hex}"
        future = client.submit(_run_task, self.func, args, self.time_limit, self.memory_limit, self.warm_up,
                               key=key, pure=False)
        self._pending[future.key] = (task_id, time.monotonic())
        self._completed.add(future)

    def results(self) -> Iterator[TaskResult]:
        """Yield a :class:`TaskResult` per task as tasks finish, until none is left."""
        while self._pending:
            future = next(self._completed)
            task_id, submitted = self._pending.pop(future.key)
            yield self._result(task_id, future, submitted)

    def close(self) -> None:
        """Forget the pending tasks and disconnect (a client passed in is left open).

        Tasks already running on the workers stop at the latest when their hard
        time limit expires.
        """
        self._closed = True
        if self._client is not None and self._pending:
            try:
                self._client.cancel(list(self._completed.futures), force=True)
            except Exception:  # noqa: BLE001 - best effort while shutting down
                pass
        self._pending.clear()
        self._completed = None
        if self._client is not None and self._owns_client:
            self._client.close()
        self._client = None

    def __enter__(self) -> DaskWorkerPool:
        self._connect()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- internals ------------------------------------------------------------
    def _connect(self):
        if self._client is not None:
            return self._client
        distributed = _import_distributed()
        if isinstance(self.scheduler, str):
            try:
                client = distributed.Client(self.scheduler, timeout=self.connect_timeout, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise SrdashError(
                    f"Cannot connect to the Dask scheduler at {self.scheduler} within {self.connect_timeout:g} s "
                    f"({type(exc).__name__}: {exc}). Start one with `dask scheduler` and workers with "
                    f"`dask worker {self.scheduler}`, or unset {SCHEDULER_VARIABLE} to use local worker "
                    f"processes.") from None
            self._owns_client = True
        else:
            client = self.scheduler
        try:
            client.wait_for_workers(1, timeout=self.connect_timeout)
        except (OSError, TimeoutError) as exc:
            if self._owns_client:
                client.close()
            raise SrdashError(f"The Dask scheduler at {self.address} has no worker ({type(exc).__name__}); start "
                              f"some with `dask worker {self.address}`.") from None
        client.register_plugin(_plugin_class()(), name=_PLUGIN_NAME)
        self._client = client
        self._completed = distributed.as_completed([], loop=client.loop, with_results=False)
        return client

    def _result(self, task_id: Hashable, future, submitted: float) -> TaskResult:
        status = future.status
        if status == "finished":
            return TaskResult(task_id, *future.result())
        elapsed = time.monotonic() - submitted
        if status == "error":
            from distributed.scheduler import KilledWorker

            exc = future.exception()
            if isinstance(exc, KilledWorker):
                return TaskResult(task_id, "died", error=f"the Dask worker running it died ({exc})", seconds=elapsed)
            return TaskResult(task_id, "raised", error=f"{type(exc).__name__}: {exc}", seconds=elapsed)
        raise SrdashError(f"Lost a task on the Dask cluster at {self.address} (status {status!r}); is the "
                          "scheduler still running?")
