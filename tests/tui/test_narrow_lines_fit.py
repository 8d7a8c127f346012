"""At 80 columns the lines that say what a tab found are shown whole, never cut at the edge."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from .test_hygiene_tab import app_on, hyg, open_tab  # noqa: F401


async def test_the_hygiene_summary_wraps_at_80_columns(hyg, tmp_path: Path):  # noqa: F811
    store, _ = hyg
    app = app_on(store, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_tab(pilot)
        status = pane.query_one("#hygiene-status", Static)
        text = status.render().plain  # type: ignore[union-attr]
        width = status.content_region.width
        assert len(text) > width, text  # the sample's summary is longer than one line here
        lines = -(-len(text) // width)
        assert status.content_region.height >= lines, (status.content_region, text)
