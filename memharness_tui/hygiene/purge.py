"""Purge: take credentials out of a fact's whole chain (``EDGE-CASES.md`` E5's follow-the-chain
mode), planned first and written in one transaction by ``Store.purge_rows``.

Every version linked to the fact by supersession (predecessors, successors, a merge's other
members) and every retracted row among them is rewritten in place: by default each secret span
becomes ``[redacted by memharness-tui/purge DATE]``; ``whole`` replaces each row's whole text.
No row is deleted, ids and links stay, so ``why`` on any id still walks the chain. The plan's
rows hold masked text only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memharness_tui.store.errors import InvalidInput
from memharness_tui.store.purge import PurgeOutcome, Rewrite

from .secrets import SecretSpan, find_secrets, mask, masked_text

if TYPE_CHECKING:
    from memharness_tui.store import Store

__all__ = ["PurgePlan", "PurgeRow", "PurgeResult", "apply_purge", "marker", "plan_purge"]


def marker(date: str) -> str:
    return f"[redacted by memharness-tui/purge {date}]"


@dataclass(frozen=True, slots=True)
class PurgeRow:
    """One row the purge changes: its status, the secrets found (masked) and the text after."""

    id: int
    subject: str
    status: str
    spans: tuple[SecretSpan, ...]
    before: str  # masked
    after: str


@dataclass
class PurgePlan:
    fact_id: int
    whole: bool
    chain: list[int]
    rows: list[PurgeRow]
    marker: str
    _rewrites: list[Rewrite] = field(default_factory=list, repr=False)
    _strings: list[str] = field(default_factory=list, repr=False)

    @property
    def ids(self) -> list[int]:
        return [r.id for r in self.rows]

    def confirmation(self) -> str:
        ids = ", ".join(f"#{i}" for i in self.ids)
        how = "replace the whole text of" if self.whole else "redact the credentials in"
        return f"purge: {how} {len(self.rows)} row(s) of #{self.fact_id}'s chain: {ids}"

    def to_dict(self) -> dict[str, object]:
        return {"id": self.fact_id, "whole": self.whole, "chain": self.chain,
                "ids": self.ids,
                "rows": [{"id": r.id, "status": r.status,
                          "spans": [s.to_dict() for s in r.spans], "after": r.after}
                         for r in self.rows]}


@dataclass
class PurgeResult:
    plan: PurgePlan
    outcome: PurgeOutcome
    #: (file, masked secret) for each credential whose bytes are still in a database file
    leftovers: list[tuple[str, str]]


def plan_purge(store: Store, fact_id: int, *, whole: bool = False) -> PurgePlan:
    """What a purge of ``fact_id``'s chain changes. InvalidInput when there is nothing to
    purge (no credential found in the chain, and not ``whole``); NotFound for an unknown id."""
    chain = store.chain_ids(fact_id)
    date = store.clock.peek()[:10]
    mark = marker(date)
    rows: list[PurgeRow] = []
    rewrites: list[Rewrite] = []
    strings: list[str] = []
    for row in store.version_rows(chain):
        spans = find_secrets(row.fact)
        if not spans and not whole:
            continue
        if whole:
            new = mark
        else:
            parts, last = [], 0
            for sp in spans:
                parts += [row.fact[last:sp.start], mark]
                last = sp.end
            new = "".join(parts) + row.fact[last:]
        if new == row.fact:
            continue
        strings += [row.fact[sp.start:sp.end] for sp in spans]
        rows.append(PurgeRow(row.id, row.subject, row.status, tuple(spans),
                             masked_text(row.fact, spans), new))
        rewrites.append(Rewrite(row.id, row.fact, new))
    if not rows:
        raise InvalidInput(
            f"no credential found in the chain of #{fact_id} "
            f"({', '.join(f'#{i}' for i in chain)}); nothing to purge — use --whole to "
            "replace the text anyway")
    return PurgePlan(fact_id, whole, chain, rows, mark, rewrites,
                     list(dict.fromkeys(strings)))


def apply_purge(store: Store, plan: PurgePlan) -> PurgeResult:
    """Write the plan (one transaction), tidy the file and its backups, then read every file of
    the database for the secrets' bytes."""
    outcome = store.purge_rows(plan._rewrites, plan._strings, marker=plan.marker)
    left = [(name, mask(plan._strings[k]))
            for name, k in store.purge_leftovers(plan._strings)]
    return PurgeResult(plan, outcome, left)
