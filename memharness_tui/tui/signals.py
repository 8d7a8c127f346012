"""SIGTERM and SIGHUP end the app the way ``q`` does.

By default either signal kills the process at once: the terminal is left raw (no echo, the
alternate screen, mouse reporting on) and a running staleness pass is not stopped. While the
app runs, both ask it to quit through its own quit action instead, so the screens unmount
(the pass process is closed), Textual's driver restores the terminal and ``run`` returns.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from textual.app import App

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


SETTLE_SECONDS = 2.0
"""At most this long for the screen to finish what it was doing before the quit."""

_quitting: set[asyncio.Task[None]] = set()  # referenced while they run


async def _handled(widgets: list[Any], timeout: float) -> bool:
    """Whether every one of ``widgets`` handled what it had been sent, within ``timeout``."""
    pending = 0
    done = asyncio.Event()

    def handled() -> None:
        nonlocal pending
        pending -= 1
        if pending == 0:
            done.set()

    for widget in widgets:
        if widget.call_later(handled):  # False: it is closing; nothing to wait for
            pending += 1
    if not pending:
        return True
    try:
        await asyncio.wait_for(done.wait(), max(0.0, timeout))
    except TimeoutError:
        return False
    return True


async def _settle(app: App[Any]) -> None:
    """Wait until every widget on the screen has handled what it was sent (as Textual's Pilot
    does), again while that mounted new ones, at most ``SETTLE_SECONDS``.

    A key press waits so, queued behind the focused widget; a quit that does not wait would
    close a pane that was mid-mount, whose ``on_mount`` then finds its children gone."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_SECONDS
    before: set[int] = set()
    while True:
        try:
            widgets = [app, *app.screen.walk_children(with_self=True)]
        except Exception:  # noqa: BLE001 - no screen (starting, ending): nothing to wait for
            return
        now = {id(w) for w in widgets}
        if now == before or not await _handled(widgets, deadline - loop.time()):
            return
        before = now


async def _settle_and_quit(app: App[Any]) -> None:
    await _settle(app)
    app.call_later(app.run_action, "app.quit")


def _quit(app: App[Any]) -> None:
    """On the app's loop: the action ``q`` runs, once the screen has settled."""
    if _quitting:  # a second signal while the first is being handled
        return
    task = asyncio.ensure_future(_settle_and_quit(app))
    _quitting.add(task)
    task.add_done_callback(_quitting.discard)


@contextmanager
def quit_on_signals(app: App[Any]) -> Iterator[None]:
    """Around ``app.run()``: SIGTERM and SIGHUP quit the app as ``q`` does.

    The handler only hands the request to the app's event loop (``call_soon_threadsafe``
    is safe from a signal handler). Outside the loop (before the app starts, after it
    ended) the signal keeps its default effect."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the app is not running: nothing on screen to restore
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        loop.call_soon_threadsafe(_quit, app)

    previous = {sig: signal.signal(sig, handler) for sig in QUIT_SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
