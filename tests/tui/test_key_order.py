"""Issue #21: keys sent to a text box at once are handled in the order they were typed.

A key a text box does not type (Left, Home, Ctrl+A, Ctrl+K, Enter…) reaches it through a
binding; Textual ran that binding several message queues later than the characters typed right
behind it, so ``Left Left X`` into ``abc`` gave ``abcX`` (``tui/perf/keys.py``).
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input, TextArea

from memharness_tui.tui.screens.modals import TimeTravelModal

from .conftest import make_app, settle


def burst(app, *keys: str) -> None:
    """Keys as a terminal delivers a fast burst: all queued before the app handles the first."""
    for key in keys:
        character = key if len(key) == 1 else None
        event = events.Key(key, character)
        event.set_sender(app)
        app.post_message(event)


async def test_left_left_x_types_between_the_letters(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        box = app.main_screen().query_one("#search", Input)
        box.focus()
        await settle(pilot)
        box.value = "abc"
        box.cursor_position = 3
        await settle(pilot)
        burst(app, "left", "left", "X")
        await settle(pilot)
        assert box.value == "aXbc"
        assert box.cursor_position == 2
        burst(app, "home", "Y", "end", "Z")
        await settle(pilot)
        assert box.value == "YaXbcZ"


async def test_a_fast_date_in_time_travel_replaces_the_old_one(sample, config_dir):
    """``Ctrl+A Ctrl+K 2026-03-02 Enter`` at once: the box held the old date, and the burst
    emptied it (the digits typed before the cursor moved home and the line was cut)."""
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.as_of = "2026-03-05T00:00:00.000Z"
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TimeTravelModal)
        box = app.screen.query_one("#asof-input", Input)
        assert box.value and app.screen.focused is box
        burst(app, "ctrl+a", "ctrl+k", *"2026-03-02", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, TimeTravelModal)
        assert app.as_of == "2026-03-02T00:00:00.000Z"


async def test_a_text_area_keeps_the_order_too(sample, config_dir):
    """The new-fact form's text (a ``TextArea``): arrows typed fast, and Enter still a new line."""
    from memharness_tui.tui.screens.fact_form import NewFactScreen

    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.push_screen(NewFactScreen(subject="auth"))
        await settle(pilot)
        area = app.screen.query_one("#form-fact", TextArea)
        area.focus()
        await settle(pilot)
        burst(app, *"abc", "left", "left", "X", "end", "enter", "d")
        await settle(pilot)
        assert area.text == "aXbc\nd"
