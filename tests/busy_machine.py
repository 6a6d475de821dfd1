"""A machine with every core kept busy by other processes, for tests that a verdict does not depend on load."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys


@contextlib.contextmanager
def busy_machine():
    """``os.cpu_count() + 1`` busy-loop processes while the block runs, killed (and reaped) on leaving it.

    Yields the processes (``poll()`` is None while they run).
    """
    loops = []
    try:
        for _ in range((os.cpu_count() or 1) + 1):
            loops.append(subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL))
        yield loops
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()
