"""The Recall status line: true when nothing matched, and never cut at the pane's width."""

from __future__ import annotations

from textual.widgets import Input

from memharness_tui.tui.widgets.header import InfoLine

from .conftest import make_app, settle


def _status(app) -> tuple[str, int]:
    line = app.screen.query_one("#recall-status", InfoLine)
    return line.text.plain, line.content_region.width


async def _search(pilot, query: str) -> None:
    pilot.app.screen.query_one("#search", Input).value = query
    await settle(pilot)


async def test_no_match_does_not_claim_a_substring_match(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _search(pilot, "zzqxj")
        text, _ = _status(app)
        assert text.startswith("No matching memories"), text
        assert "substring match (no full-text hit)" not in text, text
        assert "no full-text or substring match" in text, text


async def test_a_long_status_fits_at_120_columns(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.action_travel("2026-05-01T00:00:00.000Z")
        await settle(pilot)
        await _search(pilot, "a query long enough to fill the line xq")
        text, width = _status(app)
        assert "as of 2026-05-01" in text and "No matching memories" in text, text
        assert len(text) <= width, (len(text), width, text)
