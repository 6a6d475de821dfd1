"""Hostile numbers (issue 32): rules files, competition files and options setting a count, a precision or a
weight to NaN, an infinity, a huge or a negative value.

Used by ``tests/test_hostile_values.py`` and ``benchmarks/hostile_values.py``; nothing large is written.
``ISSUE_VALUES`` are the issue's own examples, each with the key a refusal must name.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

#: A tiny competition: three methods, two datasets, two runs; accuracy and simplicity differ everywhere.
RESULTS = """method,dataset,run,r2_test,simplicity
a,d1,0,0.91,-2.0
a,d1,1,0.93,-2.0
b,d1,0,0.80,-1.0
b,d1,1,0.82,-1.0
c,d1,0,0.50,-3.0
c,d1,1,0.55,-3.0
a,d2,0,0.71,-2.0
a,d2,1,0.73,-2.0
b,d2,0,0.85,-1.5
b,d2,1,0.86,-1.5
c,d2,0,0.40,-4.0
c,d2,1,0.45,-4.0
"""


def toml_value(value) -> str:
    """``value`` written as TOML (``nan``, ``inf``, ``true``, a quoted string, a list)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def rules_text(key: str | None = None, value=None) -> str:
    """A two-criterion rules file (accuracy, simplicity) with the dotted ``key`` of
    :data:`srdash.judging.limits.RULES_LIMITS` set to ``value`` (None: no key set)."""
    accuracy = {"name": "accuracy", "column": "r2_test", "direction": "higher", "domain": [-math.inf, 1.0]}
    simplicity = {"name": "simplicity", "column": "simplicity", "direction": "higher"}
    ranking: dict = {}
    filters = ""
    section, _, name = (key or "").partition(".")
    if key is None:
        pass
    elif section == "criteria":
        if name == "domain":
            value = [value, 1.0]
        accuracy[name] = value
    elif section == "ranking":
        ranking[name] = value
        if name == "tie_tolerance":
            ranking["ties"] = "tolerance"
    elif key == "filters.min_relative.ratio":
        filters = f'[filters]\nmin_relative = {{ column = "r2_test", ratio = {toml_value(value)} }}\n'
    else:
        raise KeyError(key)
    lines = ['name = "hostile"']
    if ranking:
        lines.append("[ranking]")
        lines += [f"{k} = {toml_value(v)}" for k, v in ranking.items()]
    text = "\n".join(lines) + "\n" + filters
    for criterion in (accuracy, simplicity):
        text += "[[criteria]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in criterion.items())
    return text


def competition_folder(root: Path, *, rules: str = "srbench2022-as-run", simplification: dict | None = None,
                       rules_file: str | None = None) -> Path:
    """A competition folder in ``root``: ``results.csv``, optionally ``rules.toml`` (``rules_file``: its
    text) and ``competition.toml`` with the ``[simplification]`` values given. Returns the competition file."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "results.csv").write_text(RESULTS)
    if rules_file is not None:
        (root / "rules.toml").write_text(rules_file)
        rules = "rules.toml"
    text = f'title = "hostile"\nresults = "results.csv"\nrules = "{rules}"\n'
    if simplification:
        text += "[simplification]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in simplification.items())
    path = root / "competition.toml"
    path.write_text(text)
    return path


#: The issue's examples: (what, where the value goes, value, the key a refusal must name).
ISSUE_VALUES = [
    ("runs_per_dataset = 20000000", "rules", ("ranking.runs_per_dataset", 20_000_000), "runs_per_dataset"),
    ("runs_per_dataset = 1000000000", "rules", ("ranking.runs_per_dataset", 1_000_000_000), "runs_per_dataset"),
    ("runs_per_dataset = 2**70", "rules", ("ranking.runs_per_dataset", 2**70), "runs_per_dataset"),
    ("weight = nan", "rules", ("criteria.weight", math.nan), "weight"),
    ("weight = inf", "rules", ("criteria.weight", math.inf), "weight"),
    ("tie_tolerance = 1e300", "rules", ("ranking.tie_tolerance", 1e300), "tie_tolerance"),
    ("decimals = 1000000000000", "rules", ("criteria.decimals", 10**12), "decimals"),
    ("decimals = 1e12", "rules", ("criteria.decimals", 1e12), "decimals"),
    ("decimals = 400", "rules", ("criteria.decimals", 400), "decimals"),
    ("domain = [10**400, 1]", "rules", ("criteria.domain", 10**400), "domain"),
    ("ratio = nan", "rules", ("filters.min_relative.ratio", math.nan), "ratio"),
    ("simplification.timeout = 10**400", "competition", ("timeout", 10**400), "simplification.timeout"),
    ("simplification.jobs = 10**9", "competition", ("jobs", 10**9), "simplification.jobs"),
    ("robustness -B 1000000000", "option", ("robustness", ["-B", "1000000000"]), "--bootstrap"),
    ("sensitivity --samples 1000000000", "option", ("sensitivity", ["--samples", "1000000000"]), "--samples"),
    ("robustness --alpha nan", "option", ("robustness", ["--alpha", "nan"]), "--alpha"),
]


def write_case(root: Path, where: str, spec) -> list[str]:
    """Write the inputs of one :data:`ISSUE_VALUES` case into ``root``; return the ``srdash`` arguments."""
    if where == "rules":
        competition = competition_folder(root, rules_file=rules_text(*spec))
        return ["score", str(competition)]
    if where == "competition":
        key, value = spec
        competition = competition_folder(root, simplification={key: value})
        return ["score", str(competition)]
    command, options = spec
    competition = competition_folder(root)
    return [command, str(competition), *options]


#: Runs srdash's command line and, at its exit, writes the process's own peak RSS (VmHWM, kB) to a file. Not
#: ``ru_maxrss``: Linux keeps across exec the peak of the memory a child was forked (or vforked) with, so a
#: child of a 480 MB test worker reported 480 MB whatever srdash itself used.
_MEASURED = (
    "import atexit, os, sys\n"
    "def _peak():\n"
    "    with open('/proc/self/status') as status:\n"
    "        kb = [line.split()[1] for line in status if line.startswith('VmHWM:')]\n"
    "    with open(os.environ['SRDASH_PEAK_FILE'], 'w') as out:\n"
    "        out.write(kb[0] if kb else '')\n"
    "atexit.register(_peak)\n"
    "sys.argv = ['srdash', *sys.argv[1:]]\n"
    "from srdash.cli import main\n"
    "main()\n"
)


def run_srdash(arguments: list[str], *, cwd: Path, timeout: float = 300) -> tuple[int, str, float, float]:
    """Run ``srdash ARGUMENTS`` in a child process: (exit code, stderr, seconds, the child's own peak RSS in
    MB, as the child reads it from /proc at its exit; where there is no /proc, from ``os.wait4``).
    Killed after ``timeout`` s."""
    peak_file = cwd / ".peak_kb"
    env = {**os.environ, "SRDASH_CACHE_DIR": str(cwd / "cache"), "SRDASH_PEAK_FILE": str(peak_file)}
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", _MEASURED, *arguments], cwd=cwd, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(timeout, child.kill)
    timer.start()
    try:
        stderr = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        timer.cancel()
        child.stderr.close()
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    seconds = time.perf_counter() - started
    try:
        peak_mb = int(peak_file.read_text()) / 1024
        peak_file.unlink()
    except (OSError, ValueError):
        peak_mb = usage.ru_maxrss / 1024
    return child.returncode, stderr, seconds, peak_mb
