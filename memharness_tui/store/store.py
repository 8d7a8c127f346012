"""The Store: the one way the app and the CLI read and write a memharness database.

This module holds its lifecycle and the write path. Beside it: ``verdict_writer.py`` (the
staleness writer and the pass's work list), ``recall.py`` (SPEC §7), ``browse.py`` (a fact,
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
    InvalidInput,
    NotFound,
    ReadOnlyError,
    ReadOnlyFile,
    show_path,
    translate_sqlite,
)
from .models import bound_model
from .recall import RecallReads
from .remembered import RememberedReads
from .rows import _fact, _guarded, _successors
from .schema import SCHEMA_VERSION
from .split_scan import SplitScanner, SplitScans
from .timeutil import js_trim, normalize_iso
from .types import FRESHNESS_VALUES, Fact, RankingSettings
from .validation import (
    check_confidence,
    check_id,
    check_importance,
    check_kind,
    check_pin,
    check_str,
    no_surrogates,
    require_text,
)
from .verdict_writer import VerdictWriter


def _insert(conn: sqlite3.Connection, **row: Any) -> int:
    """INSERT one fact row (inside the caller's transaction); returns its id."""
    return int(conn.execute(sql.INSERT_FACT, row).lastrowid or 0)


def _empty(path: str) -> bool:
    try:
        return os.path.getsize(path) == 0
    except OSError:
        return False


class _Inherit:
    """Marker for downgrade arguments that default to the old row's own value."""

    def __repr__(self) -> str:
        return "INHERIT"


INHERIT: Any = _Inherit()


class Store(VerdictWriter, RecallReads, BrowseReads, SplitScans, RememberedReads):
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

    # --- writes ----------------------------------------------------------------------

    @_guarded(writing=True)
    def remember(
        self,
        subject: str,
        fact: str,
        *,
        predicate: str = "",
        confidence: float = 1.0,
        importance: int = 5,
        kind: str = "semantic",
        source_ref: str = "",
        source_agent: str = "",
        source_commit: str | None = None,
        source_path: str | None = None,
        valid_from: str | None = None,
    ) -> tuple[int, str]:
        """Record a new belief. Returns (id, tx_at)."""
        self._writable()
        subject = require_text(subject, "subject")
        fact = require_text(fact, "fact")
        confidence = check_confidence(confidence)
        importance = check_importance(importance)
        kind = check_kind(kind)
        predicate = js_trim(check_str(predicate, "predicate"))
        source_ref = check_str(source_ref, "source_ref")
        source_agent = check_str(source_agent, "source_agent")
        source_commit = check_pin(source_commit, "source_commit")
        source_path = check_pin(source_path, "source_path")
        tx_at = self.clock.now()
        vf = normalize_iso(valid_from, "valid_from") if valid_from is not None else tx_at
        with self._write(creates=True) as conn:
            new_id = _insert(
                conn,
                subject=subject,
                predicate=predicate,
                fact=fact,
                confidence=confidence,
                importance=importance,
                kind=kind,
                valid_from=vf,
                tx_at=tx_at,
                source_agent=source_agent,
                source_ref=source_ref,
                source_commit=source_commit,
                source_path=source_path,
            )
        return new_id, tx_at

    @_guarded(writing=True)
    def revise(
        self,
        old_id: int,
        new_fact: str,
        *,
        confidence: float = 1.0,
        importance: int | None = None,
        kind: str | None = None,
        source_ref: str = "",
        source_agent: str = "",
        source_commit: str | None = None,
        source_path: str | None = None,
        valid_from: str | None = None,
    ) -> tuple[int, int, str]:
        """Supersede ``old_id`` with a corrected fact, in one transaction. Returns (old, new, tx_at)."""
        self._writable()
        new_fact = require_text(new_fact, "new_fact")
        confidence = check_confidence(confidence)
        old_id = check_id(old_id, "old_id")
        source_ref = check_str(source_ref, "source_ref")
        source_agent = check_str(source_agent, "source_agent")
        source_commit = check_pin(source_commit, "source_commit")
        source_path = check_pin(source_path, "source_path")
        with self._write() as conn:
            old, new_id, tx_at = self._supersede(
                conn,
                old_id,
                new_fact,
                confidence=confidence,
                importance=importance,
                kind=kind,
                source_ref=source_ref,
                source_agent=source_agent,
                source_commit=source_commit,
                source_path=source_path,
                valid_from=valid_from,
            )
        return old.id, new_id, tx_at

    def _supersede(
        self,
        conn: sqlite3.Connection,
        old_id: int,
        new_fact: str,
        *,
        confidence: float,
        importance: int | None,
        kind: str | None,
        source_ref: str,
        source_agent: str,
        source_commit: str | None,
        source_path: str | None,
        valid_from: str | None,
    ) -> tuple[Fact, int, str]:
        """The body of revise, inside the caller's write transaction (validated arguments)."""
        row = conn.execute(sql.GET_FACT, (old_id,)).fetchone()
        if row is None:
            raise NotFound(f"no fact #{old_id}")
        old = _fact(row)
        if old.superseded_by is not None:
            later = _successors(conn, old, {old.id})
            head = later[-1] if later else old
            raise InvalidInput(
                f"fact #{old.id} is already superseded by #{old.superseded_by}; "
                f'the head of the chain is #{head.id}: "{head.fact}" — '
                f"re-check your correction against it, then revise #{head.id} if still needed"
            )
        imp = check_importance(importance) if importance is not None else old.importance
        knd = check_kind(kind) if kind is not None else old.kind
        tx_at = self.clock.now()
        vf = tx_at
        if valid_from is not None:
            vf = normalize_iso(valid_from, "valid_from")
            if vf > tx_at:
                raise InvalidInput(
                    f"valid_from cannot be in the future: got {vf}, now is {tx_at}"
                )
            if old.valid_from < old.tx_at and vf < old.valid_from:
                raise InvalidInput(
                    f"cannot backdate below the old fact's valid_from ({old.valid_from}); "
                    "it was itself backdated, so an earlier correction would invert its "
                    f"validity interval. got {vf}"
                )
        new_id = _insert(
            conn,
            subject=old.subject,
            predicate=old.predicate,
            fact=new_fact,
            confidence=confidence,
            importance=imp,
            kind=knd,
            valid_from=vf,
            tx_at=tx_at,
            source_agent=source_agent,
            source_ref=source_ref,
            source_commit=source_commit,
            source_path=source_path,
        )
        conn.execute(sql.SUPERSEDE_FACT, {"ts": vf, "new_id": new_id, "old_id": old.id})
        return old, new_id, tx_at

    @_guarded(writing=True)
    def downgrade(
        self,
        fact_id: int,
        factor: float = 0.5,
        *,
        source_agent: str,
        freshness: str | None = INHERIT,
        checked_head: str | None = None,
        source_commit: str | None = INHERIT,
        source_path: str | None = INHERIT,
    ) -> tuple[int, int, str]:
        """SPEC §8 downgrade in ONE transaction: revise + verdict copy. Returns (old, new, tx_at).

        The new row has the old text, confidence × ``factor``, the old source_ref, the pin
        (the old row's unless given), importance and kind inherited; then, when there is a
        verdict (the old row's ``freshness`` unless given), it is recorded on the new row
        with a second timestamp as checked_at and ``checked_head`` (default: the old row's,
        else ""). A kill between the two can no longer leave a downgraded row without its
        verdict. Errors are revise's: NotFound, or InvalidInput when already superseded.
        """
        self._writable()
        fid = check_id(fact_id, "fact_id")
        if (
            isinstance(factor, bool)
            or not isinstance(factor, int | float)
            or not 0 <= factor <= 1  # also refuses NaN
        ):
            raise InvalidInput(f"factor must be a number in [0, 1], got {factor!r}")
        source_agent = check_str(source_agent, "source_agent")
        if freshness is not INHERIT and freshness is not None and freshness not in FRESHNESS_VALUES:
            raise InvalidInput(
                f"freshness must be one of {', '.join(FRESHNESS_VALUES)}, got {freshness!r}"
            )
        if checked_head is not None:
            checked_head = check_str(checked_head, "checked_head")
        with self._write() as conn:
            row = conn.execute(sql.GET_FACT, (fid,)).fetchone()
            if row is None:
                raise NotFound(f"no fact #{fid}")
            cur = _fact(row)
            commit = cur.source_commit if source_commit is INHERIT else source_commit
            path = cur.source_path if source_path is INHERIT else source_path
            old, new_id, tx_at = self._supersede(
                conn,
                fid,
                require_text(cur.fact, "fact"),
                confidence=check_confidence(cur.confidence * factor),
                importance=None,
                kind=None,
                source_ref=cur.source_ref,
                source_agent=source_agent,
                source_commit=check_pin(commit, "source_commit"),
                source_path=check_pin(path, "source_path"),
                valid_from=None,
            )
            verdict = old.freshness if freshness is INHERIT else freshness
            if verdict:
                head = checked_head if checked_head is not None else (old.checked_head or "")
                conn.execute(
                    sql.SET_STALENESS,
                    {
                        "id": new_id,
                        "freshness": verdict,
                        "checked_at": normalize_iso(self.clock.now(), "checked_at"),
                        "checked_head": head,
                        "source_commit": None,
                        "source_path": None,
                    },
                )
        return old.id, new_id, tx_at

    @_guarded(writing=True)
    def forget(
        self, *, fact_id: int | None = None, source_ref: str | None = None
    ) -> tuple[int, list[int]]:
        """Retract by id or by exact source_ref. Returns (count, ids retracted now)."""
        self._writable()
        ts = self.clock.now()
        if fact_id is not None:
            fid = check_id(fact_id, "fact_id")
            stmt, params = sql.RETRACT_BY_ID, {"ts": ts, "id": fid}
        elif source_ref is not None:
            if not isinstance(source_ref, str):
                raise InvalidInput(f"source_ref must be a string, got {source_ref!r}")
            ref = js_trim(no_surrogates(source_ref, "source_ref"))
            if ref == "":
                raise InvalidInput("source_ref must be non-empty (refusing to retract everything)")
            stmt, params = sql.RETRACT_BY_SOURCE_REF, {"ts": ts, "source_ref": ref}
        else:
            raise InvalidInput("forget needs a fact_id or a source_ref")
        with self._write() as conn:
            ids = sorted(int(r[0]) for r in conn.execute(stmt, params).fetchall())
        return len(ids), ids
