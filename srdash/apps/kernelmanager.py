"""srdash's kernel manager for Voilà: a kernel a visitor takes from the pool counts as active from then on.

Voilà's culler shuts down a kernel with no page connected whose last activity
is older than the idle timeout. A kernel that waited in Voilà's pool of
preheated kernels (never culled there) keeps the time it ran the notebook as
its last activity: once a visitor takes it, the culler's next round (before
the visitor's page has connected) would shut it down under them when it had
waited longer than the timeout.

:class:`PoolAwareKernelManager` is the class Voilà builds its kernel manager
on (``VoilaConfiguration.multi_kernel_manager_class``; Voilà's pool subclasses
it). It uses two public behaviours only: Voilà starts a pool's kernels with
``VOILA_PREHEAT=True`` in their environment, and Voilà's pool answers the
culler itself for a kernel still in the pool, so the culler reaches this class
about a pooled kernel only once a visitor has taken it. That first time, the
kernel's ``last_activity`` becomes now: it gets a whole idle timeout for its
page to connect. Kernels started for a visit are culled as jupyter_server
always does.

Voilà loads this module by name (``srdash.apps.gate.configure``); nothing else
imports it: it imports jupyter_server.
"""

from __future__ import annotations

from datetime import datetime, timezone

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

__all__ = ["PoolAwareKernelManager", "PREHEAT_VARIABLE"]

#: The environment variable Voilà sets to "True" for the kernels of its pool (``voila.utils.ENV_VARIABLE``).
PREHEAT_VARIABLE = "VOILA_PREHEAT"


class PoolAwareKernelManager(AsyncMappingKernelManager):
    """jupyter_server's kernel manager; a kernel started for Voilà's pool is active when a visitor takes it."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._pooled: set[str] = set()  # kernels started for the pool that the culler has not yet asked about

    async def start_kernel(self, **kwargs):
        """Start a kernel as jupyter_server does, remembering whether it is one of Voilà's pool."""
        env = kwargs.get("env") or {}
        kernel_id = await super().start_kernel(**kwargs)
        if env.get(PREHEAT_VARIABLE) == "True":
            self._pooled.add(kernel_id)
        return kernel_id

    async def cull_kernel_if_idle(self, kernel_id):
        """Cull ``kernel_id`` if idle; a pool's kernel asked about for the first time (just taken) is made active."""
        if kernel_id in self._pooled:
            self._pooled.discard(kernel_id)
            self.get_kernel(kernel_id).last_activity = datetime.now(timezone.utc)
            return None
        return await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_kernel(self, kernel_id, *args, **kwargs):
        """Shut ``kernel_id`` down as jupyter_server does (and forget it)."""
        self._pooled.discard(kernel_id)
        return await super().shutdown_kernel(kernel_id, *args, **kwargs)
