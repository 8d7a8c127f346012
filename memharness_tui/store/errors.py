"""One small error hierarchy carrying the reference implementation's codes.

Every known failure is a :class:`MemharnessError` whose ``str()`` is ONE user-facing
sentence: what happened and what to do. The CLI prints it (exit 2) and the app shows it.
:func:`translate_sqlite` turns SQLite's own failures (a held lock, a full disk, a
read-only file, a pattern too complex…) into these classes; anything it does not know
stays the original exception — a genuine internal error.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator

# SQLite primary result codes (sqlite3.h); the extended code's low byte is the primary one.
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_READONLY = 8
_SQLITE_READONLY_ROLLBACK = 8 | (3 << 8)  # a hot journal that a read-only handle cannot undo
_SQLITE_IOERR = 10
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14
_SQLITE_TOOBIG = 18
_SQLITE_NOTADB = 26


class MemharnessError(Exception):
    """Base error; ``code`` is the reference's machine-readable code."""

    code = "ERROR"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self)


class InvalidInput(MemharnessError):
    code = "INVALID_INPUT"


class InvalidText(InvalidInput):
    """Text that is not valid UTF-8 (undecodable argv bytes arrive as lone surrogates)."""

    code = "INVALID_TEXT"


class QueryTooLong(InvalidInput):
    """A search text beyond what recall will run (see ``store.MAX_QUERY_CHARS``)."""

    code = "QUERY_TOO_LONG"


class NotFound(MemharnessError):
    code = "NOT_FOUND"


class SchemaTooNew(MemharnessError):
    code = "SCHEMA_TOO_NEW"


class StoreOpenError(MemharnessError):
    """The file cannot be opened as a memharness store (missing, corrupt, not SQLite)."""

    code = "OPEN_FAILED"


class NotADatabase(StoreOpenError):
    """The file is not SQLite at all, or its pages are damaged."""

    code = "NOT_A_DATABASE"


class ForeignDatabase(StoreOpenError):
    """A SQLite file that is someone else's: refused before anything is written."""

    code = "FOREIGN_DATABASE"


class NotAFile(StoreOpenError):
    """The path is a folder, a named pipe, a device…: not a regular file."""

    code = "NOT_A_FILE"


class FolderMissing(StoreOpenError):
    """An explicit path whose folder does not exist (likely a typo): nothing is created."""

    code = "NO_SUCH_FOLDER"


class InvalidPath(StoreOpenError):
    """A path that is not valid UTF-8, which SQLite cannot be given."""

    code = "INVALID_PATH"


class ReadOnlyError(MemharnessError):
    """A write was attempted on a store opened read-only."""

    code = "READ_ONLY"


class ReadOnlyFile(ReadOnlyError):
    """The file or its folder cannot be written (permissions, a read-only disk)."""

    code = "READ_ONLY_FILE"


class StoreBusy(MemharnessError):
    """Another process held the lock for the whole busy timeout."""

    code = "BUSY"


class DiskFull(MemharnessError):
    code = "DISK_FULL"


class StoreIOError(MemharnessError):
    """The operating system failed a read or write (a bad disk, a vanished mount…)."""

    code = "IO_ERROR"


class FileReplaced(MemharnessError):
    """The path no longer names the file this store has open (deleted, moved, or another file
    moved over it), or its -wal/-shm are no longer the ones it opened: nothing more is written
    through the old handle; reopen to use what is there now. The message is one of
    :func:`file_gone_message`'s."""

    code = "FILE_REPLACED"

    @property
    def what(self) -> str:
        """``deleted``, ``moved``, ``moved or deleted``, ``replaced`` or ``sidecars`` (its
        -wal/-shm deleted), read from the message (which crosses processes as text)."""
        text = self.message
        if text.startswith("the -"):
            return "sidecars"
        for what in ("deleted", "moved or deleted", "moved", "replaced"):
            if f" was {what} " in text:
                return what
        return "replaced"


def file_gone_message(shown: str, what: str, *, where: str | None = None,
                      sidecars: str = "", made_anew: bool = False) -> str:
    """The one sentence of a :class:`FileReplaced`: ``what`` is ``deleted``, ``moved``
    (``where`` to, when known), ``replaced``, ``moved or deleted`` (cannot tell), or
    ``sidecars`` (``sidecars`` names them: "-wal and -shm")."""
    if what == "deleted":
        return (f"{shown} was deleted while it was open; nothing more is written to it "
                "— reopen to start a new store there, or restore the file")
    if what == "moved":
        to = f" to {where}" if where is not None else " away"
        return (f"{shown} was moved{to} while it was open; nothing more is written to it — "
                "reopen to start a new store there, or move the file back")
    if what == "moved or deleted":
        return (f"{shown} was moved or deleted while it was open; nothing more is written "
                "to it — reopen to start a new store there, or put the file back")
    if what == "sidecars":
        verb = "were" if " and " in sidecars else "was"
        how = "deleted and made anew by another program" if made_anew else "deleted"
        return (f"the {sidecars} beside {shown} {verb} {how} while it was open; nothing more "
                "is written through the old ones — reopen to use the file as it is now")
    return (f"{shown} was replaced by another file while it was open; nothing more is "
            "written to the old one — reopen to use the file that is there now")


class FileDamaged(MemharnessError):
    """SQLite reported damaged pages in this file: reads of them fail, and writes are
    refused too (a write beside damage could make it worse, and its fact could be lost)."""

    code = "FILE_DAMAGED"


def without_nothing_written(message: str) -> str:
    """A store error's sentence for a step that stopped a longer job: the job says what it
    wrote, so the failed step's own "nothing was written/changed" (true of that step alone)
    is dropped rather than contradicting it."""
    for said in ("; nothing was written", "; nothing was changed"):
        message = message.replace(said, "")
    return message


def show_path(path: str) -> str:
    """A path as text that can always be printed: undecodable bytes become ``\\xNN``."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def busy_message(seconds: float, *, writing: bool) -> str:
    if writing:
        return (
            f"the database is busy: another process has held a write lock for {seconds:g} s; "
            "nothing was written — try again"
        )
    return (
        f"the database is busy: another process has held a lock on it for {seconds:g} s "
        "— try again"
    )


def _no_space_beside(path: str) -> bool:
    import os

    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)) or ".")
    except (OSError, ValueError, AttributeError):
        return False
    return st.f_bavail * st.f_frsize < 64 * 1024


def is_sqlite_error(exc: object) -> bool:
    """An error of the stdlib sqlite3 module or of a drop-in (pysqlite3) with the same classes."""
    return isinstance(exc, sqlite3.Error) or any(
        c.__module__.split(".")[0] in ("sqlite3", "pysqlite3") and c.__name__ == "Error"
        for c in type(exc).__mro__
    )


def _sqlite_cause(exc: BaseException) -> BaseException | None:
    """The SQLite error behind ``exc`` (Peewee wraps it as the first argument)."""
    if is_sqlite_error(exc):
        return exc
    if exc.args and is_sqlite_error(exc.args[0]):
        return exc.args[0]
    ctx = exc.__cause__ or exc.__context__
    return ctx if is_sqlite_error(ctx) else None


# The primary result code for drivers whose errors carry no sqlite_errorcode.
_BY_MESSAGE = (
    ("database is locked", _SQLITE_BUSY),
    ("database table is locked", _SQLITE_LOCKED),
    ("database or disk is full", _SQLITE_FULL),
    ("attempt to write a readonly database", _SQLITE_READONLY),
    ("disk I/O error", _SQLITE_IOERR),
    ("file is not a database", _SQLITE_NOTADB),
    ("database disk image is malformed", _SQLITE_CORRUPT),
    ("unable to open database file", _SQLITE_CANTOPEN),
    ("string or blob too big", _SQLITE_TOOBIG),
)


def _primary_code(err: BaseException) -> int:
    code = getattr(err, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    msg = str(err)
    return next((c for text, c in _BY_MESSAGE if text in msg), 0)


def _needs_rollback(err: BaseException, primary: int, path: str) -> bool:
    """SQLITE_READONLY_ROLLBACK: a hot -journal this read-only handle cannot undo.

    pysqlite3's exceptions carry only the primary code; there a READONLY failure beside a
    non-empty -journal is the same case.
    """
    if getattr(err, "sqlite_errorcode", None) == _SQLITE_READONLY_ROLLBACK:
        return True
    journal = path + "-journal"
    return (
        primary == _SQLITE_READONLY
        and os.path.exists(journal)
        and os.path.getsize(journal) > 0
    )


def classify(
    exc: BaseException, path: str, *, writing: bool, busy_seconds: float = 5.0
) -> MemharnessError | None:
    """The MemharnessError for a known SQLite/OS failure, or None for an unknown one."""
    if isinstance(exc, MemharnessError):
        return exc
    shown = show_path(path)
    nothing = "; nothing was written" if writing else ""
    if isinstance(exc, OSError):
        import errno

        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return DiskFull(
                f"the disk holding {shown} is full{nothing} — free some space and try again"
            )
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return ReadOnlyFile(
                f"cannot write beside {shown}: {(exc.strerror or str(exc)).lower()}{nothing} — "
                "fix the permissions or open it read-only"
            )
        return None
    err = _sqlite_cause(exc)
    if err is None:
        return None
    msg = str(err)
    primary = _primary_code(err)
    if "LIKE or GLOB pattern too complex" in msg or primary == _SQLITE_TOOBIG:
        return QueryTooLong(
            "the search text is too long for SQLite to match — search for a few distinctive "
            "words instead"
        )
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or "database is locked" in msg:
        return StoreBusy(busy_message(busy_seconds, writing=writing))
    if primary == _SQLITE_FULL:
        return DiskFull(
            f"the disk holding {shown} is full{nothing} — free some space and try again"
        )
    if _needs_rollback(err, primary, path):
        return ReadOnlyFile(
            f"{shown} has an unfinished transaction in {shown}-journal (a writer was "
            "interrupted) that SQLite must roll back before anyone can read it, and this open "
            "cannot write; nothing was changed — open it once read-write"
        )
    if primary == _SQLITE_READONLY:
        return ReadOnlyFile(
            f"cannot write {shown}: the file or its folder is read-only{nothing} — fix the "
            "permissions or open it read-only"
        )
    if primary == _SQLITE_IOERR and _no_space_beside(path):
        # SQLite reports ENOSPC while growing -shm or -wal as a plain I/O error.
        return DiskFull(
            f"the disk holding {shown} is full{nothing} — free some space and try again"
        )
    if primary == _SQLITE_IOERR:
        return StoreIOError(
            f"the disk reported an error reading or writing {shown} ({msg}){nothing} — "
            "check the disk and the file, then try again"
        )
    if primary in (_SQLITE_NOTADB, _SQLITE_CORRUPT):
        return NotADatabase(
            f"{shown} is not a usable SQLite database ({msg}); nothing was changed — "
            "check the path or restore the file from a backup"
        )
    if primary == _SQLITE_CANTOPEN:
        return StoreOpenError(
            f"cannot open {shown} ({msg}); nothing was changed — check the path and its "
            "permissions"
        )
    if "no such table" in msg or "no such column" in msg:
        return ForeignDatabase(
            f"{shown} lacks part of the memharness schema ({msg}); nothing was changed — "
            "check the path"
        )
    return None


@contextlib.contextmanager
def translate_sqlite(path: str, *, writing: bool = False) -> Iterator[None]:
    """Re-raise known SQLite/OS failures inside the block as one-sentence MemharnessErrors.

    ``writing``: the block writes (the sentence then says nothing was written — true,
    because every write is one transaction that SQLite rolled back).
    Unknown failures pass through unchanged.
    """
    from peewee import PeeweeException

    try:
        yield
    except MemharnessError:
        raise
    except Exception as exc:
        if not (is_sqlite_error(exc) or isinstance(exc, PeeweeException | OSError)):
            raise
        from .db import BUSY_TIMEOUT_MS

        mapped = classify(exc, path, writing=writing, busy_seconds=BUSY_TIMEOUT_MS / 1000)
        if mapped is None:
            raise
        cause = _sqlite_cause(exc)
        if cause is not None and _primary_code(cause) == _SQLITE_CORRUPT:
            # A store's own (locked, never immutable) read saw damaged pages: known damaged
            # from now on, so writes are refused too (damage.py, Store._refuse_unsafe_write).
            from . import damage

            damage.note(path)
        raise mapped from exc
