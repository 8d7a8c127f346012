"""The MCP server's ``remember`` answer: ``Remembered as fact #N.`` and its ``Note: …`` nudges
(resembles, atomicity, code map), built exactly as ``packages/mcp/src/server.ts`` builds them."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from memharness_tui.store.hygiene_similarity import SimilarFact

from .rules import CODEMAP_NUDGE, atomicity_smell, server_looks_like_code_map

__all__ = ["REMEMBER_SIMILAR_LIMIT", "js_fixed2", "remember_note", "remember_text", "resembles_nudge"]

#: The server asks ``nearDuplicates`` for at most three.
REMEMBER_SIMILAR_LIMIT = 3


def js_fixed2(x: float) -> str:
    """JavaScript's ``x.toFixed(2)``: the exact binary value rounded half up (0.625 → 0.63,
    where Python's ``f"{x:.2f}"`` gives 0.62)."""
    return str(Decimal(x).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def resembles_nudge(subject: str, similar: Sequence[SimilarFact]) -> str | None:
    """``this closely resembles existing belief(s) in '…': #N (sim 0.62) — …`` or None."""
    if not similar:
        return None
    listed = ", ".join(f"#{s.id} (sim {js_fixed2(s.similarity)})" for s in similar)
    them = "one of them" if len(similar) > 1 else "it"
    return (
        f"this closely resembles existing belief(s) in '{subject}': {listed} — if it "
        f"updates or contradicts {them}, use revise (not a parallel fact) so history stays clean."
    )


def remember_note(
    subject: str, fact: str, similar: Sequence[SimilarFact], *, pinned: bool
) -> str:
    """`` Note: …`` (with its leading space) or "" — what follows ``Remembered as fact #N.``.

    ``subject`` is the argument as given (the server quotes it untrimmed); ``pinned`` is
    whether a source_commit argument was given at all (even an empty one).
    """
    nudges = [n for n in (resembles_nudge(subject, similar), atomicity_smell(fact)) if n]
    if not pinned and server_looks_like_code_map(fact):
        nudges.append(CODEMAP_NUDGE)
    return f" Note: {' '.join(nudges)}" if nudges else ""


def remember_text(new_id: int, note: str) -> str:
    """The tool's whole answer."""
    return f"Remembered as fact #{new_id}.{note}"
