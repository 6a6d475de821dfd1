"""The review's door: every page request is checked for a valid personal key before Voilà sees it.

:class:`ReviewDoor` is the review server's identity provider
(``Voila.identity_provider_class``, jupyter_server's documented place to say
who a request comes from). jupyter_server asks it about every request in
``JupyterHandler.prepare``, before the handler's ``get``: a request for the
review's page (Voilà's page handler) whose key is missing, unknown or revoked
is refused there (403, :func:`srdash.apps.gate.refuse_unknown_visitors`), so
no kernel is started or taken from Voilà's pool of preheated kernels
for it. Voilà's ``prelaunch_hook`` was srdash's door before: Voilà calls it
only for a kernel it starts for the visit, never for a preheated one, and
refuses to start with both a hook and a pool.

The token (``--token``) is checked first, as jupyter_server's own provider
does; the key is checked only on the page itself (its static files, the kernel
websocket of a page already admitted and the API carry no key).

Voilà loads this module by name (``srdash.apps.gate.configure``); nothing else
imports it: it imports jupyter_server and Voilà.
"""

from __future__ import annotations

import inspect

from jupyter_server.auth.identity import PasswordIdentityProvider
from voila.handler import VoilaHandler

from srdash.apps.gate import refuse_unknown_visitors

__all__ = ["ReviewDoor"]


class ReviewDoor(PasswordIdentityProvider):
    """jupyter_server's password/token identity provider, refusing a review page request without a valid key."""

    async def get_user(self, handler):
        """The request's user (token or cookie, as jupyter_server's provider says); for the review's page,
        only once its ``key`` is valid.

        Raises
        ------
        tornado.web.HTTPError
            403 when access keys are issued and the page's ``key`` is missing, unknown or revoked.
        """
        user = super().get_user(handler)
        if inspect.isawaitable(user):
            user = await user
        if user is not None and isinstance(handler, VoilaHandler):
            # tornado's public setter: the refusal page reads the request's user (who holds the token)
            handler.current_user = user
            refuse_unknown_visitors(handler)
        return user
