"""A pooled judge's kernel learns its visitor's query string (their key) from Voilà's own query socket without
importing Voilà (srdash.apps.visit.query_string): served here by Voilà's own handler, on a tornado server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading

import pytest
from tornado.web import Application

from srdash.apps.server import free_port
from srdash.apps.visit import query_string

RequestInfoSocketHandler = pytest.importorskip("voila.request_info_handler").RequestInfoSocketHandler


@pytest.fixture
def voila_query_socket():
    """Voilà's query socket (``/voila/query/<kernel>``, its RequestInfoSocketHandler) on a port of its own."""
    port = free_port()
    loop = asyncio.new_event_loop()
    started = threading.Event()

    def serve():
        asyncio.set_event_loop(loop)
        Application([(r"/voila/query/(\w+)", RequestInfoSocketHandler)]).listen(port, address="127.0.0.1")
        loop.call_soon(started.set)
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started.wait(60)
    yield port, loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(60)


def test_a_pooled_kernel_waits_for_its_visit_and_reads_the_key_voila_sends(voila_query_socket, monkeypatch):
    port, loop = voila_query_socket
    monkeypatch.delenv("QUERY_STRING", raising=False)
    monkeypatch.delenv("SCRIPT_NAME", raising=False)
    environ = {"VOILA_PREHEAT": "True", "VOILA_APP_IP": "127.0.0.1", "VOILA_APP_PORT": str(port),
               "VOILA_KERNEL_ID": "k1"}
    # the visitor arrives 0.3 s after the kernel started waiting: Voilà then sends the visit's request variables
    payload = json.dumps({"QUERY_STRING": "key=s3cret", "SCRIPT_NAME": "/"})
    loop.call_soon_threadsafe(loop.call_later, 0.3, RequestInfoSocketHandler.send_updates,
                              {"kernel_id": "k1", "payload": payload})
    assert query_string(environ) == "key=s3cret"
    assert os.environ["SCRIPT_NAME"] == "/"     # every variable of the visit, as Voilà's own wait sets them


def test_without_voilas_socket_the_kernel_has_no_key(monkeypatch):
    monkeypatch.delenv("QUERY_STRING", raising=False)
    # nothing listens on that port: no visit's variables, so no key (a review with keys then refuses the page)
    assert query_string({"VOILA_PREHEAT": "True", "VOILA_APP_PORT": str(free_port()), "VOILA_KERNEL_ID": "k2"}) == ""


def test_waiting_for_a_visit_imports_no_voila():
    code = ("import sys; from srdash.apps.visit import query_string; "
            "query_string({'VOILA_PREHEAT': 'True', 'VOILA_APP_PORT': '9', 'VOILA_KERNEL_ID': 'k'}); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('voila', 'jupyter_server', 'jsonschema')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
