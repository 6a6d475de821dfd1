"""One competition, one fingerprint (issue 37, item 5): the demo's files, and so its verdict, are the same on
every machine and through every door.

The built-in demo (the dashboard, the notebook: ``cached_demo``, written from the files shipped in
``srdash/demo/prepared.json.gz``) and ``srdash demo -o DIR`` (the generator) must be the same files; the
generator's bytes must not depend on numpy's CPU dispatch or on OpenBLAS's kernels and threads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.demo.competition import cached_demo
from srdash.demo.prepared import shipped_demo_files
from srdash.judging.competition import load_competition
from srdash.judging.pipeline import judge_competition

REPO = Path(__file__).resolve().parent.parent

GENERATE = textwrap.dedent("""
    import json, sys
    import numpy as np
    from threadpoolctl import threadpool_info
    from srdash.cli import main

    main(["demo", "-o", sys.argv[1]], standalone_mode=False)  # `srdash demo -o DIR`: the generator's door
    features = np._core._multiarray_umath.__cpu_features__
    blas = [(i.get("architecture"), i.get("num_threads")) for i in threadpool_info() if i["user_api"] == "blas"]
    print(json.dumps({"groups": {g: bool(features.get(g)) for g in ("X86_V3", "X86_V4")}, "blas": blas}))
""")


#: group names (numpy 2.4): without X86_V4 (AVX512) numpy's float64 exp and log give other last bits, without X86_V3
#: (AVX2, FMA3) also tanh: a machine without AVX512 is the first case. Each run also changes OpenBLAS's kernels
#: (SSE instead of AVX2; SkylakeX's) and threads: two runs cover the five settings that changed the generator's
#: bytes before (about 15 s each).
ENVIRONMENTS = {
    "without-avx512-skylakex-1-thread": {"NPY_DISABLE_CPU_FEATURES": "X86_V4", "OPENBLAS_CORETYPE": "SkylakeX",
                                         "OPENBLAS_NUM_THREADS": "1"},
    "without-avx2-nehalem-2-threads": {"NPY_DISABLE_CPU_FEATURES": "X86_V3", "OPENBLAS_CORETYPE": "Nehalem",
                                       "OPENBLAS_NUM_THREADS": "2"},
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """``generated(name)``: the folder `srdash demo -o` wrote in a fresh interpreter under ENVIRONMENTS[name], and
    what that interpreter saw (CPU groups, BLAS); each written once for the module (the fingerprint test scores
    one of them instead of generating the demo a third time, 2.7 CPU-s)."""
    done_already = {}

    def generate(name: str):
        if name not in done_already:
            folder = tmp_path_factory.mktemp(name) / "demo"
            env = {k: v for k, v in os.environ.items() if not k.startswith(("NPY_", "OPENBLAS_", "OMP_", "SRDASH_"))}
            env.update({"PYTHONPATH": str(REPO), **ENVIRONMENTS[name]})
            done = subprocess.run([sys.executable, "-c", GENERATE, str(folder)], env=env, capture_output=True,
                                  text=True, timeout=600)
            assert done.returncode == 0, done.stderr[-3000:]
            done_already[name] = folder, json.loads(done.stdout.strip().splitlines()[-1])
        return done_already[name]

    return generate


@pytest.mark.parametrize("name", sorted(ENVIRONMENTS))
def test_the_generator_writes_the_shipped_bytes_under_other_cpu_dispatch_and_blas(generated, name):
    environment = ENVIRONMENTS[name]
    folder, seen = generated(name)
    # the setting took effect in the child (else the comparison proves nothing)
    if "NPY_DISABLE_CPU_FEATURES" in environment:
        assert seen["groups"][environment["NPY_DISABLE_CPU_FEATURES"]] is False
    if "OPENBLAS_CORETYPE" in environment:
        assert {arch for arch, _ in seen["blas"]} == {environment["OPENBLAS_CORETYPE"]}  # numpy's and scipy's
    if "OPENBLAS_NUM_THREADS" in environment:
        assert {threads for _, threads in seen["blas"]} == {int(environment["OPENBLAS_NUM_THREADS"])}
    names, files = shipped_demo_files()
    written = sorted(p.name for p in folder.iterdir() if p.name != "trust.sqlite")  # SQLite: not shipped
    assert written == sorted(names.values())
    for name in written:
        assert (folder / name).read_bytes() == files[name], f"{name} differs from the shipped copy"


def test_the_built_in_demo_and_a_written_demo_give_one_fingerprint(generated, tmp_path, monkeypatch):
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))
    # what the dashboard and the notebook judge: the demo written from the shipped files
    builtin = judge_competition(load_competition(cached_demo()["competition"]))
    # and what `srdash demo -o` wrote (in a fresh interpreter, on another CPU dispatch), scored by `srdash score`
    folder, _ = generated("without-avx2-nehalem-2-threads")
    scored = CliRunner().invoke(main, ["score", str(folder / "competition.toml")])
    assert scored.exit_code == 0, scored.output
    assert f"Verdict fingerprint: {builtin.fingerprint[:12]} " in scored.output
    assert f"full: {builtin.fingerprint})" in scored.output
