"""The store's open and the opening search, started before the UI framework is imported.

Importing Textual takes ~0.15–0.3 s of a cold start. The command line calls
:func:`open_early` before it imports the app, so the store's import and open and the opening
(empty-query) recall — the first results, ~0.1 s of SQLite at 100k facts, which runs without
the GIL — go on on the app's DB thread meanwhile. The app constructed next for the same
database takes that DB thread over (:func:`claim`) and shows those results as its first ones;
nothing is read twice. An app built without a pending start (an embedder) makes its own with
:func:`start` as it is constructed: every app gets its store the same way. This module imports
neither Textual nor the store.

The early start also pauses Python's cyclic garbage collector until the first results are on
screen (``gc_policy``, where the app's collector policy lives).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import Any

from memharness_tui.tui import gc_policy
from memharness_tui.tui.services import RecallQuery, StoreGateway
from memharness_tui.tui.services.gateway import store_opener
from memharness_tui.tui.services.recalls import (
    FIRST_SCREEN_WINDOW,
    OPENING_FIRST_SCREEN_ABOVE,
    first_screen_call,
)
from memharness_tui.tui.services.store import store_info

opener = store_opener  # how the app opens ``path`` on its DB thread (the services' door)


@dataclass
class EarlyStart:
    """A DB thread already opening ``path`` and running the opening recall."""

    key: tuple[str | None, bool, Callable[[], Any] | None]  # (path as given, readonly, opener)
    gateway: StoreGateway
    opening: Future[Any]
    """``store_info``'s answer (or the open's error)."""
    query: RecallQuery
    recall: Future[Any]
    ticket: object | None
    first: Future[Any]
    """The opening recall's first screen, on a large store (else never set)."""

    def discard(self) -> None:
        """Drop it: the recall never runs or is interrupted, and the store is closed."""
        self.recall.cancel()
        self.first.cancel()
        if self.ticket is not None:
            self.gateway.interrupt(self.ticket)
        self.gateway.close()


SWITCH_INTERVAL = 0.0005
"""The GIL switch interval while the app runs (Python's default is 5 ms), from the early
start on. The DB thread and a pass's thread give up the GIL around every SQLite step and
git read, and a read's cancel look (``gateway.PROGRESS_OPS``) needs it; taking it back
waits for the UI thread's time slice, so under the default the opening search at 1M facts
(~470 looks) waited up to 5 ms at each while the UI thread imported Textual. A shorter
slice lets them through; it costs the UI thread a little switching, never correctness."""

_pending: EarlyStart | None = None
_switch_before: float | None = None


def open_early(path: str | None, readonly: bool = False,
               open_store: Callable[[], Any] | None = None) -> None:
    """Start opening ``path`` and its opening recall on a DB thread, for the app to claim.

    ``open_store`` opens the store instead of ``opener(path, readonly)`` (a test's frozen
    clock). A start already pending for the same database, mode and opener is kept."""
    global _pending  # noqa: PLW0603 - one pending start per process, claimed once
    key = (path, readonly, open_store)
    if _pending is not None:
        if _pending.key == key:
            return
        _pending.discard()
    _pending = start(path, readonly, open_store)


def start(path: str | None, readonly: bool = False,
          open_store: Callable[[], Any] | None = None) -> EarlyStart:
    """A DB thread opening ``path`` (with ``open_store`` if given) and running the opening
    recall: how every app gets its store, early or not."""
    gc_policy.pause_for_start()
    shorten_switch_interval()
    gateway = StoreGateway(open_store or opener(path, readonly))
    opening, _ = gateway.submit(store_info)
    query = RecallQuery()  # what the Recall tab asks first (no text, no filters, now)
    first: Future[Any] = Future()
    call = first_screen_call(query, partial(_deliver, first), FIRST_SCREEN_WINDOW,
                             OPENING_FIRST_SCREEN_ABOVE)
    recall, ticket = gateway.submit(call, interruptible=True)
    return EarlyStart((path, readonly, open_store), gateway, opening, query, recall, ticket,
                      first)


def _deliver(first: Future[Any], quick: Any) -> None:
    """On the DB thread: the opening's first screen, unless it was discarded meanwhile."""
    with suppress(InvalidStateError):
        first.set_result(quick)


def claim(path: str | None, readonly: bool,
          open_store: Callable[[], Any] | None = None) -> EarlyStart | None:
    """The early start for exactly this database, mode and opener, if any (once); another
    one is discarded."""
    global _pending  # noqa: PLW0603
    early, _pending = _pending, None
    if early is not None and early.key != (path, readonly, open_store):
        early.discard()
        gc_policy.resume()
        restore_switch_interval()
        return None
    return early


def shorten_switch_interval() -> float:
    """Set the GIL switch interval to ``SWITCH_INTERVAL`` (at most); returns the interval it
    had before the first call, to be restored at exit."""
    global _switch_before  # noqa: PLW0603
    if _switch_before is None:
        _switch_before = sys.getswitchinterval()
    sys.setswitchinterval(min(_switch_before, SWITCH_INTERVAL))
    return _switch_before


def restore_switch_interval() -> None:
    """Back to the interval before ``shorten_switch_interval`` (the app's exit)."""
    global _switch_before  # noqa: PLW0603
    if _switch_before is not None:
        sys.setswitchinterval(_switch_before)
        _switch_before = None

