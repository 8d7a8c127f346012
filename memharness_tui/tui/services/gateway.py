"""The DB threads: every Store call the app makes runs on one of them, in order.

A Store is single-threaded. The gateway owns one dedicated thread that opens its own Store
lazily and runs every call there, so slow reads never block the UI and the Store is only ever
touched from one thread. Tests run exactly this model (they hand in an opener, not a Store).

Whole-store reads that scan the table (header counts, the subject list, changes, the flagged
list: up to ~0.5 s each at a million facts) go through :meth:`StoreGateway.call_scan` to a
second, read-only Store on a thread of its own, so a search or opening a fact never queues
behind them. There is still one writer: the scan Store is read-only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from memharness_tui.tui.services.protocol import Interruptible, StoreProtocol

T = TypeVar("T")
PROGRESS_OPS = 100_000
"""SQLite VM steps between two looks at a read's cancel flag: ~2.5 ms of a scan on this
machine class, so a superseded search stops within a fraction of a frame. Each look is a
Python call and needs the GIL, which the UI thread holds while it lays out and paints: at
10,000 steps the opening search (~100 ms of SQLite, ~470 looks) took 2-3x as long in the
app as alone, waiting for the GIL at every look."""

StoreLike = StoreProtocol
"""What the DB thread holds: a Store (``memharness_tui.store.Store``), seen as the protocol."""


@dataclass(frozen=True)
class StoreInfo:
    path: str
    readonly: bool
    schema_version: int
    is_new: bool = False
    """The file was absent or empty when opened: a new, empty store."""


def default_now() -> str:
    """Wall-clock UTC now in the store's canonical form."""
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def should_open_readonly(path: str | None) -> bool:
    """True when an existing file (or its folder, which WAL needs) cannot be written by us."""
    if not path or path == ":memory:":
        return False
    p = Path(path)
    if not p.exists():
        return False
    return not os.access(p, os.W_OK) or not os.access(p.parent, os.W_OK)


def store_opener(path: str | None, readonly: bool) -> Callable[[], StoreProtocol]:
    """How the app opens ``path`` (None: SPEC §1's default) on its DB thread: the one place
    the UI opens a Store."""
    def open_store() -> StoreProtocol:
        from memharness_tui.store import Store

        ro = readonly or should_open_readonly(path)
        return Store.open(path, readonly=ro)

    return open_store


def _connection_of(store: StoreLike) -> Interruptible | None:
    """The store's SQLite connection on this (the DB) thread, or None (a fresh store, a fake)."""
    try:
        conn = store.conn
    except Exception:  # noqa: BLE001 - no connection just means "cannot interrupt"
        return None
    return conn if hasattr(conn, "set_progress_handler") else None


def _scan_opener(store: StoreLike,
                 busy: threading.Event | None = None) -> Callable[[], StoreLike] | None:
    """On the DB thread: how to open a read-only twin of ``store`` for the scanning reads
    (None: it cannot have one — a fresh or in-memory store, a test's stand-in). The Store
    knows how (``Store.twin_opener``); its split scans give way while ``busy`` is set (a
    call runs on the DB thread: a user waits for it)."""
    twin_opener = getattr(store, "twin_opener", None)
    if twin_opener is None:
        return None
    return twin_opener(pause=busy.is_set if busy is not None else None)


def _split_searches(store: StoreLike) -> None:
    """On the DB thread: the empty-query and LIKE-fallback searches of a large store scan
    every row; split them across the cores (store/split_scan.py; small stores: no change)."""
    split = getattr(store, "split_scans", None)
    if split is not None:
        split()


def _resolve(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


class StoreGateway:
    """Runs Store calls on one owned DB thread; the Store is opened there by ``opener``."""

    def __init__(self, opener: Callable[[], StoreLike], *, name: str = "memharness-db") -> None:
        if not callable(opener) or hasattr(opener, "recall"):
            raise TypeError("StoreGateway needs an opener (a zero-argument callable), not a Store")
        self._opener = opener
        self._store: StoreLike | None = None
        self._executor: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=name)
        self._lock = threading.Lock()
        # (ticket, its cancel flag, connection) of the interruptible read running now
        self._running: tuple[object, threading.Event, Interruptible | None] | None = None
        # The read-only scan gateway: None until decided, then a gateway or False (use this one)
        self._scan: StoreGateway | bool | None = None
        self._scan_lock: asyncio.Lock | None = None
        # Set on the DB thread once the store is open (or failed to): how to open its twin.
        self._opened = threading.Event()
        # interruptible reads (searches) in flight, and "none is" (scans wait for it)
        self._searches = 0
        self._no_search = asyncio.Event()
        self._no_search.set()
        # any call in flight on the DB thread (a search, opening a fact, a write): the scan
        # twin's split scans give way while it is set (a user is waiting for it)
        self._calls = 0
        self._busy = threading.Event()
        self._open_waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._twin: Callable[[], StoreLike] | None = None

    def _run(self, fn: Callable[[StoreLike], T], ticket: object | None = None) -> T:
        store = self._store
        if store is None:
            try:
                store = self._store = self._opener()
                self._twin = _scan_opener(store, self._busy)
                _split_searches(store)
            finally:
                with self._lock:
                    self._opened.set()
                    waiters, self._open_waiters = self._open_waiters, []
                for loop, fut in waiters:
                    loop.call_soon_threadsafe(_resolve, fut)
        if ticket is None:
            return fn(store)
        # A progress handler, not only ``conn.interrupt()``: an interrupt that lands before the
        # statement starts is a no-op in SQLite, while the handler sees the flag whenever it is set.
        cancelled = threading.Event()
        conn = _connection_of(store)
        with self._lock:
            self._running = (ticket, cancelled, conn)
        if conn is not None:
            conn.set_progress_handler(cancelled.is_set, PROGRESS_OPS)
        splits = hasattr(store, "interrupt_check")
        if splits:
            store.interrupt_check = cancelled.is_set
        try:
            return fn(store)
        finally:
            if conn is not None:
                conn.set_progress_handler(None, 0)
            if splits:
                store.interrupt_check = None
            with self._lock:
                self._running = None

    def submit(self, fn: Callable[[StoreLike], T], *, interruptible: bool = False
               ) -> tuple[Future[T], object | None]:
        """Queue ``fn(store)`` on the DB thread now — no event loop needed (the CLI sends the
        open and the opening search before the UI framework is even imported). Returns the
        future and, for an interruptible read, its ticket; pass both to :meth:`wait`."""
        if self._executor is None:
            raise RuntimeError("the database connection is closed")
        ticket = object() if interruptible else None
        return self._executor.submit(self._run, fn, ticket), ticket

    async def call(self, fn: Callable[[StoreLike], T], *, interruptible: bool = False) -> T:
        """Run ``fn(store)`` on the DB thread and return its result (exceptions propagate).

        ``interruptible`` (reads only): if the awaiting task is cancelled while ``fn`` runs,
        its SQLite statement is interrupted, so a superseded search stops at once instead of
        holding the DB thread (a short prefix on a large store can take seconds). Still
        queued, it never runs. Only :class:`~memharness_tui.tui.services.store.StoreService`
        calls this.
        """
        return await self.wait(*self.submit(fn, interruptible=interruptible))

    async def wait(self, future: Future[T], ticket: object | None = None) -> T:
        """Await a call made with :meth:`submit`, exactly as :meth:`call` does: cancelled, a
        queued call never runs and an interruptible one (it has a ``ticket``) is interrupted;
        an interruptible read counts as a search in flight while awaited."""
        if ticket is not None:
            self._searches += 1
            self._no_search.clear()
        self._calls += 1
        self._busy.set()
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if ticket is not None:
                self.interrupt(ticket)
            raise
        finally:
            self._calls -= 1
            if not self._calls:
                self._busy.clear()
            if ticket is not None:
                self._searches -= 1
                if not self._searches:
                    self._no_search.set()

    async def call_scan(self, fn: Callable[[StoreLike], T], *, after_searches: bool = True) -> T:
        """Run the read ``fn(store)`` on the scan thread's read-only Store (see the module
        docstring); on this gateway's own thread when the store cannot be shared (a fresh or
        in-memory store, a test's stand-in) or the second connection cannot be opened.
        ``after_searches=False``: a cheap read (an index seek) that need not wait for them."""
        scan = await self._scan_gateway()
        if scan is None:
            return await self.call(fn)
        # Searches first: a scan starts only while no search runs, so on a 2-core machine the
        # two do not split the cores (the opening search at 1M is ~0.7 s of CPU).
        while after_searches and self._searches:
            await self._no_search.wait()
        return await scan.call(fn)

    async def _scan_gateway(self) -> StoreGateway | None:
        if self._scan is None:
            if self._scan_lock is None:
                self._scan_lock = asyncio.Lock()
            async with self._scan_lock:
                if self._scan is None:
                    self._scan = await self._open_scan()
        return self._scan if isinstance(self._scan, StoreGateway) else None

    async def _open_scan(self) -> StoreGateway | bool:
        await self._until_open()
        if self._twin is None or self._executor is None:
            return False
        # Not at a lower CPU priority: the scans are what a user switching tabs waits for
        # (nice +10 on a busy 2-core machine stretched the Staleness tab's 0.2 s to 3 s).
        scan = StoreGateway(self._twin, name="memharness-scan")
        try:
            await scan.call(lambda s: None)  # open it now: a failure means "share the DB thread"
        except Exception:  # noqa: BLE001 - any failure to open a second reader is not fatal
            scan.close()
            return False
        return scan

    async def _until_open(self) -> None:
        """Wait until the DB thread has opened the store — only the open, not the reads
        queued behind it there (the opening search takes ~0.7 s on a million facts)."""
        if self._opened.is_set():
            return
        loop = asyncio.get_running_loop()
        opened: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._opened.is_set():
                return
            self._open_waiters.append((loop, opened))
        opening = asyncio.ensure_future(self.call(lambda s: None))  # opens it if nobody has
        done, _ = await asyncio.wait({opened, opening}, return_when=asyncio.FIRST_COMPLETED)
        if opening in done:
            if opening.cancelled():
                raise RuntimeError("the database connection is closed")
            opening.result()  # the store failed to open: say so, as any call would
        else:
            opening.add_done_callback(lambda f: f.cancelled() or f.exception())

    def interrupt(self, ticket: object) -> None:
        """Interrupt the read ``ticket`` names if it is still the one running (thread-safe:
        the lock keeps the interrupt from landing on the call after it)."""
        with self._lock:
            if self._running is not None and self._running[0] is ticket:
                _, cancelled, conn = self._running
                cancelled.set()
                if conn is not None:
                    conn.interrupt()

    async def reopen(self) -> None:
        """Close the store (and its scan twin) on their threads; the next call opens the path
        again through the opener — after the file there was replaced or deleted."""
        if self._executor is None:
            raise RuntimeError("the database connection is closed")
        scan, self._scan = self._scan, None
        if isinstance(scan, StoreGateway):
            scan.close()  # the read-only twin first: the writer then tidies the old -wal

        def _drop() -> None:
            old, self._store = self._store, None
            self._twin = None
            with self._lock:
                self._opened.clear()
            if old is not None:
                with contextlib.suppress(Exception):
                    old.close()

        await asyncio.wrap_future(self._executor.submit(_drop))

    @property
    def closed(self) -> bool:
        return self._executor is None

    def close(self) -> None:
        """Close the store on its own thread (idempotent; never raises)."""
        if self._executor is None:
            return
        if isinstance(self._scan, StoreGateway):
            self._scan.close()
        executor, self._executor = self._executor, None

        def _close() -> None:
            if self._store is not None:
                self._store.close()
                self._store = None

        with contextlib.suppress(Exception):  # closing must never crash the exit path
            executor.submit(_close).result(timeout=5)
        executor.shutdown(wait=False, cancel_futures=True)
