"""Load never decides (issue 37, item 6): every time limit that can change a verdict's input counts the work's
own CPU time, so a competition judged on an idle machine and with every core kept busy by other processes
has the same timeouts, the same problems and the same verdict fingerprint.

The busy machine is ``os.cpu_count() + 1`` busy-loop processes. Before, workers were killed on the wall
clock: the demo's equivalence timeouts went from 1 to 17 as the load rose.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
from busy_machine import busy_machine

from srdash.expressions import _timelimit
from srdash.io.datasets import write_property_datasets

# Measured on an idle machine (CPU seconds, sympy 1.14), with a time limit of 1 s per step:
# - Truth, Trig ((truth)*(sin(x1)**2 + cos(x1)**2)): simplified in 0.05 s, equivalent;
# - Scaled (3*(truth) + 2): 0.02-0.04 s, not equivalent (the sample points tell);
# - Near ((truth)*(sin(x1)**2 + cos(x1)**2) + tanh(x2)*cosh(x2)/sinh(x2) - 1): simplifying it takes 0.24-0.44 s
#   of CPU, for its complexity and for its equivalence: on a machine where the worker gets 2/5 of a core it
#   took 0.6-1.1 s of wall-clock time, over the old wall-clock limit;
# - Slow (on exact_hard only): its simplification runs for more than 8 s of CPU; a timeout at 1 s, both for
#   its complexity and for its equivalence.
TIMEOUT = 1.0
SLOW = "sin(x1 + x2 + x3)**5*cos(x1 - x2)**4*tan(x3 + x1) + sin(3*x1)*cos(2*x2)"


def _competition(folder: Path) -> Path:
    table = write_property_datasets(folder / "data", seed=1)
    rows = []
    for spec in table:
        if spec.property != "exact":
            continue
        truth = spec.truth
        models = {"Truth": truth, "Scaled": f"3*({truth}) + 2", "Trig": f"({truth})*(sin(x1)**2 + cos(x1)**2)",
                  "Near": f"({truth})*(sin(x1)**2 + cos(x1)**2) + tanh(x2)*cosh(x2)/sinh(x2) - 1"}
        if spec.name == "exact_hard":
            models["Slow"] = SLOW
        rows += [{"method": method, "dataset": spec.name, "model": model} for method, model in models.items()]
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    path = folder / "competition.toml"
    path.write_text('results = "results.csv"\nrules = "srbench2022"\ndescriptions = "data/datasets.yaml"\n'
                    f'[simplification]\ntimeout = {TIMEOUT}\njobs = 2\n')
    return path


def _judged(path: Path, cache: Path) -> dict:
    """What a verdict depends on, judged with a cold cache (``SRDASH_CACHE_DIR``: ``cache``, emptied first) and no
    spare workers of an earlier run."""
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import judge_competition

    shutil.rmtree(cache, ignore_errors=True)
    _timelimit.SPARES.expire(everything=True)
    result = judge_competition(load_competition(path))
    problems = result.problems
    runs = result.runs
    return {
        "fingerprint": result.fingerprint,
        "problems": sorted(map(tuple, problems[["kind", "method", "dataset", "detail"]].astype(str).values)),
        "timeouts": sorted((m, d) for k, m, d in zip(problems["kind"], problems["method"], problems["dataset"])
                           if k == "timeout"),
        "complexity": sorted(zip(runs["method"], runs["dataset"], runs["status"], runs["components"].astype(str))),
        "leaderboard": result.verdict.leaderboard[["method", "place"]].values.tolist(),
    }


def test_a_busy_machine_changes_no_timeout_no_problem_and_no_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))
    path = _competition(tmp_path)
    idle = _judged(path, tmp_path / "cache")
    with busy_machine() as loops:
        busy = _judged(path, tmp_path / "cache")
        assert all(loop.poll() is None for loop in loops)  # the load lasted the whole judging
    assert busy == idle
    # Slow timed out, for its complexity and its equivalence; Near did not
    assert ("Slow", "exact_hard", "timeout") in {c[:3] for c in idle["complexity"]}
    assert {m for m, _ in idle["timeouts"]} == {"Slow"}
    assert not any(c[0] == "Near" and c[2] == "timeout" for c in idle["complexity"])
