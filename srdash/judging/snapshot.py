"""A competition prepared once: its whole :class:`~srdash.judging.pipeline.PreparedCompetition`, kept.

Preparing a competition (:func:`srdash.judging.pipeline.prepare_competition`)
reads every result, runs the qualification stage, and simplifies, evaluates
and checks every model. With a warm cache each of those answers is a cache
row, yet reading and assembling them still takes a second for the demo and
more for real competitions, in every kernel of every visitor. So the whole
prepared competition is kept too, as one *snapshot* in srdash's cache
(:meth:`srdash.cache.ResultCache.put_snapshot`), and the next
preparation of the same competition, in any process, is a read of it.

When a snapshot answers
-----------------------
Its key (:func:`snapshot_key`) covers everything a preparation depends on
besides the input files: the competition's settings (rules, time limit,
paths, qualification and real-world settings), srdash's own code (a hash of
its source files, :func:`code_fingerprint`) and the versions of Python,
numpy, pandas, pyarrow and sympy. The input files are listed in the
snapshot's manifest with their SHA-256 (the results, the descriptions and
every data file they name, the qualification results and data); they are
hashed again before a snapshot is used, and one changed byte means a new
preparation. The trust store is not in it: its entries are read afresh on
every use (experts add entries while the competition is served).

A snapshot is only written when the preparation's every expensive result is
in the cache, that is, when preparing again would give the same prepared
competition (a model killed by the wall clock is cached as a timeout with its
limit, like one stopped by its CPU-time limit).
``--retry-timeouts`` never uses a snapshot.

Python warnings raised while preparing (a merged name, a constant target,
...) are kept with the snapshot and raised again when it is used, so a
re-opened dashboard shows the same notes.

Integrity
---------
The blob is a pickle of srdash's, pandas' and numpy's own objects, signed
(HMAC-SHA256) with the cache's secret like every cache row: a blob that was
changed is not used (counted as ``tampered``, removed, prepared again). It is
also read by an unpickler that only builds the exact classes a prepared
competition is made of (an allow-list of names, not of modules:
:class:`_Unpickler`), as a second line. Model strings inside are
data, never code.

Once per server
---------------
:func:`preparing` is an exclusive file lock per snapshot key: when ``srdash
serve`` prepares a competition while a visitor's kernel starts, the kernel
waits for it and then reads the snapshot instead of doing the work again.
"""

from __future__ import annotations

import contextlib
import copyreg
import functools
import hashlib
import io
import json
import pickle
import platform
import sys
import time
import warnings
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from srdash.judging.competition import Competition
    from srdash.judging.pipeline import PreparedCompetition

__all__ = ["SNAPSHOT_FORMAT", "Snapshot", "code_fingerprint", "snapshot_key", "input_manifest", "load_snapshot",
           "store_snapshot", "preparing", "being_prepared", "replay_warnings", "cacheable_preparation"]

#: Changes when the snapshot's layout changes (old snapshots are then simply not found).
SNAPSHOT_FORMAT = 1


@dataclass(frozen=True)
class Snapshot:
    """A prepared competition read back (:func:`load_snapshot`).

    Attributes
    ----------
    prepared : PreparedCompetition
        With the caller's competition and fresh trust entries.
    warnings : tuple of (str, str, str)
        ``(module, class name, message)`` of the warnings its preparation raised.
    seconds : float
        How long reading and checking it took.
    """

    prepared: "PreparedCompetition"
    warnings: tuple = ()
    seconds: float = 0.0


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 of srdash's source: a change of code (even without a new version) means new snapshots.

    Covers every ``.py`` file and shipped preset of the package (about 2 MB, read once per process).
    """
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".toml", ".yaml", ".yml") and path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(package)).encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _versions() -> dict[str, str]:
    from importlib import metadata

    versions = {"python": platform.python_version(), "srdash_code": code_fingerprint()}  # once per process
    for name in ("numpy", "pandas", "pyarrow", "sympy"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = ""
    return versions


def snapshot_key(competition: "Competition") -> str:
    """The key of a competition's snapshot: its settings, srdash's code and the libraries' versions.

    Workers, scheduler and cache location are left out (they do not change a
    prepared competition); the input files are checked through the manifest.

    Examples
    --------
    >>> from srdash.judging.competition import competition_from_options
    >>> one = competition_from_options("r.csv", jobs=1)
    >>> snapshot_key(one) == snapshot_key(competition_from_options("r.csv", jobs=2))
    True
    >>> snapshot_key(one) == snapshot_key(competition_from_options("r.csv", timeout=5))
    False
    """
    settings = competition.settings()
    settings["simplification"] = {"timeout": competition.simplification.timeout}
    payload = {"format": SNAPSHOT_FORMAT, "settings": settings, "versions": _versions()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def input_manifest(competition: "Competition", data_files: Sequence[str | Path] = ()) -> dict[str, str]:
    """Path -> SHA-256 of every file a preparation reads: the competition's inputs (folders expanded,
    as in the provenance: :func:`srdash.judging.provenance.hash_inputs`) except the trust store, and
    ``data_files`` (the datasets' files named by the descriptions)."""
    store = None if competition.realworld is None else Path(competition.realworld.store)
    sources = [s for s in competition.sources if store is None or Path(s) != store]
    return _hashes([*sources, *data_files])


def _hashes(paths: Iterable[str | Path]) -> dict[str, str]:
    from srdash.judging.provenance import hash_inputs

    prefix = "input_sha256:"
    return {key[len(prefix):]: digest for key, digest in hash_inputs(paths).items() if key.startswith(prefix)}


def _manifest_holds(manifest: dict) -> bool:
    files = manifest.get("files", {})
    try:
        return _hashes(files) == files
    except OSError:
        return False


# --------------------------------------------------------------------------- pickling, with an allow-list


def _mapping_proxy(items: dict) -> MappingProxyType:
    return MappingProxyType(items)


class _Pickler(pickle.Pickler):
    dispatch_table = {**copyreg.dispatch_table, MappingProxyType: lambda proxy: (_mapping_proxy, (dict(proxy),))}


# Exactly the classes and reconstruction helpers a prepared competition is made of (module,
# name), never a whole module: under an allowed module root an attacker who can sign a blob
# would find functions that read files or run code (``pandas.read_pickle``, ``numpy.load``,
# ``numpy.testing``'s ``runstring``). A snapshot needing a name not listed here is not used
# (the competition is prepared again): never wrong, at worst slower.
_ALLOWED_NAMES: dict[str, frozenset[str]] = {module: frozenset(names) for module, names in {
    "builtins": {"slice", "set", "frozenset", "complex", "range", "tuple", "list", "dict", "int", "float", "str",
                 "bytes", "bool"},
    "datetime": {"date", "datetime", "time", "timedelta", "timezone"},
    "pathlib": {"Path", "PosixPath", "PurePosixPath", "WindowsPath", "PureWindowsPath"},
    "numpy": {"dtype", "ndarray"},
    "numpy._core.multiarray": {"_reconstruct", "scalar"},
    "numpy._core.numeric": {"_frombuffer"},
    "numpy.core.multiarray": {"_reconstruct", "scalar"},
    "numpy.core.numeric": {"_frombuffer"},
    "pandas": {"BooleanDtype", "Categorical", "CategoricalDtype", "DataFrame", "DatetimeTZDtype", "Float64Dtype",
               "Index", "Int64Dtype", "MultiIndex", "NA", "RangeIndex", "Series", "StringDtype"},
    "pandas._libs.arrays": {"__pyx_unpickle_NDArrayBacked"},
    "pandas._libs.internals": {"_unpickle_block"},
    "pandas._libs.tslibs.timestamps": {"_unpickle_timestamp"},
    "pandas.arrays": {"ArrowStringArray", "BooleanArray", "DatetimeArray", "FloatingArray", "IntegerArray"},
    "pandas.core.indexes.base": {"_new_Index"},
    "pandas.core.internals.managers": {"BlockManager", "SingleBlockManager"},
    "pyarrow.lib": {"_restore_array", "py_buffer", "type_for_alias"},
    "srdash.io.datasets": {"DatasetSpec", "DatasetTable"},
    "srdash.io.loading": {"Results"},
    "srdash.judging.multiobjective": {"Submissions"},
    "srdash.judging.pipeline": {"PreparedCompetition"},
    "srdash.judging.properties": {"PropertyScores"},
    "srdash.judging.qualification": {"FilteredRuns", "Qualification"},
    "srdash.judging.snapshot": {"_mapping_proxy"},
}.items()}


class _Unpickler(pickle.Unpickler):
    """Builds only the listed classes of numpy, pandas, pyarrow and srdash and a few plain types
    (:data:`_ALLOWED_NAMES`, exact names; a second line behind the blob's signature)."""

    def find_class(self, module: str, name: str):
        if name in _ALLOWED_NAMES.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a snapshot may not build {module}.{name}")


def _dumps(value) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return zlib.compress(buffer.getvalue(), 1)


def _loads(blob: bytes):
    return _Unpickler(io.BytesIO(zlib.decompress(blob))).load()


# --------------------------------------------------------------------------- reading and writing


def cacheable_preparation(stats: dict) -> bool:
    """Whether preparing again would give the same result from the cache alone: every result asked
    and not found was stored, and no row failed its integrity check.

    Examples
    --------
    >>> cacheable_preparation({"by_kind": {"complexity": {"misses": 3, "stored": 3, "tampered": 0}}})
    True
    >>> cacheable_preparation({"by_kind": {"complexity": {"misses": 3, "stored": 2, "tampered": 0}}})
    False
    """
    return all(counts.get("stored", 0) >= counts.get("misses", 0) and not counts.get("tampered", 0)
               for kind, counts in stats.get("by_kind", {}).items() if kind != "snapshot")


def load_snapshot(competition: "Competition", cache) -> Snapshot | None:
    """The competition's snapshot from ``cache`` (a ResultCache), or None when there is none that holds.

    The prepared competition gets ``competition`` itself (the caller's
    workers and cache) and the trust store's entries as they are now.
    """
    if cache is False or cache is None or competition.simplification.retry_timeouts:
        return None
    started = time.monotonic()
    key = snapshot_key(competition)
    try:
        found = cache.get_snapshot(key)
    except Exception:  # noqa: BLE001 - an unreadable cache: prepare as without one
        return None
    if found is None:
        return None
    manifest, blob = found
    if manifest.get("format") != SNAPSHOT_FORMAT or not _manifest_holds(manifest):
        return None
    try:
        prepared = _loads(blob)
    except Exception:  # noqa: BLE001 - signed but unreadable (another library's pickle layout): prepare again
        cache.forget_snapshot(key)
        return None
    from srdash.judging.pipeline import PreparedCompetition, _trust_entries

    if not isinstance(prepared, PreparedCompetition):
        return None
    trust = None if competition.realworld is None else _trust_entries(competition.realworld.store)
    stats = {"snapshot": "reused", "snapshot_prepared_at": time.strftime(
        "%Y-%m-%d %H:%M:%S", time.localtime(float(manifest.get("created", 0))))}
    prepared = replace(prepared, competition=competition, trust_entries=trust, cache_stats=MappingProxyType(stats))
    cache.stats.add("snapshot", hits=1)
    return Snapshot(prepared=prepared, warnings=tuple(tuple(w) for w in manifest.get("warnings", ())),
                    seconds=time.monotonic() - started)


def store_snapshot(competition: "Competition", prepared: "PreparedCompetition", cache, *,
                   data_files: Sequence[str | Path] = (), caught: Sequence[warnings.WarningMessage] = ()) -> bool:
    """Keep ``prepared`` as the competition's snapshot when its preparation is fully cached; True if kept."""
    if cache is False or cache is None or not cacheable_preparation(dict(prepared.cache_stats)):
        return False
    bare = replace(prepared, competition=None, trust_entries=None, cache_stats=MappingProxyType({}))
    try:
        blob = _dumps(bare)
    except (pickle.PicklingError, TypeError, AttributeError):  # an input object that cannot be kept
        return False
    manifest = {"format": SNAPSHOT_FORMAT, "created": time.time(),
                "files": input_manifest(competition, data_files),
                "warnings": [[w.category.__module__, w.category.__qualname__, str(w.message)] for w in caught]}
    try:
        cache.put_snapshot(snapshot_key(competition), manifest, blob)
    except Exception:  # noqa: BLE001 - a read-only or full cache: the verdict does not depend on it
        return False
    return True


def replay_warnings(recorded: Iterable[Sequence[str]]) -> None:
    """Raise again the warnings a snapshot's preparation raised (builtin and srdash's categories;
    others as UserWarning)."""
    for module, name, message in recorded:
        category = UserWarning
        if module == "builtins" or module.split(".", 1)[0] == "srdash":
            found = getattr(sys.modules.get(module), name, None)
            if isinstance(found, type) and issubclass(found, Warning):
                category = found
        warnings.warn(message, category, stacklevel=2)


def _lock_path(competition: "Competition", cache) -> Path:
    """The competition's preparation lock: a file beside the cache, one per snapshot key."""
    return Path(cache.path).with_name(f".prepare-{snapshot_key(competition)[:24]}.lock")


@contextlib.contextmanager
def preparing(competition: "Competition", cache, *, waiting=None):
    """Hold the competition's preparation lock (one preparer per snapshot key, across processes).

    ``waiting()`` is called once when another process holds it (this one then waits for it).
    Without a cache, or where locks are not available, this does nothing.
    """
    if cache is False or cache is None:
        yield
        return
    try:
        import fcntl

        path = _lock_path(competition, cache)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+b")
    except (ImportError, OSError):
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if waiting is not None:
                waiting()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def being_prepared(competition: "Competition", cache) -> bool:
    """Whether another process holds the competition's preparation lock right now."""
    if cache is False or cache is None:
        return False
    try:
        import fcntl

        path = _lock_path(competition, cache)
        if not path.exists():
            return False
        with open(path, "a+b") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False
    except (ImportError, OSError):
        return False
