"""Issue #21: rewriting a fact whose pinned file is gone at HEAD.

The rewrite is pinned at HEAD; the form used to keep the pinned path, so the new row was
unresolved the moment it was written ("src/old.py did not exist at <HEAD>"). Decision: a
deleted file's path starts blank (the whole repo at HEAD), the form says why and invites the
file the fact is about now; the gone path typed back is refused inline. A renamed file's path
starts as its new path (as *still true* does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static, TextArea

from memharness_tui.tui.screens.fact_form import ReviseFormScreen

from .conftest import Env, settle
from .helpers import commit, git, rows
from .test_triage_ui import Tri, after_pass, open_revise, tri  # noqa: F401 - the fixture


@pytest.fixture
def gone(env: Env, tmp_path: Path) -> tuple[Env, Path, str, str, int]:
    repo = tmp_path / "svc"
    repo.mkdir()
    git(repo, "init", "-q")
    c1 = commit(repo, "c1", "2026-09-01T09:00:00Z", {
        "src/old.py": "RETRIES = 3\n", "src/keep.py": "KEEP = 1\n"})
    c2 = commit(repo, "c2 drop old", "2026-09-20T09:00:00Z", {"src/old.py": None})
    for fid in env.ids:
        env.store.forget(fact_id=fid)
    fid = env.store.remember("net", "The client retries 3 times", source_commit=c1,
                             source_path="src/old.py", source_ref=f"svc@{c1}:src/old.py")[0]
    return env, repo, c1, c2, fid


async def open_rewrite(pilot: Any, fid: int) -> ReviseFormScreen:
    dash = await after_pass(pilot)
    await open_revise(pilot, dash, fid)
    await pilot.press("e")
    await settle(pilot)
    form = pilot.app.screen
    assert isinstance(form, ReviseFormScreen)
    return form


async def test_a_deleted_file_is_not_kept_as_the_pin(gone) -> None:
    env, repo, _c1, c2, fid = gone
    async with env.app(repos=[str(repo)]).run_test(size=(140, 44)) as pilot:
        form = await open_rewrite(pilot, fid)
        assert form.query_one("#form-path", Input).value == ""
        assert form.query_one("#form-commit", Input).value == c2
        context = form.query_one("#form-context", Static).render().plain
        assert "src/old.py is gone at HEAD (deleted since the pin)" in context
        form.query_one("#form-fact", TextArea).text = "The client retries 5 times"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ReviseFormScreen)
    db = rows(env.db)
    new = db[db[fid]["superseded_by"]]
    assert new["fact"] == "The client retries 5 times"
    assert new["source_commit"] == c2 and new["source_path"] is None
    assert new["freshness"] == "current"  # not unresolved


async def test_the_gone_path_typed_back_is_refused_inline(gone) -> None:
    env, repo, _c1, _c2, fid = gone
    async with env.app(repos=[str(repo)]).run_test(size=(140, 44)) as pilot:
        form = await open_rewrite(pilot, fid)
        form.query_one("#form-path", Input).value = "src/old.py"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is form
        error = form.query_one("#err-path", Static).render().plain
        assert "pin path src/old.py is not in the repo at HEAD" in error
        form.query_one("#form-path", Input).value = "src/keep.py"  # the file it is about now
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is not form
    db = rows(env.db)
    new = db[db[fid]["superseded_by"]]
    assert new["source_path"] == "src/keep.py" and new["freshness"] == "current"


async def test_a_renamed_file_starts_from_its_new_path(tri: Tri) -> None:  # noqa: F811
    async with tri.app().run_test(size=(140, 44)) as pilot:
        form = await open_rewrite(pilot, tri.ids["moved"])
        assert form.query_one("#form-path", Input).value == "src/auth_session.py"
        assert form.query_one("#form-commit", Input).value == tri.c2
