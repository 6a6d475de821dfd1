"""Files private to their owner (mode 0600, folders 0700), whatever the umask.

The real-world track's files hold what only the organiser may read before the reveal: every
judge's ranks and comments, the digests of the access keys, the blinding seed (from which every
judge's blinded order can be recomputed). A file created the ordinary way gets ``0666 & ~umask``
(0644 under the usual umask 022: every local user reads it). These helpers create such files with
mode 0600 from the start (``os.open(..., 0o600)``: no moment at which another user could open
them) and take the group's and others' bits away from files of that kind that already exist.

SQLite creates a database's ``-wal`` and ``-shm`` files with the permissions of the database file
itself (its unix VFS copies the main file's mode), so a store created here with mode 0600 keeps
its companions private too; :func:`make_private` also tightens companions made before.

Examples
--------
>>> import os, stat, tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "export.csv"
...     with open_private(path, "w") as handle:
...         _ = handle.write("judge,rank\\n")
...     oct(stat.S_IMODE(os.stat(path).st_mode))
'0o600'
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO

__all__ = ["PRIVATE_FILE_MODE", "PRIVATE_FOLDER_MODE", "SQLITE_COMPANIONS", "create_private_file", "make_private",
           "open_private", "private_database", "private_folder"]

#: Mode of a private file: read and write for its owner only.
PRIVATE_FILE_MODE = 0o600
#: Mode of a private folder.
PRIVATE_FOLDER_MODE = 0o700
#: What SQLite writes beside a database (WAL mode, and the rollback journal before WAL is set).
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def make_private(path: str | Path) -> bool:
    """Take away the group's and others' permissions from ``path`` when it is a file of this user's.

    Returns True when the file is private now (or does not exist), False when it cannot be made so
    (another user's file, a read-only file system): the caller decides whether that is an error.
    Links are not followed.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return True
    if stat.S_ISLNK(info.st_mode):
        return False
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077:
        return True
    if info.st_uid != os.getuid():
        return False
    try:
        os.chmod(path, mode & 0o700)
    except OSError:
        return False
    return True


def private_folder(path: str | Path) -> Path:
    """Make ``path`` a folder (with its parents) if missing; the folders made here get mode 0700."""
    path = Path(path)
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_FOLDER_MODE)
        except FileExistsError:  # made meanwhile by another process
            continue
        os.chmod(folder, PRIVATE_FOLDER_MODE)  # mkdir's mode is cut by the umask; 0700 is what is meant
    return path


def create_private_file(path: str | Path) -> bool:
    """Create ``path`` empty with mode 0600 unless it exists; True when it was created here."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                             PRIVATE_FILE_MODE)
    except FileExistsError:
        return False
    try:
        os.fchmod(descriptor, PRIVATE_FILE_MODE)  # an umask cannot add bits, but an ACL'd folder could
    finally:
        os.close(descriptor)
    return True


def private_database(path: str | Path, *, create: bool) -> None:
    """An SQLite database and what SQLite writes beside it, private to their owner.

    With ``create``, the folder (0700 where made here) and an empty file (0600) are made first when
    missing: SQLite then opens that file instead of creating one with mode 0644, and gives its
    ``-wal`` and ``-shm`` the same 0600. Existing files (made before srdash kept them private) are
    made private; one that cannot be (another user's, a read-only medium) is left as it is.
    """
    path = Path(path)
    if create:
        private_folder(path.parent)
        create_private_file(path)
    for companion in ("", *SQLITE_COMPANIONS):
        make_private(f"{path}{companion}")


def open_private(path: str | Path, mode: str = "w", **options) -> IO:
    """``open(path, mode, **options)`` for writing a private file: created with mode 0600, or made
    private first when it exists.

    Parameters
    ----------
    path : path-like
    mode : {'w', 'wb', 'a', 'ab', 'x', 'xb'}
        As for :func:`open` (text modes take ``encoding``, ``newline``, ... in ``options``).

    Raises
    ------
    ValueError
        For a mode that does not write.
    PermissionError
        When the file exists and is another user's whose permissions let others read it.
    """
    flags = {"w": 0, "a": os.O_APPEND, "x": os.O_EXCL}.get(mode[:1])
    if flags is None or "+" in mode or "r" in mode:
        raise ValueError(f"The 'mode' option must be one of 'w', 'wb', 'a', 'ab', 'x', 'xb'. Got {mode!r}.")
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | flags, PRIVATE_FILE_MODE)
    try:
        info = os.fstat(descriptor)
        if stat.S_IMODE(info.st_mode) & 0o077:
            if info.st_uid != os.getuid():
                raise PermissionError(f"'{path}' belongs to another user and others may read it; "
                                      "write to a file of your own")
            os.fchmod(descriptor, stat.S_IMODE(info.st_mode) & 0o700)
        if mode[:1] == "w":  # emptied only once private
            os.ftruncate(descriptor, 0)
        return os.fdopen(descriptor, mode, **options)
    except BaseException:
        os.close(descriptor)
        raise
