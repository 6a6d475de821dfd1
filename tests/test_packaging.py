"""The project's set-up promises: environment.yml mirrors pyproject.toml, the README
gives exactly two set-up commands, CI runs the README's test command, sympy is pinned."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

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


def test_environment_yml_mirrors_pyproject():
    pip, conda = _pip_requirements(), _conda_requirements()
    missing = sorted(set(pip) - set(conda))
    assert not missing, f"in pyproject.toml but not in environment.yml: {missing}"
    for name, spec in pip.items():
        # pip's `==1.2` is conda's `=1.2`; ranges are written the same way
        assert conda[name] == spec.replace("==", "="), (name, spec, conda[name])


def test_sympy_is_pinned_exactly():
    assert "sympy==1.14.0" in _pyproject()["project"]["dependencies"]


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]
    assert commands == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()
