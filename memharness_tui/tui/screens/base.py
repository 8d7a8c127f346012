"""What the app's full screens (main, fact detail) share about painting."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.reactive import Reactive

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.widget import Widget

FRAME_RATE = 120
"""Frames a second a screen may paint at most (Textual's default is 60). A keystroke paints
twice — the search box at once, the results a few ms later — and the second frame waited for
the 60 fps slot (up to 16.7 ms) although the results were ready; opening a fact again waited
for it between the screen's return and its first layout. At 120 the wait is at most 8.3 ms.
Frames are still painted only when something changed."""


class QuickFrames:
    """Mixin for ``Screen`` subclasses: frames at ``FRAME_RATE``, and a focus change that
    repaints the widgets whose focus changed (they refresh themselves, and so does anything
    styled by ``:focus-within``), not the whole screen — Textual's ``Screen.focused`` repaints
    all of it, a second full frame after every tab switch's layout."""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    _Screen__update_timer: Timer | None
    set_interval: Any
    _on_timer_update: Any

    @property
    def _update_timer(self) -> Timer:
        """Textual's screen update timer (``Screen._update_timer``), at ``FRAME_RATE``."""
        if self._Screen__update_timer is None:
            self._Screen__update_timer = self.set_interval(
                1 / FRAME_RATE, self._on_timer_update, name="screen_update", pause=True)
        return self._Screen__update_timer
