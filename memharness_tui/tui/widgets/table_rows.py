"""One table row as segments, without building a Rich ``Text`` for it (the hot path).

The general way — copy each cell, truncate it, append it to a line ``Text``, render that
through the console — costs about half a millisecond a row, and a new result set repaints
every visible row. Cells without spans (every cell the recall pane makes) can go straight to
segments with the same text and the same combined styles: the line's style, then the cell's,
then the cursor's on top, exactly what ``Text.render`` composes. A cell with spans returns
``None`` so the caller takes the general way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

GAP = 2  # spaces between columns


def row_segments(cells: Sequence[Text], layout: Sequence[tuple[int, int]],
                 right: Sequence[bool], line: Style, over: Style | None,
                 get_style: Callable[[str | Style], Style]) -> list[Segment] | None:
    """`` `` + each laid-out cell (truncated with ``…``, padded to its width, right-justified
    where ``right[i]``) joined by ``GAP`` spaces; ``over`` is drawn over the whole row.

    Like ``Text.render``, a row where neither a shown cell nor ``over`` has a style is drawn
    unstyled (the line's own style is then left to the widget's background).
    """
    over = over or None  # a null style adds no span
    plain_row = over is None and not any(cells[i].style for i, _ in layout)
    fill = line if over is None else line + over
    gap = " " * GAP
    segments = [Segment(" ", fill)]
    for n, (i, width) in enumerate(layout):
        cell = cells[i]
        if cell.spans:
            return None
        if n:
            segments.append(Segment(gap, fill))
        plain = cell.plain
        if cell_len(plain) > width:
            plain = set_cell_size(plain, width - 1) + "…"
        length = cell_len(plain)
        pad = " " * (width - length)
        style = _combined(line, cell.style, over, get_style)
        text = [Segment(plain, style)] if plain else []
        padding = [Segment(pad, fill)] if pad else []
        segments.extend(padding + text if right[i] else text + padding)
    if plain_row:
        return [Segment("".join(segment.text for segment in segments))]
    return segments


@lru_cache(maxsize=1024)
def _combined(line: Style, cell: str | Style, over: Style | None,
              get_style: Callable[[str | Style], Style]) -> Style:
    """The line's style, then the cell's, then ``over``: ``Text.render``'s order."""
    style = line + get_style(cell) if cell else line
    return style if over is None else style + over


def row_text(cells: Sequence[Text], layout: Sequence[tuple[int, int]],
             right: Sequence[bool], line: Style) -> Text:
    """The same row as one ``Text`` (the general way: any cell, spans included)."""
    text = Text(" ", style=line, no_wrap=True, end="")
    for n, (i, width) in enumerate(layout):
        if n:
            text.append(" " * GAP)
        piece = cells[i].copy()
        piece.truncate(width, overflow="ellipsis")
        pad = " " * (width - piece.cell_len)
        if right[i]:
            text.append(pad)
            text.append_text(piece)
        else:
            text.append_text(piece)
            text.append(pad)
    return text
