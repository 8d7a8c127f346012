"""The Store: the one way the app and the CLI read and write a memharness database."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from peewee import SQL, fn

from . import sql
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
    StoreOpenError,
    show_path,
    translate_sqlite,
)
from .models import bound_model
from .schema import SCHEMA_VERSION
from .timeutil import js_split, js_trim, normalize_iso
from .types import (
    FACT_COLUMNS,
    FRESHNESS_FILTERS,
    FRESHNESS_VALUES,
    DiffResult,
    Fact,
    RankingSettings,
    RecallResult,
    RevisedPair,
    StalenessTarget,
    StalenessUpdate,
    StatsResult,
    StoreCounts,
    SubjectCount,
    SubjectSummary,
    WhyResult,
)
from .validation import (
    check_confidence,
    check_id,
    check_importance,
    check_kind,
    check_pin,
    check_positive_int,
    check_query,
    check_str,
    no_surrogates,
    require_text,
)

_NCOLS = len(FACT_COLUMNS)


def _fact(row: Sequence[Any], score: float | None = None) -> Fact:
    return Fact(*row[:_NCOLS], score=score)


def _fts_phrases(query: str) -> list[str]:
    """Each whitespace token as a quoted FTS5 phrase (inner quotes doubled): never a syntax error."""
    return ['"' + t.replace('"', '""') + '"' for t in js_split(query)]


def _like_pattern(query: str) -> str:
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _chain_loop(fact_id: int) -> StoreOpenError:
    """A superseded_by cycle can only come from a damaged file; never loop on it."""
    return StoreOpenError(f"the supersession chain loops at #{fact_id}; the file is damaged")


def _successors(conn: sqlite3.Connection, fact: Fact, seen: set[int]) -> list[Fact]:
    """The rows that superseded ``fact``, nearest first (``seen`` guards against loops)."""
    out: list[Fact] = []
    cursor = fact
    while cursor.superseded_by is not None:
        nxt = conn.execute(sql.GET_FACT, (cursor.superseded_by,)).fetchone()
        if nxt is None:
            break
        cursor = _fact(nxt)
        if cursor.id in seen:
            raise _chain_loop(cursor.id)
        seen.add(cursor.id)
        out.append(cursor)
    return out


def _sqlite_order(value: Any) -> tuple[int, Any]:
    """A sort key that orders mixed values as SQLite does: NULL, numbers, text, blobs."""
    if value is None:
        return (0, 0)
    if isinstance(value, int | float):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    return (3, bytes(value))


def _copied(d: DiffResult) -> DiffResult:
    """A remembered diff with fresh lists (callers may filter or extend theirs)."""
    return DiffResult(since=d.since, learned=list(d.learned), revised=list(d.revised),
                      retracted=list(d.retracted))


def _insert(conn: sqlite3.Connection, **row: Any) -> int:
    """INSERT one fact row (inside the caller's transaction); returns its id."""
    return int(conn.execute(sql.INSERT_FACT, row).lastrowid or 0)


def _empty(path: str) -> bool:
    try:
        return os.path.getsize(path) == 0
    except OSError:
        return False


def estimate_tokens(text: str) -> int:
    """ceil(length / 4), length in UTF-16 code units as JavaScript counts it."""
    return math.ceil(len(text.encode("utf-16-le")) // 2 / 4)


_F = TypeVar("_F", bound=Callable[..., Any])


def _guarded(*, writing: bool) -> Callable[[_F], _F]:
    """Store methods: known SQLite failures become one-sentence errors (errors.translate_sqlite).

    Also picks up a file another process created while this store was still fresh.
    """

    def deco(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(self: Store, *args: Any, **kwargs: Any) -> Any:
            with translate_sqlite(self.path, writing=writing):
                if self._fresh_pending:
                    self._adopt_if_created()
                return fn(self, *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return deco


class _Inherit:
    """Marker for downgrade arguments that default to the old row's own value."""

    def __repr__(self) -> str:
        return "INHERIT"


INHERIT: Any = _Inherit()


class Store:
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

    # --- remembered answers of the scanning reads ---------------------------------------

    def _snapshot(self) -> tuple[int, int, int]:
        """What this connection can see, as a key that moves whenever that may have changed.

        ``PRAGMA data_version`` moves when another connection (another process, or another
        Store on the same file) commits; ``total_changes`` counts every row this connection
        itself changed (raw SQL on ``store.conn`` included, rolled back or not). Both are
        cheap, so a header refresh with nothing new costs two pragmas instead of a table scan.
        """
        conn = self.conn
        version = int(conn.execute(sql.DATA_VERSION).fetchone()[0])
        return id(conn), version, int(conn.total_changes)

    def _recalled(self, name: str, args: Any, now: str | None = None) -> tuple[bool, Any, Any]:
        """(hit, answer, snapshot) for a remembered answer of ``name`` with these ``args``.

        A "now"-dependent answer (``now`` given) was computed at some instant t and holds for
        every now' with t <= now' < the earliest future valid_from it saw (nothing became
        current in between) — so it is reused exactly, never approximately.
        """
        snap = self._snapshot()
        held = self._memo.get(name)
        if held is None or held[0] != snap or held[1] != args:
            return False, None, snap
        if now is not None:
            t, until = held[3], held[4]
            if now < t or (until is not None and now >= until):
                return False, None, snap
        return True, held[2], snap

    def _remember_answer(self, name: str, snap: Any, args: Any, answer: Any,
                         now: str | None = None, until: str | None = None) -> None:
        self._memo[name] = (snap, args, answer, now, until)

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

    # --- recall ----------------------------------------------------------------------

    @_guarded(writing=False)
    def recall(
        self,
        query: str = "",
        *,
        subject: str = "",
        kind: str | None = None,
        as_of: str | None = None,
        limit: int = 8,
        max_tokens: int | None = None,
        freshness: str | None = None,
        reinforce: bool = False,
    ) -> RecallResult:
        """The agent's view (SPEC §7), ranked in SQL. Never writes unless ``reinforce``."""
        query = check_query(query)
        subject = js_trim(check_str(subject if subject is not None else "", "subject"))
        limit = check_positive_int(limit, "limit")
        if max_tokens is not None:
            max_tokens = check_positive_int(max_tokens, "max_tokens")
        if freshness is not None and freshness not in FRESHNESS_FILTERS:
            raise InvalidInput(
                f"freshness must be one of {', '.join(FRESHNESS_FILTERS)}, got {freshness!r}"
            )
        if reinforce:
            self._writable()
        asof = normalize_iso(as_of, "as_of") if as_of is not None else None
        knd = check_kind(kind) if kind is not None else None

        r = self.ranking
        filters = [sql.AS_OF_FILTER if asof is not None else sql.CURRENT_FILTER]
        params: dict[str, Any] = {
            # SPEC §7: in as_of mode "now" (decay only) is the clock's now, not T.
            "now": self.clock.now() if asof is not None else self._effective_now(self.clock.now()),
            "hl_semantic": r.half_life_days,
            "hl_episodic": r.kind_half_life_days.get("episodic", r.half_life_days),
            "hl_procedural": r.kind_half_life_days.get("procedural", r.half_life_days),
            "importance_weight": r.importance_weight,
            "importance_hl_weight": r.importance_half_life_weight,
            "min_hl_factor": r.min_half_life_factor,
            "stale_weight": r.stale_weight,
            "unresolved_weight": r.unresolved_weight,
            "limit": limit,
        }
        if asof is not None:
            params["as_of"] = asof
        if subject:
            filters.append(sql.SUBJECT_FILTER)
            params["subject"] = subject
        if knd is not None:
            filters.append(sql.KIND_FILTER)
            params["kind"] = knd
        if freshness == "unchecked":
            filters.append(sql.UNCHECKED_FILTER)
        elif freshness is not None:
            filters.append(sql.FRESHNESS_FILTER)
            params["freshness"] = freshness

        conn = self.conn
        used_fallback = False
        rows: list[Any] = []
        if query:
            phrases = _fts_phrases(query)
            matches = [" ".join(phrases)]
            if len(phrases) > 1:
                matches.append(" OR ".join(phrases))
            fts_sql = sql.recall_query(fts=True, filters=filters)
            fts_params = {**params, "rrf_k": r.rrf_k, "cap": max(limit, r.candidate_cap)}
            for match in matches:
                try:
                    rows = conn.execute(fts_sql, {**fts_params, "match": match}).fetchall()
                except sqlite3.OperationalError:
                    rows = []
                if rows:
                    break
            if not rows:
                used_fallback = True
                like_sql = sql.recall_query(fts=False, filters=[*filters, sql.LIKE_FILTER])
                rows = conn.execute(like_sql, {**params, "pattern": _like_pattern(query)}).fetchall()
        else:
            rows = conn.execute(sql.recall_query(fts=False, filters=filters), params).fetchall()

        facts: list[Fact] = []
        truncated = False
        budget = max_tokens if max_tokens is not None else math.inf
        for row in rows:
            f = _fact(row, score=row[-1])
            cost = estimate_tokens(" ".join(x for x in (f.subject, f.predicate, f.fact) if x))
            if cost > budget:
                truncated = True
                break
            budget -= cost
            facts.append(f)

        if reinforce and asof is None and facts:
            ids = json.dumps([f.id for f in facts])
            with self._write() as conn:
                conn.execute(sql.REINFORCE_ACCESS, (self.clock.now(), ids))
        return RecallResult(facts=facts, as_of=asof, truncated=truncated, used_fallback=used_fallback)

    # --- reads -----------------------------------------------------------------------

    @_guarded(writing=False)
    def get(self, fact_id: int) -> Fact:
        fid = check_id(fact_id)
        row = self.conn.execute(sql.GET_FACT, (fid,)).fetchone()
        if row is None:
            raise NotFound(f"no fact #{fid}")
        return _fact(row)

    @_guarded(writing=False)
    def why(self, fact_id: int) -> WhyResult:
        """The fact, the rows it superseded (nearest first) and the rows that superseded it."""
        fact = self.get(fact_id)
        conn = self.conn
        seen = {fact.id}
        ancestors: list[Fact] = []
        prev = conn.execute(sql.GET_PREDECESSOR, (fact.id,)).fetchone()
        while prev is not None:
            if prev[0] in seen:
                raise _chain_loop(prev[0])
            seen.add(prev[0])
            ancestors.append(_fact(prev))
            prev = conn.execute(sql.GET_PREDECESSOR, (prev[0],)).fetchone()
        descendants = _successors(conn, fact, seen)
        return WhyResult(fact=fact, ancestors=ancestors, descendants=descendants)

    @_guarded(writing=False)
    def diff(self, since: str, subject: str | None = None) -> DiffResult:
        """What was learned, revised (by world time) and retracted since ``since``."""
        since_ts = normalize_iso(since, "since")
        subj = js_trim(check_str(subject, "subject")) if subject is not None else ""
        params = {"since": since_ts, "subject": subj or None}
        conn = self.conn
        key = (since_ts, params["subject"])
        hit, answer, snap = self._recalled("diff", key)
        if hit:
            return _copied(answer)
        learned = [_fact(r) for r in conn.execute(sql.DIFF_LEARNED, params)]
        # One scan for both unindexed halves, ordered here exactly as SQLite orders them.
        olds: list[Fact] = []
        retracted: list[Fact] = []
        for r in conn.execute(sql.DIFF_REVISED_OR_RETRACTED, params):
            f = _fact(r)
            if r[_NCOLS]:
                olds.append(f)
            if r[_NCOLS + 1]:
                retracted.append(f)
        olds.sort(key=lambda f: (_sqlite_order(f.valid_to), f.id))
        retracted.sort(key=lambda f: (_sqlite_order(f.retracted_at), f.id))
        revised: list[RevisedPair] = []
        for old in olds:
            succ = conn.execute(sql.GET_FACT, (old.superseded_by,)).fetchone()
            revised.append(RevisedPair(old=old, new=_fact(succ) if succ is not None else None))
        result = DiffResult(since=since_ts, learned=learned, revised=revised, retracted=retracted)
        self._remember_answer("diff", snap, key, result)
        return _copied(result)

    @_guarded(writing=False)
    def stats(self) -> StatsResult:
        """Totals and the top 10 subjects by current beliefs (consumes one timestamp)."""
        now = self._effective_now(self.clock.now())
        conn = self.conn
        total = conn.execute(sql.STATS_TOTAL).fetchone()[0]
        current = conn.execute(sql.STATS_CURRENT, {"now": now}).fetchone()[0]
        top = [
            SubjectCount(subject=s, count=c)
            for s, c in conn.execute(sql.STATS_TOP_SUBJECTS, {"now": now})
        ]
        return StatsResult(
            db_path=self.path,
            total_facts=int(total),
            current_beliefs=int(current),
            top_subjects=top,
            schema_version=self.schema_version,
        )

    @_guarded(writing=False)
    def check_integrity(self) -> None:
        """FTS index consistency and foreign keys; raises on corruption."""
        conn = self.conn
        if not self.readonly:
            conn.execute(sql.FTS_INTEGRITY_CHECK)
        broken = conn.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise InvalidInput(f"foreign_key_check found {len(broken)} violation(s)")

    # --- browsing (never writes, never consumes a timestamp) --------------------------

    def _belief_clause(self, as_of: str | None) -> tuple[Any, str]:
        """Peewee expression for "believed now" (or at as_of) and the instant used."""
        F = self.Fact
        if as_of is None:
            now = self._effective_now(self.clock.peek())
            return (
                (F.valid_from <= now)
                & F.valid_to.is_null()
                & F.superseded_by.is_null()
                & F.retracted_at.is_null()
            ), now
        t = normalize_iso(as_of, "as_of")
        return (
            (F.tx_at <= t)
            & (F.valid_from <= t)
            & (F.valid_to.is_null() | (F.valid_to > t))
            & (F.retracted_at.is_null() | (F.retracted_at > t))
        ), t

    def without_memory_map(self) -> None:
        """Read this store's file without a memory map (``PRAGMA mmap_size = 0``).

        For a connection that mostly scans (header counts, subjects, changes): a scan of a
        mapped file keeps every page it touched in the process's resident set (up to the
        256 MB map per connection), while unmapped reads go through SQLite's small page
        cache. Scans measured no slower this way; the file is unchanged.
        """
        self._no_mmap = True
        self._db.map_bytes = 0
        if not self._fresh_pending:
            self.conn.execute("PRAGMA mmap_size = 0")

    @_guarded(writing=False)
    def largest_id(self) -> int:
        """The largest fact id (0 when empty)."""
        return int(self.conn.execute(sql.MAX_ID).fetchone()[0])

    @_guarded(writing=False)
    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: moves when *another* connection commits."""
        return int(self.conn.execute(sql.DATA_VERSION).fetchone()[0])

    @_guarded(writing=False)
    def counts(self) -> StoreCounts:
        """Header counts. Remembered until the file changes (see ``_snapshot``), so repeated
        refreshes are free; a change costs one scan of the current rows (~0.15 s at 1M)."""
        now = self._effective_now(self.clock.peek())
        hit, answer, snap = self._recalled("counts", None, now)
        if hit:
            return answer  # type: ignore[no-any-return]
        conn = self.conn
        total = conn.execute(sql.STATS_TOTAL).fetchone()[0]
        current, until = conn.execute(sql.COUNT_CURRENT, {"now": now}).fetchone()
        pinned, stale, unresolved = conn.execute(sql.COUNT_PINNED).fetchone()
        counts = StoreCounts(
            total=int(total),
            current=int(current),
            pinned=int(pinned),
            stale=int(stale),
            unresolved=int(unresolved),
        )
        self._remember_answer("counts", snap, None, counts, now, until)
        return counts

    @_guarded(writing=False)
    def subjects(self, as_of: str | None = None) -> list[SubjectSummary]:
        """Every subject with its believed (now or at as_of) and total row counts.

        The current view (no ``as_of``) is remembered like ``counts``.
        """
        if as_of is None:
            return list(self._current_subjects())
        F = self.Fact
        belief, t = self._belief_clause(as_of)
        scope = F.tx_at <= t if as_of is not None else True
        query = (
            F.select(
                F.subject,
                fn.SUM(belief).alias("cur"),
                fn.COUNT(F.id).alias("tot"),
            )
            .where(scope)
            .group_by(F.subject)
            .order_by(F.subject)
            .tuples()
        )
        return [SubjectSummary(subject=s, current=int(c or 0), total=int(n)) for s, c, n in query]

    def _current_subjects(self) -> list[SubjectSummary]:
        now = self._effective_now(self.clock.peek())
        hit, answer, snap = self._recalled("subjects", None, now)
        if hit:
            return answer  # type: ignore[no-any-return]
        conn = self.conn
        not_current: dict[str, int] = {}
        until: str | None = None
        for subject, n, soonest in conn.execute(sql.SUBJECT_NOT_CURRENT, {"now": now}):
            not_current[subject] = int(n)
            if soonest is not None and (until is None or soonest < until):
                until = soonest
        out = [
            SubjectSummary(subject=s, current=int(n) - not_current.get(s, 0), total=int(n))
            for s, n in conn.execute(sql.SUBJECT_TOTALS)
        ]
        self._remember_answer("subjects", snap, None, out, now, until)
        return out

    @_guarded(writing=False)
    def list_facts(
        self,
        subject: str | None = None,
        *,
        include_history: bool = False,
        as_of: str | None = None,
        freshness: str | None = None,
        ids: Iterable[int] | None = None,
        offset: int = 0,
        limit: int = 100,
    ) -> list[Fact]:
        """Rows for browsing: believed ones first (newest first), then history if asked."""
        F = self.Fact
        belief, t = self._belief_clause(as_of)
        cond: Any = True
        if subject is not None:
            subject = check_str(subject, "subject")
            cond = F.subject == subject
            if ids is None and not include_history and freshness in (None, *FRESHNESS_FILTERS):
                walked = self._newest_of_big_subject(subject, t, as_of is not None,
                                                     freshness, offset, limit)
                if walked is not None:
                    return walked
        if ids is not None:
            # One JSON parameter, not one per id: SQLite allows at most 32,766 variables.
            wanted = json.dumps([check_id(i) for i in ids])
            cond = cond & F.id.in_(SQL("(SELECT value FROM json_each(?))", [wanted]))
        if freshness == "unchecked":
            cond = cond & F.freshness.is_null()
        elif freshness is not None:
            if freshness not in FRESHNESS_VALUES:
                raise InvalidInput(f"freshness must be one of {', '.join(FRESHNESS_FILTERS)}")
            cond = cond & (F.freshness == freshness)
        if include_history:
            if as_of is not None:
                cond = cond & (F.tx_at <= t)
            order = [belief.desc(), F.tx_at.desc(), F.id.desc()]
        else:
            cond = cond & belief
            order = [F.tx_at.desc(), F.id.desc()]
        fields = [getattr(F, c) for c in FACT_COLUMNS]
        query = F.select(*fields).where(cond).order_by(*order).offset(offset).limit(limit)
        return [_fact(r) for r in query.tuples()]

    def _newest_of_big_subject(self, subject: str, t: str, as_of: bool, freshness: str | None,
                               offset: int, limit: int) -> list[Fact] | None:
        """A big subject's believed rows, newest first, by walking ``idx_facts_tx`` backwards.

        SQLite otherwise reads every row of the subject through ``idx_facts_subject`` and sorts
        them (53 ms CPU, >1 s wall on a busy machine, for a 32k-row subject at 1M) to keep the
        newest 200; the walk stops after them (~2 ms). For a small subject the walk would
        pass most of the table, so it is taken only when the subject's rows are dense enough
        (n² > wanted × all rows). Same WHERE, same total order: the same rows either way.
        None: not worth it, use the general query.
        """
        if offset < 0 or limit < 0:
            return None
        conn = self.conn
        n = conn.execute(sql.COUNT_SUBJECT, (subject,)).fetchone()[0]
        if n * n <= (offset + limit) * max(1, self.largest_id()):
            return None
        filters = [sql.AS_OF_FILTER if as_of else sql.CURRENT_FILTER]
        if freshness == "unchecked":
            filters.append(sql.UNCHECKED_FILTER)
        elif freshness is not None:
            filters.append(sql.FRESHNESS_FILTER)
        params = {"subject": subject, "as_of": t, "now": t, "freshness": freshness,
                  "offset": offset, "limit": limit}
        rows = conn.execute(sql.newest_of_subject(filters), params)
        return [_fact(r) for r in rows]

    @_guarded(writing=False)
    def flagged(
        self,
        *,
        freshness: str | None = None,
        subject: str | None = None,
        limit: int | None = None,
    ) -> list[Fact]:
        """Live rows whose last staleness verdict was stale or unresolved, by id."""
        F = self.Fact
        wanted = [freshness] if freshness else ["stale", "unresolved"]
        for w in wanted:
            if w not in ("stale", "unresolved"):
                raise InvalidInput(f"freshness must be stale or unresolved, got {w!r}")
        subject = check_str(subject, "subject") if subject else None
        key = (tuple(wanted), subject, limit)
        hit, answer, snap = self._recalled("flagged", key)
        if hit:
            return list(answer)
        cond = F.freshness.in_(wanted) & F.superseded_by.is_null() & F.retracted_at.is_null()
        if subject:
            cond = cond & (F.subject == subject)
        fields = [getattr(F, c) for c in FACT_COLUMNS]
        query = F.select(*fields).where(cond).order_by(F.id)
        if limit is not None:
            query = query.limit(limit)
        rows = [_fact(r) for r in query.tuples()]
        self._remember_answer("flagged", snap, key, rows)
        return list(rows)

    # --- the staleness writer (the only code that writes freshness / checked_*) -------

    @_guarded(writing=False)
    def staleness_targets(self, limit: int, after_id: int = 0) -> list[StalenessTarget]:
        """Live pinned rows with id > after_id, oldest first (keyset paging: each row once)."""
        limit = check_positive_int(limit, "limit")
        rows = self.conn.execute(sql.STALENESS_TARGETS, {"limit": limit, "after_id": after_id})
        return [StalenessTarget(*r) for r in rows]

    @_guarded(writing=False)
    def backfill_candidates(self, limit: int, after_id: int = 0) -> list[StalenessTarget]:
        """Live unpinned rows with a non-empty source_ref (the pass parses them for a pin)."""
        limit = check_positive_int(limit, "limit")
        rows = self.conn.execute(sql.BACKFILL_CANDIDATES, {"limit": limit, "after_id": after_id})
        return [StalenessTarget(*r) for r in rows]

    def set_staleness(
        self,
        fact_id: int,
        freshness: str,
        checked_at: str,
        checked_head: str,
        source_commit: str | None = None,
        source_path: str | None = None,
    ) -> None:
        self.set_staleness_many(
            [
                StalenessUpdate(
                    id=fact_id,
                    freshness=freshness,
                    checked_at=checked_at,
                    checked_head=checked_head,
                    source_commit=source_commit,
                    source_path=source_path,
                )
            ]
        )

    @_guarded(writing=True)
    def set_staleness_many(
        self, updates: Sequence[StalenessUpdate | tuple[Any, ...]], *, live_only: bool = False
    ) -> list[int]:
        """Write verdicts in one short transaction. Touches only the source-axis columns.

        With ``live_only`` (the pass), rows that are no longer live — or a backfill
        whose row got pinned meanwhile — are skipped inside the write lock; otherwise
        an unknown id is NotFound. Returns the ids written.
        """
        self._writable()
        # (freshness, checked_at, checked_head, id) for a plain verdict; a row that adopts a
        # pin also carries (source_commit, source_path). Validated once per distinct value.
        # An update may also be a plain tuple of StalenessUpdate's six fields, in order (the
        # pass sends those: no object to build per verdict).
        rows: list[tuple[Any, ...]] = []
        stamps: dict[str, str] = {}
        heads: dict[str, str] = {}
        for u in updates:
            fact_id, freshness, at, head, commit, path = u if type(u) is tuple else (
                u.id, u.freshness, u.checked_at, u.checked_head, u.source_commit, u.source_path)
            if freshness not in FRESHNESS_VALUES:
                raise InvalidInput(
                    f"freshness must be one of {', '.join(FRESHNESS_VALUES)}, got {freshness!r}"
                )
            checked_at = stamps.get(at)
            if checked_at is None:
                checked_at = stamps[at] = normalize_iso(at, "checked_at")
            checked_head = heads.get(head) if isinstance(head, str) else None
            if checked_head is None:
                checked_head = heads[head] = check_str(head, "checked_head")
            if type(fact_id) is not int or abs(fact_id) >> 63:  # not an int64: check_id says why
                fact_id = check_id(fact_id)
            if commit is None and path is None:
                rows.append((freshness, checked_at, checked_head, fact_id))
            else:
                rows.append((freshness, checked_at, checked_head, fact_id, commit, path))
        if not rows:
            return []
        with self._write() as conn:
            if live_only:
                return self._write_live_verdicts(conn, rows)
            written: list[int] = []
            for r in rows:
                if not conn.execute(sql.SET_VERDICT_SEQ if len(r) == 4
                                    else sql.SET_STALENESS_SEQ, r).rowcount:
                    raise NotFound(f"no fact #{r[3]}")
                written.append(r[3])
        return written

    @staticmethod
    def _write_live_verdicts(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> list[int]:
        """The pass's batch, inside the write lock, in three statements whatever its size.

        Which ids are still live (and, for a pin adoption, still unpinned) is read once; the
        verdicts then go in as one UPDATE per kind (``sql.SET_VERDICTS_LIVE_JSON``: one FTS5
        segment per batch instead of one per row, and one GIL hand-off instead of hundreds).
        The UPDATEs keep the same guards. Returns the ids written, in batch order.
        """
        ids = json.dumps([r[3] for r in rows])
        found = conn.execute(sql.LIVE_AMONG, (ids,)).fetchone()[0]
        unpinned = {int(k): v for k, v in json.loads(found).items()} if found else {}
        plain: dict[int, tuple[Any, ...]] = {}  # by id: a repeated id keeps its last verdict
        adopt: dict[int, tuple[Any, ...]] = {}
        written: list[int] = []
        for r in rows:
            live = unpinned.get(r[3])
            if live is None:
                continue  # revised, retracted or gone since the work list was read
            if len(r) == 4:
                plain[r[3]] = r
            elif r[4] is not None and not live:
                continue  # a backfill whose row someone else pinned meanwhile: theirs wins
            else:
                adopt[r[3]] = r
            written.append(r[3])
        if plain:
            conn.execute(sql.SET_VERDICTS_LIVE_JSON,
                         (json.dumps(list(plain.values()), ensure_ascii=False),))
        if adopt:
            conn.execute(sql.SET_STALENESS_LIVE_JSON,
                         (json.dumps(list(adopt.values()), ensure_ascii=False),))
        return written
