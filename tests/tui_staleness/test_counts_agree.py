"""During a pass the header's counts and the flagged list describe the same store: the list
follows the batches already written (as the header does), not the store before the pass."""

from __future__ import annotations

from memharness_tui.store import Store
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
