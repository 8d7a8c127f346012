"""Issue #22's state items on the Staleness tab, driven as a person does (keys, then the
screen): the session an immutable value the app alone replaces, bound down; ``as_of`` set by
one action; background work in workers that report by message; no test hooks; and (#26) the
flagged list after a pass takes the pass's verdicts instead of asking git again."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.state import SessionNews, StalenessSession
from memharness_tui.tui.widgets.staleness import flagged as flagged_module

from .conftest import Env, ready, settle
from .helpers import commit

TUI = Path(__file__).resolve().parents[2] / "memharness_tui" / "tui"


async def pass_done(pilot: Any, dash: Any) -> None:
    """Press s and wait for the pass to end and the list to settle (its check against the
    store, ``PASS_CHECK_DELAY`` after the end, included)."""
    await pilot.press("s")
    for _ in range(600):
        await pilot.pause(0.02)
        if dash.state is not None and dash.state.done and not dash.panel.follower.checking:
            break
    else:
        raise AssertionError("the pass never ended, or its list never settled")
    await settle(pilot)


def headless_reasons(env: Env) -> dict[int, str]:
    """The reasons the same pass gives headless, on a copy of the store."""
    copy = env.root / "headless.db"
    env.store.close()
    shutil.copyfile(env.db, copy)
    report = StalenessPass(copy, [str(env.shop.path)]).run()
    return {v.fact_id: v.reason for v in report.verdicts}


def table_text(dash: Any) -> str:
    table = dash.query_one("#flagged-table")
    return "\n".join(table.render_line(y).text for y in range(table.size.height))


async def test_a_pass_reasons_reach_the_detail_screen_through_the_apps_one_session(
        env: Env) -> None:
    auth = env.ids[0]  # pinned at c1; c2 changed src/auth.py: stale
    app = env.app(batch_size=3)
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        first = app.session
        await pass_done(pilot, dash)
        session = app.session
        assert isinstance(session, StalenessSession) and session is not first  # replaced
        with pytest.raises(dataclasses.FrozenInstanceError):
            session.reasons = {}  # type: ignore[misc]
        with pytest.raises(TypeError):
            session.reasons[auth] = "changed by hand"  # type: ignore[index]
        assert dash.session is session and dash.panel.session is session  # bound down
        reason = session.reasons[auth]
        assert reason.startswith("src/auth.py changed since ")
        app.open_fact(auth)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FactDetailScreen)
        assert reason in screen.text_of("detail-pin")  # the detail shows the pass's reason
    assert reason == headless_reasons(env)[auth]  # the same the headless pass gives


async def test_a_reason_the_app_learns_redraws_the_flagged_rows(env: Env) -> None:
    auth = env.ids[0]
    async with env.app().run_test(size=(170, 44)) as pilot:
        dash = await ready(pilot)
        await pass_done(pilot, dash)
        assert "src/auth.py changed since" in table_text(dash)
        app = pilot.app
        app.post_message(SessionNews(reasons={auth: "the team moved to argon2"}))
        await settle(pilot)
        assert app.staleness_reason(env.store.get(auth)) == "the team moved to argon2"
        assert "the team moved to argon2" in table_text(dash)  # the watcher redrew the row
        # a new pass starts afresh: the reasons learned before are gone
        await pass_done(pilot, dash)
        assert "the team moved to argon2" not in table_text(dash)
        assert app.session.reasons[auth].startswith("src/auth.py changed since ")


async def test_after_a_pass_the_list_takes_its_verdicts_until_head_moves(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[set[int]] = []
    real = flagged_module.judge_facts

    async def judge_facts(repos: Any, facts: Any) -> Any:
        facts = list(facts)
        asked.append({f.id for f in facts})
        return await real(repos, facts)

    monkeypatch.setattr(flagged_module, "judge_facts", judge_facts)
    async with env.app().run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        assert not panel.flagged  # no pass yet: nothing flagged
        await pass_done(pilot, dash)
        flagged = {f.id for f in panel.flagged}
        assert flagged and not set().union(*asked) & flagged  # git was not asked again
        # ... and what the list shows is what git says now, row by row
        said = await real([str(env.shop.path)], panel.flagged)
        assert {i: panel.rows[i].judged for i in flagged} == {i: said[i] for i in flagged}
        # HEAD moves: the next load asks git about every row again
        commit(env.shop.path, "c4", "2026-10-01T09:00:00Z", {"src/db.py": "changed\n"})
        asked.clear()
        await pilot.press("r")
        await settle(pilot)
        assert set().union(*asked) == flagged


async def test_time_travel_goes_through_one_action_and_the_detail_reads_it_bound(
        env: Env) -> None:
    auth = env.ids[0]
    app = env.app()
    travels: list[str | None] = []
    travel = app.action_travel

    def counted(when: str | None = None) -> None:
        travels.append(when)
        travel(when)

    app.action_travel = counted  # type: ignore[method-assign]
    async with app.run_test(size=(160, 44)) as pilot:
        await ready(pilot)
        app.open_fact(auth)
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, FactDetailScreen) and detail.as_of is None
        await pilot.press("escape")
        await pilot.press("t")
        await settle(pilot)
        for ch in "2026-11-15":
            await pilot.press(ch)
        await pilot.press("enter")
        await settle(pilot)
        assert app.as_of is not None and app.as_of.startswith("2026-11-15")
        assert detail.as_of == app.as_of  # bound: the kept detail screen follows the app
        app.open_fact(auth)
        await settle(pilot)
        assert "⏱ as of 2026-11-15" in detail.text_of("detail-title")
        await pilot.press("escape")
        await pilot.press("T")  # back to now
        await settle(pilot)
        assert app.as_of is None and detail.as_of is None
        assert [t is not None and t.startswith("2026-11-15") for t in travels] == [True, False]


def test_as_of_is_written_by_one_action_and_no_test_hooks_remain() -> None:
    writes, hooks = [], []
    for path in TUI.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        # the app's as_of: ``app.as_of = …`` anywhere, ``self.as_of = …`` in the app itself
        own = r"|self" if path.name == "app.py" else ""
        writes += [(path.name, m.group(0))
                   for m in re.finditer(rf"\b(?:m?app{own})\.as_of = .*", text)]
        writes += [(path.name, "setattr")
                   for _ in re.finditer(r'setattr\((?:self\.)?m?app, "as_of"', text)]
        hooks += [(path.name, h) for h in ("last_error", "last_bulk", "reason_provider")
                  if h in text]
    assert writes == [("app.py", "self.as_of = when or None")]
    assert hooks == []


def test_background_work_in_the_staleness_tab_is_workers_reporting_by_message() -> None:
    files = [TUI / "widgets" / "dashboard.py", *(TUI / "widgets" / "staleness").glob("*.py")]
    found = [(p.name, word) for p in files for word in ("to_thread", "call_from_thread")
             if word in p.read_text(encoding="utf-8")]
    assert found == []


def test_widgets_and_screens_do_background_work_only_in_workers() -> None:
    """Every widget and screen: a Textual worker that reports by message, never a bare
    thread hop (services offer awaitables; the UI calls them from its workers)."""
    files = [*(TUI / "widgets").rglob("*.py"), *(TUI / "screens").rglob("*.py")]
    found = [(p.name, word) for p in files for word in ("to_thread", "call_from_thread")
             if word in p.read_text(encoding="utf-8")]
    assert found == []
