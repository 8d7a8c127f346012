"""Text a person reads from the staleness engine's reports (terminal, Markdown): control
characters dropped, code spans that survive backticks."""

from __future__ import annotations

import re

__all__ = ["code_span", "plain"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text: str) -> str:
    """Text safe to print or paste: control characters (ESC, BEL, …) dropped."""
    return _CONTROL.sub("", text)


def code_span(text: str) -> str:
    """Markdown inline code that survives backticks inside (CommonMark: a longer fence)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"
