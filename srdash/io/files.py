"""Opening untrusted input files safely: one helper shared by every reader.

Submissions and results folders come from competitors. A file in them may be a
symbolic link to a private file elsewhere (``/etc/passwd``, the organisers'
ground truth), a dangling link, a FIFO that blocks any reader forever, a device,
or a file far larger than any honest submission. :func:`read_file_bytes` and
:func:`check_file` refuse all of these, *per file*, with a reason that names
the file and never quotes its content, so that the caller can list the problem
and go on with the other files.

The rules: the path must lead to a regular file; when ``root`` (the folder the
organiser gave) is known, the file's real path (every link resolved) must lie
inside it; the file must be at most ``max_bytes`` long. The file is opened
non-blocking (a FIFO swapped in after the check cannot hang the reader) and
checked again on the open descriptor, and at most ``max_bytes`` are read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from srdash.errors import SrdashError

__all__ = ["MAX_FILE_BYTES", "FileRefused", "check_file", "read_csv_file", "read_file_bytes", "read_file_text"]

#: Default size limit of one input file (bytes): 64 MiB.
MAX_FILE_BYTES = 64 * 2**20


class FileRefused(SrdashError, OSError):
    """An input file that is not read, and why (never quoting its content).

    Also an :class:`OSError`, so that readers which already report unreadable
    files keep doing so.

    Attributes
    ----------
    path : str
        The file as given.
    reason : str
        Why it is refused, e.g. ``"is a link that leads outside the folder ..."``.
    """

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


def _size_text(size: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:,.0f} {unit}" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{size:,.1f} GiB"  # pragma: no cover


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def check_file(path, *, root=None, max_bytes: int | None = MAX_FILE_BYTES) -> Path:
    """Check that ``path`` is a regular file, inside ``root``, at most ``max_bytes`` long.

    Parameters
    ----------
    path : path-like
        The file to check.
    root : path-like, optional, keyword-only
        The folder the file must stay in once every link is resolved. None: any
        place (the user named the file directly).
    max_bytes : int or None, keyword-only
        Size limit in bytes; None for none.

    Returns
    -------
    pathlib.Path
        The file's real path (links resolved): open this one.

    Raises
    ------
    FileRefused
        Not found, a dangling link, a link leaving ``root``, a folder, a special
        file (FIFO, device, socket) or too large; the reason never quotes content.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_text("1\\n2\\n")
    >>> check_file(folder / "a.txt", root=folder).name
    'a.txt'
    >>> (folder / "out.txt").symlink_to("/etc/hostname")
    >>> check_file(folder / "out.txt", root=folder)
    Traceback (most recent call last):
    ...
    srdash.io.files.FileRefused: ...out.txt: is a link that leads outside the folder ...; refused (the file is not read).
    """
    given = Path(path)
    try:
        link = os.lstat(given)
    except FileNotFoundError:
        raise FileRefused(path, "file not found.") from None
    except OSError as exc:
        raise FileRefused(path, f"cannot be read ({exc.strerror or type(exc).__name__}).") from None
    real = os.path.realpath(given)
    if root is not None:
        real_root = os.path.realpath(root)
        if not _inside(real, real_root):
            what = "is a link that leads" if stat.S_ISLNK(link.st_mode) else "lies (through a linked folder)"
            raise FileRefused(path, f"{what} outside the folder {real_root}; refused (the file is not read).")
    try:
        info = os.stat(real)
    except FileNotFoundError:
        if stat.S_ISLNK(link.st_mode):
            raise FileRefused(path, "is a dangling link (its target does not exist); refused.") from None
        raise FileRefused(path, "file not found.") from None
    except OSError as exc:
        raise FileRefused(path, f"cannot be read ({exc.strerror or type(exc).__name__}).") from None
    _check_stat(path, info, max_bytes)
    return Path(real)


def _check_stat(path, info: os.stat_result, max_bytes: int | None) -> None:
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise FileRefused(path, "is a folder; expected a file.")
    if not stat.S_ISREG(mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        raise FileRefused(path, f"is {kind}, not a regular file; refused (the file is not read).")
    if max_bytes is not None and info.st_size > max_bytes:
        raise FileRefused(path, f"is {_size_text(info.st_size)}; the limit is {_size_text(max_bytes)}. "
                                f"Refused (the file is not read).")


def read_file_bytes(path, *, root=None, max_bytes: int | None = MAX_FILE_BYTES) -> bytes:
    """The content of an untrusted input file, after :func:`check_file`.

    Parameters
    ----------
    path : path-like
        The file.
    root : path-like, optional, keyword-only
        As in :func:`check_file`.
    max_bytes : int or None, keyword-only
        As in :func:`check_file`; also the most bytes read (a file that grows
        after the check is refused).

    Returns
    -------
    bytes

    Raises
    ------
    FileRefused
        As :func:`check_file`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_text("1\\n2\\n")
    >>> read_file_bytes(folder / "a.txt", root=folder)
    b'1\\n2\\n'
    >>> os.mkfifo(folder / "pipe")
    >>> read_file_bytes(folder / "pipe", root=folder)
    Traceback (most recent call last):
    ...
    srdash.io.files.FileRefused: ...pipe: is a FIFO (named pipe), not a regular file; refused (the file is not read).
    """
    real = check_file(path, root=root, max_bytes=max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(real, flags)
    except OSError as exc:  # swapped for a link or removed since the check
        raise FileRefused(path, f"cannot be read ({exc.strerror or type(exc).__name__}).") from None
    with os.fdopen(descriptor, "rb") as handle:
        _check_stat(path, os.fstat(handle.fileno()), max_bytes)
        limit = -1 if max_bytes is None else max_bytes + 1
        try:
            data = handle.read(limit)
        except OSError as exc:
            raise FileRefused(path, f"cannot be read ({exc.strerror or type(exc).__name__}).") from None
    if max_bytes is not None and len(data) > max_bytes:
        raise FileRefused(path, f"grew beyond the limit of {_size_text(max_bytes)} while being read; refused.")
    return data


def read_file_text(path, *, root=None, max_bytes: int | None = MAX_FILE_BYTES, encoding: str = "utf-8") -> str:
    """:func:`read_file_bytes` decoded; undecodable bytes are a refusal that quotes nothing.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.json"
    >>> _ = path.write_text('{"a": 1}')
    >>> read_file_text(path)
    '{"a": 1}'
    """
    data = read_file_bytes(path, root=root, max_bytes=max_bytes)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise FileRefused(path, f"is not {encoding} text (byte {exc.start + 1} cannot be decoded).") from None


_COMPRESSIONS = ((".gz", "gzip"), (".bz2", "bz2"), (".zip", "zip"), (".xz", "xz"), (".zst", "zstd"))


def read_csv_file(path, *, root=None, max_bytes: int | None = MAX_FILE_BYTES, **options):
    """``pandas.read_csv`` of a file read by :func:`read_file_bytes` (compression from the suffix).

    Parameters
    ----------
    path : path-like
        The file.
    root, max_bytes : keyword-only
        As in :func:`check_file`.
    **options
        Passed to :func:`pandas.read_csv`.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    FileRefused
        As :func:`check_file`; pandas' own errors otherwise.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a,b\\n1,2\\n")
    >>> read_csv_file(path).to_dict("list")
    {'a': [1], 'b': [2]}
    """
    import io

    import pandas as pd

    data = read_file_bytes(path, root=root, max_bytes=max_bytes)
    name = str(path).lower()
    compression = next((kind for suffix, kind in _COMPRESSIONS if name.endswith(suffix)), None)
    return pd.read_csv(io.BytesIO(data), compression=compression, **options)
