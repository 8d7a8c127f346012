"""The reference's hygiene rules, character for character: the gardener's subject key and
code-map test (``packages/core/scripts/memory-gardener.mjs``), and the MCP server's
atomicity smell, code-map smell and 1,500-character limit (``packages/mcp/src/server.ts``).

JavaScript measures ``text.length`` in UTF-16 code units, ``\\w``/``\\b`` are ASCII, ``\\s``
is its own whitespace set and ``$`` (no ``m`` flag) is the end of the input only: each is
spelled out here so an emoji, a no-break space or a trailing newline counts as it does there.
"""

from __future__ import annotations

import re

__all__ = [
    "CODEMAP_MIN_CHARS",
    "GARDENER_CODEMAP_MIN_CHARS",
    "MAX_FACT_CHARS",
    "atomicity_smell",
    "js_length",
    "looks_like_code_map",
    "server_looks_like_code_map",
    "subject_key",
]

#: Beyond this the server refuses a remember ("Not stored: …").
MAX_FACT_CHARS = 1500
#: The server's code-map smell needs at least this many characters.
CODEMAP_MIN_CHARS = 160
#: The gardener's code-map test needs at least this many characters.
GARDENER_CODEMAP_MIN_CHARS = 200
SEMICOLON_MIN_CHARS = 60
LONG_CHARS = 280
SEVERAL_SENTENCES_CHARS = 320

_A = re.ASCII
_AI = re.ASCII | re.IGNORECASE


def js_length(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units (an emoji counts two)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


# --- the gardener -------------------------------------------------------------------------

_NON_ALNUM = re.compile(r"[^a-z0-9]")


def subject_key(subject: str) -> str:
    """The gardener's ``norm``: lower case, every character outside ``[a-z0-9]`` removed."""
    return _NON_ALNUM.sub("", subject.lower())


_PATH_RE = re.compile(
    r"\b[\w.-]+\.(?:ts|tsx|js|jsx|py|go|rs|java|rb|sql|ya?ml|json|sh|md)\b"
    r"|\b[\w-]+/[\w-]+/[\w./-]+",
    _A,
)
_FINDING_RE = re.compile(
    r"\b(?:decision|decided|violat|gotcha|drift|merged|removed|deprecat|fix candidate"
    r"|known failure|audit|contradict|abandon|rationale|undocumented|orphan"
    r"|resolution status|not implemented|not yet|escapable|trade-?off|\bbug|\brisk|prefer"
    r"|incident|regression)|#\d+|\d{4}-\d{2}-\d{2}",
    _AI,
)


def looks_like_code_map(text: str) -> bool:
    """The gardener's ``looksLikeCodeMap``: 200+ characters, no finding/decision marker, and
    at least three distinct file references."""
    if js_length(text) < GARDENER_CODEMAP_MIN_CHARS:
        return False
    if _FINDING_RE.search(text):
        return False
    return len(set(_PATH_RE.findall(text))) >= 3


# --- the server ---------------------------------------------------------------------------

_FILE_PATH_RE = re.compile(
    r"[\w.-]+/[\w./-]*\.(?:ts|tsx|js|jsx|mjs|cjs|py|rs|go|java|rb|c|h|cpp|cc|hpp|sql|json"
    r"|toml|yaml|yml|sh)\b",
    _AI,
)
_SYMBOL_RE = re.compile(r"\b\w+(?:\.\w+){2,}\b|\b\w+_\w+_\w+\w*\b", _A)


def server_looks_like_code_map(text: str) -> bool:
    """The server's ``looksLikeCodeMap`` (its remember nudge; differs from the gardener's)."""
    if js_length(text) < CODEMAP_MIN_CHARS:
        return False
    paths = len(_FILE_PATH_RE.findall(text))
    symbols = len(set(_SYMBOL_RE.findall(text)))
    return paths >= 3 or (paths >= 1 and symbols >= 3) or symbols >= 5


# JavaScript's \s: its whitespace and line terminators (not Python's \x1c-\x1f).
_JS_SPACE = "\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_SENTENCE_END = re.compile(rf"[.!?](?:[{_JS_SPACE}]|\Z)")
_JS_TRIM = "\t\n\x0b\x0c\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + (
    "\u2028\u2029\u202f\u205f\u3000\ufeff")

SEMICOLON_NUDGE = (
    "a semicolon usually joins two independent clauses — this likely asserts more than one "
    "thing. Split it at the semicolon into one remember call per assertion so each can be "
    "revised independently."
)
SEVERAL_NUDGE = (
    "this asserts several things at once — split compound knowledge into one remember "
    "call per assertion so each can be revised independently."
)
LONG_NUDGE = (
    "that fact is long — split compound knowledge into separate remember calls so each "
    "piece can be revised independently."
)
CODEMAP_NUDGE = (
    "this reads like a code map an Explore agent could reconstruct from the repo — "
    "consider storing the decision/rationale/gotcha instead, or pin it with source_commit."
)


def sentence_count(text: str) -> int:
    """``fact.split(/[.!?](?:\\s|$)/).filter((s) => s.trim().length > 0).length``."""
    return sum(1 for part in _SENTENCE_END.split(text) if part.strip(_JS_TRIM))


def atomicity_rule(text: str) -> str | None:
    """Which of the server's atomicity rules fires: ``semicolon``, ``several``, ``long`` or None."""
    n = js_length(text)
    if ";" in text and SEMICOLON_MIN_CHARS < n <= LONG_CHARS:
        return "semicolon"
    if n > SEVERAL_SENTENCES_CHARS and sentence_count(text) >= 3:
        return "several"
    if n > LONG_CHARS:
        return "long"
    return None


_NUDGES = {"semicolon": SEMICOLON_NUDGE, "several": SEVERAL_NUDGE, "long": LONG_NUDGE}


def atomicity_smell(text: str) -> str | None:
    """The server's ``atomicitySmell``: the strongest nudge, or None."""
    rule = atomicity_rule(text)
    return _NUDGES[rule] if rule else None
