"""Mutation round 7 (scripts/mutate.py): the rewrite form refuses a gone path only when the
rewrite is pinned at HEAD (editing.py ``check_not_gone``). Pinned to the older commit where
the file still existed, the same path is a true pin: written as asked, and current."""

from __future__ import annotations

from textual.widgets import Input, TextArea

from memharness_tui.tui.screens.fact_form import ReviseFormScreen

from .conftest import settle
from .helpers import rows
from .test_rewrite_gone_file import gone, open_rewrite  # noqa: F401 - the fixture


async def test_the_gone_path_pinned_to_a_commit_where_it_existed_is_written(gone) -> None:  # noqa: F811
    env, repo, c1, _c2, fid = gone
    async with env.app(repos=[str(repo)]).run_test(size=(140, 44)) as pilot:
        form = await open_rewrite(pilot, fid)
        form.query_one("#form-path", Input).value = "src/old.py"
        form.query_one("#form-commit", Input).value = c1  # not HEAD: the file is there
        form.query_one("#form-fact", TextArea).text = "The client retried 3 times (until c2)"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ReviseFormScreen)
    db = rows(env.db)
    new = db[db[fid]["superseded_by"]]
    assert new["fact"] == "The client retried 3 times (until c2)"
    assert new["source_commit"] == c1 and new["source_path"] == "src/old.py"
