"""Clocks and limits inside one process that count CPU time, not the wall clock.

:func:`soft_time_limit` (a signal, main thread) and :func:`thread_cpu_limit` (a watchdog
reading a thread's CPU clock, any thread) interrupt Python code that overruns its CPU
time; :func:`process_cpu_seconds` reads another process's CPU time, which is how
:class:`srdash.expressions._timelimit.WorkerPool` holds a task to its limit. A busy
machine slows work down; it must not change what is judged, so no limit here counts
the time the work spent waiting for a processor.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from typing import Callable

__all__ = ["SoftTimeLimitExceeded", "process_cpu_seconds", "soft_time_limit", "thread_cpu_limit"]

# How often the soft limit re-fires after it first expires, in case the running
# code swallowed the first exception with a bare ``except:``.
_REFIRE_INTERVAL = 0.1
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") and "SC_CLK_TCK" in os.sysconf_names else 100


def process_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of process ``pid`` in seconds (Linux ``/proc``; 10 ms steps), or None.

    None where the system does not tell (no ``/proc``) or the process is gone.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS  # utime, stime (fields 14 and 15)
    except (OSError, ValueError, IndexError):
        return None


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
