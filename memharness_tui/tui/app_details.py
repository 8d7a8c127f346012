"""Opening a fact: one detail screen for the whole session, built ahead and opened again.

A mixin of :class:`~memharness_tui.tui.app.MemharnessApp`, kept apart so the app class stays
about one job. Building the screen (~20 widgets and their styles) was about half of opening
a fact, so the app builds it once, unseen, once the main screen's tabs are built, and keeps
it (installed) while it is closed. Every open gives it the fact, lets its read come back
(briefly), and shows it: the fact is in the screen's first frame.
"""

from __future__ import annotations

from typing import Any

DETAIL_SCREEN = "fact-detail"
"""The installed name of the one fact detail screen."""
DETAIL_READ_WAIT = 0.1
"""Seconds an opened fact waits for its read before its screen shows without it (one frame
with the fact instead of an empty one and then the fact; the read is ~1 ms when the DB thread
is free)."""


class FactDetails:
    screen: Any
    screen_stack: Any
    install_screen: Any
    is_screen_installed: Any
    get_screen: Any
    push_screen: Any
    pop_screen: Any
    run_worker: Any

    def open_fact(self, fact_id: int) -> None:
        from memharness_tui.tui.screens.detail import FactDetailScreen

        if isinstance(self.screen, FactDetailScreen):
            self.screen.load(fact_id)
        elif not self.is_screen_installed(DETAIL_SCREEN):  # built once, kept while closed
            self.install_screen(FactDetailScreen(fact_id), DETAIL_SCREEN)
            self.push_screen(DETAIL_SCREEN)
        elif (detail := self.get_screen(DETAIL_SCREEN, FactDetailScreen)) in self.screen_stack:
            self.push_screen(FactDetailScreen(fact_id))  # the kept one is under another screen
        else:
            detail.reopen(fact_id)
            self.run_worker(self._show_detail(detail), group="open-fact", exclusive=True,
                            exit_on_error=False)

    def build_detail_screen(self) -> None:
        """Build the fact detail screen now, unseen, so the first fact opened is shown like
        every later one (the main screen calls this once its tabs are built). Pushed and
        popped in one go: no frame comes between, and a popped screen that is installed is
        kept, composed and mounted."""
        from memharness_tui.tui.screens.detail import FactDetailScreen

        if not self.is_screen_installed(DETAIL_SCREEN):
            self.install_screen(FactDetailScreen(), DETAIL_SCREEN)
            self.push_screen(DETAIL_SCREEN)
            self.pop_screen()

    async def _show_detail(self, detail: Any) -> None:
        await detail.read_back(DETAIL_READ_WAIT)
        if self.screen is not detail:
            self.push_screen(detail)
