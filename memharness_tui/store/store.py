"""The Store: the one way the app and the CLI read and write a memharness database."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from typing import Any

from peewee import fn

from . import sql
from .clock import Clock, SystemClock
from .db import immediate, open_database
from .driver import sqlite3
from .errors import InvalidInput, NotFound, ReadOnlyError, StoreOpenError
from .models import bound_model
from .timeutil import js_split, js_trim, normalize_iso
from .types import (
    FACT_COLUMNS,
    FRESHNESS_FILTERS,
    FRESHNESS_VALUES,
    KINDS,
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

_NCOLS = len(FACT_COLUMNS)


def _fact(row: Sequence[Any], score: float | None = None) -> Fact:
    return Fact(*row[:_NCOLS], score=score)


# --- validation (SPEC §6, §10) -------------------------------------------------------


_INT64_MAX = 2**63 - 1


def _no_surrogates(value: str, label: str) -> str:
    """SQLite stores UTF-8: a lone surrogate (e.g. from undecodable argv) cannot be stored."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{label} is not valid Unicode text (it has a lone surrogate)") from None
    return value


def _require_text(value: object, label: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{label} must be a non-empty string")
    trimmed = js_trim(_no_surrogates(value, label))
    if trimmed == "":
        raise InvalidInput(f"{label} must be a non-empty string")
    return trimmed


def check_confidence(value: object) -> float:
    """SPEC §6/§10: a real number in [0, 1] (not a bool, not a string). Public: forms use it."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or math.isnan(value)
        or value < 0
        or value > 1
    ):
        raise InvalidInput(f"confidence must be a number in [0, 1], got {value!r}")
    return float(value)


def check_importance(value: object) -> int:
    """SPEC §6/§10: an integer 1..10 (5.0 counts as 5). Public: forms use it."""
    ok = not isinstance(value, bool) and (
        isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    )
    if not ok or not 1 <= value <= 10:  # type: ignore[operator]
        raise InvalidInput(f"importance must be an integer in [1, 10], got {value!r}")
    return int(value)  # type: ignore[arg-type]


def _check_kind(value: object) -> str:
    if value not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}, got {value!r}")
    return str(value)


def _check_str(value: object, label: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{label} must be a string, got {value!r}")
    return _no_surrogates(value, label)


def _check_pin(value: object, label: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{label} must be a string, got {value!r}")
    trimmed = js_trim(_no_surrogates(value, label))
    return trimmed or None


def _check_positive_int(value: object, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _INT64_MAX:
        raise InvalidInput(f"{label} must be a positive integer, got {value!r}")
    return value


def _check_id(value: object, label: str = "id") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > _INT64_MAX:
        raise InvalidInput(f"{label} must be an integer fact id, got {value!r}")
    return value


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


def _insert(conn: sqlite3.Connection, **row: Any) -> int:
    """INSERT one fact row (inside the caller's transaction); returns its id."""
    return int(conn.execute(sql.INSERT_FACT, row).lastrowid or 0)


def estimate_tokens(text: str) -> int:
    """ceil(length / 4), length in UTF-16 code units as JavaScript counts it."""
    return math.ceil(len(text.encode("utf-16-le")) // 2 / 4)


class Store:
    """A memharness store on one SQLite file. Use one Store per thread."""

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
    ) -> None:
        self.path = path
        self._db = db
        self.schema_version = schema_version
        self.clock = clock
        self.ranking = ranking
        self.readonly = readonly
        self.migration_note = migration_note
        self.trust_clock = trust_clock
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
    ) -> Store:
        """Open (creating and migrating as needed) the store at ``path`` or the SPEC §1 default.

        ``trust_clock``: "now" is the clock's alone, even when the file holds newer tx_at
        (for ``--now`` audits); by default a writer whose clock runs ahead moves "now".
        """
        if path is None:
            from ..paths import default_db_path

            path = default_db_path()
        path = str(path)
        if path != ":memory:":
            path = os.path.expanduser(path)
        db, version, note = open_database(path, readonly=readonly)
        return cls(
            path,
            db,
            schema_version=version,
            clock=clock or SystemClock(),
            ranking=ranking or RankingSettings(),
            readonly=readonly,
            migration_note=note,
            trust_clock=trust_clock,
        )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def conn(self) -> sqlite3.Connection:
        return self._db.connection()

    def _writable(self) -> None:
        if self.readonly:
            raise ReadOnlyError(f"{self.path} is open read-only; nothing was written")

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
        subject = _require_text(subject, "subject")
        fact = _require_text(fact, "fact")
        confidence = check_confidence(confidence)
        importance = check_importance(importance)
        kind = _check_kind(kind)
        predicate = js_trim(_check_str(predicate, "predicate"))
        source_ref = _check_str(source_ref, "source_ref")
        source_agent = _check_str(source_agent, "source_agent")
        source_commit = _check_pin(source_commit, "source_commit")
        source_path = _check_pin(source_path, "source_path")
        tx_at = self.clock.now()
        vf = normalize_iso(valid_from, "valid_from") if valid_from is not None else tx_at
        with immediate(self.conn) as conn:
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
        new_fact = _require_text(new_fact, "new_fact")
        confidence = check_confidence(confidence)
        old_id = _check_id(old_id, "old_id")
        source_ref = _check_str(source_ref, "source_ref")
        source_agent = _check_str(source_agent, "source_agent")
        source_commit = _check_pin(source_commit, "source_commit")
        source_path = _check_pin(source_path, "source_path")
        with immediate(self.conn) as conn:
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
            knd = _check_kind(kind) if kind is not None else old.kind
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
        return old.id, new_id, tx_at

    def forget(
        self, *, fact_id: int | None = None, source_ref: str | None = None
    ) -> tuple[int, list[int]]:
        """Retract by id or by exact source_ref. Returns (count, ids retracted now)."""
        self._writable()
        ts = self.clock.now()
        if fact_id is not None:
            fid = _check_id(fact_id, "fact_id")
            stmt, params = sql.RETRACT_BY_ID, {"ts": ts, "id": fid}
        elif source_ref is not None:
            if not isinstance(source_ref, str):
                raise InvalidInput(f"source_ref must be a string, got {source_ref!r}")
            ref = js_trim(source_ref)
            if ref == "":
                raise InvalidInput("source_ref must be non-empty (refusing to retract everything)")
            stmt, params = sql.RETRACT_BY_SOURCE_REF, {"ts": ts, "source_ref": ref}
        else:
            raise InvalidInput("forget needs a fact_id or a source_ref")
        with immediate(self.conn) as conn:
            ids = sorted(int(r[0]) for r in conn.execute(stmt, params).fetchall())
        return len(ids), ids

    # --- recall ----------------------------------------------------------------------

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
        query = js_trim(_check_str(query if query is not None else "", "query"))
        subject = js_trim(_check_str(subject if subject is not None else "", "subject"))
        limit = _check_positive_int(limit, "limit")
        if max_tokens is not None:
            max_tokens = _check_positive_int(max_tokens, "max_tokens")
        if freshness is not None and freshness not in FRESHNESS_FILTERS:
            raise InvalidInput(
                f"freshness must be one of {', '.join(FRESHNESS_FILTERS)}, got {freshness!r}"
            )
        if reinforce:
            self._writable()
        asof = normalize_iso(as_of, "as_of") if as_of is not None else None
        knd = _check_kind(kind) if kind is not None else None

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
            with immediate(conn):
                conn.execute(sql.REINFORCE_ACCESS, (self.clock.now(), ids))
        return RecallResult(facts=facts, as_of=asof, truncated=truncated, used_fallback=used_fallback)

    # --- reads -----------------------------------------------------------------------

    def get(self, fact_id: int) -> Fact:
        fid = _check_id(fact_id)
        row = self.conn.execute(sql.GET_FACT, (fid,)).fetchone()
        if row is None:
            raise NotFound(f"no fact #{fid}")
        return _fact(row)

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

    def diff(self, since: str, subject: str | None = None) -> DiffResult:
        """What was learned, revised (by world time) and retracted since ``since``."""
        since_ts = normalize_iso(since, "since")
        subj = js_trim(_check_str(subject, "subject")) if subject is not None else ""
        params = {"since": since_ts, "subject": subj or None}
        conn = self.conn
        learned = [_fact(r) for r in conn.execute(sql.DIFF_LEARNED, params)]
        revised: list[RevisedPair] = []
        for r in conn.execute(sql.DIFF_REVISED, params).fetchall():
            old = _fact(r)
            succ = conn.execute(sql.GET_FACT, (old.superseded_by,)).fetchone()
            revised.append(RevisedPair(old=old, new=_fact(succ) if succ is not None else None))
        retracted = [_fact(r) for r in conn.execute(sql.DIFF_RETRACTED, params)]
        return DiffResult(since=since_ts, learned=learned, revised=revised, retracted=retracted)

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

    def counts(self) -> StoreCounts:
        F = self.Fact
        belief, _ = self._belief_clause(None)
        total = F.select().count()
        current = F.select().where(belief).count()
        pinned, stale, unresolved = self.conn.execute(sql.COUNT_PINNED).fetchone()
        return StoreCounts(
            total=total,
            current=current,
            pinned=int(pinned),
            stale=int(stale),
            unresolved=int(unresolved),
        )

    def subjects(self, as_of: str | None = None) -> list[SubjectSummary]:
        """Every subject with its believed (now or at as_of) and total row counts."""
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
            cond = F.subject == subject
        if ids is not None:
            cond = cond & F.id.in_(list(ids))
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
        cond = F.freshness.in_(wanted) & F.superseded_by.is_null() & F.retracted_at.is_null()
        if subject:
            cond = cond & (F.subject == subject)
        fields = [getattr(F, c) for c in FACT_COLUMNS]
        query = F.select(*fields).where(cond).order_by(F.id)
        if limit is not None:
            query = query.limit(limit)
        return [_fact(r) for r in query.tuples()]

    # --- the staleness writer (the only code that writes freshness / checked_*) -------

    def staleness_targets(self, limit: int, after_id: int = 0) -> list[StalenessTarget]:
        """Live pinned rows with id > after_id, oldest first (keyset paging: each row once)."""
        limit = _check_positive_int(limit, "limit")
        rows = self.conn.execute(sql.STALENESS_TARGETS, {"limit": limit, "after_id": after_id})
        return [StalenessTarget(*r) for r in rows]

    def backfill_candidates(self, limit: int, after_id: int = 0) -> list[StalenessTarget]:
        """Live unpinned rows with a non-empty source_ref (the pass parses them for a pin)."""
        limit = _check_positive_int(limit, "limit")
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

    def set_staleness_many(
        self, updates: Sequence[StalenessUpdate], *, live_only: bool = False
    ) -> list[int]:
        """Write verdicts in one short transaction. Touches only the source-axis columns.

        With ``live_only`` (the pass), rows that are no longer live — or a backfill
        whose row got pinned meanwhile — are skipped inside the write lock; otherwise
        an unknown id is NotFound. Returns the ids written.
        """
        self._writable()
        params = []
        stamps: dict[str, str] = {}
        for u in updates:
            if u.freshness not in FRESHNESS_VALUES:
                raise InvalidInput(
                    f"freshness must be one of {', '.join(FRESHNESS_VALUES)}, got {u.freshness!r}"
                )
            checked_at = stamps.get(u.checked_at)
            if checked_at is None:
                checked_at = stamps[u.checked_at] = normalize_iso(u.checked_at, "checked_at")
            params.append(
                {
                    "id": _check_id(u.id),
                    "freshness": u.freshness,
                    "checked_at": checked_at,
                    "checked_head": _check_str(u.checked_head, "checked_head"),
                    "source_commit": u.source_commit,
                    "source_path": u.source_path,
                }
            )
        if not params:
            return []
        written: list[int] = []
        full, narrow = (
            (sql.SET_STALENESS_LIVE, sql.SET_VERDICT_LIVE)
            if live_only
            else (sql.SET_STALENESS, sql.SET_VERDICT)
        )
        with immediate(self.conn) as conn:
            for p in params:
                pins = p["source_commit"] is not None or p["source_path"] is not None
                if conn.execute(full if pins else narrow, p).rowcount:
                    written.append(p["id"])
                elif not live_only:
                    raise NotFound(f"no fact #{p['id']}")
        return written
