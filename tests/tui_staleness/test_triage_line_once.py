"""Issue #21: the revise dialog's triage line says its outcome once ("the change touches the
fact: `port 8080`", not "the change touches the fact  the change touches `port 8080`")."""

from __future__ import annotations

from .test_triage_ui import Tri, after_pass, open_revise, tri  # noqa: F401 - the fixture


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


async def test_the_triage_line_says_touches_once(tri: Tri) -> None:  # noqa: F811
    async with tri.app().run_test(size=(140, 44)) as pilot:
        dash = await after_pass(pilot)
        screen = await open_revise(pilot, dash, tri.ids["touches"])
        line = _first_line(screen.triage_rendered().plain)
        assert line == "triage     the change touches the fact: `port 8080`"
        assert line.count("touches") == 1


async def test_the_triage_line_says_moved_once(tri: Tri) -> None:  # noqa: F811
    async with tri.app().run_test(size=(140, 44)) as pilot:
        dash = await after_pass(pilot)
        screen = await open_revise(pilot, dash, tri.ids["moved"])
        line = _first_line(screen.triage_rendered().plain)
        assert line.startswith("triage     moved to src/auth_session.py")
        assert line.count("moved") == 1
