"""A competition prepared once: its whole :class:`~srdash.judging.prepared.PreparedCompetition`, kept.

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
The blob is data, never a pickle: a JSON document (plain values, tagged
tuples, sets, paths, numpy numbers and the exact dataclasses a prepared
competition is made of, built field by field without calling anything the
blob names) and Parquet files for the frames (object columns, such as model
strings, as JSON lists, so ``None`` stays ``None``). What the writer keeps is
read back and compared before it is stored; a prepared competition holding
anything else is simply not kept. So a blob, even one signed with the cache's
key by whoever can write the cache folder, can give wrong *data* but cannot
run code or read files when srdash reads it. It is also signed (HMAC-SHA256)
with the cache's secret like every cache row: a blob that was changed is not
used (counted as ``tampered``, removed, prepared again), and its manifest of
input hashes is checked before use. Model strings inside are data, never code.

Once per server
---------------
:func:`preparing` is an exclusive file lock per snapshot key: when ``srdash
serve`` prepares a competition while a visitor's kernel starts, the kernel
waits for it and then reads the snapshot instead of doing the work again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib
import io
import json
import math
import platform
import struct
import sys
import time
import warnings
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Iterable, Sequence

from srdash.judging.fingerprint import canonical_sha256

if TYPE_CHECKING:
    from srdash.judging.competition import Competition
    from srdash.judging.prepared import PreparedCompetition

__all__ = ["SNAPSHOT_FORMAT", "Snapshot", "code_fingerprint", "snapshot_key", "input_manifest", "load_snapshot",
           "store_snapshot", "preparing", "being_prepared", "replay_warnings", "cacheable_preparation",
           "read_trust_entries"]

#: Changes when the snapshot's layout changes (old snapshots are then simply not found).
SNAPSHOT_FORMAT = 2


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
    return canonical_sha256(payload)


def input_manifest(competition: "Competition", data_files: Sequence[str | Path] = ()) -> dict[str, str]:
    """Path -> SHA-256 of every file a preparation reads: the competition's inputs (folders expanded,
    as in the provenance: :func:`srdash.judging.provenance.hash_inputs`) except the trust store, and
    ``data_files`` (the datasets' files named by the descriptions)."""
    store = None if competition.realworld is None else Path(competition.realworld.store)
    sources = [s for s in competition.sources if store is None or Path(s) != store]
    return _hashes([*sources, *data_files])


def _hashes(paths: Iterable[str | Path]) -> dict[str, str]:
    from srdash.judging.provenance import hash_inputs  # lazy: numpy, pandas

    prefix = "input_sha256:"
    return {key[len(prefix):]: digest for key, digest in hash_inputs(paths).items() if key.startswith(prefix)}


def _manifest_holds(manifest: dict) -> bool:
    files = manifest.get("files", {})
    try:
        return _hashes(files) == files
    except OSError:
        return False


# --------------------------------------------------------------------------- a data format, not a pickle

#: The first bytes of a snapshot blob (after zlib): format 2 is JSON plus Parquet, never a pickle.
_MAGIC = b"srdash-snapshot-2\n"
_LENGTH = struct.Struct(">Q")
#: Upper bound of a snapshot blob once decompressed (a signed blob is still bounded before it is read).
MAX_SNAPSHOT_BYTES = 2 << 30

# The dataclasses a prepared competition is made of, by exact name. Reading builds them field by field
# (``object.__new__`` and ``object.__setattr__``: no constructor, no ``__post_init__``, no ``__reduce__``,
# nothing named by the blob is called). A value of any other type is not kept (no snapshot is written:
# the competition is prepared again next time; never wrong, at worst slower).
_DATACLASSES = frozenset({
    "srdash.io.datasets.DatasetSpec", "srdash.io.datasets.DatasetTable", "srdash.io.loading.Results",
    "srdash.judging.multiobjective.Submissions", "srdash.judging.prepared.PreparedCompetition",
    "srdash.judging.properties.PropertyScores", "srdash.judging.qualification.FilteredRuns",
    "srdash.judging.qualification.Qualification",
})


_PLACEHOLDER = "__srdash_rows__"


class SnapshotFormatError(ValueError):
    """A snapshot blob that is not format 2 or does not decode to a prepared competition's data."""


def _qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class _Encoder:
    """Turns a prepared competition into JSON-able data plus Parquet frames (see :func:`dumps`)."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def encode(self, value):
        import numpy as np
        import pandas as pd

        kind = type(value)
        if value is None or kind in (bool, str, int):
            return value
        if kind is float:
            return value if math.isfinite(value) else {"$float": repr(value)}
        if isinstance(value, np.generic) and value.dtype.kind in "biuf":
            return {"$scalar": value.dtype.str, "value": self.encode(value.item())}
        if kind is tuple:
            return {"$tuple": [self.encode(v) for v in value]}
        if kind is list:
            return [self.encode(v) for v in value]
        if kind in (set, frozenset):
            return {f"${kind.__name__}": [self.encode(v) for v in value]}
        if kind is dict:
            return {"$dict": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        if kind is MappingProxyType:
            return {"$proxy": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        if isinstance(value, Path):
            return {"$path": str(value)}
        if kind is pd.DataFrame:
            return {"$frame": self._frame(value)}
        if kind is pd.Series:
            return {"$series": self._frame(value.to_frame(name="value")), "name": self.encode(value.name)}
        if dataclasses.is_dataclass(value) and _qualified_name(kind) in _DATACLASSES:
            return {"$dataclass": _qualified_name(kind),
                    "fields": {f.name: self.encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
        raise TypeError(f"a snapshot does not keep {_qualified_name(kind)}")

    def _frame(self, frame) -> dict:
        """Keep ``frame``: its object columns as JSON lists (exact: None stays None), the others as one
        Parquet file; checked to read back equal, else TypeError (no snapshot)."""
        import pandas as pd

        if frame.attrs or not frame.columns.is_unique:
            raise TypeError("a snapshot does not keep frames with attrs or repeated column names")
        objects = [i for i, dtype in enumerate(frame.dtypes) if dtype == object]
        plain = frame.drop(columns=frame.columns[objects]) if objects else frame
        placeholder = plain.shape[1] == 0  # Parquet keeps the rows (and index) of a frame with a column
        if placeholder:
            plain = plain.assign(**{_PLACEHOLDER: True})
        buffer = io.BytesIO()
        try:
            plain.to_parquet(buffer, engine="pyarrow")
        except Exception as exc:  # noqa: BLE001 - a column Parquet cannot hold: no snapshot
            raise TypeError(f"a snapshot cannot keep this frame: {exc}") from None
        self.frames.append(buffer.getvalue())
        spec = {"parquet": len(self.frames) - 1, "placeholder": placeholder,
                "objects": [[i, self.encode(frame.columns[i]), [self.encode(v) for v in frame.iloc[:, i]]]
                            for i in objects]}
        back = _decode_frame(spec, self.frames, _Decoder(self.frames))
        try:
            pd.testing.assert_frame_equal(frame, back, check_exact=True, check_column_type=True,
                                          check_index_type=True, check_flags=True)
        except AssertionError as exc:
            raise TypeError(f"a snapshot cannot keep this frame exactly: {exc}") from None
        return spec


def _decode_frame(spec, frames, decoder):
    import pandas as pd
    import pyarrow.parquet as pq

    frame = pq.read_table(io.BytesIO(frames[int(spec["parquet"])])).to_pandas()
    if spec.get("placeholder"):
        frame = frame.drop(columns=[_PLACEHOLDER])
    for position, name, values in spec["objects"]:
        column = pd.Series([decoder.decode(v) for v in values], dtype=object, index=frame.index)
        frame.insert(int(position), decoder.decode(name), column)
    return frame


class _Decoder:
    """The inverse of :class:`_Encoder`: builds plain data, frames and the listed dataclasses only."""

    def __init__(self, frames: Sequence[bytes]) -> None:
        self.frames = frames

    def decode(self, value):
        import numpy as np

        if value is None or type(value) in (bool, str, int, float):
            return value
        if type(value) is list:
            return [self.decode(v) for v in value]
        if type(value) is not dict or len(value) not in (1, 2):
            raise SnapshotFormatError(f"unexpected value of type {type(value).__name__}")
        tag = next(iter(value))
        body = value[tag]
        if tag == "$float":
            if body not in ("nan", "inf", "-inf"):
                raise SnapshotFormatError(f"unexpected float {body!r}")
            return float(body)
        if tag == "$scalar":
            dtype = np.dtype(str(body))
            if dtype.kind not in "biuf":
                raise SnapshotFormatError(f"unexpected scalar type {body!r}")
            return dtype.type(self.decode(value["value"]))
        if tag == "$tuple":
            return tuple(self.decode(v) for v in body)
        if tag in ("$set", "$frozenset"):
            return (set if tag == "$set" else frozenset)(self.decode(v) for v in body)
        if tag in ("$dict", "$proxy"):
            items = {self.decode(k): self.decode(v) for k, v in body}
            return items if tag == "$dict" else MappingProxyType(items)
        if tag == "$path":
            return Path(str(body))
        if tag == "$frame":
            return _decode_frame(body, self.frames, self)
        if tag == "$series":
            series = _decode_frame(body, self.frames, self).iloc[:, 0]
            return series.rename(self.decode(value["name"]))
        if tag == "$dataclass":
            name = str(body)
            if name not in _DATACLASSES:
                raise SnapshotFormatError(f"a snapshot may not build {name}")
            module, _, qualname = name.rpartition(".")
            cls = getattr(importlib.import_module(module), qualname)
            fields = value["fields"]
            expected = {f.name for f in dataclasses.fields(cls)}
            if set(fields) != expected:
                raise SnapshotFormatError(f"the fields of {name} are not {sorted(expected)}")
            instance = object.__new__(cls)
            for field_name, field_value in fields.items():
                object.__setattr__(instance, field_name, self.decode(field_value))
            return instance
        raise SnapshotFormatError(f"unknown tag {tag!r}")


def dumps(value) -> bytes:
    """A snapshot blob: JSON of the data (frames by number) and the frames as Parquet files, zlib-compressed.

    Parameters
    ----------
    value
        A prepared competition's data: None, bool, str, int, float, numpy scalars, tuples, lists, sets,
        dicts, paths, DataFrames and the dataclasses a prepared competition is made of.

    Returns
    -------
    bytes
        The blob :func:`loads` reads back.

    Raises
    ------
    TypeError
        For a value the format does not keep (a sympy expression, a function ...).

    Examples
    --------
    >>> loads(dumps({"t": (1, float("inf")), "s": frozenset({"a"})}))
    {'t': (1, inf), 's': frozenset({'a'})}
    """
    encoder = _Encoder()
    document = json.dumps(encoder.encode(value), allow_nan=False, separators=(",", ":")).encode()
    parts = [_MAGIC, _LENGTH.pack(len(document)), document]
    for frame in encoder.frames:
        parts += [_LENGTH.pack(len(frame)), frame]
    return zlib.compress(b"".join(parts), 1)


def loads(blob: bytes):
    """Read a blob written by :func:`dumps`. Nothing in it is executed: JSON, Parquet, listed dataclasses.

    Parameters
    ----------
    blob : bytes
        Untrusted: at most :data:`MAX_SNAPSHOT_BYTES` once inflated.

    Returns
    -------
    object
        The value :func:`dumps` was given.

    Raises
    ------
    SnapshotFormatError
        When the blob is not a format-2 snapshot, is truncated or too large, or names a tag, function or
        class the format does not build.
    """
    inflater = zlib.decompressobj()
    data = inflater.decompress(blob, MAX_SNAPSHOT_BYTES)
    if inflater.unconsumed_tail:
        raise SnapshotFormatError(f"the snapshot expands beyond {MAX_SNAPSHOT_BYTES:,} bytes")
    if not data.startswith(_MAGIC):
        raise SnapshotFormatError("not a format-2 snapshot (JSON and Parquet)")
    offset = len(_MAGIC)
    chunks = []
    while offset < len(data):
        if offset + _LENGTH.size > len(data):
            raise SnapshotFormatError("a truncated snapshot")
        (length,) = _LENGTH.unpack_from(data, offset)
        offset += _LENGTH.size
        if offset + length > len(data):
            raise SnapshotFormatError("a truncated snapshot")
        chunks.append(data[offset:offset + length])
        offset += length
    if not chunks:
        raise SnapshotFormatError("an empty snapshot")
    document = json.loads(chunks[0])
    return _Decoder(chunks[1:]).decode(document)


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
        prepared = loads(blob)
    except Exception:  # noqa: BLE001 - signed but unreadable (not format 2, another Parquet layout): prepare again
        cache.forget_snapshot(key)
        return None
    from srdash.judging.prepared import PreparedCompetition  # lazy: numpy, pandas

    if not isinstance(prepared, PreparedCompetition):
        return None
    trust = None if competition.realworld is None else read_trust_entries(competition.realworld.store)
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
        blob = dumps(bare)
    except (TypeError, ValueError, OverflowError):  # a value the format does not keep
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


def read_trust_entries(store_path):
    """The trust store's entries (a DataFrame), read without creating a store (an absent store has no entries).

    Read afresh whenever a prepared competition is used, from a snapshot or not: judges' entries change
    between visits. pandas and the trust store are imported here, not at the top: reading a snapshot's
    key and manifest needs neither.
    """
    import pandas as pd

    from srdash.judging.trust import TrustStore  # lazy: numpy

    if not Path(store_path).is_file():
        return pd.DataFrame(columns=["judge", "dataset", "method", "kind", "value"])
    with contextlib.closing(TrustStore(store_path, read_only=True)) as store:   # judging never writes it
        return store.entries()
