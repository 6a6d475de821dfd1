"""The verdict's identity: the hashes of a competition's inputs and the verdict fingerprint.

Every hash of what decides a verdict is :func:`canonical_sha256` of a plain payload (one canonical
serialisation: JSON with sorted keys): the verdict fingerprint here, the settings' hash
(:meth:`srdash.judging.competition.Competition.fingerprint`).

:func:`verdict_fingerprint` hashes every track's leaderboard, the rules and settings as applied,
the content of every input named by its role and relative path (:func:`competition_input_hashes`)
and the srdash and sympy versions; never where the files lie, the cache, the workers or the time.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import pandas as pd

from srdash.errors import SrdashError
from srdash.judging import provenance
from srdash.judging.inputs import read_inputs

# The annotations name judging.competition's Competition and judging.prepared's CompetitionResult and
# PreparedCompetition without importing them, even for type checkers: judging.competition imports this
# module (canonical_sha256), and an import back would close a cycle.

__all__ = ["FINGERPRINTED_VERSIONS", "canonical_sha256", "verdict_fingerprint", "competition_input_hashes",
           "input_hashes", "entries_sha256", "file_input_hashes", "prepared_input_hashes", "fingerprinted",
           "leaderboard_rows", "entries_hash", "board_rows", "fingerprint_of_parts"]


def canonical_sha256(payload) -> str:
    """SHA-256 (hex) of ``payload`` in srdash's one canonical serialisation: JSON with sorted keys, default
    separators, non-ASCII escaped, and any value JSON cannot hold written as its ``str``.

    Examples
    --------
    >>> canonical_sha256({"b": 1, "a": [2, "x"]}) == canonical_sha256({"a": [2, "x"], "b": 1})
    True
    >>> canonical_sha256({}) == hashlib.sha256(b"{}").hexdigest()
    True
    """
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def input_hashes(sources: Sequence[str]) -> dict[str, str]:
    """SHA-256 of every input file (every file of an input folder), keyed ``input_sha256:<path>``.

    For loose files outside a competition; a competition's inputs are named by role and relative
    path (:func:`competition_input_hashes`). See :func:`srdash.judging.provenance.hash_inputs`.

    Examples
    --------
    >>> input_hashes([])
    {}
    """
    return provenance.hash_inputs(sources)


def competition_input_hashes(competition: "Competition", *, trust_entries: pd.DataFrame | None = None
                             ) -> dict[str, str]:
    """What the verdict depends on, by content: every input named by its role and its path relative to
    the competition's folder (:attr:`~srdash.judging.competition.Competition.root`), never by where it lies.

    - ``input_sha256:<role>:<path>``: the SHA-256 of each input file (every file of a folder), and of each
      data file the dataset descriptions name (role ``data``);
    - ``input_entries_sha256:realworld.store:<path>``: the trust store enters by the entries it holds (a
      store's bytes also change with keys issued and events logged, which do not change a verdict).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from srdash.judging.competition import competition_from_options
    >>> keys = []
    >>> for _ in range(2):
    ...     folder = pathlib.Path(tempfile.mkdtemp())
    ...     _ = (folder / "results.csv").write_text("method,dataset,r2_test,components\\na,d,0.5,3\\n")
    ...     keys.append(competition_input_hashes(competition_from_options(folder / "results.csv")))
    >>> keys[0] == keys[1], list(keys[0])
    (True, ['input_sha256:results:results.csv'])
    """
    hashes = file_input_hashes(competition)
    if competition.realworld is not None:
        hashes[f"input_entries_sha256:realworld.store:{competition.relative(competition.realworld.store)}"] = (
            entries_sha256(trust_entries))
    return hashes


def file_input_hashes(competition: "Competition", data_files: Sequence[str | Path] | None = None) -> dict[str, str]:
    """The ``input_sha256:<role>:<path>`` part of :func:`competition_input_hashes` (every input but the trust
    store). ``data_files``: the data files the descriptions name, when the caller has read them already
    (:attr:`srdash.judging.inputs.CompetitionInputs.data_files`); None: the descriptions are read here."""
    inputs = [(role, path) for role, path in competition.inputs if role != "realworld.store"]
    if data_files is None and competition.descriptions is not None:
        try:
            data_files = read_inputs(competition).data_files
        except SrdashError:  # reported where the descriptions are read; nothing more to hash here
            pass
    inputs += sorted({("data", Path(path)) for path in data_files or ()})
    return provenance.hash_roles(inputs, root=competition.root)


def prepared_input_hashes(prepared: "PreparedCompetition") -> dict[str, str]:
    """:func:`competition_input_hashes` of a prepared competition: its files as hashed when it was prepared
    (what it holds was read from them; reading the descriptions again would parse every ground truth), and
    its trust entries as they are now."""
    competition = prepared.competition
    if not prepared.input_hashes:
        return competition_input_hashes(competition, trust_entries=prepared.trust_entries)
    hashes = dict(prepared.input_hashes)
    if competition.realworld is not None:
        hashes[f"input_entries_sha256:realworld.store:{competition.relative(competition.realworld.store)}"] = (
            entries_sha256(prepared.trust_entries))
    return hashes


def entries_sha256(entries: pd.DataFrame | None) -> str:
    """SHA-256 of trust entries, in a canonical order (the order a store returns them in does not count).

    Examples
    --------
    >>> rows = pd.DataFrame({"judge": ["j", "j"], "dataset": "d", "method": ["a", "b"], "kind": "rank",
    ...                      "value": [1, 2]})
    >>> entries_sha256(rows) == entries_sha256(rows.iloc[::-1])
    True
    >>> entries_sha256(None) == hashlib.sha256(b"").hexdigest()
    True
    """
    columns = ["judge", "dataset", "method", "kind", "value"]
    if entries is None or entries.empty:
        text = ""
    else:
        frame = entries.reindex(columns=columns).astype(str).sort_values(columns)
        text = frame.to_csv(index=False, lineterminator="\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprinted(result: "CompetitionResult") -> "CompetitionResult":
    """The result with its verdict fingerprint, stamped into every track's provenance (with the settings' hash,
    the competition file's name and a rules file's path relative to the competition's folder)."""
    fingerprint = verdict_fingerprint(result)
    competition = result.competition
    stamp = {"verdict_fingerprint": fingerprint, "settings_sha256": competition.fingerprint()}
    if competition.source != "<options>":
        stamp["competition_file"] = Path(competition.source).name
    realworld = None if result.realworld is None else result.realworld.with_provenance(
        **_published_rules_source(result.realworld, competition), **stamp)
    return replace(result, verdict=result.verdict.with_provenance(
        **_published_rules_source(result.verdict, competition), **stamp), realworld=realworld,
                   fingerprint=fingerprint)


def _published_rules_source(verdict, competition) -> dict[str, str]:
    """A rules file is published under its path relative to the competition's folder, never absolute."""
    source = str(verdict.provenance.get("rules_source", ""))
    if source and not source.startswith("preset:") and Path(source).is_absolute():
        return {"rules_source": competition.relative(source)}
    return {}


def leaderboard_rows(verdict) -> list[tuple]:
    """A leaderboard as the fingerprint hashes it: (method or team, place, score to 9 decimals) per row."""
    return board_rows(verdict.leaderboard)


def board_rows(board: pd.DataFrame) -> list[tuple]:
    """:func:`leaderboard_rows` of a leaderboard table (e.g. a published folder's, read back)."""
    name = "method" if "method" in board.columns else "team"
    score = "score" if "score" in board.columns else "stage2"
    return [(str(m), int(p), f"{float(s):.9f}")
            for m, p, s in zip(board[name], board["place"], board[score])]


#: The versions that can change a verdict's numbers (component counts differ between sympy versions).
FINGERPRINTED_VERSIONS = ("srdash", "sympy")


def verdict_fingerprint(result: "CompetitionResult") -> str:
    """The verdict's identity: SHA-256 of what the verdict depends on, and nothing else.

    It hashes every track's final leaderboard (method, place, score to 9 decimals), the rules and
    settings as applied (:meth:`~srdash.judging.competition.Competition.fingerprint`), the content of
    every input by its role and its path relative to the competition's folder
    (:func:`competition_input_hashes`) and the srdash and sympy versions. It does not depend on where
    the files lie, on the cache, on the number of workers or on the time: the same files in any folder,
    on any machine, give the same fingerprint, and a change of any input byte, rule or version gives
    another. Every door (CLI, provenance, apps, report) shows this one value; the first 12 characters
    are what outputs show.
    """
    running = provenance.versions()
    return fingerprint_of_parts({name: verdict.leaderboard for name, verdict in result.tracks.items()},
                                settings_sha256=result.competition.fingerprint(), provenance=result.verdict.provenance,
                                versions={name: running[name] for name in FINGERPRINTED_VERSIONS})


def fingerprint_of_parts(tracks, *, settings_sha256: str, provenance, versions) -> str:
    """:func:`verdict_fingerprint` from its parts, for a verdict read back from files (``srdash diff`` checks a
    published folder with it): ``tracks`` maps a track to its leaderboard table, ``provenance`` holds the
    ``input*`` hashes, ``versions`` the :data:`FINGERPRINTED_VERSIONS`."""
    inputs = {k: v for k, v in provenance.items() if k.startswith("input")}
    payload = {"tracks": {name: board_rows(board) for name, board in tracks.items()},
               "competition": settings_sha256, "inputs": sorted(inputs.items()),
               "versions": {name: versions[name] for name in FINGERPRINTED_VERSIONS}}
    return canonical_sha256(payload)


def entries_hash(verdict) -> str:
    """SHA-256 of a trust review's own leaderboard (method, place, score to 9 decimals), its per-dataset table (the
    representatives' values and the judges' trust), the rules' hash and the srdash and sympy versions: any
    change of a rank, an entry, a rule or a version changes it. Not a verdict fingerprint (that is the
    competition's, :func:`verdict_fingerprint`); the review of loose results shows it
    (:mod:`srdash.apps.review.stamp`).

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.trust import realworld_verdict
    >>> runs = pd.DataFrame({"method": ["a", "a", "a", "b"], "dataset": "d", "run": [0, 1, 2, 0],
    ...                      "r2_test": [0.9, 0.7, 0.8, 0.8], "simplicity": -1.0})
    >>> entries = pd.DataFrame({"judge": "ann", "dataset": "d", "method": ["a", "b"], "kind": "rank",
    ...                         "value": [2.0, 1.0]})
    >>> first = entries_hash(realworld_verdict(runs, entries))
    >>> first == entries_hash(realworld_verdict(runs, entries)), len(first)
    (True, 64)
    >>> first == entries_hash(realworld_verdict(runs, entries.assign(value=[1.0, 2.0])))
    False
    """
    provenance = verdict.provenance
    payload = {"leaderboard": leaderboard_rows(verdict),
               "per_dataset": verdict.per_dataset.to_csv(index=False, float_format="%.9g"),
               "rules": str(provenance.get("rules_sha256", "")),
               "versions": {name: str(provenance.get(f"{name}_version", "")) for name in FINGERPRINTED_VERSIONS}}
    return canonical_sha256(payload)
