"""The staleness writer: the only code that writes ``freshness`` / ``checked_*`` (SPEC §8),
and the reads that give the staleness pass its work (live pinned rows, backfill candidates)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from . import sql
from .driver import sqlite3
from .errors import InvalidInput, NotFound
from .rows import StorePart, _guarded
from .timeutil import normalize_iso
from .types import FRESHNESS_VALUES, StalenessTarget, StalenessUpdate
from .validation import check_id, check_positive_int, check_str


class VerdictWriter(StorePart):
    """``Store``'s staleness side: the pass's work list and its verdict writes."""


    @_guarded(writing=False)
    def staleness_targets(self, limit: int, after_id: int = 0) -> list[StalenessTarget]:
        """Live pinned rows with id > after_id, oldest first (keyset paging: each row once)."""
        limit = check_positive_int(limit, "limit")
        rows = self.conn.execute(sql.STALENESS_TARGETS, {"limit": limit, "after_id": after_id})
        return list(map(StalenessTarget._make, rows))

    @_guarded(writing=False)
    def backfill_candidates(self, limit: int, after_id: int = 0) -> list[StalenessTarget]:
        """Live unpinned rows with a non-empty source_ref (the pass parses them for a pin)."""
        limit = check_positive_int(limit, "limit")
        rows = self.conn.execute(sql.BACKFILL_CANDIDATES, {"limit": limit, "after_id": after_id})
        return list(map(StalenessTarget._make, rows))

    def set_staleness(
        self,
        fact_id: int,
        freshness: str,
        checked_at: str,
        checked_head: str,
        source_commit: str | None = None,
        source_path: str | None = None,
    ) -> None:
        self.set_staleness_many(
            [
                StalenessUpdate(
                    id=fact_id,
                    freshness=freshness,
                    checked_at=checked_at,
                    checked_head=checked_head,
                    source_commit=source_commit,
                    source_path=source_path,
                )
            ]
        )

    @_guarded(writing=True)
    def set_staleness_many(
        self, updates: Sequence[StalenessUpdate | tuple[Any, ...]], *, live_only: bool = False
    ) -> list[int]:
        """Write verdicts in one short transaction. Touches only the source-axis columns.

        With ``live_only`` (the pass), rows that are no longer live — or a backfill
        whose row got pinned meanwhile — are skipped inside the write lock; otherwise
        an unknown id is NotFound. Returns the ids written.
        """
        self._writable()
        # (freshness, checked_at, checked_head, id) for a plain verdict; a row that adopts a
        # pin also carries (source_commit, source_path). Validated once per distinct value.
        # An update may also be a plain tuple of StalenessUpdate's six fields, in order (the
        # pass sends those: no object to build per verdict).
        rows: list[tuple[Any, ...]] = []
        stamps: dict[str, str] = {}
        heads: dict[str, str] = {}
        for u in updates:
            fact_id, freshness, at, head, commit, path = (
                u.id, u.freshness, u.checked_at, u.checked_head, u.source_commit, u.source_path
            ) if isinstance(u, StalenessUpdate) else u
            if freshness not in FRESHNESS_VALUES:
                raise InvalidInput(
                    f"freshness must be one of {', '.join(FRESHNESS_VALUES)}, got {freshness!r}"
                )
            checked_at = stamps.get(at)
            if checked_at is None:
                checked_at = stamps[at] = normalize_iso(at, "checked_at")
            checked_head = heads.get(head) if isinstance(head, str) else None
            if checked_head is None:
                checked_head = heads[head] = check_str(head, "checked_head")
            if type(fact_id) is not int or abs(fact_id) >> 63:  # not an int64: check_id says why
                fact_id = check_id(fact_id)
            if commit is None and path is None:
                rows.append((freshness, checked_at, checked_head, fact_id))
            else:
                rows.append((freshness, checked_at, checked_head, fact_id, commit, path))
        if not rows:
            return []
        with self._write() as conn:
            if live_only:
                return self._write_live_verdicts(conn, rows)
            written: list[int] = []
            for r in rows:
                if not conn.execute(sql.SET_VERDICT_SEQ if len(r) == 4
                                    else sql.SET_STALENESS_SEQ, r).rowcount:
                    raise NotFound(f"no fact #{r[3]}")
                written.append(r[3])
        return written

    @staticmethod
    def _write_live_verdicts(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> list[int]:
        """The pass's batch, inside the write lock, in three statements whatever its size.

        Which ids are still live (and, for a pin adoption, still unpinned) is read once; the
        verdicts then go in as one UPDATE per kind (``sql.SET_VERDICTS_LIVE_JSON``: one FTS5
        segment per batch instead of one per row, and one GIL hand-off instead of hundreds).
        The UPDATEs keep the same guards. Returns the ids written, in batch order.
        """
        ids = json.dumps([r[3] for r in rows])
        found = conn.execute(sql.LIVE_AMONG, (ids,)).fetchone()[0]
        unpinned = {int(k): v for k, v in json.loads(found).items()} if found else {}
        plain: dict[int, tuple[Any, ...]] = {}  # by id: a repeated id keeps its last verdict
        adopt: dict[int, tuple[Any, ...]] = {}
        written: list[int] = []
        for r in rows:
            live = unpinned.get(r[3])
            if live is None:
                continue  # revised, retracted or gone since the work list was read
            if len(r) == 4:
                plain[r[3]] = r
            elif r[4] is not None and not live:
                continue  # a backfill whose row someone else pinned meanwhile: theirs wins
            else:
                adopt[r[3]] = r
            written.append(r[3])
        if plain:
            conn.execute(sql.SET_VERDICTS_LIVE_JSON,
                         (json.dumps(list(plain.values()), ensure_ascii=False),))
        if adopt:
            conn.execute(sql.SET_STALENESS_LIVE_JSON,
                         (json.dumps(list(adopt.values()), ensure_ascii=False),))
        return written
