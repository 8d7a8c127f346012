"""A key typed right behind one that moves the focus goes where the focus went: the search
box's Down moves to the results at once, so a fast ``Down t`` opens time travel
instead of typing "t" into the box."""

from __future__ import annotations

from textual.widgets import Input

from memharness_tui.tui.screens.modals import TimeTravelModal

from .conftest import make_app, press_burst, settle


async def test_down_then_a_command_key_in_one_burst_runs_the_command(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        box = app.screen.query_one("#search", Input)
        assert app.screen.focused is box
        await press_burst(pilot, "down", "t")
        assert box.value == "", "the t went to the search box"
        assert isinstance(app.screen, TimeTravelModal)

