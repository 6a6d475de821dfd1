"""Run a command and count the CPU time of every process it starts, orphans included.

``/usr/bin/time`` (and ``getrusage(RUSAGE_CHILDREN)``) counts a process's descendants only along a chain
of parents that each waited for their children. Chromium under Playwright breaks that chain: its processes
outlive the Playwright driver that started them and are reparented to init, so a page's rendering, its
scripts and plotly's drawing are counted nowhere (measured: a 5e8-step loop in a page added nothing to
``/usr/bin/time -f "%U %S" python -m pytest ...``). This script makes itself a child subreaper
(``PR_SET_CHILD_SUBREAPER``, Linux): every orphan of the command is reparented to it, and it waits for them
all before it ends, so its own children's CPU time is the whole tree's.

Usage (the last line of stderr is the tree's CPU time)::

    /usr/bin/time -f "%e s wall %U user %S sys" python benchmarks/tree_cpu.py python -m pytest FILE -n 0 -q
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36


def main(command: list[str]) -> int:
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("tree_cpu.py needs Linux (prctl PR_SET_CHILD_SUBREAPER).")
    code = subprocess.call(command)
    while True:  # the orphans: reparented here, they are counted once waited for
        try:
            os.wait()
        except ChildProcessError:
            break
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"tree CPU: {usage.ru_utime + usage.ru_stime:.2f} s ({usage.ru_utime:.2f} user, {usage.ru_stime:.2f} sys)",
          file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
