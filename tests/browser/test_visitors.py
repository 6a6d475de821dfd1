"""Kernels waiting for visitors (issue 25): `srdash serve` keeps a pool of kernels that have already run the
dashboard, refills it after a visitor takes one, and shuts down a kernel whose visitor has left.

The pool is driven over HTTP (a visitor is a request for the page: Voilà hands it a waiting kernel then), with
the kernels counted as processes of the server. That a visitor's page in Chromium is served by a kernel of its
own, forked by the zygote, in one widget request, is checked on test_dashboard.py's page (no page load of its own).
"""

from __future__ import annotations

import time
import urllib.request

from voila_server import VoilaServer, is_kernel, process_tree


def _kernels(server: VoilaServer) -> list[int]:
    """Process ids of the kernels Voilà runs."""
    return sorted(pid for pid, command in process_tree(server.process.pid) if is_kernel(pid))


def _count(server: VoilaServer, n: int) -> list[int] | None:
    kernels = _kernels(server)
    return kernels if len(kernels) == n else None


def _until(condition, *, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s: {what}")


def test_the_pool_refills_after_a_visitor_and_a_left_kernel_is_culled(start_server):
    cull = 4  # seconds
    server = start_server(["serve", "--jobs", "1", "--visitors", "1", "--cull-idle", str(cull)], name="pool")
    waiting = _until(lambda: _kernels(server), timeout=60, what="a kernel waits for the first visitor")
    assert len(waiting) == 1
    # a kernel waiting in the pool is never culled, however long it waits
    time.sleep(cull + 2)
    assert _kernels(server) == waiting
    with urllib.request.urlopen(server.url, timeout=120) as response:   # a visitor takes the waiting kernel
        assert response.status == 200 and b"srdash" in response.read()
    # taken, it counts as active from now: not culled at the culler's next round (every second) although
    # it had been idle for longer than the timeout while it waited
    time.sleep(2)
    assert waiting[0] in _kernels(server)
    # its replacement starts (FILL_DELAY after the visit) and waits for the next visitor
    _until(lambda: set(_kernels(server)) - set(waiting), timeout=60,
           what="a second kernel starts to wait for the next visitor")
    # the visitor never connected (no page runs here): idle for the timeout, their kernel is shut down, and
    # the waiting one is kept
    left = _until(lambda: (k := _kernels(server)) and waiting[0] not in k and k, timeout=60,
                  what="the visitor's idle kernel is shut down")
    assert len(left) == 1
