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


def _quit(app: App[Any]) -> None:
    """On the app's loop: the action ``q`` runs (a second signal asks again)."""
    app.call_later(app.run_action, "app.quit")


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
