"""A ``DataTable`` that keeps its rendered rows across a change of look (focus, tab shown).

Textual's ``DataTable`` clears every render cache whenever its styles are re-applied, and
they are re-applied whenever focus enters or leaves it or anything around it (``:focus``,
``:focus-within``) — so every switch to a tab re-rendered every visible cell of its tables
through the Rich console (~0.5 ms a cell), even when nothing had changed since the last visit.

This table keeps the caches per *look*: the widget's own style plus every component style it
draws with. A style update only marks the look as possibly changed; the next render compares
it and, when it differs, swaps in the caches kept for that look (or fresh ones). The caches'
keys already hold the data version, cursor and focus state, so rows kept for a look are
reused only when they would render the same. A Resize to the size the table already had
(each time its tab is shown again) no longer forgets the rows either. Whatever clears the caches for another reason
(new rows, a changed column, cursor type...) still clears them, the kept looks included;
so do new column widths once new rows are measured (see ``_update_dimensions``).

Textual internals it uses: ``DataTable``'s ``_row_render_cache``, ``_cell_render_cache``,
``_line_cache``, ``_styles_cache``, ``_clear_caches``, ``_update_dimensions``,
``_get_styles_to_render_cell`` and its ``_on_resize``. Worth (bench/README.md, "Tab
switches"): the Subjects switch's two tables' ``render_lines`` 0.28 s → 0.05 s (100k, profiler
on); Subjects switch median 360 → 281 ms at 100k, 324 → 171 ms at 1M.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable

from memharness_tui.tui.perf.scrolling import SteadyScrollbars

LOOKS_KEPT = 4  # focused / not focused, and a spare for a theme switched back and forth

_Caches = tuple[Any, Any, Any]
_Look = tuple[Style, ...]


class LookCachedTable(SteadyScrollbars, DataTable[Any]):
    """``DataTable`` whose render caches survive a style update that leaves its look as it was."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._kept_looks: dict[_Look, _Caches] = {}  # before DataTable's init clears caches
        self._look: _Look | None = None
        self._look_stale = True
        self._resized_to: Size | None = None
        self._drawing_style: Style | None = None
        super().__init__(*args, **kwargs)

    @property
    def rich_style(self) -> Style:
        # ``DataTable.render_line`` asks for it once per line, and each ask walks every
        # ancestor's styles (half of a redraw from kept rows). It cannot change during one
        # ``render_lines``, so that call asks once.
        drawing = self._drawing_style
        return drawing if drawing is not None else super().rich_style

    def _on_resize(self, event: events.Resize) -> None:
        # DataTable forgets every rendered row on a Resize; one comes each time the table is
        # shown again (its tab), at the size it had. Only a new size needs new rows.
        if event.size == self._resized_to:
            event.prevent_default()
        self._resized_to = event.size

    def notify_style_update(self) -> None:
        # DataTable's own override clears every cache; skip it, keep the widget's part.
        Widget.notify_style_update(self)
        self._styles_cache.clear()
        self._look_stale = True
        self.refresh()

    def _clear_caches(self) -> None:
        super()._clear_caches()
        self._kept_looks.clear()

    def _update_dimensions(self, new_rows: Any) -> None:
        # New rows are measured on the table's Idle. A frame drawn before it (under load the
        # screen's refresh can come first) cached those rows at the old column widths, under
        # keys that do not hold the widths, and no Resize follows a change of virtual size
        # alone: the stale rows stayed on screen. New widths: nothing drawn before is valid.
        before = [c.get_render_width(self) for c in self.columns.values()]
        super()._update_dimensions(new_rows)
        if [c.get_render_width(self) for c in self.columns.values()] != before:
            self._clear_caches()

    def _current_look(self) -> _Look:
        """Every style the table draws with (as ``DataTable`` reads them)."""
        names = sorted(self.COMPONENT_CLASSES)
        return (self.rich_style, *(self.get_component_rich_style(name) for name in names),
                *(self.get_component_styles(name).rich_style for name in names))

    def _caches(self) -> _Caches:
        return (self._row_render_cache, self._cell_render_cache, self._line_cache)

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._look_stale:
            self._look_stale = False
            look = self._current_look()
            if look != self._look:
                if self._look is not None:
                    self._kept_looks[self._look] = self._caches()
                    while len(self._kept_looks) > LOOKS_KEPT:
                        del self._kept_looks[next(iter(self._kept_looks))]
                kept = self._kept_looks.pop(look, None)
                self._row_render_cache, self._cell_render_cache, self._line_cache = (
                    kept if kept is not None
                    else (LRUCache(1000), LRUCache(10000), LRUCache(1000)))
                self._get_styles_to_render_cell.cache_clear()
                self._look = look
        self._drawing_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._drawing_style = None
