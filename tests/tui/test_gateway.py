"""The DB thread gateway: a superseded read is interrupted, and the thread carries on."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.services import StoreGateway

# Seconds of work: an interrupt ends it at once (without one, the test fails, slowly).
ENDLESS = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000000) "
           "SELECT COUNT(*) FROM n")


def _store(path: Path) -> Store:
    store = Store.open(str(path), clock=FakeClock("2026-03-01", 1000))
    store.remember("s", "a fact")
    return store


def _gateway(tmp_path: Path) -> StoreGateway:
    path = tmp_path / "memory.db"
    _store(path).close()
    return StoreGateway(lambda: Store.open(str(path), clock=FakeClock("2026-03-01", 1000)))


async def _cancel_a_long_read(tmp_path: Path, *, before_statement: bool) -> list[str]:
    """Cancel a read of seconds of work while it runs on the DB thread; return what it raised.

    ``before_statement``: the cancel lands after the call started but before its statement
    began (SQLite drops an interrupt that arrives while no statement runs).
    """
    gateway = _gateway(tmp_path)
    started, go_on = threading.Event(), threading.Event()
    if not before_statement:
        go_on.set()
    outcome: list[str] = []

    def long_read(store: Store) -> int:
        started.set()
        go_on.wait(10)
        try:
            return store.conn.execute(ENDLESS).fetchone()[0]
        except Exception as exc:
            outcome.append(str(exc))
            raise

    try:
        task = asyncio.ensure_future(gateway.call(long_read, interruptible=True))
        while not started.is_set():
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        go_on.set()
        # The next call runs (after the interrupted one ended) and is not itself interrupted.
        assert await gateway.call(lambda s: s.counts().total) == 1
    finally:
        go_on.set()
        gateway.close()
    return outcome


async def test_a_cancelled_interruptible_read_is_interrupted(tmp_path: Path) -> None:
    assert await _cancel_a_long_read(tmp_path, before_statement=False) == ["interrupted"]


async def test_a_read_cancelled_before_its_statement_starts_is_still_interrupted(
        tmp_path: Path) -> None:
    assert await _cancel_a_long_read(tmp_path, before_statement=True) == ["interrupted"]


async def test_a_queued_read_that_is_cancelled_never_runs(tmp_path: Path) -> None:
    gateway = _gateway(tmp_path)
    gate = threading.Event()
    ran: list[str] = []
    try:
        held = asyncio.ensure_future(gateway.call(lambda _s: gate.wait(30)))
        queued = asyncio.ensure_future(
            gateway.call(lambda s: ran.append("queued"), interruptible=True))
        await asyncio.sleep(0)
        queued.cancel()
        # the cancel reaches the executor on the loop's next turns: let it land while the read
        # is still queued (releasing the gate first raced it: 1 failure in a loaded -n 2 run)
        with pytest.raises(asyncio.CancelledError):
            await queued
        gate.set()
        assert await held
        assert await gateway.call(lambda s: s.counts().total) == 1
        assert ran == []
    finally:
        gateway.close()


async def test_scans_run_on_a_read_only_twin_and_never_hold_up_a_search(tmp_path: Path) -> None:
    """While a scan is held on its own thread, a call on the DB thread still runs and returns."""
    gateway = _gateway(tmp_path)
    gate = threading.Event()
    try:
        main = await gateway.call(lambda s: (threading.get_ident(), s.readonly))
        scan = await gateway.call_scan(lambda s: (threading.get_ident(), s.readonly))
        assert main[0] != scan[0]
        assert main[1] is False and scan[1] is True
        assert await gateway.call_scan(
            lambda s: s.conn.execute("PRAGMA mmap_size").fetchone()[0]) == 0
        held = asyncio.ensure_future(gateway.call_scan(lambda _s: gate.wait(30)))
        # the DB thread is free: a write there, then the twin sees it once released
        assert await gateway.call(lambda s: s.remember("s", "another fact")[0]) == 2
        gate.set()
        assert await held
        assert await gateway.call_scan(lambda s: s.counts().total) == 2
    finally:
        gate.set()
        gateway.close()


async def test_a_fresh_store_scans_on_the_db_thread(tmp_path: Path) -> None:
    """A store with no file yet cannot have a read-only twin: its scans share the DB thread."""
    path = tmp_path / "new.db"
    gateway = StoreGateway(lambda: Store.open(str(path), clock=FakeClock("2026-03-01", 1000)))
    try:
        main = await gateway.call(lambda s: threading.get_ident())
        assert await gateway.call_scan(lambda s: (threading.get_ident(), s.counts().total)) == (
            main, 0)
        assert not path.exists()
    finally:
        gateway.close()


async def test_the_same_recall_asked_twice_while_running_runs_once(tmp_path: Path) -> None:
    """The opening search is asked for by the prefetch and again by the pane: one scan."""
    from memharness_tui.tui.services import RecallQuery, StoreService

    gateway = _gateway(tmp_path)
    service = StoreService(gateway)
    gate = threading.Event()
    calls: list[bool] = []
    real_call = gateway.call

    async def counting(fn, *, interruptible: bool = False):  # noqa: ANN001, ANN202
        calls.append(interruptible)
        return await real_call(fn, interruptible=interruptible)

    gateway.call = counting  # type: ignore[method-assign]
    try:
        held = asyncio.ensure_future(real_call(lambda _s: gate.wait(30)))  # DB thread busy
        first = asyncio.ensure_future(service.recalls.recall(RecallQuery()))
        await asyncio.sleep(0)
        second = asyncio.ensure_future(service.recalls.recall(RecallQuery()))
        await asyncio.sleep(0)
        first.cancel()  # a superseded asker leaves; the other still gets the results
        gate.set()
        await held
        result = await second
        assert [f.fact for f in result.facts] == ["a fact"]
        assert calls == [True]
        with pytest.raises(asyncio.CancelledError):
            await first
        # finished: the next ask runs afresh
        await service.recalls.recall(RecallQuery())
        assert calls == [True, True]
    finally:
        gate.set()
        gateway.close()


async def test_a_recall_everybody_left_is_interrupted(tmp_path: Path) -> None:
    from memharness_tui.tui.services import RecallQuery, StoreService

    gateway = _gateway(tmp_path)
    service = StoreService(gateway)
    gate = threading.Event()
    ran: list[str] = []
    try:
        held = asyncio.ensure_future(gateway.call(lambda _s: gate.wait(30)))
        gateway_call = gateway.call

        async def spy(fn, *, interruptible: bool = False):  # noqa: ANN001, ANN202
            return await gateway_call(lambda s: (ran.append("ran"), fn(s))[1],
                                      interruptible=interruptible)

        gateway.call = spy  # type: ignore[method-assign]
        asker = asyncio.ensure_future(service.recalls.recall(RecallQuery(query="a")))
        await asyncio.sleep(0)
        asker.cancel()
        for _ in range(5):
            await asyncio.sleep(0)  # the cancel is deferred two loop turns
        gate.set()
        await held
        assert await gateway_call(lambda s: s.counts().total) == 1
        assert ran == []  # cancelled while queued: it never ran
    finally:
        gate.set()
        gateway.close()


async def test_a_scan_waits_for_the_search_in_flight(tmp_path: Path) -> None:
    gateway = _gateway(tmp_path)
    gate = threading.Event()
    order: list[str] = []
    try:
        await gateway.call_scan(lambda s: None)  # the twin is open
        search = asyncio.ensure_future(gateway.call(
            lambda _s: (gate.wait(30), order.append("search")), interruptible=True))
        await asyncio.sleep(0)
        scan = asyncio.ensure_future(gateway.call_scan(lambda _s: order.append("scan")))
        for _ in range(20):
            await asyncio.sleep(0)
        assert order == []  # the scan thread is idle, yet the scan waits for the search
        gate.set()
        await search
        await scan
        assert order == ["search", "scan"]
    finally:
        gate.set()
        gateway.close()


async def test_the_twins_split_scan_gives_way_while_the_db_thread_works(tmp_path: Path) -> None:
    """The twin splits its table scans across threads; the extra range pauses while a call
    (a search, opening a fact) is on the DB thread: on two cores it would take its core."""
    gateway = _gateway(tmp_path)
    gate, searching = threading.Event(), threading.Event()
    try:
        pause = await gateway.call_scan(lambda s: s._splitter._pause)
        assert pause() is False
        search = asyncio.ensure_future(gateway.call(
            lambda _s: (searching.set(), gate.wait(30)), interruptible=True))
        while not searching.is_set():
            await asyncio.sleep(0)
        assert pause() is True
        gate.set()
        await search
        assert pause() is False
        gate.clear()
        opening = asyncio.ensure_future(gateway.call(lambda _s: (searching.clear(), gate.wait(30))))
        while searching.is_set():
            await asyncio.sleep(0)
        assert pause() is True  # not a search, but the DB thread is busy all the same
        gate.set()
        await opening
        assert pause() is False
    finally:
        gate.set()
        gateway.close()


async def test_a_cancelled_search_reaches_the_split_scans_workers(tmp_path: Path) -> None:
    """The store's split-scan workers stop with a cancelled search: the gateway hands them
    the call's cancel flag for its duration (the caller's connection is interrupted directly)."""
    gateway = _gateway(tmp_path)
    gate, started = threading.Event(), threading.Event()
    seen: list = []

    def search(store: Store) -> None:
        seen.append(store.interrupt_check)
        started.set()
        gate.wait(30)

    try:
        assert await gateway.call(lambda s: s.interrupt_check) is None
        task = asyncio.ensure_future(gateway.call(search, interruptible=True))
        while not started.is_set():
            await asyncio.sleep(0)
        check = seen[0]
        assert check is not None and check() is False
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert check() is True
        gate.set()
        assert await gateway.call(lambda s: s.interrupt_check) is None  # only for its call
    finally:
        gate.set()
        gateway.close()
