"""counts / subjects / diff / flagged remember their answer per snapshot, and stay exact.

Every answer here is compared with the plain SQL it replaces (a scan of every row), after
each kind of change: our own writes, raw SQL on the store's connection, another
connection's commit, and time passing a future ``valid_from``.
"""

from __future__ import annotations

from pathlib import Path

from memharness_tui.store import FakeClock, Store, sql
from memharness_tui.store.types import RevisedPair, StoreCounts, SubjectSummary

START = "2026-03-01T00:00:00.000Z"


def _plain_counts(store: Store) -> StoreCounts:
    """The header counts as one full scan computes them (the old query)."""
    now = store._effective_now(store.clock.peek())
    conn = store.conn
    total = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
    current = conn.execute(sql.STATS_CURRENT, {"now": now}).fetchone()[0]
    pinned, stale, unresolved = conn.execute(sql.COUNT_PINNED).fetchone()
    return StoreCounts(total, current, pinned, stale, unresolved)


def _plain_subjects(store: Store) -> list[SubjectSummary]:
    now = store._effective_now(store.clock.peek())
    rows = store.conn.execute(
        f"SELECT f.subject, COALESCE(SUM({sql.CURRENT_FILTER}), 0), COUNT(*) FROM facts f "
        "GROUP BY f.subject ORDER BY f.subject", {"now": now})
    return [SubjectSummary(s, int(c), int(n)) for s, c, n in rows]


def _plain_diff(store: Store, since: str,
                subject: str | None = None) -> tuple[list[int], list[tuple[int, int | None]], list[int]]:
    params = {"since": since, "subject": subject}
    conn = store.conn
    learned = [r[0] for r in conn.execute(sql.DIFF_LEARNED, params)]
    revised = [(r[0], r[8]) for r in conn.execute(sql.DIFF_REVISED, params)]
    retracted = [r[0] for r in conn.execute(sql.DIFF_RETRACTED, params)]
    return learned, revised, retracted


def _ids(d) -> tuple[list[int], list[tuple[int, int | None]], list[int]]:  # noqa: ANN001
    def pair(p: RevisedPair) -> tuple[int, int | None]:
        return p.old.id, p.new.id if p.new is not None else None

    return [f.id for f in d.learned], [pair(p) for p in d.revised], [f.id for f in d.retracted]


def _check(store: Store) -> None:
    assert store.counts() == _plain_counts(store)
    assert store.subjects() == _plain_subjects(store)
    assert _ids(store.diff("2026-01-01")) == _plain_diff(store, "2026-01-01T00:00:00.000Z")


def _seeded(path: Path) -> tuple[Store, FakeClock, list[int]]:
    clock = FakeClock(START, 1000)
    store = Store.open(str(path), clock=clock)
    ids = [store.remember(f"subject:{i % 4}", f"fact number {i}")[0] for i in range(12)]
    store.revise(ids[1], "fact number one, corrected")
    store.revise(ids[5], "fact five again", valid_from="2026-02-20")  # backdated: older valid_to
    store.forget(fact_id=ids[2])
    store.set_staleness(ids[3], "stale", START, "a" * 40)
    return store, clock, ids


def test_remembered_answers_follow_our_own_writes(tmp_path: Path) -> None:
    store, _, ids = _seeded(tmp_path / "m.db")
    _check(store)
    _check(store)  # the remembered answer, unchanged
    store.remember("subject:new", "a brand new subject")
    _check(store)
    store.forget(fact_id=ids[7])
    _check(store)
    store.revise(ids[8], "eight, revised")
    _check(store)
    assert store.counts().current == _plain_counts(store).current == 11


def test_raw_sql_on_the_store_connection_is_seen(tmp_path: Path) -> None:
    store, _, ids = _seeded(tmp_path / "m.db")
    before = store.counts()
    with store.conn:
        store.conn.execute("UPDATE facts SET retracted_at = ? WHERE id = ?", (START, ids[9]))
    assert store.counts() == _plain_counts(store)
    assert store.counts().current == before.current - 1
    _check(store)


def test_another_connections_commit_is_seen(tmp_path: Path) -> None:
    store, clock, ids = _seeded(tmp_path / "m.db")
    reader = Store.open(str(tmp_path / "m.db"), readonly=True, clock=clock)
    _check(reader)
    first = reader.counts()
    store.forget(fact_id=ids[10])
    store.remember("subject:other", "written by the other connection")
    _check(reader)
    assert reader.counts().total == first.total + 1
    assert reader.counts().current == first.current  # one retracted, one new
    assert reader.flagged() == store.flagged()
    store.set_staleness(ids[11], "unresolved", START, "b" * 40)
    assert [f.id for f in reader.flagged()] == [ids[3], ids[11]]
    reader.close()


def test_a_future_valid_from_becomes_current_as_time_passes(tmp_path: Path) -> None:
    """No write in between: the remembered count must still move when "now" passes it."""
    store, clock, _ = _seeded(tmp_path / "m.db")
    store.remember("subject:0", "true from next week", valid_from="2026-03-08")
    _check(store)
    waiting = store.counts().current
    clock.advance(3 * 24 * 3600 * 1000)
    _check(store)
    assert store.counts().current == waiting
    clock.advance(7 * 24 * 3600 * 1000)
    _check(store)
    assert store.counts().current == waiting + 1
    assert {s.subject: s.current for s in store.subjects()}["subject:0"] == \
        {s.subject: s.current for s in _plain_subjects(store)}["subject:0"]


def test_a_clock_moved_back_recomputes(tmp_path: Path) -> None:
    """trust_clock (an audit at --now): an earlier "now" must not reuse a later answer."""
    clock = FakeClock(START, 1000)
    store = Store.open(str(tmp_path / "m.db"), clock=clock, trust_clock=True)
    store.remember("s", "from the start")
    store.remember("s", "from tomorrow", valid_from="2026-03-02")
    clock.advance(2 * 24 * 3600 * 1000)
    assert store.counts().current == 2
    clock.advance(-2 * 24 * 3600 * 1000)
    assert store.counts() == _plain_counts(store)
    assert store.counts().current == 1
    assert store.subjects() == _plain_subjects(store)


def test_returned_lists_are_the_callers_own(tmp_path: Path) -> None:
    store, _, _ = _seeded(tmp_path / "m.db")
    store.subjects().clear()
    store.diff("2026-01-01").learned.clear()
    store.flagged().clear()
    assert store.subjects() == _plain_subjects(store)
    assert _ids(store.diff("2026-01-01")) == _plain_diff(store, "2026-01-01T00:00:00.000Z")
    assert len(store.flagged()) == 1


def test_diff_orders_revised_and_retracted_like_sqlite(tmp_path: Path) -> None:
    """Revisions backdated out of id order and retractions at equal times keep SQL's order."""
    store, _, ids = _seeded(tmp_path / "m.db")
    store.revise(ids[9], "nine, backdated further", valid_from="2026-02-10")
    store.revise(ids[10], "ten, backdated between", valid_from="2026-02-15")
    with store.conn:
        store.conn.execute("UPDATE facts SET retracted_at = ? WHERE id IN (?, ?)",
                           ("2026-02-28T00:00:00.000Z", ids[6], ids[4]))
    for since in ("2026-01-01", "2026-02-12", "2026-02-28"):
        want = _plain_diff(store, since + "T00:00:00.000Z")
        assert _ids(store.diff(since)) == want
    # ids[6] was retracted (by hand) before ids[2] (by forget): by time, not by id
    assert _ids(store.diff("2026-01-01", subject="subject:2"))[2] == [ids[6], ids[2]]


def test_without_memory_map_reads_the_same(tmp_path: Path) -> None:
    store, clock, _ = _seeded(tmp_path / "m.db")
    twin = Store.open(str(tmp_path / "m.db"), readonly=True, clock=clock)
    twin.without_memory_map()
    assert twin.conn.execute("PRAGMA mmap_size").fetchone()[0] == 0
    assert twin.counts() == store.counts()
    assert twin.subjects() == store.subjects()
    twin.close()


def _plain_list(store: Store, subject: str, where: str, params: dict, offset: int,
                limit: int) -> list[int]:
    rows = store.conn.execute(
        f"SELECT f.id FROM facts f NOT INDEXED WHERE f.subject = :subject AND {where} "
        "ORDER BY f.tx_at DESC, f.id DESC LIMIT :limit OFFSET :offset",
        {**params, "subject": subject, "limit": limit, "offset": offset})
    return [r[0] for r in rows]


def test_a_big_subjects_newest_rows_are_the_same_rows(tmp_path: Path) -> None:
    """A dense subject is read newest-first along idx_facts_tx; a sparse one as before."""
    clock = FakeClock(START, 1000)
    store = Store.open(str(tmp_path / "m.db"), clock=clock)
    big = [store.remember("big", f"big fact {i}")[0] for i in range(40)]
    store.remember("small", "a lonely fact")
    store.remember("big", "true later", valid_from="2026-04-01")
    store.revise(big[3], "big three, revised")
    store.forget(fact_id=big[7])
    store.set_staleness(big[9], "stale", START, "c" * 40)
    as_of = "2026-03-01T00:00:20.000Z"
    now = store._effective_now(clock.peek())
    for subject in ("big", "small"):
        for offset, limit in ((0, 5), (5, 5), (30, 20), (0, 200)):
            got = [f.id for f in store.list_facts(subject, offset=offset, limit=limit)]
            assert got == _plain_list(store, subject, sql.CURRENT_FILTER, {"now": now},
                                      offset, limit)
            old = [f.id for f in store.list_facts(subject, as_of=as_of, offset=offset, limit=limit)]
            assert old == _plain_list(store, subject, sql.AS_OF_FILTER, {"as_of": as_of},
                                      offset, limit)
        stale = [f.id for f in store.list_facts(subject, freshness="stale", limit=5)]
        assert stale == ([big[9]] if subject == "big" else [])
        unchecked = [f.id for f in store.list_facts(subject, freshness="unchecked", limit=3)]
        assert unchecked == _plain_list(store, subject, f"{sql.CURRENT_FILTER} AND "
                                        "f.freshness IS NULL", {"now": now}, 0, 3)
    assert len(store.list_facts("big", limit=5)) == 5
