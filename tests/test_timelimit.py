"""Worker processes with a hard per-task time limit (srdash.expressions._timelimit).

Task functions are stdlib functions (importable in the workers by reference).
Time bounds in these tests are generous: workers start a fresh interpreter
(~1 s on a loaded machine); what is checked is that a limit *ends* the work.
"""

from __future__ import annotations

import math
import os
import threading
import time

import pytest

from srdash.expressions._timelimit import SoftTimeLimitExceeded, TaskResult, WorkerPool, soft_time_limit

STARTUP = 30.0  # generous allowance for starting interpreters on a busy machine
HANG = 600.0  # a bound only against a hang: CPU-time limits take longer in wall time on a busy machine


def run_all(pool, tasks):
    for task_id, *args in tasks:
        pool.submit(task_id, *args)
    return {result.task_id: result for result in pool.results()}


def test_returned_and_raised_tasks():
    with WorkerPool(math.sqrt, processes=2, time_limit=60) as pool:
        results = run_all(pool, [("four", 4.0), ("nine", 9.0), ("bad", "x")])
    assert results["four"] == TaskResult("four", "returned", 2.0, "", results["four"].seconds,
                                         results["four"].cpu_seconds)
    assert 0 <= results["four"].cpu_seconds < 1
    assert results["nine"].value == 3.0
    assert results["bad"].outcome == "raised"
    assert results["bad"].error == "TypeError: must be real number, not str"
    assert results["bad"].value is None


def test_workers_are_reused_and_never_more_than_the_tasks():
    with WorkerPool(os.getpid, processes=4, time_limit=60) as pool:
        results = run_all(pool, [(i,) for i in range(20)])
        assert pool.started_processes <= 4
        pids = {r.value for r in results.values()}
    assert 1 <= len(pids) <= 4
    assert os.getpid() not in pids
    with WorkerPool(os.getpid, processes=4, time_limit=60) as pool:
        run_all(pool, [(0,)])
        assert pool.started_processes == 1  # one task: one worker


def burn(seconds: float) -> float:
    """Use ``seconds`` of this process's CPU time (a task, and a warm-up, for the workers)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


def burn_a_second() -> None:
    burn(1.0)


# sum(range(10**13)) runs for hours of CPU time in one C call: no signal stops it, only a kill.
ENDLESS = range(10**13)


def test_a_task_over_the_hard_limit_of_cpu_time_is_killed_and_its_worker_replaced():
    with WorkerPool(sum, processes=1, time_limit=1.0) as pool:
        results = run_all(pool, [("endless", ENDLESS), ("after", range(10))])
        assert pool.started_processes == 2
    assert results["endless"].outcome == "killed"
    assert results["endless"].error == "killed after the hard limit of 1 s of CPU time"
    # read from /proc in 10 ms steps, at most every second: stopped soon after its limit, counted in CPU time
    assert 1.0 <= results["endless"].cpu_seconds < 1.0 + 5
    assert results["after"].value == 45


def test_a_task_using_no_cpu_is_killed_as_stuck_after_the_stall_limit():
    start = time.monotonic()
    with WorkerPool(time.sleep, processes=1, time_limit=60, stall_limit=1.0) as pool:
        results = run_all(pool, [("stuck", 600), ("after", 0.01)])
    assert results["stuck"].outcome == "killed"
    assert results["stuck"].error == "killed as stuck: it used no CPU time for 1 s"
    assert results["stuck"].cpu_seconds < 0.5
    assert results["after"].outcome == "returned"
    assert time.monotonic() - start < 1.0 + 2 * STARTUP  # stopped, not waited for (600 s)


def test_neither_the_workers_start_nor_its_warm_up_count_against_a_task():
    # the warm-up uses 1 s of CPU, twice the task's limit; the task itself about 0.1 s
    with WorkerPool(burn, processes=1, time_limit=0.5, warm_up=burn_a_second) as pool:
        results = run_all(pool, [("quick", 0.1)])
    assert results["quick"].outcome == "returned"
    assert 0.1 <= results["quick"].cpu_seconds < 0.5


def test_stall_limit_must_be_positive():
    with pytest.raises(ValueError, match=r"The 'stall_limit' option must be a positive number of seconds\. "
                                         r"Got 0\."):
        WorkerPool(math.sqrt, stall_limit=0)


def test_a_task_that_kills_its_worker_is_reported_as_died():
    with WorkerPool(os._exit, processes=1, time_limit=60) as pool:
        results = run_all(pool, [("exit", 3)])
    assert results["exit"].outcome == "died"
    assert results["exit"].error == "the worker process died (exit code 3)"


def test_the_memory_limit_turns_a_runaway_allocation_into_memory_error():
    with WorkerPool(bytearray, processes=1, time_limit=60, memory_limit=2 * 2**30) as pool:
        results = run_all(pool, [("huge", 8 * 2**30), ("small", 10)])
    assert results["huge"].outcome == "raised"
    assert results["huge"].error.startswith("MemoryError")
    assert results["small"].value == bytearray(10)  # the same worker carries on


def test_tasks_can_be_submitted_while_iterating():
    seen = []
    with WorkerPool(math.sqrt, processes=1, time_limit=60) as pool:
        pool.submit("first", 16.0)
        for result in pool.results():
            seen.append((result.task_id, result.value))
            if result.task_id == "first":
                pool.submit("second", result.value)
    assert seen == [("first", 4.0), ("second", 2.0)]


def test_the_hard_limit_holds_from_a_non_main_thread():
    outcome = {}

    def work():
        with WorkerPool(sum, processes=1, time_limit=1.0) as pool:
            outcome.update(run_all(pool, [("stuck", ENDLESS)]))

    thread = threading.Thread(target=work)
    thread.start()
    # The limit is CPU time, which a busy machine hands out slowly: no wall-clock bound is asserted, the
    # join's bound only keeps a broken limit from hanging the suite.
    thread.join(HANG)
    assert not thread.is_alive(), f"the pool's thread still runs after {HANG:.0f} s: the hard limit did not hold"
    assert outcome["stuck"].outcome == "killed"
    assert outcome["stuck"].error == "killed after the hard limit of 1 s of CPU time"


def test_closing_stops_busy_workers():
    pool = WorkerPool(time.sleep, processes=1, time_limit=None)
    pool.submit("stuck", 600)
    results = pool.results()
    # Wait until the task is running, then close without consuming it.
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        pool._dispatch()
        if pool._busy():
            break
        pool._collect()  # wait for the worker to be ready
    process = pool._busy()[0].process
    pool.close()
    assert process.poll() is not None  # killed
    with pytest.raises(RuntimeError, match=r"This WorkerPool is closed\."):
        pool.submit("again", 1)
    results.close()


def test_processes_must_be_positive():
    with pytest.raises(ValueError, match=r"The 'processes' option must be at least 1\. Got 0\."):
        WorkerPool(math.sqrt, processes=0)


def test_soft_limit_interrupts_python_code_in_the_main_thread():
    start = time.monotonic()
    with pytest.raises(SoftTimeLimitExceeded, match=r"time limit of 0\.2 s exceeded"):
        with soft_time_limit(0.2):
            while True:
                pass
    assert time.monotonic() - start < 5


def test_soft_limit_is_not_swallowed_by_except_exception():
    # sympy has `except Exception:` clauses; the limit must still stop the work.
    start = time.monotonic()
    with pytest.raises(SoftTimeLimitExceeded):
        with soft_time_limit(0.2):
            while True:
                try:
                    time.sleep(0.01)
                except Exception:  # noqa: BLE001
                    pass
    assert time.monotonic() - start < 5


def test_soft_limit_is_disarmed_after_the_block():
    with soft_time_limit(0.1):
        pass
    time.sleep(0.3)  # no late alarm


def test_soft_limit_refuses_other_threads():
    errors = []

    def work():
        try:
            with soft_time_limit(1):
                pass
        except RuntimeError as exc:
            errors.append(str(exc))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert len(errors) == 1
    assert errors[0].startswith("soft_time_limit() uses SIGALRM and only works in the main thread")


def test_no_soft_limit():
    with soft_time_limit(None):
        time.sleep(0.01)


# --------------------------------------------------------------------------- spares (keep_spares)


def _one_pid(**kwargs) -> tuple[int, int, int]:
    """The pid of the worker that ran one task, and the pool's started and reused worker counts."""
    with WorkerPool(os.getpid, processes=1, time_limit=60, **kwargs) as pool:
        pid = run_all(pool, [(0,)])[0].value
        return pid, pool.started_processes, pool.reused_processes


def test_a_pool_that_keeps_spares_hands_its_idle_worker_to_the_next_pool_of_the_same_thread(monkeypatch):
    from srdash.expressions import _timelimit

    # A spare's idle wait is wall time: on a busy machine the steps below can take longer than the 30 s a
    # spare waits, so this test (about which pool may take a spare, not when spares end) waits an hour.
    monkeypatch.setattr(_timelimit, "SPARE_SECONDS", 3600.0)
    _timelimit.SPARES.expire(everything=True)
    first, started, _ = _one_pid(keep_spares=True)
    assert started == 1
    assert _one_pid(keep_spares=True) == (first, 0, 1)  # no interpreter started
    assert _one_pid(keep_spares=True) == (first, 0, 1)  # parked again after each pool

    # Not taken by a pool of another thread (the worker dies with the thread that started it), nor one that
    # does not keep spares, nor under another sympy setting (read when the worker started); another
    # variable that no worker reads changes nothing.
    seen = {}
    thread = threading.Thread(target=lambda: seen.update(other=_one_pid(keep_spares=True)))
    thread.start()
    thread.join(2 * STARTUP)
    assert seen["other"][1:] == (1, 0) and seen["other"][0] != first
    assert _one_pid()[1:] == (1, 0)
    monkeypatch.setenv("SYMPY_USE_CACHE", "yes")  # sympy reads it when imported: the worker's was unset
    assert _one_pid(keep_spares=True)[1:] == (1, 0)
    monkeypatch.delenv("SYMPY_USE_CACHE")
    monkeypatch.setenv("SRDASH_CACHE_DIR", "/elsewhere")  # read by the pool's caller, never by a worker
    assert _one_pid(keep_spares=True) == (first, 0, 1)
    assert _one_pid(keep_spares=True) == (first, 0, 1)
    _timelimit.SPARES.expire(everything=True)
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # stopped and reaped


def test_spares_end_when_their_time_is_up_and_a_fork_does_not_take_its_parents(monkeypatch):
    from srdash.expressions import _timelimit

    _timelimit.SPARES.expire(everything=True)
    monkeypatch.setattr(_timelimit, "SPARE_SECONDS", 0.5)
    spare, _, _ = _one_pid(keep_spares=True)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the parent's spare is alive, but not this process's worker
        try:
            os.write(write, repr((len(_timelimit.SPARES.by_key), _one_pid(keep_spares=True)[1:])).encode())
        finally:
            os._exit(0)
    os.close(write)
    assert os.waitpid(child, 0)[1] == 0
    with os.fdopen(read) as answer:
        assert answer.read() == "(0, (1, 0))"
    # its time is up half a second after its pool closed: the timer stops and reaps it
    deadline = time.monotonic() + STARTUP

    def gone(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    while time.monotonic() < deadline and not gone(spare):
        time.sleep(0.1)
    assert gone(spare) and not _timelimit.SPARES.by_key


def test_without_a_cpu_clock_the_limit_falls_back_to_the_wall_clock(monkeypatch):
    from srdash.expressions import _timelimit

    # a system without /proc (macOS, Windows): no process's CPU time can be read
    monkeypatch.setattr(_timelimit, "process_cpu_seconds", lambda pid: None)
    with WorkerPool(time.sleep, processes=1, time_limit=0.2) as pool:
        results = run_all(pool, [("stuck", 600)])
    # 3 x 0.2 + 2 = 2.6 s of wall-clock time
    assert results["stuck"].outcome == "killed"
    assert results["stuck"].error == ("killed after the hard limit of 2.6 s (wall clock: this system does not "
                                      "report a process's CPU time)")
    assert results["stuck"].seconds >= 2.6 and math.isnan(results["stuck"].cpu_seconds)
