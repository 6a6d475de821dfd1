"""The built-in demo's folder, written once per srdash version, demo format and seed in srdash's cache folder
(:func:`cached_demo`), from the files shipped with srdash for seed 0 (:mod:`srdash.demo.shipped`), with the
demo's prepared results seeded into the cache."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from srdash import __version__
from srdash.cache import CACHE_FILE_NAME, default_cache_path
from srdash.demo.folder import write_demo, write_demo_store
from srdash.demo.shipped import seed_cache, shipped_demo_files
from srdash.errors import SrdashError

__all__ = ["DEMO_FORMAT", "cached_demo", "demo_folder"]


def demo_folder(seed: int = 0, *, cache_dir: str | Path | None = None) -> Path:
    """Where :func:`cached_demo` keeps the demo's files: srdash's cache folder, per version and seed.

    ``cache_dir`` defaults to the folder of srdash's cache
    (``$SRDASH_CACHE_DIR``, else the user cache directory).

    Examples
    --------
    >>> demo_folder(3, cache_dir="/tmp/c").name.endswith("-seed3")
    True
    """
    parent = Path(cache_dir) if cache_dir else default_cache_path().parent
    return parent / f"demo-{__version__}-f{DEMO_FORMAT}-seed{int(seed)}"


#: Bumped whenever the demo's files change within one srdash version (2: a real-world track and its store;
#: 3: LinearRegression solved exactly, exp/log/tanh through mpmath), so a demo written by an older checkout is
#: never mistaken for the current one. ``tests/test_cache_demo.py`` holds the files' hash of each format.
DEMO_FORMAT = 3


def cached_demo(seed: int = 0, *, cache_dir: str | Path | None = None, seed_prepared: bool = True) -> dict:
    """The demo competition's files (:func:`write_demo`), written once per srdash version and seed.

    The apps open the demo on every page load; writing it (about 2 s) is done
    the first time only, in :func:`demo_folder`. The files are written to a
    fresh folder and then renamed into place, so two kernels starting at once
    never read a half-written demo.

    With ``seed_prepared`` (default), when the files are first written, the
    demo's prepared results shipped with srdash (:mod:`srdash.demo.prepared`)
    are added to the cache in the same folder, so judging the demo (seed 0)
    does no sympy work, and the files themselves are the shipped ones (the
    generator's output for seed 0, without its two seconds of work).

    Returns
    -------
    dict of str to Path
        As :func:`write_demo`.
    """
    folder = demo_folder(seed, cache_dir=cache_dir)
    manifest = folder / "paths.json"
    if manifest.is_file():
        return {name: folder / file for name, file in json.loads(manifest.read_text(encoding="utf-8")).items()}
    # One writer at a time (e.g. `srdash serve` writing it while the first kernel starts): the others
    # wait for it and read its files instead of generating them again.
    with _exclusive(folder.parent / f".{folder.name}.lock"):
        if manifest.is_file():
            return {name: folder / file for name, file in json.loads(manifest.read_text(encoding="utf-8")).items()}
        return _write_cached_demo(folder, manifest, seed=seed, seed_prepared=seed_prepared)


def _exclusive(path: Path):
    """An exclusive ``flock`` on ``path`` (created) while in the block; no lock where that is not possible."""

    @contextlib.contextmanager
    def locked():
        try:
            import fcntl

            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "a+b")
        except (ImportError, OSError):  # not POSIX, or a read-only folder: the atomic rename still protects
            yield
            return
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    return locked()


def _write_cached_demo(folder: Path, manifest: Path, *, seed: int, seed_prepared: bool) -> dict:
    if seed_prepared and seed == 0:
        try:
            seed_cache(folder.parent / CACHE_FILE_NAME)
        except OSError:  # a cache that cannot be written: the demo computes its results instead
            pass
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    except OSError as exc:
        raise SrdashError(f"Cannot write the demo competition to {str(folder.parent)!r}: {exc}") from exc
    try:
        shipped = shipped_demo_files() if seed_prepared and seed == 0 else None
        if shipped is not None:  # the files srdash generated for seed 0, shipped with it (srdash.demo.prepared)
            names, files = shipped
            for name, data in files.items():
                (scratch / name).write_bytes(data)
            paths = {name: scratch / file for name, file in names.items()}
            paths["trust"] = write_demo_store(scratch / "trust.sqlite", seed=seed)
        else:
            paths = write_demo(scratch, seed=seed)
        (scratch / "paths.json").write_text(json.dumps({name: path.name for name, path in paths.items()}),
                                            encoding="utf-8")
        try:
            os.replace(scratch, folder)
        except OSError:
            if not manifest.is_file():  # not another kernel's finished copy: a real failure
                raise
    except OSError as exc:
        raise SrdashError(f"Cannot write the demo competition to {str(folder)!r}: {exc}") from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {name: folder / path.name for name, path in paths.items()}
