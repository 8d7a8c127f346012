"""Issue #12 "On screen": what a new user meets — the empty-store welcome, column sizing,
the detail screen's keys and word diff, form prefills, provenance and the repo editor."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.screens.fact_form import NewFactScreen
from memharness_tui.tui.screens.main import MainScreen
from memharness_tui.tui.widgets.results_table import ResultsTable

from .conftest import CLOCK_START, make_app, settle


def plain(widget: Static) -> str:
    return widget.render().plain  # type: ignore[union-attr]


def fresh_opener(path: Path):
    clock = FakeClock(CLOCK_START, 60_000)
    return lambda: Store.open(str(path), clock=clock)


async def test_empty_store_welcomes_and_new_file_is_announced(tmp_path, config_dir):
    path = tmp_path / "new.db"
    app = make_app(fresh_opener(path), config_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        welcome = screen.query_one("#welcome", Static)
        assert welcome.display and not screen.query_one("#tabs").display
        text = plain(welcome)
        assert str(path) in text and "--demo" in text and "add a fact" in text
        assert "new file" in text
        notes = [n.message for n in app._notifications]
        assert any("New, empty store" in m and str(path) in m for m in notes)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NewFactScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert not path.exists() or path.stat().st_size == 0  # looking writes nothing
        other = Store.open(str(path), clock=FakeClock(CLOCK_START, 60_000))
        other.remember("deploy", "Deploys go through staging")
        other.close()
        await pilot.press("r")
        await settle(pilot)
        assert not welcome.display and screen.query_one("#tabs").display
        assert screen.query_one("#results", ResultsTable).row_count == 1


async def test_existing_store_is_not_announced_as_new(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#welcome").display
        assert not any("New, empty store" in n.message for n in app._notifications)
