"""A first screen of a scanning recall: the newest rows ranked now, the agent's ranking after.

The scanning recalls (the empty query and the substring (LIKE) fallback a half-typed word
falls to) read every row: ~0.1 s at 100k rows, around a second at 1M on a busy machine.
``recall_first_screen`` ranks the same query over the newest ``rows`` ids only (a rowid
range, so nothing below it is read) and says whether that is the agent's exact answer:

- ``exact`` is True when the query never scanned (the full-text match answered it, as
  ``recall`` would) or the range held every row;
- otherwise the list is the exact ranking *of the newest rows*, flagged ``exact=False``:
  the caller shows it as provisional and replaces it with ``recall``'s answer.

It never reinforces: a provisional list is not an answer an agent was given.
"""

from __future__ import annotations

from dataclasses import replace

from . import sql
from .handle import StoreFile
from .recall import RecallReads
from .rows import StorePart, _guarded
from .types import RecallResult
from .validation import check_positive_int, check_query

#: How many of the newest rows a first screen ranks: 2 % of a 1M-row scan, a fifth at 100k.
FIRST_SCREEN_ROWS = 20_000
MIN_ID = "SELECT MIN(id) FROM facts"


class FirstScreenReads(StorePart):
    """``Store.recall_first_screen``: a quick, flagged first answer for the scanning recalls."""

    def __init__(self, file: StoreFile, recall: RecallReads) -> None:
        super().__init__(file)
        self._recall = recall

    @_guarded(writing=False)
    def recall_first_screen(
        self,
        query: str = "",
        *,
        subject: str = "",
        kind: str | None = None,
        as_of: str | None = None,
        limit: int = 8,
        max_tokens: int | None = None,
        freshness: str | None = None,
        rows: int = FIRST_SCREEN_ROWS,
    ) -> RecallResult:
        """``recall`` (never reinforcing) with its table scan limited to the newest ``rows``
        ids; ``exact`` says whether the answer is ``recall``'s own."""
        rows = check_positive_int(rows, "rows")
        scans = not check_query(query)  # the empty query scans; otherwise only the fallback
        conn = self.conn
        top = conn.execute(sql.MAX_ID).fetchone()[0]
        lowest = conn.execute(MIN_ID).fetchone()[0]
        above = int(top) - rows
        whole = lowest is None or int(lowest) > above
        self._recall.scan_above = None if whole else above
        try:
            result: RecallResult = self._recall.recall(
                query, subject=subject, kind=kind, as_of=as_of, limit=limit,
                max_tokens=max_tokens, freshness=freshness)
        finally:
            self._recall.scan_above = None
        partial = not whole and (scans or result.used_fallback)
        return replace(result, exact=not partial) if partial else result
