"""Showing database text on a terminal without letting it drive the terminal.

Fact text is data. Printed raw to a terminal, an ``ESC[2J`` in a fact clears the screen, an OSC 52
sequence writes the clipboard and a bidi override reorders the line. When the CLI's stdout is a
terminal, every control character in a string from the database is shown in Python's escape
notation instead: ``\\x1b`` for ESC, ``\\n`` / ``\\r`` / ``\\t`` for newline, carriage return and
tab, ``\\x9b`` for a C1 control, ``\\u202e`` for a bidi control. A backslash already in the text is
printed as it is. Piped output is left byte-for-byte as the agent's tools print it.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace
from typing import Any

# C0 controls, DEL, C1 controls, the line/paragraph separators, and the invisible characters
# that change the display order of text (bidi marks, embeddings, overrides and isolates).
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
# What json.dumps(ensure_ascii=False) leaves raw inside strings (it escapes C0 itself).
_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character replaced by its escape (see the module doc)."""
    return _CONTROL.sub(_escape, text)


def has_controls(text: str) -> bool:
    return _CONTROL.search(text) is not None


def visible_tree(value: Any) -> Any:
    """A copy of a result (dataclasses, lists, tuples, dicts) with every string made visible."""
    if isinstance(value, str):
        return visible(value)
    if is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: visible_tree(getattr(value, f.name)) for f in fields(value) if f.init}
        return replace(value, **changes)
    if isinstance(value, list):
        return [visible_tree(v) for v in value]
    if isinstance(value, tuple):
        return tuple(visible_tree(v) for v in value)
    if isinstance(value, dict):
        return {visible_tree(k): visible_tree(v) for k, v in value.items()}
    return value


def one_line(message: str) -> str:
    """An error message as exactly one printable line (a quoted fact may hold a newline or ESC)."""
    return visible(message) or "(no message)"


def json_visible(dumped: str) -> str:
    """JSON text with the controls ``json.dumps(ensure_ascii=False)`` leaves raw (DEL, C1, bidi)
    written as ``\\uXXXX`` escapes: the same JSON value, harmless on a terminal."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
