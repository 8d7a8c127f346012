"""The text the agent reads (SPEC §9), byte-compatible with the reference's format.ts."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from .types import DiffResult, Fact, RecallResult, StatsResult, WhyResult

DRIFT_NOTE = (
    "(some pinned facts may have drifted — run memharness-staleness, "
    "or re-verify against current code)"
)


def to_fixed(value: float, digits: int = 2) -> str:
    """JavaScript's Number.prototype.toFixed: round half up on the exact binary value."""
    q = Decimal(1).scaleb(-digits)
    return str(Decimal(value).quantize(q, rounding=ROUND_HALF_UP))


def fmt_fact(f: Fact, show_time: bool = False) -> str:
    parts = [f"[#{f.id}] {f.subject}"]
    if f.predicate:
        parts.append(f"({f.predicate})")
    parts.append(f": {f.fact}")
    meta = [f"conf={to_fixed(f.confidence)}", f"src={f.source_agent or 'unknown'}"]
    if f.source_ref:
        meta.append(f"ref={f.source_ref}")
    if f.source_commit:
        meta.append("pin=" + (f"{f.source_path}@" if f.source_path else "") + f.source_commit[:7])
    if f.freshness == "stale":
        meta.append("STALE")
    elif f.freshness == "unresolved":
        meta.append("stale?")
    if f.importance != 5:
        meta.append(f"imp={f.importance}")
    if f.kind != "semantic":
        meta.append(f"kind={f.kind}")
    if show_time:
        meta.append(f"valid {f.valid_from[:10]} → {f.valid_to[:10] if f.valid_to else 'now'}")
        meta.append(f"learned {f.tx_at[:10]}")
    if f.superseded_by is not None:
        meta.append(f"superseded_by=#{f.superseded_by}")
    if f.retracted_at is not None:
        meta.append("RETRACTED")
    return f"{' '.join(parts)}  {{{', '.join(meta)}}}"


def fmt_recall(r: RecallResult) -> str:
    if not r.facts:
        return "No matching memories." + (f" (as of {r.as_of})" if r.as_of else "")
    header = f"Beliefs as of {r.as_of}:" if r.as_of else "Current beliefs:"
    lines = [fmt_fact(f, r.as_of is not None) for f in r.facts]
    notes = []
    if r.truncated:
        notes.append("(truncated to fit the token budget)")
    if any(f.freshness in ("stale", "unresolved") for f in r.facts):
        notes.append(DRIFT_NOTE)
    return "\n".join([header, *lines, *notes])


def fmt_diff(d: DiffResult) -> str:
    out = [f"Memory changes since {d.since}:", f"\nLEARNED ({len(d.learned)}):"]
    out.extend([f"  {fmt_fact(f)}" for f in d.learned] or ["  (none)"])
    out.append(f"\nREVISED ({len(d.revised)}):")
    for pair in d.revised:
        out.append(f"  was: {fmt_fact(pair.old)}")
        out.append(f"  now: {fmt_fact(pair.new)}" if pair.new else "  now: (missing)")
    if not d.revised:
        out.append("  (none)")
    out.append(f"\nRETRACTED ({len(d.retracted)}):")
    out.extend([f"  {fmt_fact(f)}" for f in d.retracted] or ["  (none)"])
    return "\n".join(out)


def fmt_why(w: WhyResult) -> str:
    out = [fmt_fact(w.fact, True)]
    if w.fact.checked_at or w.fact.checked_head:
        parts = []
        if w.fact.checked_head:
            parts.append(f"checked_head {w.fact.checked_head[:7]}")
        if w.fact.checked_at:
            parts.append(f"checked_at {w.fact.checked_at[:10]}")
        out.append(f"  {', '.join(parts)}")
    out.extend(f"  superseded ← {fmt_fact(a, True)}" for a in w.ancestors)
    out.extend(f"  revised → {fmt_fact(d, True)}" for d in w.descendants)
    return "\n".join(out)


def fmt_stats(s: StatsResult) -> str:
    out = [
        f"DB: {s.db_path}",
        f"Total facts ever: {s.total_facts}",
        f"Current beliefs: {s.current_beliefs}",
        "Top subjects:",
    ]
    out.extend(f"  {t.subject}: {t.count}" for t in s.top_subjects)
    return "\n".join(out)
