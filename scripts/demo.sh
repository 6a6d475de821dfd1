#!/usr/bin/env bash
# Install srdash with the dashboard extras in .venv and open the dashboard on the
# built-in demo competition. Extra arguments go to `srdash serve`.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[app]'

exec .venv/bin/srdash serve "$@"
