"""Issue #26, cold start at 1M facts: on a large store the opening (empty-query) recall ranks
the newest rows first. The Recall tab shows that first screen, labelled "not yet exact", when
the exact ranking is not back as the screen is built, and the exact list replaces it; below
the threshold (``OPENING_FIRST_SCREEN_ABOVE``) nothing changes: one exact call.

The sample store is small, so the threshold is cut to none and the window to a few rows; a
``threading.Event`` holds the exact opening recall on the app's DB thread."""

from __future__ import annotations

import threading

import pytest
from textual.css.query import NoMatches

from memharness_tui.tui import app_early, gc_policy

from .conftest import make_app, settle
from .test_early_start import Opened, _app
from .test_first_screen_recall import (
    LABEL,
    WINDOW,
    Calls,
    exact_ids,
    first_ids,
    shown_ids,
    status,
    until,
)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch):
    made = Calls(monkeypatch)
    try:
        yield made
    finally:
        made.release()


def _first_screen_shown(app) -> bool:  # noqa: ANN001
    """The Recall tab is mounted and shows a labelled (not yet exact) list."""
    if app.main_screen() is None:  # the store still opening
        return False
    try:
        return LABEL in status(app) and bool(shown_ids(app))
    except NoMatches:  # the main screen or the pane's children not mounted yet
        return False


def _opening_window(app, above: int = 0) -> None:  # noqa: ANN001
    app.service.recalls.first_screen_rows = WINDOW
    app.service.recalls.opening_first_screen_above = above


async def test_the_opening_shows_a_labelled_first_screen_then_the_exact_list(
        sample, config_dir, calls, monkeypatch):
    store, _ = sample
    assert first_ids(store, "") != exact_ids(store, "")
    # the opening is sent as the app is built (as the console script builds it)
    monkeypatch.setattr(app_early, "OPENING_FIRST_SCREEN_ABOVE", 0)
    monkeypatch.setattr(app_early, "FIRST_SCREEN_WINDOW", WINDOW)
    gate = calls.hold("recall", "")  # the exact opening waits
    app = make_app(store, config_dir)
    _opening_window(app)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: _first_screen_shown(app), "the opening's first screen")
        assert shown_ids(app) == first_ids(store, "")
        gate.set()
        await settle(pilot)
        assert LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, "")
        assert calls.of("").count("recall_first_screen") == 1


async def test_below_the_threshold_the_opening_is_one_exact_call(sample, config_dir, calls):
    store, _ = sample
    app = make_app(store, config_dir)
    _opening_window(app, above=store.largest_id())  # ids do not pass it
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, "")
        assert "recall_first_screen" not in calls.of("")


async def test_the_command_lines_early_opening_shows_its_first_screen(
        sample, config_dir, monkeypatch):
    store, _ = sample
    gate = threading.Event()
    opened = Opened(store, gate)  # holds the exact opening recall
    monkeypatch.setattr(app_early, "opener", opened)
    monkeypatch.setattr(app_early, "OPENING_FIRST_SCREEN_ABOVE", 0)
    monkeypatch.setattr(app_early, "FIRST_SCREEN_WINDOW", WINDOW)
    try:
        app_early.open_early(opened.path)
        early = app_early._pending
        assert early is not None
        quick = early.first.result(timeout=10)  # before the exact one, which is held
        assert not quick.exact and not early.recall.done()
        app = _app(opened.path, config_dir)
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: _first_screen_shown(app), "the early first screen")
            assert shown_ids(app) == first_ids(store, "")
            gate.set()
            await settle(pilot)
            assert LABEL not in status(app)
            assert shown_ids(app) == exact_ids(store, "")
    finally:
        gate.set()
        app_early.claim(None, False)
        gc_policy.resume()
