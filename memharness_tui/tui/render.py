"""Turning database strings into display text safely, plus small formatting helpers.

Everything from the database is data: it is wrapped in ``rich.text.Text`` (never parsed as
markup) and control characters are made visible instead of being sent to the terminal.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from rich.text import Text

# C0 controls (except tab/newline handled separately), DEL, C1 controls, and the bidi
# embedding/override/isolate controls that could reorder the rest of a terminal line.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_WS_RUN = re.compile(r"[\t\n]+")


def _visible(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode control pictures: ␀ ␁ …
    if code == 0x7F:
        return "␡"
    return f"<U+{code:04X}>"


def clean(value: object, *, single_line: bool = False, max_len: int | None = None) -> str:
    """Make a DB string safe to draw: controls visible, optionally one line and truncated."""
    text = "" if value is None else str(value)
    text = _WS_RUN.sub(" ", text) if single_line else text.replace("\t", "    ")
    text = _CONTROL.sub(_visible, text)
    if max_len is not None and len(text) > max_len:
        text = text[: max_len - 1] + "…"
    return text


def terminal_text(value: object, *, single_line: bool = False, max_len: int | None = None) -> str:
    """The one door for text that reaches the terminal outside a ``Text`` (notifications,
    titles, sub-titles, log lines, error modals): control sequences made visible (CSI, OSC 52,
    OSC 8, C1, bidi overrides and isolates) — callers also turn markup off."""
    return clean(value, single_line=single_line, max_len=max_len)


def safe(value: object, style: str = "", *, single_line: bool = False,
         max_len: int | None = None) -> Text:
    """A literal ``Text`` for a DB value (never markup)."""
    return Text(clean(value, single_line=single_line, max_len=max_len), style=style)


def cell(value: object, style: str = "", max_len: int = 80) -> Text:
    """A single-line, truncated, literal table cell."""
    return safe(value, style, single_line=True, max_len=max_len)


def fact_heading(fact: object, *, prefix: str = "", subject_len: int = 40,
                 predicate_len: int = 30) -> Text:
    """``#ID  SUBJECT  (PREDICATE)`` — how every screen names a fact (database text kept literal)."""
    f: Any = fact
    text = Text()
    text.append(f"{prefix}#{f.id}  ", style="bold")
    text.append_text(safe(f.subject, "bold", single_line=True, max_len=subject_len))
    if f.predicate:
        text.append("  (")
        text.append_text(safe(f.predicate, single_line=True, max_len=predicate_len))
        text.append(")")
    return text


def short_time(iso: str | None) -> str:
    """``2026-03-01T10:20:30.000Z`` → ``2026-03-01 10:20``; None → ``—``."""
    if not iso:
        return "—"
    return iso[:16].replace("T", " ")


def parse_iso(iso: str) -> datetime:
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def age(since_iso: str | None, now_iso: str) -> str:
    """A rough human age, e.g. ``3 days ago``; ``—`` when unknown."""
    if not since_iso:
        return "—"
    try:
        seconds = (parse_iso(now_iso) - parse_iso(since_iso)).total_seconds()
    except ValueError:
        return "—"
    if seconds < 0:
        return "in the future"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"


FRESHNESS_BADGES: dict[str | None, tuple[str, str]] = {
    # freshness -> (label, theme colour name)
    "current": ("✓ current", "success"),
    "stale": ("⚠ stale", "error"),
    "unresolved": ("? unresolved", "warning"),
    None: ("· unchecked", "dim"),
}


def freshness_label(freshness: str | None, pinned: bool) -> tuple[str, str]:
    if freshness is None and not pinned:
        return ("—", "dim")
    return FRESHNESS_BADGES.get(freshness, (str(freshness), "dim"))


def theme_color(app: object, name: str, fallback: str) -> str:
    """A colour from the app's current theme by name (``success``, ``error``, …)."""
    theme = getattr(app, "current_theme", None)
    value = getattr(theme, name, None) if theme is not None else None
    return value or fallback


_FALLBACK = {"success": "green", "error": "red", "warning": "yellow", "dim": "grey50"}


def freshness_badge(app: object, freshness: str | None, pinned: bool) -> Text:
    label, colour = freshness_label(freshness, pinned)
    if colour == "dim":  # plain, not dim: dim stays dim on a table's cursor (< 3:1 there)
        return Text(label)
    return Text(label, style=f"bold {theme_color(app, colour, _FALLBACK[colour])}")


def status_label(fact: object, as_of: str | None = None) -> tuple[str, str]:
    """(label, style) saying whether a row is current, superseded or retracted — at ``as_of``
    when given (a revision or retraction made after then does not count yet)."""
    if as_of is not None:
        if believed_at(fact, as_of):
            return ("current then", "")
        retracted = getattr(fact, "retracted_at", None)
        if retracted and retracted <= as_of:
            return ("retracted", "dim italic")
        valid_to = getattr(fact, "valid_to", None)
        if valid_to and valid_to <= as_of:
            sup = getattr(fact, "superseded_by", None)
            return ((f"superseded → #{sup}" if sup is not None else "ended"), "dim italic")
        return ("not yet believed", "dim italic")
    if getattr(fact, "retracted_at", None):
        return ("retracted", "dim italic")
    sup = getattr(fact, "superseded_by", None)
    if sup is not None:
        return (f"superseded → #{sup}", "dim italic")
    if getattr(fact, "valid_to", None):
        return ("ended", "dim italic")
    return ("current", "")


def believed_at(fact: object, as_of: str) -> bool:
    """SPEC §7's as_of rule on one row (canonical timestamps compare as strings)."""
    tx_at = getattr(fact, "tx_at", "")
    valid_from = getattr(fact, "valid_from", "")
    valid_to = getattr(fact, "valid_to", None)
    retracted_at = getattr(fact, "retracted_at", None)
    return (tx_at <= as_of and valid_from <= as_of
            and (valid_to is None or valid_to > as_of)
            and (retracted_at is None or retracted_at > as_of))
