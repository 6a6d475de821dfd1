"""Voilà's command line as srdash runs it: ``python -m srdash.apps.voila_main ARGS`` is ``python -m voila ARGS``
without one import that costs half of Voilà's start, and without the current folder on ``sys.path``.

- jupyter_server validates its event schemas with jsonschema, whose format checker imports ``rfc3987_syntax``
  when it is installed (jupyter_events asks for it) to check strings of the "iri" format. That import builds
  38 lark parsers: 1.5 s of CPU at every start of a server (measured with ``python -X importtime -c "import
  jupyter_server.serverapp"``: 1.53 of 2.02 s), before Voilà answers anyone. Neither jupyter_server's events
  nor srdash's pages have an "iri" to check. Marked missing here (``sys.modules`` holds ``None`` for it),
  its import raises ImportError, which jsonschema expects: it then checks the other formats as before.
- ``python -m`` puts the current folder first on ``sys.path``: a ``voila.py`` or ``jupyter_server`` folder
  where srdash was started would be imported instead of Voilà's own. It is removed before Voilà is imported.

Examples
--------
>>> import subprocess, sys
>>> command = [sys.executable, "-c", "import sys, srdash.apps.voila_main as m; m.skip_slow_imports(); "
...            "import jsonschema; print('rfc3987_syntax' in sys.modules and sys.modules['rfc3987_syntax'])"]
>>> subprocess.run(command, capture_output=True, text=True, check=True).stdout
'None\\n'
"""

from __future__ import annotations

import os
import runpy
import sys

#: Modules marked missing before Voilà starts (see the module's description).
SKIPPED = ("rfc3987_syntax",)


def skip_slow_imports() -> None:
    """Mark :data:`SKIPPED` missing (unless already imported): importing them raises ImportError."""
    for name in SKIPPED:
        sys.modules.setdefault(name, None)


def main() -> None:
    skip_slow_imports()
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]
    sys.argv[0] = "voila"
    runpy.run_module("voila", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
