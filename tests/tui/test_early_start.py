"""The command line's head start (``tui/app_early.py``): the store opens and the opening search
runs before Textual is imported; the app takes them over and starts exactly as without them."""

from __future__ import annotations

import contextlib
import gc
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select

from memharness_tui.store import Store
from memharness_tui.tui import app_early, gc_policy
from memharness_tui.tui.app import MemharnessApp, build_app
from memharness_tui.tui.widgets.recall import RecallPane
from memharness_tui.tui.widgets.results_table import ResultsTable

from .conftest import NOW, settle


class Opened:
    """An ``app_early.opener`` stand-in: the test's store file with its frozen clock, counting
    opens; ``gate`` (when given) holds the opening (empty-query) recall until it is set."""

    def __init__(self, store: Store, gate: threading.Event | None = None) -> None:
        self.path, self.clock, self.gate = str(store.path), store.clock, gate
        self.opens = 0
        self.empty_recalls_started = threading.Event()

    def __call__(self, path: str | None, readonly: bool):  # noqa: ANN204 - an opener factory
        def open_store() -> Store:
            assert path == self.path
            self.opens += 1
            store = Store.open(self.path, clock=self.clock, readonly=readonly)
            if self.gate is not None:
                recall = store.recall

                def gated(query: str = "", **kwargs: object):  # noqa: ANN202
                    if not query:
                        self.empty_recalls_started.set()
                        assert self.gate is not None
                        self.gate.wait(10)
                    return recall(query, **kwargs)

                store.recall = gated  # type: ignore[method-assign]
            return store

        return open_store


@pytest.fixture
def opened(sample, monkeypatch: pytest.MonkeyPatch) -> Iterator[Opened]:
    store, _ = sample
    fake = Opened(store)
    monkeypatch.setattr(app_early, "opener", fake)
    yield fake
    app_early.claim(None, False)  # nothing left pending for the next test
    gc_policy.resume()
    gc.unfreeze()


def _app(path: str, config_dir: Path) -> MemharnessApp:
    return build_app(path, config_dir=config_dir, now=NOW, cursor_blink=False)


@contextlib.asynccontextmanager
async def _opening_search_held(store: Store, monkeypatch: pytest.MonkeyPatch,
                               config_dir: Path) -> AsyncIterator[tuple[MemharnessApp, Pilot,
                                                                        threading.Event]]:
    """An early-started app on its main screen, its opening search held until ``gate`` is set."""
    gate = threading.Event()
    opened = Opened(store, gate)
    monkeypatch.setattr(app_early, "opener", opened)
    app_early.open_early(opened.path)
    app = _app(opened.path, config_dir)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            while not app.screen.query(RecallPane):  # the main screen, results still pending
                await pilot.pause()
            assert opened.empty_recalls_started.wait(10)
            yield app, pilot, gate
    finally:
        gate.set()
        gc_policy.resume()


async def test_the_app_takes_over_the_early_open_and_shows_its_results(sample, opened,
                                                                     config_dir):
    store, _ = sample
    app_early.open_early(opened.path)
    early = app_early._pending
    assert early is not None
    app = _app(opened.path, config_dir)
    assert app.gateway is early.gateway  # the DB thread already at work, not a second one
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        want = [str(f.id) for f in store.recall("", limit=50).facts]
        assert table.row_keys() == want
        assert app.screen.query_one(RecallPane).last_result is early.recall.result()
        assert app.screen.query_one("#limit-filter", Select).value == 50  # the filters came
        assert app.info is not None and app.info.path == opened.path
    assert opened.opens == 1  # one open on the DB thread (the scan twin opens on its own)


async def test_opening_results_already_here_are_shown_as_the_screen_is_built(
        sample, opened, monkeypatch, config_dir):
    store, _ = sample
    app_early.open_early(opened.path)
    early = app_early._pending
    assert early is not None
    early.recall.result(timeout=10)  # arrived before the app even started
    searches: list[object] = []
    search = RecallPane._search

    def counting(self, *args, **kwargs):  # noqa: ANN001, ANN202
        searches.append(args)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(RecallPane, "_search", counting)
    shown_at_first_layout: list[list[str]] = []
    from memharness_tui.tui.screens.main import MainScreen

    layout = MainScreen._refresh_layout

    def first_layout(self, *args, **kwargs):  # noqa: ANN001, ANN202
        if not shown_at_first_layout:
            shown_at_first_layout.append(self.query_one("#results", ResultsTable).row_keys())
        return layout(self, *args, **kwargs)

    monkeypatch.setattr(MainScreen, "_refresh_layout", first_layout)
    app = _app(opened.path, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        want = [str(f.id) for f in store.recall("", limit=50).facts]
        assert shown_at_first_layout == [want]  # in the screen's very first layout
        assert app.screen.query_one("#results", ResultsTable).row_keys() == want
        assert searches == []  # no search worker: nothing asked twice, nothing re-shown
        await pilot.press("slash", *"sessions")  # and searching works as ever
        await settle(pilot)
        assert app.screen.query_one("#results", ResultsTable).row_keys() == [
            str(f.id) for f in store.recall("sessions", limit=50).facts]


async def test_a_search_typed_while_the_early_search_runs_wins(sample, monkeypatch, config_dir):
    store, _ = sample
    async with _opening_search_held(store, monkeypatch, config_dir) as (app, pilot, gate):
        pane = app.screen.query_one(RecallPane)
        assert pane.last_result is None
        box = app.screen.query_one("#search", Input)
        box.focus()
        await pilot.press(*"sessions")
        gate.set()  # the opening search ends now, after the keys
        await settle(pilot)
        assert box.value == "sessions"
        assert pane.params.query == "sessions"
        table = app.screen.query_one("#results", ResultsTable)
        assert table.row_keys() == [str(f.id) for f in
                                    store.recall("sessions", limit=50).facts]


async def test_an_early_start_for_another_database_is_discarded(sample, opened, tmp_path,
                                                                config_dir):
    store, _ = sample
    app_early.open_early(str(tmp_path / "other.db"))
    other = app_early._pending
    assert other is not None
    app = _app(opened.path, config_dir)
    assert app.gateway is not other.gateway and other.gateway.closed
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        assert table.row_keys() == [str(f.id) for f in store.recall("", limit=50).facts]
    assert not (tmp_path / "other.db").exists()  # nothing was ever written there


async def test_the_collector_paused_for_the_start_runs_again_once_results_show(
        sample, opened, config_dir):
    app_early.open_early(opened.path)
    assert not gc.isenabled()  # paused while the app starts
    app = _app(opened.path, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.screen.query_one(RecallPane).last_result is not None
        assert gc.isenabled()


async def test_the_collector_runs_again_when_the_early_start_is_not_claimed(
        sample, opened, tmp_path):
    app_early.open_early(str(tmp_path / "other.db"))
    assert not gc.isenabled()
    assert app_early.claim(opened.path, False) is None
    assert gc.isenabled()


async def test_the_collector_runs_again_when_the_store_cannot_open(
        tmp_path, monkeypatch, config_dir):
    def failing(path: str | None, readonly: bool):  # noqa: ANN202
        def open_store() -> Store:
            raise OSError("disk on fire")
        return open_store

    monkeypatch.setattr(app_early, "opener", failing)
    path = str(tmp_path / "memory.db")
    app_early.open_early(path)
    try:
        app = _app(path, config_dir)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            assert "disk on fire" in str(app.screen.query_one("#error-message").render())
            assert gc.isenabled()
    finally:
        gc_policy.resume()
        gc.unfreeze()


async def test_the_filters_and_other_tabs_wait_for_the_opening_results(
        sample, monkeypatch, config_dir):
    """The Selects and hidden panes are built after the first results, however long the
    opening search takes (they used to give up waiting after ten frames)."""
    from memharness_tui.tui.widgets.recall_filters import FilterStub

    store, _ = sample
    async with _opening_search_held(store, monkeypatch, config_dir) as (app, pilot, gate):
        for _ in range(30):  # many frames while the opening search runs
            await pilot.pause()
        assert len(app.screen.query(FilterStub)) == 3 and not app.screen.query(Select)
        assert not app.screen.query("#subjects-pane")
        gate.set()
        await settle(pilot)
        assert not app.screen.query(FilterStub) and len(app.screen.query(Select)) == 3
        assert app.screen.query("#subjects-pane")
        assert app.screen.query_one("#results", ResultsTable).row_keys() == [
            str(f.id) for f in store.recall("", limit=50).facts]
        gc.unfreeze()


async def test_the_gil_switch_interval_is_short_from_the_early_start_until_exit(
        sample, opened, tmp_path, config_dir):
    before = sys.getswitchinterval()
    assert before > app_early.SWITCH_INTERVAL
    app_early.open_early(opened.path)
    assert sys.getswitchinterval() == app_early.SWITCH_INTERVAL  # while Textual is imported
    app = _app(opened.path, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert sys.getswitchinterval() == app_early.SWITCH_INTERVAL
    assert sys.getswitchinterval() == before
    app_early.open_early(str(tmp_path / "other.db"))
    assert app_early.claim(opened.path, False) is None  # not claimed: restored at once
    assert sys.getswitchinterval() == before


def test_the_early_start_imports_no_textual() -> None:
    code = ("import sys, memharness_tui.tui.app_early; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
