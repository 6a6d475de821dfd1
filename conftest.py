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


def pytest_configure(config):
    if not os.environ.get("SRDASH_CACHE_DIR"):
        os.environ["SRDASH_CACHE_DIR"] = tempfile.mkdtemp(prefix="srdash-test-cache-")


# srdash's Voilà configuration file (srdash/apps/jupyter/config/voila.py) is read by traitlets inside the Voilà
# process, where a config object `c` is given to it: it is not a module to import (and its name would
# shadow the voila package).
collect_ignore_glob = ["srdash/apps/jupyter/*"]
