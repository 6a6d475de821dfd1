"""The verdict's identity: the hashes of a competition's inputs and the verdict fingerprint.

:func:`verdict_fingerprint` hashes every track's leaderboard, the rules and settings as applied,
the content of every input named by its role and relative path (:func:`competition_input_hashes`)
and the srdash and sympy versions; never where the files lie, the cache, the workers or the time.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import pandas as pd

from srdash.errors import SrdashError
from srdash.judging import provenance
from srdash.judging.prepared import CompetitionResult, PreparedCompetition

if TYPE_CHECKING:
    from srdash.judging.competition import Competition

__all__ = ["FINGERPRINTED_VERSIONS", "verdict_fingerprint", "fingerprint_of_parts", "competition_input_hashes",
           "input_hashes"]


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
    hashes = _file_input_hashes(competition)
    if competition.realworld is not None:
        hashes[f"input_entries_sha256:realworld.store:{competition.relative(competition.realworld.store)}"] = (
            _entries_sha256(trust_entries))
    return hashes


def _file_input_hashes(competition: "Competition", data_files: Sequence[str | Path] | None = None) -> dict[str, str]:
    """The ``input_sha256:<role>:<path>`` part of :func:`competition_input_hashes` (every input but the trust
    store). ``data_files``: the data files the descriptions name, when the caller has read them already."""
    inputs = [(role, path) for role, path in competition.inputs if role != "realworld.store"]
    if data_files is None and competition.descriptions is not None:
        try:
            from srdash.io.datasets import load_dataset_table

            data_files = [path for spec in load_dataset_table(competition.descriptions)
                          for path in spec.files.values() if path]
        except SrdashError:  # reported where the descriptions are read; nothing more to hash here
            pass
    inputs += sorted({("data", Path(path)) for path in data_files or ()})
    return provenance.hash_roles(inputs, root=competition.root)


def _prepared_input_hashes(prepared: "PreparedCompetition") -> dict[str, str]:
    """:func:`competition_input_hashes` of a prepared competition: its files as hashed when it was prepared
    (what it holds was read from them; reading the descriptions again would parse every ground truth), and
    its trust entries as they are now."""
    competition = prepared.competition
    if not prepared.input_hashes:
        return competition_input_hashes(competition, trust_entries=prepared.trust_entries)
    hashes = dict(prepared.input_hashes)
    if competition.realworld is not None:
        hashes[f"input_entries_sha256:realworld.store:{competition.relative(competition.realworld.store)}"] = (
            _entries_sha256(prepared.trust_entries))
    return hashes


def _entries_sha256(entries: pd.DataFrame | None) -> str:
    """SHA-256 of trust entries, in a canonical order (the order a store returns them in does not count)."""
    import hashlib

    columns = ["judge", "dataset", "method", "kind", "value"]
    if entries is None or entries.empty:
        text = ""
    else:
        frame = entries.reindex(columns=columns).astype(str).sort_values(columns)
        text = frame.to_csv(index=False, lineterminator="\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _fingerprinted(result: CompetitionResult) -> CompetitionResult:
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


def _leaderboard_rows(verdict) -> list[tuple]:
    return _board_rows(verdict.leaderboard)


def _board_rows(board: pd.DataFrame) -> list[tuple]:
    name = "method" if "method" in board.columns else "team"
    score = "score" if "score" in board.columns else "stage2"
    return [(str(m), int(p), f"{float(s):.9f}")
            for m, p, s in zip(board[name], board["place"], board[score])]


#: The versions that can change a verdict's numbers (component counts differ between sympy versions).
FINGERPRINTED_VERSIONS = ("srdash", "sympy")


def verdict_fingerprint(result: CompetitionResult) -> str:
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
    tracks = {name: verdict.leaderboard for name, verdict in result.tracks.items()}
    running = provenance.versions()
    return fingerprint_of_parts(tracks, settings_sha256=result.competition.fingerprint(),
                                provenance=result.verdict.provenance,
                                versions={name: running[name] for name in FINGERPRINTED_VERSIONS})


def fingerprint_of_parts(tracks, *, settings_sha256: str, provenance, versions) -> str:
    """:func:`verdict_fingerprint` from its parts, for a verdict read back from files (``srdash diff`` checks a
    published folder with it): ``tracks`` maps a track to its leaderboard (method, place and score count),
    ``provenance`` holds the ``input*`` hashes, ``versions`` the :data:`FINGERPRINTED_VERSIONS`."""
    import hashlib
    import json

    inputs = {k: v for k, v in provenance.items() if k.startswith("input")}
    payload = {"tracks": {name: _board_rows(board) for name, board in tracks.items()},
               "competition": settings_sha256,
               "inputs": sorted(inputs.items()),
               "versions": {name: versions[name] for name in FINGERPRINTED_VERSIONS}}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
