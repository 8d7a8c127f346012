"""The repo found around the current folder is saved for the database when first used; a
list the person saved wins over the one the options bring (the demo's own repo)."""

from __future__ import annotations

from dataclasses import replace

from memharness_tui.tui.repos import save_repos, saved_repos

from .conftest import Env, ready


async def test_the_repo_found_here_is_saved_and_found_from_elsewhere(env: Env) -> None:
    cfg = env.root / "config"
    app = env.app()
    app.staleness_options = replace(app.staleness_options, repos=None, cwd=str(env.shop.path))
    async with app.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        assert list(dash.repos) == [str(env.shop.path)]
    assert saved_repos(cfg, db=env.db) == [str(env.shop.path)]
    later = env.app()  # started from a folder that is no repo
    later.staleness_options = replace(later.staleness_options, repos=None, cwd=str(env.root))
    async with later.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        assert list(dash.repos) == [str(env.shop.path)]


async def test_a_saved_list_wins_over_the_options_repos(env: Env) -> None:
    cfg = env.root / "config"
    other = str(env.root / "elsewhere")
    save_repos([other], cfg, db=env.db)  # what the person chose with g last time
    app = env.app(repos=[str(env.shop.path)])  # the demo passes its own repo
    async with app.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        assert list(dash.repos) == [other]
    assert saved_repos(cfg, db=env.db) == [other]
