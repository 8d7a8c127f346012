"""The header's count through a restarted log (store/wal_pages.py, store/current_ledger.py).

SQLite restarts its write-ahead log after a checkpoint has copied every frame into the file
(an automatic checkpoint does so every ~1,000 pages written): the next commit writes from the
log's start with new salts. What the reader read before the restart is in the file, and what
came after is in the new log — plus, for commits after the reader's mark but before the
restart, what is left of the old log past the mark. The wal-index counts the commits, so a
commit in none of those frames is noticed and every row is read again. Counts stay exact
after every kind of restart, checkpoint, deletion and VACUUM, by this process or another.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store, wal_pages

from . import test_counts_ledger as base
from .test_counts_ledger import ROWS, START, Reads, _plain_counts

pair, small_chunks = base.pair, base.small_chunks  # its fixtures: a writer, a reader, 64-id chunks
_written = base._written  # (pair copies the facts that fixture writes once per process)


def _restart(writer: Store) -> None:
    """A RESTART checkpoint: every frame copied, so the next commit starts the log again."""
    busy, _log, _copied = writer.conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
    assert busy == 0


def _mark(reader: Store) -> wal_pages.WalMark:
    return reader._file.answers["current-ledger"][0].mark


def test_a_restart_after_what_the_reader_read_reads_only_the_new_log(pair, monkeypatch) -> None:
    writer, reader, ids, _ = pair
    writer.forget(fact_id=ids[1])
    assert reader.counts() == _plain_counts(reader)
    mark = _mark(reader)
    reads = Reads(monkeypatch)
    _restart(writer)
    writer.forget(fact_id=ids[2])  # the log starts again here
    assert wal_pages.mark_now(writer.path).salts != mark.salts
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 0 and (ids[2] >> 6) in reads.chunks
    writer.remember("subject:new", "and one more in the new log")
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 0


def test_a_commit_before_the_restart_is_read_from_what_is_left_of_the_old_log(
        pair, monkeypatch) -> None:
    writer, reader, ids, _ = pair
    reads = Reads(monkeypatch)
    mark = _mark(reader)
    writer.forget(fact_id=ids[200])  # after the reader's mark: only in the old log
    _restart(writer)
    writer.remember("subject:new", "the new log's first commit")
    assert wal_pages.mark_now(writer.path).salts != mark.salts
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 0
    assert (ids[200] >> 6) in reads.chunks  # the retraction's leaf, read in the old log


def test_a_commit_the_new_log_wrote_over_is_noticed(pair, monkeypatch) -> None:
    """The new log grows over the frames of a commit the reader never read: that commit is
    in no frame left, the wal-index's commit count says one is missing, every row is read.
    (The commits are updates: the row total cannot tell.)"""
    writer, reader, ids, _ = pair
    _restart(writer)
    writer.forget(fact_id=ids[1])  # a short log: the reader's mark a few frames in
    assert reader.counts() == _plain_counts(reader)
    mark = _mark(reader)
    reads = Reads(monkeypatch)
    writer.forget(fact_id=ids[1450])  # after the mark, before the restart
    lost_to = wal_pages.mark_now(writer.path).frames
    _restart(writer)
    more = iter(ids[20:])
    while True:
        writer.forget(fact_id=next(more))
        now = wal_pages.mark_now(writer.path)
        if now.salts != mark.salts and now.frames > lost_to:
            break
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 1
    writer.remember("subject:new", "read from the log again")
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 1


def test_a_fresh_log_s_first_commit_is_read_from_its_frames(tmp_path: Path, monkeypatch) -> None:
    """The app opened a store whose log was empty (the last connection before it checkpointed
    and deleted it): the first commit starts a log with new salts, and loses nothing."""
    path = str(tmp_path / "m.db")
    clock = FakeClock(START, 1000)
    first = Store.open(path, clock=clock)
    ids = [first.remember(f"subject:{i % 7}", f"fact number {i}")[0] for i in range(ROWS)]
    first.close()  # the last connection: the log is copied into the file and removed
    writer = Store.open(path, clock=clock)
    reader = Store.open(path, readonly=True, clock=clock)
    try:
        assert reader.counts() == _plain_counts(reader)
        mark = _mark(reader)
        assert mark.frames == 0
        reads = Reads(monkeypatch)
        writer.forget(fact_id=ids[3])
        assert wal_pages.mark_now(path).salts != mark.salts
        assert reader.counts() == _plain_counts(reader)
        assert reads.full == 0 and (ids[3] >> 6) in reads.chunks
    finally:
        reader.close()
        writer.close()


def test_a_deletion_before_a_restart_is_never_missed(pair, monkeypatch) -> None:
    writer, reader, ids, _ = pair
    with writer.conn:
        writer.conn.execute("DELETE FROM facts WHERE id BETWEEN ? AND ?", (ids[50], ids[120]))
    _restart(writer)
    writer.remember("subject:new", "after the deletion")
    assert reader.counts() == _plain_counts(reader)


def _another_process(path: str, script: str) -> None:
    """``script`` run by another process on its own connection ``c`` (the standard library's
    SQLite), committed and closed there."""
    code = ("import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA busy_timeout = 5000')\n"
            f"{script}\n"
            "c.close()\n")
    subprocess.run([sys.executable, "-c", code, path], check=True, timeout=60)


UPDATE = "c.execute('UPDATE facts SET retracted_at = \"2026-03-01T00:00:00.000Z\" WHERE id = {id}')"
INSERT = ("c.execute(\"INSERT INTO facts (subject, predicate, fact, tx_at, valid_from) "
          "SELECT subject, predicate, 'from another process', tx_at, valid_from FROM facts "
          "WHERE id = {id}\")")
CHECKPOINT = "assert c.execute('PRAGMA wal_checkpoint({mode})').fetchone()[0] == 0"

OTHER_PROCESS = {
    "checkpoint, then a write": [CHECKPOINT.format(mode="PASSIVE"), UPDATE],
    "restart, then a write": [CHECKPOINT.format(mode="RESTART"), UPDATE],
    "a write, a restart, a write": [UPDATE.replace("{id}", "{id2}"),
                                    CHECKPOINT.format(mode="RESTART"), INSERT],
    "a write, a truncation, a write": [UPDATE.replace("{id}", "{id2}"),
                                       CHECKPOINT.format(mode="TRUNCATE"), UPDATE],
    "a deletion, a restart, a write": ["c.execute('DELETE FROM facts WHERE id = {id2}')",
                                       CHECKPOINT.format(mode="RESTART"), UPDATE],
    "vacuum": ["c.execute('DELETE FROM facts WHERE id BETWEEN {id2} AND {id2} + 40')",
               "c.execute('VACUUM')"],
    "vacuum, a restart, a write": ["c.execute('VACUUM')", CHECKPOINT.format(mode="RESTART"),
                                   INSERT],
}


@pytest.mark.parametrize("kind", list(OTHER_PROCESS))
def test_another_process_s_checkpoints_and_writes_keep_the_count_exact(pair, kind: str) -> None:
    writer, reader, ids, _ = pair
    writer.forget(fact_id=ids[9])
    assert reader.counts() == _plain_counts(reader)
    script = "\n".join(OTHER_PROCESS[kind]).format(id=ids[700], id2=ids[900])
    _another_process(writer.path, script)
    assert reader.counts() == _plain_counts(reader)
    writer.remember("subject:new", "and this process writes after it")
    assert reader.counts() == _plain_counts(reader)


def test_another_process_s_restart_is_read_from_the_log(pair, monkeypatch) -> None:
    writer, reader, ids, _ = pair
    mark = _mark(reader)
    reads = Reads(monkeypatch)
    _another_process(writer.path, "\n".join([UPDATE.replace("{id}", "{id2}"),
                                             CHECKPOINT.format(mode="RESTART"), INSERT])
                     .format(id=ids[700], id2=ids[900]))
    assert wal_pages.mark_now(writer.path).salts != mark.salts
    assert reader.counts() == _plain_counts(reader)
    assert reads.full == 0 and (ids[900] >> 6) in reads.chunks


# ----- the frames themselves, hand-made -------------------------------------------------
SALTS = bytes(range(8))
PAGE = 512


def _frame(page_no: int, commit: int, page: bytes, before: tuple[int, int],
           salts: bytes = SALTS) -> tuple[bytes, tuple[int, int]]:
    head = struct.pack(">II", page_no, commit)
    cksum = wal_pages._checksum(page, False, wal_pages._checksum(head, False, before))
    return head + salts + struct.pack(">II", *cksum) + page, cksum


def _files(tmp_path: Path, frames: list[bytes]) -> tuple[wal_pages.SqliteFiles, list[int]]:
    """A database and a log of ``frames`` (after a 32-byte header), held open here."""
    db = tmp_path / "x.db"
    db.write_bytes(bytes(PAGE))
    (tmp_path / "x.db-wal").write_bytes(bytes(wal_pages.WAL_HEADER) + b"".join(frames))
    fds = [os.open(db, os.O_RDONLY), os.open(str(db) + "-wal", os.O_RDONLY)]
    return wal_pages.SqliteFiles(str(db)), fds


def test_what_is_left_of_the_old_log_ends_at_a_frame_that_does_not_chain(tmp_path) -> None:
    """A frame of the old log's salts whose checksum does not follow from the frame before
    (written over while read, or never part of the log): the frames read stop before it."""
    cksum = (11, 22)  # the mark's frame's
    frames = []
    c = cksum
    for n, page_no in enumerate((2, 3, 4, 5)):
        data, c = _frame(page_no, n % 2, bytes([n + 1]) * PAGE, c)
        frames.append(data)
    torn = bytearray(frames[2])
    torn[wal_pages.FRAME_HEADER + 100] ^= 0xFF  # page 4's image, half rewritten
    frames[2] = bytes(torn)
    mark = wal_pages.WalMark(SALTS, 0, 0, cksum, PAGE, False)
    files, fds = _files(tmp_path, [bytes(wal_pages.FRAME_HEADER + PAGE)] + frames)
    try:
        got = wal_pages._rest_of_log(files, wal_pages.WalMark(SALTS, 1, 0, cksum, PAGE, False))
        assert got == frames[:2]
        assert wal_pages._rest_of_log(files, mark) == []  # no frame to chain from
    finally:
        for fd in fds:
            os.close(fd)


def test_what_is_left_of_the_old_log_ends_at_another_log_s_frame(tmp_path) -> None:
    cksum = (5, 6)
    first, c = _frame(2, 1, b"\x0d" + bytes(PAGE - 1), cksum)
    other, _ = _frame(3, 1, b"\x0d" + bytes(PAGE - 1), c, salts=bytes(8))
    files, fds = _files(tmp_path, [bytes(wal_pages.FRAME_HEADER + PAGE), first, other])
    try:
        got = wal_pages._rest_of_log(files, wal_pages.WalMark(SALTS, 1, 0, cksum, PAGE, False))
        assert got == [first]
    finally:
        for fd in fds:
            os.close(fd)


def test_commits_are_counted_once_each_with_a_sector_s_padding() -> None:
    page_a, page_b = b"\x0d" + bytes(PAGE - 1), b"\x0d\x01" + bytes(PAGE - 2)
    plain, _ = _frame(2, 0, page_a, (0, 0))
    commit, c = _frame(3, 7, page_a, (0, 0))
    pad, _ = _frame(3, 7, page_a, c)  # a copy of the commit frame (its checksum differs)
    other_commit, _ = _frame(3, 7, page_b, c)
    assert wal_pages._commits([]) == 0
    assert wal_pages._commits([plain, plain]) == 0
    assert wal_pages._commits([plain, commit]) == 1
    assert wal_pages._commits([plain, commit, pad, pad]) == 1
    assert wal_pages._commits([commit, other_commit]) == 2
    assert wal_pages._commits([commit, plain, commit]) == 2
