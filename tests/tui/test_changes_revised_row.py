"""A revised row in the Changes tab shows the words that differ on both sides, even when the
two texts share a beginning longer than the room each side has."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.widgets import DataTable

from .conftest import make_app, settle

OLD = "Product pages are cached for 30 minutes at the CDN edge and in the app server's memory"
NEW = "Product pages are cached for 60 minutes at the CDN edge and in the app server's memory"


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_both_sides_show_the_changed_word(sample, config_dir, size):
    store, _ = sample
    old, _ = store.remember("project:shop", OLD)
    new = store.revise(old, NEW)[1]
    app = make_app(store, config_dir)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        app.screen.query_one("#diff-since").value = "2026-01-01"
        app.screen.query_one("#diff-run").press()
        await settle(pilot)
        table = app.screen.query_one("#diff-table", DataTable)
        shown = table.get_cell(f"R{new}", "fact")
        assert isinstance(shown, Text)
        was, _, now = shown.plain.partition(" → ")
        assert "30" in was and "60" in now, (size, shown.plain)
        assert shown.cell_len <= table.columns["fact"].get_render_width(table), shown.plain
