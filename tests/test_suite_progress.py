"""The suite names each failure as it happens (repo conftest.py), also under xdist, and in its summary (-ra).

A run of many minutes on a busy machine, or one killed before its end, must not keep its failures to itself:
each is written on its own line, ``FAILED <test> - <message>``, the moment the controller receives its report.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Seconds the waiting test of the tiny run waits for the go-ahead (generous: it only bounds a broken run).
WAIT_FOR_GO = 300

TINY = '''
import os, time
from pathlib import Path

def test_bad():
    assert 1 == 2, "one is not two"

def test_waits_until_the_failure_was_read():
    # runs on the other worker; ends only once the test reading the run's output has seen test_bad's line
    go = Path(os.environ["GO_FILE"])
    deadline = time.monotonic() + {wait}
    while not go.exists():
        assert time.monotonic() < deadline, "the FAILED line of test_bad was not written while the run went on"
        time.sleep(0.05)
'''


@pytest.mark.skipif(shutil.which("true") is None, reason="needs a POSIX system")
def test_a_failure_is_named_while_the_run_goes_on_under_xdist(tmp_path):
    (tmp_path / "test_tiny.py").write_text(TINY.format(wait=WAIT_FOR_GO))
    shutil.copy(REPO / "conftest.py", tmp_path / "conftest.py")  # the suite's own, as it is
    go = tmp_path / "go"
    env = {**os.environ, "GO_FILE": str(go)}
    env.pop("PYTHONUNBUFFERED", None)  # output into a pipe, as in a CI log: Python buffers it unless flushed
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-ra",
                            "--basetemp", str(tmp_path / "basetemp"), "test_tiny.py"],
                           cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    before_go = []
    try:
        for line in run.stdout:
            before_go.append(line.rstrip("\n"))
            if line.startswith("FAILED test_tiny.py::test_bad"):
                go.touch()  # the other test may end now: the run was still going when this line came
                break
        rest = run.stdout.read()
    finally:
        go.touch()
        run.wait()
    output = "\n".join(before_go) + "\n" + rest
    assert before_go[-1] == "FAILED test_tiny.py::test_bad - AssertionError: one is not two", output
    assert "short test summary info" not in "\n".join(before_go), output
    # the summary at the end names it too (-ra), and the waiting test passed: the line came before the end
    assert "FAILED test_tiny.py::test_bad - AssertionError: one is not two" in rest.split("short test summary")[1]
    assert "1 failed, 1 passed" in rest
    assert run.returncode == 1


def test_an_error_in_a_fixture_is_named_with_its_phase(tmp_path):
    (tmp_path / "test_tiny.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef broken():\n    raise RuntimeError('fixture broke')\n\n"
        "def test_uses_it(broken):\n    pass\n\ndef test_fine():\n    pass\n")
    shutil.copy(REPO / "conftest.py", tmp_path / "conftest.py")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-q",
                           "--basetemp", str(tmp_path / "basetemp"), "test_tiny.py"],
                          cwd=tmp_path, capture_output=True, text=True)
    lines = done.stdout.splitlines()
    named = "ERROR test_tiny.py::test_uses_it (at setup) - RuntimeError: fixture broke"
    assert named in lines, done.stdout
    assert lines.index(named) < next(i for i, line in enumerate(lines) if "ERRORS" in line), done.stdout
    assert done.returncode == 1
