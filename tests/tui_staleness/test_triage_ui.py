"""Triage on the dashboard (#10): the triage column and its sort, the revise modal's matching
hunks with the fact's terms highlighted, bulk re-verify of the *elsewhere* group, still true on
a moved fact, follow mode; and every flagged fact in the table (#12), past 300 rows."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.screens.revise import ReviseScreen
from memharness_tui.tui.services.store import AGENTS
from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable

from ..tui.conftest import type_text
from .conftest import Env, Stepper, drift_settled, ready, settle
from .helpers import UNKNOWN, commit, git, rows
from .screen_reading import triage_said, triage_toasts


@dataclass
class Tri:
    """A repo where each kind of change happened, and a store with one fact per kind."""

    env: Env
    repo: Path
    c1: str
    c2: str
    ids: dict[str, int]

    def app(self, **kw: Any) -> Any:
        return self.env.app(repos=[str(self.repo)], **kw)


@pytest.fixture
def tri(env: Env, tmp_path: Path) -> Iterator[Tri]:
    repo = tmp_path / "svc"
    repo.mkdir()
    git(repo, "init", "-q")
    session = "SESSION_TTL = 30 * 60\n\n\ndef expire(store):\n    store.drop_expired()\n"
    c1 = commit(repo, "c1", "2026-09-01T09:00:00Z", {
        "src/auth.py": 'HASH = "bcrypt"\n\n\ndef audit():\n    log("login")\n',
        "src/config.py": 'PORT = 8080\nHOST = "0.0.0.0"\n',
        "src/session.py": session,
    })
    git(repo, "mv", "src/session.py", "src/auth_session.py")
    c2 = commit(repo, "c2 split auth", "2026-09-20T09:00:00Z", {
        "src/auth.py": 'HASH = "bcrypt"\n\n\ndef audit():\n    log("signin")\n',
        "src/config.py": 'PORT = 9090\nHOST = "0.0.0.0"\n',
    })
    store = env.store
    for fid in env.ids:  # the shop's facts are not part of this story
        store.forget(fact_id=fid)
    facts = {
        "elsewhere": ("auth", "Passwords are hashed with bcrypt", "src/auth.py"),
        "touches": ("config", "The server listens on port 8080", "src/config.py"),
        "moved": ("session", "SESSION_TTL is 30 minutes", "src/session.py"),
        "elsewhere2": ("auth", "The HASH setting names bcrypt", "src/auth.py"),
    }
    ids = {}
    for key, (subject, text, path) in facts.items():
        ids[key] = store.remember(subject, text, source_commit=c1, source_path=path,
                                  source_ref=f"svc@{c1}:{path}")[0]
    ids["unknown"] = store.remember("deploy", "Deploys go through staging",
                                    source_commit=UNKNOWN)[0]
    yield Tri(env, repo, c1, c2, ids)


async def until(pilot: Any, cond: Callable[[], bool], what: str, rounds: int = 400) -> None:
    """Wait for a state (the app's workers and timers run meanwhile)."""
    for _ in range(rounds):
        if cond():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for: {what}")


async def after_pass(pilot: Any) -> Any:
    dash = await ready(pilot)
    Stepper(dash).run()
    await settle(pilot)
    await drift_settled(pilot, dash)
    return dash


def triage_of(dash: Any, fid: int) -> str:
    return dash.query_one("#flagged-table", FlaggedTable).get_cell(str(fid), "triage").plain


async def test_triage_column_and_sort(tri: Tri) -> None:
    ids = tri.ids
    async with tri.app().run_test(size=(160, 40)) as pilot:
        dash = await after_pass(pilot)
        assert [f.id for f in dash.panel.shown] == sorted(ids.values())
        assert triage_of(dash, ids["elsewhere"]) == "elsewhere"
        assert triage_of(dash, ids["elsewhere2"]) == "elsewhere"
        assert triage_of(dash, ids["touches"]) == "touches it"
        assert triage_of(dash, ids["moved"]) == "moved"
        assert triage_of(dash, ids["unknown"]) == "unknown"
        await pilot.press("b")
        await until(pilot, lambda: dash.panel.sort == "triage" and not dash.panel.analysing,
                    "the triage sort")
        await settle(pilot)
        assert [f.id for f in dash.panel.shown] == [
            ids["touches"], ids["moved"], ids["elsewhere"], ids["elsewhere2"], ids["unknown"]]
        label = dash.query_one("#dash-filters-label", Static).render().plain
        assert "sort triage (b)" in label
        await pilot.press("b")  # back to id order
        await settle(pilot)
        assert [f.id for f in dash.panel.shown] == sorted(ids.values())


async def open_revise(pilot: Any, dash: Any, fid: int) -> ReviseScreen:
    table = dash.query_one("#flagged-table", FlaggedTable)
    table.move_cursor(row=[f.id for f in dash.panel.shown].index(fid))
    await pilot.press("enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviseScreen)
    await screen.git_ready.wait()
    await settle(pilot)
    return screen


async def test_revise_modal_shows_matching_hunks_first_with_terms_highlighted(tri: Tri) -> None:
    async with tri.app().run_test(size=(140, 44)) as pilot:
        dash = await after_pass(pilot)
        screen = await open_revise(pilot, dash, tri.ids["touches"])
        shown = screen.triage_rendered()
        text = shown.plain
        assert text.startswith("triage     the change touches the fact")
        assert "evidence   `port 8080` changed on line 1: `PORT = 8080` → `PORT = 9090`" in text
        assert "hunks that mention the fact (1)" in text
        assert "-PORT = 8080" in text and "+PORT = 9090" in text
        highlighted = [text[s.start:s.end] for s in shown.spans if "reverse" in str(s.style)]
        assert "8080" in highlighted  # the fact's term, on the removed line
        assert "9090" not in highlighted
        # the full diff follows, below the matching hunks
        assert "--- a/src/config.py" in screen.diff_plain()


async def test_revise_modal_text_from_the_file_is_never_markup(tri: Tri) -> None:
    commit(tri.repo, "markup in code", "2026-09-21T09:00:00Z",
           {"src/config.py": 'PORT = 7070  # [bold red]x[/] \x1b[31m\nHOST = "0.0.0.0"\n'})
    async with tri.app().run_test(size=(140, 44)) as pilot:
        dash = await after_pass(pilot)
        screen = await open_revise(pilot, dash, tri.ids["touches"])
        text = screen.triage_rendered().plain
        assert "[bold red]x[/]" in text and "\x1b" not in text


async def test_bulk_reverify_of_the_elsewhere_group(tri: Tri) -> None:
    ids = tri.ids
    async with tri.app().run_test(size=(140, 40)) as pilot:
        dash = await after_pass(pilot)
        await pilot.press("E")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen),
                    "the confirmation")
        confirm = pilot.app.screen
        assert confirm.title_text == ("Still true at HEAD: 2 facts whose file changed only "
                                      "elsewhere?")
        assert f"#{ids['elsewhere']}  Passwords are hashed with bcrypt  (src/auth.py)" \
            in confirm.detail
        assert f"#{ids['elsewhere2']}  The HASH setting names bcrypt" in confirm.detail
        assert f"#{ids['touches']} " not in confirm.detail
        assert dash.panel.marked == {ids["elsewhere"], ids["elsewhere2"]}  # selected
        await pilot.press("y")
        await until(pilot, lambda: bool(triage_toasts(pilot.app)), "the bulk re-verify")
        changed, _ = triage_said(pilot.app)  # the toast, as a person reads it
        assert [old for old, _ in changed] == [ids["elsewhere"], ids["elsewhere2"]]
    db = rows(tri.env.db)
    for old, new in changed:
        assert db[old]["superseded_by"] == new
        assert db[new]["fact"] == db[old]["fact"]
        assert db[new]["source_agent"] == AGENTS["still-true"]
        assert db[new]["source_commit"] == tri.c2 and db[new]["source_path"] == "src/auth.py"
        assert db[new]["freshness"] == "current"
    for key in ("touches", "moved", "unknown"):
        assert db[ids[key]]["superseded_by"] is None


async def test_still_true_on_a_moved_fact_repins_the_new_path(tri: Tri) -> None:
    moved = tri.ids["moved"]
    async with tri.app().run_test(size=(140, 44)) as pilot:
        dash = await after_pass(pilot)
        screen = await open_revise(pilot, dash, moved)
        assert "src/session.py → src/auth_session.py (100 %)" in screen.triage_rendered().plain
        await pilot.press("y")
        await settle(pilot)
        confirm = pilot.app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "on its new path src/auth_session.py" in confirm.detail
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(pilot.app.screen, (ConfirmScreen,
                                                                     ReviseScreen)),
                    "the revise modal closing")
        await settle(pilot)
    db = rows(tri.env.db)
    new = db[moved]["superseded_by"]
    assert new is not None
    assert db[new]["source_path"] == "src/auth_session.py"
    assert db[new]["source_commit"] == tri.c2
    assert db[new]["source_ref"] == f"svc@{tri.c2}:src/auth_session.py"
    assert db[new]["freshness"] == "current" and db[new]["source_agent"] == AGENTS["still-true"]
    assert db[new]["fact"] == "SESSION_TTL is 30 minutes"


async def test_follow_mode_runs_a_pass_after_a_commit(tri: Tri) -> None:
    app = tri.app()
    app.staleness_options.follow_poll = 0.02  # type: ignore[attr-defined]
    app.staleness_options.follow_settle = 0  # type: ignore[attr-defined]
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert dash.follow.following
        assert "following HEAD (l)" in dash.query_one("#dash-repos", Static).render().plain

        def follow_lines() -> list[str]:  # the follow toasts, as the screen shows them
            return [n.message for n in pilot.app._notifications if n.title == "follow"]

        assert not follow_lines() and dash.state is None  # no pass until HEAD moves
        sha = commit(tri.repo, "split auth module", "2026-09-22T09:00:00Z",
                     {"src/config.py": 'PORT = 7070\nHOST = "0.0.0.0"\n'})
        await until(pilot, lambda: bool(follow_lines()), "the follow notification")
        line = follow_lines()[0]
        assert line == f"after {sha[:7]} 'split auth module': 4 stale, 1 touches it, " \
                       "1 moved, 2 elsewhere, 1 unresolved"
        await until(pilot, lambda: any(n.message == line for n in pilot.app._notifications),
                    "the toast (posted through the app's notify)")
        await pilot.press("l")
        assert not dash.follow.following


async def test_every_flagged_fact_is_in_the_table_and_mark_all_counts_them(many: Env) -> None:
    async with many.app().run_test(size=(100, 30)) as pilot:
        dash = await ready(pilot)
        table = dash.query_one("#flagged-table", FlaggedTable)
        assert table.row_count == len(dash.panel.shown) == 350
        label = dash.query_one("#dash-filters-label", Static).render().plain
        assert label.startswith("350 flagged  ·")
        table.focus()
        await pilot.press("end")
        await drift_settled(pilot, dash)
        last = dash.panel.shown[-1]
        assert dash.panel.current_fact() is last
        assert dash.panel.visible_ids()[-1] == last.id  # on screen, not under a scrollbar
        assert table.get_cell(str(last.id), "triage").plain == "elsewhere"  # computed lazily
        assert not dash.panel.rows[dash.panel.shown[175].id].triage_done  # never on screen
        await pilot.press("m")  # m marks (as Space does)
        assert dash.panel.marked == {last.id}
        await pilot.press("m")
        assert dash.panel.marked == set()
        await pilot.press("f")
        await type_text(pilot, "bulk-a")
        await pilot.press("enter")
        await settle(pilot)
        assert len(dash.panel.shown) == 175
        await pilot.press("a")  # every row the filter matches, not only those on screen
        assert len(dash.panel.marked) == 175
        assert {f.subject for f in dash.panel.targets()} == {"bulk-a"}
        await pilot.press("y")
        await settle(pilot)
        confirm = pilot.app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert confirm.title_text == "Still true at HEAD: 175 facts?"
        await pilot.press("n")
        await settle(pilot)
    assert all(r["superseded_by"] is None for r in rows(many.db).values())

