"""Revise, still true, downgrade, retract, bulk triage, new fact — checked in the database."""

from __future__ import annotations

from textual.widgets import Input, Static, TextArea

from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.store import Store
from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.screens.fact_form import NewFactScreen, ReviseFormScreen
from memharness_tui.tui.screens.revise import ReviseScreen
from memharness_tui.tui.services.store import AGENTS
from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable

from .conftest import DB, Env, Stepper, ready, settle, shown_summary
from .helpers import rows
from .screen_reading import triage_said


async def flagged_after_pass(pilot, env: Env):
    dash = await ready(pilot)
    Stepper(dash).run()
    await settle(pilot)
    return dash


def cursor_to(dash, fact_id: int) -> None:
    table = dash.query_one("#flagged-table", FlaggedTable)
    table.move_cursor(row=[f.id for f in dash.panel.shown].index(fact_id), animate=False)


async def open_revise(pilot, dash, fact_id: int) -> ReviseScreen:
    cursor_to(dash, fact_id)
    await pilot.press("enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviseScreen)
    await screen.git_ready.wait()
    await pilot.pause()
    return screen


def error_text(screen, name: str) -> str:
    r = screen.query_one(f"#err-{name}", Static).render()
    return getattr(r, "plain", str(r))


async def test_revise_modal_shows_pin_reason_drift_and_the_diff(env: Env) -> None:
    auth = env.ids[0]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        table = dash.query_one("#flagged-table", FlaggedTable)
        row = [str(c) for c in table.get_row(str(auth))]
        assert "src/auth.py changed since " + env.shop.c1[:7] in row
        assert "1 commit +2 −3" in row
        screen = await open_revise(pilot, dash, auth)
        diff = screen.diff_plain()
        assert "--- a/src/auth.py" in diff and '-HASH = "bcrypt"' in diff
        assert '+HASH = "argon2id"' in diff
        pin = screen.query_one("#revise-pin", Static).render().plain
        assert env.shop.head[:12] in pin and "1 commit  +2 −3" in pin
        await pilot.press("escape")
        assert not isinstance(pilot.app.screen, ReviseScreen)


async def test_rewrite_validates_inline_then_revises_and_checks_at_head(env: Env) -> None:
    auth = env.ids[0]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        await open_revise(pilot, dash, auth)
        await pilot.press("e")
        await settle(pilot)
        form = pilot.app.screen
        assert isinstance(form, ReviseFormScreen)
        assert form.query_one("#form-commit", Input).value == env.shop.head
        assert form.query_one("#form-path", Input).value == "src/auth.py"
        assert form.query_one("#form-source_ref", Input).value == f"shop@{env.shop.head}:src/auth.py"
        before = rows(env.db)
        form.query_one("#form-fact", TextArea).text = "Passwords are hashed with argon2id"
        form.query_one("#form-confidence", Input).value = "1.5"
        form.query_one("#form-valid_from", Input).value = "2026-13-45"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is form  # still open: nothing written
        assert "confidence must be a number in [0, 1]" in error_text(form, "confidence")
        assert "valid_from" in error_text(form, "valid_from")
        assert rows(env.db) == before
        # a valid-from in the future passes the form but the Store refuses it: shown inline
        form.query_one("#form-confidence", Input).value = "0.8"
        form.query_one("#form-valid_from", Input).value = "2099-01-01"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is form
        assert "cannot be in the future" in error_text(form, "valid_from")
        assert error_text(form, "confidence") == ""
        assert rows(env.db) == before
        form.query_one("#form-valid_from", Input).value = ""
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ReviseFormScreen | ReviseScreen)
        assert auth not in [f.id for f in dash.panel.flagged]
        # the detail screen can explain the verdict written by the rewrite, not only a pass's
        new_id = rows(env.db)[auth]["superseded_by"]
        new_fact = await pilot.app.gateway.call(lambda s: s.get(new_id))
        assert pilot.app.staleness_reason(new_fact) == f"{env.shop.head[:7]} is HEAD"
    got = rows(env.db)
    old = got[auth]
    new = got[old["superseded_by"]]
    assert old["valid_to"] == new["valid_from"] and old["retracted_at"] is None
    assert new["fact"] == "Passwords are hashed with argon2id" and new["confidence"] == 0.8
    assert (new["source_commit"], new["source_path"]) == (env.shop.head, "src/auth.py")
    assert new["source_ref"] == f"shop@{env.shop.head}:src/auth.py"
    assert (new["freshness"], new["checked_head"]) == ("current", env.shop.head)
    assert new["source_agent"] == AGENTS["rewrite"] and new["subject"] == "auth"
    assert new["predicate"] == "hash"


async def test_still_true_repins_at_head_and_records_current(env: Env) -> None:
    config = env.ids[2]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        await open_revise(pilot, dash, config)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ReviseScreen)
    got = rows(env.db)
    old = got[config]
    new = got[old["superseded_by"]]
    assert new["fact"] == old["fact"] and new["confidence"] == old["confidence"]
    assert (new["source_commit"], new["source_path"]) == (env.shop.head, "src/config.py")
    assert (new["freshness"], new["checked_head"]) == ("current", env.shop.head)
    assert new["source_agent"] == "memharness-tui/still-true"


async def test_downgrade_keeps_text_and_pin_and_the_verdict(env: Env) -> None:
    auth = env.ids[0]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        await open_revise(pilot, dash, auth)
        await pilot.press("w")
        await pilot.press("y")
        await settle(pilot)
        new_id = rows(env.db)[auth]["superseded_by"]
        assert new_id in [f.id for f in dash.panel.flagged]  # still stale: still flagged
        notes = [n.message for n in pilot.app._notifications]
        assert f"Downgraded 1 fact (#{auth} → #{new_id})" in notes  # names the new id
    got = rows(env.db)
    old, new = got[auth], got[new_id]
    assert new["fact"] == old["fact"] and abs(new["confidence"] - 0.45) < 1e-9
    assert (new["source_commit"], new["source_path"]) == (env.shop.c1, "src/auth.py")
    assert new["source_ref"] == old["source_ref"] and new["source_agent"] == "memharness-tui/downgrade"
    assert (new["freshness"], new["checked_head"]) == ("stale", env.shop.head)


async def test_retract_asks_first(env: Env) -> None:
    legacy = env.ids[3]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        cursor_to(dash, legacy)
        await pilot.press("delete")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("n")  # cancelled: nothing happens
        await settle(pilot)
        assert rows(env.db)[legacy]["retracted_at"] is None
        await pilot.press("delete")
        await pilot.press("y")
        await settle(pilot)
        assert legacy not in [f.id for f in dash.panel.flagged]
    got = rows(env.db)[legacy]
    assert got["retracted_at"] is not None and got["superseded_by"] is None


async def test_bulk_triage_marks_then_applies_after_one_confirmation(env: Env) -> None:
    auth, config, legacy = env.ids[0], env.ids[2], env.ids[3]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        # still true on two marked facts; the deleted path cannot be "still true": skipped
        cursor_to(dash, config)
        await pilot.press("space")
        cursor_to(dash, legacy)
        await pilot.press("space")
        assert dash.panel.marked == {config, legacy}
        await pilot.press("y")
        confirm = pilot.app.screen
        assert isinstance(confirm, ConfirmScreen) and "2 facts" in confirm.title_text
        await pilot.press("y")
        await settle(pilot)
        changed, skipped = triage_said(pilot.app)  # the toast, as a person reads it
        assert changed and len(changed) == 1
        assert skipped == [legacy]
        (old, new), = changed
        assert any(f"Re-verified at HEAD: 1 fact (#{old} → #{new}); skipped 1" in n.message
                   for n in pilot.app._notifications)
        # select all of a filter (stale only) and downgrade them all
        await pilot.press("v")
        assert dash.panel.verdict_filter == "stale"
        stale_ids = {f.id for f in dash.panel.shown}
        assert stale_ids == {auth, legacy}
        await pilot.press("a")
        assert dash.panel.marked == stale_ids
        await pilot.press("w")
        assert "Downgrade 2 facts?" in pilot.app.screen.title_text
        await pilot.press("y")
        await settle(pilot)
        assert len(triage_said(pilot.app)[0]) == 2 and not dash.panel.marked
    got = rows(env.db)
    c_new = got[got[config]["superseded_by"]]
    assert (c_new["freshness"], c_new["source_commit"]) == ("current", env.shop.head)
    for old_id in (auth, legacy):
        old = got[old_id]
        new = got[old["superseded_by"]]
        assert new["confidence"] == old["confidence"] * 0.5
        assert new["freshness"] == "stale" and new["source_commit"] == env.shop.c1


async def test_new_fact_form_validates_then_remembers_and_checks_its_pin(env: Env) -> None:
    async with env.app().run_test(size=(140, 44)) as pilot:
        await ready(pilot)
        await pilot.press("n")
        await settle(pilot)
        form = pilot.app.screen
        assert isinstance(form, NewFactScreen)
        before = rows(env.db)
        form.query_one("#form-subject", Input).value = "  "
        form.query_one("#form-importance", Input).value = "11"
        form.query_one("#form-commit", Input).value = "not-a-sha"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "subject must not be empty" in error_text(form, "subject")
        assert "fact must not be empty" in error_text(form, "fact")
        assert "importance must be an integer in [1, 10]" in error_text(form, "importance")
        assert "pin commit must be 7-40 hex digits" in error_text(form, "commit")
        assert rows(env.db) == before
        form.query_one("#form-subject", Input).value = "db"
        form.query_one("#form-fact", TextArea).text = "The engine is set in src/db.py [bold]x[/]"
        form.query_one("#form-importance", Input).value = "7"
        form.query_one("#form-commit", Input).value = env.shop.head[:10]
        form.query_one("#form-path", Input).value = "./src//db.py"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, NewFactScreen)
    got = rows(env.db)
    new = got[max(got)]
    assert new["fact"] == "The engine is set in src/db.py [bold]x[/]" and new["subject"] == "db"
    assert new["importance"] == 7 and new["source_agent"] == AGENTS["new"] == "memharness-tui/new"
    assert (new["source_commit"], new["source_path"]) == (env.shop.head[:10], "src/db.py")
    assert (new["freshness"], new["checked_head"]) == ("current", env.shop.head)


async def test_read_only_store_refuses_writes_and_passes_only_check(env: Env) -> None:
    env.store.close()
    StalenessPass(str(env.db), [env.shop.path], clock=env.clock).run()  # some flagged rows
    ro = Store.open(DB, clock=env.clock, readonly=True)
    before = rows(env.db)
    try:
        app = env.app(store=ro)
        async with app.run_test(size=(140, 44)) as pilot:
            dash = await ready(pilot)
            await pilot.press("n")
            await pilot.press("w")
            await pilot.press("delete")
            await settle(pilot)
            assert not isinstance(pilot.app.screen, NewFactScreen | ConfirmScreen)
            # one rule (check_action) disables the write keys; the footer shows them disabled;
            # n runs and says why (it was silent)
            active = pilot.app.screen.active_bindings
            assert any("read-only" in n.message for n in pilot.app._notifications)
            assert active["n"].enabled and not active["w"].enabled
            assert not active["delete"].enabled and active["s"].enabled
            await pilot.press("s")
            for _ in range(300):
                await pilot.pause(0.01)
                if dash.state is not None and dash.state.done:
                    break
            await settle(pilot)
            assert dash.state.check_only
            assert shown_summary(dash).startswith("checked 7 / ")
            # the revise modal refuses too: its write keys are disabled, nothing opens
            dash.query_one("#flagged-table").focus()
            await pilot.press("enter")
            await settle(pilot)
            revise = pilot.app.screen
            assert isinstance(revise, ReviseScreen)
            await revise.git_ready.wait()
            for key in ("e", "y", "w", "r", "delete"):
                await pilot.press(key)
                await settle(pilot)
                assert pilot.app.screen is revise, key
            active = revise.active_bindings
            assert not any(active[k].enabled for k in ("e", "y", "w", "r"))
            assert active["escape"].enabled
    finally:
        ro.close()
    assert rows(env.db) == before
