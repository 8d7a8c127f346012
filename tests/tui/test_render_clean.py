"""render.clean: every character that could steer the terminal is made visible.

Text from the database may hold bidi controls that reorder the rest of a terminal line
(Trojan Source, CVE-2021-42574): embeddings and overrides U+202A-202E, isolates
U+2066-2069 and the marks LRM, RLM and ALM. Each must reach the screen as a visible
``<U+XXXX>`` tag, never as the raw character.
"""

from __future__ import annotations

import pytest

from memharness_tui.tui.render import age, cell, clean

BIDI = [
    *(chr(c) for c in range(0x202A, 0x202F)),  # LRE RLE PDF LRO RLO
    *(chr(c) for c in range(0x2066, 0x206A)),  # LRI RLI FSI PDI
    "\u200e", "\u200f", "\u061c",  # LRM RLM ALM
]  # fmt: skip


@pytest.mark.parametrize("ch", BIDI, ids=[f"U+{ord(c):04X}" for c in BIDI])
def test_every_bidi_control_is_shown_as_a_tag(ch: str) -> None:
    tag = f"<U+{ord(ch):04X}>"
    assert clean(f"a{ch}b") == f"a{tag}b"
    assert clean(f"a{ch}b", single_line=True) == f"a{tag}b"
    assert cell(f"a{ch}b").plain == f"a{tag}b"


def test_a_trojan_source_line_keeps_its_order() -> None:
    # "RLI … LRI … PDI PDI" would display the comment's text over the code
    text = 'x = 1 # \u2067 \u2066if admin\u2069 \u2069'
    shown = clean(text)
    assert shown == "x = 1 # <U+2067> <U+2066>if admin<U+2069> <U+2069>"
    assert not any(ch in shown for ch in BIDI)


@pytest.mark.parametrize("code", [0x80, 0x85, 0x9B, 0x9F])
def test_c1_controls_are_tags(code: int) -> None:
    assert clean(f"a{chr(code)}b") == f"a<U+{code:04X}>b"


def test_neighbours_of_the_control_ranges_are_kept() -> None:
    kept = "\u2065\u206a\u2029\u202f\u200d\u00a0"  # just outside each range
    assert clean(kept) == kept


def test_truncation_boundaries() -> None:
    assert clean("x" * 5, max_len=5) == "xxxxx"  # fits exactly: untouched
    assert clean("x" * 6, max_len=5) == "xxxx…"  # one over: 5 characters with the ellipsis
    assert len(cell("y" * 200, max_len=80).plain) == 80


def test_single_line_joins_runs_of_newlines_and_tabs() -> None:
    assert clean("a\n\n\tb\r\nc", single_line=True) == "a b␍ c"


def test_age_boundaries() -> None:
    now = "2026-03-10T00:00:00.000Z"
    assert age("2026-03-09T00:00:00.000Z", now) == "1 day ago"
    assert age("2026-03-09T23:59:00.000Z", now) == "1 minute ago"
    assert age(now, now) == "just now"
