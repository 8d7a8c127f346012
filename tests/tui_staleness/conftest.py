"""Fixtures: a repo and a store in a temp folder (the cwd, so shown paths are short and stable)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.app import MemharnessApp
from memharness_tui.tui.state import StalenessOptions
from memharness_tui.tui.widgets.dashboard import StalenessDashboard

from ..tui.conftest import PATIENCE, drain, make_app, until
from .helpers import APP_NOW, CLOCK_START, FakeTimer, Shop, build_repo, shop_facts

DB = "memory.db"


@dataclass
class Env:
    root: Path
    shop: Shop
    store: Store
    clock: FakeClock
    ids: list[int]

    @property
    def db(self) -> Path:
        return self.root / DB

    def app(self, *, batch_size: int = 2, repos: list[str] | None = None,
            throttle: Any = None, store: Store | str | None = None) -> MemharnessApp:
        """The app on ``store`` (default: this env's, with its frozen clock; a path string:
        opened as the console script opens it)."""
        options = StalenessOptions(
            clock=self.clock, timer=FakeTimer(), batch_size=batch_size,
            repos=repos if repos is not None else [str(self.shop.path)], cwd=str(self.root),
            throttle=throttle, drift_delay=0,
        )
        return make_app(store or self.store, self.root / "config", now=APP_NOW,
                        staleness_options=options)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    monkeypatch.chdir(tmp_path)
    shop = build_repo(tmp_path / "shop")
    clock = FakeClock(CLOCK_START, step_ms=60_000)
    store = Store.open(DB, clock=clock)
    ids = [store.remember(f.pop("subject"), f.pop("fact"), **f)[0] for f in shop_facts(shop)]
    try:
        yield Env(tmp_path, shop, store, clock, ids)
    finally:
        store.close()


async def ready(pilot: Any) -> StalenessDashboard:
    """Wait for the main screen, show the Staleness tab, and let the loads settle."""
    app = pilot.app
    await until(pilot, lambda: app.main_screen() is not None, "the main screen")
    await pilot.press("4")
    await settle(pilot)
    dash = app.screen.query_one("#staleness-pane", StalenessDashboard)
    await drift_settled(pilot, dash)
    return dash


async def drift_settled(pilot: Any, dash: StalenessDashboard) -> None:
    """Wait until the rows on screen have their drift and triage (computed in a worker after layout)."""
    import time

    calm = 0
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        await settle(pilot, 1)
        pending = [fid for fid in dash.panel.visible_ids()
                   if (info := dash.panel.rows.get(fid)) is not None
                   and dash.panel.analysis.needs_work(info)]
        quiet = dash.panel._loaded and not dash.panel._needs_load and not pending and (
            bool(dash.panel.visible_ids()) or not dash.panel.shown)
        calm = calm + 1 if quiet else 0
        if calm >= 2:  # twice in a row: no reload or drift worker started in between
            break
        await pilot.pause(0.01)
    else:
        panel = dash.panel
        raise AssertionError(
            f"the flagged list never settled in {PATIENCE:g} s: loaded={panel._loaded}, "
            f"needs_load={panel._needs_load}, rows still without drift or triage={pending[:10]}")
    await settle(pilot)


async def settle(pilot: Any, rounds: int = 4) -> None:
    from textual.worker import WorkerCancelled

    for _ in range(rounds):
        for _attempt in range(20):
            try:  # an exclusive worker replaced by a newer one is cancelled: wait again
                await pilot.app.workers.wait_for_complete()
                break
            except WorkerCancelled:
                continue
        await pilot.pause()
    await drain(pilot)


class Stepper:
    """Drive a pass one event at a time on the UI thread, through the dashboard's own code
    (``prepare_pass`` / ``controller.events`` / ``apply``): deterministic snapshots without a
    test hook in production code. ``seen`` lists (checked, total) of every event shown."""

    def __init__(self, dash: StalenessDashboard) -> None:
        self.dash = dash
        self.st = dash.prepare_pass()
        self.events = dash.controller.events(self.st) if self.st is not None else iter(())
        self.seen: list[tuple[int, int]] = []

    def step(self) -> bool:
        from memharness_tui.tui.widgets.staleness.controller import PassFailed, pass_error

        if self.st is None or self.st.done:
            return False
        try:
            event = next(self.events)
        except StopIteration:
            return False
        except Exception as exc:  # noqa: BLE001 - as the pass thread reports it
            self.dash.on_pass_failed(PassFailed(self.st.run, pass_error(exc)))
            return False
        self.seen.append((event.checked, event.total))
        self.dash.apply(self.st, event)
        return not self.st.done

    def run(self) -> Stepper:
        while self.step():
            pass
        return self


def shown_summary(dash: StalenessDashboard) -> str:
    """The counters line as on screen (the headless summary after a pass)."""
    from memharness_tui.tui.widgets.staleness.counters import PassCounters

    return dash.query_one(PassCounters).text()


@pytest.fixture
def many(env: Env) -> Env:
    """350 stale facts (more than the old 300-row cap), in two subjects."""
    for i in range(350):
        fid, _ = env.store.remember("bulk-a" if i % 2 else "bulk-b", f"config fact {i}",
                                    source_commit=env.shop.c1, source_path="src/config.py")
        env.store.set_staleness(fid, "stale", "2026-10-01T00:00:00.000Z", env.shop.c2)
    return env
