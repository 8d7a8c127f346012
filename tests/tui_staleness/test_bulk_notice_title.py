"""A bulk action's notice is titled by what it did ("Still true", "Downgrade"), not "triage"."""

from __future__ import annotations

from memharness_tui.tui.screens.confirm import ConfirmScreen

from .conftest import Env, settle
from .test_editing import cursor_to, flagged_after_pass


async def test_still_true_and_downgrade_notices_name_the_action(env: Env) -> None:
    config = env.ids[2]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        cursor_to(dash, config)
        await pilot.press("space", "y")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        titles = [n.title for n in pilot.app._notifications]
        assert "Still true" in titles and "triage" not in titles, titles
        cursor_to(dash, env.ids[0])
        await pilot.press("w")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        titles = [n.title for n in pilot.app._notifications]
        assert "Downgrade" in titles and "triage" not in titles, titles
