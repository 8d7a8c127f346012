"""The Hygiene tab's door to the store: the scan, the fragments' facts, and the
fixes (plan, then apply), all through the app's gateway.

The scan is one long read (seconds at a million facts). It runs on a thread of its own with a
**read-only reader** the store itself describes (``Store.twin_opener``: same file, same clock,
asked for on the DB thread), so the DB thread and the scan thread the other panes use are never
held by it. A store that cannot have a second reader (in memory) scans on the gateway's scan
thread instead. Plans are read and applied on the DB thread (the one writer); every applied
plan is reported as a write, so ``store_revision`` moves and every pane refreshes itself.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from memharness_tui.hygiene import Applied, HygieneReport, Plan
    from memharness_tui.hygiene.purge import PurgePlan, PurgeResult
    from memharness_tui.store import Store
    from memharness_tui.store.types import Fact
    from memharness_tui.tui.services.gateway import StoreGateway

__all__ = ["HygieneService", "Progress"]

Progress = Callable[[int, int], None]
"""Told ``(rows read, rows in the table)`` from the scanning thread."""


def _reader_opener(store: Any) -> Callable[[], Any] | None:
    """On the DB thread: how to open a read-only reader of this store (None: it cannot)."""
    twin = getattr(store, "twin_opener", None)
    return twin() if twin is not None else None


def _store(s: object) -> Store:
    """The gateway's store, as the hygiene functions take it (they use the Store's own
    connection and write guard, beyond the UI's StoreProtocol)."""
    return cast("Store", s)


class HygieneService:
    """Scan and fix, by name; ``wrote`` is told after every applied plan."""

    def __init__(self, gateway: StoreGateway, wrote: Callable[[], None]) -> None:
        self._gw = gateway
        self._wrote = wrote

    async def scan(self, as_of: str | None, progress: Progress | None,
                   cancel: threading.Event) -> HygieneReport:
        """Every hygiene flag over the beliefs at ``as_of``; raises ``ScanCancelled`` once
        ``cancel`` is set (at the next few thousand rows). Nothing is written."""
        from memharness_tui.hygiene import scan  # with the tab, not at the app's start

        opener = await self._gw.call(_reader_opener)
        if opener is None:
            return await self._gw.call_scan(
                lambda s: scan(_store(s), as_of=as_of, progress=progress, cancel=cancel))

        def read() -> HygieneReport:
            reader = opener()
            try:
                return scan(reader, as_of=as_of, progress=progress, cancel=cancel)
            finally:
                reader.close()

        return await asyncio.to_thread(read)

    async def facts_of(self, subjects: Sequence[str],
                       as_of: str | None = None) -> dict[str, list[Fact]]:
        """The current facts of each subject (a fragment's rows, to refile them)."""
        def read(s: Any) -> dict[str, list[Fact]]:
            return {sub: list(s.list_facts(sub, as_of=as_of, limit=10_000)) for sub in subjects}

        return await self._gw.call_scan(read)

    # ----- fixes: plan (a preview), then apply (one transaction) -------------------------
    async def plan_merge(self, ids: Sequence[int], text: str) -> Plan:
        from memharness_tui.hygiene import plan_merge

        return await self._gw.call(lambda s: plan_merge(_store(s), ids, text))

    async def plan_refile(self, ids: Sequence[int], subject: str) -> Plan:
        from memharness_tui.hygiene import plan_refile

        return await self._gw.call(lambda s: plan_refile(_store(s), ids, subject))

    async def plan_split(self, fact_id: int, parts: Sequence[str]) -> Plan:
        from memharness_tui.hygiene import plan_split

        return await self._gw.call(lambda s: plan_split(_store(s), fact_id, parts))

    async def plan_pin(self, ids: Sequence[int], commit: str, path: str | None) -> Plan:
        from memharness_tui.hygiene import plan_pin

        return await self._gw.call(lambda s: plan_pin(_store(s), ids, commit, path))

    async def plan_retract(self, ids: Sequence[int]) -> Plan:
        from memharness_tui.hygiene import plan_retract

        return await self._gw.call(lambda s: plan_retract(_store(s), ids))

    async def plan_purge(self, fact_id: int, whole: bool = False) -> PurgePlan:
        """The rows a purge of ``fact_id``'s chain rewrites (masked; nothing written)."""
        from memharness_tui.hygiene.purge import plan_purge

        return await self._gw.call(lambda s: plan_purge(_store(s), fact_id, whole=whole))

    async def apply_purge(self, plan: PurgePlan) -> PurgeResult:
        """Rewrite the plan's rows (one transaction), tidy the file, check its bytes."""
        from memharness_tui.hygiene.purge import apply_purge

        result = await self._gw.call(lambda s: apply_purge(_store(s), plan))
        self._wrote()
        return result

    async def apply(self, plan: Plan) -> Applied:
        """Write ``plan`` in one transaction (nothing, if a fact moved since the preview)."""
        from memharness_tui.hygiene import apply

        applied = await self._gw.call(lambda s: apply(_store(s), plan))
        self._wrote()
        return applied
