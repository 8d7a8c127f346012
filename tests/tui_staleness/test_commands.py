"""Palette entries, the helpers other panes bind to, and the reason seam on the detail screen."""

from __future__ import annotations

from memharness_tui.tui.editing import fact_id_at_cursor, retract_highlighted
from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.revise import ReviseScreen
from memharness_tui.tui.staleness_commands import StalenessCommands, _start_fact_action
from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable

from .conftest import Env, Stepper, ready, settle, shown_summary
from .helpers import rows


async def test_palette_entries_drive_the_dashboard_and_open_facts(env: Env) -> None:
    app = env.app(batch_size=50)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        provider = StalenessCommands(app.screen)
        titles = {title: cb for title, _, cb in provider.entries()}
        titles["Staleness: toggle check-only"]()  # presses the binding, after a refresh
        await settle(pilot)
        assert dash.check_only
        titles["Staleness: start a pass"]()
        await settle(pilot)
        for _ in range(300):
            await pilot.pause(0.01)
            if dash.state is not None and dash.state.done:
                break
        await settle(pilot)
        assert shown_summary(dash).startswith("checked 7 / ")
        hits = [h async for h in provider.search("revise 3")]
        assert any("Revise fact #3" in str(h.text) for h in hits)
        _start_fact_action(app, "revise", env.ids[2])
        await settle(pilot)
        assert isinstance(app.screen, ReviseScreen) and app.screen.fact.id == env.ids[2]


async def test_retract_helper_for_other_panes_and_reason_on_detail(env: Env) -> None:
    async with env.app().run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        Stepper(dash).run()
        await settle(pilot)
        table = dash.query_one("#flagged-table", FlaggedTable)
        first = fact_id_at_cursor(table)
        assert first == dash.panel.shown[0].id
        # the detail screen asks the app for a reason: the dashboard answers from its pass
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(pilot.app.screen, FactDetailScreen)
        assert "src/auth.py changed since " + env.shop.c1[:7] in pilot.app.screen.text_of(
            "detail-pin")
        await pilot.press("escape")
        await settle(pilot)
        retract_highlighted(pilot.app, table)
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
    assert rows(env.db)[first]["retracted_at"] is not None
