"""Facts an agent would read as orders rather than knowledge: text that overrides the agent's
instructions, asks it to send memory, keys or files to an address, pipes a download into a
shell, or hides text (Unicode tag characters, zero-width runs, bidi controls inside words); and
facts written by someone who is not one of the store's usual writers. Flags, never blocks.

A security note that *quotes* an attack ("the payload said 'ignore previous instructions'")
is knowledge: a match inside quotes, or after a word that reports or forbids it (attack,
payload, never, do not, …) in the same sentence, is not flagged. Hidden characters are flagged
wherever they are (nothing legitimate needs them inside a word); an emoji's zero-width joiner
between two pictographs is not inside a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["InstructionHit", "find_instructions", "unusual_writers"]


@dataclass(frozen=True, slots=True)
class InstructionHit:
    rule: str
    start: int
    end: int


_I = re.IGNORECASE
_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|abandon)\b[^.\n]{0,40}?"
    r"\b(?:previous|prior|above|earlier|all|any|your|the|system|original)\b[^.\n]{0,25}?"
    r"\b(?:instructions?|prompts?|rules|guidelines|directives|guardrails|polic(?:y|ies))\b"
    r"|\byou are now\b[^.\n]{0,40}\b(?:unrestricted|jailbroken|dan|free|no longer)\b"
    r"|\bnew (?:system )?instructions?:"
    r"|\b(?:from now on|henceforth)\b[^.\n]{0,30}\b(?:you must|always|never tell|do not tell)\b",
    _I)
_ADDRESS = (r"(?:https?://[^\s\"'<>]+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"
            r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\bwebhook\b)")
_IN_SENTENCE = r"(?:[^.\n]|\.(?=\S))"  # a dot inside a path or a name does not end it
_EXFIL = re.compile(
    r"\b(?:send|post|upload|e-?mail|forward|exfiltrate|transmit|leak|copy|sync|pipe|curl)\b"
    + _IN_SENTENCE + r"{0,60}?(?:\.env\b|\b(?:memor(?:y|ies)|facts?|keys?|secrets?|"
    r"credentials?|tokens?|ssh|id_rsa|files?|passwords?|database|history|conversations?|"
    r"cookies?)\b)" + _IN_SENTENCE + r"{0,60}?\b(?:to|at|into)\b\s*" + _ADDRESS, _I)
_PIPE_SHELL = re.compile(
    r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b"
    r"|\b(?:ba)?sh\s+(?:-c\s+)?[\"']?\$?\(\s*(?:curl|wget)\b|\b(?:ba)?sh\s+<\(\s*(?:curl|wget)\b"
    r"|\biex\s*\(?\s*(?:\(?new-object|iwr|invoke-webrequest|irm)\b"
    r"|\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]{0,200}\|\s*iex\b", _I)
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_ZW = "\u200b\u200c\u200d\u2060\ufeff\u180e"
_ZW_RUN = re.compile(f"[{_ZW}]{{2,}}")
_ZW_IN_WORD = re.compile(rf"(?<=\w)[{_ZW}]+(?=\w)")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_BIDI_IN_WORD = re.compile(r"(?<=\w)[\u202a-\u202e\u2066-\u2069](?=\w)|[\u202d\u202e]")
# Words that report or forbid what follows: a note about an attack, not an attack.
_REPORTING = re.compile(
    r"\b(?:attack(?:er|s)?|payload|inject(?:ion|ed)?|malicious|phishing|exploit|prompt "
    r"injection|jailbreak|never|don'?t|do not|must not|should not|shouldn'?t|beware|blocked|"
    r"detected|flag(?:ged|s)?|refuse[sd]?|reject(?:ed|s)?|warn(?:ed|s|ing)?|example|e\.g\.|"
    r"such as|like|avoid|forbid(?:den|s)?|not allowed|disallow(?:ed)?|quote[sd]?|said|tried)\b",
    _I)
_QUOTES = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`|'[^'\n]{4,}'|«[^»\n]*»|„[^“\n]*“")


def _sentence_start(text: str, at: int) -> int:
    cut = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at), text.rfind("; ", 0, at))
    return cut + 1 if cut >= 0 else 0


def _reported(text: str, start: int, end: int) -> bool:
    """The match is quoted, or its sentence reports or forbids it before it starts."""
    for q in _QUOTES.finditer(text):
        if q.start() <= start and end <= q.end():
            return True
    return _REPORTING.search(text, _sentence_start(text, start), start) is not None


def _hidden(text: str) -> Iterator[InstructionHit]:
    for rule, pattern in (("hidden-tag-characters", _TAGS), ("zero-width-run", _ZW_RUN),
                          ("zero-width-in-word", _ZW_IN_WORD),
                          ("bidi-control", _BIDI_IN_WORD)):
        for m in pattern.finditer(text):
            yield InstructionHit(rule, m.start(), m.end())


def find_instructions(text: str) -> list[InstructionHit]:
    """What in ``text`` reads as an order to an agent, by position."""
    hits: list[InstructionHit] = []
    if not text.isascii():
        hits.extend(_hidden(text))
    for rule, pattern in (("override-instructions", _OVERRIDE), ("exfiltration", _EXFIL),
                          ("download-to-shell", _PIPE_SHELL)):
        for m in pattern.finditer(text):
            if not _reported(text, m.start(), m.end()):
                hits.append(InstructionHit(rule, m.start(), m.end()))
    seen: set[tuple[int, int]] = set()
    out = []
    for h in sorted(hits, key=lambda h: (h.start, h.rule)):
        if (h.start, h.end) not in seen:
            seen.add((h.start, h.end))
            out.append(h)
    return out


#: A store this small has no usual writers to tell strangers from.
WRITERS_FROM_ROWS = 50
#: A writer with at most this share of the rows, and at most ``RARE_ROWS`` rows, is unusual.
RARE_SHARE = 0.02
RARE_ROWS = 2


def unusual_writers(writers: list[tuple[str, int]]) -> set[str]:
    """The writers (``source_agent``) that wrote almost nothing of a store that has usual
    ones; this app's own (``memharness-tui/…``) and the empty one are never unusual."""
    total = sum(n for _, n in writers)
    if total < WRITERS_FROM_ROWS:
        return set()
    return {a for a, n in writers
            if a and not a.startswith("memharness-tui") and n <= RARE_ROWS
            and n / total <= RARE_SHARE}
