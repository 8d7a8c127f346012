"""Full garbage collections while the user pauses (``gc_policy``'s deferred ones).

The app tells :class:`IdleCollector` about every event it receives (``saw``); key and mouse
events stamp the time. A timer looks every ``gc_policy.IDLE_SECONDS`` and, once that long
has passed without input, runs the full collection Python would have run by now — so its
25–30 ms land between a person's actions instead of inside the frame they are waiting for.
The app holds one as ``app.idle_gc``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events

from memharness_tui.tui import gc_policy

if TYPE_CHECKING:
    from textual.app import App


class IdleCollector:
    def __init__(self, hold: Callable[[], bool] = lambda: False) -> None:
        self.last_input = 0.0
        """When the last key or mouse event came (``time.monotonic``)."""
        self.hold = hold
        """True while a collection should wait though no one types: a pass of ours writes
        (on two cores a full collection there, ~25 ms a time, is taken from the pass)."""

    def start(self, app: App[Any]) -> None:
        app.set_interval(gc_policy.IDLE_SECONDS, self.collect_if_idle, name="idle-gc")

    def saw(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self.last_input = time.monotonic()

    def collect_if_idle(self) -> None:
        if time.monotonic() - self.last_input >= gc_policy.IDLE_SECONDS and not self.hold():
            gc_policy.collect_if_due()
