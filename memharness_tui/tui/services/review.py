"""The review queue in the app: agents' writes after this database's review mark.

The mark lives in the app's settings (review_marks.py, shared with ``memharness-tui
review``), never in the file. Reads run on the DB thread (the queue) and the scan thread
(the header's count: the retraction half reads the whole table).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from memharness_tui.review_marks import load_mark, save_mark
from memharness_tui.store.review_reads import ReviewItem, ReviewMark

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp

__all__ = ["ReviewItem", "ReviewMark", "accept", "current_mark", "queue", "to_review"]


class _ReviewReader(Protocol):
    def review_queue(self, mark: ReviewMark) -> list[ReviewItem]: ...

    def review_count(self, mark: ReviewMark) -> int: ...


def current_mark(app: MemharnessApp) -> ReviewMark | None:
    """This database's mark; None when it was never reviewed."""
    return load_mark(app.info.path, app.config_dir) if app.info is not None else None


async def queue(app: MemharnessApp) -> list[ReviewItem]:
    """Every agent's write after the mark (all of them before the first review), newest first."""
    mark = current_mark(app) or ReviewMark()
    return await app.gateway.call(lambda s: cast(_ReviewReader, s).review_queue(mark))


async def to_review(app: MemharnessApp) -> int:
    """How many writes wait since the last review; 0 before the first one (the header then
    says nothing: everything on file would be "new")."""
    mark = current_mark(app)
    if mark is None:
        return 0
    return await app.gateway.call_scan(lambda s: cast(_ReviewReader, s).review_count(mark))


def accept(app: MemharnessApp, items: list[ReviewItem]) -> ReviewMark:
    """Move the mark past ``items`` (the rows shown: never past a row not yet seen) and save
    it. OSError when it could not be saved (the mark is then where it was)."""
    info = app.info
    if info is None:
        raise OSError("the database is not open yet")
    mark = (current_mark(app) or ReviewMark()).after(items)
    save_mark(info.path, mark, app.config_dir)
    return mark
