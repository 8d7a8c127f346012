"""How the Recall tab gets a search's answer: one exact recall, or a first screen first.

A typed search on a large store whose query scans (a half-typed word's substring fallback,
the empty query) shows a quick first screen — the newest rows ranked, labelled "not yet
exact" by the pane's status line — while the exact recall goes on in the same DB-thread call
(``StoreService.recall_with_first_screen``). A whole word, or any query on a small store, is
answered exactly by that one call: the whole-word path gains no round trip.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memharness_tui.store.types import RecallResult
    from memharness_tui.tui.services import RecallQuery
    from memharness_tui.tui.services.store import StoreService


async def recall_answer(service: StoreService, asked: RecallQuery, refresh: bool,
                        show_first: Callable[[RecallResult], None]) -> RecallResult:
    """The exact answer to ``asked``; ``show_first`` gets a first screen before it, if any.

    A refresh (after a write, "more"), a hybrid search and a recall of ``asked`` already
    running (the opening one, asked again while the pane mounts: it is joined) make one
    exact call, as before first screens."""
    if refresh or asked.vector is not None or service.recalls.recall_in_flight(asked) is not None:
        return await service.recalls.recall(asked)
    return await first_then_exact(service, asked, show_first)


async def first_then_exact(service: StoreService, asked: RecallQuery,
                           show_first: Callable[[RecallResult], None]) -> RecallResult:
    """The first screen goes to ``show_first`` unless the exact answer is already here. Only
    the caller's task shows it, so a newer keystroke (which cancels that task and interrupts
    its read) never sees a stale list; its own answer sets the label anew."""
    first: asyncio.Future[RecallResult] = asyncio.get_running_loop().create_future()
    exact = asyncio.ensure_future(service.recalls.recall_with_first_screen(asked, first))
    try:
        await asyncio.wait((first, exact), return_when=asyncio.FIRST_COMPLETED)
        if first.done() and not exact.done():
            show_first(first.result())
        return await exact
    finally:
        first.cancel()  # nobody reads it any more (a no-op once set)
        exact.cancel()  # (a no-op once it is done) cancelled: its read is interrupted
