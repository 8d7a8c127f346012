"""A hygiene report as the tab's rows: one ``Flag`` per thing to look at, grouped by kind, with
the ids it names and the fixes that apply to it. No Textual here: plain values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memharness_tui.hygiene import HygieneReport
    from memharness_tui.store.types import Fact

__all__ = ["FIXES", "GROUPS", "Flag", "flags_of"]

#: (kind, group title) in the order the tab lists them.
GROUPS: tuple[tuple[str, str], ...] = (
    ("secrets", "Secrets"),
    ("instructions", "Instructions"),
    ("contradictions", "Contradictions"),
    ("near-duplicate", "Near-duplicates"),
    ("fragmentation", "Fragmented"),
    ("code-map", "Code maps"),
    ("compound", "Compound"),
    ("over-limit", "Over-long"),
    ("chain", "Chain"),
    ("stale", "Stale pins"),
    ("unresolved", "Unresolved"),
)
#: The fixes each kind of flag takes (keys: the tab's bindings).
FIXES: dict[str, tuple[str, ...]] = {
    "secrets": ("purge",),
    "instructions": ("retract",),
    "contradictions": (),
    "near-duplicate": ("merge",),
    "fragmentation": ("refile",),
    "code-map": ("pin", "retract"),
    "compound": ("split",),
    "over-limit": ("split",),
    "chain": (),
    "stale": (),
    "unresolved": (),
}


@dataclass(frozen=True, slots=True)
class Flag:
    """One row of the tab. ``texts``: (id, text) of every fact it names (shown in full below
    the list); ``target``: where a fragment's facts go (the subject with most facts)."""

    key: str
    kind: str
    ids: tuple[int, ...]
    subject: str
    summary: str
    texts: tuple[tuple[int, str], ...] = ()
    similarity: float | None = None
    target: str | None = None

    @property
    def fixes(self) -> tuple[str, ...]:
        return FIXES[self.kind] if self.ids else ()


def _rule(rule: str) -> str:
    return {"semicolon": "semicolon-joined", "several": "several sentences",
            "long": "over 280 characters"}.get(rule, rule)


def flags_of(report: HygieneReport, fragment_facts: Mapping[str, Sequence[Fact]]) -> list[Flag]:
    """Every flag of ``report``, grouped by kind (``GROUPS`` order); ``fragment_facts`` holds
    the current facts of each fragment's subjects (their ids are what a refile moves)."""
    out: list[Flag] = []
    for s in report.secrets:  # grouped by chain (the report's order), with who wrote them
        chain = " ".join(f"#{i}" for i in s.chain)
        rules = ", ".join(f"{sp.rule} {sp.masked}" for sp in s.spans)
        ref = f" ({s.source_ref})" if s.source_ref else ""
        out.append(Flag(f"secret:{s.id}", "secrets", (s.id,), s.subject,
                        f"{rules} · {s.status} · chain {chain} · by "
                        f"{s.source_agent or 'unknown'}{ref}", ((s.id, s.preview),)))
    for ins in report.instructions:
        out.append(Flag(f"instr:{ins.id}:{ins.start}", "instructions", (ins.id,), ins.subject,
                        f"{ins.rule}: {ins.fact[ins.start:ins.end]}", ((ins.id, ins.fact),)))
    for con in report.contradictions:
        out.append(Flag(f"contra:{con.ids[0]}:{con.ids[1]}:{con.topic}", "contradictions",
                        con.ids, con.subject,
                        f"{con.topic}: " + " vs ".join(con.values),
                        tuple(zip(con.ids, con.facts, strict=True))))
    for g in report.duplicates:
        out.append(Flag(f"dup:{g.ids[0]}", "near-duplicate", tuple(g.ids), g.subject,
                        g.facts[g.ids[0]], tuple((i, g.facts[i]) for i in g.ids),
                        similarity=g.max_similarity))
    for fr in report.fragments:
        others = [(s, c) for s, c in fr.subjects if s != fr.canonical]
        moving = [f for s, _ in others for f in fragment_facts.get(s, ())]
        summary = ", ".join(f"{s} ({c})" for s, c in others) + \
            f" → {fr.canonical} ({fr.subjects[0][1]})"
        out.append(Flag(f"frag:{fr.key}", "fragmentation", tuple(f.id for f in moving),
                        fr.canonical, summary, tuple((f.id, f"[{f.subject}] {f.fact}")
                                                     for f in moving), target=fr.canonical))
    for c in report.code_maps:
        out.append(Flag(f"map:{c.id}", "code-map", (c.id,), c.subject,
                        f"{c.length:,} chars: {c.fact}", ((c.id, c.fact),)))
    for kind, items in (("compound", report.compound), ("over-limit", report.over_limit)):
        for f in items:
            why = f"{f.length:,} characters" if kind == "over-limit" else _rule(f.rule)
            out.append(Flag(f"{kind}:{f.id}", kind, (f.id,), f.subject, f"{why}: {f.fact}",
                            ((f.id, f.fact),)))
    for a in report.chains:
        summary = (f"retracted after #{a.related} superseded it"
                   if a.kind == "mid-chain-retraction"
                   else f"live, but descends from retracted #{a.related}")
        out.append(Flag(f"chain:{a.kind}:{a.id}", "chain", (a.id,), a.subject, summary))
    for p in report.pins:
        where = f"{p.source_path}: " if p.source_path else ""
        out.append(Flag(f"{p.freshness}:{p.id}", p.freshness, (p.id,), p.subject,
                        where + p.fact, ((p.id, p.fact),)))
    order = {kind: n for n, (kind, _) in enumerate(GROUPS)}
    return sorted(out, key=lambda f: order.get(f.kind, len(order)))  # stable within a kind
