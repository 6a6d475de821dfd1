"""Test-session settings for every test, doctest and notebook (pytest reads this file first).

The whole session uses its own srdash cache folder (``SRDASH_CACHE_DIR``), so a
run never depends on what an earlier run, or the user, left in the default
cache: the demo is written and seeded with its shipped prepared results once,
and notebooks run by nbval (in kernels that inherit the environment) use the
same folder.
"""

from __future__ import annotations

import os
import tempfile


# Voilà's configuration files (voila.py, run by Voilà with get_config) are not modules to import for doctests.
collect_ignore_glob = ["srdash/apps/jupyter/config/*"]


def pytest_configure(config):
    if not os.environ.get("SRDASH_CACHE_DIR"):
        os.environ["SRDASH_CACHE_DIR"] = tempfile.mkdtemp(prefix="srdash-test-cache-")

