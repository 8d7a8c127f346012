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
from .secrets import _SECRET_WORDS, find_secrets, masked_text, maybe_secret
from .types import ContradictionFlag, HygieneReport, InstructionFlag, SecretFlag

if TYPE_CHECKING:
    from memharness_tui.store import Store
    from memharness_tui.store.hygiene_versions import VersionRow

__all__ = ["contradiction_flags", "instruction_flags", "scan_content", "secret_flags"]

#: Characters of a flagged row's masked text kept for the report.
PREVIEW_CHARS = 400
#: Pairs compared for contradictions per subject at most (facts sharing a value's place).
CONTRADICTION_PAIR_BUDGET = 20_000

# A text any instruction rule could match: a key word of one, or a character outside ASCII
# (the hidden-text rules). Substring tests, as for secrets.
_ORDER_WORDS = ("ignore", "disregard", "forget", "override", "bypass", "abandon", "you are now",
                "instruction", "henceforth", "from now on", "curl", "wget", "iwr",
                "invoke-webrequest", "iex", "send", "post", "upload", "mail", "forward",
                "exfil", "transmit", "leak", "copy", "sync", "pipe")
_VALUE_HINT = re.compile(r"[0-9]|\s[A-Z]")


def _maybe_order(text: str) -> bool:
    if not text.isascii():
        return True
    low = text.lower()
    return any(w in low for w in _ORDER_WORDS)


def _maybe_value(text: str) -> bool:
    return _VALUE_HINT.search(text) is not None or "day" in text.lower()


def _interesting(text: str) -> bool:
    return maybe_secret(text) or _maybe_order(text) or _maybe_value(text)


def secret_flags(store: Store, *, as_of: str | None = None,
                 rows: list[VersionRow] | None = None) -> list[SecretFlag]:
    """Every row whose text holds a credential, grouped by chain (lowest id of the chain
    first), each with its writer. ``rows``: the versions already read (``scan_content``)."""
    if rows is None:
        rows = store.versions_where(maybe_secret, as_of=as_of)
    chains: dict[int, tuple[int, ...]] = {}
    out: list[SecretFlag] = []
    for row in rows:
        spans = find_secrets(row.fact)  # maybe_secret first, inside
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


def instruction_flags(store: Store, *, as_of: str | None = None,
                      rows: list[VersionRow] | None = None) -> list[InstructionFlag]:
    """Current facts that read as orders, and current facts by an unusual writer."""
    strangers = unusual_writers(store.writers())
    if rows is None:
        rows = store.versions_where(_maybe_order, as_of=as_of, current_only=True)
    out: list[InstructionFlag] = []
    for row in rows:
        if not row.current or not _maybe_order(row.fact):
            continue
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


def contradiction_flags(store: Store, *, as_of: str | None = None,
                        rows: list[VersionRow] | None = None) -> list[ContradictionFlag]:
    """Pairs of current facts of one subject that state different values of one thing."""
    if rows is None:
        rows = store.versions_where(_maybe_value, as_of=as_of, current_only=True)
    by_subject: dict[str, list[tuple[int, str, frozenset[str]]]] = {}
    for row in rows:
        if not row.current or not _maybe_value(row.fact):
            continue
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
    # one read for all three, tested in SQLite: the words any rule needs, a digit or a capital
    # (values; every token prefix a plugin knows has one or is followed by one), a character
    # outside ASCII (hidden text); each detector tests its rows again before its rules run
    rows = store.versions_matching(
        (*_SECRET_WORDS, *_ORDER_WORDS, "day"), upper_or_wide=True, as_of=as_of)
    report.secrets = secret_flags(store, rows=rows)
    report.instructions = instruction_flags(store, rows=rows)
    report.contradictions = contradiction_flags(store, rows=rows)
