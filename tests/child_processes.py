"""The one way a test starts a long-lived process (a server): it dies with the test.

A server started in its own session (``start_new_session=True``, so that it can be
stopped as a group and Ctrl-C in the terminal does not reach it) is no longer
stopped by anything when the pytest process that started it is killed: a killed
run left ``srdash serve``, Voilà, the kernels' zygote and two kernels running.
:func:`start` therefore also asks Linux to send the process SIGTERM when its
parent dies (``prctl(PR_SET_PDEATHSIG)``, kept across ``exec``); srdash's
server stops Voilà and its kernels on SIGTERM
(:func:`srdash.apps.server.serve_dashboard`), and they die with it anyway.

Every process the suite starts carries :data:`MARKER` in its environment (its
value is one per pytest run, set by the repo's conftest.py), inherited by
whatever it starts in turn: tests/test_killed_suite.py finds what a killed run
left by it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Mapping, Sequence

__all__ = ["MARKER", "START_BOUND", "FORKED_KERNEL", "command_line", "kill", "marked_processes", "run_marker", "start", "stop", "wait_until_serving"]

#: The environment variable naming the pytest run a process belongs to (not ``SRDASH_*``: tests strip those).
MARKER = "PYTEST_SRDASH_RUN"
_PR_SET_PDEATHSIG = 1
#: Seconds a test waits for a server it started to answer. Only a bound for a broken start, so generous: a
#: `srdash serve` answers after about 10 s of two cores when idle, and a 2-core machine at load 10-20 gives
#: the suite's worker a tenth of that.
START_BOUND = 600.0


def run_marker() -> str:
    """This run's value of :data:`MARKER` (set here if the conftest has not)."""
    return os.environ.setdefault(MARKER, uuid.uuid4().hex)


def _die_with(parent: int, signum: int):
    """A ``preexec_fn``: the child gets ``signum`` when ``parent`` dies, even by SIGKILL (Linux).

    PR_SET_PDEATHSIG fires when the *thread* that forked the child ends: start servers from the test's
    thread (pytest's main thread), not from a short-lived helper thread. ``prctl`` is looked up here, before
    the fork: a ``dlopen`` in the child could wait forever on a lock another thread held at the fork.
    """
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: nothing tells the child
        prctl = None

    def arm() -> None:
        if prctl is None:
            return
        prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl: nobody is left to signal us
            os._exit(1)
    return arm


def start(command: Sequence[str], *, env: Mapping[str, str] | None = None, signum: int = signal.SIGTERM,
          **popen) -> subprocess.Popen:
    """``subprocess.Popen(command, **popen)`` in a new session, told ``signum`` when this process dies.

    Parameters
    ----------
    command : sequence of str
    env : mapping, optional
        The child's environment (default ``os.environ``); :data:`MARKER` is added.
    signum : int
        What the child gets when the test process dies (SIGTERM: srdash stops what it started).
    **popen
        Further arguments of :class:`subprocess.Popen` (``cwd``, ``stdout``, ...); not ``preexec_fn`` or
        ``start_new_session``, which this sets.
    """
    for taken in ("preexec_fn", "start_new_session"):
        if taken in popen:
            raise TypeError(f"The '{taken}' option is set by child_processes.start. Got {popen[taken]!r}.")
    environment = dict(os.environ if env is None else env)
    environment[MARKER] = run_marker()
    return subprocess.Popen(list(command), env=environment, start_new_session=True,
                            preexec_fn=_die_with(os.getpid(), signum), **popen)


def stop(process: subprocess.Popen, *, grace: float = 60.0) -> int:
    """SIGTERM to ``process`` (srdash then stops Voilà and its kernels), SIGKILL to its whole
    session after ``grace`` seconds; its exit code.

    ``grace`` is generous: a clean stop takes about a second, but on a machine kept busy by other processes a
    few seconds of CPU can take ten times as long, and a SIGKILL leaves no trace of why.
    """
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            kill(process)
    return process.returncode


def kill(process: subprocess.Popen) -> None:
    """SIGKILL to every process of ``process``'s session (it must lead one: started by :func:`start`)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def wait_until_serving(process: subprocess.Popen, url: str, *, log: Path | None = None,
                       bound: float = START_BOUND) -> float:
    """Wait until the srdash server ``process`` answers at ``url``; the seconds it took.

    Raises
    ------
    AssertionError
        When it stops first or does not answer within ``bound`` seconds, with the end of its ``log``.
    """
    from srdash.apps.server import wait_until_ready
    from srdash.errors import SrdashError

    started = time.monotonic()
    try:
        wait_until_ready(url, timeout=bound, process=process)
    except SrdashError as error:
        said = log.read_text(errors="replace")[-4000:] if log is not None and log.exists() else ""
        raise AssertionError(f"{error} Its output ends with:\n{said}") from None
    return time.monotonic() - started


#: What srdash's zygote names each kernel it forks (srdash.apps.zygote.KERNEL_NAME): its command line is the zygote's.
FORKED_KERNEL = "srdash-kernel"


def command_line(pid: int) -> str:
    """``pid``'s command line; a kernel forked by srdash's zygote (whose command line is the zygote's) says so:
    ``... # ipykernel forked by srdash's zygote``. Raises OSError when the process is gone."""
    line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    if Path(f"/proc/{pid}/comm").read_text().strip() == FORKED_KERNEL:
        line += " # ipykernel forked by srdash's zygote"
    return line


def child_pids() -> dict[int, list[int]]:
    """Every process's children, by parent process id (read from /proc; processes gone meanwhile are skipped)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    return children


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (children, theirs, ...), now."""
    tree, found, todo = child_pids(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def marked_processes(marker: str) -> dict[int, str]:
    """The live processes (not zombies) whose environment has :data:`MARKER` = ``marker``: pid -> command line.

    Reads /proc (Linux); processes of other users, or gone meanwhile, are skipped.
    """
    wanted = f"{MARKER}={marker}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if wanted not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            found[int(entry.name)] = command_line(int(entry.name))
        except (OSError, IndexError):
            continue
    return found
