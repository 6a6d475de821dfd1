"""Size and time of the HTML report of the real SRBench black-box results.

``srdash report ../shared/realdata/srbench_results/blackbox_results.csv`` (21 methods x 122
datasets, components given): the page's size, how much of it is plotly.js and each figure's
data, and the wall time of a cold run (fresh process, empty cache) and a warm one (same
command again). Targets (issue 13): at most 6 MB, at most 5 s warm. No assertions.

Usage: python benchmarks/report_size.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BLACKBOX = REPO / ".." / "shared" / "realdata" / "srbench_results" / "blackbox_results.csv"


def main() -> None:
    if not BLACKBOX.exists():
        print(f"{BLACKBOX} is absent: nothing to measure.")
        return
    from plotly.offline import get_plotlyjs

    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, PYTHONPATH=str(REPO), SRDASH_CACHE_DIR=str(Path(folder) / "cache"))
        output = Path(folder) / "report.html"
        times = []
        for label in ("cold", "warm"):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "srdash", "report", str(BLACKBOX.resolve()), "-o", str(output)],
                           env=env, check=True, capture_output=True)
            times.append((label, time.perf_counter() - start))
        page = output.read_text(encoding="utf-8")
    size = len(page.encode("utf-8"))
    plotlyjs = len(get_plotlyjs().encode("utf-8"))
    print(f"report: {size / 1e6:.2f} MB, of which plotly.js {plotlyjs / 1e6:.2f} MB "
          f"(embedded {page.count('plotly.js v')} time(s))")
    for number, (start, end) in enumerate(_figures(page), start=1):
        print(f"  figure {number}: {(end - start) / 1e3:.0f} kB")
    for label, seconds in times:
        print(f"{label:5s} run (process start to file written): {seconds:.2f} s")


def _figures(page: str):
    """(start, end) offsets of each figure's Plotly.newPlot(...) call."""
    starts = [match.start() for match in re.finditer(r"Plotly\.newPlot\(", page)]
    ends = starts[1:] + [page.rfind("</script>")]
    return list(zip(starts, ends))


if __name__ == "__main__":
    main()
