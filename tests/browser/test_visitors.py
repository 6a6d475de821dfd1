"""Kernels waiting for visitors (issue 25): `srdash serve` keeps a pool of kernels that have already run the
dashboard, refills it after a visitor takes one, and shuts down a kernel whose visitor has left.

Driven over HTTP (a visitor is a request for the page: Voilà hands it a waiting kernel then), with the
kernels counted as processes of the server.
"""

from __future__ import annotations

import time
import urllib.request
from pathlib import Path

from tests.browser.voila_server import VoilaServer


def _kernels(server: VoilaServer) -> list[int]:
    """Process ids of the kernels Voilà runs (its ipykernel children)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [server.process.pid]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            if b"ipykernel_launcher" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            pass
    return sorted(found)


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
    server = start_server(["serve", "--jobs", "1", "--visitors", "1", "--cull-idle", "3"], name="pool")
    waiting = _until(lambda: _kernels(server), timeout=60, what="a kernel waits for the first visitor")
    assert len(waiting) == 1
    with urllib.request.urlopen(server.url, timeout=120) as response:   # a visitor takes the waiting kernel
        assert response.status == 200 and b"srdash" in response.read()
    # its replacement starts (after FILL_DELAY): the visitor's kernel and a new waiting one
    both = _until(lambda: _count(server, 2), timeout=60,
                  what="a second kernel starts to wait for the next visitor")
    assert waiting[0] in both
    # the visitor never connected (no page runs here): idle for 3 s, their kernel is shut down; the waiting
    # kernel is never culled
    left = _until(lambda: _count(server, 1), timeout=60,
                  what="the visitor's idle kernel is shut down")
    assert left[0] != waiting[0] and left[0] in both
