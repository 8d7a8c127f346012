"""Where the database file is: what kind of path it is and whether we may write there.

Pure file-system decisions taken before SQLite is given the path (so a FIFO never blocks
an open and a refused path gets nothing created beside it). No SQLite here.
"""

from __future__ import annotations

import os
import stat

from .errors import FolderMissing, InvalidPath, NotAFile, StoreOpenError, show_path

SIDECARS = ("-wal", "-shm", "-journal")


def is_wal_file(path: str) -> bool:
    """The header's read/write version bytes say WAL (2) — such a file needs -shm to read.

    Opening and closing the file here drops every POSIX lock this process holds on it
    (https://www.sqlite.org/howtocorrupt.html §2.2): with a connection already open, another
    process closing its own would then find itself the last one, checkpoint and delete the
    -wal and -shm under us. The callers ask it last, once no -shm (no open connection) is
    seen."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(20)
    except OSError:
        return False
    return len(header) == 20 and header[18] == 2


def why_readonly(path: str) -> str | None:
    """Why a read-write open of an existing file cannot write, or None when it can."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "it is on a read-only file system"
    except (OSError, AttributeError):  # no statvfs (Windows): the access checks below decide
        pass
    if not os.access(path, os.W_OK):
        return "the file is read-only"
    sidecars_ready = all(os.access(path + s, os.W_OK) for s in ("-wal", "-shm"))
    if not os.access(folder, os.W_OK) and not sidecars_ready:
        name = os.path.basename(path)
        return f"its folder is read-only (SQLite needs to create {name}-wal and {name}-shm there)"
    return None


def tidy_read_only(path: str) -> bool:
    """Whether a read-only open should use a read-write handle with ``query_only`` instead.

    A ``mode=ro`` connection to a WAL file creates -wal and -shm beside it and, unable to
    checkpoint, leaves them there when it closes: a read would add two files. When nobody
    has the file open (no side files) and we could write it, a read-write handle with
    ``PRAGMA query_only`` reads the same and, as the last connection, removes the side
    files it created on close — the folder is left as it was. It never creates the file.
    """
    folder = os.path.dirname(os.path.abspath(path))
    return (  # the header read last: see is_wal_file
        not os.path.exists(path + "-wal")
        and not os.path.exists(path + "-shm")
        and os.access(path, os.W_OK)
        and os.access(folder, os.W_OK)
        and is_wal_file(path)
    )


def unreadable_wal(path: str) -> bool:
    """A -wal with frames but no -shm, in a folder where no -shm can be made: no way to read it."""
    folder = os.path.dirname(os.path.abspath(path))
    wal = path + "-wal"
    return (  # the header read last: see is_wal_file
        os.path.exists(wal)
        and os.path.getsize(wal) > 0
        and not os.path.exists(path + "-shm")
        and not os.access(folder, os.W_OK)
        and is_wal_file(path)
    )


def needs_immutable(path: str) -> bool:
    """Whether a read-only open must (or should) use ``immutable=1``.

    Must: a WAL file in a folder where no -shm exists or can be made opens no other way
    (and with no -shm and no way to create one, no other process can be writing it).
    Should: a file we may not write, with no side files (nobody has it open): a plain
    read-only open would leave new -wal/-shm files beside it; immutable reads it as is.
    """
    folder = os.path.dirname(os.path.abspath(path))
    shm = os.path.exists(path + "-shm")
    if not shm and not os.access(folder, os.W_OK) and is_wal_file(path):
        return True
    return not shm and not os.path.exists(path + "-wal") and not os.access(path, os.W_OK)


def check_path(path: str, *, readonly: bool, create_folder: bool) -> bool:
    """Refuse paths that cannot be a store; returns whether the file exists."""
    shown = show_path(path)
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidPath(
            f"the database path {shown} is not valid UTF-8, which SQLite cannot open; "
            "rename the file or folder, or use another path"
        ) from None
    if path.endswith(SIDECARS):
        raise StoreOpenError(
            f"{shown} is one of SQLite's side files (-wal, -shm, -journal), not a database; "
            "open the database file beside it"
        )
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        raise StoreOpenError(f"cannot look at {shown}: {exc.strerror}") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise NotAFile(
                f"{shown} is a folder, not a database file; give the path of the .db file "
                "(for example memory.db inside it)"
            )
        if not stat.S_ISREG(st.st_mode):
            kind = "a named pipe (FIFO)" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
            raise NotAFile(
                f"{shown} is {kind}, not a database file; nothing was read or written — "
                "give the path of a memharness .db file"
            )
        return True
    if readonly:
        raise StoreOpenError(f"no database at {shown} (a read-only open does not create one)")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        if os.path.exists(folder):
            raise FolderMissing(
                f"{show_path(folder)} is not a folder, so {shown} cannot be created; nothing "
                "was created — check the path"
            )
        if not create_folder:
            raise FolderMissing(
                f"the folder {show_path(folder)} does not exist; nothing was created — check "
                "the path, or create the folder first"
            )
    return False
