"""srdash reads or writes no private name of another package, outside a short, reasoned list.

A private name (``_name``, not a dunder) of another package can change in any release without notice: srdash
uses documented extension points and public API instead (issue 33). The scan is of srdash/'s syntax trees:

- an attribute ``_name`` read or written on a name bound to another package's module or object (``import``,
  ``from ... import``, ``sys.modules.get("...")``, ``importlib.import_module("...")``, and names assigned from
  an expression rooted at one of those, e.g. ``policy = getattr(asyncio.events, ...)``);
- ``getattr``/``setattr``/``hasattr``/``delattr`` of such a name with a constant ``"_name"``;
- a private module of another package imported or looked up by name (``plotly.io._renderers``).

The allowed uses are tests/upstream_private.py's, each with its reason; tests/test_upstream_contract.py checks
that each still exists upstream.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from upstream_private import GUARDED_PRIVATE_NAMES  # tests/ is on sys.path (pytest prepends it)

ROOT = Path(__file__).resolve().parents[1]
#: Names with a leading underscore that their package documents as public API.
DOCUMENTED = {"os._exit": "documented: exit without cleanup (a forked child must not run its parent's)",
              "sys._getframe": "documented (CPython), unused today"}
_ACCESSORS = {"getattr", "setattr", "hasattr", "delattr"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _foreign(module: str) -> bool:
    return module.split(".")[0] != "srdash"


def _private_module(module: str) -> bool:
    return _foreign(module) and any(_private(part) for part in module.split("."))


def _dotted(node: ast.AST, bound: dict[str, str]) -> str | None:
    """``node`` as a dotted name rooted at a bound foreign name (getattr(x, "a") read as x.a), or None."""
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, bound)
        return None if base is None else f"{base}.{node.attr}"
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
        base = _dotted(node.args[0], bound)
        return None if base is None else f"{base}.{node.args[1].value}"
    return None


def _looked_up_module(node: ast.AST) -> str | None:
    """The module named by ``sys.modules.get("m")``, ``sys.modules["m"]`` or ``importlib.import_module("m")``."""
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        name = ast.unparse(node.func)
        if name in ("sys.modules.get", "importlib.import_module", "import_module"):
            return node.args[0].value if isinstance(node.args[0].value, str) else None
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "sys.modules":
        key = node.slice
        return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    return None


def private_uses(source: str, filename: str = "<string>") -> list[str]:
    """Every use of another package's private name in ``source``, as dotted names (see the module's description)."""
    tree = ast.parse(source, filename)
    bound: dict[str, str] = {}
    found: list[str] = []
    # bindings first, in source order (a name assigned from a bound expression is bound too)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _foreign(alias.name):
                    bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                        alias.name.split(".")[0]
                if _private_module(alias.name):
                    found.append(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _foreign(node.module):
            if _private_module(node.module):
                found.append(node.module)
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if _private(alias.name):
                    found.append(f"{node.module}.{alias.name}")
    for node in ast.walk(tree):
        looked_up = _looked_up_module(node)
        if looked_up is not None and _private_module(looked_up):
            found.append(looked_up)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            module = _looked_up_module(node.value)
            if module is not None and _foreign(module):
                bound[target] = module
            elif (dotted := _dotted(node.value, bound)) is not None:
                bound[target] = dotted
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = _dotted(node.value, bound)
            if base is not None:
                found.append(f"{base}.{node.attr}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _ACCESSORS
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and _private(node.args[1].value)):
            base = _dotted(node.args[0], bound)
            if base is not None:
                found.append(f"{base}.{node.args[1].value}")
    return sorted(set(found))


def _guarded(relative: str, use: str) -> bool:
    """Whether ``use`` in ``relative`` is a guarded use, or the way to one (``a._b`` on the way to ``a._b._c``)."""
    return any(file == relative and (name == use or name.startswith(use + "."))
               for file, name in GUARDED_PRIVATE_NAMES)


def test_srdash_uses_no_private_name_of_another_package_outside_the_guarded_list():
    unexpected = []
    for path in sorted((ROOT / "srdash").rglob("*.py")):
        relative = str(path.relative_to(ROOT))
        for use in private_uses(path.read_text(), relative):
            if use not in DOCUMENTED and not _guarded(relative, use):
                unexpected.append(f"{relative}: {use}")
    assert unexpected == []


def test_every_guarded_use_is_still_there_and_says_why():
    """The list stays short: an entry whose use has gone is removed with it."""
    stale = [key for key in GUARDED_PRIVATE_NAMES if key[1] not in private_uses((ROOT / key[0]).read_text())]
    assert stale == []
    assert all(len(reason) > 40 for reason in GUARDED_PRIVATE_NAMES.values())


@pytest.mark.parametrize("source, expected", [
    ("import ipywidgets as widgets\nwidgets.Widget._control_comm", ["ipywidgets.Widget._control_comm"]),
    ("import ipywidgets as widgets\ngetattr(widgets.Widget, '_control_comm', None)",
     ["ipywidgets.Widget._control_comm"]),
    ("from jupyter_server._tz import utcnow", ["jupyter_server._tz"]),
    ("import voila.app as v\nv.voila_kernel_manager_factory = f\nx = v._secret", ["voila.app._secret"]),
    ("import sys\nr = sys.modules.get('plotly.io._renderers')", ["plotly.io._renderers"]),
    ("import sys\nzmq = sys.modules.get('zmq')\ngetattr(getattr(zmq, 'Context', None), '_instance', None)",
     ["zmq.Context._instance"]),
    ("import asyncio\npolicy = getattr(asyncio.events, '_event_loop_policy', None)\npolicy._local",
     ["asyncio.events._event_loop_policy", "asyncio.events._event_loop_policy._local"]),
    ("import atexit\natexit._run_exitfuncs()", ["atexit._run_exitfuncs"]),
    ("import os\nos._exit(0)", ["os._exit"]),                          # found; DOCUMENTED allows it
    # srdash's own private names, its objects' and dunders are not another package's
    ("from srdash.apps import panels\npanels._page_is_loading()\nself._x = 1\nimport plotly\nplotly.__version__", []),
])
def test_the_scan_finds_private_names_however_they_are_reached(source, expected):
    assert private_uses(source) == expected


def test_the_scan_reads_the_whole_of_srdash():
    files = sorted((ROOT / "srdash").rglob("*.py"))
    assert len(files) > 50 and ROOT / "srdash" / "apps" / "gate.py" in files
    assert sys.version_info >= (3, 9)  # ast.unparse
