"""Counts another process read (the pass process, after a pass's last commit) stand in for the
app's own count while the log stands where they were read (issue #26: the header settles as the
pass ends, without the app reading every row again); never once the log has moved on, nor once
a row they saw becomes current or stops being so (``MarkedCounts.until``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace

import pytest

from memharness_tui.store import FakeClock, Store, wal_pages
from memharness_tui.store.types import MarkedCounts
from memharness_tui.tui.services import header_counts
from memharness_tui.tui.services.gateway import StoreGateway
from memharness_tui.tui.services.store import StoreService

from .conftest import count_calls

CLOCK = "2026-03-01T00:00:00.000Z"


@pytest.fixture
def stores(tmp_path) -> Iterator[tuple[StoreService, Store, Store]]:  # noqa: ANN001
    """The app's service, an agent's store (30 facts) and another process's reader, on one
    file (``m.db``); all closed after the test."""
    path = tmp_path / "m.db"
    agent = Store.open(str(path), clock=FakeClock(CLOCK, 1000))
    for i in range(30):
        agent.remember(f"s{i % 3}", f"fact {i}")
    gateway = StoreGateway(lambda: Store.open(str(path), clock=FakeClock(CLOCK, 1000)))
    reader = Store.open(str(path), readonly=True)
    service = StoreService(gateway)
    yield service, agent, reader


def told_totals(service: StoreService) -> list[int]:
    """The totals the service tells the header from now on (it stops with the service)."""
    heard: list[int] = []
    service.follow_counts(lambda c: heard.append(c.total))
    return heard


def test_marked_counts_are_the_counts_with_where_the_log_stands(stores, tmp_path) -> None:
    _service, agent, reader = stores
    marked = reader.marked_counts()
    assert marked is not None
    assert marked.counts == reader.counts() == agent.counts()
    assert marked.mark == wal_pages.mark_now(str(tmp_path / "m.db"))
    agent.remember("s", "one more")
    assert wal_pages.mark_now(str(tmp_path / "m.db")) != marked.mark  # a commit moves it
    again = reader.marked_counts()
    assert again is not None and again.counts.total == marked.counts.total + 1
    memory = Store.open(":memory:")
    try:
        assert memory.marked_counts() is None  # no log to stand anywhere
    finally:
        memory.close()


def test_no_marked_counts_when_a_commit_lands_during_the_read(stores, tmp_path, monkeypatch) -> None:
    from memharness_tui.store.browse import BrowseReads

    _service, agent, reader = stores
    real = BrowseReads.counts

    def committed_meanwhile(self):  # noqa: ANN001, ANN202
        answer = real(self)
        agent.remember("s", "committed while the counts were read")
        return answer

    monkeypatch.setattr(BrowseReads, "counts", committed_meanwhile)
    assert reader.marked_counts() is None  # which commit they stand for is not known


async def test_learned_counts_are_told_and_answered_without_a_read(stores, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(header_counts, "WATCH_EVERY", 60)  # no count of the watch's between
    service, agent, reader = stores
    heard = told_totals(service)
    await service.open()
    assert (await service.counts()).total == 30
    agent.remember("s", "written by the pass, say")
    marked = reader.marked_counts()
    assert marked is not None and marked.counts.total == 31
    calls = count_calls(monkeypatch)
    service.counted_elsewhere(marked)
    assert heard[-1:] == [31]  # told at once
    assert (await service.counts()).total == 31
    assert calls == []  # nobody read the rows again in this process
    # the log moves on: the learned counts are no answer any more
    agent.remember("s", "an agent's commit after the pass")
    assert (await service.counts()).total == 32
    assert calls == [1]


async def test_counts_learned_after_the_log_moved_are_not_told(stores, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(header_counts, "WATCH_EVERY", 60)
    service, agent, reader = stores
    heard = told_totals(service)
    await service.open()
    marked = reader.marked_counts()
    assert marked is not None
    agent.remember("s", "lands before the counts arrive")
    service.counted_elsewhere(marked)
    assert heard == []
    assert (await service.counts()).total == 31


async def test_learned_counts_end_when_a_row_they_saw_changes_currency(stores, tmp_path) -> None:
    service, agent, reader = stores
    await service.open()
    marked = reader.marked_counts()
    assert marked is not None
    past = replace(marked, counts=replace(marked.counts, total=999),
                   until="2000-01-01T00:00:00.000Z")
    service.counted_elsewhere(past)
    assert (await service.counts()).total == 30  # read: the instant they held until passed
    future = replace(past, until="2999-01-01T00:00:00.000Z")
    service.counted_elsewhere(future)
    assert (await service.counts()).total == 999  # the learned answer itself, unread


async def test_a_count_read_before_the_learned_ones_is_not_told_over_them(
        stores, tmp_path, monkeypatch) -> None:
    """A count the app started before the pass's last commit ends after the pass process's
    counts arrived: the header keeps the newer ones."""
    monkeypatch.setattr(header_counts, "WATCH_EVERY", 60)
    service, agent, reader = stores
    heard = told_totals(service)
    await service.open()
    before = wal_pages.mark_now(str(tmp_path / "m.db"))
    older = agent.counts()
    agent.remember("s", "the pass's last batch")
    marked = reader.marked_counts()
    assert marked is not None and before != marked.mark
    counts = service._counts
    counts.learned(marked)
    assert heard == [31]
    late: asyncio.Future = asyncio.get_running_loop().create_future()
    late.set_result(older)
    counts._counted(late, before)  # read at the mark before the pass's last commit
    assert heard == [31]
    same: asyncio.Future = asyncio.get_running_loop().create_future()
    same.set_result(replace(marked.counts))
    counts._counted(same, marked.mark)
    assert heard == [31]  # the same counts: nothing new to tell


async def test_a_count_due_where_the_log_stands_takes_the_learned_counts(
        stores, tmp_path, monkeypatch) -> None:
    service, agent, reader = stores
    await service.open()
    agent.remember("s", "the pass's last batch")
    marked = reader.marked_counts()
    assert isinstance(marked, MarkedCounts)
    service.counted_elsewhere(marked)
    calls = count_calls(monkeypatch)
    monkeypatch.setattr(header_counts, "COUNT_AT_MOST_EVERY", 0)
    service._counts.count()  # the watch saw the pass's last commit
    ahead = service._counts.joinable()
    assert ahead is not None
    assert (await ahead).total == 31
    assert calls == []


def test_while_a_pass_of_ours_writes_its_commits_are_counted_less_often(
        stores, tmp_path, monkeypatch) -> None:
    import time

    monkeypatch.setattr(header_counts, "COUNT_AT_MOST_EVERY", 0.1)
    monkeypatch.setattr(header_counts, "COUNT_WHILE_PASSING", 60)
    service, agent, reader = stores
    counts = service._counts
    counts._at, counts._took = time.monotonic() - 1, 0.0  # the last count: a second ago
    assert counts._may_count()
    service.passing(True)
    assert not counts._may_count()
    service.passing(False)
    assert counts._may_count()
