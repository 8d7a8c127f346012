"""The results table's direct row rendering draws exactly what the general Rich path draws."""

from __future__ import annotations

import itertools

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from memharness_tui.tui.widgets.table_rows import row_segments, row_text

CONSOLE = Console()
LINE = Style(color="#e0e0e0", bgcolor="#1e1e1e")
EVEN = Style(bgcolor="#262626")
CURSOR = Style(color="black", bgcolor="yellow", bold=True)


def get_style(name: str | Style) -> Style:
    return CONSOLE.get_style(name, default=Style.null())


def cells_of(strip: Strip) -> list[tuple[str, Style | None]]:
    """One (character, style) per character: equal for equal pictures, however segmented."""
    return [(ch, seg.style) for seg in strip for ch in seg.text]


def finish(segments: list[Segment], width: int, fill: Style) -> Strip:
    return Strip(segments).extend_cell_length(width, fill).crop(0, width).simplify()


ROWS = [
    [Text("7", style="dim"), Text("subject:1"), Text("a short fact"), Text("0.90"),
     Text("current", style="bold #00ff00"), Text("")],
    [Text("123456", style="dim"), Text("a subject far too long for its column"),
     Text("x" * 200), Text("1.00", style=Style(italic=True)), Text("stale", style="bold red"),
     Text("12.3456")],
    [Text("9"), Text("日本語の主題テキスト"), Text("é 🎉 مرحبا wide and narrow 表"),
     Text(""), Text("unchecked", style="dim"), Text("not a style [red]", style="")],
]
LAYOUTS = [
    [(0, 5), (1, 16), (2, 40), (3, 4), (4, 12), (5, 6)],
    [(0, 1), (1, 3), (2, 1), (4, 2)],  # columns narrower than their text, some dropped
    [(2, 24)],
]
RIGHT = [True, False, False, True, False, True]


@pytest.mark.parametrize(("cells", "layout", "line", "over"), [
    (cells, layout, line, over)
    for cells, layout in itertools.product(ROWS, LAYOUTS)
    for line in (LINE, LINE + EVEN)
    for over in (None, CURSOR)
])
def test_direct_row_equals_the_rich_text_row(cells, layout, line, over):
    width = 1 + sum(w for _, w in layout) + 2 * (len(layout) - 1)
    fill = line if over is None else line + over
    text = row_text(cells, layout, RIGHT, line)
    if over is not None:
        text.stylize(over)
    for total in (width, width + 7, max(1, width - 5)):  # exact, wider, cropped
        general = finish(list(text.render(CONSOLE)), total, fill)
        direct = row_segments(cells, layout, RIGHT, line, over, get_style)
        assert direct is not None
        assert cells_of(finish(direct, total, fill)) == cells_of(general)


def test_a_cell_with_spans_takes_the_general_path():
    cells = [Text.assemble(("bold", "bold"), " plain")]
    assert row_segments(cells, [(0, 10)], [False], LINE, None, get_style) is None
