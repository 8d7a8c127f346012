"""The Recall tab's opening results, fetched while the main screen is built.

A mixin of :class:`~memharness_tui.tui.app.MemharnessApp` (it uses the app's ``service``,
``as_of`` and ``store_revision``), kept apart so the app class stays about one job. The
opening (empty-query) recall is sent when the app loads — or was sent by the command line
before Textual was imported (``app_early``) — and the Recall pane takes its results; the
main screen builds the filters and the other tabs once it has finished.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from memharness_tui.tui import gc_policy
from memharness_tui.tui.services import RecallQuery


class FirstResults:
    _first_recall: asyncio.Future[Any] | None
    _first_recall_sent: asyncio.Future[Any] | None
    _first_query: RecallQuery | None
    _first_revision: int
    service: Any
    as_of: Any
    store_revision: Any

    def _start_first_recall(self) -> None:
        """Ask the DB thread for the Recall tab's opening results now, so the query runs
        while the main screen is composed and mounted instead of after it."""
        query = RecallQuery(as_of=self.as_of)
        first = asyncio.ensure_future(self.service.recall(query))
        # A failure is reported by whoever awaits it (the pane); unclaimed, it is dropped.
        first.add_done_callback(lambda f: None if f.cancelled() else f.exception())
        self._first_recall, self._first_query = first, query
        self._first_recall_sent = first
        self._first_revision = self.store_revision

    def take_first_recall(self, query: RecallQuery) -> Awaitable[Any] | None:
        """The prefetched opening results if ``query`` is what was prefetched (once only)."""
        first, self._first_recall = self._first_recall, None
        if first is None:
            return None
        if query != self._first_query or self.store_revision != self._first_revision:
            first.cancel()
            return None
        return first

    def first_recall_result(self, query: RecallQuery) -> Any | None:
        """The prefetched opening results if they have already arrived and ``query`` is what
        was prefetched (once only); None otherwise (then ``take_first_recall``)."""
        first = self._first_recall
        if (first is None or not first.done() or first.cancelled()
                or first.exception() is not None or query != self._first_query
                or self.store_revision != self._first_revision):
            return None
        self._first_recall = None
        return first.result()

    def first_results_shown(self) -> None:
        """The Recall pane's opening results are painted (or failed): start-up is over."""
        gc_policy.resume()

    async def first_recall_settled(self) -> None:
        """Return once the opening recall has finished (or failed, or was dropped): its read
        on the DB thread, which outlives the prefetch's own caller when the Recall pane's
        first search is superseded while mounting and the next one re-joins it."""
        if self._first_recall_sent is not None:
            await asyncio.wait([self._first_recall_sent])
        while self._first_query is not None:
            read = self.service.recall_in_flight(self._first_query)
            if read is None or read.done():
                return
            await asyncio.wait([read])
