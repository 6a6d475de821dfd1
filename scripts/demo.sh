#!/usr/bin/env bash
# Install srdash with the dashboard extras in .venv and open the dashboard on the
# built-in demo competition. Extra arguments go to `srdash serve` (for example a
# competition file: `bash scripts/demo.sh my/competition.toml`).
set -euo pipefail
cd "$(dirname "$0")/.."

[ -x .venv/bin/python ] || python3 -m venv .venv
# pip runs only when pyproject.toml changed since the last install (it takes ~20 s even with nothing to do).
stamp=".venv/.srdash-app-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[app]'
    touch "$stamp"
fi

exec .venv/bin/srdash serve "$@"
