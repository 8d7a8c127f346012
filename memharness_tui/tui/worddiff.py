"""Which words of a fact differ from another version of it, and a one-line view that shows them.

Two versions of a fact often differ in one word ("30 minutes" → "60 minutes"); a label cut at
its end would make them look identical, so the line is windowed around the first difference.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from rich.text import Text

from memharness_tui.tui.render import clean

_WORD = re.compile(r"\S+|\s+")


def changed_spans(text: str, other: str) -> list[tuple[int, int]]:
    """Character spans of ``text``'s words that ``other`` does not have at that place."""
    mine, theirs = _WORD.findall(text), _WORD.findall(other)
    starts = [0]
    for token in mine:
        starts.append(starts[-1] + len(token))
    spans: list[tuple[int, int]] = []
    matcher = SequenceMatcher(a=mine, b=theirs, autojunk=False)
    for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
        if tag in ("replace", "delete") and i2 > i1:
            start, end = starts[i1], starts[i2]
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if end > start:
                spans.append((start, end))
    return spans


def diff_line(text: str, other: str | None, width: int, *, style: str = "",
              changed: str = "bold underline") -> Text:
    """``text`` on one line in ``width`` cells, words not in ``other`` styled ``changed``;
    when it must be cut, the cut keeps the first difference in view (``…`` marks each cut)."""
    flat = clean(text, single_line=True)
    spans = changed_spans(flat, clean(other, single_line=True)) if other is not None else []
    line = Text(flat, style=style, no_wrap=True, overflow="ellipsis")
    for start, end in spans:
        line.stylize(changed, start, end)
    width = max(width, 4)
    if line.cell_len <= width or not spans:
        line.truncate(width, overflow="ellipsis")
        return line
    first = spans[0][0]
    if first + (spans[0][1] - first) < width - 1:  # the first change fits without a left cut
        line.truncate(width, overflow="ellipsis")
        return line
    start = max(0, min(first - width // 3, len(flat) - (width - 1)))
    while 0 < start < first and not flat[start - 1].isspace():  # begin at a word
        start += 1
    view = Text("…", style=style, no_wrap=True)
    view.append_text(line[start:])
    view.truncate(width, overflow="ellipsis")
    return view
