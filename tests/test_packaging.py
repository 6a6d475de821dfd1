"""The project's set-up promises: environment.yml mirrors pyproject.toml, the README
gives exactly two set-up commands, CI runs the README's test command, sympy is pinned."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _pip_requirements() -> dict[str, str]:
    """name -> version spec of every dependency and of the app/dask/test extras."""
    project = _pyproject()["project"]
    specs = list(project["dependencies"])
    for extra, items in project["optional-dependencies"].items():
        specs += [s for s in items if not s.startswith("srdash")]
    out = {}
    for spec in specs:
        name, version = re.match(r"([A-Za-z0-9_.\-]+)(.*)", spec).groups()
        out[name.lower()] = version.strip()
    return out


def _conda_requirements() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    out = {}
    for item in env["dependencies"]:
        if isinstance(item, str):
            name, version = re.match(r"([A-Za-z0-9_.\-]+)(.*)", item).groups()
            out[name.lower()] = version.strip()
    return out


#: PyPI name -> conda-forge name, where they differ.
CONDA_NAMES = {"kaleido": "python-kaleido"}


def test_environment_yml_mirrors_pyproject():
    pip, conda = _pip_requirements(), _conda_requirements()
    missing = sorted(CONDA_NAMES.get(name, name) for name in set(pip) if CONDA_NAMES.get(name, name) not in conda)
    assert not missing, f"in pyproject.toml but not in environment.yml: {missing}"
    for name, spec in pip.items():
        # pip's `==1.2` is conda's `=1.2`; ranges are written the same way
        assert conda[CONDA_NAMES.get(name, name)] == spec.replace("==", "="), (name, spec)
    assert conda["python-kaleido"] == pip["kaleido"]  # the images extra, under its conda-forge name


def test_sympy_is_pinned_exactly():
    assert "sympy==1.14.0" in _pyproject()["project"]["dependencies"]


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]
    assert commands == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()


# --------------------------------------------------------------------------- pins: every import, a tested window

def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_top_level_modules() -> dict[str, list[str]]:
    """Third-party top-level module -> the srdash files importing it (``import``/``from`` statements)."""
    import ast
    import sys

    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "srdash").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "srdash" and top not in sys.stdlib_module_names:
                    found.setdefault(top, []).append(str(path.relative_to(ROOT)))
    return found


def _has_both_bounds(spec: str) -> bool:
    """``==X`` alone, or at least a ``>=`` and a ``<`` clause."""
    from packaging.specifiers import SpecifierSet

    operators = {clause.operator for clause in SpecifierSet(spec)}
    return operators == {"=="} or {">=", "<"} <= operators


def _declared() -> dict[str, str]:
    """Normalised distribution name -> its version spec, for the dependencies and every extra."""
    return {_normalise(name): spec for name, spec in _pip_requirements().items()}


def test_every_imported_package_is_declared_with_a_tested_window():
    """Each third-party module srdash imports belongs to a distribution declared in pyproject.toml with a lower
    and an upper bound (or pinned exactly): an upgrade beyond the tested window is never installed silently."""
    from importlib.metadata import packages_distributions

    owners = packages_distributions()
    declared = _declared()
    imported = _imported_top_level_modules()
    assert {"tornado", "traitlets", "jupyter_server", "voila", "ipywidgets"} <= set(imported)
    problems = []
    for module, files in sorted(imported.items()):
        distributions = owners.get(module)
        if not distributions:
            problems.append(f"{module} (imported by {files[0]}) is not installed: no distribution provides it")
            continue
        names = [_normalise(d) for d in distributions]
        spec = next((declared[n] for n in names if n in declared), None)
        if spec is None:
            problems.append(f"{module} (imported by {files[0]}) comes from {distributions[0]}, which pyproject.toml "
                            "does not declare")
    assert problems == []


def test_every_declared_dependency_has_a_lower_and_an_upper_bound_that_hold_the_installed_version():
    """``>=tested,<next`` (or ``==``) for each requirement, and the environment the tests run in is inside it."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.specifiers import SpecifierSet

    unbounded, outside = [], []
    for name, spec in _declared().items():
        if not _has_both_bounds(spec):
            unbounded.append(f"{name}{spec}")
        try:
            installed = version(name)
        except PackageNotFoundError:
            continue  # an extra this environment does not hold
        if installed not in SpecifierSet(spec):
            outside.append(f"{name} {installed} not in {spec}")
    assert unbounded == []
    assert outside == []


@pytest.mark.parametrize("spec, bounded", [(">=0.5.13,<0.6", True), ("==1.14.0", True), (">=0.5", False),
                                           ("<0.6", False), ("", False), ("~=0.5", False)])
def test_a_requirement_needs_a_lower_and_an_upper_bound(spec, bounded):
    assert _has_both_bounds(spec) is bounded
