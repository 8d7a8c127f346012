"""The as-of rule at its boundaries, through every path that reads beliefs at an instant T.

The rule (SPEC §6/§7) is defined once, in ``store/sql.py`` (``known_rule``, ``as_of_rule``):
the recall queries and the big-subject walk use its SQL text, ``list_facts`` and
``subjects`` render the same text for Peewee. Each row below sits exactly on (or one
millisecond beside) a boundary, so flipping a ``>`` to ``>=``, or scoping the totals by
``valid_from`` instead of ``tx_at``, changes an answer of every path that reads through it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.render import believed_at

T = "2026-04-01T00:00:00.000Z"
BEFORE = "2026-03-31T23:59:59.999Z"
AFTER = "2026-04-01T00:00:00.001Z"
EARLY = "2026-03-01T00:00:00.000Z"

# id: (fact, valid_from, valid_to, tx_at, superseded_by, retracted_at)
ROWS: dict[int, tuple[str, str, str | None, str, int | None, str | None]] = {
    1: ("boundary learned exactly at T", EARLY, None, T, None, None),
    2: ("boundary valid from exactly T", T, None, EARLY, None, None),
    3: ("boundary ends exactly at T", EARLY, T, EARLY, 4, None),
    4: ("boundary successor from T", T, None, T, None, None),
    5: ("boundary retracted exactly at T", EARLY, None, EARLY, None, T),
    6: ("boundary retracted just after T", EARLY, None, EARLY, None, AFTER),
    7: ("boundary ends just after T", EARLY, AFTER, EARLY, 8, None),
    8: ("boundary successor after T", AFTER, None, AFTER, None, None),
    9: ("boundary learned after T backdated", EARLY, None, AFTER, None, None),
    10: ("boundary learned before T valid after", AFTER, None, BEFORE, None, None),
    11: ("boundary also learned after T backdated", EARLY, None, AFTER, None, None),
}
BELIEVED = {1, 2, 4, 6, 7}  # at T
KNOWN = {1, 2, 3, 4, 5, 6, 7, 10}  # tx_at <= T: a time-travel view's totals
# (by valid_from <= T instead it would be 1-7, 9 and 11: a different count, on purpose)


@pytest.fixture
def store(tmp_path: Path):
    path = tmp_path / "asof.db"
    first = Store.open(str(path), clock=FakeClock(EARLY))
    first.remember("b", "placeholder")  # a fresh file gets its schema on the first write
    first.close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM facts")
        for fid, (text, vf, vt, tx, sup, ret) in sorted(ROWS.items(), reverse=True):
            conn.execute(
                "INSERT INTO facts (id, subject, fact, valid_from, valid_to, tx_at, superseded_by,"
                " retracted_at) VALUES (?, 'b', ?, ?, ?, ?, ?, ?)",
                (fid, text, vf, vt, tx, sup, ret),
            )
    conn.close()
    s = Store.open(str(path), clock=FakeClock("2026-05-01T00:00:00.000Z"))
    try:
        yield s
    finally:
        s.close()


def test_recall_scan_at_t(store: Store) -> None:
    assert set(store.recall("", as_of=T, limit=50).ids) == BELIEVED


def test_recall_fts_at_t(store: Store) -> None:
    res = store.recall("boundary", as_of=T, limit=50)
    assert not res.used_fallback
    assert set(res.ids) == BELIEVED


def test_recall_fallback_at_t(store: Store) -> None:
    res = store.recall("oundar", as_of=T, limit=50)  # no token matches: the LIKE scan
    assert res.used_fallback
    assert set(res.ids) == BELIEVED


def test_list_facts_at_t(store: Store) -> None:
    """The Peewee path, with and without a subject."""
    assert {f.id for f in store.list_facts(as_of=T)} == BELIEVED
    assert {f.id for f in store.list_facts("b", as_of=T, limit=100)} == BELIEVED


def test_list_facts_big_subject_walk_at_t(store: Store) -> None:
    """A dense subject takes the walk down idx_facts_tx (sql.AS_OF_FILTER), not Peewee."""
    limit = len(BELIEVED) + 1
    assert store._newest_of_big_subject("b", T, True, None, 0, limit) is not None
    assert {f.id for f in store.list_facts("b", as_of=T, limit=limit)} == BELIEVED


def test_list_facts_history_at_t(store: Store) -> None:
    """History at T: the rows known by T, the believed ones first."""
    rows = store.list_facts(as_of=T, include_history=True, limit=100)
    assert {f.id for f in rows} == KNOWN
    assert {f.id for f in rows[: len(BELIEVED)]} == BELIEVED


def test_subjects_at_t(store: Store) -> None:
    [summary] = store.subjects(as_of=T)
    assert (summary.subject, summary.current, summary.total) == ("b", len(BELIEVED), len(KNOWN))


def test_render_believed_at_t(store: Store) -> None:
    """The TUI's per-row copy (status labels of a time-travel view) agrees with the store."""
    assert {fid for fid in ROWS if believed_at(store.get(fid), T)} == BELIEVED


def test_one_instant_before_and_after(store: Store) -> None:
    """One millisecond each side of T, the rows on T's boundaries go the other way."""
    cases = {
        BEFORE: ({3, 5, 6, 7}, {2, 3, 5, 6, 7, 10}),  # 3 and 5 still believed; 1 and 4 unknown
        AFTER: ({1, 2, 4, 8, 9, 10, 11}, set(ROWS)),  # 6 and 7 ended at AFTER itself
    }
    for instant, (believed, known) in cases.items():
        assert set(store.recall("", as_of=instant, limit=50).ids) == believed, instant
        assert {f.id for f in store.list_facts(as_of=instant)} == believed, instant
        [summary] = store.subjects(as_of=instant)
        assert (summary.current, summary.total) == (len(believed), len(known)), instant


NOW = T  # the current rule, read at an instant the clock is pinned to


@pytest.fixture
def current_path(tmp_path: Path) -> Path:
    """Row 1: valid since long ago; row 2: from exactly now; row 3: one millisecond later."""
    path = tmp_path / "now.db"
    first = Store.open(str(path), clock=FakeClock(EARLY))
    first.remember("c", "placeholder")
    first.close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM facts")
        for fid, vf in enumerate((EARLY, NOW, AFTER)):
            conn.execute("INSERT INTO facts (id, subject, fact, valid_from, tx_at) "
                         "VALUES (?, 'c', 'current rule', ?, ?)", (fid + 1, vf, EARLY))
    conn.close()
    return path


@pytest.mark.parametrize("path_name", ["recall", "list_facts", "subjects", "counts", "stats"])
def test_current_rule_believes_a_fact_valid_from_exactly_now(current_path: Path,
                                                             path_name: str) -> None:
    """Each read opens afresh: the pinned clock's first reading is exactly NOW."""
    s = Store.open(str(current_path), clock=FakeClock(NOW, 0), trust_clock=True, readonly=True)
    try:
        believed = {
            "recall": lambda: len(s.recall("", limit=10).ids),
            "list_facts": lambda: len(s.list_facts()),
            "subjects": lambda: s.subjects()[0].current,
            "counts": lambda: s.counts().current,
            "stats": lambda: s.stats().current_beliefs,
        }[path_name]()
    finally:
        s.close()
    assert believed == 2  # rows 1 and 2 (from NOW), not row 3 (from one ms later)
