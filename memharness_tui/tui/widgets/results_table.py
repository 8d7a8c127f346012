"""A light, fast table for recall results (the hot path: every keystroke repaints it).

Textual's DataTable renders each cell through the Rich console and measures every cell on
add; with nine columns that is most of a keystroke's budget. This table builds one ``Text``
per row (cells truncated to computed column widths), turns it into a ``Strip`` and caches it,
so a repaint costs about one cheap render per visible row. Keyboard: ↑ ↓ PgUp PgDn Home End,
Enter selects; mouse: click moves the cursor, clicking the cursor row selects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input

from memharness_tui.tui import tcss
from memharness_tui.tui.perf.scrolling import SteadyScrollbars, update_scrollbars
from memharness_tui.tui.widgets.table_rows import GAP, row_segments, row_text
from memharness_tui.tui.widgets.typing import route_typing

CACHED_ROWS = 2000  # drawn rows kept (a screenful per look, width and cursor position)


@dataclass(frozen=True)
class Col:
    key: str
    label: str
    width: int | None  # None = takes the remaining width (at least ``min_width``)
    justify: str = "left"
    min_width: int = 16
    min_total: int = 0  # shown only when the table is at least this wide
    shrink_to: int | None = None  # a fixed column that gives way (down to this) to the flexible
    want: int = 0  # the flexible column's wish: narrower, it takes from ``shrink_to`` columns


class ResultsTable(SteadyScrollbars, ScrollView, can_focus=True):
    """Rows keyed by string; cells are ``Text`` (never markup)."""

    DEFAULT_CSS = tcss.rules(__file__)

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "select", "Open", show=False),
    ]
    COMPONENT_CLASSES = {"results--header", "results--cursor", "results--even"}

    cursor_row: reactive[int] = reactive(0, always_update=True)

    class RowSelected(Message):
        def __init__(self, table: ResultsTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> ResultsTable:
            return self.table

    class RowHighlighted(Message):
        def __init__(self, table: ResultsTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

    def __init__(self, columns: Sequence[Col], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._columns = list(columns)
        self._keys: list[str] = []
        self._cells: list[list[Text]] = []
        self._index: dict[str, int] = {}
        self._cache: dict[tuple[object, ...], Strip] = {}
        self._style_cache: dict[tuple[object, ...], tuple[Style, Style, Style, Style]] = {}
        self._layouts: dict[int, tuple[list[tuple[int, int]], list[bool]]] = {}

    @property
    def columns(self) -> list[Col]:
        return self._columns

    @columns.setter
    def columns(self, columns: Sequence[Col]) -> None:
        """New columns (the next repaint draws them; rows drawn before are forgotten)."""
        self._columns = list(columns)
        self._layouts.clear()
        self._cache.clear()

    def set_column_width(self, key: str, width: int) -> None:
        """Resize a fixed column (the ID column follows the store's largest id)."""
        if all(c.key != key or c.width == width for c in self.columns):
            return
        self.columns = [replace(c, width=width) if c.key == key else c for c in self.columns]
        self.refresh()

    # ----- data -------------------------------------------------------------------------------
    def set_rows(self, rows: Iterable[tuple[str, list[Text]]], *, cursor: int = 0,
                 keep: str | None = None) -> None:
        """Replace every row at once (one repaint); the cursor stays on ``keep``'s row if any."""
        self._keys, self._cells = [], []
        for key, cells in rows:
            self._keys.append(key)
            self._cells.append(cells)
        self._rows_replaced(cursor, keep)

    def _rows_replaced(self, cursor: int, keep: str | None) -> None:
        """After ``_keys``/``_cells`` changed: re-index, resize, place the cursor, one repaint."""
        self._index = {k: i for i, k in enumerate(self._keys)}
        self._cache.clear()
        self._set_virtual_size()
        if keep is not None and keep in self._index:
            cursor = self._index[keep]
        self.cursor_row = max(0, min(cursor, len(self._keys) - 1))
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self._keys)

    def row_keys(self) -> list[str]:
        return list(self._keys)

    def get_cell(self, key: str, column: str) -> Text:
        col = [c.key for c in self.columns].index(column)
        return self._cells[self._index[key]][col]

    @property
    def cursor_key(self) -> str | None:
        return self._keys[self.cursor_row] if self._keys else None

    def move_cursor(self, *, row: int) -> None:
        self.cursor_row = max(0, min(row, len(self._keys) - 1))

    # ----- cursor -----------------------------------------------------------------------------
    def watch_cursor_row(self, old: int, new: int) -> None:
        self._cache = {k: v for k, v in self._cache.items() if k[0] not in (old, new)}
        self._scroll_to_cursor()
        self.refresh()
        if self._keys:
            self.post_message(self.RowHighlighted(self, self._keys[new]))

    def _scroll_to_cursor(self) -> None:
        body = max(1, self.size.height - 1)
        top = int(self.scroll_y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + body:
            self.scroll_to(y=self.cursor_row - body + 1, animate=False)

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(row=self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(row=self.cursor_row + direction * max(1, self.size.height - 2))

    def action_edge(self, end: int) -> None:
        self.move_cursor(row=(len(self._keys) - 1) if end else 0)

    def action_select(self) -> None:
        if self._keys:
            self.post_message(self.RowSelected(self, self._keys[self.cursor_row]))

    typing_target: Callable[[], Input | None] | None = None
    """Where typing on the table goes (``widgets.typing``); None: typing does nothing."""

    def on_key(self, event: events.Key) -> None:
        if self.typing_target is not None:
            route_typing(self, event, self.typing_target())

    def on_click(self, event: events.Click) -> None:
        row = event.y - 1 + int(self.scroll_y)
        if event.y == 0 or not 0 <= row < len(self._keys):
            return
        if row == self.cursor_row:
            self.action_select()
        else:
            self.move_cursor(row=row)

    def on_resize(self) -> None:
        """Nothing to forget: a drawn row's key holds the width it was drawn at. (Each time
        the Recall tab is shown again a Resize comes, at the size the table had.)"""
        self._set_virtual_size()

    def _set_virtual_size(self) -> None:
        """One line per row plus the header, without a screen layout unless a scrollbar
        appears or goes: ``virtual_size`` is a layout reactive, and a layout of the whole
        screen on every new result set cost more than painting the table.

        No width: rows are drawn to the width left beside the vertical scrollbar, so there
        is never anything to scroll sideways (a width that counted the scrollbar's columns
        showed an empty horizontal scrollbar under every list long enough to scroll)."""
        size = Size(0, len(self._keys) + 1)
        if size == self.virtual_size:
            return
        self.set_reactive(ResultsTable.virtual_size, size)
        update_scrollbars(self, size)  # scrollbar ranges; toggling one still lays out
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()  # rows are cached per look (focus included): nothing to forget

    def on_blur(self) -> None:
        self.refresh()

    # ----- rendering --------------------------------------------------------------------------
    def _layout(self, total: int) -> list[tuple[int, int]]:
        """(column index, width) for the columns that fit; the flexible one takes the rest."""
        shown = [i for i, c in enumerate(self.columns) if total >= c.min_total]
        widths = {i: self.columns[i].width for i in shown}
        fixed = sum(w or 0 for w in widths.values()) + GAP * (len(shown) - 1) + 2
        flex = [i for i in shown if widths[i] is None]
        want = max((self.columns[i].want for i in flex), default=0)
        deficit = want - (total - fixed)
        for i in shown:  # the flexible column (Fact) has priority over shrinkable ones
            col = self.columns[i]
            if deficit <= 0 or col.width is None or col.shrink_to is None:
                continue
            give = min(deficit, col.width - col.shrink_to)
            if give > 0:
                widths[i] = col.width - give
                fixed -= give
                deficit -= give
        return [(i, w if w is not None else max(self.columns[i].min_width, total - fixed))
                for i, w in widths.items()]

    def _styles(self) -> tuple[Style, Style, Style, Style]:
        """(base, header, even, cursor) styles; resolving them walks the DOM, so once per look."""
        key = (self.app.theme, self.has_focus)
        styles = self._style_cache.get(key)
        if styles is None:
            styles = (
                self.rich_style,
                self.get_component_rich_style("results--header"),
                self.get_component_rich_style("results--even"),
                self.get_component_rich_style("results--cursor"),
            )
            self._style_cache[key] = styles
        return styles

    def notify_style_update(self) -> None:
        """Styles are re-applied on every focus change in or around the table (each tab
        switch): resolve them again, but keep the drawn rows, which are cached per look."""
        super().notify_style_update()
        self._style_cache.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width  # excludes the scrollbar
        row = -1 if y == 0 else y - 1 + int(self.scroll_y)  # -1: the header
        if row >= len(self._keys):
            return Strip.blank(width, self._styles()[0])
        is_cursor = row == self.cursor_row
        key = (row, width, is_cursor, self._styles())
        cached = self._cache.get(key)
        if cached is None:
            if len(self._cache) > CACHED_ROWS:  # looks come and go: keep it bounded
                self._cache.clear()
            cached = self._cache[key] = self._render_row(row, width, is_cursor)
        return cached

    def _render_row(self, row: int, width: int, is_cursor: bool) -> Strip:
        base, header, even, cursor_style = self._styles()
        widths, right = self._laid_out(width)
        if row < 0:
            header_style = base + header
            labels = [Text(c.label) for c in self.columns]
            return self._strip(row_text(labels, widths, right, header_style), width, header_style)
        style = base + even if row % 2 == 1 else base
        over = cursor_style if is_cursor else None
        fill = style if over is None else style + over
        cells = self._cells[row]
        segments = row_segments(cells, widths, right, style, over, self._console_style)
        if segments is not None and segments[0].style is None:  # a row without any style
            segments = [Segment(segments[0].text, fill)]  # (see _strip: always a style)
        if segments is None:  # a cell with spans: Rich's general way
            line = row_text(cells, widths, right, style)
            if over is not None:
                line.stylize(over)
            return self._strip(line, width, fill)
        used = 1 + sum(w for _, w in widths) + GAP * (len(widths) - 1)
        if used < width:
            segments.append(Segment(" " * (width - used), fill))
        elif used > width:
            return Strip(segments).crop(0, width).simplify()
        return Strip(list(Segment.simplify(segments)), width)

    def _laid_out(self, width: int) -> tuple[list[tuple[int, int]], list[bool]]:
        """The columns shown at ``width`` and which are right-justified (kept per width)."""
        laid = self._layouts.get(width)
        if laid is None:
            right = [c.justify == "right" for c in self.columns]
            laid = self._layouts[width] = (self._layout(width), right)
        return laid

    def _console_style(self, name: str | Style) -> Style:
        return self.app.console.get_style(name, default=Style.null())

    def _strip(self, line: Text, width: int, fill: Style) -> Strip:
        """``line`` drawn, every segment with a style: ``Text.render`` leaves the line's own
        style off a text without spans (a header's labels), which drew it in the terminal's
        colours and broke Textual's ``NO_COLOR`` filter (it reads each segment's style)."""
        segments = list(line.render(self.app.console))
        if not line.spans:
            segments = [Segment(s.text, fill) for s in segments]
        return Strip(segments).extend_cell_length(width, fill).crop(0, width).simplify() \
            if segments else Strip([Segment(" " * width, fill)], width)
