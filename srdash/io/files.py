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

__all__ = ["MAX_EXPANDED_BYTES", "MAX_FILE_BYTES", "MAX_TABLE_CELLS", "MAX_TABLE_ROWS", "FileRefused", "check_file",
           "check_table_size", "expanded_bytes", "read_csv_file", "read_file_bytes", "read_file_text", "read_parquet_bytes"]

#: Default size limit of one input file (bytes): 64 MiB.
MAX_FILE_BYTES = 64 * 2**20
#: What a compressed results file may expand to, by format: a compressed CSV's text
#: is limited like an uncompressed one (64 MiB: compression buys no extra room); a
#: Parquet file's uncompressed column pages to 256 MiB (its strings are read once
#: per distinct value, see :func:`read_parquet_bytes`).
MAX_EXPANDED_BYTES = {"csv": MAX_FILE_BYTES, "parquet": 256 * 2**20}
#: Rows and cells of one results table, whatever its format: pandas holds a text
#: cell in about 60 bytes, so a table's memory is bounded by its cells, not its
#: bytes on disk (a 64 MiB CSV of short fields is 2 GB in pandas).
MAX_TABLE_ROWS = 1_000_000
MAX_TABLE_CELLS = 5_000_000


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

    data = expanded_bytes(read_file_bytes(path, root=root, max_bytes=max_bytes), path=path)
    first_line = data[:data.find(b"\n")]
    check_table_size(path, data.count(b"\n"), first_line.count(str(options.get("sep", ",")).encode()) + 1,
                     approximate=True)
    return pd.read_csv(io.BytesIO(data), **options)


def expanded_bytes(data: bytes, *, path, name: str | None = None, limit: int | None = None) -> bytes | bytearray:
    """The content of a possibly compressed file (compression from its name), refusing too much.

    Decompressed in chunks, counting, so that at most ``limit`` (default
    ``MAX_EXPANDED_BYTES["csv"]``) plus one chunk of 1 MiB is ever held.

    Raises
    ------
    FileRefused
        If the content expands beyond ``limit``, is not valid compressed data,
        or is a ``.zip`` holding other than one file.
    """
    import bz2
    import gzip
    import io
    import lzma
    import zipfile

    lower = (str(path) if name is None else name).lower()
    kind = next((kind for suffix, kind in _COMPRESSIONS if lower.endswith(suffix)), None)
    if kind is None:
        return data
    if kind == "zstd":
        raise FileRefused(path, "is compressed with zstd, which srdash does not read; use .gz, .bz2, .xz or .zip.")
    limit = MAX_EXPANDED_BYTES["csv"] if limit is None else limit
    expanded = bytearray()
    try:
        if kind == "zip":
            archive = zipfile.ZipFile(io.BytesIO(data))
            names = archive.namelist()
            if len(names) != 1:
                raise FileRefused(path, f"a .zip file must hold exactly one file; it holds {len(names)}.")
            handle = archive.open(names[0])
        else:
            opener = {"gzip": gzip.GzipFile, "bz2": bz2.BZ2File, "xz": lzma.LZMAFile}[kind]
            handle = opener(fileobj=io.BytesIO(data)) if kind == "gzip" else opener(io.BytesIO(data))
        with handle:
            while chunk := handle.read(2**20):
                expanded += chunk
                if len(expanded) > limit:
                    raise FileRefused(path, f"expands to more than {limit / 2**20:g} MiB of text (the limit for a "
                                            f"CSV, compressed or not); refused.")
    except (OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile) as exc:
        if isinstance(exc, FileRefused):
            raise
        raise FileRefused(path, f"is not a valid compressed file ({type(exc).__name__}).") from None
    return expanded  # a bytearray: no second copy


def check_table_size(path, rows: int, columns: int, *, approximate: bool = False) -> None:
    """Refuse a table of more than :data:`MAX_TABLE_ROWS` rows or :data:`MAX_TABLE_CELLS` cells.

    Raises
    ------
    FileRefused
        Naming the count and the limit.
    """
    about = "about " if approximate else ""
    if rows > MAX_TABLE_ROWS:
        raise FileRefused(path, f"has {about}{rows:,} rows; the limit is {MAX_TABLE_ROWS:,}.")
    if rows * columns > MAX_TABLE_CELLS:
        raise FileRefused(path, f"has {about}{rows:,} rows of {columns:,} columns ({rows * columns:,} cells); "
                                f"the limit is {MAX_TABLE_CELLS:,} cells.")


def read_parquet_bytes(data: bytes, *, path, max_expanded: int | None = None):
    """A Parquet file's table, refused from its metadata before the data is read if it would expand too far.

    A few KiB of Parquet can hold gigabytes: a run-length-encoded column of
    millions of rows, or one long string repeated through a dictionary. The
    footer says how many rows and columns the file has and the uncompressed size
    of each column chunk; those are checked first (:func:`check_table_size`,
    ``max_expanded``), then string columns are read dictionary-encoded (a value
    repeated on every row is held once) and the size they would take written out
    row by row, as pandas holds text, is checked against ``max_expanded`` too.

    Parameters
    ----------
    data : bytes
        The file's content (already read by :func:`read_file_bytes`).
    path : path-like, keyword-only
        For messages.
    max_expanded : int, keyword-only
        Bytes of uncompressed column pages allowed (default
        ``MAX_EXPANDED_BYTES["parquet"]``).

    Returns
    -------
    pandas.DataFrame
        String columns as object columns.

    Raises
    ------
    FileRefused
        Too many rows or cells, or pages expanding beyond ``max_expanded``.
    """
    import io

    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    limit = MAX_EXPANDED_BYTES["parquet"] if max_expanded is None else max_expanded
    parquet = pq.ParquetFile(io.BytesIO(data))
    metadata = parquet.metadata
    check_table_size(path, metadata.num_rows, metadata.num_columns)
    expanded = sum(metadata.row_group(g).column(c).total_uncompressed_size
                   for g in range(metadata.num_row_groups) for c in range(metadata.num_columns))
    if expanded > limit:
        raise FileRefused(path, f"expands to {_size_text(expanded)} of column data; the limit for a Parquet "
                                f"file is {_size_text(limit)}.")
    schema = parquet.schema_arrow
    def is_text(kind) -> bool:
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        return (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind)
                or pa.types.is_large_binary(kind))

    nested = [f.name for f in schema if pa.types.is_nested(f.type)]
    if nested:  # their values could repeat through a dictionary unseen; results are flat tables
        raise FileRefused(path, f"has nested columns (lists, structs or maps: {', '.join(nested[:5])}); a results "
                                f"table has one value per cell.")
    texts = [f.name for f in schema if is_text(f.type)]
    table = pq.ParquetFile(io.BytesIO(data), read_dictionary=texts).read()
    # What the strings take once written out row by row (pandas' text columns do that).
    written = expanded - sum(table.column(name).nbytes for name in texts)
    for name in texts:
        for chunk in table.column(name).chunks:
            lengths = pc.binary_length(chunk.dictionary)
            written += (pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0) + 8 * len(chunk)
    if written > limit:
        raise FileRefused(path, f"holds {_size_text(written)} of values once its repeated strings are written "
                                f"out; the limit for a Parquet file is {_size_text(limit)}.")
    frame = table.to_pandas()
    for name in frame.columns:
        if isinstance(frame[name].dtype, pd.CategoricalDtype):
            frame[name] = frame[name].astype(object)  # the categories' objects, shared between rows
    return frame
