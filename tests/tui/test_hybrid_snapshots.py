"""SVG snapshots of what hybrid recall (#24) and the forms' nudges (#23) add to the look: the
Recall tab's mode label, the similar-by-meaning box, the reembed modal, a nudge in a form."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from memharness_tui.store import FakeClock
from memharness_tui.tui.screens.fact_form import NewFactScreen
from memharness_tui.tui.screens.reembed import ReembedScreen

from .conftest import CLOCK_START, build_sample
from .hybrid_helpers import FakeEmbedder, embed_all, fake_service
from .test_snapshots import MID, WIDE, app_for, before, open_fact, set_input


@pytest.fixture
def snap_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """test_snapshots.py's store (a relative path: the same on screen every run)."""
    monkeypatch.chdir(tmp_path)
    store, info = build_sample(Path("memory.db"), FakeClock(CLOCK_START, 60_000))
    yield store, info, tmp_path / "config"
    store.close()


async def until(pilot: Pilot, condition) -> None:  # noqa: ANN001
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not met in time")


def test_recall_hybrid_label(snap_compare, snap_store):
    embedder = FakeEmbedder()
    embed_all(snap_store[0], embedder)
    app, _ = app_for(snap_store)
    app.embedding = fake_service(embedder)

    async def ready(pilot: Pilot) -> None:
        await until(pilot, lambda: app.embedding.ready)

    assert snap_compare(app, terminal_size=MID,
                        run_before=before(ready, set_input("#search", "sessions"),
                                          ready, ))


def test_recall_label_no_vectors(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    app.embedding = fake_service()

    async def status(pilot: Pilot) -> None:
        from memharness_tui.tui.widgets.recall import RecallPane

        await until(pilot, lambda: pilot.app.screen.query_one(RecallPane).ranking.status
                    is not None)

    assert snap_compare(app, terminal_size=MID, run_before=before(status))


def test_detail_similar_by_meaning(snap_compare, snap_store):
    embed_all(snap_store[0], FakeEmbedder())
    app, info = app_for(snap_store)

    async def filled(pilot: Pilot) -> None:
        await until(pilot, lambda: pilot.app.screen.query_one("#similar").neighbours
                    is not None)

    assert snap_compare(app, terminal_size=WIDE,
                        run_before=before(open_fact(info.chain[1]), filled))


def test_reembed_done(snap_compare, snap_store):
    app, _ = app_for(snap_store)
    app.embedding = fake_service(requested=False)

    async def reembed(pilot: Pilot) -> None:
        pilot.app.push_screen(ReembedScreen())
        await until(pilot, lambda: isinstance(pilot.app.screen, ReembedScreen)
                    and pilot.app.screen.finished)

    assert snap_compare(app, terminal_size=MID, run_before=before(reembed))


def test_new_fact_form_nudge(snap_compare, snap_store):
    app, _ = app_for(snap_store)

    async def form(pilot: Pilot) -> None:
        screen = NewFactScreen(subject="bulk")
        screen.NUDGE_DELAY = 0.01
        pilot.app.push_screen(screen)
        await pilot.pause()
        screen.query_one("#form-fact", TextArea).text = "Bulk fact number 3 about widgets"
        await until(pilot, lambda: screen.nudges.note != "")

    assert snap_compare(app, terminal_size=WIDE, run_before=before(form))
