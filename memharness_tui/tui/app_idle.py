"""Full garbage collections while the user pauses (``gc_policy``'s deferred ones).

A mixin of :class:`~memharness_tui.tui.app.MemharnessApp`, kept apart so the app class stays
about one job. Every key and mouse event the app receives stamps the time; a timer looks
every ``gc_policy.IDLE_SECONDS`` and, once that long has passed without input, runs the full
collection Python would have run by now — so its 25–30 ms land between a person's actions
instead of inside the frame they are waiting for.
"""

from __future__ import annotations

import time
from typing import Any

from textual import events

from memharness_tui.tui import gc_policy


class CollectWhenIdle:
    _last_input: float = 0.0
    set_interval: Any

    def _start_idle_collections(self) -> None:
        self.set_interval(gc_policy.IDLE_SECONDS, self._collect_if_idle, name="idle-gc")

    def _collect_if_idle(self) -> None:
        if time.monotonic() - self._last_input >= gc_policy.IDLE_SECONDS:
            gc_policy.collect_if_due()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self._last_input = time.monotonic()
        await super().on_event(event)  # type: ignore[misc]
