"""``Store.recall_first_screen``: exact when it says so, the newest rows' exact ranking when not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.store import FakeClock, InvalidInput, Store

from .test_split_scan import _varied

SCANNING_ASKS: list[dict[str, Any]] = [
    {"limit": 7},
    {"limit": 50},
    {"subject": "subject:2", "limit": 20},
    {"kind": "episodic", "limit": 20},
    {"freshness": "stale", "limit": 20},
    {"as_of": "2026-03-04", "limit": 30},
    {"query": "umber", "limit": 20},  # no FTS token matches: the LIKE fallback
    {"query": "idget", "kind": "procedural", "limit": 40},
]


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    """Two readers of one file, their clocks in step: called alike, they rank at one "now"."""
    path = tmp_path / "m.db"
    writer, clock = _varied(path)
    writer.close()
    at = clock.peek()
    stores = tuple(Store.open(str(path), readonly=True, clock=FakeClock(at, 0)) for _ in "ab")
    yield stores  # type: ignore[misc]
    for store in stores:
        store.close()


def _top(store: Store) -> int:
    return int(store.conn.execute("SELECT MAX(id) FROM facts").fetchone()[0])


@pytest.mark.parametrize("ask", SCANNING_ASKS)
def test_a_window_holding_every_row_is_the_agents_answer(pair: tuple[Store, Store],
                                                          ask: dict) -> None:
    first, full = pair
    got = first.recall_first_screen(**ask, rows=_top(first))
    assert got.exact
    assert got == full.recall(**ask)


@pytest.mark.parametrize("ask", SCANNING_ASKS)
def test_a_partial_window_is_flagged_and_is_the_newest_rows_exact_ranking(
        pair: tuple[Store, Store], ask: dict) -> None:
    first, full = pair
    rows = 60
    above = _top(first) - rows
    got = first.recall_first_screen(**ask, rows=rows)
    assert not got.exact
    everything = full.recall(**{**ask, "limit": 10_000})
    want = [f for f in everything.facts if f.id > above][: ask["limit"]]
    assert got.facts == want
    assert got.used_fallback == everything.used_fallback
    assert any(f.id <= above for f in everything.facts)  # the window did leave rows out
    # The call left no window behind: the next recall is the whole one again.
    assert first.recall(**ask) == full.recall(**ask)


def test_a_full_text_match_is_exact_whatever_the_window(pair: tuple[Store, Store]) -> None:
    first, full = pair
    got = first.recall_first_screen("widgets", limit=12, rows=1)
    assert got.exact and not got.used_fallback
    assert got == full.recall("widgets", limit=12)
    assert got.facts


def test_a_first_screen_never_reinforces(tmp_path: Path) -> None:
    store, _ = _varied(tmp_path / "m.db")
    before = store.conn.execute("SELECT id, last_accessed_at FROM facts ORDER BY id").fetchall()
    changes = store.conn.total_changes
    for query in ("", "umber", "widgets"):
        store.recall_first_screen(query, limit=5, rows=30)
    assert store.conn.total_changes == changes
    assert store.conn.execute(
        "SELECT id, last_accessed_at FROM facts ORDER BY id").fetchall() == before
    store.close()


def test_an_empty_store_answers_empty_and_exact(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "new.db"), clock=FakeClock("2026-03-01T00:00:00.000Z"))
    got = store.recall_first_screen("abc", rows=10)
    assert got.facts == [] and got.exact
    assert not (tmp_path / "new.db").exists()  # a read creates nothing
    store.close()


@pytest.mark.parametrize("rows", [0, -3, 2.5, "10"])
def test_a_bad_window_is_refused_in_one_sentence(pair: tuple[Store, Store], rows: Any) -> None:
    with pytest.raises(InvalidInput, match="^rows must be a positive integer"):
        pair[0].recall_first_screen("umber", rows=rows)
