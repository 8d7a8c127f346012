"""Repos belong to a database (#11 bullet 5), the wrong-repo guard, and a pass that fails (#8.3)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from memharness_tui.store import db as store_db
from memharness_tui.store.driver import sqlite3  # the store's library: in-process locks
from memharness_tui.tui.screens.confirm import ConfirmScreen

from .conftest import Env, ready, settle, shown_summary
from .helpers import commit, git, rows
from .screen_reading import shown_error


def other_repo(root: Path) -> Path:
    """A repo that holds none of the shop's pins."""
    path = root / "other"
    path.mkdir()
    git(path, "init", "-q")
    commit(path, "o1", "2026-09-01T09:00:00Z", {"notes.md": "other\n"})
    return path


async def wait_done(pilot, dash) -> None:
    for _ in range(600):
        await pilot.pause(0.02)
        if dash.state is not None and dash.state.done:
            break
    await settle(pilot)


async def test_each_database_keeps_its_own_repos(env: Env) -> None:
    other = other_repo(env.root)
    db2 = env.root / "second.db"
    shutil.copy(env.db, db2)
    first = env.app()
    first.staleness_options.repos = None  # the saved list for this database
    async with first.run_test(size=(120, 36)) as pilot:
        await ready(pilot)
        first.repo_prefs.choose([str(env.shop.path)])
        await settle(pilot)
    from memharness_tui.store import Store

    second_store = Store.open(str(db2), clock=env.clock)
    try:
        second = env.app(store=second_store)
        second.staleness_options.repos = None
        async with second.run_test(size=(120, 36)) as pilot:
            dash = await ready(pilot)
            assert list(dash.repos) == []  # not the first database's list (cwd is no repo)
            second.repo_prefs.choose([str(other)])
            await settle(pilot)
    finally:
        second_store.close()
    again = env.app()
    again.staleness_options.repos = None
    async with again.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        assert list(dash.repos) == [str(env.shop.path)]


async def test_a_pass_against_the_wrong_repo_asks_before_writing(env: Env) -> None:
    other = other_repo(env.root)
    before = rows(env.db)
    app = env.app(repos=[str(other)], batch_size=50)
    async with app.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ConfirmScreen)
        assert "0 of 6 pins are in other — wrong repo?" in screen.title_text
        await pilot.press("n")
        await settle(pilot)
        assert dash.state is None
        assert rows(env.db) == before  # nothing written without confirmation
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("y")
        await wait_done(pilot, dash)
        assert dash.state is not None and dash.state.done and shown_error(dash) is None
    assert rows(env.db) != before  # confirmed: the pass wrote its verdicts


def test_headless_pass_against_the_wrong_repo_exits_2_unless_forced(env: Env) -> None:
    other = other_repo(env.root)
    env.store.close()
    before = env.db.read_bytes()
    cmd = [sys.executable, "-m", "memharness_tui.cli", "staleness", "--db", str(env.db),
           "--repo", str(other)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "0 of 6 pins are in" in lines[0] and "--force" in lines[0]
    assert env.db.read_bytes() == before
    forced = subprocess.run([*cmd, "--force"], capture_output=True, text=True, timeout=60)
    assert forced.returncode == 0, forced.stderr
    assert {r["freshness"] for r in rows(env.db).values()} >= {"unresolved"}


async def test_a_held_write_lock_ends_the_pass_and_the_next_one_runs(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the pass runs in-process here: its store waits 0.3 s for the lock, not the real 5 s
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 300)
    app = env.app(batch_size=50)
    async with app.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        holder = sqlite3.connect(env.db, timeout=0)
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            await pilot.press("s")
            await wait_done(pilot, dash)
            assert dash.state is not None and dash.state.done
            error = shown_error(dash)  # the counters line, as a person reads it
            assert error is not None and "busy" in error
            counters = dash.query_one("#dash-counters", Static).render().plain
            assert "busy" in counters
        finally:
            holder.rollback()
            holder.close()
        await pilot.press("s")  # ready for another pass
        await wait_done(pilot, dash)
        assert shown_error(dash) is None and shown_summary(dash).startswith("checked 7 / ")
