"""The Recall tab's searches: one recall of a query shared by every caller while it runs, and
a half-typed word's first screen before its exact ranking. A part of ``StoreService``
(``service.recalls``): it holds the searches in flight, the service forgets them at a write."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memharness_tui.tui.services.gateway import StoreGateway
from memharness_tui.tui.services.protocol import StoreProtocol

if TYPE_CHECKING:
    from memharness_tui.store.types import RecallResult

__all__ = ["FIRST_SCREEN_ABOVE", "FIRST_SCREEN_WINDOW", "OPENING_FIRST_SCREEN_ABOVE",
           "RecallQuery", "Recalls", "first_screen_call", "recall_call"]


@dataclass(frozen=True)
class RecallQuery:
    """What the Recall tab asks for (browsing never reinforces: SPEC §5)."""

    query: str = ""
    subject: str = ""
    kind: str | None = None
    freshness: str | None = None
    limit: int = 50
    as_of: str | None = None
    vector: tuple[float, ...] | None = None
    """The query's embedding (hybrid recall, as the agent's server runs it), or None."""


def recall_call(q: RecallQuery) -> Callable[[StoreProtocol], RecallResult]:
    """The DB-thread call behind ``StoreService.recall(q)`` (browsing never reinforces)."""
    return lambda s: s.recall(q.query, subject=q.subject, kind=q.kind, as_of=q.as_of,
                              limit=q.limit, freshness=q.freshness, reinforce=False,
                              query_vector=q.vector)


#: The Recall tab's first screen ranks the newest 5,000 rows: ~3-25 ms on a busy 2-core
#: machine (20,000 rows took 40-100 ms there), so a half-typed word's first list is painted
#: within a keystroke's 60 ms. Only on a store whose ids pass 20,000: a smaller store's full
#: scan costs a few first screens, and two lists for one key would only flicker.
FIRST_SCREEN_WINDOW = 5_000
FIRST_SCREEN_ABOVE = 20_000

#: The opening (empty-query) recall, sent as the app starts, shows a first screen only on a
#: store whose ids pass 250,000. Below that its exact ranking (~0.3 ms of SQLite a thousand
#: rows) is back before the screen is built, and a first screen would only show two lists in
#: a row. At 1M facts it takes ~0.3 s of CPU, the first screen ~10 ms: the first results come
#: with the screen, labelled, and the exact list replaces them (cold start at 1M).
OPENING_FIRST_SCREEN_ABOVE = 250_000


def first_screen_call(q: RecallQuery, first: Callable[[RecallResult], None],
                      rows: int = FIRST_SCREEN_WINDOW, above: int = FIRST_SCREEN_ABOVE
                      ) -> Callable[[StoreProtocol], RecallResult]:
    """The DB-thread call behind ``StoreService.recall_with_first_screen`` (never
    reinforces). On a store whose largest id is above ``above``: ``Store.recall_first_
    screen`` over the newest ``rows`` rows; exact (a whole word), it is the answer; else it
    goes to ``first`` and ``recall`` follows in the same call, with no round trip between.
    A smaller store: ``recall`` alone."""
    def call(s: StoreProtocol) -> RecallResult:
        if s.largest_id() > max(above, rows):
            quick = s.recall_first_screen(q.query, subject=q.subject, kind=q.kind,
                                          as_of=q.as_of, limit=q.limit,
                                          freshness=q.freshness, rows=rows)
            if quick.exact:
                return quick
            first(quick)
        return recall_call(q)(s)

    return call


def _poster(first: asyncio.Future[RecallResult]) -> Callable[[RecallResult], None]:
    """A DB-thread callback that hands a first screen to ``first`` on its loop (unless the
    search was superseded meanwhile: ``first`` cancelled)."""
    loop = first.get_loop()

    def post(quick: RecallResult) -> None:  # on the DB thread
        def deliver() -> None:
            if not first.done():
                first.set_result(quick)

        loop.call_soon_threadsafe(deliver)

    return post


class _SharedRecall:
    """One recall in flight and how many callers wait for it."""

    def __init__(self, task: asyncio.Future[RecallResult]) -> None:
        self.task = task
        self.waiters = 0
        self.abandoned = False  # cancelled (or about to be): nobody may join it any more

    def leave(self) -> None:
        """A waiter was cancelled. When none is left, cancel (interrupt) the recall — two loop
        turns later, so a caller re-asking at once (a superseded worker's successor) can
        still join it."""
        self.waiters -= 1
        if self.waiters > 0:
            return
        loop = self.task.get_loop()

        def maybe_cancel() -> None:
            if self.waiters <= 0:
                self.abandoned = True
                self.task.cancel()

        loop.call_soon(loop.call_soon, maybe_cancel)


class Recalls:
    """The searches in flight on one gateway, and the first screen's window (how many of the
    newest rows it ranks, above which largest id it is tried)."""

    def __init__(self, gateway: StoreGateway) -> None:
        self._gw = gateway
        self._running: dict[RecallQuery, _SharedRecall] = {}
        self.first_screen_rows = FIRST_SCREEN_WINDOW
        self.first_screen_above = FIRST_SCREEN_ABOVE
        self.opening_first_screen_above = OPENING_FIRST_SCREEN_ABOVE

    def forget(self) -> None:
        """A write happened: a recall in flight may predate it, so none is shared any more."""
        self._running.clear()

    async def recall(self, q: RecallQuery) -> RecallResult:
        """Ranked recall. Interruptible: when every caller waiting for it is cancelled (a
        newer keystroke), its SQLite statement stops. Callers asking for the same query while
        it runs share it — the app's opening search is asked for by the prefetch and by the
        Recall pane's re-asks while mounting; each used to start (and cancel) its own scan
        of every current row (~0.7 s at 1M)."""
        shared = self._running.get(q)
        if shared is None or shared.abandoned:
            shared = self._share(q, self._gw.call(recall_call(q), interruptible=True))
        shared.waiters += 1
        try:
            result = await asyncio.shield(shared.task)
        except asyncio.CancelledError:
            if shared.task.done():
                shared.waiters -= 1
            else:
                shared.leave()  # this caller was cancelled; the recall may still be shared
            raise
        except BaseException:
            shared.waiters -= 1
            raise
        shared.waiters -= 1
        return result

    async def recall_with_first_screen(self, q: RecallQuery,
                                       first: asyncio.Future[RecallResult]) -> RecallResult:
        """Keyword recall, and a quick provisional answer before it when it is slow: on a
        store above ``first_screen_above`` ids a query that scans (a half-typed word's
        substring fallback, the empty query) first sets ``first`` to the newest
        ``first_screen_rows`` rows ranked (``exact`` False), then the same DB-thread call
        runs ``recall``. A whole word is answered exactly in the one call, as :meth:`recall`
        would. Interruptible, like :meth:`recall`; never shared."""
        return await self._gw.call(first_screen_call(q, _poster(first), self.first_screen_rows,
                                                     self.first_screen_above),
                                   interruptible=True)

    async def opening(self, q: RecallQuery, first: asyncio.Future[RecallResult]) -> RecallResult:
        """The app's opening recall of ``q``: :meth:`recall`, shared as it is, whose call
        first sets ``first`` to a first screen on a store above
        ``opening_first_screen_above`` ids (see ``OPENING_FIRST_SCREEN_ABOVE``)."""
        shared = self._running.get(q)
        if shared is None or shared.abandoned:
            call = first_screen_call(q, _poster(first), self.first_screen_rows,
                                     self.opening_first_screen_above)
            self._share(q, self._gw.call(call, interruptible=True))
        return await self.recall(q)

    def recall_in_flight(self, q: RecallQuery) -> asyncio.Future[RecallResult] | None:
        """The recall of ``q`` running for its callers now (it ends when the read does, not
        when a caller gives up), or None."""
        shared = self._running.get(q)
        return None if shared is None else shared.task

    def adopt_recall(self, q: RecallQuery, future: Future[RecallResult], ticket: object | None) -> None:
        """Share, as if started here, a recall of ``q`` already sent to the DB thread with
        ``StoreGateway.submit`` (the CLI's opening search, sent before the app existed)."""
        self._share(q, self._gw.wait(future, ticket))

    def _share(self, q: RecallQuery, running: Awaitable[RecallResult]) -> _SharedRecall:
        task = asyncio.ensure_future(running)
        shared = self._running[q] = _SharedRecall(task)
        task.add_done_callback(lambda _t: self._forget_recall(q, shared))
        return shared

    def _forget_recall(self, q: RecallQuery, shared: _SharedRecall) -> None:
        if self._running.get(q) is shared:
            del self._running[q]
