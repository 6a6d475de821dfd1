"""What srdash's Voilà server does before any kernel: its settings, its log and, for the review, the door.

Voilà reads these through srdash's own Voilà configuration files
(``apps/jupyter/config/{app,review}/voila.py``, named on the command line by
:func:`srdash.apps.server.voila_command`; no ``voila.py`` of the folder the
server starts in is read). Nothing here imports Voilà or ipywidgets; tornado
only inside the review's door.

- Tornado settings are real numbers (the ping timeout given on the command
  line reached jupyter_server as a string: a traceback on every ping).
- The access log and tornado's own messages never show a query string's
  values: a personal review key (``?key=...``) or a token in a mistyped link
  stays out of the terminal and of any log file.
- The review's door (:func:`refuse_unknown_visitors`, called by the review's
  identity provider :class:`srdash.apps.door.ReviewDoor` for every page
  request): once access keys are issued, a visitor whose key is missing,
  unknown or revoked is refused (403) before any kernel is started or taken
  from the pool for them (each kernel holds about 140 MB until culled).
- The kernel manager Voilà builds on (:mod:`srdash.apps.kernelmanager`): a
  kernel taken from the pool is not culled before its page connects.

Examples
--------
>>> redact_queries("404 GET /voila/x?key=s3cr3t&theme=dark (127.0.0.1) 2.00ms")
'404 GET /voila/x?key=[hidden]&theme=[hidden] (127.0.0.1) 2.00ms'
>>> redact_queries("GET /?token=abc") == "GET /?token=[hidden]"
True
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

__all__ = ["redact_queries", "RedactQueries", "PageLeftShutdown", "log_request", "tornado_settings",
           "refuse_unknown_visitors", "configure", "LOGGERS", "KERNEL_MANAGER", "REVIEW_DOOR", "PROVISIONER",
           "APP_PRELOAD", "REVIEW_PRELOAD"]

#: The kernel manager class Voilà builds on (``VoilaConfiguration.multi_kernel_manager_class``): a kernel taken
#: from the pool counts as active from then on (:mod:`srdash.apps.kernelmanager`).
KERNEL_MANAGER = "srdash.apps.kernelmanager.PoolAwareKernelManager"
#: The kernel provisioner jupyter_client starts srdash's kernels with, by its entry point's name
#: (:mod:`srdash.apps.provisioner`).
PROVISIONER = "srdash-fork"
#: What the zygote imports for the apps' notebooks, and for the review's.
APP_PRELOAD = ("srdash.apps.dashboard",)
REVIEW_PRELOAD = ("srdash.apps.review", "srdash.apps.visit")
#: The review's identity provider (``Voila.identity_provider_class``): a page request without a valid key is
#: refused before any kernel is started or taken for it (:mod:`srdash.apps.door`).
REVIEW_DOOR = "srdash.apps.door.ReviewDoor"

#: How long a page's kernel websocket may go without answering a ping: three of jupyter_server's 30-second
#: ping intervals, so that a page still loading keeps its connection
#: (docs/decisions/2026-11-served-page-timeouts.md).
WS_PING_TIMEOUT_MS = 90_000
#: How long Voilà waits, after a cell's reply, for the rest of its output (nbclient's default: 4 s); past it the
#: output is dropped, and on a busy server it comes late (docs/decisions/2026-11-served-page-timeouts.md).
IOPUB_TIMEOUT_S = 120
#: The level of Voilà's log, its handler's (``--Voila.log_level``, :func:`srdash.apps.server.voila_command`) and its
#: logger's (:func:`configure`).
LOG_LEVEL = "ERROR"
#: The loggers a request's URL can reach: tornado's access, application and general logs, Voilà's and the
#: server's own.
LOGGERS = ("tornado.access", "tornado.application", "tornado.general", "Voila", "VoilaApp", "ServerApp")

# a query parameter's value: after ?name= or &name=, up to the next &, space, quote or bracket
_QUERY_VALUE = re.compile(r"([?&][^=&\s\"'<>]{1,200}=)[^&\s\"'<>)]*")


def redact_queries(text: str) -> str:
    """``text`` with the value of every query parameter of every URL in it replaced by ``[hidden]``."""
    return _QUERY_VALUE.sub(r"\1[hidden]", str(text))


class RedactQueries(logging.Filter):
    """A logging filter that hides query values in a record's message (and its arguments) before any
    handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a badly formatted record stays as logging would show it
            return True
        redacted = redact_queries(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


def log_request(handler) -> None:
    """Tornado's ``log_function``: a failed request (status >= 400) as ``STATUS METHOD PATH?NAME=[hidden] (IP)
    TIME``; successful ones only at debug level. Query values are never written."""
    status = handler.get_status()
    request = handler.request
    logger = logging.getLogger("tornado.access")
    level = logging.DEBUG if status < 400 else logging.WARNING if status < 500 else logging.ERROR
    if logger.isEnabledFor(level):
        logger.log(level, "%d %s %s (%s) %.2fms", status, request.method, redact_queries(request.uri),
                   request.remote_ip, 1000.0 * request.request_time())


def tornado_settings() -> dict:
    """The tornado settings of srdash's Voilà server (numbers as numbers, the redacting access log)."""
    return {"ws_ping_timeout": WS_PING_TIMEOUT_MS, "log_function": log_request}


def _review_store_path(environ) -> Path:
    from srdash.judging.trust import default_store_path  # lazy: numpy

    try:
        options = json.loads(environ.get("SRDASH_REVIEW") or "{}")
    except ValueError:
        options = {}
    store = str(options.get("store") or "").strip() if isinstance(options, dict) else ""
    return Path(store) if store else default_store_path()


def refuse_unknown_visitors(handler, *, environ=None):
    """The review's door: refuse (403) a page request without a valid key (:class:`srdash.apps.door.ReviewDoor`).

    Without issued keys (or before the store exists) every visitor passes: the
    review then names its judge itself. The refusal page says what to do and
    never repeats the key.

    Returns
    -------
    None
        The request goes on to Voilà.

    Raises
    ------
    tornado.web.HTTPError
        403 when keys are issued and the request's ``key`` is missing, unknown or revoked.
    """
    from tornado.web import HTTPError

    from srdash.judging.trust import TrustStore, TrustStoreError  # lazy: numpy

    path = _review_store_path(os.environ if environ is None else environ)
    if not path.is_file():
        return None
    key = handler.get_query_argument("key", None)
    try:
        with TrustStore(path, read_only=True) as store:
            if not store.keys_issued:
                return None
            store.identify(key)
    except TrustStoreError as exc:
        # the reason is the page's title and message (an HTTP reason: printable ASCII on one line)
        reason = "".join(c if 32 <= ord(c) < 127 else "?" for c in str(exc))
        raise HTTPError(403, "%s", reason, reason=reason) from None
    return None


class PingUnits(logging.Filter):
    """Drops tornado's warning that the websocket ping timeout exceeds the ping interval.

    jupyter_server's kernel websocket gives tornado its ping interval and timeout in milliseconds where
    tornado expects seconds (so tornado's own ping would come every 30,000 s, that is never); the ping
    that keeps a page's connection alive is jupyter_server's, in milliseconds, whose timeout must be longer
    than its interval (``WS_PING_TIMEOUT_MS``). The warning would appear on every start and means nothing.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a badly formatted record stays
            return True
        return "websocket_ping_timeout" not in message or "cannot be longer" not in message


class ClosedTab(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" for a message sent to a tab that was closed.

    The kernel's messages to a page go on after its tab is closed; tornado's write to the
    closed websocket fails with WebSocketClosedError in a task nobody awaits, and asyncio
    printed a traceback in the server's terminal for each. Nothing is wrong: the visitor left.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        from tornado.iostream import StreamClosedError
        from tornado.websocket import WebSocketClosedError

        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, (WebSocketClosedError, StreamClosedError))


class PageLeftShutdown(logging.Filter):
    """Drops the 403 that Voilà's page earns when it asks, as its tab closes or reloads, to shut its kernel down.

    Voilà's page posts ``/voila/api/shutdown/KERNEL`` on unload without jupyter_server's ``_xsrf``
    token, so every judge's reload printed ``403 POST /voila/api/shutdown/... '_xsrf' argument missing``
    (tornado's general log) and a matching access-log line, which read as errors to an organiser. Nothing
    is wrong and nothing is to do: the kernel of a page that left is shut down by the idle culling
    (``srdash serve --cull-idle``). Every other failed request is still logged.

    Examples
    --------
    >>> import logging
    >>> record = logging.LogRecord("tornado.general", logging.WARNING, "", 0,
    ...     "403 POST /voila/api/shutdown/1a2b (127.0.0.1): '_xsrf' argument missing from POST", None, None)
    >>> PageLeftShutdown().filter(record)
    False
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a badly formatted record stays
            return True
        return not ("403 POST" in message and "/api/shutdown/" in message)


def configure(c, *, review: bool = False) -> None:
    """Apply srdash's settings to a Voilà configuration object ``c`` (what the ``voila.py`` files call)."""
    c.Voila.tornado_settings = tornado_settings()
    # traitlets sets an application's own logger to DEBUG and leaves the level to its handler: each debug call of
    # Voilà's, of nbclient's (which runs the notebook) and of the kernel manager's (about three for each message a
    # kernel sends) made a record that no handler wrote, 11,130 in ten judges' visits (docs/scaling.md). The
    # logger takes the handler's level (traitlets' documented logging_config, merged into its own).
    c.Voila.logging_config = {"loggers": {"Voila": {"level": LOG_LEVEL}}}
    c.VoilaExecutor.iopub_timeout = IOPUB_TIMEOUT_S
    # named, not imported: both import jupyter_server, which only Voilà's process needs
    c.VoilaConfiguration.multi_kernel_manager_class = KERNEL_MANAGER
    # kernels forked from a warm zygote that has imported what the app's notebook imports (srdash.apps.provisioner)
    c.KernelProvisionerFactory.default_provisioner_name = PROVISIONER
    c.ForkProvisioner.preload = list(REVIEW_PRELOAD if review else APP_PRELOAD)
    if review:
        c.Voila.identity_provider_class = REVIEW_DOOR
    redacting = RedactQueries()
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactQueries) for f in logger.filters):
            logger.addFilter(redacting)
    tornado_logger = logging.getLogger("tornado.general")
    if not any(isinstance(f, PingUnits) for f in tornado_logger.filters):
        tornado_logger.addFilter(PingUnits())
    for name in ("tornado.general", "tornado.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, PageLeftShutdown) for f in logger.filters):
            logger.addFilter(PageLeftShutdown())
    asyncio_logger = logging.getLogger("asyncio")
    if not any(isinstance(f, ClosedTab) for f in asyncio_logger.filters):
        asyncio_logger.addFilter(ClosedTab())
