"""Issue #21, display polish: at 80×24 and 120×36 the Changes tab's summary and columns fit
(every fact cut to its column ends in "…", the When column is on screen) and its cursor row
is not dimmed; the Subjects list's counts (Now, All) are never cut off."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static

from memharness_tui.tui.render import clean

from .conftest import make_app, settle
from .test_snapshots import app_for, before, keys, snap_store  # noqa: F401

SIZES = {"80x24": (80, 24), "120x36": (120, 36)}


def columns_width(table: DataTable) -> int:
    return sum(c.get_render_width(table) for c in table.columns.values())


async def show_changes(pilot, since: str = "2026-01-01") -> DataTable:
    await pilot.press("3")
    await settle(pilot)
    pilot.app.screen.query_one("#diff-since").value = since
    pilot.app.screen.query_one("#diff-run").press()
    await settle(pilot)
    return pilot.app.screen.query_one("#diff-table", DataTable)


@pytest.mark.parametrize("size", SIZES)
async def test_changes_fit_with_ellipses(sample, config_dir, size):
    store, _ = sample
    store.remember("long", "A fact long enough to be cut in the Changes table at any width "
                   "this test uses: " + "words " * 40)
    app = make_app(store, config_dir)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        table = await show_changes(pilot)
        assert table.row_count > 5
        room = table.scrollable_content_region.width
        assert columns_width(table) <= room, (size, [(c.label.plain, c.get_render_width(table)) for c in table.columns.values()], room, table.size)
        diff = app.screen.query_one("#diff-pane").last_diff
        whole = {f"L{f.id}": clean(f.fact, single_line=True) for f in diff.learned}
        whole |= {f"R{p.new.id}": clean(f"{p.old.fact} → {p.new.fact}", single_line=True)
                  for p in diff.revised}
        cut = 0
        for key in table.rows:
            shown = table.get_cell(key, "fact")
            assert isinstance(shown, Text)
            if key.value in whole and shown.plain != whole[key.value]:
                cut += 1
                assert "…" in shown.plain, (size, shown.plain)  # cut at an end or around a change
        assert cut, size  # the long one at least
        summary = app.screen.query_one("#diff-summary", Static)
        text = summary.render()
        plain = text.plain if isinstance(text, Text) else str(text)
        assert len(plain) <= summary.content_region.width, plain
        assert plain.endswith("retracted"), plain


async def test_changes_rows_are_not_dimmed_where_the_cursor_goes(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = await show_changes(pilot)
        for key in table.rows:
            for col in ("id", "when"):
                cell = table.get_cell(key, col)
                assert "dim" not in str(cell.style) and not cell.spans, (key.value, col)


async def test_subjects_counts_are_never_cut(sample, config_dir):
    store, _ = sample
    store.remember("a-very-long-subject-name:with-parts:and-more", "x")
    app = make_app(store, config_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        side = app.screen.query_one("#subject-list", DataTable)
        assert columns_width(side) <= side.scrollable_content_region.width
        narrow = side.get_cell_at((0, 0)).plain
        assert narrow.startswith("a-very") and narrow.endswith("…")
        await pilot.resize_terminal(120, 36)
        await settle(pilot)
        assert columns_width(side) <= side.scrollable_content_region.width
        wide = side.get_cell_at((0, 0)).plain
        assert len(wide) > len(narrow) and wide.endswith("…")  # wider: more of the name


@pytest.mark.parametrize("size", SIZES)
def test_changes_tab_fits(snap_compare, snap_store, size):  # noqa: F811
    app, _ = app_for(snap_store)

    async def since(pilot) -> None:
        pilot.app.screen.query_one("#diff-since").value = "2026-01-01"
        pilot.app.screen.query_one("#diff-run").press()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=before(keys("3"), since))


def test_subjects_tab_fits_at_80_columns(snap_compare, snap_store):  # noqa: F811
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=(80, 24), run_before=before(keys("2")))
