"""After the lead's patch: n / Delete / e on the other panes, palette and help entries."""

from __future__ import annotations

from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.fact_form import NewFactScreen
from memharness_tui.tui.screens.revise import ReviseScreen

from ..tui.help_keys import read_help
from .conftest import Env, settle
from .helpers import rows


async def test_bindings_on_other_panes(env: Env) -> None:
    app = env.app()
    async with app.run_test(size=(140, 40)) as pilot:
        for _ in range(200):
            if app.main_screen() is not None:
                break
            await pilot.pause(0.01)
        await settle(pilot)
        app.main_screen().query_one("#results").focus()
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NewFactScreen)
        await pilot.press("escape")
        app.main_screen().query_one("#results").focus()
        await pilot.press("delete")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        app.open_fact(env.ids[0])
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ReviseScreen)
        revise_help = await read_help(pilot, palette=True)  # help on the revise modal
        await pilot.press("escape")
        await pilot.press("delete")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        if isinstance(app.screen, FactDetailScreen):
            await pilot.press("escape")  # back to the main screen
            await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        staleness_help = await read_help(pilot)  # help on the Staleness tab
    assert rows(env.db)[env.ids[0]]["retracted_at"] is not None
    tab = staleness_help[:staleness_help.index("This screen")]  # "Here": the tab's own keys
    assert "Staleness tab" in tab and "Start a staleness pass" in tab
    assert "Still true" in revise_help
