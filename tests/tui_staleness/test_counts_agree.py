"""During a pass the header's counts and the flagged list describe the same store: the list
follows the batches already written (as the header does), not the store before the pass."""

from __future__ import annotations

import asyncio

import pytest

from memharness_tui.store import Store
from memharness_tui.tui.services.store import FlaggedPage, StoreService
from memharness_tui.tui.widgets.dashboard import StalenessDashboard
from memharness_tui.tui.widgets.header import StatusStrip

from .conftest import Env, Stepper, ready, settle


async def test_the_list_follows_the_header_mid_pass(env: Env) -> None:
    ids = env.ids
    env.store.set_staleness(ids[0], "stale", "2026-10-01T08:00:00.000Z", env.shop.c2)
    env.store.set_staleness(ids[4], "unresolved", "2026-10-01T08:00:00.000Z", env.shop.c2)
    async with env.app(batch_size=2).run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        assert [f.id for f in dash.panel.flagged] == [ids[0], ids[4]]
        stepper = Stepper(dash)
        for _ in range(3):  # the start event and two batches of two: 4 of 7 checked
            stepper.step()
        assert dash.running
        await pilot.press("r")  # what the data_version poll does when the batches commit
        await settle(pilot)
        reader = Store.open(str(env.db), readonly=True)
        try:
            counts = reader.counts()
            flagged = [f.id for f in reader.flagged()]
        finally:
            reader.close()
        assert (counts.stale, counts.unresolved) == (3, 1)
        strip = pilot.app.screen.query_one(StatusStrip).render()
        assert "3 stale" in getattr(strip, "plain", str(strip))
        assert [f.id for f in dash.panel.flagged] == flagged == [ids[0], ids[2], ids[3], ids[4]]
        assert [f.freshness for f in dash.panel.flagged] == ["stale", "stale", "stale",
                                                             "unresolved"]
        assert all(dash.panel.rows[fid].judged is not None for fid in flagged)


async def test_a_pass_started_before_the_lists_first_load_still_moves_the_list(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writing pass started while the list's first load is out is not followed (nothing was
    there to follow): the list then follows the store's batches as the header does, through
    a reload, not through the pass's verdicts."""
    ids = env.ids
    env.store.set_staleness(ids[0], "stale", "2026-10-01T08:00:00.000Z", env.shop.c2)
    env.store.set_staleness(ids[4], "unresolved", "2026-10-01T08:00:00.000Z", env.shop.c2)
    release = asyncio.Event()
    reads: list[list[int]] = []
    real = StoreService.flagged

    async def held(self: StoreService, verdict: str | None = None,
                   limit: int | None = None) -> FlaggedPage:
        page = await real(self, verdict, limit)  # read now, shown only once released
        reads.append([f.id for f in page.facts])
        await release.wait()
        return page

    monkeypatch.setattr(StoreService, "flagged", held)
    async with env.app(batch_size=2).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        while app.main_screen() is None:
            await pilot.pause(0.01)
        await pilot.press("4")
        while not reads:  # the first load has read the store before the pass
            await pilot.pause(0.01)
        dash = app.screen.query_one("#staleness-pane", StalenessDashboard)
        stepper = Stepper(dash)
        for _ in range(3):  # the start event and two batches of two: 4 of 7 checked
            stepper.step()
        assert dash.running
        release.set()  # the first load shows the store as it was before the batches
        await settle(pilot)
        await pilot.press("r")  # what the data_version poll does when the batches commit
        await settle(pilot)
        reader = Store.open(str(env.db), readonly=True)
        try:
            flagged = [f.id for f in reader.flagged()]
        finally:
            reader.close()
        assert reads[0] == [ids[0], ids[4]]
        assert [f.id for f in dash.panel.flagged] == flagged == [ids[0], ids[2], ids[3], ids[4]]
