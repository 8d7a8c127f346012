"""The review queue's reads: what agents wrote after a mark (learned, revised, retracted).

A mark is where a person's last review ended: the largest fact id reviewed (rows are never
deleted, so ids are the insert order; a learned or revised row is after the mark when its id
is larger) and the last retraction reviewed, as (retracted_at, id) (a retraction stamps an
old row, so only its time orders it). Rows this app wrote (``source_agent`` starting with
``memharness-tui/``) are never in the queue. Pure reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rows import StorePart, _fact, _guarded
from .sql import COLS
from .types import Fact

APP_PREFIX = "memharness-tui/"
_NOT_OURS = "substr(f.source_agent, 1, 15) <> 'memharness-tui/'"
_WRITTEN = f"""SELECT {COLS},
  (SELECT o.id FROM facts o WHERE o.superseded_by = f.id ORDER BY o.id LIMIT 1) AS old_id
FROM facts f WHERE f.id > :after_id AND {_NOT_OURS}"""
_RETRACTED = f"""SELECT {COLS} FROM facts f
WHERE f.retracted_at IS NOT NULL
  AND (f.retracted_at > :after_ts OR (f.retracted_at = :after_ts AND f.id > :after_rid))
  AND {_NOT_OURS}"""
_COUNT_WRITTEN = f"SELECT COUNT(*) FROM facts f WHERE f.id > :after_id AND {_NOT_OURS}"
_COUNT_RETRACTED = f"""SELECT COUNT(*) FROM facts f
WHERE f.retracted_at IS NOT NULL
  AND (f.retracted_at > :after_ts OR (f.retracted_at = :after_ts AND f.id > :after_rid))
  AND {_NOT_OURS}"""
_LAST_ID = "SELECT COALESCE(MAX(id), 0) FROM facts"
_LAST_RETRACTION = """SELECT retracted_at, id FROM facts WHERE retracted_at IS NOT NULL
ORDER BY retracted_at DESC, id DESC LIMIT 1"""
assert len(APP_PREFIX) == 15


@dataclass(frozen=True)
class ReviewMark:
    """Where a review ended: ids up to ``last_id`` and retractions up to ``retracted``
    (``("", 0)``: none yet) were reviewed. ``ReviewMark()`` is "nothing reviewed"."""

    last_id: int = 0
    retracted: tuple[str, int] = ("", 0)

    def covers(self, item: ReviewItem) -> bool:
        if item.action == "retracted":
            return (item.at, item.fact.id) <= self.retracted
        return item.fact.id <= self.last_id

    def after(self, items: list[ReviewItem]) -> ReviewMark:
        """This mark moved past ``items`` (never back)."""
        last_id, retracted = self.last_id, self.retracted
        for item in items:
            if item.action == "retracted":
                retracted = max(retracted, (item.at, item.fact.id))
            else:
                last_id = max(last_id, item.fact.id)
        return ReviewMark(last_id, retracted)


@dataclass(frozen=True)
class ReviewItem:
    """One write to review: ``action`` learned / revised / retracted, ``at`` its time (tx_at,
    or retracted_at), ``old_id`` the row a revision superseded."""

    action: str
    fact: Fact
    at: str
    old_id: int | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.at, self.fact.id)


class ReviewReads(StorePart):
    """``Store.review_queue``, ``Store.review_count`` and ``Store.review_head``."""

    @_guarded(writing=False)
    def review_queue(self, mark: ReviewMark) -> list[ReviewItem]:
        """Every agent's write after ``mark``, newest first (by time, then id)."""
        conn = self.conn
        items: list[ReviewItem] = []
        for row in conn.execute(_WRITTEN, {"after_id": mark.last_id}):
            f = _fact(row)
            old = row[-1]
            items.append(ReviewItem("learned" if old is None else "revised", f, f.tx_at,
                                    int(old) if old is not None else None))
        params = {"after_ts": mark.retracted[0], "after_rid": mark.retracted[1]}
        for row in conn.execute(_RETRACTED, params):
            f = _fact(row)
            items.append(ReviewItem("retracted", f, f.retracted_at or ""))
        items.sort(key=lambda i: (i.at, i.fact.id, i.action == "retracted"), reverse=True)
        return items

    @_guarded(writing=False)
    def review_count(self, mark: ReviewMark) -> int:
        """How many writes ``review_queue(mark)`` lists (without reading them)."""
        conn = self.conn
        written = conn.execute(_COUNT_WRITTEN, {"after_id": mark.last_id}).fetchone()[0]
        retracted = conn.execute(_COUNT_RETRACTED, {
            "after_ts": mark.retracted[0], "after_rid": mark.retracted[1]}).fetchone()[0]
        return int(written) + int(retracted)

    @_guarded(writing=False)
    def review_head(self) -> ReviewMark:
        """A mark past every row on file now (the newest id, the newest retraction)."""
        conn = self.conn
        last_id = int(conn.execute(_LAST_ID).fetchone()[0])
        row = conn.execute(_LAST_RETRACTION).fetchone()
        return ReviewMark(last_id, (str(row[0]), int(row[1])) if row else ("", 0))
