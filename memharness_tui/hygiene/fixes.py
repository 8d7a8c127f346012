"""Hygiene fixes as store writes, history kept: plan (a preview of the rows to be written, by
id), then apply (one transaction; nothing written if any row moved since the preview).

Chain shapes (docs/hygiene.md draws them):

- **merge** ``[a, b, c]`` with text T → one new row S (subject of the group, predicate of the
  lowest id ``a``); every member gets ``superseded_by = S`` and ``valid_to`` = S's
  ``valid_from``. ``why(member)`` shows S as its descendant; ``why(S)`` walks ``a``'s chain (the
  reference follows the lowest-id predecessor, ``idx_facts_superseded_by`` order), and S's
  ``source_ref`` names every merged id. ``diff`` lists each member as revised into S.
- **refile** ``a`` into subject X → a revision of ``a`` under X (same text, confidence,
  importance, kind, predicate, source_ref, pin, verdict): E4's "revision whose subject differs".
- **split** ``a`` into parts P1..Pn → P1 revises ``a``; P2..Pn are new facts (same subject,
  predicate, kind, importance) whose ``source_ref`` is ``split of #a``.
- **pin** ``a`` to a commit and path → a revision of ``a`` with the same text and the pin.
- **retract** ``a`` → ``retracted_at`` on ``a`` (the agent's ``forget``).

Every new row's ``source_agent`` is ``memharness-tui/<fix>`` (``store/agents.py``). The write
is the store's (``Store.apply_fix``): it re-checks, inside its transaction, that every touched
fact is still the belief the preview showed (``store/beliefs.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memharness_tui.store import agents
from memharness_tui.store.errors import InvalidInput
from memharness_tui.store.hygiene_writes import NewRow as _New
from memharness_tui.store.types import Fact
from memharness_tui.store.validation import check_id, check_pin, require_text

if TYPE_CHECKING:
    from memharness_tui.store import Store

__all__ = [
    "AGENTS",
    "Applied",
    "Plan",
    "PlannedRow",
    "apply",
    "plan_merge",
    "plan_pin",
    "plan_refile",
    "plan_retract",
    "plan_split",
    "split_parts",
]

#: ``source_agent`` of the rows each fix writes.
AGENTS = agents.HYGIENE


@dataclass(frozen=True, slots=True)
class PlannedRow:
    """One row the fix writes: ``action`` is ``new`` (a row inserted; ``id`` None, ``slot`` its
    place among the new rows, ``supersedes`` the ids it replaces), ``close`` (``id`` gets
    ``superseded_by`` = new row ``slot``) or ``retract`` (``id`` gets ``retracted_at``)."""

    action: str
    id: int | None
    subject: str
    fact: str
    slot: int | None = None
    supersedes: tuple[int, ...] = ()
    source_agent: str = ""
    source_ref: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "id": self.id, "slot": self.slot, "subject": self.subject,
                "fact": self.fact, "supersedes": list(self.supersedes),
                "source_agent": self.source_agent, "source_ref": self.source_ref}


@dataclass
class Plan:
    """What a fix (or several, for bulk) will write; ``rows`` is the preview."""

    fix: str
    new: list[_New] = field(default_factory=list)
    closes: list[tuple[int, int]] = field(default_factory=list)  # (old id, new slot)
    retracts: list[int] = field(default_factory=list)
    expect: dict[int, str] = field(default_factory=dict)  # id -> tx_at seen at planning
    rows: list[PlannedRow] = field(default_factory=list)

    @property
    def touched(self) -> list[int]:
        """Existing ids the plan changes, ascending."""
        return sorted(self.expect)

    def confirmation(self) -> str:
        """One line a person confirms: what happens to which ids."""
        olds = ", ".join(f"#{i}" for i in self.touched)
        n = len(self.new)
        return (f"{self.fix}: {len(self.touched)} fact{'s' if len(self.touched) != 1 else ''} "
                f"({olds}); {n} new row{'s' if n != 1 else ''}")

    def __add__(self, other: Plan) -> Plan:
        """Two plans as one (bulk): one transaction for both."""
        overlap = set(self.expect) & set(other.expect)
        if overlap:
            raise InvalidInput(f"fact #{min(overlap)} appears in two fixes; fix it once")
        base = len(self.new)
        rows = [r if r.slot is None else _shift(r, base) for r in other.rows]
        return Plan(
            fix=self.fix if self.fix == other.fix else "bulk",
            new=self.new + other.new,
            closes=self.closes + [(i, s + base) for i, s in other.closes],
            retracts=self.retracts + other.retracts,
            expect={**self.expect, **other.expect},
            rows=self.rows + rows,
        )


def _shift(r: PlannedRow, base: int) -> PlannedRow:
    return PlannedRow(r.action, r.id, r.subject, r.fact, (r.slot or 0) + base, r.supersedes,
                      r.source_agent, r.source_ref)


@dataclass(frozen=True, slots=True)
class Applied:
    """What was written: the new ids in plan order, (old, new) supersessions, retractions."""

    new_ids: list[int]
    superseded: list[tuple[int, int]]
    retracted: list[int]
    tx_at: str


# --- planning (reads only) -----------------------------------------------------------------


def _live(store: Store, fact_id: object) -> Fact:
    fid = check_id(fact_id, "id")
    f = store.get(fid)
    if f.retracted_at is not None:
        raise InvalidInput(f"fact #{fid} is retracted; only current facts can be fixed")
    if f.superseded_by is not None:
        raise InvalidInput(f"fact #{fid} is already superseded by #{f.superseded_by}; "
                           "fix the head of its chain instead")
    return f


def _unique(ids: Iterable[object]) -> list[object]:
    seen: list[object] = []
    for i in ids:
        if i in seen:
            raise InvalidInput(f"fact #{i} is listed twice")
        seen.append(i)
    return seen


def _verdict(f: Fact) -> tuple[str, str | None, str | None] | None:
    return (f.freshness, f.checked_at, f.checked_head) if f.freshness else None


def plan_merge(store: Store, ids: Sequence[int], text: str) -> Plan:
    """Merge a near-duplicate group into one fact reading ``text`` (a member's, or edited)."""
    members = sorted((_live(store, i) for i in _unique(ids)), key=lambda f: f.id)
    if len(members) < 2:
        raise InvalidInput("a merge needs at least two facts")
    subjects = {f.subject for f in members}
    if len(subjects) > 1:
        raise InvalidInput("a merge joins facts of one subject; refile the others first")
    text = require_text(text, "text")
    keeper = members[0]
    source = next((f for f in members if f.fact == text), None)
    ref = "merge of " + ", ".join(f"#{f.id}" for f in members)
    new = _New(keeper.subject, keeper.predicate, text, max(f.confidence for f in members),
               max(f.importance for f in members), keeper.kind, AGENTS["merge"], ref,
               source.source_commit if source else None,
               source.source_path if source else None)
    plan = Plan("merge", new=[new], closes=[(f.id, 0) for f in members],
                expect={f.id: f.tx_at for f in members})
    plan.rows = [PlannedRow("new", None, keeper.subject, text, 0,
                            tuple(f.id for f in members), new.source_agent, ref)]
    plan.rows += [PlannedRow("close", f.id, f.subject, f.fact, 0) for f in members]
    return plan


def plan_refile(store: Store, ids: Sequence[int], subject: str) -> Plan:
    """Move each fact into ``subject`` as a revision (its chain, pin and verdict kept)."""
    target = require_text(subject, "subject")
    plan = Plan("refile")
    for i in _unique(ids):
        f = _live(store, i)
        if f.subject == target:
            raise InvalidInput(f"fact #{f.id} is already under {target!r}")
        slot = len(plan.new)
        plan.new.append(_New(target, f.predicate, f.fact, f.confidence, f.importance, f.kind,
                             AGENTS["refile"], f.source_ref, f.source_commit, f.source_path,
                             _verdict(f)))
        plan.closes.append((f.id, slot))
        plan.expect[f.id] = f.tx_at
        plan.rows += [PlannedRow("new", None, target, f.fact, slot, (f.id,), AGENTS["refile"],
                                 f.source_ref),
                      PlannedRow("close", f.id, f.subject, f.fact, slot)]
    if not plan.new:
        raise InvalidInput("nothing to refile: give at least one fact id")
    return plan


_SPLIT_AT = re.compile(r"(?<=[.!?])\s+|\s*;\s*")


def split_parts(text: str) -> list[str]:
    """A first cut at a compound fact's assertions: at semicolons and sentence ends. A part
    begun mid-sentence starts with a capital as the fact did (an all-lowercase first word
    only: ``iOS``, ``npm-based`` and the like stay as written)."""
    parts = [p.strip() for p in _SPLIT_AT.split(text) if p.strip()]
    if not text.lstrip()[:1].isupper():
        return parts
    return [_capitalised(p) for p in parts]


def _capitalised(part: str) -> str:
    word = part.split(maxsplit=1)[0]
    if word.isalpha() and word.islower():
        return part[0].upper() + part[1:]
    return part


def plan_split(store: Store, fact_id: int, parts: Sequence[str]) -> Plan:
    """One fact per part: the first revises ``fact_id``, the rest are new (``split of #id``)."""
    f = _live(store, fact_id)
    texts = [require_text(p, "part") for p in parts]
    if len(texts) < 2:
        raise InvalidInput("a split needs at least two parts")
    agent = AGENTS["split"]
    ref = f"split of #{f.id}"
    plan = Plan("split", expect={f.id: f.tx_at})
    for k, t in enumerate(texts):
        plan.new.append(_New(f.subject, f.predicate, t, f.confidence, f.importance, f.kind,
                             agent, f.source_ref if k == 0 else ref, None, None))
        plan.rows.append(PlannedRow("new", None, f.subject, t, k, (f.id,) if k == 0 else (),
                                    agent, plan.new[-1].source_ref))
    plan.closes.append((f.id, 0))
    plan.rows.append(PlannedRow("close", f.id, f.subject, f.fact, 0))
    return plan


def plan_pin(store: Store, ids: Sequence[int], commit: str, path: str | None) -> Plan:
    """Pin each fact to ``commit`` (and ``path``): a revision with the same text and the pin."""
    sha = check_pin(commit, "commit")
    if sha is None:
        raise InvalidInput("commit must be a non-empty string")
    where = check_pin(path, "path")
    plan = Plan("pin")
    for i in _unique(ids):
        f = _live(store, i)
        slot = len(plan.new)
        plan.new.append(_New(f.subject, f.predicate, f.fact, f.confidence, f.importance, f.kind,
                             AGENTS["pin"], f.source_ref, sha, where))
        plan.closes.append((f.id, slot))
        plan.expect[f.id] = f.tx_at
        plan.rows += [PlannedRow("new", None, f.subject, f.fact, slot, (f.id,), AGENTS["pin"],
                                 f.source_ref),
                      PlannedRow("close", f.id, f.subject, f.fact, slot)]
    if not plan.new:
        raise InvalidInput("nothing to pin: give at least one fact id")
    return plan


def plan_retract(store: Store, ids: Sequence[int]) -> Plan:
    """Retract each fact (``retracted_at``; no row is added)."""
    plan = Plan("retract")
    for i in _unique(ids):
        f = _live(store, i)
        plan.retracts.append(f.id)
        plan.expect[f.id] = f.tx_at
        plan.rows.append(PlannedRow("retract", f.id, f.subject, f.fact))
    if not plan.retracts:
        raise InvalidInput("nothing to retract: give at least one fact id")
    return plan


# --- applying (one transaction) ------------------------------------------------------------


def apply(store: Store, plan: Plan) -> Applied:
    """Write ``plan`` in one transaction; refuse (nothing written) if a fact moved meanwhile."""
    done = store.apply_fix(plan.new, plan.closes, plan.retracts, plan.expect)
    return Applied(done.new_ids, done.superseded, done.retracted, done.tx_at)
