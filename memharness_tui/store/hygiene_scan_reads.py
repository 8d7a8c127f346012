"""The hygiene scan's reads (``hygiene/scan.py`` runs the rules on what they return): the
beliefs in id order, streamed in chunks; the vectors of a subject's rows; the retracted rows
that have a successor (EDGE-CASES.md E3) and the chain links after them. A part of ``Store``
like ``hygiene_reads.py``. Nothing here writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from . import sql
from .errors import translate_sqlite
from .rows import StorePart, _guarded

_COLS = ("f.id, f.subject, f.fact, f.source_commit, f.freshness, f.source_path, "
         "f.embedding_dim")
_COUNT_SQL = "SELECT COUNT(*) FROM facts"
_EMBEDDINGS_SQL = "SELECT f.id, f.embedding FROM facts f WHERE f.id IN ({})"
# A retracted row that has a successor: E3's two shapes (revise of a retracted row, or a
# retraction in the middle of a chain). Few; no index needed beyond the scan SQLite does.
_RETRACTED_LINKS = """SELECT f.id, f.subject, f.retracted_at, f.superseded_by FROM facts f
WHERE f.retracted_at IS NOT NULL AND f.superseded_by IS NOT NULL"""
_LINK = "SELECT f.id, f.tx_at, f.superseded_by, f.retracted_at FROM facts f WHERE f.id = ?"

ScanRow = tuple[int, str, str, "str | None", "str | None", "str | None", "int | None"]
"""(id, subject, fact, source_commit, freshness, source_path, embedding_dim)."""


def _rows_sql(as_of: bool) -> str:
    belief = sql.AS_OF_FILTER if as_of else sql.CURRENT_FILTER
    return f"SELECT {_COLS} FROM facts f WHERE {belief} ORDER BY f.id"


class HygieneScanReads(StorePart):
    """``Store``'s reads for the hygiene scan."""

    @_guarded(writing=False)
    def hygiene_row_count(self) -> int:
        """Every row of the table (the scan's progress total)."""
        return int(self.conn.execute(_COUNT_SQL).fetchone()[0])

    def hygiene_rows(self, *, as_of: str | None, chunk: int) -> Iterator[list[ScanRow]]:
        """The beliefs at ``as_of`` (None: now, by the clock, without consuming a stamp) in id
        order, ``chunk`` rows at a time: one walk of an index SQLite already has, no sort."""
        params: dict[str, Any] = ({"as_of": as_of} if as_of is not None
                                  else {"now": self.clock.peek()})
        with translate_sqlite(self.path, writing=False):
            cursor = self.conn.execute(_rows_sql(as_of is not None), params)
            while True:
                rows = cursor.fetchmany(chunk)
                if not rows:
                    return
                yield rows

    @_guarded(writing=False)
    def hygiene_embeddings(self, ids: Sequence[int]) -> list[tuple[int, bytes]]:
        """(id, embedding blob) of each of ``ids`` that has one stored (any order)."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        return [(int(i), b) for i, b in self.conn.execute(_EMBEDDINGS_SQL.format(marks),
                                                          list(ids))]

    @_guarded(writing=False)
    def retracted_links(self) -> list[tuple[int, str, str, int]]:
        """(id, subject, retracted_at, superseded_by) of each retracted row with a successor."""
        return [tuple(r) for r in self.conn.execute(_RETRACTED_LINKS).fetchall()]

    @_guarded(writing=False)
    def chain_link(self, fact_id: int) -> tuple[int, str, int | None, str | None] | None:
        """(id, tx_at, superseded_by, retracted_at) of one row; None when there is none."""
        row = self.conn.execute(_LINK, (fact_id,)).fetchone()
        return None if row is None else tuple(row)
