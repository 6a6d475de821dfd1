"""A published verdict: the folder `srdash publish` writes, and reading it back for `srdash diff`.

The folder is the verdict frozen: its leaderboards, per-dataset table, the per-run values it was
judged from, the rules file, its provenance, the report and a CITATION.cff; each data file's name
carries the verdict fingerprint's first 12 characters. ``published.json`` lists every file with its
SHA-256. Reading a folder back trusts none of it: every listed file must hash as listed, the
leaderboards with the provenance must give the fingerprint the folder names, and the runs judged
again under the stored rules must give the stored leaderboard (so an edited runs table, rules file
or leaderboard is refused, whoever rewrote ``published.json``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

import pandas as pd

from srdash.errors import SrdashError
from srdash.io.csvsafe import restore_text
from srdash.io.files import read_csv_file, read_file_bytes, read_file_text
from srdash.io.loading import load_results
from srdash.judging.fingerprint import fingerprint_of_parts
from srdash.judging.ranking import judge
from srdash.judging.rules import parse_rules

__all__ = ["MANIFEST", "PUBLISHED_FORMAT", "PublishedVerdict", "is_published_folder", "published_names",
           "read_published", "replay_columns"]

#: The file that makes a folder a published verdict: what it holds, with every file's SHA-256.
MANIFEST = "published.json"
#: Version of the folder's layout (``published.json``'s ``format``).
PUBLISHED_FORMAT = 1
# a published folder is srdash's own output, but may come from anyone: bounded like any input
_MAX_MANIFEST_BYTES = 1 * 2**20


def published_names(fingerprint: str, *, realworld: bool = False) -> dict[str, str]:
    """The names of a published folder's files, by role (the data files carry the fingerprint's first 12 characters).

    Examples
    --------
    >>> published_names("0123456789abcdef")["leaderboard"]
    'leaderboard-0123456789ab.csv'
    """
    short = fingerprint[:12]
    names = {"leaderboard": f"leaderboard-{short}.csv", "per_dataset": f"per-dataset-{short}.csv",
             "runs": f"runs-{short}.csv", "problems": f"problems-{short}.csv",
             "provenance": f"provenance-{short}.json", "rules": f"rules-{short}.toml",
             "report": f"report-{short}.html", "citation": "CITATION.cff"}
    if realworld:
        names["realworld_leaderboard"] = f"leaderboard-realworld-{short}.csv"
    return names


def replay_columns(runs: pd.DataFrame) -> list[str]:
    """The columns of the prepared runs a published folder keeps: what judging reads (method, dataset, run,
    status and every numeric column), not the model strings."""
    keep = [c for c in ("method", "dataset", "run", "status") if c in runs.columns]
    numeric = [c for c in runs.columns if c not in keep and pd.api.types.is_numeric_dtype(runs[c])
               and not pd.api.types.is_bool_dtype(runs[c])]
    return keep + sorted(numeric)


@dataclass(frozen=True, eq=False)
class PublishedVerdict:
    """A verdict read back from a published folder (checked: see :func:`read_published`).

    Attributes
    ----------
    folder : Path
    fingerprint : str
        The verdict fingerprint, recomputed from the folder's leaderboards and provenance.
    title : str
    leaderboard, per_dataset, runs : DataFrame
        The main track's leaderboard and per-dataset table, and the per-run values it was judged from.
    rules : Rules
        The rules as applied, parsed from the stored rules file.
    provenance : Mapping of str to str
    date : str
        The date the verdict is published under (from its inputs, ``YYYY-MM-DD``).
    """

    folder: Path
    fingerprint: str
    title: str
    leaderboard: pd.DataFrame
    per_dataset: pd.DataFrame
    runs: pd.DataFrame
    rules: object
    provenance: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    date: str = ""


def is_published_folder(path) -> bool:
    """True when ``path`` is a folder holding a ``published.json``."""
    path = Path(path)
    return path.is_dir() and (path / MANIFEST).is_file()


def _refuse(folder: Path, what: str) -> SrdashError:
    return SrdashError(f"The published folder '{folder}' is refused: {what}. Publish the verdict again with "
                       "`srdash publish` rather than editing its files.")


def _read_table(folder: Path, name: str, *, text_columns=("method", "dataset", "status", "kind", "detail")):
    header = read_csv_file(folder / name, root=folder, nrows=0).columns
    types = {c: str for c in text_columns if c in header}
    frame = read_csv_file(folder / name, root=folder, dtype=types, keep_default_na=False, na_values=[""])
    for column in types:
        frame[column] = frame[column].map(restore_text)
    return frame


def read_published(folder) -> PublishedVerdict:
    """Read a published verdict back, checking that it is the verdict it says it is.

    Parameters
    ----------
    folder : path-like
        A folder written by `srdash publish`.

    Returns
    -------
    PublishedVerdict

    Raises
    ------
    SrdashError
        When the folder holds no readable ``published.json``, a listed file is missing or does not hash as
        listed, the leaderboards do not give the fingerprint the folder names, or the runs judged again under
        the stored rules do not give the stored leaderboard.
    """
    folder = Path(folder)
    if not is_published_folder(folder):
        raise SrdashError(f"'{folder}' is not a published verdict: it holds no {MANIFEST} (write one with "
                          "`srdash publish COMPETITION -o FOLDER`).")
    try:
        manifest = json.loads(read_file_text(folder / MANIFEST, root=folder, max_bytes=_MAX_MANIFEST_BYTES))
    except (ValueError, OSError, SrdashError) as exc:
        raise _refuse(folder, f"its {MANIFEST} cannot be read ({type(exc).__name__})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != PUBLISHED_FORMAT:
        raise _refuse(folder, f"its {MANIFEST} is not of format {PUBLISHED_FORMAT}")
    claimed = str(manifest.get("fingerprint", ""))
    if not re.fullmatch(r"[0-9a-f]{64}", claimed):  # it names the files: never a path
        raise _refuse(folder, f"its {MANIFEST} names no verdict fingerprint (64 hexadecimal digits)")
    files = manifest.get("files")
    names = published_names(claimed, realworld="realworld_leaderboard" in (files or {}))
    if not isinstance(files, dict) or set(files) != set(names):
        raise _refuse(folder, f"its {MANIFEST} does not list the files a published verdict holds")
    for role, name in names.items():
        entry = files[role]
        if not isinstance(entry, dict) or entry.get("name") != name:
            raise _refuse(folder, f"its {MANIFEST} names another file for the {role.replace('_', ' ')}")
        try:
            data = read_file_bytes(folder / name, root=folder)
        except SrdashError as exc:
            raise _refuse(folder, f"{name} cannot be read ({exc})") from exc
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            raise _refuse(folder, f"{name} was changed after publishing (its SHA-256 is not the one listed)")
    try:
        provenance = json.loads(read_file_text(folder / names["provenance"], root=folder))
    except ValueError as exc:
        raise _refuse(folder, f"{names['provenance']} is not JSON") from exc
    if not isinstance(provenance, dict):
        raise _refuse(folder, f"{names['provenance']} is not a JSON object")
    rules = parse_rules(read_file_text(folder / names["rules"], root=folder), source=names["rules"],
                        default_name=str(provenance.get("rules", "rules")))
    if rules.sha256 != provenance.get("rules_sha256"):
        raise _refuse(folder, f"the rules file {names['rules']} is not the rules its provenance names")
    try:
        leaderboard = _read_table(folder, names["leaderboard"])
        tracks = {"main": leaderboard}
        if "realworld_leaderboard" in names:
            tracks["realworld"] = _read_table(folder, names["realworld_leaderboard"])
        per_dataset = _read_table(folder, names["per_dataset"])
    except (ValueError, pd.errors.ParserError) as exc:  # pandas' errors on a malformed table
        raise _refuse(folder, f"a table cannot be read ({type(exc).__name__})") from exc
    try:
        recomputed = fingerprint_of_parts(
            tracks, settings_sha256=str(provenance["settings_sha256"]), provenance=provenance,
            versions={"srdash": str(provenance["srdash_version"]), "sympy": str(provenance["sympy_version"])})
    except (KeyError, ValueError, TypeError) as exc:
        raise _refuse(folder, f"its leaderboard or provenance lacks what the fingerprint hashes ({exc})") from exc
    if recomputed != claimed:
        raise _refuse(folder, f"its leaderboard and provenance give the fingerprint {recomputed[:12]}, not the "
                              f"{claimed[:12]} it names (fingerprint mismatch)")
    # the runs are judged again: validated as any results file is (columns, types, duplicates; every problem)
    try:
        runs = load_results(folder / names["runs"]).table
    except SrdashError as exc:
        raise _refuse(folder, f"its runs ({names['runs']}) are not valid results: {str(exc).rstrip('.')}") from exc
    try:
        replayed = judge(runs, rules, methods=list(leaderboard["method"])).leaderboard
    except SrdashError as exc:
        raise _refuse(folder, f"its runs ({names['runs']}) cannot be judged under its rules ({exc})") from exc
    if not _same_places(replayed, leaderboard):
        raise _refuse(folder, f"its runs ({names['runs']}) judged again under its rules do not give its leaderboard")
    return PublishedVerdict(folder=folder, fingerprint=claimed, title=str(manifest.get("title", "")),
                            leaderboard=leaderboard, per_dataset=per_dataset,
                            runs=runs, rules=rules, provenance=MappingProxyType(dict(provenance)),
                            date=str(manifest.get("date", "")))


def _same_places(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Same methods, places and scores (to the 9 decimals the fingerprint hashes)."""
    def rows(board):
        return sorted((str(m), int(p), f"{float(s):.9f}") for m, p, s in zip(board["method"], board["place"],
                                                                              board["score"]))
    return rows(a) == rows(b)
