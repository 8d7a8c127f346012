"""One open memharness file: its connection, its write transaction and "now".

The Store (store.py) holds one :class:`StoreFile` and hands it to each of its parts
(reads, recall, writes, the verdict writer, the split scans, the remembered answers): they
read through ``conn``, write inside ``write()`` and stamp with ``clock``. This module also
watches the file's identity (a file moved or deleted under an open store) and opens a fresh
store's file once its first write has created it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from . import damage, sql
from .clock import Clock
from .db import (
    MemharnessDatabase,
    Opened,
    create_connection,
    immediate,
    open_database,
    remove_quietly,
    run_migrations,
)
from .driver import close_without_checkpoint, sqlite3
from .errors import (
    FileDamaged,
    FileReplaced,
    ReadOnlyError,
    ReadOnlyFile,
    file_gone_message,
    show_path,
    translate_sqlite,
)
from .models import bound_model
from .schema import SCHEMA_VERSION
from .split_scan import SplitScanner
from .types import RankingSettings


def _identity(path: str) -> tuple[int, int] | None:
    """(st_dev, st_ino) of what ``path`` names now; None when nothing is there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _links_of_open(ident: tuple[int, int]) -> int | None:
    """How many names the file with ``ident`` has, read from a descriptor SQLite holds open
    on it in this process (``/proc/self/fd``; fstat only: closing one would drop SQLite's
    locks): 0 when it was deleted. None where that cannot be read (no /proc, no such fd)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for name in names:
        try:
            st = os.fstat(int(name))
        except (OSError, ValueError):
            continue
        if (st.st_dev, st.st_ino) == ident:
            return st.st_nlink
    return None


def _name_in_folder(path: str, ident: tuple[int, int]) -> str | None:
    """Where in ``path``'s folder the file with ``ident`` is now (after an ``mv``), or None."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.inode() == ident[1] and _identity(entry.path) == ident:
                    return entry.path
    except OSError:
        return None
    return None


def _empty(path: str) -> bool:
    try:
        return os.path.getsize(path) == 0
    except OSError:
        return False


class StoreFile:
    """One memharness SQLite file, open (or fresh: not yet created). One per thread.

    A fresh file (absent, or an empty SQLite file) is not touched by opening it: reads
    answer as an empty store (``is_new``), and the first ``remember`` creates the schema
    and its row in one transaction — so a read or a refused write leaves it as it was.
    """

    def __init__(
        self,
        path: str,
        db: MemharnessDatabase | None,
        *,
        schema_version: int,
        clock: Clock,
        ranking: RankingSettings,
        readonly: bool,
        migration_note: str | None,
        trust_clock: bool = False,
        fresh: bool = False,
        readonly_reason: str | None = None,
        create_folder: bool = False,
    ) -> None:
        self.path = path
        self.schema_version = schema_version
        self.clock = clock
        self.ranking = ranking
        self.readonly = readonly
        #: why a read-write open fell back to read-only (None when asked for, or writable)
        self.readonly_reason = readonly_reason
        self.migration_note = migration_note
        self.trust_clock = trust_clock
        #: the file was absent or empty when opened: the app shows a "new, empty store" notice.
        #: Stays True for this Store's lifetime (the first write creates the file).
        self.is_new = fresh
        self._create_folder = create_folder
        # Fresh and not yet created: reads go to an empty in-memory store with the schema.
        self.fresh_pending = fresh and path != ":memory:" and db is None
        self._seen: tuple[int, int] | None = None
        # Answers of the scanning reads, by name: (snapshot, arguments, answer[, now window]).
        self.answers: dict[str, tuple[Any, ...]] = {}
        self.no_mmap = False
        self.splitter: SplitScanner | None = None
        if db is None:
            db = MemharnessDatabase(":memory:", empty_schema=True)
        self.db = db
        self.Fact = bound_model(db)
        #: (file, -wal, -shm) identities of the file this store has open, taken when opened
        self._ids: tuple[tuple[int, int] | None, ...] | None = None
        #: why this store stopped (its path names another file now, or none): every later
        #: call raises FileReplaced with it instead of silently reconnecting to the new file
        self._gone: str | None = None
        if not self.fresh_pending and path != ":memory:":
            self._note_identity()

    # --- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        if self.splitter is not None:
            self.splitter.close()
            self.splitter = None
        if self._gone is None and self._ids is not None and self.file_problem() is not None:
            self._let_go()  # the file was replaced or deleted: leave no -wal beside the new one
            return
        self.db.close()

    # --- is the path still the file we have open? (issue: mv/rm under an open store) -----

    def _note_identity(self) -> None:
        """Remember which file (and -wal/-shm) we have open. Called right after opening.

        The -wal/-shm are noted only after a read on our connection: it opens them (WAL
        mode creates them on the first read) and keeps a shared lock on the file from then
        on, so no other connection's close can remove them while we have them. Before a
        read, the ones at the path may be another process's, which its close may remove
        and the next opener make anew — ours then, not foreign."""
        read = False
        with contextlib.suppress(Exception):
            self.db.connection().execute("PRAGMA schema_version").fetchone()
            read = True
        file, wal, shm = (_identity(self.path + s) for s in ("", "-wal", "-shm"))
        self._ids = (file, wal, shm) if read else (file, None, None)

    def file_problem(self) -> str | None:
        """One sentence when ``path`` no longer names the file this store has open (it was
        deleted or moved, another file was moved over it, or its -wal/-shm were deleted or
        replaced); None while it does. Three stats."""
        if self._gone is not None:
            return self._gone
        if self._ids is None or self._ids[0] is None:
            return None
        now = _identity(self.path)
        if now == self._ids[0]:
            return self._sidecars_problem()
        shown = show_path(self.path)
        if now is not None:
            return file_gone_message(shown, "replaced")
        links = _links_of_open(self._ids[0])
        if links == 0:
            return file_gone_message(shown, "deleted")
        if links is None:
            return file_gone_message(shown, "moved or deleted")
        where = _name_in_folder(self.path, self._ids[0])
        return file_gone_message(shown, "moved",
                                 where=show_path(where) if where is not None else None)

    def _sidecars_problem(self) -> str | None:
        """The file is still the one we opened, but its -wal or -shm is not: deleted (``rm``),
        and perhaps made anew by another program's connection, which no longer shares our
        log or its index. Writing on, or closing normally (a checkpoint of our old log into
        the file, then the path's -wal/-shm removed), would cost that program its writes."""
        ids = self._ids or (None, None, None)
        changed = []
        for suffix, ours in (("-wal", ids[1]), ("-shm", ids[2])):
            if ours is not None:
                now = _identity(self.path + suffix)
                if now != ours:
                    changed.append((suffix, now is None))
        if not changed:
            return None
        return file_gone_message(show_path(self.path), "sidecars",
                                 sidecars=" and ".join(suffix for suffix, _ in changed),
                                 made_anew=not all(gone for _, gone in changed))

    def check_file(self) -> None:
        """Raise :class:`FileReplaced` (and let go of the old file) when the path no longer
        names the open file: before each write, on the app's poll, before a pass's batch."""
        problem = self.file_problem()
        if problem is None:
            return
        self._stop_using(problem)
        raise FileReplaced(problem)

    def _stop_using(self, problem: str) -> None:
        if self._gone is None:
            self._let_go()
            self._gone = problem

    def _let_go(self) -> None:
        """Stop using a file the path no longer names, leaving nothing of it beside the path.

        The file moved or deleted: SQLite skips its checkpoint-on-close for it and so would
        leave the old file's -wal (and -shm) beside the path, where the next open would read
        them as the new file's own — pages of one file applied to another. So: checkpoint our
        WAL into the old file ourselves (our own writes are kept with it), close, then remove
        the -wal/-shm if they are still the ones we opened (a -wal that came with the new
        file is left alone).

        The file still there but its -wal/-shm not ours: another program may be writing
        to the file through new ones. Nothing of ours may reach the file now — no checkpoint
        of our old log into it, and no removal at close of the -wal/-shm at the path (both
        what SQLite does when the last connection closes): the connection is closed without
        them (``driver.close_without_checkpoint``), and nothing is removed."""
        shared = _identity(self.path) == (self._ids or (None,))[0]
        if not shared:
            with contextlib.suppress(Exception):
                self.db.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        if self.splitter is not None:
            with contextlib.suppress(Exception):
                self.splitter.close()
            self.splitter = None
        if shared:
            self._close_without_checkpoint()
        else:
            with contextlib.suppress(Exception):
                self.db.close()
        self.answers.clear()
        if self.readonly or shared:
            return  # the writer (if any) checkpoints and tidies; a reader only lets go
        ids = self._ids or (None, None, None)
        for suffix, ours in (("-wal", ids[1]), ("-shm", ids[2])):
            if ours is not None and _identity(self.path + suffix) == ours:
                with contextlib.suppress(OSError):
                    os.remove(self.path + suffix)

    def _close_without_checkpoint(self) -> None:
        """Close this thread's connection with no close-time checkpoint or -wal/-shm removal
        (a connection that cannot be told so is kept open, and Peewee forgets it)."""
        if self.db.is_closed():
            return
        conn = self.db.connection()
        if not close_without_checkpoint(conn, self.path):
            self.db._state.reset()  # type: ignore[attr-defined]  # Peewee must not close it
            return
        with contextlib.suppress(Exception):
            self.db.close()  # Peewee's state (the connection itself is closed)

    @property
    def on_disk(self) -> bool:
        """Whether the store's file exists with its schema, so another connection (a second,
        read-only Store) can open it: False for ``:memory:`` and a fresh store not yet written."""
        return self.path != ":memory:" and not self.fresh_pending

    @property
    def conn(self) -> sqlite3.Connection:
        if self._gone is not None:
            raise FileReplaced(self._gone)
        if self.fresh_pending:
            self.adopt_if_created()
        return self.db.connection()

    def adopt_if_created(self) -> None:
        """A fresh store whose file has since been created (by us or another process): use it."""
        try:
            st = os.stat(self.path)
        except OSError:
            return
        wal = self.path + "-wal"
        wal_size = os.path.getsize(wal) if os.path.exists(wal) else 0
        seen = (st.st_size, st.st_mtime_ns + wal_size)
        if st.st_size == 0 or seen == self._seen:
            return
        self._seen = seen
        opened = open_database(self.path, readonly=self.readonly, create_folder=False)
        if opened.db is None:
            return  # still empty (say, only the WAL header so far)
        self._switch_to(opened, opened.db)

    def _switch_to(self, opened: Opened, db: MemharnessDatabase) -> None:
        self.answers.clear()
        self.db.close()
        self.db = db
        if self.no_mmap:
            db.map_bytes = 0
        self.Fact = bound_model(db)
        self.schema_version = opened.version
        self.readonly = opened.readonly
        self.readonly_reason = opened.readonly_reason
        self.fresh_pending = False
        self._note_identity()

    def writable(self) -> None:
        if self._gone is not None:
            raise FileReplaced(self._gone)
        if self.readonly:
            shown = show_path(self.path)
            if self.readonly_reason:
                raise ReadOnlyFile(
                    f"{shown} is open read-only because {self.readonly_reason}; nothing was "
                    "written — fix the permissions to write to it"
                )
            raise ReadOnlyError(f"{shown} is open read-only; nothing was written")

    @contextlib.contextmanager
    def write(self, *, creates: bool = False) -> Iterator[sqlite3.Connection]:
        """One BEGIN IMMEDIATE write transaction; rolled back (nothing written) on any error.

        On a fresh store a write that ``creates`` a row (remember) creates the file: the
        schema and the row commit together, so a failure leaves the file as it was (an
        absent file we created is removed again). Other writes on a fresh store run against
        the empty in-memory store and so refuse or change nothing, exactly as on an empty file.
        """
        self.writable()
        with translate_sqlite(self.path, writing=True):
            if self.fresh_pending:
                self.adopt_if_created()
            if not (self.fresh_pending and creates):
                try:
                    with immediate(self.conn) as conn:
                        # Inside the write lock, so nothing commits into a file the path no
                        # longer names, or one SQLite has reported damaged.
                        self._refuse_unsafe_write()
                        yield conn
                except FileReplaced as exc:
                    self._stop_using(exc.message)  # after the rollback: then let go
                    raise
                return
            conn, created = create_connection(self.path, create_folder=self._create_folder)
            committed = False
            try:
                with immediate(conn):
                    start = run_migrations(conn, self.path)
                    yield conn
                committed = True
                if start < SCHEMA_VERSION:
                    self.migration_note = f"initialised schema {start} → {SCHEMA_VERSION}"
            finally:
                conn.close()
                if not committed and created and _empty(self.path):
                    remove_quietly(self.path)
        # Reopen as a normal (WAL) store; if that fails now the write still stands and the
        # next call retries.
        self._seen = None
        with contextlib.suppress(Exception):
            self.adopt_if_created()

    def _refuse_unsafe_write(self) -> None:
        if self.path == ":memory:":
            return
        problem = self.file_problem()
        if problem is not None:
            raise FileReplaced(problem)
        if damage.known(self.path):
            raise FileDamaged(
                f"{show_path(self.path)} has damaged pages (SQLite reported them when it "
                "was read); nothing was written — restore it from a backup and start again, or "
                "copy out what is readable with `sqlite3 FILE .recover`"
            )

    def now(self) -> str:
        """A fresh timestamp from the store's clock (consumes one)."""
        return self.clock.now()

    def effective_now(self, clock_now: str) -> str:
        """The later of the clock's now and the newest tx_at in the file (another writer may be ahead)."""
        if self.trust_clock:
            return clock_now
        row = self.conn.execute(sql.MAX_TX_AT).fetchone()
        newest = row[0] if row else None
        return newest if newest is not None and newest > clock_now else clock_now
