"""A switch back to a tab already drawn redraws nothing it drew before, and a focus change
repaints the widgets it changed, not the whole screen."""

from __future__ import annotations

from textual.widgets import Input

from memharness_tui.tui.perf.look_table import LookCachedTable
from memharness_tui.tui.widgets.results_table import ResultsTable

from .conftest import make_app, settle


async def _every_tab_drawn(pilot) -> None:  # noqa: ANN001 - Pilot
    """Show each tab once (built, loaded, drawn): the switches a test makes after it show a
    tab again. (Each test fails on its bug after one round as after two, #25.)"""
    for key in "2341":
        await pilot.press(key)
        await settle(pilot)


async def test_coming_back_to_recall_draws_no_result_row_again(sample, config_dir, monkeypatch):
    """Each time the Recall tab is shown again its table gets a Resize, at the size it had;
    the rows it drew are still good (their keys hold the width) and are not drawn again."""
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await _every_tab_drawn(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        drawn: list[int] = []
        real = ResultsTable._render_row

        def counting(self, row, width, is_cursor):  # noqa: ANN001, ANN202
            drawn.append(row)
            return real(self, row, width, is_cursor)

        monkeypatch.setattr(ResultsTable, "_render_row", counting)
        for key in "21":
            await pilot.press(key)
            await settle(pilot)
        assert app.screen.query_one("#tabs").active == "recall" and app.focused is table
        assert table.row_count > 0
        assert drawn == []  # every visible row came from the rows drawn before
        table.move_cursor(row=1)  # a real change still draws
        await settle(pilot)
        assert 0 in drawn and 1 in drawn


async def test_a_results_row_drawn_at_another_width_is_not_reused(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        wide = table.render_line(1).text
        await pilot.resize_terminal(120, 48)
        await settle(pilot)
        narrow = table.render_line(1).text
        assert len(wide) > len(narrow) == table.scrollable_content_region.width


async def test_a_look_table_asks_its_style_once_per_draw_and_follows_it_after(sample, monkeypatch,
                                                                             config_dir):
    """``DataTable`` asks for the table's style on every line it draws; one draw asks once,
    and the style after the draw is the live one (a theme change shows at once)."""
    from textual.dom import DOMNode

    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        table = app.screen.query_one("#subject-list", LookCachedTable)
        walks: list[object] = []
        real = DOMNode.rich_style

        def counted(node):  # noqa: ANN001, ANN202
            if node is table:
                walks.append(node)
            return real.fget(node)

        before = table.rich_style
        monkeypatch.setattr(DOMNode, "rich_style", property(counted))
        table.refresh()
        lines = table.render_lines(table.region.reset_offset)
        assert len(lines) > 5 and len(walks) == 1
        monkeypatch.undo()
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await settle(pilot)
        assert table.rich_style != before


async def test_moving_focus_repaints_the_widgets_not_the_screen(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        table = screen.query_one("#results", ResultsTable)
        box = screen.query_one("#search", Input)
        table.focus()
        await settle(pilot)
        screen.set_focus(box)
        assert screen.focused is box
        assert not screen._repaint_required  # the whole screen is not marked for a repaint
        await settle(pilot)
        assert box.has_focus and not table.has_focus
        assert screen.query_one("#results", ResultsTable).render_line(1)  # still draws


async def test_a_switch_gives_the_pane_its_focused_look_before_any_frame(sample, config_dir):
    """The tab's main table has focus and is styled focused as the switch returns (not when
    its Focus event arrives, after the next frame); the table left behind is not."""
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await _every_tab_drawn(pilot)
        screen = app.screen
        results = screen.query_one("#results", ResultsTable)
        subjects = screen.query_one("#subject-list", LookCachedTable)
        assert app.focused is results
        screen.action_show_tab("subjects")  # no pause: what the next frame will show
        assert screen.focused is subjects
        assert subjects.has_focus and subjects.has_pseudo_class("focus")
        assert not results.has_focus and not results.has_pseudo_class("focus")
        await settle(pilot)
        assert app.focused is subjects and subjects.has_focus and not results.has_focus
        await pilot.press("1")
        await settle(pilot)
        assert app.focused is results and results.has_focus and not subjects.has_focus


async def test_showing_a_tab_again_leaves_its_tables_scrollbars_alone(sample, config_dir,
                                                                      monkeypatch):
    """A layout that gives a table the size it had (each time its tab is shown again) does
    not update its scrollbars: they were drawn right, and redrawing them was a frame more."""
    from textual.widget import Widget

    from memharness_tui.tui.widgets.staleness.verdict_log import VerdictLog

    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await _every_tab_drawn(pilot)
        updated: list[str] = []
        real = Widget._scroll_update

        def noting(self, virtual_size):  # noqa: ANN001, ANN202
            if isinstance(self, ResultsTable | LookCachedTable | VerdictLog):
                updated.append(f"{type(self).__name__}#{self.id}")
            return real(self, virtual_size)

        monkeypatch.setattr(Widget, "_scroll_update", noting)
        for key in "2341":
            await pilot.press(key)
            await settle(pilot)
        assert updated == []
        await pilot.resize_terminal(140, 30)  # a real new size still updates them
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        assert "ResultsTable#results" in updated
        bar = table.vertical_scrollbar
        assert bar.window_size == table.container_size.height
        assert bar.window_virtual_size == table.virtual_size.height


async def test_the_footer_does_not_repaint_for_a_scrollbar_of_no_size(sample, config_dir,
                                                                      monkeypatch):
    """The Staleness tab's keys overflow a 110-column footer, Recall's do not: the
    footer's (zero-size) scrollbar comes and goes on those switches, and draws nothing.
    (Since #21 the footer leaves out the keys that do not fit, and the Staleness tab shows
    fewer: here every key is kept, as before, and the terminal is 110 columns, not 160, to
    make the overflow this test is about.)"""
    from memharness_tui.tui.perf.footer import KeysFooter

    monkeypatch.setattr(KeysFooter, "_fit", lambda self, keys, palette: keys)
    monkeypatch.setattr(KeysFooter, "on_resize", lambda self: None)
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(110, 48)) as pilot:
        await settle(pilot)
        await _every_tab_drawn(pilot)
        seen: list[tuple[bool, bool, bool]] = []
        real = KeysFooter._refresh_scrollbars

        def noting(self):  # noqa: ANN001, ANN202
            shown, before = self.show_horizontal_scrollbar, self._repaint_required
            real(self)
            seen.append((shown != self.show_horizontal_scrollbar, before,
                         self._repaint_required))

        monkeypatch.setattr(KeysFooter, "_refresh_scrollbars", noting)
        for key in "4141":
            await pilot.press(key)
            await settle(pilot)
        toggled = [s for s in seen if s[0]]
        assert toggled  # the scrollbar did come and go
        assert all(after == before for _, before, after in toggled)
