"""Help right after start: every tab's keys, spelled as Textual's footer spells them."""

from __future__ import annotations

from textual.command import CommandPalette

from memharness_tui.tui.screens.help import HelpScreen

from .conftest import make_app, settle
from .help_keys import drawn


async def test_help_pressed_at_once_lists_every_tab(sample, config_dir):
    """``?`` before the other tabs' panes were built in the background: they are built
    first, so help lists each tab's keys (it listed only the tabs visited so far)."""
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("question_mark")  # no settle: the background build has not run
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = drawn(app)
        for area in ("Subjects tab", "Changes tab", "Staleness tab", "Hygiene tab"):
            assert area in text, (area, text)
        assert "Start a staleness pass" in text and "Refile" in text


async def test_help_spells_every_key_as_the_footer_does(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        text = drawn(app)
        assert "Ctrl+" not in text and "PAGEUP" not in text, text
        for shown in ("^q", "^p", "esc", "⏎", "pgup", "del", "? / f1"):
            assert f" {shown}  " in text, (shown, text)


async def test_search_box_help_has_no_scroll_keys(sample, config_dir):
    """In the search box Down goes to the results: help says that, not "Scroll Down"."""
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await pilot.press("f1")  # ? is typed there
        await settle(pilot)
        here = drawn(app)
        assert "Scroll Down" not in here and "Scroll Up" not in here, here
        assert "↓ / esc  To results" in here and "←  Move cursor left" in here, here


async def test_palette_offers_one_help(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"keys")
        await settle(pilot)
        titles = [str(o.prompt) for o in app.screen.query_one("CommandList").options]
        assert not any(t.splitlines()[0].strip() == "Keys" for t in titles), titles
        assert any("Help: keys" in t for t in titles), titles
