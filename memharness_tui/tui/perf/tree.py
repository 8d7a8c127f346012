"""A ``Tree`` that keeps the lines it drew when only its height changes.

Replaces ``Tree``'s own Resize handler (``Tree._on_resize``), which forgets every drawn line
(its private ``_line_cache``) and lays the screen out again on any resize. Its lines are drawn
per width, so only a new width needs that. Filling the fact detail's chain grows its box, and
that Resize cost opening a fact one more layout and frame (bench/README.md: first open
162 → 133 ms at 1M with the detail screen built ahead and this).
"""

from __future__ import annotations

from textual import events
from textual.widgets import Tree


class KeptLinesTree(Tree[int]):
    _drawn_width: int | None = None

    def _on_resize(self, event: events.Resize) -> None:
        if self._drawn_width in (None, event.size.width):  # first or same width: kept
            self._line_cache.grow(event.size.height)
            event.prevent_default()  # Tree's own handler: forget everything, lay out again
        self._drawn_width = event.size.width
