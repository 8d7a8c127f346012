"""An agent's write reaching the header (issue #26): the recount starts when the poll sees the
commit, before the panes' searches it sets off; it never waits behind them; and what the
header then shows is a fresh full count, after every kind of write by another connection."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.services import store as store_service
from memharness_tui.tui.services.gateway import StoreGateway
from memharness_tui.tui.services.store import StoreService
from memharness_tui.tui.widgets.header import StatusStrip

from .conftest import make_app, settle

CLOCK = "2026-03-01T00:00:00.000Z"


def _service(path: Path) -> tuple[StoreService, StoreGateway, Store]:
    """A service on ``path`` as the app runs it, and another connection (the agent)."""
    agent = Store.open(str(path), clock=FakeClock(CLOCK, 1000))
    for i in range(30):
        agent.remember(f"s{i % 3}", f"fact {i}")
    gateway = StoreGateway(lambda: Store.open(str(path), clock=FakeClock(CLOCK, 1000)))
    return StoreService(gateway), gateway, agent


async def _hold_a_search(gateway: StoreGateway, gate: threading.Event) -> asyncio.Future[object]:
    """A search running on the DB thread until ``gate`` is set (what a pane's reload sends)."""
    held = asyncio.ensure_future(gateway.call(lambda _s: gate.wait(30), interruptible=True))
    while not gateway._searches:  # counted as a search in flight
        await asyncio.sleep(0.005)
    return held


async def test_the_recount_starts_at_the_commit_and_never_waits_for_a_search(
        tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 0)
    service, gateway, agent = _service(tmp_path / "m.db")
    gate = threading.Event()
    try:
        await service.data_version()
        assert (await service.counts()).total == 30
        agent.remember("s9", "an agent's new fact")
        await service.data_version()  # the poll sees the commit: the recount starts now
        held = await _hold_a_search(gateway, gate)  # then a pane's search, still running
        counts = await asyncio.wait_for(service.counts(), 10)
        assert counts == agent.counts()
        assert await asyncio.wait_for(service.largest_id(), 10) == 31
        assert not held.done()  # both answered while the search held the DB thread
        gate.set()
        await held
    finally:
        gate.set()
        service.close()
        agent.close()


async def test_a_burst_of_commits_is_told_at_most_every_so_often(tmp_path, monkeypatch) -> None:
    """The poll runs every 0.1 s; a pass writing batches still moves the panes twice a second
    at most, and the first commit after a quiet spell is told at once."""
    monkeypatch.setattr(store_service, "TELL_AT_MOST_EVERY", 0.4)
    service, _gateway, agent = _service(tmp_path / "m.db")
    try:
        start = await service.data_version()
        await asyncio.sleep(0.45)
        agent.remember("s", "one")
        first = await service.data_version()
        assert first != start  # after a quiet spell: at once
        agent.remember("s", "two")
        assert await service.data_version() == first  # within the window: not yet
        await asyncio.sleep(0.45)
        assert await service.data_version() != first  # told at the next poll due
    finally:
        service.close()
        agent.close()


WRITES: dict[str, Callable[[Store, int], object]] = {
    "insert": lambda s, fid: s.remember("agent", "written by an agent"),
    "supersede": lambda s, fid: s.revise(fid, "revised by an agent"),
    "retract": lambda s, fid: s.forget(fact_id=fid),
    "forget by ref": lambda s, fid: s.forget(source_ref="session-9"),
    "verdict": lambda s, fid: s.set_staleness(fid, "stale", "2026-03-25T10:00:00.000Z", "d" * 40),
}


def _shown(counts: object) -> str:
    c = counts
    return (f"{c.total:,} total  {c.current:,} live  {c.pinned:,} pinned  "  # type: ignore[attr-defined]
            f"{c.stale:,} stale  {c.unresolved:,} unresolved")  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", list(WRITES))
async def test_the_header_after_each_kind_of_write_is_a_fresh_full_count(
        sample, config_dir, kind: str) -> None:
    store, info = sample
    app = make_app(store, config_dir, poll_interval=0.05)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        strip = app.screen.query_one(StatusStrip)
        assert _shown(store.counts()) in (strip._shown or "")
        WRITES[kind](store, info.current_pin)  # another connection than the app's
        fresh = Store.open(str(info.path), readonly=True, clock=store.clock)
        want = _shown(fresh.counts())
        fresh.close()
        end = time.monotonic() + 10
        while want not in (strip._shown or "") and time.monotonic() < end:
            await pilot.pause(0.02)
        assert want in (strip._shown or "")
