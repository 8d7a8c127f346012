"""The Store's reads for browsing: one fact and its chain, changes, stats, the header counts,
subjects, pages of facts and the flagged list (SPEC §6, §8)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from peewee import SQL, fn

from . import current_ledger, sql
from .errors import InvalidInput, NotFound
from .handle import StoreFile
from .remembered import Remembered
from .rows import (
    _NCOLS,
    StorePart,
    _chain_loop,
    _copied,
    _fact,
    _guarded,
    _sqlite_order,
    _successors,
)
from .split_scan import SplitScans
from .timeutil import js_trim, normalize_iso
from .types import (
    FACT_COLUMNS,
    FRESHNESS_FILTERS,
    FRESHNESS_VALUES,
    DiffResult,
    Fact,
    MarkedCounts,
    RevisedPair,
    StatsResult,
    StoreCounts,
    SubjectCount,
    SubjectSummary,
    WhyResult,
)
from .validation import check_id, check_str


def _tuples(query: Any) -> Iterable[tuple[Any, ...]]:
    """A Peewee query's rows as tuples (peewee-stubs type ``.tuples()`` as the model)."""
    return query.tuples()


def _rule(rule: Callable[..., str], t: str) -> Any:
    """One of sql.py's belief rules at instant ``t``, as a Peewee expression."""
    text, uses = sql.peewee_rule(rule)
    return SQL(text, [t] * uses)


class BrowseReads(StorePart):
    """Reads that never write and never consume a timestamp (``stats`` excepted)."""

    def __init__(self, file: StoreFile, scans: SplitScans, answers: Remembered) -> None:
        super().__init__(file)
        self._scans = scans
        self._answers = answers

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
        hit, answer, snap = self._answers.recalled("diff", key)
        if hit:
            return _copied(answer)
        learned = [_fact(r) for r in conn.execute(sql.DIFF_LEARNED, params)]
        # One scan for both unindexed halves, ordered here exactly as SQLite orders them.
        olds: list[Fact] = []
        retracted: list[Fact] = []
        for part in self._scans.scan_ranges(sql.DIFF_REVISED_OR_RETRACTED_IN_RANGE,
                                      sql.DIFF_REVISED_OR_RETRACTED, params):
            for r in part:
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
        self._answers.remember("diff", snap, key, result)
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
            schema_version=self.file.schema_version,
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

    def _belief_clause(self, as_of: str | None) -> tuple[Any, str]:
        """The belief rule (now, or at as_of) as a Peewee expression, and the instant used.

        The text is sql.py's own rule (``sql.current_rule`` / ``sql.as_of_rule``), the one the
        recall and big-subject queries use, so the two paths cannot disagree at a boundary.
        """
        if as_of is None:
            t = self._effective_now(self.clock.peek())
            return _rule(sql.current_rule, t), t
        t = normalize_iso(as_of, "as_of")
        return _rule(sql.as_of_rule, t), t

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
        refreshes are free; after a commit only the id chunks it wrote are read again (a few
        ms at 1M, ``current_ledger``), else one scan of every row (~0.15 s at 1M)."""
        now = self._effective_now(self.clock.peek())
        hit, answer, snap = self._answers.recalled("counts", None, now)
        if hit:
            return answer  # type: ignore[no-any-return]
        conn = self.conn
        ledger = self._current_ledger(now)
        if ledger is not None:
            total, current, until = ledger.total, ledger.current(), ledger.until()
        else:
            current, until = 0, None
            for [(n, soonest)] in self._scans.scan_ranges(sql.COUNT_CURRENT_IN_RANGE,
                                                          sql.COUNT_CURRENT, {"now": now}):
                current += int(n)
                if soonest is not None and (until is None or soonest < until):
                    until = soonest
            total = conn.execute(sql.STATS_TOTAL).fetchone()[0]
        pinned, stale, unresolved = conn.execute(sql.COUNT_PINNED).fetchone()
        counts = StoreCounts(
            total=int(total),
            current=int(current),
            pinned=int(pinned),
            stale=int(stale),
            unresolved=int(unresolved),
        )
        self._answers.remember("counts", snap, None, counts, now, until)
        return counts

    @_guarded(writing=False)
    def marked_counts(self) -> MarkedCounts | None:
        """:meth:`counts`, with where the log stood while they were read and until when they
        hold (see :class:`MarkedCounts`); None where the log cannot be read (no WAL, not
        Linux) or a commit landed during the read."""
        from . import wal_pages

        if not self.file.on_disk:
            return None
        before = wal_pages.mark_now(self.path)
        if before is None:
            return None
        counts = self.counts()
        held = self.file.answers.get("counts")
        if held is None or held[2] is not counts or wal_pages.mark_now(self.path) != before:
            return None
        return MarkedCounts(counts, before, held[4])

    def _current_ledger(self, now: str) -> current_ledger.CurrentLedger | None:
        """The per-chunk ledger of the current rows, brought up to date through the WAL
        (``current_ledger``: only the chunks written since are read); None where a file
        keeps no WAL (an in-memory store), or a fresh one not yet created."""
        file = self.file
        if not file.on_disk or file.fresh_pending:
            return None
        held = file.answers.get("current-ledger")
        ledger = held[0] if held is not None else None
        if ledger is None or not current_ledger.advance(ledger, self.conn, self.path, now):
            ledger = current_ledger.full(self._scans, self.conn, self.path, now)
            if ledger is None:
                file.answers.pop("current-ledger", None)
                return None
            file.answers["current-ledger"] = (ledger,)
        return ledger

    @_guarded(writing=False)
    def subjects(self, as_of: str | None = None) -> list[SubjectSummary]:
        """Every subject with its believed (now or at as_of) and total row counts.

        The current view (no ``as_of``) is remembered like ``counts``.
        """
        if as_of is None:
            return list(self._current_subjects())
        F = self.Fact
        belief, t = self._belief_clause(as_of)
        scope = _rule(sql.known_rule, t)
        query = (
            F.select(
                F.subject,
                fn.SUM(belief).alias("cur"),
                fn.COUNT(F.id).alias("tot"),
            )
            .where(scope)
            .group_by(F.subject)
            .order_by(F.subject)
        )
        return [SubjectSummary(subject=s, current=int(c or 0), total=int(n))
                for s, c, n in _tuples(query)]

    def _current_subjects(self) -> list[SubjectSummary]:
        now = self._effective_now(self.clock.peek())
        hit, answer, snap = self._answers.recalled("subjects", None, now)
        if hit:
            return answer  # type: ignore[no-any-return]
        conn = self.conn
        not_current: dict[str, int] = {}
        until: str | None = None
        for part in self._scans.scan_ranges(sql.SUBJECT_NOT_CURRENT_IN_RANGE, sql.SUBJECT_NOT_CURRENT,
                                      {"now": now}):
            for subject, n, soonest in part:
                not_current[subject] = not_current.get(subject, 0) + int(n)
                if soonest is not None and (until is None or soonest < until):
                    until = soonest
        out = [
            SubjectSummary(subject=s, current=int(n) - not_current.get(s, 0), total=int(n))
            for s, n in conn.execute(sql.SUBJECT_TOTALS)
        ]
        self._answers.remember("subjects", snap, None, out, now, until)
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
                cond = cond & _rule(sql.known_rule, t)
            order = [belief.desc(), F.tx_at.desc(), F.id.desc()]
        else:
            cond = cond & belief
            order = [F.tx_at.desc(), F.id.desc()]
        fields = [getattr(F, c) for c in FACT_COLUMNS]
        query = F.select(*fields).where(cond).order_by(*order).offset(offset).limit(limit)
        return [_fact(r) for r in _tuples(query)]

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
        hit, answer, snap = self._answers.recalled("flagged", key)
        if hit:
            return list(answer)
        keep = None if limit is None or limit < 0 else limit  # SQLite: LIMIT -n is none
        parts = None if subject else self._scans.split_rows(
            sql.FLAGGED_IN_RANGE,
            {"first": wanted[0], "second": wanted[-1], "limit": -1 if keep is None else keep})
        if parts is not None:
            # Ranges in id order, each its first ``limit`` by id: the first ``limit`` overall.
            rows = [_fact(r) for part in parts for r in part][:keep]
            self._answers.remember("flagged", snap, key, rows)
            return list(rows)
        cond = F.freshness.in_(wanted) & F.superseded_by.is_null() & F.retracted_at.is_null()
        if subject:
            cond = cond & (F.subject == subject)
        fields = [getattr(F, c) for c in FACT_COLUMNS]
        query = F.select(*fields).where(cond).order_by(F.id)
        if limit is not None:
            query = query.limit(limit)
        rows = [_fact(r) for r in _tuples(query)]
        self._answers.remember("flagged", snap, key, rows)
        return list(rows)
