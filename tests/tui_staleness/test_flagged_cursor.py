"""The flagged table's cursor names the fact on the highlighted row when the list is filtered,
so its row order is not the loaded list's: mark, open, revise and retract (one lookup,
``current_fact``) all act on that fact, never on the loaded list's fact at the same index."""

from __future__ import annotations

from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.revise import ReviseScreen

from .conftest import Env, Stepper, ready, settle
from .helpers import rows


async def test_actions_follow_the_filtered_rows(env: Env) -> None:
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await ready(pilot)
        Stepper(dash).run()
        await settle(pilot)
        panel = dash.panel
        await pilot.press("v", "v")  # unresolved only
        await settle(pilot)
        first, second = env.ids[4], env.ids[5]
        assert [f.id for f in panel.shown] == [first, second]
        assert [f.id for f in panel.flagged][:2] != [first, second]  # the orders differ
        dash.query_one("#flagged-table").focus()
        await pilot.press("down")  # the second row
        assert panel.current_fact().id == second
        await pilot.press("space")  # mark: the highlighted fact
        assert panel.marked == {second}
        await pilot.press("up", "space")
        assert panel.marked == {first, second}
        await pilot.press("space", "up", "space")  # unmark both (Space moves down a row)
        assert panel.marked == set()
        assert panel.current_fact().id == second
        await pilot.press("i")  # open: the highlighted fact
        await settle(pilot)
        assert isinstance(pilot.app.screen, FactDetailScreen)
        assert pilot.app.screen.fact_id == second
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("up", "e")  # revise: the highlighted fact
        await settle(pilot)
        assert isinstance(pilot.app.screen, ReviseScreen)
        assert pilot.app.screen.fact.id == first
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("delete")  # retract: the highlighted fact, after asking
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert pilot.app.screen.title_text == f"Retract fact #{first}?"
        await pilot.press("y")
        await settle(pilot)
    got = rows(env.db)
    assert [fid for fid, r in got.items() if r["retracted_at"] is not None] == [first]
