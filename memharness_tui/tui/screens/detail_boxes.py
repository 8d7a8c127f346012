"""What the fact detail screen's boxes say about a fact: its heading, provenance, both time
axes and its pin. Text only (the screen puts it in its boxes); every value from the database
goes through ``render.safe``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from memharness_tui.tui.render import age, believed_at, fact_heading, safe, status_label


def _row(text: Text, label: str, value: Text | str, style: str = "") -> None:
    text.append(f"{label:<14}", style="bold")
    text.append_text(value if isinstance(value, Text) else safe(value, style))
    text.append("\n")


def title_text(f: Any, as_of: str | None) -> Text:
    status, style = status_label(f)
    if status == "current":  # a belief's status, not the pin's verdict ("current" there too)
        status = "live belief"
    title = fact_heading(f, subject_len=80, predicate_len=60)
    title.append("   ")
    title.append(f" {status} ", style="reverse " + (style or "bold"))
    if as_of:
        then = believed_at(f, as_of)
        title.append(f"   ⏱ as of {as_of}: ", style="bold")
        title.append("believed then" if then else "not believed then",
                     style="bold" if then else "italic")
    return title


def provenance_text(f: Any) -> Text:
    prov = Text()
    _row(prov, "agent", f.source_agent or "unknown", "" if f.source_agent else "dim")
    _row(prov, "ref", f.source_ref or "—", "" if f.source_ref else "dim")
    _row(prov, "confidence", f"{f.confidence:.2f}")
    _row(prov, "importance", str(f.importance))
    _row(prov, "kind", f.kind)
    _row(prov, "last recalled", f.last_accessed_at or "never", "" if f.last_accessed_at else "dim")
    prov.rstrip()
    return prov


def time_text(f: Any, now: str) -> Text:
    tm = Text()
    tm.append("world time (valid)\n", style="italic dim")
    _row(tm, "valid from", f.valid_from)
    _row(tm, "valid to", f.valid_to or "now (still true)", "" if f.valid_to else "dim")
    tm.append("record time (transaction)\n", style="italic dim")
    _row(tm, "learned", f.tx_at)  # the age on a row of its own: at 120 columns the side
    _row(tm, "", age(f.tx_at, now))  # column wrapped "(46 days" / "ago)" mid-phrase
    _row(tm, "retracted", f.retracted_at or "—", "bold" if f.retracted_at else "dim")
    if f.superseded_by is not None:
        _row(tm, "superseded by", f"#{f.superseded_by}")
    tm.rstrip()
    return tm


def pin_text(f: Any, now: str, *, badge: Callable[[str | None], Text],
             reason_for: Callable[[Any], str | None], triage: Text | None = None) -> Text:
    """``badge``: the verdict as the app's theme draws it; ``reason_for``: why it has it;
    ``triage``: the Staleness tab's triage of it (None: not a flagged fact, no row)."""
    pin = Text()
    if not f.is_pinned:
        pin.append("not pinned to a commit", style="dim")
        if f.freshness:
            pin.append(f"  (verdict: {f.freshness})", style="dim")
        return pin
    _row(pin, "path", f.source_path or "(whole repo)", "" if f.source_path else "dim")
    _row(pin, "commit", f.source_commit)
    _row(pin, "verdict", badge(f.freshness))
    reason = reason_for(f)
    if reason:
        _row(pin, "reason", reason)
    elif f.freshness:  # not learned in this session: say where it is told
        _row(pin, "reason", "not known yet — the Staleness tab (4) judges it against the "
             "repos; a pass (s there) records it", "dim")
    if triage is not None:
        _row(pin, "triage", triage)
    _row(pin, "checked head", f.checked_head[:12] if f.checked_head else "never checked",
         "" if f.checked_head else "dim")
    if f.checked_at:
        _row(pin, "checked at", f.checked_at)
        _row(pin, "", age(f.checked_at, now))
    else:
        _row(pin, "checked at", "—", "dim")
    pin.rstrip()
    return pin


def triage_text(label: str | None, summary: str = "") -> Text:
    """The triage row: the Staleness tab's label for the outcome and git's one-line why
    (plain text; None: still being computed, shown as the tab shows it, "…")."""
    if label is None:
        return Text("…", style="dim")
    text = Text(label, style="bold")
    if summary:
        text.append(" — ")
        text.append_text(safe(summary))
    return text
