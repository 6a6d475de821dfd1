"""Test-session settings for every test, doctest and notebook (pytest reads this file first).

The whole session uses its own srdash cache folder (``SRDASH_CACHE_DIR``), so a
run never depends on what an earlier run, or the user, left in the default
cache: the demo is written and seeded with its shipped prepared results once,
and notebooks run by nbval (in kernels that inherit the environment) use the
same folder.

Each failure is named as it happens (``FAILED <test> - <message>``, on its own
line among the progress dots, also from xdist's workers), not only in the
summary at the end of a run that may take many minutes or be killed before it.

An xdist worker dies with pytest's controller (Linux), and every process of the
run carries ``PYTEST_SRDASH_RUN`` (one value per run) in its environment:
tests/child_processes.py starts the suite's servers so that they die with the
test process, and tests/test_killed_suite.py finds what a killed run left.
"""

from __future__ import annotations

import ctypes
import os
import signal
import tempfile
import uuid

import pytest

# Voilà's configuration files (voila.py, run by Voilà with get_config) are not modules to import for doctests.
collect_ignore_glob = ["srdash/apps/jupyter/config/*"]

#: tests/child_processes.py's MARKER (that module is importable only once pytest has put tests/ on sys.path).
RUN_MARKER = "PYTEST_SRDASH_RUN"


def pytest_configure(config):
    if not os.environ.get("SRDASH_CACHE_DIR"):
        os.environ["SRDASH_CACHE_DIR"] = tempfile.mkdtemp(prefix="srdash-test-cache-")
    # set before xdist starts its workers, which inherit it
    os.environ.setdefault(RUN_MARKER, uuid.uuid4().hex)
    if hasattr(config, "workerinput"):
        _die_with_the_controller()
    else:  # the controller (or a run without xdist)
        config.pluginmanager.register(FailuresAsTheyHappen(config), "srdash-failures-as-they-happen")


def _die_with_the_controller() -> None:
    """An xdist worker ends when the pytest process that started it dies, even by SIGKILL (Linux).

    Its own end then reaches what its tests started (tests/child_processes.py). Without it, a worker of a
    killed run goes on with its test until that test ends, and its servers with it.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux
        pass


class FailuresAsTheyHappen:
    """Writes ``FAILED <node id> - <first line of the error>`` (``ERROR`` for a set-up or tear-down) as soon
    as a test fails; under xdist the controller receives every worker's reports through the same hook."""

    def __init__(self, config):
        self._config = config

    @pytest.hookimpl(trylast=True)  # after the terminal's own "F", so the line follows it
    def pytest_runtest_logreport(self, report):
        # looked up here: the terminal reporter registers itself after this file's pytest_configure runs
        terminal = self._config.pluginmanager.get_plugin("terminalreporter")
        if not report.failed or terminal is None:
            return
        line = f"{'FAILED' if report.when == 'call' else 'ERROR'} {report.nodeid}"
        if report.when != "call":
            line += f" (at {report.when})"
        crash = getattr(report.longrepr, "reprcrash", None)
        message = getattr(crash, "message", "") or (str(report.longrepr).strip().splitlines() or [""])[-1]
        if message:
            line += " - " + message.strip().splitlines()[0][:200]
        if terminal.verbosity <= 0:  # the terminal has just written its "F" or "E" on the current line
            terminal.write("\n")
        else:
            terminal.ensure_newline()
        # the next progress character starts a new line with its file's name, not after this one
        terminal.currentfspath = None
        terminal.write_line(line, red=True, bold=True)
        terminal.flush()  # also into a pipe (a CI log), which Python buffers
