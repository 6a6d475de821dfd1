"""Provenance of a verdict: which software, which rules and which inputs made it.

A leaderboard is only as trustworthy as the record of how it was made. The
provenance block is a flat mapping of text to text, built in one place
(:func:`provenance_block`) and written beside every output (a
``<output>.provenance.json`` sidecar, or ``#`` comment lines):

- ``srdash_version``, ``sympy_version``, ``python_version``, ``numpy_version``,
  ``pandas_version``: the software the verdict depends on. The sympy version
  matters most: the number of components of a simplified model, and therefore
  the simplicity criterion, can differ between sympy versions;
- ``rules``, ``rules_source`` and ``rules_sha256``: the rules' name, where they
  were read from and the SHA-256 of the rules as applied (the file's text plus
  any option changed since, see :attr:`srdash.judging.rules.Rules.sha256`);
- ``competition_sympy_version``: the sympy version the competition itself used,
  when the rules file states it;
- ``input_sha256:<path>``: the SHA-256 of every input file (every file of an
  input folder).

Changing one byte of an input, one value of the rules, or the sympy version
changes the block. :func:`sympy_version_warning` gives the warning srdash shows
when the running sympy differs from the competition's.

This module never imports sympy (only ``srdash.expressions`` does): versions are
read from the installed package metadata.

Examples
--------
>>> from srdash.judging.rules import load_rules
>>> block = provenance_block(load_rules("srbench2022"), sympy_version="1.10.1")
>>> block["sympy_version"], block["competition_sympy_version"], len(block["rules_sha256"])
('1.10.1', '1.10.1', 64)
>>> sympy_version_warning(load_rules("srbench2022"), sympy_version="1.10.1") is None
True
"""

from __future__ import annotations

import functools

import hashlib
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from srdash._version import __version__
from srdash.judging.rules import Rules

__all__ = [
    "versions",
    "hash_inputs",
    "hash_roles",
    "provenance_block",
    "sympy_version_warning",
    "block_sha256",
    "comment_lines",
    "write_sidecar",
]

_CHUNK = 1 << 20


def versions(*, sympy_version: str | None = None) -> dict[str, str]:
    """Versions that a verdict depends on.

    Parameters
    ----------
    sympy_version : str, optional
        Report this sympy version instead of the installed one (for tests, and
        to describe a verdict computed elsewhere).

    Returns
    -------
    dict
        ``srdash``, ``sympy``, ``numpy``, ``pandas``, ``python`` -> version text.
        A package that is not installed is reported as ``"not installed"``.

    Examples
    --------
    >>> sorted(versions())
    ['numpy', 'pandas', 'python', 'srdash', 'sympy']
    >>> versions(sympy_version="1.10.1")["sympy"]
    '1.10.1'
    """
    return {
        "srdash": __version__,
        "sympy": sympy_version if sympy_version is not None else _installed("sympy"),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "python": platform.python_version(),
    }


@functools.lru_cache(maxsize=None)  # the installed version does not change while running
def _installed(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def hash_inputs(sources: Iterable[str | Path]) -> dict[str, str]:
    """SHA-256 of every input file; a folder contributes every file under it.

    Parameters
    ----------
    sources : iterable of str or Path
        Input files or folders (e.g. :attr:`srdash.io.loading.Results.sources`).

    Returns
    -------
    dict
        ``"input_sha256:<path>"`` -> hex digest, files of a folder in sorted
        order. A source that is not an existing file or folder (an in-memory
        table described by a name such as ``"<DataFrame>"``) is recorded as
        ``"input:<name>"`` -> ``"not a file; not hashed"`` so that the block
        says an input was not fingerprinted rather than leaving it out.

    Examples
    --------
    >>> hash_inputs([])
    {}
    >>> hash_inputs(["<DataFrame>"])
    {'input:<DataFrame>': 'not a file; not hashed'}
    """
    hashes: dict[str, str] = {}
    for source in sources:
        files = _input_files(Path(source))
        if files is None:
            hashes[f"input:{source}"] = "not a file; not hashed"
            continue
        for file in files:
            hashes[f"input_sha256:{file}"] = _file_sha256(file)
    return hashes


def hash_roles(inputs: Iterable[tuple[str, str | Path]], *, root: str | Path) -> dict[str, str]:
    """SHA-256 of every input, named by its role and its path relative to ``root``.

    What the verdict fingerprint and every published output use: the same files
    in another folder, or on another machine, give the same entries.

    Parameters
    ----------
    inputs : iterable of (role, path)
        E.g. :attr:`srdash.judging.competition.Competition.inputs`.
    root : path, keyword-only
        The folder paths are named relative to (the competition file's folder).

    Returns
    -------
    dict
        ``"input_sha256:<role>:<relative path>"`` -> hex digest (every file of a
        folder, in sorted order, ``/`` separators); an input that is not a file
        or folder is ``"input:<role>:<relative path>"`` -> ``"not a file; not hashed"``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
    ...     for folder in (a, b):
    ...         _ = (Path(folder) / "results.csv").write_text("method,dataset\\nm,d\\n")
    ...     hash_roles([("results", Path(a) / "results.csv")], root=a) == hash_roles(
    ...         [("results", Path(b) / "results.csv")], root=b)
    True
    """
    import os

    root = Path(root).absolute()
    hashes: dict[str, str] = {}
    for role, source in inputs:
        path = Path(source).absolute()
        files = _input_files(path)
        if files is None:
            hashes[f"input:{role}:{Path(os.path.relpath(path, root)).as_posix()}"] = "not a file; not hashed"
            continue
        for file in files:
            hashes[f"input_sha256:{role}:{Path(os.path.relpath(file, root)).as_posix()}"] = _file_sha256(file)
    return hashes


def _input_files(path: Path) -> list[Path] | None:
    """The files an input stands for: itself, every file under a folder (sorted), or None (not a file)."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file())
    return [path] if path.is_file() else None


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def provenance_block(rules: Rules, sources: Iterable[str | Path] = (), *,
                     sympy_version: str | None = None) -> dict[str, str]:
    """The provenance block of a verdict.

    Parameters
    ----------
    rules : Rules
        The rules as applied (after any option override).
    sources : iterable of str or Path
        The input files or folders; see :func:`hash_inputs`.
    sympy_version : str, optional
        The sympy version to report (default: the installed one).

    Returns
    -------
    dict of str to str
        ``<package>_version`` for srdash, sympy, numpy, pandas and python;
        ``rules``, ``rules_source``, ``rules_sha256``; ``competition_sympy_version``
        when the rules state one; ``input_sha256:<path>`` per input file.

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> rules = load_rules("srbench2022")
    >>> a = provenance_block(rules, sympy_version="1.14.0")
    >>> b = provenance_block(rules.with_options(run_aggregation="mean"), sympy_version="1.14.0")
    >>> a["rules_sha256"] == b["rules_sha256"]
    False
    >>> sorted(k for k in a if k.endswith("_version"))
    ['competition_sympy_version', 'numpy_version', 'pandas_version', 'python_version', 'srdash_version', 'sympy_version']
    """
    block = {f"{name}_version": version for name, version in versions(sympy_version=sympy_version).items()}
    block["rules"] = rules.name
    block["rules_source"] = rules.source
    block["rules_sha256"] = rules.sha256
    if rules.competition_sympy_version:
        block["competition_sympy_version"] = str(rules.competition_sympy_version)
    block.update(hash_inputs(sources))
    return block


def sympy_version_warning(rules: Rules, *, sympy_version: str | None = None) -> str | None:
    """The warning due when the running sympy differs from the competition's.

    Parameters
    ----------
    rules : Rules
        Rules that may state ``competition_sympy_version``.
    sympy_version : str, optional
        The running sympy version (default: the installed one).

    Returns
    -------
    str or None
        A sentence naming both versions, or None when the rules state no
        version or it equals the running one.

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> print(sympy_version_warning(load_rules("srbench2022"), sympy_version="1.14.0"))
    These rules' competition used sympy 1.10.1; srdash is running sympy 1.14.0. Component counts, and therefore simplicity, can differ from the official ones.
    """
    running = sympy_version if sympy_version is not None else _installed("sympy")
    stated = rules.competition_sympy_version
    if not stated or str(stated) == running:
        return None
    return (f"These rules' competition used sympy {stated}; srdash is running sympy {running}. "
            "Component counts, and therefore simplicity, can differ from the official ones.")


def block_sha256(block: Mapping[str, str]) -> str:
    """One fingerprint of a whole provenance block (SHA-256 of its sorted JSON).

    Examples
    --------
    >>> block_sha256({"a": "1"}) == block_sha256({"a": "1"}), block_sha256({"a": "1"}) == block_sha256({"a": "2"})
    (True, False)
    """
    return hashlib.sha256(json.dumps(dict(block), sort_keys=True).encode()).hexdigest()


def comment_lines(block: Mapping[str, str], *, prefix: str = "# ") -> str:
    """The block as ``# key: value`` lines, for the head of a CSV or a text report.

    pandas reads such a CSV back with ``pd.read_csv(path, comment="#")``.

    Examples
    --------
    >>> print(comment_lines({"srdash_version": "0.1", "rules": "srbench2022"}), end="")
    # srdash provenance
    # srdash_version: 0.1
    # rules: srbench2022
    """
    lines = [f"{prefix}srdash provenance"] + [f"{prefix}{key}: {value}" for key, value in block.items()]
    return "\n".join(lines) + "\n"


def write_sidecar(output: str | Path, block: Mapping[str, str]) -> Path:
    """Write ``<output>.provenance.json`` beside an output file and return its path.

    Examples
    --------
    >>> import tempfile, json
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_sidecar(Path(folder) / "board.csv", {"rules": "srbench2022"})
    ...     path.name, json.loads(path.read_text())
    ('board.csv.provenance.json', {'rules': 'srbench2022'})
    """
    path = Path(f"{output}.provenance.json")
    path.write_text(json.dumps(dict(block), indent=2) + "\n", encoding="utf-8")
    return path
