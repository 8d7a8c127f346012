"""The hygiene rules' edges as the reference draws them: the gardener's code map needs three
*distinct* file references (``new Set(text.match(PATH_RE)).size >= 3`` in
``memory-gardener.mjs``), and the server's semicolon nudge starts at 61 characters."""

from __future__ import annotations

from memharness_tui.hygiene.nudges import remember_note
from memharness_tui.hygiene.rules import (
    SEMICOLON_MIN_CHARS,
    SEMICOLON_NUDGE,
    atomicity_smell,
    looks_like_code_map,
)

FILLER = "the request goes through the handler and comes back with a body " * 3


def test_one_file_named_three_times_is_not_a_code_map() -> None:
    once = FILLER + "see router.py, then router.py again, and router.py last"
    assert len(once) >= 200
    assert not looks_like_code_map(once)
    three = FILLER + "see router.py, then views.py, and models.py last"
    assert looks_like_code_map(three)  # the same length of text, three distinct files


def test_the_semicolon_nudge_starts_above_60_characters() -> None:
    assert SEMICOLON_MIN_CHARS == 60
    sixty = "a" * 29 + "; " + "b" * 29
    assert len(sixty) == 60 and atomicity_smell(sixty) is None
    sixty_one = sixty + "c"
    assert atomicity_smell(sixty_one) == SEMICOLON_NUDGE
    assert SEMICOLON_NUDGE in remember_note("proj", sixty_one, [], pinned=False)
    assert SEMICOLON_NUDGE not in remember_note("proj", sixty, [], pinned=False)
