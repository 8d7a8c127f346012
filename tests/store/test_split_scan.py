"""Whole-table scans split by id range (store/split_scan.py) give the unsplit answers."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store, recall, sql
from memharness_tui.store.driver import sqlite3
from memharness_tui.store.split_scan import LAST_ID, SplitScanner, id_ranges

from .test_remembered_reads import START, _check, _plain_counts, _seeded


@pytest.mark.parametrize("top", [0, 1, 2, 7, 1000, 999_983])
@pytest.mark.parametrize("parts", [1, 2, 3, 5])
def test_ranges_cover_every_id_once(top: int, parts: int) -> None:
    ranges = id_ranges(top, parts)
    assert len(ranges) == parts
    assert ranges[0][0] < -(2**62)  # ids below 1 (SQLite allows them) are in the first range
    assert ranges[-1][1] == LAST_ID  # rows appended after the plan are in the last one
    for (_, hi), (lo, _) in zip(ranges, ranges[1:], strict=False):
        assert hi == lo  # (lo, hi] ranges: contiguous, no overlap
    assert all(lo <= hi for lo, hi in ranges)


def _split_reader(path: Path, clock: FakeClock, parts: int) -> Store:
    reader = Store.open(str(path), readonly=True, clock=clock)
    reader.split_scans(parts=parts, split_from=0)
    return reader


@pytest.mark.parametrize("parts", [2, 3])
def test_split_counts_and_subjects_equal_the_plain_scan(tmp_path: Path, parts: int) -> None:
    path = tmp_path / "m.db"
    store, clock, ids = _seeded(path)
    for i in range(40):
        store.remember(f"subject:{i % 5}", f"more facts {i}")
    reader = _split_reader(path, clock, parts)
    _check(reader)
    first = reader.counts()
    store.forget(fact_id=ids[10])  # a row in the first range
    store.revise(ids[0], "zero, revised")
    store.remember("subject:late", "appended after the reader planned nothing")
    _check(reader)
    assert reader.counts().total == first.total + 2
    assert reader.counts().current == first.current  # -1 forgotten, +1 new; a revision nets 0
    reader.close()
    store.close()


def test_a_future_valid_from_in_the_last_range_still_moves_the_count(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store, clock, _ = _seeded(path)
    for i in range(30):
        store.remember("subject:0", f"filler {i}")
    store.remember("subject:0", "true from next week", valid_from="2026-03-08")
    reader = _split_reader(path, clock, 2)
    _check(reader)
    waiting = reader.counts().current
    clock.advance(10 * 24 * 3600 * 1000)
    _check(reader)
    assert reader.counts().current == waiting + 1 == _plain_counts(reader).current
    reader.close()
    store.close()


def test_small_tables_are_scanned_in_one_piece(tmp_path: Path) -> None:
    store, _, _ = _seeded(tmp_path / "m.db")
    conn = store.conn
    scanner = SplitScanner(store._db.connection, store._db.close, parts=2, split_from=1000)
    params = {"now": START}
    top = int(conn.execute(sql.MAX_ID).fetchone()[0])
    whole = scanner.rows(conn, sql.SUBJECT_NOT_CURRENT_IN_RANGE, params, top)
    assert len(whole) == 1
    scanner.split_from = 0
    split = scanner.rows(conn, sql.SUBJECT_NOT_CURRENT_IN_RANGE, params, top)
    assert len(split) == 2 and all(split)
    plain = conn.execute(sql.SUBJECT_NOT_CURRENT, params).fetchall()
    # Each subject's rows are split between the ranges; the sums are the plain counts.
    merged: dict[str, int] = {}
    for part in split:
        for subject, n, _ in part:
            merged[subject] = merged.get(subject, 0) + n
    assert merged == {s: n for s, n, _ in plain}
    scanner.close()
    store.close()


def _fds_on(path: Path) -> int:
    target = str(path.resolve())
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == target:
                n += 1
        except OSError:
            continue
    return n


def test_closing_the_store_closes_the_workers_connections(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store, clock, _ = _seeded(path)
    store.close()
    reader = _split_reader(path, clock, 3)
    reader.counts()
    reader.subjects()
    assert _fds_on(path) >= 2  # the reader's own connection and the workers' (one or two)
    assert any(t.name.startswith("memharness-split-scan") for t in threading.enumerate())
    reader.close()
    assert _fds_on(path) == 0
    assert not any(t.name.startswith("memharness-split-scan") for t in threading.enumerate())


def test_the_worker_waits_while_pause_says_so_and_the_answer_is_unchanged(tmp_path: Path) -> None:
    store, _, _ = _seeded(tmp_path / "m.db")
    for i in range(200):
        store.remember(f"subject:{i % 7}", f"padding fact {i}")
    conn = store.conn
    asked: list[str] = []
    waits = iter([True, True, True])  # a search runs for three checks, then ends

    def pause() -> bool:
        asked.append(threading.current_thread().name)
        return next(waits, False)

    scanner = SplitScanner(store._db.connection, store._db.close, parts=2, split_from=0,
                           pause=pause, check_every=50)
    params = {"now": store._effective_now(store.clock.peek())}
    top = int(conn.execute(sql.MAX_ID).fetchone()[0])
    split = scanner.rows(conn, sql.COUNT_CURRENT_IN_RANGE, params, top)
    assert sum(n for [(n, _)] in split) == _plain_counts(store).current
    assert len(asked) > 3  # the worker asked again after the pause ended, and went on
    assert all(name.startswith("memharness-split-scan") for name in asked)  # only the worker
    scanner.close()
    store.close()


def _varied(path: Path) -> tuple[Store, FakeClock]:
    """Rows of every kind, importance, confidence and freshness, with revisions, forgotten
    rows, a future valid_from, reinforced rows (last_accessed_at) and equal-score ties."""
    clock = FakeClock(START, 3_600_000)
    store = Store.open(str(path), clock=clock)
    kinds = ["semantic", "episodic", "procedural"]
    ids = []
    for i in range(150):
        ids.append(store.remember(
            f"subject:{i % 6}", f"fact number {i} about widgets", kind=kinds[i % 3],
            importance=1 + i % 10, confidence=round(0.3 + (i % 7) / 10, 2))[0])
    tick = clock.now()
    with store.conn:  # the same weights and tx_at (the clock never repeats): ids decide
        store.conn.executemany(
            "INSERT INTO facts (subject, fact, valid_from, tx_at) VALUES (?, ?, ?, ?)",
            [("subject:tie", f"tied fact {i} about widgets", tick, tick) for i in range(10)])
    for i in range(0, 150, 9):
        store.revise(ids[i], f"fact number {i}, revised")
    for i in range(3, 150, 13):
        store.forget(fact_id=ids[i])
    for n, i in enumerate(range(5, 150, 11)):
        store.set_staleness(ids[i], ("stale", "unresolved")[n % 2], START, "a" * 40)
    store.remember("subject:0", "true from next month about widgets", valid_from="2026-12-01")
    store.recall("widgets", limit=5, reinforce=True)
    return store, clock


@pytest.mark.parametrize("parts", [2, 3])
def test_split_recall_equals_the_unsplit_recall(tmp_path: Path, parts: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall, "NARROW_SCAN_ROWS", 0)  # a subject's few rows are split too
    path = tmp_path / "m.db"
    writer, clock = _varied(path)
    writer.close()
    # Each store its own clock, in step: a recall's "now" moves its scores.
    at = clock.peek()
    store = Store.open(str(path), readonly=True, clock=FakeClock(at, 0))
    split = Store.open(str(path), readonly=True, clock=FakeClock(at, 0))
    split.split_scans(parts=parts, split_from=0)
    asks = [
        {"limit": n} for n in (1, 7, 50, 500)
    ] + [
        {"subject": "subject:2", "limit": 20},
        {"subject": "subject:tie", "limit": 3},  # 10 rows tie on score and tx_at
        {"kind": "episodic", "limit": 20},
        {"freshness": "stale", "limit": 20},
        {"as_of": "2026-03-04", "limit": 30},
        {"query": "umber", "limit": 20},  # no FTS token matches: the LIKE fallback
        {"query": "idget", "kind": "procedural", "limit": 40},
        {"query": "zzz-nothing", "limit": 10},
        {"limit": 50, "max_tokens": 120},
    ]
    for ask in asks:
        want = store.recall(**ask)
        got = split.recall(**ask)
        assert got == want, ask
        assert bool(got.facts) == (ask.get("query") != "zzz-nothing"), ask
    assert store.recall("umber").used_fallback and store.recall("idget").used_fallback
    split.close()
    store.close()


def test_an_interrupted_call_stops_the_workers_too(tmp_path: Path) -> None:
    store, _ = _varied(tmp_path / "m.db")
    conn = store.conn
    scanner = SplitScanner(store._db.connection, store._db.close, parts=2, split_from=0,
                           check_every=20)
    params = {"now": store._effective_now(store.clock.peek())}
    top = int(conn.execute(sql.MAX_ID).fetchone()[0])
    assert scanner.rows(conn, sql.COUNT_CURRENT_IN_RANGE, params, top)  # not interrupted
    scanner.interrupted = lambda: True
    with pytest.raises(sqlite3.OperationalError, match="interrupt"):
        scanner.rows(conn, sql.COUNT_CURRENT_IN_RANGE, params, top)
    scanner.interrupted = None
    assert sum(n for [(n, _)] in scanner.rows(conn, sql.COUNT_CURRENT_IN_RANGE, params, top)) \
        == _plain_counts(store).current  # the worker goes on serving after an interrupt
    scanner.close()
    store.close()


@pytest.mark.parametrize("parts", [2, 3])
def test_split_changes_and_flagged_equal_the_unsplit_ones(tmp_path: Path, parts: int) -> None:
    path = tmp_path / "m.db"
    writer, clock = _varied(path)
    writer.close()
    store = Store.open(str(path), readonly=True, clock=clock)
    split = Store.open(str(path), readonly=True, clock=clock)
    split.split_scans(parts=parts, split_from=0)
    for since, subject in [("2026-01-01", None), ("2026-03-04", None), ("2026-03-06T12:00", None),
                           ("2026-01-01", "subject:3"), ("2027-01-01", None)]:
        assert split.diff(since, subject) == store.diff(since, subject), (since, subject)
    assert split.diff("2026-01-01").revised and split.diff("2026-01-01").retracted
    for freshness in (None, "stale", "unresolved"):
        for limit in (None, 0, 1, 3, 500, -1):
            want = store.flagged(freshness=freshness, limit=limit)
            assert split.flagged(freshness=freshness, limit=limit) == want, (freshness, limit)
    assert len(store.flagged()) > 3
    split.close()
    store.close()
