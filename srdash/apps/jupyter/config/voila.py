"""srdash's Voilà configuration, found on JUPYTER_CONFIG_PATH (srdash.apps.server.template_environment).

Settings the command line cannot give, and a quiet terminal when a visitor closes a tab.
"""

import logging

# jupyter_server asks tornado for a pong timeout longer than its ping interval, which tornado refuses with a
# warning on every start: the interval itself (30 s), as a number (on the command line,
# "ws_ping_timeout=30000" arrived as the string "30000": a TypeError traceback on every ping).
c.Voila.tornado_settings = {"ws_ping_timeout": 30000}  # noqa: F821 (c: the config traitlets hands this file)


class _ClosedTab(logging.Filter):
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


logging.getLogger("asyncio").addFilter(_ClosedTab())
