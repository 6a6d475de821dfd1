#!/usr/bin/env bash
# Install everything the test suite needs (Python packages in .venv, Debian's
# chromium for the browser tests) and run the whole suite. Extra arguments go
# to pytest, e.g. `bash scripts/test.sh -k ranking`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing Debian's chromium for the browser tests..."
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
# pip runs only when pyproject.toml changed since the last install.
stamp=".venv/.srdash-test-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    # pip compiles what it installs one file at a time; compileall does it on every core (2 cores: 58 s of
    # install before, 32 s + the parallel compile after)
    .venv/bin/python -m pip install -q --no-compile -e '.[test]'
    # (not the packages' own test folders, nor pip's and setuptools' code, which the suite never imports: 28% of
    # the files, 6 of 28 CPU-s on 2 cores)
    .venv/bin/python -m compileall -q -j 0 -x '/tests?/|/site-packages/(pip|setuptools)/' \
        "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null || true
    touch "$stamp"
fi

# The suite starts hundreds of Python processes (command lines, servers, kernels, workers): srdash's
# modules are compiled once, here, and kept (bytecode in __pycache__, ignored by git), also on a
# machine that tells Python not to write any (PYTHONDONTWRITEBYTECODE, as container images often do),
# where every process would compile them again.
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -m compileall -q -j 0 srdash tests >/dev/null || true

# Two pytest workers per core (at most 4), each taking whole test files (a file's servers
# and browser stay in one worker): the suite is mostly one process's work waiting now and then on a
# server or a page, so two workers per core keep both cores busier (2 cores: 8 min 46 s of tests with four
# workers, 9 min 9 s with three). Files go out longest first, as conftest.py orders them (its measured
# SECONDS_OF_SLOW_FILES; the browser files on the demo server as one unit): xdist's default order (most tests
# first) sent the few-test, slow browser files last, and the run waited on them.
workers=$(( $(nproc 2>/dev/null || echo 1) * 2 ))
if [ "$workers" -gt 4 ]; then workers=4; fi
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
