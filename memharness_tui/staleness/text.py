"""Text a person reads from the staleness engine's reports (terminal, Markdown): control
characters dropped, code spans that survive backticks, and Markdown that text from the
database or git can never turn into structure or a link."""

from __future__ import annotations

import re

from memharness_tui.cli_text import visible

__all__ = ["code_span", "md_code", "md_inline", "md_text", "plain"]

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


# Everything CommonMark/GFM could read as markup in running text: emphasis, code, links and
# images (brackets), raw HTML and autolinks (<, >), entities (&), headings, tables, strike.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&!])")
# GFM's extended autolinks: scheme://…, www.…, mailto:/xmpp: and bare e-mail addresses
_MD_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(:)(?=//)|(?<=mailto)(:)|(?<=xmpp)(:)|(?<=www)(\.)|(@)")
_CODE = re.compile(r"(?s)(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def md_text(text: str) -> str:
    """Text from the database or git as Markdown running text: one line (a newline or other
    control is shown as its escape, ``\\n``), every markup character backslash-escaped, so it
    can never start a list item, a heading, a link or an HTML tag."""
    escaped = _MD_SPECIAL.sub(r"\\\1", visible(text))
    return _MD_AUTOLINK.sub(lambda m: "\\" + m.group(), escaped)


def md_code(text: str) -> str:
    """Text as one inline code span (a path, a pin): one line, controls shown as escapes."""
    return code_span(visible(text))


def md_inline(text: str) -> str:
    """A line built by triage (code spans around terms and diff lines, paths as they are) as
    Markdown: its code spans stay code spans (one line each), the rest is :func:`md_text`."""
    out: list[str] = []
    last = 0
    for m in _CODE.finditer(text):
        out.append(md_text(text[last:m.start()]))
        inner = m.group(2)
        if len(inner) >= 2 and inner[0] == inner[-1] == " " and inner.strip():
            inner = inner[1:-1]  # the padding code_span added around a backtick
        out.append(md_code(inner))
        last = m.end()
    out.append(md_text(text[last:]))
    return "".join(out)
