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

Under ``--dist loadfile`` (scripts/test.sh) the longest files go out first (:data:`SECONDS_OF_SLOW_FILES`), and
the browser files that use the session's demo server (:data:`ONE_DEMO_SERVER`) go to one worker, which starts
that server once instead of once per worker.
"""

from __future__ import annotations

import ctypes
import os
import signal
import tempfile
import uuid

import pytest

# Voilà's configuration files (voila.py, run by Voilà with get_config) are not modules to import for doctests.
collect_ignore_glob = ["srdash/apps/jupyter/config/*", "notebooks/conftest.py"]  # a conftest, not a module for --doctest-modules

#: Seconds one xdist worker spent on each file that takes more than ~15 s, in a run of scripts/test.sh (four
#: workers, two idle cores). Files go out longest first, so that none starts near the end and holds the run's
#: end alone; a file not listed goes out after these, in collection order. Stale numbers cost only order.
SECONDS_OF_SLOW_FILES = {
    "tests/browser/test_review_app.py": 167,
    "tests/browser/test_review_burst.py": 150,
    "tests/browser/test_review_seven.py": 102,
    "tests/browser/test_dashboard.py": 64,
    "tests/browser/test_dashboard_rules_page.py": 41,
    "tests/test_complexity.py": 61,
    "tests/test_certificate_claims.py": 59,
    "tests/test_deterministic_evaluation.py": 50,
    "tests/browser/test_doors.py": 38,
    "tests/test_costs.py": 43,
    "tests/browser/test_predictions_app.py": 42,
    "tests/test_cache_demo.py": 37,
    "tests/test_load_independence.py": 37,
    "tests/test_serve.py": 33,
    "tests/browser/test_srbench2025_pages.py": 30,
    "tests/test_publish_diff.py": 30,
    "tests/test_timelimit.py": 30,
    "tests/browser/test_review_pool.py": 30,
    "tests/test_distributed.py": 29,
    "tests/test_widgets.py": 29,
    "tests/test_demo_fingerprint.py": 28,
    "tests/browser/test_report_offline.py": 27,
    "tests/test_codabench_score.py": 24,
    "tests/test_demo.py": 23,
    "tests/browser/test_sensitivity_app.py": 22,
    "tests/browser/test_review_phone.py": 19,
}
#: The browser files that use the session-scoped ``dashboard_server`` (tests/browser/conftest.py): one scheduling
#: unit, so one worker runs them on one server (a `srdash serve` with its waiting kernel costs each worker that
#: starts one several CPU seconds of the two cores). A run without xdist shares the server the same way.
ONE_DEMO_SERVER = ("tests/browser/test_dashboard.py", "tests/browser/test_dashboard_rules_page.py")

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


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _unit_of(file: str) -> str:
    """The scheduling unit of a test file: the file, or the demo server's group."""
    return ONE_DEMO_SERVER[0] if file in ONE_DEMO_SERVER else file


def pytest_collection_modifyitems(items):
    """Items of longer units first (stable: a unit keeps its files' and tests' order); xdist's loadfile sends
    units out in this order (scripts/test.sh turns its own reordering off)."""
    units = [_unit_of(_file_of(item.nodeid)) for item in items]
    seconds = dict.fromkeys(units, 0)
    for file in {_file_of(item.nodeid) for item in items}:
        seconds[_unit_of(file)] += SECONDS_OF_SLOW_FILES.get(file, 0)
    first = {}
    for index, unit in enumerate(units):
        first.setdefault(unit, index)
    order = sorted(range(len(items)), key=lambda i: (-seconds[units[i]], first[units[i]], i))
    items[:] = [items[i] for i in order]


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, with the files of :data:`ONE_DEMO_SERVER` as one unit (before xdist's own hook)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class OneDemoServer(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit_of(super()._split_scope(nodeid))

    return OneDemoServer(config, log)


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
