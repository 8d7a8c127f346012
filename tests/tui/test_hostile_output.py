"""#8 item 1: hostile text in every string path that is not a Text (toasts, titles, error
modals) stays data: no markup parsed, no control sequence written to the terminal."""

from __future__ import annotations

from textual.widgets import Static

from memharness_tui.tui.screens.modals import ErrorModal

from .conftest import make_app, settle

HOSTILE = ("[/] [bold]x[/bold] [link=https://evil.invalid]y[/link] "
           "\x1b]52;c;ZXZpbA==\x07 \x1b]8;;https://evil.invalid\x1b\\link\x1b]8;;\x1b\\ "
           "\x1b[2J \x9b31m \u202eevil \u2066iso\u2069")
FORBIDDEN = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2069")


async def test_hostile_text_in_toasts_titles_and_error_modals_stays_data(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.notify(HOSTILE, title=HOSTILE, severity="error")  # a fact's text in a toast
        app.screen.notify(HOSTILE)  # the widget path goes through the same door
        app.sub_title = HOSTILE
        await settle(pilot)
        for note in app._notifications:
            assert not note.markup
            assert not any(ch in note.message + note.title for ch in FORBIDDEN)
            assert "[/]" in note.message and "␛" in note.message
        assert not any(ch in app.sub_title for ch in FORBIDDEN)
        app.push_screen(ErrorModal(HOSTILE, HOSTILE))
        await settle(pilot)
        shown = " ".join(s.render().plain for s in app.screen.query(Static))  # type: ignore[union-attr]
        assert "[/]" in shown and not any(ch in shown for ch in FORBIDDEN)
        screen = app.export_screenshot()  # what would be drawn
        assert "\x1b]52" not in screen and "\x1b]8;;https://evil" not in screen
        assert "\x1b[2J" not in screen
