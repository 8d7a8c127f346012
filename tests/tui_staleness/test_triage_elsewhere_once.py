"""The revise dialog's triage box for an *elsewhere* fact says its sentence once (it was on
the triage line and again as the first evidence line)."""

from __future__ import annotations

from .test_triage_ui import Tri, after_pass, open_revise, tri  # noqa: F401 - the fixture


async def test_the_elsewhere_sentence_is_said_once(tri: Tri) -> None:  # noqa: F811
    async with tri.app().run_test(size=(140, 44)) as pilot:
        dash = await after_pass(pilot)
        screen = await open_revise(pilot, dash, tri.ids["elsewhere"])
        text = screen.triage_rendered().plain
        assert "none mentions the fact" in text, text
        assert text.count("none mentions the fact") == 1, text
        assert "looked for" in text, text  # the other evidence is still there
