"""A scanning recall with a subject of few rows ranks those rows in one statement: no age
bound is learned and the scan is not split, and the answer is the one those give."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store, age_bound, recall, sql

NOW = "2026-06-01T00:00:00.000Z"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    store = Store.open(str(path), clock=FakeClock("2026-01-01T00:00:00.000Z", 3_600_000))
    for i in range(400):
        store.remember(f"subject:{i % 4}", f"fact {i} about gears", importance=1 + i % 10,
                       kind=("semantic", "episodic", "procedural")[i % 3])
    store.recall(subject="subject:1", limit=5, reinforce=True)
    store.close()
    return path


def _statements(store: Store, ask: dict) -> tuple[object, list[str]]:
    seen: list[str] = []
    store.conn.set_trace_callback(lambda s: seen.append(s) if not s.startswith("--") else None)
    try:
        got = store.recall(**ask)
    finally:
        store.conn.set_trace_callback(None)
    return got, seen


@pytest.mark.parametrize("ask", [{"subject": "subject:1", "limit": 8},
                                 {"subject": "subject:2", "limit": 30, "kind": "episodic"},
                                 {"subject": "subject:3", "query": "ear", "limit": 10}])
def test_a_subject_of_few_rows_is_ranked_in_one_statement_with_the_same_answer(
        monkeypatch: pytest.MonkeyPatch, store_path: Path, ask: dict) -> None:
    # Every store is big enough to learn an age bound and to split its scans.
    monkeypatch.setattr(age_bound, "PRUNE_FROM_ROWS", 0)
    monkeypatch.setattr(age_bound, "THETA_WINDOW_ROWS", 50)
    narrow, plain = (Store.open(str(store_path), readonly=True, clock=FakeClock(NOW, 0))
                     for _ in "ab")
    for s in (narrow, plain):
        s.split_scans(parts=2, split_from=0)
    try:
        got, seen = _statements(narrow, ask)
        monkeypatch.setattr(recall, "NARROW_SCAN_ROWS", 0)  # as before: cut and split
        want, seen_before = _statements(plain, ask)
    finally:
        narrow.close()
        plain.close()
    assert got == want and got.facts  # type: ignore[attr-defined]
    assert any(sql.MAX_ID in s for s in seen_before)  # the bound and the split asked for it
    assert not any(sql.MAX_ID in s for s in seen), seen
    scans = [s for s in seen if "ORDER BY" in s and "facts_fts" not in s]  # not the FTS try
    assert len(scans) == 1 and "top AS MATERIALIZED" in scans[0], scans
    assert got.used_fallback == ("query" in ask)  # type: ignore[attr-defined]
