"""Opening the SQLite file: pragmas (SPEC §2), the migrator (SPEC §3), backups before migrating."""

from __future__ import annotations

import contextlib
import functools
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

from peewee import PeeweeException, SqliteDatabase

from .driver import ChosenDriver, has_math_functions, sqlite3
from .errors import (
    ForeignDatabase,
    MemharnessError,
    ReadOnlyFile,
    StoreBusy,
    StoreOpenError,
    classify,
    show_path,
)
from .places import (
    SIDECARS,
    check_path,
    needs_immutable,
    tidy_read_only,
    unreadable_wal,
    why_readonly,
)
from .recognise import Inspection, inspect, refuse_unless_ours
from .schema import MIGRATIONS, SCHEMA_VERSION

BUSY_TIMEOUT_MS = 5000
# The map speeds up recall's primary-key lookups. Pages a scan touches stay in the resident
# set, so this is also the most a connection adds to RSS: 128 MB covers a 100k-fact store
# (~45 MB) whole and keeps the app under 300 MB on a million facts (256 MB: 322 MB).
MMAP_SIZE = 128 * 1024 * 1024


LENIENT_TEXT = functools.partial(str, encoding="utf-8", errors="replace")
"""Every connection's ``text_factory``: TEXT that is not valid UTF-8 (a lone surrogate the
reference's driver stored as ED A0 80) reads with U+FFFD in place of the bad bytes instead
of failing the whole read. Nothing is written back: the bytes in the file stay as they are.
A C-level callable (``str`` itself), so valid text costs one bytes object per value."""


def lenient_text(conn: sqlite3.Connection) -> sqlite3.Connection:
    """``conn`` reading undecodable TEXT with U+FFFD (:data:`LENIENT_TEXT`); returns it."""
    conn.text_factory = LENIENT_TEXT
    return conn


def _pow(x: float | None, y: float | None) -> float | None:
    if x is None or y is None:
        return None
    return math.pow(x, y)


class MemharnessDatabase(ChosenDriver, SqliteDatabase):
    """A Peewee SqliteDatabase that applies memharness's connection pragmas in order."""

    def __init__(
        self,
        path: str,
        *,
        readonly: bool = False,
        immutable: bool = False,
        query_only: bool = False,
        empty_schema: bool = False,
    ) -> None:
        self.path = path
        # ":memory:" with the schema on every connection: a fresh store's empty stand-in
        # (Peewee opens one connection per thread, and each in-memory one starts empty).
        self.empty_schema = empty_schema and path == ":memory:"
        self.readonly = readonly
        self.query_only = readonly and query_only
        #: PRAGMA mmap_size for each new connection (``Store.without_memory_map`` sets 0)
        self.map_bytes = MMAP_SIZE
        if self.query_only:
            # See tidy_read_only(): a read-write handle that refuses every write.
            target = "file:" + quote(os.path.abspath(path)) + "?mode=rw"
            super().__init__(target, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        elif readonly and path != ":memory:":
            target = ro_uri(path, immutable=immutable)
            super().__init__(target, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        else:
            super().__init__(path, timeout=BUSY_TIMEOUT_MS / 1000)

    def _add_conn_hooks(self, conn: sqlite3.Connection) -> None:
        # busy_timeout first, before anything that can contend.
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        lenient_text(conn)
        if not self.readonly:
            _set_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
        if self.query_only:
            conn.execute("PRAGMA query_only = 1")
        conn.execute("PRAGMA foreign_keys = ON")
        if self.empty_schema:
            run_migrations(conn, ":memory:")
        # Per-connection read speed-up (recall's ~256 primary-key lookups); the file is unchanged.
        conn.execute(f"PRAGMA mmap_size = {int(self.map_bytes)}")
        if not has_math_functions():
            conn.create_function("pow", 2, _pow, deterministic=True)
        super()._add_conn_hooks(conn)  # type: ignore[misc]  # SqliteDatabase's (after ChosenDriver)


def _set_wal(conn: sqlite3.Connection) -> None:
    """journal_mode=WAL, retried briefly: SQLite does not apply the busy handler to it."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


@contextlib.contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A BEGIN IMMEDIATE transaction: takes the write lock up front, rolls back on error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _row_count(conn: sqlite3.Connection) -> int:
    try:
        return int(conn.execute("SELECT count(*) FROM facts").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def backup_copy(conn: sqlite3.Connection, path: str, version: int) -> str:
    """Write a consistent copy of the database next to it with the SQLite backup API.

    A copy that fails (a full disk) is removed: a failed migration leaves no files behind.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = f"{path}.v{version}-backup-{stamp}"
    n = 1
    while os.path.exists(target):
        n += 1
        target = f"{path}.v{version}-backup-{stamp}-{n}"
    try:
        dst = sqlite3.connect(target)
        try:
            conn.backup(dst)
        finally:
            dst.close()
    except BaseException:
        remove_quietly(target)
        raise
    return target


def remove_quietly(path: str) -> None:
    """Remove a file we made and its SQLite side files; a missing one is fine."""
    for suffix in ("", *SIDECARS):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)


def run_migrations(conn: sqlite3.Connection, path: str) -> int:
    """Inside the caller's write transaction: re-check the file, then run what is pending.

    Returns the version found under the lock (another process may have migrated first).
    """
    found = inspect(conn)
    refuse_unless_ours(found, path)
    for number in range(found.version, SCHEMA_VERSION):
        for statement in MIGRATIONS[number]:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number + 1}")
    return found.version


def migrate(conn: sqlite3.Connection, path: str, *, readonly: bool) -> tuple[int, str | None]:
    """Bring the file to SCHEMA_VERSION. Returns (version, note about what was done or None).

    All pending migrations run in one BEGIN IMMEDIATE transaction with the version
    re-read inside the lock, so two processes opening a fresh file never both run m001.
    A backup is taken first when the file holds rows; if the migration then fails the
    backup is removed (the original is unchanged, so it would only be clutter).
    """
    found = inspect(conn)
    refuse_unless_ours(found, path)
    version = found.version
    if version == SCHEMA_VERSION:
        return version, None
    if readonly:
        raise StoreOpenError(
            f"{show_path(path)} has schema version {version} and needs migrating to "
            f"{SCHEMA_VERSION}, which a read-only open cannot do; open it once read-write"
        )
    backup: str | None = None
    if path != ":memory:" and _row_count(conn) > 0:
        backup = backup_copy(conn, path, version)
    try:
        with immediate(conn):
            start = run_migrations(conn, path)
    except BaseException:
        if backup:
            remove_quietly(backup)
        raise
    if start == SCHEMA_VERSION:
        if backup:
            remove_quietly(backup)
        note = None
    elif backup:
        note = f"migrated schema {start} → {SCHEMA_VERSION}; the original was backed up to {backup}"
    else:
        note = f"initialised schema {start} → {SCHEMA_VERSION}"
    return SCHEMA_VERSION, note


# --- looking at a file before opening it for real --------------------------------------


def ro_uri(path: str, *, immutable: bool = False) -> str:
    return "file:" + quote(os.path.abspath(path)) + "?mode=ro" + ("&immutable=1" if immutable else "")


def _look(path: str, *, immutable: bool) -> Inspection:
    try:
        conn = sqlite3.connect(ro_uri(path, immutable=immutable), uri=True)
    except sqlite3.Error as exc:
        raise _open_failure(exc, path) from None
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return inspect(conn)
    except sqlite3.Error as exc:
        raise _open_failure(exc, path) from None
    finally:
        conn.close()


def precheck(path: str) -> Inspection:
    """Judge a file through a read-only connection before any writer touches it.

    The writer's connection switches the file to WAL on open, so a file we refuse
    must be judged before that connection exists — it is left byte-identical. The
    first look is ``immutable`` (no locks, no -wal/-shm created) and so ignores a
    pending WAL; when that matters (a failure, or a file that looks empty while a
    -wal beside it holds data) it is confirmed through a normal read-only connection.
    migrate() re-checks inside the write lock in any case.
    """
    try:
        found = _look(path, immutable=True)
    except ForeignDatabase:
        raise
    except StoreOpenError:
        # immutable=1 ignores locks; a page torn by a concurrent checkpoint must not make a
        # healthy file look corrupt, so a failure is confirmed through a normal connection.
        return _confirm(path)
    wal = path + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        try:
            return _look(path, immutable=False)
        except StoreOpenError:
            return found  # a -wal we cannot read through (read-only folder): the file as is
    return found


def _confirm(path: str) -> Inspection:
    """The normal read-only look after a failed immutable one. A damaged header that says
    WAL makes SQLite create an empty -wal and -shm before it finds the file unusable; a
    refusal must leave the folder as it was, so the sidecars this look made are removed."""
    sidecars = [path + "-wal", path + "-shm"]
    existed = [os.path.exists(s) for s in sidecars]
    try:
        return _look(path, immutable=False)
    except StoreOpenError:
        wal, shm = sidecars
        if not existed[0]:
            with contextlib.suppress(OSError):
                if os.path.getsize(wal) == 0:  # nothing in it: ours, never a writer's data
                    os.remove(wal)
        if not existed[1]:  # the file is unusable: no connection of anyone's needs it
            with contextlib.suppress(OSError):
                os.remove(shm)
        raise


def _open_failure(exc: sqlite3.Error, path: str) -> MemharnessError:
    mapped = classify(exc, path, writing=False, busy_seconds=BUSY_TIMEOUT_MS / 1000)
    if mapped is not None:
        return mapped
    return StoreOpenError(f"cannot open {show_path(path)}: {exc}")


# --- opening -------------------------------------------------------------------------------


@dataclass
class Opened:
    """The result of :func:`open_database`.

    ``db`` is None when the file is ``fresh``: absent or an empty SQLite file. Nothing
    is written to it until the first write (``Store._write(creates=True)``), so a read or a
    refused write leaves it exactly as it was.
    """

    db: MemharnessDatabase | None
    version: int
    note: str | None
    fresh: bool
    readonly: bool
    readonly_reason: str | None = None


def open_database(path: str, *, readonly: bool, create_folder: bool = False) -> Opened:
    """Open (and migrate) the file; every failure is one clear MemharnessError line.

    A fresh file (absent, or an empty SQLite file) is not opened at all: the Store
    answers reads as an empty store and creates the schema with its first write.
    A file we may not write (read-only file or folder) opens read-only, with the reason.
    """
    if path == ":memory:":
        memory = MemharnessDatabase(path, readonly=False)
        version, note = migrate(memory.connection(), path, readonly=False)
        return Opened(memory, version, note, fresh=True, readonly=readonly)
    exists = check_path(path, readonly=readonly, create_folder=create_folder)
    if exists and not readonly and _hot_journal(path) and why_readonly(path) is None:
        _roll_back_hot_journal(path)
    if not exists or os.path.getsize(path) == 0:
        return Opened(None, SCHEMA_VERSION, None, fresh=True, readonly=readonly)
    found = precheck(path)
    refuse_unless_ours(found, path)
    if found.fresh:
        return Opened(None, SCHEMA_VERSION, None, fresh=True, readonly=readonly)
    reason = None if readonly else why_readonly(path)
    ro = readonly or reason is not None
    if ro and found.version < SCHEMA_VERSION:
        because = f"because {reason}" if reason else "in a read-only open"
        raise (ReadOnlyFile if reason else StoreOpenError)(
            f"{show_path(path)} has schema version {found.version} and needs migrating to "
            f"{SCHEMA_VERSION}, which cannot be done {because}; nothing was changed — open "
            "it once read-write"
        )
    if ro and unreadable_wal(path):
        raise ReadOnlyFile(
            f"{show_path(path)} has changes in {show_path(path)}-wal that SQLite can only read "
            "with a -shm file beside it, and its folder is read-only; nothing was changed — "
            "open it once where the folder is writable (or copy the three files elsewhere)"
        )
    changed = False
    migration_note = None
    db: MemharnessDatabase | None = None
    try:
        if not ro and found.version < SCHEMA_VERSION:
            # Migrate on a plain connection first, in the file's own journal mode: a refusal
            # or a failure (busy, full disk) then leaves it byte-identical — the writer's
            # connection below would switch it to WAL before anything else.
            plain = _plain_connection(path)
            try:
                _, migration_note = migrate(plain, path, readonly=False)
            finally:
                plain.close()
            changed = True
        db = MemharnessDatabase(
            path,
            readonly=ro,
            immutable=ro and needs_immutable(path),
            query_only=ro and tidy_read_only(path),
        )
        version, note = migrate(db.connection(), path, readonly=ro)
    except MemharnessError:
        if db is not None:
            db.close()
        raise
    except (sqlite3.Error, PeeweeException, OSError) as exc:
        if db is not None:
            db.close()
        mapped = classify(exc, path, writing=True, busy_seconds=BUSY_TIMEOUT_MS / 1000)
        if mapped is None:
            raise StoreOpenError(f"cannot open {show_path(path)}: {exc}") from None
        if isinstance(mapped, StoreBusy):
            unchanged = "" if changed else "; nothing was changed"
            mapped = StoreBusy(
                f"the database is busy: another process has held a lock on it for "
                f"{BUSY_TIMEOUT_MS / 1000:g} s{unchanged} — try again"
            )
        raise mapped from None
    return Opened(
        db, version, note or migration_note, fresh=False, readonly=ro, readonly_reason=reason
    )


def _hot_journal(path: str) -> bool:
    journal = path + "-journal"
    return os.path.exists(journal) and os.path.getsize(journal) > 0


def _roll_back_hot_journal(path: str) -> None:
    """A writer killed mid-transaction (rollback-journal mode, e.g. a fresh file's first
    write) leaves a hot -journal; SQLite undoes it on the first read of a handle that may
    write, restoring the last committed state. The read-only looks that follow cannot."""
    try:
        conn = _plain_connection(path)
        try:
            conn.execute("PRAGMA user_version").fetchone()
        finally:
            conn.close()
    except (sqlite3.Error, OSError) as exc:
        raise _open_failure(exc, path) from None


def _plain_connection(path: str) -> sqlite3.Connection:
    """A connection with only busy_timeout and foreign_keys: no WAL switch, no side effects."""
    conn = lenient_text(
        sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None))
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def create_connection(path: str, *, create_folder: bool) -> tuple[sqlite3.Connection, bool]:
    """A plain connection for the first write to a fresh file; returns (conn, we_created_it).

    Rollback-journal mode on purpose: the schema and the first row are one transaction,
    and a rolled-back transaction leaves an empty file empty (switching to WAL would
    write the header at once). The Store switches to WAL when it reopens after commit.
    """
    folder = os.path.dirname(os.path.abspath(path))
    if create_folder:
        os.makedirs(folder, exist_ok=True)
    created = False
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        pass
    else:
        os.close(fd)
        created = True
    return _plain_connection(path), created
