"""Quitting never waits for git (issue 20, item 7): the revise modal's git questions run in
daemon threads of their own, are told to stop when their caller goes, and the app exits while
a slow diff is still blocked."""

from __future__ import annotations

import asyncio
import threading

import pytest

from memharness_tui.tui.screens.revise import ReviseScreen
from memharness_tui.tui.services import git as gitsvc

from .conftest import Env
from .test_editing import cursor_to, flagged_after_pass


async def test_the_app_exits_while_the_revise_modals_diff_is_blocked(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release = threading.Event(), threading.Event()
    seen: list[threading.Thread] = []

    def slow_diff(self: gitsvc.GitView, commit: str, path: str | None, repo: str) -> str:
        seen.append(threading.current_thread())
        entered.set()
        release.wait(60)  # a 26 MB diff, as far as the app can tell
        return ""

    monkeypatch.setattr(gitsvc.GitView, "diff", slow_diff)
    try:
        async with env.app().run_test(size=(140, 44)) as pilot:
            dash = await flagged_after_pass(pilot, env)
            cursor_to(dash, env.ids[0])
            await pilot.press("enter")
            await pilot.pause()  # not settle(): it waits for every worker, this one too
            assert await asyncio.to_thread(entered.wait, 30)
            assert isinstance(pilot.app.screen, ReviseScreen)
            pilot.app.exit()
        # the app is gone and the diff is still blocked: nobody waited for it
        assert not release.is_set() and seen[0].is_alive()
        assert seen[0].daemon  # nor will the interpreter at exit
    finally:
        release.set()


async def test_a_cancelled_question_is_told_to_stop_between_steps() -> None:
    started, release = threading.Event(), threading.Event()
    stops: list[threading.Event] = []

    def question(stop: threading.Event) -> str:
        stops.append(stop)
        started.set()
        release.wait(30)
        gitsvc._check(stop)  # the next step
        return "read on"

    task = asyncio.ensure_future(gitsvc.off_loop(question))
    assert await asyncio.to_thread(started.wait, 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stops[0].is_set()
    release.set()
    with pytest.raises(gitsvc.Stopped):
        gitsvc._check(stops[0])

