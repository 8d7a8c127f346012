"""The Subjects/Changes tables keep drawn rows across focus changes, and never show stale ones."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import DataTable, Input

from memharness_tui.tui.perf.look_table import LookCachedTable


class TwoWidgets(App[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="box")
        yield LookCachedTable(id="table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(LookCachedTable)
        table.add_columns("Subject", "Now")
        for n in range(30):
            table.add_row(Text(f"subject-{n}", style="bold" if n % 3 else ""),
                          Text(str(n), justify="right"), key=str(n))


def drawn(table: LookCachedTable) -> list[list[tuple[str, object]]]:
    lines = table.render_lines(Region(0, 0, table.size.width, table.size.height))
    return [[(seg.text, seg.style) for seg in line] for line in lines]


def fresh(table: LookCachedTable) -> list[list[tuple[str, object]]]:
    """What plain DataTable draws in the same state (it forgets everything on a style update)."""
    DataTable.notify_style_update(table)
    return drawn(table)


async def test_rows_drawn_from_kept_looks_match_a_fresh_render() -> None:
    app = TwoWidgets()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LookCachedTable)
        box = app.query_one(Input)
        steps = [
            lambda: table.focus(),
            lambda: box.focus(),
            lambda: table.focus(),
            lambda: table.move_cursor(row=5),
            lambda: box.focus(),
            lambda: setattr(app, "theme", "textual-light"),
            lambda: table.focus(),
            lambda: table.update_cell("3", table.ordered_columns[0].key, Text("renamed")),
            lambda: setattr(app, "theme", "textual-dark"),
        ]
        seen = set()
        for step in steps:
            step()
            await pilot.pause()
            cached = drawn(table)
            assert cached == fresh(table)
            seen.add(repr(cached[1]))
        assert len(seen) >= 4  # the steps did change the look (focus, cursor, theme, data)


async def test_coming_back_to_a_look_renders_no_cell_again() -> None:
    app = TwoWidgets()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LookCachedTable)
        box = app.query_one(Input)
        table.focus()
        await pilot.pause()
        drawn(table)
        box.focus()
        await pilot.pause()
        drawn(table)  # the unfocused look
        table.focus()
        await pilot.pause()
        rendered: list[int] = []
        original = table._render_line_in_row

        def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
            rendered.append(1)
            return original(*args, **kwargs)

        table._render_line_in_row = counting  # type: ignore[method-assign]
        kept = drawn(table)
        assert rendered == []  # every line came from the focused look's kept rows
        assert kept == fresh(table)  # and they are what a fresh render draws
        rendered.clear()
        table.move_cursor(row=2)
        await pilot.pause()
        drawn(table)
        assert rendered  # a real change still draws


async def test_rows_drawn_before_they_are_measured_are_drawn_again_at_their_widths() -> None:
    """Under load the screen can draw new rows before the table's Idle measures them (the
    Changes snapshot showed its columns at their labels' widths, ~1 run in 15). Here the
    table keeps its size and needs no scrollbar, so no Resize comes to forget those rows."""
    app = TwoWidgets()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LookCachedTable)
        table.styles.height = 10

        def fill(first: str) -> None:
            table.clear()
            for n in range(5):
                table.add_row(Text(first if n == 0 else f"subject-{n}"), Text(str(n)), key=str(n))

        fill("subject-0")
        await pilot.pause()
        long = "a-subject-name-longer-than-its-column"
        fill(long)
        early = drawn(table)  # a frame before the Idle that measures the new rows
        assert long not in "".join(text for text, _ in early[1])
        await pilot.pause()
        assert long in "".join(text for text, _ in drawn(table)[1])
        assert drawn(table) == fresh(table)
