"""The app's only door to the database: every Store call goes through a ``StoreGateway``.

A Store is single-threaded. In the real app the gateway owns one dedicated thread that opens
its own Store lazily and runs every call there, so slow reads never block the UI and the Store
is only ever touched from one thread. Tests may hand in a ready Store instead; calls then run
inline on the event loop (small stores, deterministic).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

StoreLike = Any  # memharness_tui.store.Store (kept loose so this module imports without it)


@dataclass(frozen=True)
class StoreInfo:
    path: str
    readonly: bool
    schema_version: int


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


class StoreGateway:
    """Runs Store calls either on one owned DB thread (opener given) or inline (ready Store)."""

    def __init__(self, source: StoreLike | Callable[[], StoreLike]) -> None:
        self._owns_store = not hasattr(source, "recall")
        self._store: StoreLike | None = None if self._owns_store else source
        self._opener: Callable[[], StoreLike] | None = source if self._owns_store else None
        self._executor: ThreadPoolExecutor | None = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="memharness-db")
            if self._owns_store
            else None
        )

    def _run(self, fn: Callable[[StoreLike], T]) -> T:
        if self._store is None:
            assert self._opener is not None
            self._store = self._opener()
        return fn(self._store)

    async def call(self, fn: Callable[[StoreLike], T]) -> T:
        """Run ``fn(store)`` where the store lives and return its result (exceptions propagate)."""
        if self._executor is None:
            return self._run(fn)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, fn)

    async def open(self) -> StoreInfo:
        return await self.call(
            lambda s: StoreInfo(path=str(s.path), readonly=bool(s.readonly),
                                schema_version=int(s.schema_version))
        )

    def close(self) -> None:
        """Close a store we opened, on its own thread; a ready store belongs to the caller."""
        if self._executor is None:
            return
        executor, self._executor = self._executor, None

        def _close() -> None:
            if self._store is not None:
                self._store.close()
                self._store = None

        with contextlib.suppress(Exception):  # closing must never crash the exit path
            executor.submit(_close).result(timeout=5)
        executor.shutdown(wait=False, cancel_futures=True)
