"""Issue #21: at 80×24 and 120×36 the time-travel banner, the footer and the detail's Time box
say their whole phrases (they were cut — ``r Reloa▏`` — or wrapped mid-phrase at 120)."""

from __future__ import annotations

import pytest

from .test_snapshots import app_for, before, keys, open_fact, snap_store  # noqa: F401

SIZES = {"80x24": (80, 24), "120x36": (120, 36)}


@pytest.mark.parametrize("size", SIZES)
def test_time_travel_banner_and_footer_fit(snap_compare, snap_store, size):  # noqa: F811
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=SIZES[size],
                        run_before=before(keys("t"), keys(*"2026-03-01T09:30", "enter")))


@pytest.mark.parametrize("size", SIZES)
def test_detail_time_box_fits(snap_compare, snap_store, size):  # noqa: F811
    app, info = app_for(snap_store)
    assert snap_compare(app, terminal_size=SIZES[size],
                        run_before=before(open_fact(info.chain[1])))
