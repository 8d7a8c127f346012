"""Repos remembered in the config dir, the repos modal, and drift computed only for rows on screen."""

from __future__ import annotations

from textual.widgets import Input, OptionList, Static

from memharness_tui.tui.repos import REPOS_FILE, default_repos, load_repos, save_repos
from memharness_tui.tui.screens.repos import ReposScreen
from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable

from .conftest import Env, Stepper, ready, settle


def test_repos_default_to_the_repo_around_cwd_and_are_remembered(env: Env) -> None:
    cfg = env.root / "cfg"
    inside = env.shop.path / "src"
    assert default_repos(inside) == [str(env.shop.path)]
    assert load_repos(cfg, cwd=inside) == [str(env.shop.path)]  # nothing saved yet
    assert load_repos(cfg, cwd=env.root) == []  # not in a repo: no default
    save_repos(["/a", "/b", "/a"], cfg, db=env.db)
    assert load_repos(cfg, db=env.db, cwd=inside) == ["/a", "/b"]
    # saved per database: another database still gets its own default
    assert load_repos(cfg, db=env.root / "other.db", cwd=inside) == [str(env.shop.path)]
    (cfg / REPOS_FILE).write_text("{not json")
    assert load_repos(cfg, db=env.db, cwd=inside) == [str(env.shop.path)]


async def test_repos_modal_checks_paths_and_saves_the_list(env: Env) -> None:
    app = env.app()
    app.staleness_options.repos = None  # use the saved list (empty config: the cwd default)
    async with app.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        assert list(dash.repos) == []  # the cwd (tmp root) is not a repo
        assert "press g to add one" in dash.query_one("#dash-repos", Static).render().plain
        await pilot.press("g")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReposScreen)
        box = screen.query_one("#repo-add", Input)
        box.value = str(env.root / "nowhere")
        await pilot.press("enter")
        await settle(pilot)
        assert "no such folder" in screen.query_one("#repo-error", Static).render().plain
        box.value = str(env.shop.path / "src")  # a folder inside the repo: its work tree is kept
        await pilot.press("enter")
        await settle(pilot)
        assert screen.repos == [str(env.shop.path)]
        await pilot.press("escape")
        await settle(pilot)
        assert list(dash.repos) == [str(env.shop.path)]
        assert load_repos(env.root / "config", db=env.db) == [str(env.shop.path)]
        # and removing it again
        await pilot.press("g")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#repo-list", OptionList).focus()
        await pilot.press("down", "x")
        await pilot.press("escape")
        await settle(pilot)
        assert list(dash.repos) == []
        assert load_repos(env.root / "config", db=env.db) == []


async def test_drift_is_computed_lazily_for_the_rows_on_screen(env: Env) -> None:
    for i in range(40):  # many flagged rows: more than a 24-line terminal shows
        fid, _ = env.store.remember("bulk", f"config fact {i}", source_commit=env.shop.c1,
                                    source_path="src/config.py")
        env.store.set_staleness(fid, "stale", "2026-10-01T00:00:00.000Z", env.shop.c2)
    async with env.app().run_test(size=(100, 24)) as pilot:
        dash = await ready(pilot)
        await settle(pilot)
        done = [fid for fid, info in dash.panel.rows.items() if info.drift_done]
        visible = dash.panel.visible_ids()
        assert 0 < len(done) <= len(visible) + 1 < len(dash.panel.rows)
        assert set(done) <= set(visible)
        table = dash.query_one("#flagged-table", FlaggedTable)
        assert str(table.get_cell(str(visible[0]), "drift")) == "1 commit +1 −1"
        # scrolling down computes the rows that come into view
        table.scroll_end(animate=False)
        await pilot.pause()
        await settle(pilot)
        last = dash.panel.shown[-1].id
        assert dash.panel.rows[last].drift_done
        assert not all(info.drift_done for info in dash.panel.rows.values())


async def test_every_flagged_fact_is_listed_and_the_verdict_filter_narrows(env: Env) -> None:
    async with env.app().run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        Stepper(dash).run()
        await settle(pilot)
        label = dash.query_one("#dash-filters-label", Static).render().plain
        assert label.startswith("5 flagged  ·  verdict all")
        assert len(dash.panel.shown) == 5
        await pilot.press("v", "v")  # unresolved only
        await settle(pilot)
        assert [f.freshness for f in dash.panel.shown] == ["unresolved", "unresolved"]
        assert [f.id for f in dash.panel.shown] == [env.ids[4], env.ids[5]]
        label = dash.query_one("#dash-filters-label", Static).render().plain
        assert label.startswith("5 flagged (2 matches)")
