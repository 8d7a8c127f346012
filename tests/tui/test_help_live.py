"""Issue #22: help shows the live bindings of the screen it was opened from."""

from __future__ import annotations

from io import StringIO

from rich.console import Console
from textual.widgets import Static

from memharness_tui.tui.screens.help import HelpScreen

from .conftest import make_app, settle


def _drawn(app, selector: str) -> str:
    out = Console(file=StringIO(), width=200, record=True, color_system=None)
    out.print(app.screen.query_one(selector, Static).content)
    return out.export_text()


async def test_a_binding_added_at_run_time_is_in_help(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 48)) as pilot:
        await settle(pilot)
        app.bind("j", "bell", description="Ring the bell, bound just now")  # (z is undo)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        here = _drawn(app, "#help-here")
        assert "Ring the bell, bound just now" in here and "j" in here


async def test_each_tabs_keys_are_in_help_opened_from_that_tab(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    tabs = {"1": ("Recall tab", "Agent view"), "2": ("Subjects tab", "History"),
            "3": ("Changes tab", "Type the date to show changes since"), "4": ("Staleness tab", "Start a staleness pass")}
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        for key, (area, needle) in tabs.items():
            await pilot.press(key)
            await settle(pilot)
            await pilot.press("question_mark")
            await settle(pilot)
            here = _drawn(app, "#help-here")
            assert area in here and needle in here, (area, here)
            others = [n for _, n in tabs.values() if n != needle]
            assert not any(other in here for other in others), (area, here)
            await pilot.press("escape")
            await settle(pilot)
