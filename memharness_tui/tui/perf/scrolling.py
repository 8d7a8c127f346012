"""Scrollbars that follow a widget's content without laying the screen out.

Two of Textual's scroll habits cost this app whole layouts and frames:

- ``virtual_size`` is a layout reactive: every change lays the whole screen out (~12 ms at
  160×48, once per keystroke in the search box, once per write in the verdict log — the
  dominant UI cost of a streaming pass). For a widget whose own box is fixed by CSS,
  :func:`virtual_size_without_layout` declares it without the layout, and
  :func:`update_scrollbars` (its watcher) calls Textual's private ``_scroll_update``.
- ``ScrollView._size_updated`` redraws a table's scrollbars after every layout that included
  it (each time its tab is shown again), one frame after the layout's own frame had drawn
  them. :class:`SteadyScrollbars` answers "nothing moved" when none of the sizes did: one
  frame per tab switch instead of two (bench/README.md, 1M tab switch p95 113 → 65 ms with
  the rest of that round's paint work).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget

if TYPE_CHECKING:  # a type only: RichLog's module imports rich.pretty and attrs (~10 ms),
    from textual.widgets import RichLog  # which the Recall tab's first frame never needs


def virtual_size_without_layout() -> Reactive[Size]:
    """A ``virtual_size`` reactive that does not lay the screen out (pair it with a
    ``watch_virtual_size`` that calls :func:`update_scrollbars`)."""
    return Reactive(Size(0, 0), layout=False)


def update_scrollbars(widget: Widget, size: Size) -> None:
    """What the layout would have done for a new virtual size: update the scrollbars. A
    scrollbar that appears or goes still lays the screen out (``show_*_scrollbar``)."""
    if widget.is_mounted and widget.container_size:
        widget._scroll_update(size)


class SteadyScrollbars:
    """For a ``ScrollView`` (a table), before the Textual class in the bases: a layout that
    gives it the size it had redraws nothing.

    Textual's ``ScrollView._size_updated`` compares the virtual size the layout passes in (the
    box it arranged) with the widget's own (its rows), which always differ for a table, so
    every layout that included the table redrew its scrollbars. The scrollbars only follow
    the size, the container's size and the table's own virtual size; when none of them moved
    since they were last set, there is nothing to update."""

    _steady_for: tuple[Size, Size, Size] | None = None

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        widget = cast("Any", self)
        same = (size, container_size, widget.virtual_size)
        if self._steady_for == same and widget._size == size \
                and widget.container_size == container_size:
            return False  # what Textual would answer: no Resize (neither size moved)
        changed = cast("Any", super())._size_updated(size, virtual_size, container_size, layout)
        self._steady_for = (widget._size, widget.container_size, widget.virtual_size)
        return changed


def log_size_known(log: RichLog) -> bool:
    """Whether ``log`` knows its size yet (``RichLog._size_known``): before that, its writes
    are deferred and scroll themselves. The verdict log scrolls once per drain instead of once
    per line when it does, painting its end in the same frame as its new lines."""
    return bool(log._size_known)
