"""Mutation round 7 (scripts/mutate.py): the cases of the counts ledger the first tests left
open. The boundary of "current" in time: a fact whose ``valid_from`` lies ahead is counted
from that very instant on, also when the ledger answers (store/current_ledger.py)."""

from __future__ import annotations

from memharness_tui.store import wal_pages
from memharness_tui.store.timeutil import parse_ms

from .test_counts_ledger import _plain_counts, _written, pair, small_chunks  # noqa: F401 - fixtures


def test_a_future_fact_counts_from_the_very_instant_it_becomes_true(pair) -> None:  # noqa: F811
    writer, reader, ids, clock = pair
    future_id, _ = writer.remember("subject:0", "true from 2027", valid_from="2027-01-01")
    starts = writer.conn.execute("SELECT valid_from FROM facts WHERE id = ?",
                                 (future_id,)).fetchone()[0]
    before = reader.counts()
    assert before == _plain_counts(reader)
    clock.advance(parse_ms(starts) - parse_ms(clock.peek()) - 1)  # a millisecond before
    assert reader.counts() == _plain_counts(reader) == before
    clock.advance(1)  # the instant it starts: now == valid_from, so it is believed
    assert clock.peek() == starts
    after = reader.counts()
    assert after == _plain_counts(reader)
    assert after.current == before.current + 1


def test_a_restarted_log_longer_than_the_mark_reads_everything(pair) -> None:  # noqa: F811
    """The log restarts (a checkpoint) and grows past the frame the reader last read: its
    first frames are another log's than the mark's, and the commit checkpointed before the
    restart is in none of them. Only the salts tell (the row total cannot: no row was
    added or deleted); every row is read again."""
    writer, reader, ids, _ = pair
    writer.forget(fact_id=ids[1])
    assert reader.counts() == _plain_counts(reader)
    mark = reader._file.answers["current-ledger"][0].mark
    writer.forget(fact_id=ids[1450])  # checkpointed below: in no frame the reader will see
    writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.forget(fact_id=ids[1100])  # the new log's first frames
    more = iter(ids[20:])  # updates, not inserts: the row total stays the same
    while wal_pages.mark_now(writer.path).frames <= mark.frames:  # past the old mark
        writer.forget(fact_id=next(more))
    assert wal_pages.mark_now(writer.path).salts != mark.salts
    assert reader.counts() == _plain_counts(reader)
