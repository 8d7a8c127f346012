"""Reports people can paste: a pass's stale facts grouped by triage outcome (Markdown or JSON).

Triage runs only for the stale facts of the report, lazily, one fact at a time.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .analysis import Triager
from .pins import short_sha
from .runner import PassReport
from .text import md_code, md_inline, md_text, plain
from .triage import LABELS, OUTCOMES, UNKNOWN, Triage
from .verdicts import STALE, Verdict

if TYPE_CHECKING:
    from memharness_tui.store import Store

__all__ = ["TriagedFact", "counts_line", "to_json", "to_markdown", "triage_report"]


@dataclass(frozen=True, slots=True)
class TriagedFact:
    verdict: Verdict
    subject: str
    fact: str
    triage: Triage

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.verdict.fact_id,
            "subject": self.subject,
            "fact": self.fact,
            "pin": self.verdict.pin,
            "reason": self.verdict.reason,
            **self.triage.to_dict(),
        }


def triage_report(
    report: PassReport,
    db_path: str | os.PathLike[str],
    repos: Sequence[str | os.PathLike[str]],
    *,
    store: Store | None = None,
) -> list[TriagedFact]:
    """Triage the report's stale facts (reads their text from the store, read-only)."""
    stale = [v for v in report.verdicts if v.freshness == STALE]
    if not stale:
        return []
    own = store is None
    if store is None:
        from memharness_tui.store import Store

        store = Store.open(str(db_path), readonly=True)
    try:
        triager = Triager(list(repos))
        out = []
        for v in stale:
            f = store.get(v.fact_id)
            out.append(TriagedFact(v, f.subject, f.fact, triager.analyse(f.fact, v.commit, v.path)))
        return out
    finally:
        if own:
            store.close()


def _grouped(items: Sequence[TriagedFact]) -> list[tuple[str, list[TriagedFact]]]:
    groups: dict[str, list[TriagedFact]] = {o: [] for o in OUTCOMES}
    for it in items:
        groups.setdefault(it.triage.outcome, []).append(it)
    return [(o, g) for o, g in groups.items() if g]


def counts_line(report: PassReport, items: Sequence[TriagedFact]) -> str:
    """``3 stale, 1 moved, 1 touches it, 1 elsewhere`` (zero counts left out)."""
    parts = [f"{report.stale} stale"]
    for outcome, group in _grouped(items):
        if outcome != UNKNOWN:
            parts.append(f"{len(group)} {_SHORT[outcome]}")
    if report.unresolved:
        parts.append(f"{report.unresolved} unresolved")
    return ", ".join(parts)


_SHORT = {"touches": "touches it", "moved": "moved", "deleted": "deleted",
          "elsewhere": "elsewhere", UNKNOWN: "not analysed"}


def _md(text: str) -> str:
    """Fact text as Markdown text, not markup (one line, control characters dropped)."""
    return md_text(" ".join(plain(text).split()))


def to_markdown(report: PassReport, items: Sequence[TriagedFact]) -> str:
    heads = ", ".join(short_sha(h) for h in report.heads.values())
    lines = [f"### Stale facts: {counts_line(report, items)} (HEAD {heads})", ""]
    lines.append(f"_{report.summary_line()}_")
    if not items:
        lines += ["", "No stale facts."]
    for outcome, group in _grouped(items):
        lines += ["", f"#### {LABELS[outcome].capitalize()} ({len(group)})", ""]
        for it in group:
            t = it.triage
            lines.append(f"- **#{it.verdict.fact_id}** {_md(it.fact)} — "
                         f"{md_code(it.verdict.pin)}")
            lines.append(f"  - {md_inline(t.summary)}")
            for ev in t.evidence:
                if ev != t.summary:
                    lines.append(f"  - {md_inline(ev)}")
    return "\n".join(lines) + "\n"


def to_json(report: PassReport, items: Sequence[TriagedFact]) -> dict[str, Any]:
    """The pass report plus, per stale fact, the same fields the Markdown shows."""
    data = report.to_dict()
    data["counts"] = counts_line(report, items)
    data["triage"] = [it.to_dict() for it in items]
    data["groups"] = {o: [it.verdict.fact_id for it in g] for o, g in _grouped(items)}
    return data
