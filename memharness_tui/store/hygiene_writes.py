"""The hygiene fixes' one write (merge, refile, split, pin, retract: ``hygiene/fixes.py`` plans
them): every row in one transaction, nothing written if any fact it touches moved since the
preview. A part of ``Store`` like ``writes.py``.

A touched fact is re-read inside the write lock by the one still-a-belief rule
(``beliefs.belief_in``): a fact an agent retracted or revised since the preview is never
superseded (no live copy of a retracted belief) — the whole fix is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import sql
from .beliefs import NotABelief, belief_in
from .errors import InvalidInput, NotFound
from .rows import StorePart, _guarded
from .writes import write_now


@dataclass(frozen=True, slots=True)
class NewRow:
    """One row a fix inserts; ``verdict`` (freshness, checked_at, checked_head) is copied."""

    subject: str
    predicate: str
    fact: str
    confidence: float
    importance: int
    kind: str
    source_agent: str
    source_ref: str
    source_commit: str | None
    source_path: str | None
    verdict: tuple[str, str | None, str | None] | None = None


@dataclass(frozen=True, slots=True)
class FixWritten:
    """What a fix wrote: the new ids in order, (old, new) supersessions, retractions, tx_at."""

    new_ids: list[int]
    superseded: list[tuple[int, int]]
    retracted: list[int]
    tx_at: str


class HygieneWrites(StorePart):
    """``Store``'s side of the hygiene fixes."""

    @_guarded(writing=True)
    def apply_fix(
        self,
        new: Sequence[NewRow],
        closes: Sequence[tuple[int, int]],
        retracts: Sequence[int],
        expect: Mapping[int, str],
    ) -> FixWritten:
        """Insert ``new``, close each (old id, new row's index) of ``closes``, retract
        ``retracts`` — in one transaction, once every id of ``expect`` is still a belief with
        the tx_at the preview saw (else InvalidInput naming it, nothing written)."""
        self._writable()
        with self._write() as conn:
            tx_at = write_now(conn, self.clock.now(), trust_clock=self.file.trust_clock)
            for fid, seen_tx in expect.items():
                try:
                    f = belief_in(conn, fid)
                except NotABelief as exc:
                    what = "an agent retracted it" if exc.retracted else "it was revised"
                    raise NotABelief(
                        f"fact #{fid} changed since the preview; nothing was written — {what}; "
                        "look again and retry", exc.fact, exc.head) from None
                except NotFound:
                    f = None
                if f is None or f.tx_at != seen_tx:
                    raise InvalidInput(f"fact #{fid} changed since the preview; nothing was "
                                       "written — look again and retry")
            new_ids: list[int] = []
            for n in new:
                new_id = int(conn.execute(sql.INSERT_FACT, {
                    "subject": n.subject, "predicate": n.predicate, "fact": n.fact,
                    "confidence": n.confidence, "importance": n.importance, "kind": n.kind,
                    "valid_from": tx_at, "tx_at": tx_at, "source_agent": n.source_agent,
                    "source_ref": n.source_ref, "source_commit": n.source_commit,
                    "source_path": n.source_path,
                }).lastrowid or 0)
                new_ids.append(new_id)
                if n.verdict is not None:
                    conn.execute(sql.SET_STALENESS, {
                        "id": new_id, "freshness": n.verdict[0], "checked_at": n.verdict[1],
                        "checked_head": n.verdict[2], "source_commit": None,
                        "source_path": None})
            superseded = []
            for old_id, slot in closes:
                conn.execute(sql.SUPERSEDE_FACT, {"ts": tx_at, "new_id": new_ids[slot],
                                                  "old_id": old_id})
                superseded.append((old_id, new_ids[slot]))
            for fid in retracts:
                conn.execute(sql.RETRACT_BY_ID, {"ts": tx_at, "id": fid}).fetchall()
        return FixWritten(new_ids, superseded, list(retracts), tx_at)
