"""Opening a fact: one detail screen for the whole session, built ahead and opened again.

Building the screen (~20 widgets and their styles) was about half of opening a fact, so the
app builds it once, unseen, once the main screen's tabs are built, and keeps it (installed)
while it is closed. Every open gives it the fact, lets its read come back (briefly), and
shows it: the fact is in the screen's first frame. The app holds one :class:`FactDetails` as
``app.details``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memharness_tui.tui.services.git import RowAnalysis, off_loop, open_triager

if TYPE_CHECKING:
    from textual.app import App

    from memharness_tui.tui.screens.detail import FactDetailScreen
    from memharness_tui.tui.services.git import Triage

DETAIL_SCREEN = "fact-detail"
"""The installed name of the one fact detail screen."""
DETAIL_READ_WAIT = 0.1
"""Seconds an opened fact waits for its read before its screen shows without it (one frame
with the fact instead of an empty one and then the fact; the read is ~1 ms when the DB thread
is free)."""


class FactDetails:
    """Opens facts on ``app``'s one kept detail screen."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app

    def open(self, fact_id: int) -> None:
        from memharness_tui.tui.screens.detail import FactDetailScreen

        app = self._app
        if isinstance(app.screen, FactDetailScreen):
            app.screen.load(fact_id)
        elif not app.is_screen_installed(DETAIL_SCREEN):  # built once, kept while closed
            app.install_screen(FactDetailScreen(fact_id), DETAIL_SCREEN)
            app.push_screen(DETAIL_SCREEN)
        elif (detail := app.get_screen(DETAIL_SCREEN, FactDetailScreen)) in app.screen_stack:
            app.push_screen(FactDetailScreen(fact_id))  # the kept one is under another screen
        else:
            detail.reopen(fact_id)
            app.run_worker(self._show(detail), group="open-fact", exclusive=True,
                           exit_on_error=False)

    def build_ahead(self) -> None:
        """Build the fact detail screen now, unseen, so the first fact opened is shown like
        every later one (the main screen calls this once its tabs are built). Pushed and
        popped in one go: no frame comes between, and a popped screen that is installed is
        kept, composed and mounted."""
        from memharness_tui.tui.screens.detail import FactDetailScreen

        app = self._app
        if not app.is_screen_installed(DETAIL_SCREEN):
            app.install_screen(FactDetailScreen(), DETAIL_SCREEN)
            app.push_screen(DETAIL_SCREEN)
            app.pop_screen()

    async def _show(self, detail: FactDetailScreen) -> None:
        await detail.read_back(DETAIL_READ_WAIT)
        if self._app.screen is not detail:
            self._app.push_screen(detail)


FLAGGED = ("stale", "unresolved")
"""The verdicts the Staleness tab lists, and so triages (the detail shows the same triage)."""


def wants_triage(fact: Any) -> bool:
    """Is ``fact`` one the Staleness tab triages (a flagged pin)?"""
    return bool(fact.source_commit) and fact.freshness in FLAGGED


async def triage_of(repos: Sequence[str], fact: Any) -> Triage:
    """``fact``'s triage against ``repos``, in a git thread: the question the Staleness tab
    asks for its rows (``RowAnalysis.triage`` on a fresh triager), so the answer is the same."""
    item = RowAnalysis(fact.id, fact.fact, fact.source_commit, fact.source_path, None,
                       False, True)
    repos = list(repos)
    return await off_loop(lambda stop: item.triage(open_triager(repos)))


async def reason_now(repos: Sequence[str], fact: Any) -> str | None:
    """Why git gives ``fact`` its verdict now (a recorded verdict's own reason is not kept):
    the reason, or what git says instead when it differs; None: git cannot say."""
    from memharness_tui.tui.services.git import judge

    judged = await judge(list(repos), fact.source_commit, fact.source_path)
    if judged is None or not judged.reason:
        return None
    if judged.freshness == fact.freshness:
        return f"{judged.reason} (git now)"
    return f"git now says {judged.freshness}: {judged.reason}"

