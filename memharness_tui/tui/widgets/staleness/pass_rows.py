"""The flagged list during a writing pass, followed from the pass's own verdicts.

At the pass's start the rows it will judge (its work list) are read once, by id, while the pass
process works; each batch's verdicts then put those rows into the list (stale, unresolved) or
take them out (current) with the verdict's freshness and pin, so no flagged row is read again
while the pass writes, and the list is whole the moment it ends. The store's revision after the
pass then loads the list once as usual (after the header's counts): that load is the check,
and holds what only the store knows (``checked_at``, another writer's changes meanwhile).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memharness_tui.store.types import Fact

if TYPE_CHECKING:
    from memharness_tui.tui.services.passes import Verdict

FLAGGED = ("stale", "unresolved")


def after_verdict(f: Fact, v: Verdict) -> Fact:
    """``f`` as the pass wrote it: the verdict's freshness and HEAD, the pin it adopted
    (``checked_at`` is the store's clock: the load after the pass brings it)."""
    commit, path = f.source_commit, f.source_path
    if v.backfilled:  # as the writer's COALESCE: a path-only backfill keeps the commit
        if not v.path_only and v.commit is not None:
            commit = v.commit
        if v.path is not None:
            path = v.path
    return Fact(f.id, f.subject, f.predicate, f.fact, f.confidence, f.valid_from, f.valid_to,
                f.tx_at, f.superseded_by, f.source_agent, f.source_ref, f.retracted_at,
                f.importance, f.kind, f.last_accessed_at, f.embedding_dim, f.embedding_model,
                commit, path, v.freshness, f.checked_at, v.checked_head, f.score)


class PassRows:
    """The rows a writing pass judges (read at its start) and its verdicts not yet shown."""

    def __init__(self) -> None:
        self.active = False  # a writing pass runs and the list follows it
        self.token = 0  # a read answered for an older pass is dropped
        self.read: dict[int, Fact] | None = None  # None: still being read
        self.pending: list[Verdict] = []

    def start(self) -> int:
        self.token += 1
        self.active, self.read, self.pending = True, None, []
        return self.token

    def stop(self) -> None:
        """The list is loaded from the store again: the pass's rows are not needed."""
        self.token += 1
        self.active, self.read, self.pending = False, None, []

    def took(self, token: int, facts: Sequence[Fact]) -> list[Verdict] | None:
        """The rows read for pass ``token``; the verdicts that waited for them (None: the
        read is out of date)."""
        if token != self.token or not self.active:
            return None
        self.read = {f.id: f for f in facts}
        pending, self.pending = self.pending, []
        return pending

    def changes(self, verdicts: Sequence[Verdict]) -> dict[int, Any]:
        """id → the row as the pass wrote it (None: no longer flagged, or not read)."""
        read = self.read or {}
        out: dict[int, Any] = {}
        for v in verdicts:
            f = read.get(v.fact_id)
            out[v.fact_id] = after_verdict(f, v) if f is not None and v.freshness in FLAGGED \
                else None
        return out
