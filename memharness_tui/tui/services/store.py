"""Every query and write the UI makes, by name and typed. Each runs on the DB thread.

Widgets call ``app.service.<name>(...)``; none of them sees a Store. Writes also judge new
pins (and plan *still true*) through the git adapter, and report to the app (``on_write``) so
``store_revision`` moves and every pane refreshes itself — no pane reloads another by hand.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memharness_tui.store import agents
from memharness_tui.tui.services import git
from memharness_tui.tui.services.gateway import StoreGateway, StoreInfo
from memharness_tui.tui.services.git import Judged
from memharness_tui.tui.services.header_counts import CountsListener, HeaderCounts
from memharness_tui.tui.services.protocol import StoreProtocol
from memharness_tui.tui.services.recalls import RecallQuery, Recalls

if TYPE_CHECKING:
    from memharness_tui.store.types import (
        DiffResult,
        Fact,
        MarkedCounts,
        StoreCounts,
        SubjectSummary,
        WhyResult,
    )

__all__ = ["APP_AGENT", "AGENTS", "BulkResult", "FactValues", "FlaggedPage", "RecallQuery", "StoreService"]

#: Provenance of the app's writes: ``source_agent`` is ``memharness-tui/<action>`` on every row
#: the app writes (a retraction writes no row: it stamps ``retracted_at`` on the old one).
#: A staleness pass run with ``--downgrade`` writes ``memharness-tui/staleness``. Every name
#: is in ``store/agents.py``.
AGENTS = agents.APP
APP_AGENT = agents.NEW
"""A fact typed into the app's new-fact form."""

TELL_AT_MOST_EVERY = 0.5
"""Seconds: the poll runs more often (``POLL_INTERVAL``), so the first commit after a quiet
spell shows at once; a burst of them (a pass writing) still moves the panes twice a second."""

WriteListener = Callable[[Mapping[int, str]], None]
"""Told after every successful write, with the verdict reasons it recorded (fact id → why)."""


@dataclass(frozen=True)
class FlaggedPage:
    """The flagged facts read (up to a limit) and how many there are in all."""

    facts: list[Fact]
    total: int


@dataclass
class FactValues:
    """A validated form: what to write (``None`` = the store's default)."""

    fact: str
    confidence: float = 1.0
    valid_from: str | None = None
    source_ref: str = ""
    source_commit: str | None = None
    source_path: str | None = None
    subject: str = ""
    predicate: str = ""
    importance: int = 5
    kind: str = "semantic"


@dataclass
class BulkResult:
    """What a bulk action changed: (old id, new id) pairs, and (id, why) it skipped.

    ``stopped``: why it stopped early (a full disk, the file replaced…: a failure that is
    not one fact's), with ``total`` the facts it was asked to change — the rest are unchanged.
    """

    changed: list[tuple[int, int]] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)
    stopped: str | None = None
    total: int = 0

    def summary(self, verb: str) -> str:
        """``Downgraded 1 fact (#2 → #21)`` (the first few pairs), then what was skipped; for
        a bulk that stopped early, ``Re-verified 16 of 1,500 facts (…), then the disk holding
        … is full; the rest are unchanged — free some space and try again``."""
        n = len(self.changed)
        if self.stopped is not None:
            text = f"{verb} {n:,} of {self.total:,} fact{'s' if self.total != 1 else ''}"
        else:
            text = f"{verb} {n:,} fact{'s' if n != 1 else ''}"
        if self.changed:
            pairs = ", ".join(f"#{old} → #{new}" for old, new in self.changed[:3])
            text += f" ({pairs}{', …' if n > 3 else ''})"
        if self.skipped:
            text += f"; skipped {len(self.skipped):,}: " + "; ".join(
                f"#{i} {why}" for i, why in self.skipped[:3]
            )
            if len(self.skipped) > 3:
                text += "; …"
        if self.stopped is not None:
            cause, _, advice = self.stopped.partition(" — ")
            text += f", then {cause}; the rest are unchanged"
            if advice:
                text += f" — {advice}"
        return text


LOOKED = "you looked"
"""When the app read a fact it then changes: "#5 was retracted by an agent since you looked"."""


def skip_reason(exc: BaseException) -> str:
    """Why one fact of a bulk action was left as it is, after its ``#id`` in the summary."""
    from memharness_tui.store.beliefs import NotABelief

    if isinstance(exc, NotABelief):
        return exc.reason(LOOKED)
    return getattr(exc, "message", None) or str(exc)


def one_fact_only(exc: BaseException) -> bool:
    """Whether a write's failure concerns that fact alone (it was revised or retracted
    meanwhile, a bad value): a bulk action skips it and goes on. Anything else (a full
    disk, a lock held too long, the file replaced or damaged) stops the bulk action."""
    from memharness_tui.store.errors import InvalidInput, NotFound

    return isinstance(exc, NotFound | InvalidInput)


def stop_reason(exc: BaseException) -> str:
    """The sentence of the failure that stopped a bulk action, without its "nothing was
    written" (true of the failed step alone; the summary says what the action wrote)."""
    from memharness_tui.store.errors import without_nothing_written

    return without_nothing_written(getattr(exc, "message", None) or str(exc))


def _verdict(judged: Judged | None) -> tuple[str, str] | None:
    """A judged pin as the (freshness, checked_head) the store records with the row."""
    return None if judged is None else (judged.freshness, judged.head)


def _revised_pin(source_ref: str, new_commit: str) -> str:
    from memharness_tui.staleness.pins import repin_ref

    return repin_ref(source_ref, new_commit)


def store_info(s: StoreProtocol) -> tuple[StoreInfo, str | None]:
    """On the DB thread: the open store's info and migration note (see ``StoreService.open``)."""
    return (StoreInfo(path=str(s.path), readonly=bool(s.readonly),
                      schema_version=int(s.schema_version),
                      is_new=bool(getattr(s, "is_new", False))),  # a test's stand-in may lack it
            getattr(s, "migration_note", None))


def _counts(s: StoreProtocol) -> StoreCounts:
    return s.counts()


class StoreService:
    """The app's typed store API (one instance per app; calls run in order on the DB thread)."""

    def __init__(self, gateway: StoreGateway, on_write: WriteListener | None = None) -> None:
        self._gw = gateway
        self.on_write = on_write
        self.recalls = Recalls(gateway)  # the searches in flight, shared; the first screen
        self._seen_version: int | None = None  # as last told to the poll
        self._told_at = 0.0
        self._path: str | None = None  # of the store open now (``open``)
        #: a pass of this app's writes runs (``passing``): the header counts its commits less
        #: often, and the idle garbage collection waits for its end
        self.pass_writing = False
        self._counts = HeaderCounts(gateway, lambda: self._path,  # counted ahead of the panes
                                    lambda: self.pass_writing)

    #: Told each write of the app's own as (op, target id, result id): the undo journal
    #: (services/undo.py), set by the main screen.
    journal: Callable[[str, int | None, int], None] | None = None

    def _journaled(self, op: str, target: int | None, result: int) -> None:
        if self.journal is not None:
            self.journal(op, target, result)

    def _written(self, reasons: Mapping[int, str] | None = None) -> None:
        self.recalls.forget()  # a recall in flight may predate this write: never share it
        self._counts.written()  # nor a count
        if self.on_write is not None:
            self.on_write(dict(reasons or {}))

    def wrote(self) -> None:
        """Another service wrote through this gateway (the hygiene fixes): as after a write here."""
        self._written()

    def close(self) -> None:
        self._counts.close()
        self._gw.close()

    # ----- lifecycle and housekeeping ---------------------------------------------------
    async def open(self) -> tuple[StoreInfo, str | None]:
        """Open the store; its info and the migration note (if it was just migrated)."""
        return await self.adopt_open(self._gw.submit(store_info)[0])

    async def adopt_open(self, opening: Future[Any]) -> tuple[StoreInfo, str | None]:
        """The answer of ``store_info`` already sent to the DB thread (the app's start): its
        info and migration note, and from then on the store this service has open."""
        info, note = await self._gw.wait(opening)
        self._path = info.path
        return info, note

    def own_connection(self) -> str:
        """Where a pass (its precheck, the follow report) opens a connection of its own — in
        its thread or its process, never the DB thread's: the store this service has open.
        Raises RuntimeError before :meth:`open` has answered."""
        if self._path is None:
            raise RuntimeError("the database is not open yet")
        return self._path

    def has_file(self) -> bool:
        """The store open now exists on disk: a new store's file is written with its first
        fact, so until then a connection of a pass's own has nothing to open."""
        return self._path is not None and (self._path == ":memory:"
                                           or os.path.exists(self._path))

    async def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: moves when *another* connection commits.

        Each poll first checks that the path still names the open file (one stat): when it
        was replaced or deleted this raises ``FileReplaced`` (one sentence) and the store
        has let go of the old file — see :meth:`reopen`.

        Returns the version as last told: a change within ``TELL_AT_MOST_EVERY`` of the last
        one told is told at a later poll (a change after a quiet spell, at once). The header's
        counts follow every change sooner (``follow_counts``)."""
        def poll(s: StoreProtocol) -> int:
            check = getattr(s, "check_file", None)
            if check is not None:
                check()
            return int(s.data_version())

        version = await self._gw.call(poll)
        seen = self._seen_version
        if version == seen:
            return version
        self.recalls.forget()  # another process wrote: later recalls start afresh
        now = time.monotonic()
        if seen is not None and now - self._told_at < TELL_AT_MOST_EVERY:
            self._counts.untold(version)  # the header may hear of it now
            return seen  # a burst of commits (a pass writing): told at the next poll due
        self._seen_version, self._told_at = version, now
        if seen is not None:
            self._counts.count(version)  # ahead of the panes' reloads (header_counts.py)
        return version

    def passing(self, writing: bool) -> None:
        """A pass of this app's writes started (True) or ended: its commits are counted for
        the header less often meanwhile (``header_counts.COUNT_WHILE_PASSING``), and the app's
        idle garbage collection waits (``idle_gc``)."""
        self.pass_writing = writing

    def counted_elsewhere(self, marked: MarkedCounts) -> None:
        """Another process (the pass process) read these counts of this store: the header's
        until the log moves on from where they were read (``header_counts.py``)."""
        self._counts.learned(marked)

    def follow_counts(self, listener: CountsListener) -> Callable[[], None]:
        """Tell ``listener`` the header counts after every commit another connection makes,
        also those the panes hear of later (``header_counts.py``); returns the call that
        stops it."""
        return self._counts.follow(listener)

    async def reopen(self) -> tuple[StoreInfo, str | None]:
        """Open the path again (the file there now), and tell every pane to reload."""
        await self._gw.reopen()
        self.recalls.forget()
        self._seen_version = None
        opened = await self.open()
        self._written()
        return opened

    # ----- queries ----------------------------------------------------------------------
    # Whole-store reads run on the gateway's read-only scan connection (``call_scan``), so
    # searches and opening a fact never wait behind them.
    async def counts(self) -> StoreCounts:
        """The header counts; while a recount started at another connection's commit runs
        (and nothing was written since), that one. Once it is done, the store remembers its
        answer (a cheap call), so this one does not queue behind the searches either.
        Counts the pass process read after a pass (``counted_elsewhere``) while the log still
        stands where they were read: those, read by nobody again."""
        learned = self._counts.current_learned()
        if learned is not None:
            return learned
        ahead = self._counts.joinable()
        if ahead is not None:
            if not ahead.done():
                return await asyncio.shield(ahead)
            if not ahead.cancelled() and ahead.exception() is None:
                return await self._gw.call_scan(_counts, after_searches=False)
        return await self._gw.call_scan(_counts)

    async def largest_id(self) -> int:
        """The store's largest fact id (0 when empty): how wide an ID column must be. One
        index seek: it does not wait for searches (the header shows it with the counts)."""
        return await self._gw.call_scan(lambda s: s.largest_id(), after_searches=False)

    async def subjects(self, as_of: str | None = None) -> list[SubjectSummary]:
        return await self._gw.call_scan(lambda s: s.subjects(as_of=as_of))

    async def facts_of(self, subject: str, *, include_history: bool = False,
                       as_of: str | None = None, offset: int = 0,
                       limit: int = 200) -> list[Fact]:
        return await self._gw.call(lambda s: s.list_facts(
            subject, include_history=include_history, as_of=as_of, offset=offset, limit=limit))

    async def flagged(self, verdict: str | None = None,
                      limit: int | None = None) -> FlaggedPage:
        """Flagged facts by id: all of them (``limit`` None), or the first ``limit``."""
        def read(s: StoreProtocol) -> FlaggedPage:
            rows = s.flagged(freshness=verdict, limit=limit)
            if limit is None or len(rows) < limit:
                return FlaggedPage(rows, len(rows))
            c = s.counts()  # more than we load: say how many there are
            n = {"stale": c.stale, "unresolved": c.unresolved}.get(verdict or "",
                                                                  c.stale + c.unresolved)
            return FlaggedPage(rows, max(len(rows), n))

        return await self._gw.call_scan(read)

    async def facts_by_id(self, ids: list[int] | None, limit: int) -> list[Fact]:
        """The believed rows among ``ids`` (None: any), at most ``limit``, in one query."""
        return await self._gw.call(lambda s: s.list_facts(ids=ids, limit=limit))

    async def get(self, fact_id: int) -> Fact:
        return await self._gw.call(lambda s: s.get(fact_id))

    async def why(self, fact_id: int) -> WhyResult:
        return await self._gw.call(lambda s: s.why(fact_id))

    async def diff(self, since: str, subject: str | None = None,
                   until: str | None = None) -> DiffResult:
        """Changes since ``since``; with ``until`` (time travel) only those made by then."""
        from dataclasses import replace

        result = await self._gw.call_scan(lambda s: s.diff(since, subject=subject))
        if until is None:
            return result
        return replace(
            result,
            learned=[f for f in result.learned if f.tx_at <= until],
            revised=[p for p in result.revised
                     if p.new is None or p.new.tx_at <= until],
            retracted=[f for f in result.retracted if (f.retracted_at or "") <= until],
        )

    # ----- writes -----------------------------------------------------------------------
    async def _write_judged(self, write: Callable[[StoreProtocol], int],
                            judged: Judged | None) -> tuple[int, Judged | None]:
        """Run ``write`` (it returns the new row's id; it records the pin's verdict on the row
        in the same transaction, so a failure leaves neither and a retry never duplicates)."""
        new_id = await self._gw.call(write)
        self._written({new_id: judged.reason} if judged is not None else None)
        return new_id, judged

    async def new_fact(self, values: FactValues,
                       repos: Sequence[str] = ()) -> tuple[int, Judged | None]:
        """Remember a fact; a pinned one is checked against the repos at once."""
        judged = await git.judge(repos, values.source_commit, values.source_path)

        def write(s: StoreProtocol) -> int:
            new_id, _ = s.remember(
                values.subject, values.fact, predicate=values.predicate,
                confidence=values.confidence, importance=values.importance, kind=values.kind,
                source_ref=values.source_ref, source_agent=AGENTS["new"],
                source_commit=values.source_commit, source_path=values.source_path,
                valid_from=values.valid_from, verdict=_verdict(judged),
            )
            return int(new_id)

        new_id, judged = await self._write_judged(write, judged)
        self._journaled("new", None, new_id)
        return new_id, judged

    async def rewrite(self, old_id: int, values: FactValues,
                      repos: Sequence[str] = ()) -> tuple[int, Judged | None]:
        """Revise ``old_id`` with new text (SPEC §6) and record the new pin's verdict at once."""
        judged = await git.judge(repos, values.source_commit, values.source_path)

        def write(s: StoreProtocol) -> int:
            _, new_id, _ = s.revise(
                old_id, values.fact, confidence=values.confidence, importance=values.importance,
                kind=values.kind, source_ref=values.source_ref, source_agent=AGENTS["rewrite"],
                source_commit=values.source_commit, source_path=values.source_path,
                valid_from=values.valid_from, verdict=_verdict(judged),
            )
            return int(new_id)

        new_id, judged = await self._write_judged(write, judged)
        self._journaled("revise", old_id, new_id)
        return new_id, judged

    async def retract(self, fact_id: int) -> list[int]:
        """Forget one fact (SPEC §6). Returns the ids retracted now (empty: it already was)."""
        _, ids = await self._gw.call(lambda s: s.forget(fact_id=fact_id))
        self._written()
        for retracted in ids:
            self._journaled("retract", retracted, retracted)
        return list(ids)

    async def still_true(self, facts: Sequence[Fact], repos: Sequence[str]) -> BulkResult:
        """Re-verify at HEAD: revise each with the same text pinned at HEAD; record current.

        Confidence, importance and kind are kept; the pin moves to HEAD (same path) and a ref
        that named the old pin names HEAD. A fact whose path git finds moved (renamed) at HEAD
        is re-pinned to the new path (``analysis.moved_revision``). A fact not true at HEAD
        is skipped, and so is one no longer a belief (retracted or revised since it was read:
        the store re-checks inside each write).
        """
        result = BulkResult(total=len(facts))
        if not facts:
            return result
        planned = await git.still_true_plan(repos, facts, source_agent=AGENTS["still-true"])
        reasons: dict[int, str] = {}

        def write(s: StoreProtocol) -> None:
            from memharness_tui.store.errors import MemharnessError

            for p in planned:
                if result.stopped is not None:
                    break
                f = p.fact
                if p.problem is not None or p.judged is None:
                    result.skipped.append((f.id, p.problem or "cannot check"))
                    continue
                values = dict(p.moved) if p.moved is not None else {
                    "new_fact": f.fact, "confidence": f.confidence,
                    "source_ref": _revised_pin(f.source_ref, p.head), "source_agent": AGENTS["still-true"],
                    "source_commit": p.head, "source_path": f.source_path,
                }
                try:  # the new row and its verdict: one transaction
                    _, new_id, _ = s.revise(f.id, values.pop("new_fact"), **values,
                                            verdict=(p.judged.freshness, p.head),
                                            belief_only=True)
                except MemharnessError as exc:
                    if one_fact_only(exc):
                        result.skipped.append((f.id, skip_reason(exc)))
                    else:
                        result.stopped = stop_reason(exc)
                    continue
                result.changed.append((f.id, new_id))
                reasons[new_id] = p.judged.reason

        await self._gw.call(write)
        if result.changed:
            self._written(reasons)
        return result

    async def downgrade(self, facts: Sequence[Fact], factor: float,
                        head: str | None = None, *,
                        heads: Mapping[int, str] | None = None) -> BulkResult:
        """SPEC §8 downgrade, one ``Store.downgrade`` transaction per fact: same text,
        confidence × factor, same pin, same verdict (checked head: the fact's, else its own
        in ``heads``, else ``head``). A fact no longer a belief is skipped (the store
        re-checks inside each write)."""
        result = BulkResult(total=len(facts))
        known = heads or {}

        def write(s: StoreProtocol) -> None:
            from memharness_tui.store.errors import MemharnessError

            for f in facts:
                try:
                    _, new_id, _ = s.downgrade(
                        f.id, factor, source_agent=AGENTS["downgrade"],
                        checked_head=f.checked_head or known.get(f.id) or head or None,
                    )
                except MemharnessError as exc:
                    if one_fact_only(exc):
                        result.skipped.append((f.id, skip_reason(exc)))
                        continue
                    result.stopped = stop_reason(exc)
                    break
                result.changed.append((f.id, new_id))

        await self._gw.call(write)
        if result.changed:
            self._written()
        return result
