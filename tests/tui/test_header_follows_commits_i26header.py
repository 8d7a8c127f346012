"""The header's counts follow every commit by another connection (issue #26): a commit that
lands soon after another reaches the status strip as soon as it is counted, while the panes
still hear of a burst at most every ``TELL_AT_MOST_EVERY`` (services/store.py,
``follow_counts``; widgets/header.py)."""

from __future__ import annotations

import asyncio
import time

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.services import store as store_service
from memharness_tui.tui.services.gateway import StoreGateway
from memharness_tui.tui.services.store import StoreService
from memharness_tui.tui.widgets.header import StatusStrip

from .conftest import make_app, settle

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
    monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 0)
    monkeypatch.setattr(store_service, "COUNT_AT_MOST_EVERY", 0)
    service, agent = _service(tmp_path / "m.db")
    heard: list[int] = []
    stop = service.follow_counts(lambda c: heard.append(c.total))
    try:
        await service.data_version()
        agent.remember("s", "one")
        told = await service.data_version()  # told: counted
        monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 60)
        await _polls(service, 2)
        agent.remember("s", "two")
        await _polls(service, 8)  # not told: counted once, not at every poll
        assert await service.data_version() == told
        assert heard == [31, 32]
        stop()
        agent.remember("s", "three")
        await _polls(service, 4)
        assert heard == [31, 32]  # stopped
    finally:
        service.close()
        agent.close()


async def test_while_counting_costs_much_a_commit_waits_for_the_tell(tmp_path, monkeypatch) -> None:
    """A count slower than ``CHEAP_COUNT`` (a full read: a pass rewrote much of the table):
    commits not yet told are counted at the tell, as before, not at every poll."""
    monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 0)
    monkeypatch.setattr(store_service, "COUNT_AT_MOST_EVERY", 0)
    monkeypatch.setattr(store_service, "CHEAP_COUNT", -1.0)  # every count is "slow"
    service, agent = _service(tmp_path / "m.db")
    heard: list[int] = []
    service.follow_counts(lambda c: heard.append(c.total))
    try:
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
