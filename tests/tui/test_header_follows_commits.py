"""The header's counts follow every commit by another connection (issue #26): a commit that
lands soon after another reaches the status strip as soon as it is counted, while the panes
still hear of a burst at most every ``TELL_AT_MOST_EVERY`` (services/header_counts.py,
``StoreService.follow_counts``; widgets/header.py)."""

from __future__ import annotations

import asyncio
import time

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.services import header_counts
from memharness_tui.tui.services import store as store_service
from memharness_tui.tui.services.gateway import StoreGateway
from memharness_tui.tui.services.store import StoreService
from memharness_tui.tui.widgets.header import StatusStrip

from .conftest import count_calls, make_app, settle

CLOCK = "2026-03-01T00:00:00.000Z"


def _total(store: Store) -> str:
    return f"{store.counts().total:,} total"


async def test_a_commit_soon_after_another_reaches_the_header_before_the_panes(
        sample, config_dir, monkeypatch) -> None:
    monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 60)  # the panes: not in this test
    store, _info = sample
    app = make_app(store, config_dir, poll_interval=0.05)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        strip = app.screen.query_one(StatusStrip)
        store.remember("agent", "a first fact from an agent")  # after a quiet spell: told
        end = time.monotonic() + 10
        while _total(store) not in (strip._shown or "") and time.monotonic() < end:
            await pilot.pause(0.02)
        assert _total(store) in (strip._shown or "")
        told = app.store_revision
        store.remember("agent", "a second one, at once")  # within the window: not told yet
        end = time.monotonic() + 5
        while _total(store) not in (strip._shown or "") and time.monotonic() < end:
            await pilot.pause(0.02)
        assert _total(store) in (strip._shown or "")
        assert app.store_revision == told  # the panes were not told


def _service(path) -> tuple[StoreService, Store]:  # noqa: ANN001
    agent = Store.open(str(path), clock=FakeClock(CLOCK, 1000))
    for i in range(30):
        agent.remember(f"s{i % 3}", f"fact {i}")
    gateway = StoreGateway(lambda: Store.open(str(path), clock=FakeClock(CLOCK, 1000)))
    return StoreService(gateway), agent


async def _polls(service: StoreService, n: int) -> None:
    for _ in range(n):
        await service.data_version()
        await asyncio.sleep(0.03)


async def test_a_commit_not_told_is_counted_once(tmp_path, monkeypatch) -> None:
    """Counted when it lands, not again at every read of the wal-index nor at every poll
    (at most once more: a count's mark is read before the count runs)."""
    monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 0)
    monkeypatch.setattr(header_counts, "COUNT_AT_MOST_EVERY", 0)
    monkeypatch.setattr(header_counts, "WATCH_EVERY", 0.01)
    calls = count_calls(monkeypatch)
    service, agent = _service(tmp_path / "m.db")
    heard: list[int] = []
    stop = service.follow_counts(lambda c: heard.append(c.total))
    try:
        await service.open()
        await service.data_version()
        agent.remember("s", "one")
        told = await service.data_version()  # told: counted
        monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 60)
        await _polls(service, 4)
        calls.clear()
        agent.remember("s", "two")
        await _polls(service, 10)  # not told; ~30 reads of the wal-index
        assert await service.data_version() == told
        assert heard == [31, 32]
        assert 1 <= len(calls) <= 2
        stop()
        agent.remember("s", "three")
        await _polls(service, 4)
        assert heard == [31, 32]  # stopped
    finally:
        service.close()
        agent.close()


async def test_while_counting_costs_much_a_commit_waits_for_the_tell(tmp_path, monkeypatch) -> None:
    """A count that took long (a full read: a pass rewrote much of the table) is followed by
    the next untold one only after ``COUNT_SHARE`` times its time: here, never."""
    monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 0)
    monkeypatch.setattr(header_counts, "COUNT_SHARE", 1e9)
    service, agent = _service(tmp_path / "m.db")
    heard: list[int] = []
    service.follow_counts(lambda c: heard.append(c.total))
    try:
        await service.open()
        await service.data_version()
        agent.remember("s", "one")
        await service.data_version()  # told: counted
        monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 60)
        await _polls(service, 3)
        agent.remember("s", "two")
        await _polls(service, 6)
        assert heard == [31]
    finally:
        service.close()
        agent.close()


async def test_without_the_poll_a_commit_reaches_the_header(tmp_path, monkeypatch) -> None:
    """The wal-index is read on the event loop: a commit is counted while the poll waits on
    the DB thread (behind a pane's search), here while no poll runs at all."""
    service, agent = _service(tmp_path / "m.db")
    heard: list[int] = []
    service.follow_counts(lambda c: heard.append(c.total))
    try:
        await service.open()
        assert (await service.counts()).total == 30
        await asyncio.sleep(0.2)
        agent.remember("s", "one")
        end = time.monotonic() + 5
        while not heard and time.monotonic() < end:
            await asyncio.sleep(0.02)
        assert heard == [31]
    finally:
        service.close()
        agent.close()


async def test_where_the_log_cannot_be_read_the_poll_counts_a_commit_once(
        tmp_path, monkeypatch) -> None:
    """No wal-index to read (not Linux, no WAL): an untold commit is counted when the poll
    sees it, once — not at every poll until the tell."""
    from memharness_tui.store import wal_pages

    monkeypatch.setattr(wal_pages, "mark_now", lambda path: None)
    monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 0)
    monkeypatch.setattr(header_counts, "COUNT_AT_MOST_EVERY", 0)
    calls = count_calls(monkeypatch)
    service, agent = _service(tmp_path / "m.db")
    heard: list[int] = []
    service.follow_counts(lambda c: heard.append(c.total))
    try:
        await service.open()
        await service.data_version()
        agent.remember("s", "one")
        told = await service.data_version()
        monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 60)
        await _polls(service, 3)
        calls.clear()
        agent.remember("s", "two")
        await _polls(service, 10)
        assert await service.data_version() == told
        assert heard == [31, 32] and len(calls) == 1
    finally:
        service.close()
        agent.close()
