"""The revise modal and the bulk triage run one implementation of each action: a downgrade
records the same HEAD either way, and neither brings back a fact an agent retracted (or
revised) since you looked — both say it was left as it is."""

from __future__ import annotations

from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.screens.fact_form import ReviseFormScreen
from memharness_tui.tui.screens.revise import ReviseScreen

from .conftest import Env, ready, settle
from .helpers import rows
from .screen_reading import triage_said, triage_toasts
from .test_editing import cursor_to, flagged_after_pass, open_revise

LEFT = "was retracted by an agent since you looked; left as it is"


def _notes(app: object) -> list[str]:
    return [n.message for n in app._notifications]  # type: ignore[attr-defined]


def _live_with_text(env: Env, text: str) -> list[int]:
    return [i for i, r in rows(env.db).items() if r["fact"] == text
            and r["superseded_by"] is None and r["retracted_at"] is None]


async def _confirm_shown(pilot: object) -> ConfirmScreen:
    await settle(pilot)
    screen = pilot.app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ConfirmScreen)
    return screen


async def test_a_fact_with_no_checked_head_gets_the_head_from_the_modal_and_from_bulk(
        env: Env) -> None:
    auth, config = env.ids[0], env.ids[2]
    for fid in (auth, config):  # a verdict that names no HEAD (an older writer's)
        env.store.set_staleness(fid, "stale", "2026-10-01T00:00:00.000Z", "")
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await ready(pilot)
        await open_revise(pilot, dash, auth)
        await pilot.press("w")
        await _confirm_shown(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ReviseScreen)
        cursor_to(dash, config)
        await pilot.press("w")
        await _confirm_shown(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert triage_toasts(pilot.app)
    got = rows(env.db)
    for fid in (auth, config):
        new = got[got[fid]["superseded_by"]]
        assert (new["freshness"], new["checked_head"]) == ("stale", env.shop.head), fid


async def test_bulk_downgrade_leaves_a_fact_an_agent_retracted_since_you_looked(
        env: Env) -> None:
    config = env.ids[2]
    text = "The server listens on port 8080"
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        cursor_to(dash, config)
        await pilot.press("w")
        await _confirm_shown(pilot)
        env.store.forget(fact_id=config)  # an agent, while the confirmation is open
        await pilot.press("y")
        await settle(pilot)
        changed, skipped = triage_said(pilot.app)
        assert changed == [] and skipped == [config]
        assert f"#{config} {LEFT}" in triage_toasts(pilot.app)[-1]
    assert rows(env.db)[config]["superseded_by"] is None
    assert _live_with_text(env, text) == []


async def test_the_modal_leaves_a_fact_an_agent_retracted_while_it_was_open(env: Env) -> None:
    auth = env.ids[0]
    text = "Passwords are hashed with bcrypt, cost 12"
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        screen = await open_revise(pilot, dash, auth)
        env.store.forget(fact_id=auth)  # an agent, while the modal is open
        for key, verb in (("w", "Downgraded"), ("y", "Re-verified")):
            await pilot.press(key)
            await _confirm_shown(pilot)
            await pilot.press("y")
            await settle(pilot)
            assert pilot.app.screen is screen  # nothing written: the modal stays
            assert f"{verb} 0 facts; skipped 1: #{auth} {LEFT}" in _notes(pilot.app)
    assert rows(env.db)[auth]["superseded_by"] is None
    assert _live_with_text(env, text) == []


async def test_the_modals_retract_refuses_a_fact_no_longer_believed(env: Env) -> None:
    auth = env.ids[0]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        screen = await open_revise(pilot, dash, auth)
        _, newer, _ = env.store.revise(auth, "Passwords are hashed with argon2id")  # an agent
        await pilot.press("r")
        await settle(pilot)
        assert pilot.app.screen is screen  # no confirmation: there is nothing to retract
        assert any(f"#{auth} is no longer believed: #{newer} superseded it" in n
                   for n in _notes(pilot.app))
    assert rows(env.db)[auth]["retracted_at"] is None


async def test_rewriting_a_fact_an_agent_retracted_says_what_it_does(env: Env) -> None:
    auth = env.ids[0]
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await flagged_after_pass(pilot, env)
        await open_revise(pilot, dash, auth)
        env.store.forget(fact_id=auth)  # an agent, while the modal is open
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ReviseFormScreen)
        assert any(f"#{auth} was retracted by an agent since you looked: saving your rewrite "
                   "makes its text a current fact again" in n for n in _notes(pilot.app))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ReviseFormScreen | ReviseScreen)
        new_id = rows(env.db)[auth]["superseded_by"]
        assert new_id is not None
        assert f"#{new_id} is current: your rewrite of the retracted #{auth}; agents recall it" \
            in _notes(pilot.app)
    assert rows(env.db)[new_id]["retracted_at"] is None
