"""Screens that paint at ``FRAME_RATE`` and repaint only what a focus change touched.

Replaces Textual's 60 fps screen update timer (``Screen._update_timer``, stored under the
name-mangled ``_Screen__update_timer``) and ``Screen.focused``'s repaint of the whole screen.
Worth (bench/README.md): a keystroke's second frame waited up to 16.7 ms for the 60 fps slot,
at 120 fps at most 8.3 ms; a tab switch paints one frame instead of two (1M facts: tab switch
p95 113 → 65 ms together with the other paint work of that round).

Also skips the re-style of the whole screen on its first ``ScreenResume`` (``Screen.
_on_screen_resume``): a screen is first resumed right after it is composed, its widgets
styled as they were registered, and nothing a style depends on has changed since (its focus
is restyled by the focus change itself). Later resumes re-style as Textual does (the theme or
the app's focus may have changed while it was covered). Worth ~5 ms of the main screen's first
frame at start and of the fact detail's build ahead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
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
    """For ``Screen`` subclasses (before ``Screen`` in the bases): frames at ``FRAME_RATE``,
    and a focus change that repaints the widgets whose focus changed (they refresh
    themselves, and so does anything styled by ``:focus-within``), not the whole screen —
    Textual's ``Screen.focused`` repaints all of it, a second full frame after every tab
    switch's layout."""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    _Screen__update_timer: Timer | None
    set_interval: Any
    _on_timer_update: Any
    _resumed_before = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Textual's resume, without re-styling a screen that was just composed."""
        if not self._resumed_before:
            self._resumed_before = True
            event.refresh_styles = False
        super()._on_screen_resume(event)  # type: ignore[misc]

    @property
    def _update_timer(self) -> Timer:
        """Textual's screen update timer (``Screen._update_timer``), at ``FRAME_RATE``."""
        if self._Screen__update_timer is None:
            self._Screen__update_timer = self.set_interval(
                1 / FRAME_RATE, self._on_timer_update, name="screen_update", pause=True)
        return self._Screen__update_timer
