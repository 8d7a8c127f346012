"""The staleness writer: the only path that changes freshness / checked_* (SPEC §5, §8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, InvalidInput, NotFound, Store
from memharness_tui.store.types import StalenessUpdate
from tests.store.helpers import dump_facts

SHA = "a" * 39 + "1"
HEAD = "b" * 39 + "2"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(str(tmp_path / "w.db"), clock=FakeClock("2026-03-01T00:00:00Z"))
    s.remember("repo", "pinned live", source_commit=SHA, source_path="a.py")  # 1
    s.remember("repo", "pinned, revised", source_commit=SHA)  # 2
    s.revise(2, "pinned, revised (new)")  # 3 (unpinned)
    s.remember("repo", "pinned, retracted", source_commit=SHA)  # 4
    s.forget(fact_id=4)
    s.remember("repo", "backfill me", source_ref=f"m@{SHA}")  # 5
    yield s
    s.close()


def upd(fid: int, **kw) -> StalenessUpdate:
    return StalenessUpdate(id=fid, freshness=kw.pop("freshness", "stale"),
                           checked_at="2026-03-02", checked_head=HEAD, **kw)


def test_live_only_skips_rows_that_are_no_longer_live(store: Store) -> None:
    written = store.set_staleness_many([upd(1), upd(2), upd(4)], live_only=True)
    assert written == [1]
    rows = {r["id"]: r for r in dump_facts(store.path)}
    assert rows[1]["freshness"] == "stale" and rows[1]["checked_head"] == HEAD
    assert rows[1]["checked_at"] == "2026-03-02T00:00:00.000Z"
    assert rows[2]["freshness"] is None and rows[4]["freshness"] is None


def test_backfill_fills_the_pin_but_never_overrides_one_set_meanwhile(store: Store) -> None:
    assert store.set_staleness_many([upd(5, source_commit=SHA, source_path="x.py")],
                                    live_only=True) == [5]
    row = store.get(5)
    assert (row.source_commit, row.source_path, row.freshness) == (SHA, "x.py", "stale")
    # Row 1 is already pinned: a backfill-shaped update for it is refused by the guard.
    other = "c" * 40
    assert store.set_staleness_many([upd(1, source_commit=other)], live_only=True) == []
    assert store.get(1).source_commit == SHA


def test_the_writer_touches_only_source_axis_columns(store: Store) -> None:
    before = {r["id"]: r for r in dump_facts(store.path)}
    store.set_staleness(1, "current", "2026-03-02T10:00:00Z", HEAD)
    after = {r["id"]: r for r in dump_facts(store.path)}
    axis = {"freshness", "checked_at", "checked_head", "source_commit", "source_path"}
    for fid, row in before.items():
        for col, value in row.items():
            if fid == 1 and col in axis:
                continue
            assert after[fid][col] == value, (fid, col)
    assert after[1]["freshness"] == "current"


def test_bad_verdicts_are_refused_and_nothing_is_written(store: Store) -> None:
    before = dump_facts(store.path)
    with pytest.raises(InvalidInput, match="freshness must be one of"):
        store.set_staleness_many([upd(1), upd(1, freshness="fresh")])
    with pytest.raises(InvalidInput, match="checked_at"):
        store.set_staleness(1, "stale", "yesterday", HEAD)
    with pytest.raises(NotFound, match="no fact #99"):
        store.set_staleness_many([upd(1), upd(99)])
    assert dump_facts(store.path) == before  # the whole batch rolled back


def test_targets_page_by_id_so_every_row_is_seen_once(store: Store) -> None:
    for i in range(450):
        store.remember("bulk", f"fact {i}", source_commit=SHA)
    seen: list[int] = []
    after = 0
    while page := store.staleness_targets(100, after_id=after):
        seen.extend(t.id for t in page)
        after = page[-1].id
    assert seen == sorted(set(seen)) and len(seen) == 451  # #1 plus the bulk rows
    cands = store.backfill_candidates(10)
    assert [c.id for c in cands] == [5]
