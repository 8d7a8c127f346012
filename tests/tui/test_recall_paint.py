"""Typing and new results repaint without a screen layout; what a layout used to do still happens."""

from __future__ import annotations

from textual.widgets import Input

from memharness_tui.tui.widgets.results_table import ResultsTable

from .conftest import make_app, press_burst, settle, type_text


async def test_a_long_query_scrolls_the_search_box_to_its_cursor(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#search", Input)
        box.focus()
        # most of the query in one frame (a key per frame is 40 ms of Pilot's idle waits and
        # a recall each); the last keys typed at its end scroll the box as typing does
        box.value = "x" * 140
        await pilot.press("end", *("x" * 10))
        await settle(pilot)
        assert box.value == "x" * 150
        assert box.scroll_x > 0
        region = box.content_region
        assert region.x <= box.cursor_screen_offset.x <= region.right  # the cursor cell follows the text


async def test_the_results_scrollbar_follows_the_row_count(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        rows = table.row_count
        assert rows + 1 > table.container_size.height  # more rows than fit: a scrollbar
        assert table.show_vertical_scrollbar and table.max_scroll_y > 0
        # rows fit beside the vertical scrollbar: nothing to scroll sideways, no row given up
        assert not table.show_horizontal_scrollbar and table.max_scroll_x == 0
        assert table.scrollable_content_region.height == table.container_size.height
        box = app.screen.query_one("#search", Input)
        box.focus()
        await type_text(pilot, "sessions")
        assert table.row_count == 1 and table.virtual_size.height == 2
        assert not table.show_vertical_scrollbar and table.max_scroll_y == 0
        await press_burst(pilot, *["backspace"] * len("sessions"))
        assert table.row_count == rows and table.show_vertical_scrollbar
        await pilot.press("down", "end")  # to the table, then its last row: scrolled to it
        await settle(pilot)
        assert table.cursor_row == rows - 1 and 0 < table.scroll_y <= table.max_scroll_y
        assert table.scroll_y <= table.cursor_row < table.scroll_y + table.size.height - 1


async def test_the_main_screen_paints_at_its_own_frame_rate(sample, config_dir):
    from memharness_tui.tui.perf.frames import FRAME_RATE
    from memharness_tui.tui.screens.main import MainScreen

    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        timer = app.screen._update_timer
        assert timer is app.screen._update_timer  # one timer, made once
        assert timer._interval == 1 / FRAME_RATE > 0
        box = app.screen.query_one("#search", Input)
        box.focus()
        await type_text(pilot, "sessions")  # frames still come: the typed query's results show
        assert app.screen.query_one("#results", ResultsTable).row_count == 1


async def test_typing_a_search_lays_nothing_out(sample, config_dir, monkeypatch):
    """Each keystroke repaints the search box and the results; neither lays the screen out (a
    whole-screen layout per key was most of a keystroke's cost). No scrollbar comes or goes here:
    every result fits."""
    from memharness_tui.tui.screens.main import MainScreen

    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        assert not table.show_vertical_scrollbar
        box = app.screen.query_one("#search", Input)
        box.focus()
        await settle(pilot)
        layouts: list[object] = []
        real = MainScreen._refresh_layout

        def counting(self, *args, **kwargs):  # noqa: ANN001, ANN202
            layouts.append(args)
            return real(self, *args, **kwargs)

        monkeypatch.setattr(MainScreen, "_refresh_layout", counting)
        await pilot.press(*"sessions expire")
        await settle(pilot)
        assert box.value == "sessions expire"
        assert table.row_keys() == [str(f.id) for f in
                                    store.recall("sessions expire", limit=50).facts]
        assert layouts == []
