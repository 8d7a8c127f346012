"""The header's counts after another connection's commits: counted ahead of the panes.

``StoreService``'s poll tells the panes of a burst of commits at most twice a second; the
header's counts cost a few ms at 1M rows (``store/current_ledger.py``), so they follow every
commit sooner. A count runs on the scan thread without waiting for searches, one at a time
(a commit during it: once more after it), and the header's own ``counts()`` call joins it.

Commits are seen in the wal-index header (``store/wal_pages.py``), read every ``WATCH_EVERY``
on the event loop (~0.1 ms), not by the poll: after a tell the poll waits on the DB thread
behind the panes' searches (~0.2 s at 1M rows). Where it cannot be read (no WAL, not Linux),
the poll's commits are counted instead (``untold``).

Counts another process read (``learned``: the pass process, just after a pass's last commit)
are the store's counts for as long as the log stands where they were read: they are told at
once, a count due meanwhile takes them instead of reading, and a count that started before the
log reached there is not told over them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from memharness_tui.tui.services.gateway import StoreGateway
from memharness_tui.tui.services.protocol import StoreProtocol

if TYPE_CHECKING:
    from memharness_tui.store.types import MarkedCounts, StoreCounts

COUNT_AT_MOST_EVERY = 0.1
"""Seconds: a commit the panes hear of later is counted for the header at once, but at most
this often, and with at least ``COUNT_SHARE`` times the last count's own time between two (a
full read of 1M rows, ~0.3 s: not before 1.5 s — the tell comes first)."""

COUNT_SHARE = 5
"""A count the panes did not ask for uses at most 1/``COUNT_SHARE`` of a core."""

COUNT_WHILE_PASSING = 0.5
"""Seconds: while a pass of this app's writes (``passing``), its commits are counted at most
this often — its own counters show its progress, its last commit's counts come from the pass
process (``learned``), and on two cores every count taken from the pass is time it waits."""

WATCH_EVERY = 0.05
"""Seconds between two reads of the wal-index header (while someone follows the counts)."""

CountsListener = Callable[["StoreCounts"], None]
"""Told the header counts after each commit by another connection (``follow``)."""


def _counts(s: StoreProtocol) -> StoreCounts:
    return s.counts()


class HeaderCounts:
    """The counts ahead (``count``), the one a header may join (``joinable``), and the
    listeners that follow every commit (``follow``)."""

    def __init__(self, gateway: StoreGateway, path: Callable[[], str | None],
                 passing: Callable[[], bool] = lambda: False) -> None:
        self._gw = gateway
        self._path = path  # the open store's, once open
        self._passing = passing  # a pass of this app's writes (``COUNT_WHILE_PASSING``)
        self._changes = 0  # moves at every write seen (ours, or another connection's commit)
        self._counting: tuple[int, asyncio.Future[StoreCounts]] | None = None  # (at, in flight)
        self._learned: MarkedCounts | None = None  # another process's counts (``learned``)
        self._again = False  # a commit seen while a count ran: count once more after it
        self._version: int | None = None  # the data_version last counted (``untold``)
        self._mark: object | None = None  # the wal-index when the last count started
        self._at = 0.0  # when the last count started, and how long it ran
        self._took = 0.0
        self._listeners: list[CountsListener] = []
        self._told: StoreCounts | None = None  # as last told to them
        self._watch: asyncio.Future[None] | None = None
        self._watching = False  # the wal-index can be read (a WAL file, on Linux)

    def written(self) -> None:
        """A write was made: a count started before it is no answer any more."""
        self._changes += 1

    def close(self) -> None:
        if self._counting is not None:
            self._counting[1].cancel()
        if self._watch is not None:
            self._watch.cancel()

    def joinable(self) -> asyncio.Future[StoreCounts] | None:
        """The count started after the last write seen, if any (done or in flight)."""
        ahead = self._counting
        return ahead[1] if ahead is not None and ahead[0] == self._changes else None

    def count(self, version: int | None = None) -> None:
        """Another connection committed (told to the panes at ``version``): count now, on the
        scan thread, before the panes' reloads send their searches (a count asked for after
        them waited for them: ~0.4 s of the 1M store's empty query)."""
        if version is not None:
            self._version = version
        self._changes += 1
        if self._counting is not None and not self._counting[1].done():
            self._again = True  # one at a time (a pass writing): once more after it
            return
        self._start()

    def untold(self, version: int) -> None:
        """The poll saw a commit the panes hear of later: counted now where no wal-index is
        watched (there the watch has seen it), once, while counting is cheap."""
        if not self._watching and version != self._version and self._may_count():
            self.count(version)

    def _may_count(self) -> bool:
        gap = COUNT_WHILE_PASSING if self._passing() else COUNT_AT_MOST_EVERY
        return time.monotonic() - self._at >= max(gap, COUNT_SHARE * self._took)

    def learned(self, marked: MarkedCounts) -> None:
        """Another process read ``marked`` (its counts, where the log stood): told now if the
        log still stands there (else a count follows the commit since)."""
        if self._learned_now(marked) is None:
            return
        self._learned = marked
        self._tell(marked.counts)

    def current_learned(self) -> StoreCounts | None:
        """The counts learned from another process, while they are still the store's."""
        return self._learned_now(self._learned)

    def _learned_now(self, marked: MarkedCounts | None, mark: object | None = None,
                     ) -> StoreCounts | None:
        if marked is None:
            return None
        if marked.until is not None:
            from memharness_tui.tui.services.gateway import default_now

            if default_now() >= marked.until:  # a row became (or stopped being) current
                return None
        try:
            now = mark if mark is not None else self._wal_mark()
        except Exception:  # noqa: BLE001 - unreadable: count as without them
            return None
        return marked.counts if now is not None and now == marked.mark else None

    def _start(self) -> None:
        self._again = False
        self._at = time.monotonic()
        self._mark = self._wal_mark()
        learned = self._learned_now(self._learned, self._mark)
        if learned is not None:  # the log stands where another process counted: no read
            done: asyncio.Future[StoreCounts] = asyncio.get_running_loop().create_future()
            done.set_result(learned)
            done.add_done_callback(self._counted)
            self._counting = (self._changes, done)
            return
        started_at = self._mark

        def count(s: StoreProtocol) -> StoreCounts:
            started = time.perf_counter()
            try:
                return s.counts()
            finally:  # its own time, not the wait for the scan thread
                self._took = time.perf_counter() - started

        ahead = asyncio.ensure_future(self._gw.call_scan(count, after_searches=False))
        ahead.add_done_callback(lambda done: self._counted(done, started_at))
        self._counting = (self._changes, ahead)

    def _counted(self, ahead: asyncio.Future[StoreCounts], started_at: object | None = None,
                 ) -> None:
        if ahead.cancelled() or ahead.exception() is not None:
            return
        learned = self._learned
        if learned is None or started_at == learned.mark or self._learned_now(learned) is None:
            self._tell(ahead.result())
        # else it was read before the log reached where the learned counts were read, and
        # the log still stands there: they are newer (the watch sees the log moved since
        # this count's start, and the next count takes them)
        if self._again and not getattr(self._gw, "closed", False) \
                and (not self._watching or self._may_count()):
            self._start()  # else the watch counts it once that is allowed (its mark moved)

    def _tell(self, counts: StoreCounts) -> None:
        if counts != self._told:
            self._told = counts
            for listener in list(self._listeners):
                listener(counts)

    def follow(self, listener: CountsListener) -> Callable[[], None]:
        """Tell ``listener`` the counts after every commit; returns the call that stops it."""
        self._listeners.append(listener)
        if self._watch is None:
            self._watch = asyncio.ensure_future(self._watch_commits())

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            if not self._listeners and self._watch is not None:
                self._watch.cancel()
                self._watch = None

        return stop

    def _wal_mark(self) -> object | None:
        """Where the write-ahead log stands (it moves at every commit), or None."""
        path = self._path()
        if path is None:
            return None
        from memharness_tui.store import wal_pages

        return wal_pages.mark_now(path)

    async def _watch_commits(self) -> None:
        while not getattr(self._gw, "closed", False):
            await asyncio.sleep(WATCH_EVERY)
            try:
                mark = self._wal_mark()
            except Exception:  # noqa: BLE001 - the poll still tells every commit
                mark = None
            self._watching = mark is not None
            if mark is None:
                continue
            if self._counting is not None and not self._counting[1].done():
                continue  # a count runs: a commit after its start is counted after it
            if self._mark is None:
                self._mark = mark  # where the header's first count stood, or after
            elif mark != self._mark and self._may_count():
                self.count()
