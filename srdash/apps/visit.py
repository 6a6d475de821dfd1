"""What an app's kernel knows of the visit that opened its page: the page's query string.

A kernel Voilà starts for a visit has the visit's query string in its
environment (``QUERY_STRING``). A kernel of Voilà's pool of preheated kernels
started before anyone visited: it runs the notebook up to the first cell that
asks for the visit, and waits there (Voilà's public ``voila.utils.get_query_string``,
which Voilà answers once a visitor takes the kernel). A notebook whose page
depends on who opens it (the review: the visitor's key says who the judge is)
asks :func:`query_string` after its imports, so a preheated kernel has done
them before the visitor arrives.

Examples
--------
>>> query_string({"QUERY_STRING": "key=abc"})
'key=abc'
>>> query_string({})
''
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from typing import Mapping

__all__ = ["query_string", "visit_url"]

#: Seconds to connect to Voilà's query socket (Voilà's own wait allows 5).
CONNECT_TIMEOUT = 5.0


def query_string(environ: Mapping[str, str] | None = None) -> str:
    """The query string of the page this kernel serves ('' without one).

    In a kernel of Voilà's pool (``VOILA_PREHEAT=True`` in ``environ``, default
    ``os.environ``) this waits until a visitor takes the kernel; the visit's
    request variables are then in ``os.environ``. It waits as Voilà's public
    ``voila.utils.get_query_string`` does (one message on Voilà's query socket,
    :func:`visit_url`), without importing Voilà: ``import voila.utils`` costs a
    pooled kernel 1.4 s of CPU (jupyter_server, jsonschema and its grammar of
    URIs), the largest part of a judge's kernel (docs/scaling.md, 2026-11-27).
    A kernel started for a visit has its query already.
    """
    environ = os.environ if environ is None else environ
    if environ.get("VOILA_PREHEAT") == "True":
        found: dict = {}
        # the kernel's own loop is running in this thread: the wait has a loop of its own, in another thread
        waiting = threading.Thread(target=lambda: found.update(message=asyncio.run(_receive(visit_url(environ)))),
                                   name="srdash-visit", daemon=True)
        waiting.start()
        waiting.join()
        message = found.get("message")
        if isinstance(message, str):
            for name, value in json.loads(message).items():
                if isinstance(name, str) and isinstance(value, str):
                    os.environ[name] = value
        return os.environ.get("QUERY_STRING") or ""
    return environ.get("QUERY_STRING") or ""


def visit_url(environ: Mapping[str, str]) -> str:
    """The address of Voilà's query socket for this kernel (as Voilà's ``wait_for_request`` builds it).

    Examples
    --------
    >>> visit_url({"VOILA_APP_IP": "10.0.0.2", "VOILA_APP_PORT": "8870", "VOILA_KERNEL_ID": "k1"})
    'ws://10.0.0.2:8870/voila/query/k1'
    """
    protocol = environ.get("VOILA_WS_PROTOCOL", "ws")
    host, port = environ.get("VOILA_APP_IP", "127.0.0.1"), environ.get("VOILA_APP_PORT", "8866")
    base = environ.get("VOILA_WS_BASE_URL", environ.get("VOILA_SERVER_URL", "/"))
    return f"{protocol}://{host}:{port}{base}voila/query/{environ.get('VOILA_KERNEL_ID')}"


async def _receive(url: str) -> str | None:
    """The first message of the socket at ``url`` (None when it cannot be reached: no visit's variables)."""
    from tornado.websocket import websocket_connect

    from tornado.httpclient import HTTPClientError

    try:
        connection = await asyncio.wait_for(websocket_connect(url), CONNECT_TIMEOUT)
    except (OSError, asyncio.TimeoutError, HTTPClientError):
        return None   # no visit's variables: the page then has no key (refused once keys are issued)
    try:
        return await connection.read_message()
    finally:
        connection.close()
