"""The flagged list during a writing pass, followed from the pass's own verdicts.

At the pass's start the rows it will judge (its work list) are read once, by id, while the pass
process works (by id from the work list when this process read it; else every believed row,
on a store of up to ``PASS_ROWS_MAX``); each batch's verdicts then put those rows into the list
(stale, unresolved) or take them out (current) with the verdict's freshness and pin, so no
flagged row is read again while the pass writes, and the list is whole the moment it ends.
``PASS_CHECK_DELAY`` after the end (the header's recount has the scan thread first) one load
of the list from the store checks it: it brings what only the store knows (``checked_at``,
another writer's change meanwhile). A HEAD that moves, rows not read by the pass's end, a
larger store or a load asked for meanwhile (``r``) fall back to the loads as before.

Those rows are read ahead, while the tab is looked at (after the list's load, at most every
``AHEAD_EVERY`` seconds): a pass started while nothing was written since takes them, so the
app reads nothing while the pass process works beside it (on two cores, every read of the
app's is time taken from the pass). A write since (the store's revision moved) reads again at
the pass's start, as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from textual.worker import Worker, WorkerError, WorkerState

from memharness_tui.store.types import Fact
from memharness_tui.tui.services.git import Judged
from memharness_tui.tui.widgets.staleness.row_analysis import RowInfo

if TYPE_CHECKING:
    from textual.timer import Timer

    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.services.passes import Verdict, WorkItem
    from memharness_tui.tui.widgets.staleness.flagged import FlaggedPanel

FLAGGED = ("stale", "unresolved")
#: a writing pass is followed from its verdicts (its rows read at its start) up to this many
#: believed rows when the pass process read its work list; on a larger store the list is
#: loaded from the store as the pass writes, as before
PASS_ROWS_MAX = 50_000
#: seconds after a followed pass before the list is loaded from the store (the check): the
#: header's recount after the pass's last commit gets the scan thread first
PASS_CHECK_DELAY = 0.5
#: seconds between two reads ahead of the believed rows (a store written to often is not read
#: again after every write: its next pass reads its rows at its start)
AHEAD_EVERY = 5.0
#: a followed list longer than this many rows takes a pass's verdicts in at most every
#: ``LONG_LIST_EVERY`` seconds (and at the pass's end): each time rebuilds the whole list
#: (~50 ms at 28k rows, on the UI thread), which on two cores is taken from the pass
LONG_LIST = 10_000
LONG_LIST_EVERY = 0.5


def shown_now(widget: Any) -> bool:
    """Mounted, and displayed along with every ancestor (its tab is the one shown)."""
    return bool(widget.is_mounted) and all(
        node.display for node in widget.ancestors_with_self if hasattr(node, "display"))


def after_verdict(f: Fact, v: Verdict) -> Fact:
    """``f`` as the pass wrote it: the verdict's freshness and HEAD, the pin it adopted
    (``checked_at`` is the store's clock: the load after the pass brings it)."""
    commit, path = f.source_commit, f.source_path
    if v.backfilled:  # as the writer's COALESCE: a path-only backfill keeps the commit
        if not v.path_only and v.commit is not None:
            commit = v.commit
        if v.path is not None:
            path = v.path
    return Fact(f.id, f.subject, f.predicate, f.fact, f.confidence, f.valid_from, f.valid_to,
                f.tx_at, f.superseded_by, f.source_agent, f.source_ref, f.retracted_at,
                f.importance, f.kind, f.last_accessed_at, f.embedding_dim, f.embedding_model,
                commit, path, v.freshness, f.checked_at, v.checked_head, f.score)


class PassRows:
    """The rows a writing pass judges (read at its start) and its verdicts not yet shown."""

    def __init__(self) -> None:
        self.active = False  # a writing pass runs and the list follows it
        self.token = 0  # a read answered for an older pass is dropped
        self.read: dict[int, Fact] | None = None  # None: still being read
        self.pending: list[Verdict] = []
        self.shown: list[Verdict] = []  # in the list: again after a load that predates them

    def start(self) -> int:
        self.token += 1
        self.active, self.read, self.pending, self.shown = True, None, [], []
        return self.token

    def stop(self) -> int:
        """The list is loaded from the store again: the pass's rows are not needed."""
        self.token += 1
        self.active, self.read, self.pending, self.shown = False, None, [], []
        return self.token

    def took(self, token: int, facts: Sequence[Fact]) -> list[Verdict] | None:
        """The rows read for pass ``token``; the verdicts that waited for them (None: the
        read is out of date)."""
        if token != self.token or not self.active:
            return None
        self.read = {f.id: f for f in facts}
        pending, self.pending = self.pending, []
        return pending

    def changes(self, verdicts: Sequence[Verdict],
                read: dict[int, Fact] | None = None) -> dict[int, Any]:
        """id → the row as the pass wrote it (None: no longer flagged, or not read);
        ``read``: the rows read (default: this pass's, as they are now)."""
        read = read if read is not None else self.read or {}
        out: dict[int, Any] = {}
        for v in verdicts:
            f = read.get(v.fact_id)
            out[v.fact_id] = after_verdict(f, v) if f is not None and v.freshness in FLAGGED \
                else None
        return out

    def prepare(self, verdicts: Sequence[Verdict]) -> Prepared:
        """What the list makes of ``verdicts``, computed in the pass's thread as each batch
        arrives (so the UI thread, when it shows them, only merges): thread-safe, it reads
        the rows once read and never writes here."""
        read, token = self.read, self.token  # this order: a stop() in between is seen
        judged = {v[0]: Judged(v.freshness, v.reason, v.repo, v.checked_head,
                               v.resolved is not None) for v in verdicts}
        if read is None:
            return Prepared(token, judged, None, None)
        return Prepared(token, judged, self.changes(verdicts, read), read)


@dataclass(frozen=True)
class Prepared:
    """One batch's verdicts made ready off the UI thread: each one's ``judged`` (what
    :class:`PassJudgements` learns) and, once the pass's rows were read (``read``, for pass
    ``token``), ``news`` as :meth:`PassRows.changes` says (None: to be computed when shown)."""

    token: int
    judged: dict[int, Judged]
    news: dict[int, Any] | None
    read: dict[int, Fact] | None


class PassFollower:
    """The flagged list following a writing pass (held as ``panel.follower``; the dashboard
    tells it when the pass starts, writes and ends). Workers run on the panel."""

    def __init__(self, panel: FlaggedPanel) -> None:
        self._panel = panel
        self.rows = PassRows()
        self.checking = False  # a followed pass ended: one load soon checks the list
        self._ending: bool | None = None  # the pass ended while its rows were read (reload?)
        self.ahead = False  # read the rows ahead (the dashboard: passes go to the pass process)
        self._ahead: tuple[int, Worker[list[Fact] | None]] | None = None  # (revision, read)
        self._ahead_at = -AHEAD_EVERY  # when the last read ahead started (monotonic)
        self._ahead_timer: Timer | None = None
        self._prepared: list[Prepared | None] = []
        #: verdicts (and their batches' ``prepare``) not in the long list yet (``batch``)
        self._held: tuple[list[Verdict], list[Prepared | None]] = ([], [])
        self._taken_at = -LONG_LIST_EVERY  # when the list last took verdicts in (monotonic)
        self._then: Callable[[], None] | None = None  # after the list's load (look_ahead)
        self._listed: tuple[list[Fact], dict[int, Fact]] = ([], {})  # _show's last list, by id
        #: called as each read ahead starts on a store small enough (the pass process reads
        #: the pins then: the dashboard's)
        self.on_ahead: Callable[[], None] | None = None
        #: the clock of the pacing above (``AHEAD_EVERY``, ``LONG_LIST_EVERY``; a test's own)
        self.clock: Callable[[], float] = time.monotonic
        #: runs the check ``PASS_CHECK_DELAY`` after a followed pass (the panel's timer; a
        #: test holds it, to look at the list the pass left, then runs it)
        self.check_later: Callable[[float, Callable[[], None]], object] = panel.set_timer

    @property
    def _revision(self) -> int:
        return cast("MemharnessApp", self._panel.app).store_revision

    def look_ahead(self, then: Callable[[], None]) -> None:
        """From now on, read the rows ahead (:meth:`read_ahead`); ``then`` (the pass process's
        start) runs once the list has loaded and been painted: on a large store its first
        load is what the person waits for, and the process's imports would take from it."""
        self.ahead = True
        if self._panel._loaded:
            self._panel.call_after_refresh(then)
            self.read_ahead()
        else:
            self._then = then  # after the load (:meth:`loaded`)

    def read_ahead(self) -> None:
        """Read the believed rows for the next pass (after a load of the list): at once, or
        once ``AHEAD_EVERY`` has passed since the last read; not while a pass is followed, nor
        when the rows read last are still the store's."""
        panel = self._panel
        if not self.ahead or self.follows or not panel._loaded or not shown_now(panel):
            return
        ahead = self._ahead
        if ahead is not None and ahead[0] == self._revision \
                and ahead[1].state not in (WorkerState.ERROR, WorkerState.CANCELLED):
            return  # still the store's rows (or being read)
        wait = self._ahead_at + AHEAD_EVERY - self.clock()
        if wait > 0:
            if self._ahead_timer is None:
                self._ahead_timer = panel.set_timer(wait, self._ahead_due)
            return
        self._ahead_at = self.clock()
        self._ahead = (self._revision, panel.run_worker(
            self._read_all(), group="flagged-ahead", exclusive=True, exit_on_error=False))

    def _ahead_due(self) -> None:
        self._ahead_timer = None
        self.read_ahead()

    async def _read_all(self) -> list[Fact] | None:
        """Every believed row, on a store of up to ``PASS_ROWS_MAX`` (None: a larger one)."""
        service = cast("MemharnessApp", self._panel.app).service
        limit = (await service.counts()).current
        if limit > PASS_ROWS_MAX:
            return None
        if self.on_ahead is not None:
            self.on_ahead()
        return await service.facts_by_id(None, limit)

    async def _rows_ahead(self) -> list[Fact] | None:
        """The rows read ahead, if nothing was written since (waiting for a read under way);
        None: read them now."""
        ahead, self._ahead = self._ahead, None  # used once: the pass writes
        if ahead is None or ahead[0] != self._revision:
            return None
        try:
            return await ahead[1].wait()
        except WorkerError:  # failed or cancelled: read as without it
            return None

    @property
    def follows(self) -> bool:
        """Following a pass (no load needed while it writes), or its check is due."""
        return self.rows.active or self.checking

    def invalidate(self, *, judge_all: bool) -> None:
        """The store changed: the panel loads, unless the list follows a pass (whose end
        loads it, once, after the header's recount)."""
        self._ahead = None  # the rows read ahead are not the store's any more
        if not self.follows:
            self._panel.invalidate(judge_all=judge_all)

    def started(self, writes: bool, work: Sequence[WorkItem] | None) -> None:
        """A pass starts; ``work``: what it judges (None: the pass process read it). One that
        writes is followed if the list is loaded."""
        panel = self._panel
        if not writes or not panel._loaded:
            self.rows.stop()
            return
        ids = None if work is None else [w.fact_id for w in work]
        self._ending = None
        token = self.rows.start()
        ahead = self._ahead
        if ahead is not None and ahead[0] == self._revision \
                and ahead[1].state == WorkerState.SUCCESS and ahead[1].result is not None:
            self._ahead = None  # read ahead, nothing written since: the rows are there before
            self.rows.took(token, ahead[1].result)  # the pass's first batch (none pending)
            return
        panel.run_worker(self._read(ids, token), group="flagged-pass", exit_on_error=False)

    async def _read(self, ids: list[int] | None, token: int) -> None:
        try:
            await self._read_rows(ids, token)
        except Exception:
            if token == self.rows.token:  # never wait for rows that will not come
                self._ending = None
                self.rows.stop()
                self._panel.reload()
            raise
        if self._ending is not None and token == self.rows.token:
            reload, self._ending = self._ending, None
            self.ended(reload=reload)  # the pass ended while they were read: end now

    async def _read_rows(self, ids: list[int] | None, token: int) -> None:
        service = cast("MemharnessApp", self._panel.app).service
        ahead = await self._rows_ahead()
        if ahead is not None:  # every believed row: the pass's among them
            pending = self.rows.took(token, ahead)
            if pending:
                self._show(pending)
            return
        if ids is None:  # every believed row, on a store small enough to hold them all
            limit = (await service.counts()).current
            if limit > PASS_ROWS_MAX:
                if token == self.rows.token:
                    self.rows.stop()
                    self._panel.invalidate(judge_all=False)  # loads follow the store
                return
        else:
            limit = len(ids)
        facts = await service.facts_by_id(ids, limit)
        pending = self.rows.took(token, facts)
        if pending:
            self._show(pending)

    def prepare(self, verdicts: Sequence[Verdict]) -> Prepared:
        """(From the pass's thread) ``verdicts`` made ready for :meth:`batch`."""
        return self.rows.prepare(verdicts)

    def batch(self, verdicts: list[Verdict], prepared: Sequence[Prepared | None]) -> None:
        """The pass committed these verdicts (``prepared``: :meth:`prepare` of each batch).
        A long list takes them in at most every ``LONG_LIST_EVERY`` (:meth:`ended` takes in
        what is held)."""
        ready = [p.judged for p in prepared if p is not None]
        self._panel.from_pass.learn(verdicts, ready)
        held_verdicts, held_prepared = self._held
        held_verdicts.extend(verdicts)
        held_prepared.extend(prepared)
        if len(self._panel.flagged) > LONG_LIST \
                and self.clock() - self._taken_at < LONG_LIST_EVERY:
            return
        self._take_held()

    def _take_held(self) -> None:
        (verdicts, prepared), self._held = self._held, ([], [])
        if not verdicts:
            return
        self._taken_at = self.clock()
        self._prepared = prepared
        self.wrote(verdicts)

    def wrote(self, verdicts: list[Verdict]) -> None:
        """The pass committed these verdicts."""
        prepared, self._prepared = self._prepared, []
        if not self.rows.active or not verdicts:
            return
        if self.rows.read is None:
            self.rows.pending.extend(verdicts)
            return
        self._show(verdicts, news=self._news(prepared, len(verdicts)))

    def _news(self, prepared: list[Prepared | None], n: int) -> dict[int, Any] | None:
        """The news :meth:`prepare` computed for ``n`` verdicts, if all of it holds for the
        rows read for this pass (else None: computed now)."""
        rows = self.rows
        if not prepared or any(p is None or p.news is None or p.token != rows.token
                               or p.read is not rows.read for p in prepared):
            return None
        news: dict[int, Any] = {}
        for p in prepared:
            assert p is not None and p.news is not None
            news.update(p.news)
        return news if len(news) == n else None

    def ended(self, *, reload: bool) -> None:
        """The pass ended. Followed to its end, the list holds every row it wrote: one load
        checks it shortly (after the header's recount); else it loads now if ``reload``."""
        self._take_held()  # the verdicts a long list held back
        rows = self.rows
        if rows.active and rows.read is None and not self._panel._loads_running:
            self._ending = reload  # its rows are still being read (a busy machine): the
            return  # read's end shows the verdicts that waited, then ends as below
        # a load asked for before the pass, still running, would replace the list: load again
        followed = rows.active and rows.read is not None and not self._panel._loads_running
        reload = reload or rows.active  # its rows still being read: load the list instead
        rows.stop()
        if followed:
            self.checking = True
            self.check_later(PASS_CHECK_DELAY, self._check)
            self._panel.analysis.schedule_drift()  # held while the pass ran
        elif reload:
            self._panel.reload()

    def _check(self) -> None:
        self.checking = False
        self._panel.invalidate()

    def loaded(self, token: int) -> None:
        """A load asked for before the pass started (``token``: the follower's then) has
        replaced the list: the pass's rows shown so far go back in."""
        if self.rows.active and token != self.rows.token and self.rows.shown:
            self._show(self.rows.shown, again=True)
        then, self._then = self._then, None
        if then is not None:
            self._panel.call_after_refresh(then)
        self.read_ahead()

    def _show(self, verdicts: Sequence[Verdict], *, again: bool = False,
              news: dict[int, Any] | None = None) -> None:
        """Put the rows the verdicts flag into the list and take out the others, judged as the
        pass said; should its judgements not hold any more (a HEAD moved), load it all.
        ``news``: :meth:`PassRows.changes` of ``verdicts``, when already computed."""
        panel = self._panel
        if news is None:
            news = self.rows.changes(verdicts)
        judged, ask = panel.from_pass.split([f for f in news.values() if f is not None],
                                            panel.repos)
        if ask:
            self.rows.stop()
            panel.reload()
            return
        if not again:
            self.rows.shown.extend(verdicts)
        listed, by_id = self._listed  # the list as this drew it last (not rebuilt per batch)
        if listed is not panel.flagged:  # a load (or anything else) replaced it since
            by_id = {f.id: f for f in panel.flagged}
        old = panel.rows
        rows = dict(old)
        flagged = {i: f for i, f in news.items() if f is not None}
        for i in news.keys() - flagged.keys():
            by_id.pop(i, None)
            rows.pop(i, None)
        by_id.update(flagged)
        infos = {i: RowInfo(judged.get(i)) for i in flagged}
        for i in flagged.keys() & old.keys():  # judged where it was: its drift and triage hold
            info, prev = infos[i], old[i]
            if prev.judged is not None and info.judged is not None \
                    and (prev.judged.repo, prev.judged.head) == (info.judged.repo,
                                                                 info.judged.head):
                info.drift, info.drift_done = prev.drift, prev.drift_done
                info.triage, info.triage_done = prev.triage, prev.triage_done
        rows.update(infos)
        panel.rows = rows
        facts = [by_id[i] for i in sorted(by_id)]
        self._listed = (facts, by_id)
        panel._take(facts, len(facts))
