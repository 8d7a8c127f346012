"""A key that cannot act here says why (or acts): a fix on a row it does not apply to, ``n``
on a read-only store, ``End`` in the Hygiene table."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from .conftest import settle
from .test_hygiene_tab import app_on, highlight, hyg, open_tab  # noqa: F401


def _notes(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_refile_on_a_near_duplicate_says_what_it_applies_to(hyg, tmp_path: Path):  # noqa: F811
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        await highlight(pilot, pane, "near-duplicate")
        await pilot.press("f")
        await settle(pilot)
        assert any("Refile applies to a fragmented subject" in n and "m merge" in n
                   for n in _notes(app)), _notes(app)


async def test_end_and_home_move_to_the_last_and_first_flag(hyg, tmp_path: Path):  # noqa: F811
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        table = pane.query_one("#hygiene-table", DataTable)
        assert table.row_count > 2 and table.cursor_row == 0
        await pilot.press("end")
        await settle(pilot)
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        await settle(pilot)
        assert table.cursor_row == 0


async def test_new_fact_on_a_read_only_store_says_so(hyg, tmp_path: Path):  # noqa: F811
    store, _ = hyg
    app = app_on(store, tmp_path, readonly=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for tab in ("1", "2"):
            await pilot.press(tab)
            await settle(pilot)
            app.clear_notifications()
            await pilot.press("n")
            await settle(pilot)
            assert any("read-only" in n for n in _notes(app)), (tab, _notes(app))


async def test_the_hygiene_footer_keeps_now_reload_and_quit_at_120(hyg, tmp_path: Path):  # noqa: F811
    from .test_footer import footer_row

    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_tab(pilot)
        row = footer_row(app)
        for key in ("m Merge", "T Now", "r Reload", "q Quit", "? Help"):
            assert key in row, (key, row)
