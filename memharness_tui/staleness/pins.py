"""Pure parsing of pins: a git commit (and maybe a path) named in a fact's provenance.

No git and no I/O here. The rules follow SPEC §8; "when in doubt: no pin",
because a false pin would be flagged forever.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "repin_ref",
    "Pin",
    "is_sha_like",
    "normalize_path",
    "normalize_sha",
    "parse_source_ref",
    "short_sha",
]

_HEX = "0-9a-fA-F"
# `name@<40 hex>` optionally followed by `:<path>`; the path runs to whitespace.
_NAMED_FULL = re.compile(rf"(?<!\S)[^\s@]+@([{_HEX}]{{40}})(?![{_HEX}])(?::(\S*))?")
# A standalone run of 7-40 hex characters, bounded by non-hex or the ends.
_HEX_RUN = re.compile(rf"(?<![{_HEX}])[{_HEX}]{{7,40}}(?![{_HEX}])")
# GitHub-style line anchors (`#L10`, `#L10-L20`) and `:12` / `:12-30` line suffixes.
_LINE_SUFFIX = re.compile(r"(?:#L\d+(?:-L?\d+)?|:\d+(?:-\d+)?)$")
_SHA = re.compile(rf"[{_HEX}]{{7,40}}")


@dataclass(frozen=True, slots=True)
class Pin:
    """A commit (lowercase hex, 7-40 digits) and an optional repo-relative path."""

    commit: str
    path: str | None = None


def parse_source_ref(source_ref: str | None) -> Pin | None:
    """Parse a pin out of free-text ``source_ref`` (SPEC §8), or return None.

    Beyond the SPEC's cases: a run made only of decimal digits (dates, issue or
    session numbers) or only of the letters a-f (words such as ``defaced``) is
    not a pin, nor is a ref holding two different candidate SHAs; a trailing
    line anchor (``#L10-L20``, ``:42``) is dropped from a parsed path; and a
    named pin whose path cannot name anything in a repo (``m@<sha40>:../x``,
    which climbs out) is no pin at all, rather than a pin of the whole repo.
    """
    if not source_ref or not source_ref.strip():
        return None
    m = _NAMED_FULL.search(source_ref)
    if m:
        path = normalize_path(_LINE_SUFFIX.sub("", m.group(2) or ""))
        if path == "":
            return None  # the path climbs out of the repo: when in doubt, no pin
        return Pin(m.group(1).lower(), path)
    if "/" in source_ref or "." in source_ref:
        return None
    runs = {r.lower() for r in _HEX_RUN.findall(source_ref) if _mixed(r)}
    if len(runs) != 1:
        return None
    return Pin(runs.pop(), None)


def _mixed(run: str) -> bool:
    """True when a hex run has both a digit and a letter, as nearly every SHA does."""
    return any(c.isdigit() for c in run) and any(not c.isdigit() for c in run)


def is_sha_like(value: str) -> bool:
    """7 to 40 hex digits, any case (what the checker will try to resolve)."""
    return bool(_SHA.fullmatch(value.strip()))


def normalize_sha(value: str) -> str:
    return value.strip().lower()


def short_sha(value: str) -> str:
    """The first 7 characters of a pin, lowercased, for messages."""
    return value.strip().lower()[:7]


def normalize_path(path: str | None) -> str | None:
    """Normalize a repo-relative path: ``./a//b/`` → ``a/b``.

    Returns None for "no path" (None, blank, ``.``, ``/``). Returns the empty
    string for a path that cannot name anything inside a repo (it climbs out with
    ``..``, or contains a NUL); callers treat that as "path does not exist".
    """
    if path is None:
        return None
    p = path.strip()
    if "\x00" in p:
        return ""
    parts: list[str] = []
    for seg in p.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if not parts:
                return ""
            parts.pop()
            continue
        parts.append(seg)
    if not parts:
        return None
    joined = "/".join(parts)
    if joined != joined.strip():
        # "/ a" → " a": the outer strip did not reach it; strip again (idempotent)
        return normalize_path(joined)
    return joined


def repin_ref(source_ref: str, new_commit: str) -> str:
    """``name@OLDSHA:path`` → ``name@NEWSHA:path``: a ref naming the old pin names the new one.

    Refs that hold no pin (``session-41``, URLs) are kept as they are.
    """
    pin = parse_source_ref(source_ref)
    if pin is None:
        return source_ref
    pattern = re.compile(re.escape(pin.commit), re.IGNORECASE)
    match = pattern.search(source_ref)
    if match is None:
        return source_ref
    width = len(match.group(0))
    replacement = new_commit if width >= 40 else new_commit[: max(width, 7)]
    return source_ref[: match.start()] + replacement + source_ref[match.end():]
