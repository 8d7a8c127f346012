"""SVG snapshots of every screen at fixed sizes, frozen clock, no cursor blink (stable run to run).

Regenerate only with a FULL run: ``pytest tests/tui --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, Tree

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.app import MemharnessApp
from memharness_tui.tui.state import SessionNews

from .conftest import CLOCK_START, NOW, Sample, build_sample, make_app, settle, toasts_stay

WIDE = (160, 48)
NARROW = (80, 24)
MID = (120, 36)


@pytest.fixture
def snap_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The sample store at a relative path, so the path on screen is the same every run."""
    monkeypatch.chdir(tmp_path)
    store, info = build_sample(Path("memory.db"), FakeClock(CLOCK_START, 60_000))
    yield store, info, tmp_path / "config"
    store.close()


def before(*steps: Callable[[Pilot], Awaitable[None]]) -> Callable[[Pilot], Awaitable[None]]:
    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        for step in steps:
            await step(pilot)
            await settle(pilot)
        await settle(pilot)  # a table filled by the last worker lays out on the next refresh

    return run


def keys(*names: str) -> Callable[[Pilot], Awaitable[None]]:
    async def press(pilot: Pilot) -> None:
        await pilot.press(*names)

    return press


def set_input(selector: str, value: str, submit: bool = True) -> Callable[[Pilot], Awaitable[None]]:
    async def run(pilot: Pilot) -> None:
        box = pilot.app.screen.query_one(selector, Input)
        box.value = value
        if submit:
            box.focus()
            await pilot.press("enter")

    return run


def open_fact(fact_id: int) -> Callable[[Pilot], Awaitable[None]]:
    async def run(pilot: Pilot) -> None:
        pilot.app.open_fact(fact_id)  # type: ignore[attr-defined]

    return run


def app_for(snap_store, **kwargs) -> tuple[MemharnessApp, Sample]:
    """The app on its DB thread, its store's clock frozen where the sample's stopped: scores
    on screen do not depend on how many reads the DB thread happened to serve first."""
    store, info, config_dir = snap_store
    path, start = str(store.path), store.clock.peek()
    frozen = FakeClock(start, step_ms=0)
    return make_app(lambda: Store.open(path, clock=frozen), config_dir, **kwargs), info


def test_recall_wide(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=WIDE, run_before=before())


def test_recall_narrow(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=NARROW, run_before=before())


def test_recall_search_with_fallback(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=MID,
                        run_before=before(set_input("#search", "xpire"), keys("escape")))


def test_recall_agent_view(snap_compare, snap_store):
    app, _ = app_for(snap_store)

    async def limit_8(pilot: Pilot) -> None:
        pilot.app.screen.query_one("#limit-filter", Select).value = 8

    assert snap_compare(app, terminal_size=MID,
                        run_before=before(limit_8, keys("escape", "a")))


def test_hostile_text(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=WIDE,
                        run_before=before(set_input("#subject-filter", "hostile"),
                                          keys("escape")))


async def pick_auth(pilot: Pilot) -> None:
    side = pilot.app.screen.query_one("#subject-list")
    side.move_cursor(row=[k.value for k in side.rows].index("auth"))  # type: ignore[attr-defined]


def test_subjects_with_history(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=WIDE,
                        run_before=before(keys("2"), pick_auth, keys("enter", "h")))


def test_subjects_with_history_narrow(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=NARROW,
                        run_before=before(keys("2"), pick_auth, keys("enter", "h")))


def test_diff(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=WIDE,
                        run_before=before(keys("3"), set_input("#diff-since", "2026-03-05")))


def test_detail_chain_wide(snap_compare, snap_store):
    app, info = app_for(snap_store)
    assert snap_compare(app, terminal_size=WIDE, run_before=before(open_fact(info.chain[1])))


def test_detail_narrow(snap_compare, snap_store):
    app, info = app_for(snap_store)
    assert snap_compare(app, terminal_size=NARROW, run_before=before(open_fact(info.chain[1])))


def _near_identical(snap_store) -> int:
    from .test_first_contact import add_near_identical_chain

    return add_near_identical_chain(snap_store[0])[1]


def test_detail_near_identical_versions_wide(snap_compare, snap_store):
    new = _near_identical(snap_store)
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=WIDE, run_before=before(open_fact(new)))


def test_detail_near_identical_versions_narrow(snap_compare, snap_store):
    new = _near_identical(snap_store)
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=NARROW, run_before=before(open_fact(new)))


def test_detail_stale_pin_with_reason(snap_compare, snap_store):
    app, info = app_for(snap_store)

    async def learned(pilot: Pilot) -> None:  # as a pass's verdicts reach the app
        pilot.app.post_message(SessionNews(reasons={info.stale: "src/auth.py changed since "
                                                                "aaaaaaa"}))

    assert snap_compare(app, terminal_size=WIDE,
                        run_before=before(learned, open_fact(info.stale)))


def test_detail_after_walking_to_oldest(snap_compare, snap_store):
    app, info = app_for(snap_store)

    async def walk(pilot: Pilot) -> None:
        tree = pilot.app.screen.query_one("#chain", Tree)
        tree.move_cursor_to_line(0)
        await pilot.press("enter")

    assert snap_compare(app, terminal_size=MID,
                        run_before=before(open_fact(info.chain[2]), walk))


def test_time_travel_modal(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=NARROW,
                        run_before=before(keys("t"), keys(*"2026-02-30", "enter")))


def test_time_travel_active(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=WIDE,
                        run_before=before(keys("t"), keys(*"2026-03-01T09:30", "enter")))


def test_help(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    # 30 rows: the first sections only, so the staleness tab's own keys (issue #5) can change freely
    assert snap_compare(app, terminal_size=(120, 30), run_before=before(keys("question_mark")))


def test_theme_picker(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    assert snap_compare(app, terminal_size=MID, run_before=before(keys("ctrl+t")))


@pytest.mark.parametrize("theme", ["memharness-light", "memharness-contrast"])
def test_themes(snap_compare, snap_store, theme):
    app, _ = app_for(snap_store)
    app.theme = theme
    assert snap_compare(app, terminal_size=MID, run_before=before())


def test_readonly_banner(snap_compare, snap_store):
    store, _info, config_dir = snap_store
    store.close()

    def open_frozen() -> Store:  # scores decay with time: a wall clock would drift the picture
        return Store.open("memory.db", readonly=True, clock=FakeClock(NOW, step_ms=0))

    app = make_app(open_frozen, config_dir, readonly=True)
    try:
        assert snap_compare(app, terminal_size=MID, run_before=before())
    finally:
        app.gateway.close()


def test_open_error_modal(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("broken.db").write_bytes(b"not a database " * 64)
    app = make_app("broken.db", tmp_path / "config")
    try:
        assert snap_compare(app, terminal_size=(100, 30), run_before=before())
    finally:
        app.gateway.close()


def test_store_used_here_is_real(snap_store):
    """Guard: the snapshot store is the sample (so the pictures show what the flows test)."""
    store, info, _ = snap_store
    assert isinstance(store, Store) and store.get(info.chain[2]).fact.endswith("90 minutes")


@pytest.fixture
def empty_store_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The app on a file that does not exist yet (relative path: the same on screen every run)."""
    monkeypatch.chdir(tmp_path)
    clock = FakeClock(CLOCK_START, step_ms=0)
    app = make_app(lambda: Store.open("new.db", clock=clock), tmp_path / "config")
    toasts_stay(app)  # the new store's notice is in the picture, however slow the start
    return app


def test_empty_store_welcome_narrow(snap_compare, empty_store_app):
    assert snap_compare(empty_store_app, terminal_size=NARROW, run_before=before())


def test_empty_store_welcome_wide(snap_compare, empty_store_app):
    assert snap_compare(empty_store_app, terminal_size=WIDE, run_before=before())
