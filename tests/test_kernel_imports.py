"""A visitor's kernel carries only what the page needs (issue 25).

A dashboard kernel whose competition is prepared reads the stored preparation: it must not import sympy
(about 0.8 s and 40 MB per kernel), scikit-learn, scipy.stats or dask. Checked in a fresh interpreter
that runs what the dashboard notebook runs (``Dashboard.from_environment()``: the page is built before it
returns when the competition's preparation is stored), then lists ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from srdash.demo.competition import cached_demo
from srdash.judging.competition import load_competition
from srdash.judging.pipeline import prepare_competition

_KERNEL = """
import json, sys
from srdash.apps import Dashboard
app = Dashboard.from_environment()
print(json.dumps({"leaderboard": None if app.verdict is None else list(app.verdict.leaderboard["method"]),
                  "modules": sorted(sys.modules)}))
"""


def test_a_prepared_dashboard_kernel_imports_no_sympy_sklearn_scipy_stats_or_dask():
    competition = load_competition(cached_demo()["competition"])
    expected = list(prepare_competition(competition).runs["method"].unique())  # stored for every visitor
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("SRDASH_COMPETITION", None)  # the demo, as `srdash serve` without INPUT
    done = subprocess.run([sys.executable, "-c", _KERNEL], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["leaderboard"] is not None and sorted(seen["leaderboard"]) == sorted(expected)  # the page is built
    modules = set(seen["modules"])
    for heavy in ("sympy", "sklearn", "scipy.stats", "dask", "distributed"):
        assert heavy not in modules, f"a prepared dashboard kernel imported {heavy}"
