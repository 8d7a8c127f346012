"""Issue #21: keys typed right after ``/`` (a paste, a fast burst) land in the search box, in
order, and never run as commands; a bracketed paste outside a text box goes to the search."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from memharness_tui.tui.screens.main import MainScreen
from memharness_tui.tui.screens.modals import TimeTravelModal

from .conftest import make_app, settle


def burst(app, text: str) -> None:
    """Keys as a terminal delivers a fast burst: all queued before the app handles the first."""
    for ch in text:
        key = "slash" if ch == "/" else ch
        event = events.Key(key, ch)
        event.set_sender(app)
        app.post_message(event)


def search_box(app) -> Input:
    return app.main_screen().query_one("#search", Input)


async def test_keys_pressed_right_after_slash_are_typed(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "q", "u", "e", "r", "y")  # `q` would quit
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, MainScreen)
        assert search_box(app).value == "query"
        assert app.screen.focused is search_box(app)


async def test_a_burst_after_slash_lands_in_the_box_in_order(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("escape")  # from the results table, as after reading them
        await settle(pilot)
        burst(app, "/test")  # `t` would open time travel
        await settle(pilot)
        assert not isinstance(app.screen, TimeTravelModal)
        assert search_box(app).value == "test"
        await pilot.press("2")  # from another tab, too
        await settle(pilot)
        burst(app, "/sessions")  # `s`: start a pass; `n`: new fact
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.query_one("#tabs").active == "recall"
        assert search_box(app).value == "sessions"  # ``/`` selects the box's text (Input's way)


async def test_a_paste_outside_a_text_box_goes_to_the_search(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen.focused, Input)
        app.post_message(events.Paste("postgres\nsecond line"))
        await settle(pilot)
        assert app.screen.focused is search_box(app)
        assert search_box(app).value == "postgres"  # one line, as Input takes a paste
        await pilot.press("escape", "3")  # the Changes tab: a paste there searches too
        await settle(pilot)
        app.post_message(events.Paste("bcrypt"))
        await settle(pilot)
        assert app.screen.query_one("#tabs").active == "recall"
        assert search_box(app).value == "bcrypt"  # a new search, as after ``/``


async def test_a_paste_into_another_text_box_stays_there(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#subject-filter", Input)
        box.focus()
        await settle(pilot)
        app.post_message(events.Paste("auth"))
        await settle(pilot)
        assert box.value == "auth" and search_box(app).value == ""


async def test_typing_at_launch_searches(sample, config_dir):
    """Focus starts on the results (their keys work at once), but typing searches: ``pass``
    used to toggle the agent view with its ``a``."""
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.screen.focused is app.screen.query_one("#results")
        burst(app, "pass")
        await settle(pilot)
        assert search_box(app).value == "pass"
        assert not app.screen.agent_view
        await pilot.press("escape", "w", "o", "r", "d")  # typed slowly, after leaving the box
        await settle(pilot)
        assert search_box(app).value == "word"  # (a new search, as after ``/``)


async def test_the_documented_keys_still_work_from_the_results(sample, config_dir):
    from memharness_tui.tui.screens.help import HelpScreen

    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert app.screen.agent_view and search_box(app).value == ""
        await pilot.press("a", "2")
        await settle(pilot)
        assert app.screen.query_one("#tabs").active == "subjects"
        await pilot.press("1", "question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert search_box(app).value == ""
