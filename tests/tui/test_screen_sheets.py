"""Every screen's sheet is read with the App's at start (tui/tcss.py, issue #26's cold start):
pushing a screen never re-parses the app's CSS and re-styles every widget of every screen."""

from __future__ import annotations

import importlib
from pathlib import Path

from textual.screen import Screen

from memharness_tui.tui import tcss
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.help import HelpScreen

from .conftest import make_app, settle

TUI = Path(__file__).resolve().parents[2] / "memharness_tui" / "tui"


def test_every_screens_sheet_is_among_those_read_at_start():
    sheets = set(tcss.screen_sheets())
    owners = {}
    for path in TUI.rglob("*.py"):
        name = ".".join(path.relative_to(TUI.parents[1]).with_suffix("").parts)
        module = importlib.import_module(name.removesuffix(".__init__"))
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, Screen)
                    and value.__module__ == module.__name__ and "CSS_PATH" in vars(value)):
                owners[value.__name__] = Path(value.CSS_PATH)
    assert owners, "no screen with a CSS_PATH found"
    assert {n: p for n, p in owners.items() if p not in sheets} == {}
    assert sheets == set(owners.values())  # and nothing else is read as a screen's


async def test_pushing_screens_never_reparses_the_app_css(sample, config_dir, monkeypatch):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.stylesheet.has_source(str(FactDetailScreen.CSS_PATH), "")
        reparses: list[str] = []
        reparse = app.stylesheet.reparse

        def counted() -> None:
            reparses.append(type(app.screen).__name__)
            reparse()

        monkeypatch.setattr(app.stylesheet, "reparse", counted)
        await pilot.press("question_mark")  # the help screen's first push
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        app.open_fact(info.stale)  # the detail screen (built ahead, or fresh)
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen)
        assert reparses == []
