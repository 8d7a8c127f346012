"""One scan of the facts table, split by id range across threads.

The header counts and the subjects list read every row (no index holds ``retracted_at``):
~0.15 s of CPU at 1M rows, nearly all of it inside SQLite stepping the scan, during which
Python's sqlite3 releases the GIL. So the same scan split into id ranges, one per core,
each on its own connection, takes about 1/N of the wall time.

Each range is its own autocommit read, so a commit landing between them can mix two
snapshots — as the separate statements of ``Store.counts`` always could. The Store caches
the answer under the snapshot it saw *before* reading, so the next call sees the file moved
and scans again: a mixed answer never outlives the next refresh.

On two cores the extra range competes with a search the user is waiting for, so the
workers give way (sleep) while ``pause()`` says a search is running; the caller's own range
keeps going, as the single scan did.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import sql
from .driver import sqlite3
from .rows import StorePart

#: Tables with fewer rows than this are scanned in one piece (~20 ms: handing work to
#: another thread would only add to it).
SPLIT_FROM_ROWS = 200_000
#: SQLite steps between the workers' checks of ``pause`` (~0.5 ms of scanning).
PAUSE_CHECK_OPS = 50_000
#: The longest a worker waits for searches in one go: a user typing steadily must not
#: starve the header counts.
PAUSE_AT_MOST_S = 0.5
#: The largest rowid SQLite allows: the last range is open-ended, so rows appended after
#: the split was planned are still counted.
LAST_ID = 2**63 - 1


def id_ranges(top_id: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ``(lo, hi]`` ranges covering every id; the last one open-ended."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    edges = [top_id * i // parts for i in range(parts)]
    edges[0] = -LAST_ID - 1
    return [(edges[i], edges[i + 1] if i + 1 < parts else LAST_ID) for i in range(parts)]


class SplitScanner:
    """Runs a ranged query over ``parts`` id ranges: one on the caller's connection, the
    others on worker threads, each with the connection ``connect`` gives on that thread."""

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection],
        release: Callable[[], object],
        *,
        parts: int | None = None,
        split_from: int = SPLIT_FROM_ROWS,
        pause: Callable[[], bool] | None = None,
        check_every: int = PAUSE_CHECK_OPS,
    ) -> None:
        self.parts = parts if parts is not None else min(2, os.cpu_count() or 1)
        self.split_from = split_from
        self._pause = pause
        self._check_every = check_every
        self._connect = connect
        self._release = release
        #: set while a call that may be cancelled runs (the gateway's search): when it says
        #: so, the workers' statements stop as the caller's own is interrupted
        self.interrupted: Callable[[], bool] | None = None
        self._pool: ThreadPoolExecutor | None = None
        if self.parts > 1:
            self._pool = ThreadPoolExecutor(
                max_workers=self.parts - 1, thread_name_prefix="memharness-split-scan")

    def splits(self, top_id: int) -> bool:
        """Whether a table whose largest id is ``top_id`` is scanned in more than one range."""
        return self._pool is not None and top_id >= self.split_from

    def rows(
        self,
        here: sqlite3.Connection,
        query: str,
        params: dict[str, Any],
        top_id: int,
    ) -> Sequence[list[tuple[Any, ...]]]:
        """Each range's rows of ``query`` (which binds ``:lo`` and ``:hi`` as ``id > :lo AND
        id <= :hi``), in range order. Small tables and single-core machines: one range."""
        pool = self._pool
        if pool is None or not self.splits(top_id):
            return [here.execute(query, {**params, "lo": -LAST_ID - 1, "hi": LAST_ID}).fetchall()]
        ranges = id_ranges(top_id, self.parts)
        futures = [pool.submit(self._run, query, {**params, "lo": lo, "hi": hi})
                   for lo, hi in ranges[1:]]
        lo, hi = ranges[0]
        first = here.execute(query, {**params, "lo": lo, "hi": hi}).fetchall()
        return [first, *(f.result() for f in futures)]

    def each(
        self,
        here: sqlite3.Connection,
        query: str,
        params: dict[str, Any],
        ranges: Sequence[tuple[int, int]],
        top_id: int,
    ) -> list[list[tuple[Any, ...]]]:
        """``query``'s one row for each ``(lo, hi)`` of ``ranges`` (bound as ``:lo``/``:hi``),
        in order: the ranges cut into one contiguous run per part, each run on its own
        connection (small tables and single-core machines: all here)."""
        pool = self._pool
        if pool is None or not self.splits(top_id) or len(ranges) < self.parts:
            return [[here.execute(query, {**params, "lo": lo, "hi": hi}).fetchone()
                     for lo, hi in ranges]]
        cuts = [len(ranges) * i // self.parts for i in range(self.parts + 1)]
        runs = [ranges[cuts[i]:cuts[i + 1]] for i in range(self.parts)]
        futures = [pool.submit(self._run_each, query, params, run) for run in runs[1:]]
        first = [here.execute(query, {**params, "lo": lo, "hi": hi}).fetchone()
                 for lo, hi in runs[0]]
        return [first, *(f.result() for f in futures)]

    def _run_each(self, query: str, params: dict[str, Any],
                  ranges: Sequence[tuple[int, int]]) -> list[tuple[Any, ...]]:
        conn = self._connect()
        conn.set_progress_handler(self._check, self._check_every)
        try:
            return [conn.execute(query, {**params, "lo": lo, "hi": hi}).fetchone()
                    for lo, hi in ranges]
        finally:
            conn.set_progress_handler(None, 0)

    def _run(self, query: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        conn = self._connect()
        conn.set_progress_handler(self._check, self._check_every)
        try:
            return conn.execute(query, params).fetchall()
        finally:
            conn.set_progress_handler(None, 0)

    def _check(self) -> int:
        """The workers' progress handler: 1 (stop) once ``interrupted`` says so; else sleep
        while ``pause`` says a user is waiting on the DB thread, and go on (0)."""
        interrupted, pause = self.interrupted, self._pause
        if interrupted is not None and interrupted():
            return 1
        if pause is not None:
            deadline = time.monotonic() + PAUSE_AT_MOST_S
            while pause() and time.monotonic() < deadline:
                time.sleep(0.002)
        return 0

    def close(self) -> None:
        """Close the workers' connections (each on its own thread) and stop the workers."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # One release per worker: the barrier holds each task until all are running, so no
        # worker takes two and every worker's thread-local connection is closed.
        barrier = threading.Barrier(self.parts - 1)

        def release() -> None:
            barrier.wait(timeout=10)
            self._release()

        for f in [pool.submit(release) for _ in range(self.parts - 1)]:
            f.result()
        pool.shutdown(wait=True)


class SplitScans(StorePart):
    """The Store side: which connection scans how (a memory map or not, split or not). The
    scanner lives on the file (``StoreFile.splitter``), which closes it with the file."""

    def without_memory_map(self) -> None:
        """Read this store's file without a memory map (``PRAGMA mmap_size = 0``).

        For a connection that mostly scans (header counts, subjects, changes): a scan of a
        mapped file keeps every page it touched in the process's resident set (up to the
        128 MB map per connection), while unmapped reads go through SQLite's small page
        cache. Scans measured no slower this way; the file is unchanged.
        """
        file = self.file
        file.no_mmap = True
        file.db.map_bytes = 0
        if not file.fresh_pending:
            self.conn.execute("PRAGMA mmap_size = 0")

    def split_scans(self, parts: int | None = None, split_from: int = SPLIT_FROM_ROWS,
                    pause: Callable[[], bool] | None = None) -> None:
        """Run the whole-table scans (header counts, subjects, changes, the empty-query and
        LIKE recalls) as one id range per core, each on its own connection (store/split_scan.py);
        answers are unchanged. ``parts`` defaults to min(2, cores); the extra ranges
        give way while ``pause()`` is true (a search is running)."""
        file = self.file
        if file.splitter is None and file.on_disk:
            file.splitter = SplitScanner(file.db.connection, file.db.close, parts=parts,
                                         split_from=split_from, pause=pause)

    @property
    def interrupt_check(self) -> Callable[[], bool] | None:
        """What the split scans' worker threads ask to know that the call they serve was
        cancelled (the gateway sets it around a search; the caller's own connection is
        interrupted directly)."""
        splitter = self.file.splitter
        return splitter.interrupted if splitter is not None else None

    @interrupt_check.setter
    def interrupt_check(self, check: Callable[[], bool] | None) -> None:
        if self.file.splitter is not None:
            self.file.splitter.interrupted = check

    def split_rows(self, ranged: str, params: dict[str, Any]) -> list[Any] | None:
        """Each id range's rows of ``ranged`` when this store splits its scans and the table is
        big enough; None: scan it whole."""
        splitter = self.file.splitter
        if splitter is None:
            return None
        conn = self.conn
        top = int(conn.execute(sql.MAX_ID).fetchone()[0])
        if not splitter.splits(top):
            return None
        return list(splitter.rows(conn, ranged, params, top))

    def each_chunk(self, query: str, params: dict[str, Any],
                   ranges: Sequence[tuple[int, int]], top_id: int) -> list[list[Any]]:
        """``query``'s one row per id range, split across the cores when this store splits
        its scans (``SplitScanner.each``); lists of rows in ``ranges`` order."""
        splitter = self.file.splitter
        if splitter is None:
            return [[self.conn.execute(query, {**params, "lo": lo, "hi": hi}).fetchone()
                     for lo, hi in ranges]]
        return splitter.each(self.conn, query, params, ranges, top_id)

    def scan_ranges(self, ranged: str, whole: str, params: dict[str, Any]) -> list[Any]:
        """Rows of a whole-table scan, one list per id range (one list when not split)."""
        parts = self.split_rows(ranged, params)
        return parts if parts is not None else [self.conn.execute(whole, params).fetchall()]
