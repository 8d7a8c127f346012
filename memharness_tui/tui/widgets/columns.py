"""Column widths for a table that must fit its width: priorities and minimum widths.

A column that does not fit is dropped whole (least important first) rather than every column
being squeezed; the flexible column (the fact's text) takes what is left, never less than its
minimum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    width: int | None  # None: the flexible column
    priority: int = 0  # 0 = always shown; higher numbers are dropped first
    min_width: int = 20  # the flexible column's least width


def fit(columns: Sequence[Column], total: int, padding: int = 2) -> list[tuple[Column, int]]:
    """The columns that fit in ``total`` cells (each also costs ``padding``), with widths."""
    shown = list(columns)

    def need(cols: Sequence[Column]) -> int:
        return sum((c.width if c.width is not None else c.min_width) + padding for c in cols)

    while need(shown) > total:
        droppable = [c for c in shown if c.priority > 0]
        if not droppable:
            break
        shown.remove(max(droppable, key=lambda c: c.priority))
    rest = total - sum(c.width + padding for c in shown if c.width is not None)
    flex = [c for c in shown if c.width is None]
    share = max((rest // len(flex)) - padding if flex else 0, 0)
    return [(c, c.width if c.width is not None else max(c.min_width, share)) for c in shown]
