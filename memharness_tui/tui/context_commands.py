"""Palette entries and keys for the session-context preview and the review queue (the
screens live in screens/context.py and screens/review.py; widgets open them from here)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.commands import Entry


def open_context(app: MemharnessApp) -> None:
    """The palette's entry and the Recall tab's ``x``."""
    from memharness_tui.tui.screens.context import ContextScreen

    if not isinstance(app.screen, ContextScreen):
        app.push_screen(ContextScreen())


def open_review(app: MemharnessApp) -> None:
    """The palette's entry."""
    from memharness_tui.tui.screens.review import ReviewScreen

    if not isinstance(app.screen, ReviewScreen):
        app.push_screen(ReviewScreen())


def context_entries(app: MemharnessApp) -> list[Entry]:
    return [("Session context: what the hook injects",
             "The SessionStart hook's exact text for this database, its tokens and what "
             "changed since the last look (x)", partial(open_context, app))]


def review_entries(app: MemharnessApp) -> list[Entry]:
    return [("Review: what agents wrote since the last review",
             "Learned, revised and retracted facts after your review mark; accept them "
             "(a / A) or open one to fix it", partial(open_review, app))]
