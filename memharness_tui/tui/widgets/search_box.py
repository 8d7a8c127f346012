"""A text box whose typing repaints only itself (no screen layout per keystroke)."""

from __future__ import annotations

from textual.geometry import Size
from textual.widgets import Input

from memharness_tui.tui.perf.scrolling import update_scrollbars, virtual_size_without_layout


class SearchBox(Input):
    """An ``Input`` sized by CSS whose keystrokes do not lay the screen out.

    ``Input`` stores its text's width as its virtual size on every change, and Textual's
    ``virtual_size`` asks for a layout of the whole screen when it changes (~12 ms at
    160×48, once per keystroke). The box's own size is fixed by CSS (``Input`` asks for a
    layout itself when a dimension is ``auto``); the virtual size only bounds horizontal
    scrolling, which reads it directly, so a repaint and a scrollbar check are enough.
    A scrollbar that appears or goes still lays the screen out, as before.
    """

    virtual_size = virtual_size_without_layout()

    def watch_virtual_size(self, size: Size) -> None:
        update_scrollbars(self, size)
