"""Seconds to open each view of the dashboard on the SRBench black-box results (21 methods x 122 datasets).

Each visitor is a fresh process that does what a served page's kernel does, without a browser: it builds the
dashboard from ``SRDASH_COMPETITION`` (``Dashboard.from_environment``, as ``notebooks/dashboard.ipynb``), waits
until it is ready, then opens each view of "More views" in turn the way its accordion tab does (setting the
accordion's ``selected_index``), and prints the wall and CPU seconds of each opening (until the view's widgets
are built; a view that computes in the background is waited for), and the size of the view's widget state
(what the page then receives and draws). Visitors:

- cold, in order: an empty ``SRDASH_CACHE_DIR`` (the first visitor of a freshly served competition) opening
  every view in the accordion's order (a view pays for the imports no earlier view needed);
- warm, in order: a second visitor, a fresh process on the same cache, opening every view in that order;
- cold, first / warm, first: one fresh process per view that opens only that view (its imports included), on
  an empty cache of its own / on the cache the visitors above filled.

The rules are srbench2022 with its property criterion optional (the black-box datasets test no property;
srbench2022 itself refuses them), as ``tests/test_realdata_blackbox.py`` judges them. Timings on a shared
machine are noisy: the load average is printed. No assertions.

Usage: python benchmarks/views.py [--results PATH] [--in-order-only]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BLACKBOX = REPO.parent / "shared" / "realdata" / "srbench_results" / "blackbox_results.csv"
_MARK = "VIEW-TIMING "


def _visitor(opened: list[int] | None) -> None:
    """One visitor's kernel: build the dashboard, open the views (every one, or those of ``opened`` by position),
    print one JSON line per step."""
    started = time.perf_counter(), time.process_time()

    def report(step: str, since: tuple[float, float], view=None) -> tuple[float, float]:
        now = time.perf_counter(), time.process_time()
        print(_MARK + json.dumps({"step": step, "wall": now[0] - since[0], "cpu": now[1] - since[1],
                                  "bytes": None if view is None else _state_bytes(view)}), flush=True)
        return now

    from srdash.apps.dashboard import Dashboard

    app = Dashboard.from_environment(served=False)   # no browser: the page is built at once, as in a notebook
    if not app.wait(600) or app.verdict is None:
        raise SystemExit(f"The dashboard did not become ready: {app.log_panel.text()}")
    since = report("dashboard ready (imports, preparation, first verdict)", started)
    for index, title in enumerate(app.more.titles):
        if opened is not None and index not in opened:
            continue
        app.more.selected_index = index
        view = app.view(index)
        if hasattr(view, "wait"):
            view.wait(600)
        since = report(title, since, view)
    errors = app.log_panel.text()
    if errors:
        print(_MARK + json.dumps({"step": "log", "text": errors}), flush=True)


def _state_bytes(root) -> int:
    """Bytes of the JSON state of every widget under ``root``: what the page receives to draw the view."""
    total, stack = 0, [root]
    while stack:
        widget = stack.pop()
        total += len(json.dumps(widget.get_state(), default=str))
        stack.extend(getattr(widget, "children", ()))
    return total


def _blackbox_competition(results: Path, folder: Path) -> str:
    from srdash.judging.competition import competition_from_options
    from srdash.judging.rules import load_rules

    rules = folder / "srbench2022-blackbox.toml"
    rules.write_text(load_rules("srbench2022").text.replace('column = "property"\n',
                                                            'column = "property"\noptional = true\n'))
    return competition_from_options(results, rules=rules).to_json()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=BLACKBOX)
    parser.add_argument("--in-order-only", action="store_true",
                        help="only the two visitors who open every view in order (no process per view)")
    parser.add_argument("--visitor", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--open", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.visitor:
        _visitor([int(i) for i in args.open.split(",")] if args.open else None)
        return
    if not args.results.exists():
        print(f"{args.results} is absent (see ../shared/realdata/README.md): nothing to measure.")
        return
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    columns = ["cold, in order", "warm, in order"] + ([] if args.in_order_only else ["cold, first", "warm, first"])
    table: dict[str, dict[str, tuple[float, float]]] = {}
    sizes: dict[str, int] = {}   # the view's widget state, in bytes
    with tempfile.TemporaryDirectory() as folder:
        competition = _blackbox_competition(args.results.resolve(), Path(folder))

        def visit(label: str, cache: str, opened: str = "") -> None:
            env = dict(os.environ, PYTHONPATH=str(REPO), SRDASH_CACHE_DIR=str(Path(folder) / cache),
                       SRDASH_COMPETITION=competition)
            done = subprocess.run([sys.executable, __file__, "--visitor", "--open", opened], env=env,
                                  capture_output=True, text=True, cwd=folder)
            if done.returncode:
                raise SystemExit(f"The visitor '{label}' failed:\n{done.stdout}\n{done.stderr}")
            for line in done.stdout.splitlines():
                if line.startswith(_MARK):
                    row = json.loads(line[len(_MARK):])
                    if row["step"] == "log":
                        print(f"{label} visitor's log:\n{row['text']}")
                    elif not opened or not row["step"].startswith("dashboard"):
                        table.setdefault(row["step"], {})[label] = (row["wall"], row["cpu"])
                        if row["bytes"] is not None:
                            sizes[row["step"]] = row["bytes"]

        visit("cold, in order", "shared")
        visit("warm, in order", "shared")
        if not args.in_order_only:
            titles = [step for step in table if not step.startswith("dashboard")]
            for index in range(len(titles)):
                visit("cold, first", f"alone{index}", str(index))
                visit("warm, first", "shared", str(index))
    print(f"load average {os.getloadavg()[0]:.1f} at the end\n")
    width = max(len(step) for step in table)
    print(f"{'seconds (CPU seconds)':{width}s}  " + "  ".join(f"{label:>16s}" for label in columns) + "  state kB")
    for step, times in table.items():
        print(f"{step:{width}s}  " + "  ".join(
            f"{times[label][0]:6.2f} ({times[label][1]:6.2f})" if label in times else f"{'':16s}"
            for label in columns) + (f"  {sizes[step] / 1e3:8.0f}" if step in sizes else ""))


if __name__ == "__main__":
    main()
