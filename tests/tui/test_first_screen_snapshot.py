"""SVG snapshot of the Recall tab showing a first screen (#26): the newest rows' ranking of a
half-typed word, with "not yet exact" in the status line while the exact recall is held."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from memharness_tui.store import FakeClock, Store

from .conftest import CLOCK_START, build_sample, settle
from .test_snapshots import MID, app_for


@pytest.fixture
def snap_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """test_snapshots.py's store (a relative path: the same on screen every run)."""
    monkeypatch.chdir(tmp_path)
    store, info = build_sample(Path("memory.db"), FakeClock(CLOCK_START, 60_000))
    yield store, info, tmp_path / "config"
    store.close()


@pytest.fixture
def held_recall(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """``Store.recall`` of "idge" on the app's DB thread waits (until the test ends)."""
    gate = threading.Event()
    real = Store.recall

    def recall(store: Store, query: str = "", *args: Any, **kwargs: Any) -> Any:
        if query == "idge" and threading.current_thread() is not threading.main_thread():
            gate.wait(30)
        return real(store, query, *args, **kwargs)

    monkeypatch.setattr(Store, "recall", recall)
    try:
        yield gate
    finally:
        gate.set()


def test_recall_first_screen(snap_compare, snap_store, held_recall):
    app, _ = app_for(snap_store)

    async def first_screen(pilot: Pilot) -> None:
        await settle(pilot)
        pilot.app.service.recalls.first_screen_rows = 12  # type: ignore[attr-defined]
        pilot.app.service.recalls.first_screen_above = 0  # type: ignore[attr-defined]
        pilot.app.screen.query_one("#search", Input).focus()
        await pilot.press(*"idge")
        status = pilot.app.screen.query_one("#recall-status")
        for _ in range(500):
            if "not yet exact" in status.text.plain and "for idge" in status.text.plain:
                break
            await asyncio.sleep(0.01)
        await pilot.pause()

    assert snap_compare(app, terminal_size=MID, run_before=first_screen)
