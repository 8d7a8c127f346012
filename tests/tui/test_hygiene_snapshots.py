"""SVG snapshots of the Hygiene tab and a fix's preview (issue #23), at 80×24 and 120×36."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from memharness_tui.demo import add_hygiene_examples
from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.screens.hygiene_preview import PlanPreview

from .conftest import CLOCK_START, build_sample, drain, make_app, settle

SIZES = {"narrow": (80, 24), "mid": (120, 36)}


@pytest.fixture
def hyg_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The sample store plus the demo's hygiene examples at a relative path (the header shows
    the same path every run), its clock frozen."""
    monkeypatch.chdir(tmp_path)
    clock = FakeClock(CLOCK_START, 60_000)
    store, _ = build_sample(Path("memory.db"), clock)
    clock.advance(31 * 86_400_000)
    add_hygiene_examples(store)
    path, frozen = str(store.path), FakeClock(clock.peek(), step_ms=0)
    store.close()
    return make_app(lambda: Store.open(path, clock=frozen), tmp_path / "config")


def tab(*then: Callable[[Pilot], Awaitable[None]]) -> Callable[[Pilot], Awaitable[None]]:
    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        for step in then:
            await step(pilot)

    return run


async def refile_preview(pilot: Pilot) -> None:
    pane = pilot.app.screen.query_one("#hygiene-pane")
    row = next(n for n, f in enumerate(pane.flags) if f.kind == "fragmentation")
    pane.query_one("#hygiene-table").move_cursor(row=row)
    await settle(pilot)
    await pilot.press("f")
    for _ in range(500):  # not settle: the fix's worker waits for this modal
        await pilot.pause(0.01)
        if isinstance(pilot.app.screen, PlanPreview):
            break
    await drain(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_hygiene_tab(snap_compare, hyg_app, size):
    assert snap_compare(hyg_app, terminal_size=SIZES[size], run_before=tab())


@pytest.mark.parametrize("size", SIZES)
def test_hygiene_preview(snap_compare, hyg_app, size):
    assert snap_compare(hyg_app, terminal_size=SIZES[size], run_before=tab(refile_preview))
