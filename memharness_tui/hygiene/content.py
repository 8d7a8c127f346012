"""The content detectors — credentials in any version, orders hidden in facts, facts that
contradict each other — run after the main scan's pass (``scan.scan`` calls ``scan_content``).

Credentials are looked for in every row, current, superseded and retracted: a revision rarely
takes back what its predecessor leaked, and the file keeps them all. The other two read the
current beliefs (or those as of ``as_of``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .contradictions import disagreement, slots
from .instructions import find_instructions, unusual_writers
from .secrets import find_secrets, masked_text, maybe_secret
from .types import ContradictionFlag, HygieneReport, InstructionFlag, SecretFlag

if TYPE_CHECKING:
    from memharness_tui.store import Store

__all__ = ["contradiction_flags", "instruction_flags", "scan_content", "secret_flags"]

#: Pairs compared for contradictions per subject at most (facts sharing a value's place).
CONTRADICTION_PAIR_BUDGET = 20_000
# A text that could hold a value (a digit, a capital after the first letter, a weekday).
_MAYBE_VALUE = re.compile(r"\d|.\b[A-Z]|(?i:day)\b")

# A text any instruction rule could match: a key word of one, or a character outside ASCII
# (the hidden-text rules); most facts pass this test only.
_MAYBE_ORDER = re.compile(
    r"(?i:ignore|disregard|forget|override|bypass|abandon|you are now|instruction|henceforth"
    r"|from now on|curl|wget|iwr|invoke-webrequest|iex|send|post|upload|mail|forward|exfil"
    r"|transmit|leak|copy|sync|pipe)|[^\x00-\x7f]")


def _maybe_order(text: str) -> bool:
    return _MAYBE_ORDER.search(text) is not None

#: Characters of a flagged row's masked text kept for the report.
PREVIEW_CHARS = 400


def secret_flags(store: Store, *, as_of: str | None = None) -> list[SecretFlag]:
    """Every row whose text holds a credential, grouped by chain (lowest id of the chain
    first), each with its writer."""
    rows = store.versions_where(maybe_secret, as_of=as_of)
    chains: dict[int, tuple[int, ...]] = {}
    out: list[SecretFlag] = []
    for row in rows:
        spans = find_secrets(row.fact)
        if not spans:
            continue
        chain = chains.get(row.id)
        if chain is None:
            chain = tuple(store.chain_ids(row.id))
            for i in chain:
                chains[i] = chain
        preview = masked_text(row.fact, spans)
        if len(preview) > PREVIEW_CHARS:
            preview = preview[:PREVIEW_CHARS] + "…"
        out.append(SecretFlag(row.id, row.subject, row.status, chain, row.source_agent,
                              row.source_ref, tuple(spans), preview))
    out.sort(key=lambda f: (f.chain[0], f.id))
    return out


def instruction_flags(store: Store, *, as_of: str | None = None) -> list[InstructionFlag]:
    """Current facts that read as orders, and current facts by an unusual writer."""
    strangers = unusual_writers(store.writers())
    out: list[InstructionFlag] = []
    for row in store.versions_where(_maybe_order, as_of=as_of, current_only=True):
        for hit in find_instructions(row.fact):
            out.append(InstructionFlag(row.id, row.subject, hit.rule, hit.start, hit.end,
                                       row.source_agent, row.fact))
    if strangers:
        for row in store.versions_where(lambda _t: True, as_of=as_of, current_only=True):
            if row.source_agent in strangers:
                out.append(InstructionFlag(row.id, row.subject, "unusual-writer", 0,
                                           len(row.fact), row.source_agent, row.fact))
    out.sort(key=lambda f: (f.id, f.start, f.rule))
    return out


def contradiction_flags(store: Store, *, as_of: str | None = None) -> list[ContradictionFlag]:
    """Pairs of current facts of one subject that state different values of one thing."""
    rows = store.versions_where(lambda t: _MAYBE_VALUE.search(t) is not None, as_of=as_of,
                                current_only=True)
    by_subject: dict[str, list[tuple[int, str, frozenset[str]]]] = {}
    for row in rows:
        found, _ = slots(row.fact)
        if found:
            by_subject.setdefault(row.subject, []).append(
                (row.id, row.fact, frozenset(found)))
    out: list[ContradictionFlag] = []
    for subject, facts in by_subject.items():
        by_place: dict[str, list[int]] = {}
        for k, (_, _, places) in enumerate(facts):
            for place in places:
                by_place.setdefault(place, []).append(k)
        seen: set[tuple[int, int]] = set()
        for members in by_place.values():
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    pair = (members[x], members[y])
                    if pair in seen or len(seen) >= CONTRADICTION_PAIR_BUDGET:
                        continue
                    seen.add(pair)
                    (ia, ta, _), (ib, tb, _) = facts[pair[0]], facts[pair[1]]
                    d = disagreement(ta, tb)
                    if d is not None:
                        out.append(ContradictionFlag(subject, d.topic, (ia, ib), (d.a, d.b),
                                                     (ta, tb)))
    out.sort(key=lambda c: (c.ids[0], c.ids[1]))
    return out


def scan_content(store: Store, report: HygieneReport, as_of: str | None) -> None:
    """Add the content detectors' flags to ``report``."""
    report.secrets = secret_flags(store, as_of=as_of)
    report.instructions = instruction_flags(store, as_of=as_of)
    report.contradictions = contradiction_flags(store, as_of=as_of)
