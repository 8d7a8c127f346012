"""Opening the SQLite file: pragmas (SPEC §2), the migrator (SPEC §3), backups before migrating."""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from peewee import SqliteDatabase

from .driver import ChosenDriver, has_math_functions, sqlite3
from .errors import SchemaTooNew, StoreOpenError
from .schema import MIGRATIONS, SCHEMA_VERSION

BUSY_TIMEOUT_MS = 5000
_SIDECARS = ("-wal", "-shm", "-journal")
MMAP_SIZE = 256 * 1024 * 1024


def _pow(x: float | None, y: float | None) -> float | None:
    if x is None or y is None:
        return None
    return math.pow(x, y)


class MemharnessDatabase(ChosenDriver, SqliteDatabase):
    """A Peewee SqliteDatabase that applies memharness's connection pragmas in order."""

    def __init__(self, path: str, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        if readonly and path != ":memory:":
            target = "file:" + quote(os.path.abspath(path)) + "?mode=ro"
            super().__init__(target, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        else:
            super().__init__(path, timeout=BUSY_TIMEOUT_MS / 1000)

    def _add_conn_hooks(self, conn: sqlite3.Connection) -> None:
        # busy_timeout first, before anything that can contend.
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not self.readonly:
            _set_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # Per-connection read speed-up (recall's ~256 primary-key lookups); the file is unchanged.
        conn.execute(f"PRAGMA mmap_size = {MMAP_SIZE}")
        if not has_math_functions():
            conn.create_function("pow", 2, _pow, deterministic=True)
        super()._add_conn_hooks(conn)


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


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _has_foreign_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchone()
    return bool(row[0])


class _ForeignFile(StoreOpenError):
    """A SQLite file that is not a memharness store."""


def _refuse_unless_ours(conn: sqlite3.Connection, path: str, version: int) -> None:
    """Too new, or someone else's database: refuse, before anything is written."""
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"database schema version {version} is newer than this memharness-tui understands "
            f"(max {SCHEMA_VERSION}); upgrade memharness-tui. The file was not changed: {path}"
        )
    if version == 0 and _has_foreign_tables(conn):
        raise _ForeignFile(
            f"{path} is a SQLite database but not a memharness store (user_version 0 with "
            "other tables); refusing to add the memharness schema to it"
        )


def _row_count(conn: sqlite3.Connection) -> int:
    try:
        return int(conn.execute("SELECT count(*) FROM facts").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def backup_copy(conn: sqlite3.Connection, path: str, version: int) -> str:
    """Write a consistent copy of the database next to it with the SQLite backup API."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = f"{path}.v{version}-backup-{stamp}"
    n = 1
    while os.path.exists(target):
        n += 1
        target = f"{path}.v{version}-backup-{stamp}-{n}"
    dst = sqlite3.connect(target)
    try:
        conn.backup(dst)
    finally:
        dst.close()
    return target


def migrate(conn: sqlite3.Connection, path: str, *, readonly: bool) -> tuple[int, str | None]:
    """Bring the file to SCHEMA_VERSION. Returns (version, note about what was done or None).

    All pending migrations run in one BEGIN IMMEDIATE transaction with the version
    re-read inside the lock, so two processes opening a fresh file never both run m001.
    """
    version = user_version(conn)
    _refuse_unless_ours(conn, path, version)
    if version == SCHEMA_VERSION:
        return version, None
    if readonly:
        raise StoreOpenError(
            f"{path} has schema version {version} and needs migrating to {SCHEMA_VERSION}, "
            "which a read-only open cannot do; open it once read-write"
        )
    backup: str | None = None
    if path != ":memory:" and _row_count(conn) > 0:
        backup = backup_copy(conn, path, version)
    with immediate(conn):
        version = user_version(conn)
        _refuse_unless_ours(conn, path, version)
        start = version
        for number in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[number]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
    if start == SCHEMA_VERSION:
        note = None
    elif backup:
        note = f"migrated schema {start} → {SCHEMA_VERSION}; the original was backed up to {backup}"
    else:
        note = f"initialised schema {start} → {SCHEMA_VERSION}"
    return SCHEMA_VERSION, note


def _precheck(path: str) -> None:
    """Refuse a too-new, foreign or corrupt file through a read-only connection first.

    The writer's connection switches the file to WAL on open, so a file we refuse
    must be judged before that connection exists — it is left byte-identical. This
    look ignores a pending WAL; migrate() re-checks inside the write lock.
    """
    try:
        _precheck_with(path, immutable=True)
    except StoreOpenError as exc:
        if isinstance(exc, _ForeignFile):
            raise
        # immutable=1 ignores locks; a page torn by a concurrent checkpoint must not make a
        # healthy file look corrupt, so a failure is confirmed through a normal connection.
        _precheck_with(path, immutable=False)


def _precheck_with(path: str, *, immutable: bool) -> None:
    # immutable=1: no locks and no -wal/-shm files are created for this look.
    uri = "file:" + quote(os.path.abspath(path)) + "?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise StoreOpenError(f"cannot open {path}: {exc}") from None
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        version = user_version(conn)
        _refuse_unless_ours(conn, path, version)
    except sqlite3.DatabaseError as exc:
        msg = str(exc)
        if "not a database" in msg or "malformed" in msg:
            raise StoreOpenError(f"cannot open {path}: not a usable SQLite database ({msg})") from None
        raise StoreOpenError(f"cannot open {path}: {msg}") from None
    finally:
        conn.close()


def open_database(path: str, *, readonly: bool) -> tuple[MemharnessDatabase, int, str | None]:
    """Open (and migrate) the file; every failure is one clear StoreOpenError line."""
    if readonly and path != ":memory:" and not os.path.exists(path):
        raise StoreOpenError(f"no database at {path} (a read-only open does not create one)")
    if path.endswith(_SIDECARS):
        raise StoreOpenError(
            f"{path} is one of SQLite's side files (-wal, -shm, -journal), not a database; "
            "open the database file beside it"
        )
    if not readonly and path != ":memory:":
        parent = Path(path).parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreOpenError(f"cannot create the folder for {path}: {exc.strerror}") from None
        if os.path.isdir(path):
            raise StoreOpenError(f"{path} is a folder, not a database file")
    if not readonly and path != ":memory:" and os.path.exists(path):
        _precheck(path)
    db = MemharnessDatabase(path, readonly=readonly)
    try:
        conn = db.connection()
        version, note = migrate(conn, path, readonly=readonly)
    except (SchemaTooNew, StoreOpenError):
        db.close()
        raise
    except sqlite3.DatabaseError as exc:
        db.close()
        msg = str(exc)
        if "not a database" in msg or "malformed" in msg:
            raise StoreOpenError(f"cannot open {path}: not a usable SQLite database ({msg})") from None
        raise StoreOpenError(f"cannot open {path}: {msg}") from None
    except Exception as exc:  # peewee wraps sqlite errors in its own classes
        db.close()
        raise StoreOpenError(f"cannot open {path}: {exc}") from None
    return db, version, note
