"""The Store: the one way the app and the CLI read and write a memharness database.

This module holds its lifecycle: opening, the fresh store that a first write creates, the
write transaction, "now". Beside it: ``writes.py`` (remember, revise, downgrade, forget),
``verdict_writer.py`` (the staleness writer and the pass's work list), ``recall.py`` (SPEC §7), ``browse.py`` (a fact,
changes, stats, counts, subjects, pages, the flagged list), ``split_scan.py`` (whole-table
scans split across cores) and ``remembered.py`` (answers remembered per snapshot).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from . import sql
from .browse import BrowseReads
from .clock import Clock, SystemClock
from .db import (
    MemharnessDatabase,
    Opened,
    create_connection,
    immediate,
    open_database,
    remove_quietly,
    run_migrations,
)
from .driver import sqlite3
from .errors import (
    ReadOnlyError,
    ReadOnlyFile,
    show_path,
    translate_sqlite,
)
from .first_screen import FirstScreenReads
from .models import bound_model
from .recall import RecallReads
from .remembered import RememberedReads
from .schema import SCHEMA_VERSION
from .split_scan import SplitScanner, SplitScans
from .types import RankingSettings
from .verdict_writer import VerdictWriter
from .writes import FactWrites


def _empty(path: str) -> bool:
    try:
        return os.path.getsize(path) == 0
    except OSError:
        return False


class Store(FactWrites, VerdictWriter, RecallReads, FirstScreenReads, BrowseReads, SplitScans,
            RememberedReads):
    """A memharness store on one SQLite file. Use one Store per thread.

    A fresh file (absent, or an empty SQLite file) is not touched by opening it: reads
    answer as an empty store (``is_new``), and the first ``remember`` creates the schema
    and its row in one transaction — so a read or a refused write leaves it as it was.
    """

    def __init__(
        self,
        path: str,
        db: Any,
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
        self._fresh_pending = fresh and path != ":memory:" and db is None
        self._seen: tuple[int, int] | None = None
        # Answers of the scanning reads, by name: (snapshot, arguments, answer[, now window]).
        self._memo: dict[str, tuple[Any, ...]] = {}
        self._no_mmap = False
        self._splitter: SplitScanner | None = None
        if db is None:
            db = MemharnessDatabase(":memory:", empty_schema=True)
        self._db = db
        self.Fact = bound_model(db)

    # --- lifecycle -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | None = None,
        *,
        clock: Clock | None = None,
        ranking: RankingSettings | None = None,
        readonly: bool = False,
        trust_clock: bool = False,
        create_folder: bool | None = None,
    ) -> Store:
        """Open (migrating as needed) the store at ``path`` or the SPEC §1 default.

        ``trust_clock``: "now" is the clock's alone, even when the file holds newer tx_at
        (for ``--now`` audits); by default a writer whose clock runs ahead moves "now".
        ``create_folder``: whether a missing folder may be created on the first write;
        by default only for the default location — an explicit path in a folder that does
        not exist is refused (FolderMissing), since it is most likely a typo.
        A file that cannot be written (read-only file or folder) opens read-only, with
        ``readonly_reason`` saying why.
        """
        if path is None:
            from ..paths import default_db_path

            path = default_db_path()
            if create_folder is None:
                create_folder = True
        path = str(path)
        if path != ":memory:":
            path = os.path.expanduser(path)
        create = bool(create_folder)
        with translate_sqlite(path):
            opened = open_database(path, readonly=readonly, create_folder=create)
        return cls(
            path,
            opened.db,
            schema_version=opened.version,
            clock=clock or SystemClock(),
            ranking=ranking or RankingSettings(),
            readonly=opened.readonly,
            migration_note=opened.note,
            trust_clock=trust_clock,
            fresh=opened.fresh,
            readonly_reason=opened.readonly_reason,
            create_folder=create,
        )

    def close(self) -> None:
        if self._splitter is not None:
            self._splitter.close()
            self._splitter = None
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def on_disk(self) -> bool:
        """Whether the store's file exists with its schema, so another connection (a second,
        read-only Store) can open it: False for ``:memory:`` and a fresh store not yet written."""
        return self.path != ":memory:" and not self._fresh_pending

    @property
    def conn(self) -> sqlite3.Connection:
        if self._fresh_pending:
            self._adopt_if_created()
        return self._db.connection()

    def _adopt_if_created(self) -> None:
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
        self._switch_to(opened)

    def _switch_to(self, opened: Opened) -> None:
        self._memo.clear()
        self._db.close()
        self._db = opened.db
        if self._no_mmap:
            opened.db.map_bytes = 0
        self.Fact = bound_model(opened.db)
        self.schema_version = opened.version
        self.readonly = opened.readonly
        self.readonly_reason = opened.readonly_reason
        self._fresh_pending = False

    def _writable(self) -> None:
        if self.readonly:
            shown = show_path(self.path)
            if self.readonly_reason:
                raise ReadOnlyFile(
                    f"{shown} is open read-only because {self.readonly_reason}; nothing was "
                    "written — fix the permissions to write to it"
                )
            raise ReadOnlyError(f"{shown} is open read-only; nothing was written")

    @contextlib.contextmanager
    def _write(self, *, creates: bool = False) -> Iterator[sqlite3.Connection]:
        """One BEGIN IMMEDIATE write transaction; rolled back (nothing written) on any error.

        On a fresh store a write that ``creates`` a row (remember) creates the file: the
        schema and the row commit together, so a failure leaves the file as it was (an
        absent file we created is removed again). Other writes on a fresh store run against
        the empty in-memory store and so refuse or change nothing, exactly as on an empty file.
        """
        self._writable()
        with translate_sqlite(self.path, writing=True):
            if self._fresh_pending:
                self._adopt_if_created()
            if not (self._fresh_pending and creates):
                with immediate(self.conn) as conn:
                    yield conn
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
            self._adopt_if_created()

    def now(self) -> str:
        """A fresh timestamp from the store's clock (consumes one)."""
        return self.clock.now()

    def _effective_now(self, clock_now: str) -> str:
        """The later of the clock's now and the newest tx_at in the file (another writer may be ahead)."""
        if self.trust_clock:
            return clock_now
        row = self.conn.execute(sql.MAX_TX_AT).fetchone()
        newest = row[0] if row else None
        return newest if newest is not None and newest > clock_now else clock_now
