"""At 120 columns the flagged table shows what the README promises: the reason, the drift and the
pin, also with 5-digit ids and a scrollbar (a big store's usual look)."""

from __future__ import annotations

import sqlite3

from memharness_tui.tui.widgets.staleness.flagged import flagged_columns
from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable

from .conftest import DB, Env, ready


def _five_digit_ids(env: Env, count: int) -> list[int]:
    """``count`` stale facts whose ids start at 12,000 (one placeholder row moved up first)."""
    first, _ = env.store.remember("placeholder", "moved to a 5-digit id")
    with sqlite3.connect(env.root / DB) as con:
        con.execute("UPDATE facts SET id = 11999 WHERE id = ?", (first,))
    env.store.forget(fact_id=11999)
    ids = []
    for i in range(count):
        fid, _ = env.store.remember("bulk", f"config fact {i}", source_commit=env.shop.c1,
                                    source_path="src/config.py")
        env.store.set_staleness(fid, "stale", "2026-10-01T00:00:00.000Z", env.shop.c2)
        ids.append(fid)
    return ids


async def test_reason_drift_and_pin_fit_at_120_columns_with_five_digit_ids(env: Env) -> None:
    ids = _five_digit_ids(env, 60)
    assert min(ids) >= 12000
    async with env.app().run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        table = dash.query_one("#flagged-table", FlaggedTable)
        assert table.show_vertical_scrollbar  # more rows than fit: the scrollbar takes its share
        header = table.render_line(0).text
        for label in ("ID", "Verdict", "Triage", "Fact", "Reason", "Drift", "Pin"):
            assert label in header, f"{label!r} missing from the header at 120 columns: {header!r}"
        assert "12001" in "".join(table.render_line(y).text for y in range(1, 6))


def test_every_column_fits_the_width_it_is_given() -> None:
    for id_width in range(2, 8):
        table = FlaggedTable(flagged_columns(id_width))
        for total in range(80, 200):
            widths = table._layout(total)
            gaps = 2 * (len(widths) - 1) + 2
            assert sum(w for _, w in widths) + gaps <= total, (id_width, total)
