"""The Recall tab's opening results, fetched while the main screen is built.

The opening (empty-query) recall is sent when the app loads — or was sent by the command line
before Textual was imported (``app_early``) — and the Recall pane takes its results; the main
screen builds the filters and the other tabs once it has finished. On a large store the same
DB-thread call first ranks the newest rows (``OPENING_FIRST_SCREEN_ABOVE``): the pane shows
that first screen, labelled "not yet exact", when the exact list is not back yet as the screen
is built. The app holds one :class:`OpeningRecall` as ``app.opening``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any

from memharness_tui.tui import gc_policy
from memharness_tui.tui.services.store import RecallQuery, StoreService


class OpeningRecall:
    """The opening recall: sent once, taken once by the Recall pane (if nothing moved)."""

    def __init__(self, service: StoreService, revision: Callable[[], int]) -> None:
        """``revision``: the app's store revision now (results from before a write are stale)."""
        self._service = service
        self._revision = revision
        self._recall: asyncio.Future[Any] | None = None
        self._sent: asyncio.Future[Any] | None = None
        self._query: RecallQuery | None = None
        self._sent_at = 0
        self._quick: asyncio.Future[Any] | None = None

    def start(self, as_of: str | None,
              early: tuple[RecallQuery, Future[Any]] | None = None) -> None:
        """Ask the DB thread for the Recall tab's opening results now, so the query runs
        while the main screen is composed and mounted instead of after it. ``early``: the
        command line's opening query, already sent, and its first screen's future."""
        query = RecallQuery(as_of=as_of)
        recalls = self._service.recalls
        if early is not None and early[0] == query:  # joins the adopted early recall
            self._quick = asyncio.wrap_future(early[1])
            first = asyncio.ensure_future(recalls.recall(query))
        else:
            self._quick = asyncio.get_running_loop().create_future()
            first = asyncio.ensure_future(recalls.opening(query, self._quick))
        # A failure is reported by whoever awaits it (the pane); unclaimed, it is dropped.
        first.add_done_callback(lambda f: None if f.cancelled() else f.exception())
        self._recall, self._query = first, query
        self._sent = first
        self._sent_at = self._revision()

    def take(self, query: RecallQuery) -> Awaitable[Any] | None:
        """The prefetched opening results if ``query`` is what was prefetched (once only)."""
        first, self._recall = self._recall, None
        if first is None:
            return None
        if query != self._query or self._revision() != self._sent_at:
            first.cancel()
            return None
        return first

    def result(self, query: RecallQuery) -> Any | None:
        """The prefetched opening results if they have already arrived and ``query`` is what
        was prefetched (once only); None otherwise (then :meth:`take`)."""
        first = self._recall
        if (first is None or not first.done() or first.cancelled()
                or first.exception() is not None or query != self._query
                or self._revision() != self._sent_at):
            return None
        self._recall = None
        return first.result()

    def first_screen(self, query: RecallQuery) -> Any | None:
        """The opening recall's first screen (not yet exact) if it has arrived, the exact
        results have not, and ``query`` is what was sent; else None."""
        quick = self._quick
        if (quick is None or not quick.done() or quick.cancelled() or query != self._query
                or self._revision() != self._sent_at or self._recall is None):
            return None
        return quick.result()

    def shown(self) -> None:
        """The Recall pane's opening results are painted (or failed): start-up is over."""
        gc_policy.resume()

    async def settled(self) -> None:
        """Return once the opening recall has finished (or failed, or was dropped): its read
        on the DB thread, which outlives the prefetch's own caller when the Recall pane's
        first search is superseded while mounting and the next one re-joins it."""
        if self._sent is not None:
            await asyncio.wait([self._sent])
        while self._query is not None:
            read = self._service.recalls.recall_in_flight(self._query)
            if read is None or read.done():
                return
            await asyncio.wait([read])

    def cancel(self) -> None:
        """The app is closing: drop results nobody took."""
        if self._recall is not None:
            self._recall.cancel()
        if self._quick is not None:
            self._quick.cancel()

