"""The demo competition's prepared results, shipped with srdash so that the demo opens at once.

Judging the demo (:func:`srdash.demo.competition.cached_demo`) simplifies about
300 distinct models, evaluates them on the datasets' files and checks 117 of
them for exact re-discovery: about a minute and a half of sympy work on two
cores. srdash computes those results itself, once, with
``python -m srdash.demo.prepared`` (run it after changing anything that
changes a result: the simplification, the evaluation, the equivalence check,
the demo's data, or the supported sympy version; on an idle machine: a loaded one turns
slow simplifications into timeouts, which every user would then inherit), and ships them as
``prepared.json.gz`` beside this module. :func:`seed_cache` copies them into
a user's cache (signed with that cache's own key) when the demo's files are
written, so a first visitor waits for none of that work. The demo's files
themselves (seed 0), as :func:`srdash.demo.competition.write_demo` writes them,
are in the same document (:func:`shipped_demo_files`): generating them takes
two seconds (scikit-learn's import and fits), writing them a few
milliseconds. ``tests/test_cache_demo.py`` checks that the generator still
writes exactly these bytes.

The rows are only reused for the very same questions: the cache keys cover the
model, the features, the data files' SHA-256, the settings and the sympy
version, so with another sympy version (or other demo files) the dashboard
simply computes the results as usual. ``tests/test_cache_demo.py`` recomputes a
sample and compares.
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from srdash import __version__
from srdash.cache import ResultCache
from srdash.demo.cached import cached_demo
# Reading the shipped document is shipped.py's (demo/cached.py imports it; this module regenerates the
# document from the cached demo): re-exported here as before.
from srdash.demo.shipped import DEMO_TIMEOUT, PREPARED_FILE, load_prepared, seed_cache, shipped_demo_files
from srdash.errors import SrdashError
from srdash.judging.competition import default_jobs, load_competition
from srdash.judging.pipeline import judge_competition
from srdash.judging.rules import list_presets, load_rules

__all__ = ["PREPARED_FILE", "load_prepared", "seed_cache", "shipped_demo_files", "regenerate"]


def regenerate(path: str | Path = PREPARED_FILE, *, jobs: int | None = None, work_dir: str | Path | None = None,
               stage=print) -> dict:
    """Judge the demo in a fresh, empty cache and write the cache's rows to ``path``.

    Everything the demo dashboard prepares is computed by srdash itself, through the one door
    (:func:`srdash.judging.pipeline.judge_competition` of the demo's competition file: the
    qualification stage, the simplification, the evaluation on the data files, the exact
    re-discovery check; then the same competition under every other preset of its Rules dropdown)
    with the default time limit, then exported.

    Parameters
    ----------
    path : path
        Where the document is written.
    jobs : int, optional
        Worker processes (default: :func:`srdash.judging.competition.default_jobs`).
    work_dir : path, optional
        Where the demo and its fresh cache are written meanwhile (a temporary folder).
    stage : callable
        Called with a line saying each step (default: print).

    Returns
    -------
    dict
        The written document (see :func:`load_prepared`).
    """
    with tempfile.TemporaryDirectory(dir=work_dir) as folder:
        paths = cached_demo(cache_dir=folder, seed_prepared=False)
        cache_file = Path(folder) / "complexity.sqlite"
        # What the demo dashboard and `srdash score` of the demo run (the competition file) ...
        competition = load_competition(paths["competition"])
        competition = replace(competition, simplification=replace(
            competition.simplification, timeout=DEMO_TIMEOUT, jobs=jobs or default_jobs(), cache=str(cache_file)))
        judge_competition(competition, stage=lambda text: stage(f"{text}..."))
        # ... under every other preset the dashboard's Rules dropdown offers, so that choosing one measures
        # nothing on the demo (srbench2023-track1's tree nodes and R² on the data, srbench2025's rounded
        # nodes); presets that cannot judge the demo (a trust column, a jury's scores) are left out.
        for name in list_presets():
            if name == competition.rules.name:
                continue
            try:
                judge_competition(replace(competition, rules=load_rules(name)),
                                  stage=lambda text, name=name: stage(f"{name}: {text}..."))
            except SrdashError as refused:
                stage(f"{name}: not for the demo ({str(refused).splitlines()[0][:80]})")
        with ResultCache(cache_file) as cache:
            rows = cache.export_rows()
            stage(f"Prepared {len(rows)} results.")
            timeouts = sum(row[2] == "timeout" for row in rows)
            if timeouts:  # the wall-clock kill of a loaded machine: every user would inherit them
                stage(f"Warning: {timeouts} result(s) timed out; the shipped rows would carry them. Regenerate on "
                         "an idle machine (the shipped rows so far had none).")
        # the trust store (binary, SQLite) is written by srdash when the demo is written, not shipped
        shipped = {name: file for name, file in paths.items() if name != "trust"}
        names = {name: file.name for name, file in shipped.items()}
        files = {file.name: file.read_bytes().decode("utf-8") for file in shipped.values()}
    document = {"srdash": __version__, "sympy": sys.modules["sympy"].__version__, "seed": 0,
                "timeout": DEMO_TIMEOUT, "rows": rows, "paths": names, "files": files}
    # mtime=0: the same results give the same bytes.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
        handle.write(json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    return document


if __name__ == "__main__":  # python -m srdash.demo.prepared [OUTPUT]
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else PREPARED_FILE
    written = regenerate(target)
    print(f"Wrote {len(written['rows'])} prepared results to {target} (sympy {written['sympy']}).")
