"""Kernels waiting for visitors (issue 25): `srdash serve` keeps a pool of kernels that have already run the
dashboard, refills it after a visitor takes one, and shuts down a kernel whose visitor has left.

The pool is driven over HTTP (a visitor is a request for the page: Voilà hands it a waiting kernel then), with
the kernels counted as processes of the server; the kernels serve a page in Chromium.
"""

from __future__ import annotations

import re
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from voila_server import VoilaServer, child_processes  # tests/child_processes.py, put on sys.path by voila_server

# What Voilà runs as a kernel: ipykernel, started by jupyter_client or forked by srdash's zygote (whose command
# line child_processes.command_line completes with what the process is)


def _is_kernel(pid: int) -> bool:
    try:
        return "ipykernel" in child_processes.command_line(pid)
    except OSError:
        return False


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    return children


def _tree(pid: int) -> list[tuple[int, bytes]]:
    """``pid`` and its descendants, with their command lines."""
    children, found, todo = _children(), [], [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            found.append((current, Path(f"/proc/{current}/cmdline").read_bytes()))
        except OSError:
            pass
    return found


def _kernels(server: VoilaServer) -> list[int]:
    """Process ids of the kernels Voilà runs."""
    return sorted(pid for pid, command in _tree(server.process.pid) if _is_kernel(pid))


def _listening_on(fragment: str) -> set[int]:
    """Processes holding a Unix socket whose path contains ``fragment`` (a kernel's ipc sockets)."""
    inodes = {line.split()[6] for line in Path("/proc/net/unix").read_text().splitlines()[1:]
              if len(line.split()) > 7 and fragment in line.split()[7]}
    owners = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                links = {str(fd.readlink()) for fd in (entry / "fd").iterdir()}
            except OSError:
                continue
            if any(f"socket:[{inode}]" in links for inode in inodes):
                owners.add(int(entry.name))
    return owners


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


def test_a_visitors_page_is_served_by_a_kernel_of_its_own_in_one_widget_request(dashboard_server, browser):
    expect = pytest.importorskip("playwright.sync_api").expect
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        sent = []  # what the page sends its kernel
        page.on("websocket", lambda socket: socket.on("framesent", lambda payload: sent.append(payload)))
        page.goto(dashboard_server.url, timeout=120_000)
        expect(page.locator(".srdash-leaderboard .srdash-method", has_text="ExactSR")).to_be_visible(timeout=300_000)
        # the page fetched its widgets in one request: not one per widget (a kernel without ipywidgets' comm
        # targets made the dashboard's page send 144)
        requests = Counter(re.findall(r'"method":\s*"(request_states?)"',
                                      "".join(f if isinstance(f, str) else f.decode("utf-8", "replace") for f in sent)))
        assert requests == {"request_states": 1}, requests
        kernel_id = re.search(r'"kernelId": "([0-9a-f-]{36})"', page.content()).group(1)
        # the page's kernel (the process listening on its sockets) is ipykernel, forked by the zygote Voilà
        # started (srdash's kernel provisioner)
        owners = _listening_on(f"kernel-{kernel_id}-ipc")
        processes, children = dict(_tree(dashboard_server.process.pid)), _children()
        (voila,) = [pid for pid, command in processes.items() if b"srdash.apps.voila_main" in command]
        (zygote,) = [pid for pid in children.get(voila, []) if b"srdash.apps.zygote" in processes[pid]]
        assert owners and owners <= set(children.get(zygote, []))
        assert all(_is_kernel(pid) for pid in owners)
    finally:
        context.close()
