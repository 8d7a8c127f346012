"""Where a person's last review of agents' writes ended, remembered per database.

Kept in ``review-marks.json`` beside the settings (never in the database): ``{database
path: {"last_id": N, "retracted_at": ISO, "retracted_id": N}}``. Shared by ``memharness-tui
review`` and the app's review queue.
"""

from __future__ import annotations

from pathlib import Path

from memharness_tui import config
from memharness_tui.store.review_reads import ReviewMark

MARKS_FILE = "review-marks.json"


def load_mark(db: str, folder: Path | None = None) -> ReviewMark | None:
    """The mark saved for ``db``; None when it was never reviewed."""
    entry = config.load_database_entry(MARKS_FILE, db, folder)
    last_id, at, rid = entry.get("last_id"), entry.get("retracted_at"), entry.get("retracted_id")
    if not isinstance(last_id, int) or isinstance(last_id, bool):
        return None
    retracted = (at, rid) if isinstance(at, str) and isinstance(rid, int) else ("", 0)
    return ReviewMark(last_id, retracted)


def save_mark(db: str, mark: ReviewMark, folder: Path | None = None) -> None:
    """Remember ``mark`` for ``db`` (OSError when it could not be saved)."""
    config.save_database_entry(MARKS_FILE, db, {
        "last_id": mark.last_id, "retracted_at": mark.retracted[0],
        "retracted_id": mark.retracted[1]}, folder)
