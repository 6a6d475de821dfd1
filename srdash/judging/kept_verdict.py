"""A verdict kept with the prepared competition it was judged from: a visitor's kernel reads it, never judges again.

``srdash serve`` prepares its competition once and keeps it as a snapshot (:mod:`srdash.judging.snapshot`);
every visitor's kernel reads that snapshot and then judged it again (:func:`~srdash.judging.judgement.judge_prepared`:
the three rankings and the real-world track, about a quarter of a kernel's page build). :func:`kept_judgement`
keeps the judged verdict beside the snapshot, in srdash's cache, and gives it back to whoever asks again.

When a kept verdict answers
---------------------------
Only for a prepared competition read from a snapshot (its preparation is then exactly the snapshot's). Its key
(:func:`kept_verdict_key`) covers everything :func:`judge_prepared` reads: the snapshot's key (the competition's
settings, srdash's code and the versions of Python, numpy, pandas, pyarrow and sympy) and the time it was
prepared; the competition's settings, fingerprint, source, folder and title; the rules as applied (their SHA-256,
source and name; the real-world track's too); the inputs' hashes as prepared, the trust entries as they are now
and whether their store is a file (a refused track says which); the versions stamped in a verdict's provenance;
and what a refused real-world track does. Anything else is judged afresh.

Integrity
---------
The verdict is kept as data (:func:`srdash.judging.snapshot.dumps`: JSON and Parquet, never a pickle), signed with
the cache's secret like a snapshot. When read back, it must name its own key and its inputs' hashes must be the
prepared competition's now; a kept verdict that fails any check (a changed byte, another key, another layout) is
removed and judged again, never shown. Its leaderboards must also give its fingerprint again
(:func:`~srdash.judging.fingerprint.verdict_fingerprint`).
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from srdash.judging import provenance, snapshot
from srdash.judging.fingerprint import canonical_sha256, prepared_input_hashes, verdict_fingerprint
from srdash.judging.judgement import file_cache_provenance, judge_prepared
from srdash.judging.prepared import CompetitionResult, PreparedCompetition
from srdash.judging.ranking import Verdict

__all__ = ["KEPT_VERDICT_FORMAT", "kept_verdict_key", "kept_judgement", "load_kept_verdict", "store_kept_verdict"]

#: Changes when what is kept changes (kept verdicts of another format are then simply not found).
KEPT_VERDICT_FORMAT = 1
_PREFIX = f"verdict-{KEPT_VERDICT_FORMAT}:"
_REFUSALS = ("raise", "warn")


def _rules_said(rules) -> dict:
    return {"sha256": rules.sha256, "source": rules.source, "name": rules.name, "title": rules.title}


def _store_state(store: Path) -> str:
    return "file" if store.is_file() else "other" if store.exists() else "absent"


def _keepable(prepared: PreparedCompetition) -> bool:
    """Read from a snapshot, with its inputs' hashes: what it holds is exactly the snapshot's."""
    return prepared.cache_stats.get("snapshot") == "reused" and bool(prepared.input_hashes)


def kept_verdict_key(prepared: PreparedCompetition, *, refused_realworld: str = "raise",
                     inputs: dict | None = None) -> str | None:
    """The key of the verdict :func:`judge_prepared` gives ``prepared``; None when it is not kept (not read
    from a snapshot). ``inputs``: :func:`~srdash.judging.fingerprint.prepared_input_hashes` of ``prepared``, when
    the caller has them.

    Examples
    --------
    >>> from srdash.judging.competition import competition_from_options
    >>> kept_verdict_key(PreparedCompetition(competition=competition_from_options("r.csv"), input=None)) is None
    True
    """
    if refused_realworld not in _REFUSALS:
        raise ValueError(f"The 'refused_realworld' option must be one of 'raise', 'warn'. Got {refused_realworld!r}.")
    if not _keepable(prepared):
        return None
    stats = prepared.cache_stats
    competition = prepared.competition
    realworld = competition.realworld
    payload = {
        "format": KEPT_VERDICT_FORMAT,
        "snapshot": snapshot.snapshot_key(competition),
        "snapshot_prepared_at": str(stats.get("snapshot_prepared_at", "")),
        "settings": competition.settings(),
        "settings_sha256": competition.fingerprint(),
        "source": competition.source,
        "root": str(competition.root),
        "title": competition.title,
        "file_cache": file_cache_provenance(competition),
        "rules": _rules_said(competition.rules),
        "realworld_rules": None if realworld is None else _rules_said(realworld.rules),
        "inputs": prepared_input_hashes(prepared) if inputs is None else inputs,
        # a refused track says whether its store is absent, not a file, or without entries
        "trust_store": None if realworld is None else _store_state(Path(realworld.store)),
        "versions": provenance.versions(),
        "refused_realworld": refused_realworld,
    }
    return _PREFIX + canonical_sha256(payload)


def _track(verdict, rules) -> dict | None:
    """A track's verdict as plain data, or None when it is not a :class:`Verdict` of ``rules``' own criteria."""
    if type(verdict) is not Verdict or verdict.rules != rules:
        return None
    if any(criterion not in rules.criteria for criterion in verdict.criteria) or not all(
            type(k) is str and type(v) is str for k, v in verdict.provenance.items()):
        return None
    return {"leaderboard": verdict.leaderboard, "per_dataset": verdict.per_dataset, "problems": verdict.problems,
            "criteria": [rules.criteria.index(c) for c in verdict.criteria], "warnings": tuple(verdict.warnings),
            "n_methods": int(verdict.n_methods), "provenance": dict(verdict.provenance)}


def _verdict(data, rules) -> Verdict:
    """The inverse of :func:`_track` (``data`` checked by the caller's try)."""
    fields = {"leaderboard", "per_dataset", "problems", "criteria", "warnings", "n_methods", "provenance"}
    if type(data) is not dict or set(data) != fields:
        raise ValueError("not a kept track")
    criteria = tuple(rules.criteria[int(i)] for i in data["criteria"])
    if not all(isinstance(w, str) for w in data["warnings"]) or type(data["provenance"]) is not dict:
        raise ValueError("not a kept track")
    return Verdict(leaderboard=data["leaderboard"], per_dataset=data["per_dataset"], problems=data["problems"],
                   criteria=criteria, warnings=tuple(data["warnings"]), rules=rules, n_methods=int(data["n_methods"]),
                   provenance=MappingProxyType(dict(data["provenance"])))


def store_kept_verdict(result: CompetitionResult, cache, *, refused_realworld: str = "raise",
                       inputs: dict | None = None) -> bool:
    """Keep ``result`` (:func:`judge_prepared` of ``result.prepared``) in ``cache`` (a ResultCache); True if kept.

    Not kept: a prepared competition not read from a snapshot, rules that judge submissions, a verdict holding
    what the snapshot format does not keep, a cache that cannot be written. ``inputs`` as :func:`kept_verdict_key`.
    """
    key = kept_verdict_key(result.prepared, refused_realworld=refused_realworld, inputs=inputs)
    if key is None or cache is None or cache is False:
        return False
    competition = result.competition
    main = _track(result.verdict, competition.rules)
    realworld = None
    if result.realworld is not None:
        realworld = _track(result.realworld, competition.realworld.rules)
        if realworld is None:
            return False
    if main is None:
        return False
    try:
        blob = snapshot.dumps({"key": key, "fingerprint": result.fingerprint, "main": main, "realworld": realworld})
    except (TypeError, ValueError, OverflowError):  # a value the format does not keep
        return False
    try:
        cache.put_snapshot(key, {"format": KEPT_VERDICT_FORMAT, "kind": "verdict"}, blob)
    except Exception:  # noqa: BLE001 - a read-only or full cache: judged again next time
        return False
    return True


def load_kept_verdict(prepared: PreparedCompetition, cache, *, refused_realworld: str = "raise",
                      inputs: dict | None = None) -> CompetitionResult | None:
    """The verdict kept for ``prepared`` in ``cache``, or None (none kept, or one that fails a check: removed).
    ``inputs`` as :func:`kept_verdict_key`."""
    inputs = prepared_input_hashes(prepared) if inputs is None else inputs
    key = kept_verdict_key(prepared, refused_realworld=refused_realworld, inputs=inputs)
    if key is None or cache is None or cache is False:
        return None
    try:
        found = cache.get_snapshot(key)
    except Exception:  # noqa: BLE001 - an unreadable cache: judge as without one
        return None
    if found is None:
        return None
    competition = prepared.competition
    try:
        data = snapshot.loads(found[1])
        if type(data) is not dict or data.get("key") != key or not isinstance(data.get("fingerprint"), str):
            raise ValueError("another key")
        verdict = _verdict(data["main"], competition.rules)
        realworld = None
        if data["realworld"] is not None:
            realworld = _verdict(data["realworld"], competition.realworld.rules)
        if realworld is not None and competition.realworld is None:
            raise ValueError("another track")
        kept_inputs = {k: v for k, v in verdict.provenance.items() if k.startswith("input")}
        if kept_inputs != inputs or verdict.provenance.get("verdict_fingerprint") != data["fingerprint"]:
            raise ValueError("other inputs")
        result = CompetitionResult(competition=competition, prepared=prepared, verdict=verdict, realworld=realworld,
                                   fingerprint=data["fingerprint"])
        if verdict_fingerprint(result) != result.fingerprint:   # its leaderboards are not the fingerprinted ones
            raise ValueError("another leaderboard")
    except Exception:  # noqa: BLE001 - signed but not what this key keeps: judged again, never shown
        try:
            cache.forget_snapshot(key)
        except Exception:  # noqa: BLE001
            pass
        return None
    return result


def kept_judgement(prepared: PreparedCompetition, *, refused_realworld: str = "raise") -> CompetitionResult:
    """:func:`judge_prepared` of ``prepared``, read from srdash's cache when it was judged before (see the module
    docstring), else judged and kept for the next caller.

    Parameters
    ----------
    prepared : PreparedCompetition
        With the competition (and its rules) as judged.
    refused_realworld : {'raise', 'warn'}
        As :func:`judge_prepared`.

    Returns
    -------
    CompetitionResult
        Equal to ``judge_prepared(prepared, refused_realworld=...)``: the same fingerprint, tables, warnings and
        provenance.
    """
    if not _keepable(prepared):
        return judge_prepared(prepared, refused_realworld=refused_realworld)
    try:
        cache = prepared.competition.simplification.open_cache()
    except Exception:  # noqa: BLE001 - an unusable cache: judge as without one
        cache = False
    if cache is False or cache is None:
        return judge_prepared(prepared, refused_realworld=refused_realworld)
    try:
        inputs = prepared_input_hashes(prepared)   # once: the trust entries are hashed here
        kept = load_kept_verdict(prepared, cache, refused_realworld=refused_realworld, inputs=inputs)
        if kept is not None:
            return kept
        result = judge_prepared(prepared, refused_realworld=refused_realworld)
        store_kept_verdict(result, cache, refused_realworld=refused_realworld, inputs=inputs)
        return result
    finally:
        cache.close()

