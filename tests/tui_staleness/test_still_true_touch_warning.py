"""Still true on one fact warns, as the bulk action does, when its triage says the change at
HEAD touches the fact's words (port 8080 -> 9090 under "listens on port 8080")."""

from __future__ import annotations

from textual.widgets import Static

from memharness_tui.tui.screens.confirm import ConfirmScreen

from .conftest import Env, settle
from .test_editing import flagged_after_pass, open_revise


def _shown(screen: ConfirmScreen) -> str:
    return "\n".join(str(s.render()) for s in screen.query(Static))


async def test_still_true_on_a_touched_fact_warns_before_it_repins(env: Env) -> None:
    config, auth = env.ids[2], env.ids[0]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        revise = await open_revise(pilot, dash, config)
        assert revise.triage is not None and revise.triage.outcome == "touches"
        await pilot.press("y")
        await settle(pilot)
        confirm = pilot.app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "touches this fact's words" in _shown(confirm)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        revise = await open_revise(pilot, dash, auth)
        await pilot.press("y")
        await settle(pilot)
        confirm = pilot.app.screen
        assert isinstance(confirm, ConfirmScreen)
        shown = _shown(confirm)
        assert ("touches this fact's words" in shown) == (revise.triage.outcome == "touches")
