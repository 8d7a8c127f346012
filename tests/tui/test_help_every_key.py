"""Issue #22: help is read from the live bindings, with no hand-kept list; every class of the
app that binds keys has a test that opens help where those keys work and finds them there."""

from __future__ import annotations

from pathlib import Path

from textual.binding import Binding
from textual.widgets import Static, TabbedContent

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.screens.main import MainScreen
from memharness_tui.tui.screens.reembed import ReembedScreen

from .conftest import CLOCK_START, make_app, settle
from .help_keys import classes_with_keys, documented, missing, read_help
from .hybrid_helpers import FakeEmbedder, fake_service

# Where each class's keys are checked in help: tests/tui/test_flows.py
# (test_help_lists_every_key), tests/tui/test_hygiene_tab.py (test_help_lists_the_tabs_keys),
# tests/tui/test_context_screen.py, tests/tui/test_review_screen.py,
# tests/tui/test_purge_action.py and this file. A class that binds a key and is in none of them fails the last test.
CHECKED = {
    "test_flows": {"MemharnessApp", "MainScreen", "ResultsTable", "RecallPane", "SubjectsPane",
                   "DiffPane", "StalenessDashboard", "FlaggedPanel", "HygienePane",
                   "FactDetailScreen", "FactFormScreen", "TimeTravelModal", "ThemePicker",
                   "ConfirmScreen", "ReposScreen", "ReviseScreen", "ErrorModal",
                   "HelpScreen"},  # (help's own keys: its last line, "Esc, ? or q closes")
    "test_hygiene_tab": {"HygienePane", "FixEditor", "PlanPreview"},
    "this file": {"Welcome", "ReembedScreen"},
    "test_context_screen": {"ContextScreen"},
    "test_review_screen": {"ReviewScreen"},
    "test_purge_action": {"PurgePreview"},
}


async def test_the_welcome_keys_are_in_help_on_an_empty_store(tmp_path: Path, config_dir):
    path, clock = str(tmp_path / "new.db"), FakeClock(CLOCK_START, 60_000)
    app = make_app(lambda: Store.open(path, clock=clock), config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and app.screen.query_one("#welcome").display
        text = await read_help(pilot)
    assert missing(text, classes_with_keys()["Welcome"]) == []
    assert "The other tabs" not in text  # the tabs are not shown before the first fact


async def test_the_reembed_keys_are_in_help_while_it_runs(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    app.embedding = fake_service(FakeEmbedder(), requested=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.screen.query_one("#results").focus()
        await pilot.press("V")  # reembed, from the Recall tab
        await settle(pilot)
        assert isinstance(app.screen, ReembedScreen)
        text = await read_help(pilot, palette=True)
    assert missing(text, classes_with_keys()["ReembedScreen"]) == []


async def test_a_widget_mounted_in_a_tab_brings_its_keys_to_help_on_another_tab(sample, config_dir):
    """The other tabs' keys come from the live widgets in them, not from a list of classes."""

    class Chime(Static):
        BINDINGS = [Binding("j", "app.bell", "Ring the bell (a widget mounted just now)")]

    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await app.screen.query_one("#tabs", TabbedContent).get_pane("diff").mount(Chime())
        await settle(pilot)
        text = await read_help(pilot)  # on the Recall tab
    others = text[text.index("The other tabs"):]
    changes = others[others.index("Changes tab"):]
    assert documented(changes, "j", "Ring the bell (a widget mounted just now)")
    assert not documented(text[:text.index("The other tabs")], "j")


def test_every_class_that_binds_keys_has_its_help_checked():
    unchecked = set(classes_with_keys()) - set().union(*CHECKED.values())
    assert unchecked == set(), f"no test opens help where these classes' keys work: {unchecked}"
