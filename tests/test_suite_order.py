"""The order the suite's files go out to xdist's workers (the repo's conftest.py): the longest units first, the
browser files on the session's demo server as one unit, every test kept and each file's tests in their order."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def repo_conftest():
    # loaded under its own name: pytest holds the repo's and tests/browser's conftest.py, both named "conftest"
    spec = importlib.util.spec_from_file_location("srdash_repo_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ordered(conftest, nodeids: list[str]) -> list[str]:
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in nodeids]
    conftest.pytest_collection_modifyitems(items)
    return [item.nodeid for item in items]


def test_longest_units_first_and_the_demo_servers_files_together(repo_conftest, monkeypatch):
    monkeypatch.setattr(repo_conftest, "SECONDS_OF_SLOW_FILES", {
        "tests/browser/test_dashboard.py": 50, "tests/browser/test_dashboard_rules_page.py": 20,   # one unit: 70
        "tests/test_b.py": 60, "tests/test_c.py": 80})
    collected = ["tests/browser/test_dashboard.py::one", "tests/browser/test_dashboard.py::two",
                 "tests/browser/test_doors.py::one", "tests/browser/test_dashboard_rules_page.py::one", "tests/test_a.py::one",
                 "tests/test_b.py::one", "tests/test_c.py::one", "tests/test_c.py::two", "srdash/x.py::srdash.x.f"]
    assert _ordered(repo_conftest, collected) == [
        "tests/test_c.py::one", "tests/test_c.py::two",                                          # 80 s
        "tests/browser/test_dashboard.py::one", "tests/browser/test_dashboard.py::two",          # 50 + 20 s
        "tests/browser/test_dashboard_rules_page.py::one",
        "tests/test_b.py::one",                                                                  # 60 s
        # not listed: collection order
        "tests/browser/test_doors.py::one", "tests/test_a.py::one", "srdash/x.py::srdash.x.f"]


def test_the_demo_servers_files_are_one_scheduling_unit(repo_conftest):
    units = {repo_conftest._unit_of(file) for file in repo_conftest.ONE_DEMO_SERVER}
    assert units == {"tests/browser/test_dashboard.py"}
    assert repo_conftest._unit_of("tests/browser/test_doors.py") == "tests/browser/test_doors.py"
    # each file of the unit uses the session's demo server, and no other browser file does
    users = {str(path.relative_to(ROOT)) for path in (ROOT / "tests" / "browser").glob("test_*.py")
             if "dashboard_url" in path.read_text() or "dashboard_server" in path.read_text()}
    assert users == set(repo_conftest.ONE_DEMO_SERVER), (
        f"conftest.py's ONE_DEMO_SERVER should list exactly the files using the demo server: {sorted(users)}")


def test_every_listed_file_exists(repo_conftest):
    assert [file for file in repo_conftest.SECONDS_OF_SLOW_FILES if not (ROOT / file).is_file()] == []


def test_other_ways_to_distribute_are_left_to_xdist(repo_conftest):
    config = SimpleNamespace(getvalue=lambda name: {"dist": "load"}[name])
    assert repo_conftest.pytest_xdist_make_scheduler(config, log=None) is None
