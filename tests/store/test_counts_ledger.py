"""The header's current count after another connection's commit: re-read from the chunks the
WAL shows were written (store/current_ledger.py, store/wal_pages.py), and always exact.

After every kind of write by another connection (a new fact, a supersession, a retraction,
a verdict, a raw update of an old row, a deletion, a row spilling into overflow pages, a
checkpoint that restarts the log) the reader's counts equal a fresh full count; the common
writes are answered by re-reading a few chunks, not every row.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store, current_ledger, sql, wal_pages
from memharness_tui.store.types import StoreCounts

START = "2026-03-01T00:00:00.000Z"
ROWS = 1500


def _plain_counts(store: Store) -> StoreCounts:
    """A full count, as the old query computed it (every row read)."""
    now = store._effective_now(store.clock.peek())
    conn = store.conn
    total = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
    current = conn.execute(sql.STATS_CURRENT, {"now": now}).fetchone()[0]
    pinned, stale, unresolved = conn.execute(sql.COUNT_PINNED).fetchone()
    return StoreCounts(total, current, pinned, stale, unresolved)


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # 64 ids a chunk: ~24 chunks here (a leaf of the FTS index's sizes holds ~340 rowids)
    monkeypatch.setattr(current_ledger, "CHUNK_BITS", 6)


class Reads:
    """Counts which chunks the ledger reads, and whether it read them all."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.chunks: list[int] = []
        self.full = 0
        read, full = current_ledger._read, current_ledger.full

        def counting_read(conn, ks, now):  # noqa: ANN001, ANN202
            self.chunks.extend(ks)
            return read(conn, ks, now)

        def counting_full(*args):  # noqa: ANN002, ANN202
            self.full += 1
            return full(*args)

        monkeypatch.setattr(current_ledger, "_read", counting_read)
        monkeypatch.setattr(current_ledger, "full", counting_full)

    def reset(self) -> None:
        self.chunks.clear()
        self.full = 0


@pytest.fixture(scope="session")
def _written(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[int], str]]:
    """ROWS facts written once per test process (~0.2 s of CPU), the writer kept open so its
    file and its log are as a test's own writer leaves them: each test copies both."""
    path = tmp_path_factory.mktemp("ledger") / "m.db"
    clock = FakeClock(START, 1000)
    writer = Store.open(str(path), clock=clock)
    ids = [writer.remember(f"subject:{i % 7}", f"fact number {i}",
                           source_commit="a" * 40 if i % 5 == 0 else None,
                           source_path="x.py" if i % 5 == 0 else None)[0] for i in range(ROWS)]
    yield path, ids, clock.peek()
    writer.close()


@pytest.fixture
def pair(tmp_path: Path, _written: tuple[Path, list[int], str]):  # noqa: ANN201
    """A writer with ROWS facts (some pinned) and a read-only reader on the same file, the
    reader's counts already taken once (its ledger built)."""
    template, written, now = _written
    path = str(tmp_path / "m.db")
    for suffix in ("", "-wal"):  # the file and the log not yet checkpointed into it
        shutil.copyfile(f"{template}{suffix}", f"{path}{suffix}")
    ids = list(written)
    clock = FakeClock(now, 1000)
    writer = Store.open(path, clock=clock)
    writer.conn.execute("PRAGMA wal_autocheckpoint = 0")  # the log restarts only when a test says
    reader = Store.open(path, readonly=True, clock=clock)
    clock.advance(10_000_000)
    assert reader.counts() == _plain_counts(reader)
    yield writer, reader, ids, clock
    reader.close()
    writer.close()


WRITES: dict[str, Callable[[Store, list[int]], object]] = {
    "remember": lambda w, ids: w.remember("subject:new", "a new fact"),
    "supersede": lambda w, ids: w.revise(ids[100], "fact one hundred, corrected"),
    "retract": lambda w, ids: w.forget(fact_id=ids[200]),
    "forget by ref": lambda w, ids: (w.conn.execute("UPDATE facts SET source_ref = 'r' WHERE id = ?",
                                                    (ids[30],)), w.forget(source_ref="r")),
    "verdict stale": lambda w, ids: w.set_staleness(ids[5], "stale", START, "b" * 40),
    "verdict unresolved": lambda w, ids: w.set_staleness(ids[10], "unresolved", START, "c" * 40),
    "downgrade": lambda w, ids: w.downgrade(ids[15], 0.5, source_agent="test"),
    "raw retraction": lambda w, ids: w.conn.execute(
        "UPDATE facts SET retracted_at = ? WHERE id = ?", (START, ids[300])),
    "raw un-retraction": lambda w, ids: w.conn.execute(
        "UPDATE facts SET retracted_at = NULL WHERE id = ?", (ids[200],)),
    "raw valid_from moved later": lambda w, ids: w.conn.execute(
        "UPDATE facts SET valid_from = '2030-01-01T00:00:00.000Z' WHERE id = ?", (ids[40],)),
}


@pytest.mark.parametrize("kind", list(WRITES))
def test_counts_after_each_kind_of_write_are_a_full_count(pair, kind: str, monkeypatch) -> None:
    writer, reader, ids, _ = pair
    reads = Reads(monkeypatch)
    WRITES[kind](writer, ids)
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 0, "a common write is answered from the chunks it touched"
    assert 0 < len(reads.chunks) <= ROWS // 64 // 2


def test_every_kind_of_write_in_a_row_stays_exact(pair) -> None:
    writer, reader, ids, _ = pair
    first = reader.counts()
    for write in WRITES.values():
        write(writer, ids)
        assert reader.counts() == _plain_counts(reader)
    assert reader.counts() != first


def test_a_new_fact_reads_its_chunk_only(pair, monkeypatch) -> None:
    writer, reader, ids, _ = pair
    reads = Reads(monkeypatch)
    before = reader.counts()
    new_id, _ = writer.remember("subject:new", "one more")
    after = reader.counts()
    assert after.total == before.total + 1 and after.current == before.current + 1
    assert (new_id >> 6) in reads.chunks and reads.full == 0
    # the FTS leaves' rowids are not fact ids: no chunk beyond the table's is read
    assert all(k <= new_id >> 6 for k in reads.chunks)


def test_a_deleted_row_is_never_missed(pair, monkeypatch) -> None:
    """A deletion can leave no trace on any leaf written (a leaf freed whole): the stored rows
    then exceed COUNT(*), and everything is read again."""
    writer, reader, ids, _ = pair
    reads = Reads(monkeypatch)
    with writer.conn:
        writer.conn.execute("DELETE FROM facts WHERE id BETWEEN ? AND ?", (ids[50], ids[120]))
    assert reader.counts() == _plain_counts(reader)
    reads.reset()
    with writer.conn:
        writer.conn.execute("DELETE FROM facts WHERE id = ?", (ids[333],))
    assert reader.counts() == _plain_counts(reader)


def test_missed_deletion_is_caught_by_the_row_total(pair, monkeypatch) -> None:
    """Even when the WAL is made to show no leaf at all, a deletion is seen (COUNT(*))."""
    writer, reader, ids, _ = pair
    real = wal_pages.rowids_since

    def no_leaves(path, mark):  # noqa: ANN001, ANN202
        got = real(path, mark)
        return None if got is None else (got[0], [])

    monkeypatch.setattr(wal_pages, "rowids_since", no_leaves)
    with writer.conn:
        writer.conn.execute("DELETE FROM facts WHERE id = ?", (ids[7],))
    assert reader.counts() == _plain_counts(reader)


def test_a_row_spilling_into_overflow_pages_is_read_in_full(pair, monkeypatch) -> None:
    """Overflow pages carry a row's tail without its rowid: a WAL holding one cannot say
    which rows changed, so every row is read."""
    writer, reader, ids, _ = pair
    reads = Reads(monkeypatch)
    writer.remember("subject:long", "word " * 3000)  # ~15 kB: overflow pages
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 1
    reads.reset()
    long_id = writer.largest_id()
    with writer.conn:  # an old-row update whose only changed bytes may sit in the overflow
        writer.conn.execute("UPDATE facts SET valid_from = '2031-01-01T00:00:00.000Z' "
                            "WHERE id = ?", (long_id,))
    assert reader.counts() == _plain_counts(reader)


def test_a_restarted_log_reads_everything(pair, monkeypatch) -> None:
    writer, reader, ids, _ = pair
    reads = Reads(monkeypatch)
    writer.forget(fact_id=ids[1])
    writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.forget(fact_id=ids[2])  # the log starts again: new salts
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 1


def test_future_rows_and_time_passing(pair, monkeypatch) -> None:
    writer, reader, ids, clock = pair
    writer.remember("subject:0", "true from 2027", valid_from="2027-01-01")
    assert reader.counts() == _plain_counts(reader)
    waiting = reader.counts().current
    clock.advance(400 * 24 * 3600 * 1000)  # past 2027-01-01
    writer.remember("subject:0", "another")
    assert reader.counts() == _plain_counts(reader)
    assert reader.counts().current == waiting + 2


def test_the_writer_s_own_counts_follow_its_writes(pair) -> None:
    writer, _reader, ids, _ = pair
    assert writer.counts() == _plain_counts(writer)
    for write in WRITES.values():
        write(writer, ids)
        assert writer.counts() == _plain_counts(writer)


def test_leaf_rowids_reads_a_table_leaf() -> None:
    """A hand-made table leaf: two cells with rowids 7 and 300 (two-byte varint)."""
    page = bytearray(512)
    page[0] = 0x0D
    page[3:5] = (2).to_bytes(2, "big")
    page[8:10] = (100).to_bytes(2, "big")
    page[10:12] = (200).to_bytes(2, "big")
    page[100:102] = bytes([3, 7])  # payload size 3, rowid 7
    page[200:203] = bytes([3, 0x82, 0x2C])  # payload size 3, rowid 300
    assert wal_pages.leaf_rowids(bytes(page), 2) == [7, 300]
    assert wal_pages.leaf_rowids(bytes(512), 2) is False  # an overflow page
    page[0] = 0x0A
    assert wal_pages.leaf_rowids(bytes(page), 2) is True  # an index page: no rows


@pytest.mark.parametrize("parts", [2, 3])
def test_a_split_reading_of_the_chunks_is_the_same(pair, parts: int) -> None:
    """The first reading runs its chunks a run per core (``SplitScanner.each``)."""
    writer, reader, ids, clock = pair
    split = Store.open(writer.path, readonly=True, clock=clock)
    split.split_scans(parts=parts, split_from=0)
    try:
        assert split.counts() == reader.counts() == _plain_counts(reader)
        ledger = split._file.answers["current-ledger"][0]
        alone = reader._file.answers["current-ledger"][0]
        assert ledger.chunks == alone.chunks and len(ledger.chunks) > parts
        writer.forget(fact_id=ids[3])
        assert split.counts() == _plain_counts(split)
    finally:
        split.close()
