"""What the app's full screens (main, fact detail) share: quick frames, worker errors to the app."""

from __future__ import annotations

from textual.screen import Screen
from textual.worker import Worker

from memharness_tui.tui.perf.frames import FRAME_RATE, QuickFrames
from memharness_tui.tui.widgets.base import report_worker_error

__all__ = ["FRAME_RATE", "AppScreen"]


class AppScreen(QuickFrames, Screen[None]):
    """A full screen of the app: paints at ``FRAME_RATE`` (``perf.frames``); a failed worker of
    its own is reported by the app (a toast or a modal, never a traceback)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_worker_error(self, event)
