"""A pane whose children are already gone (its screen being taken down: a ``serve`` session
closed while the pane was still being built or reloading) answers a late mount, reload or
time-travel change by doing nothing — never ``NoMatches`` into crash.log."""

from __future__ import annotations

from pathlib import Path

from memharness_tui.store import Store
from memharness_tui.tui.widgets.diff import DiffPane
from memharness_tui.tui.widgets.staleness.counters import PassCounters

from .conftest import Sample, make_app, settle


async def _until(pilot: object, selector: str) -> object:
    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(500):
        found = list(app.screen.query(selector))
        if found:
            return found[0]
        await pilot.pause(0.02)  # type: ignore[attr-defined]
    raise AssertionError(f"{selector} was never built")


async def test_a_diff_pane_without_its_children_ignores_late_calls(
        sample: tuple[Store, Sample], config_dir: Path) -> None:
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = await _until(pilot, "#diff-pane")
        assert isinstance(pane, DiffPane)
        await settle(pilot)
        diff = pane.last_diff
        await pane.remove_children()  # as the screen's teardown leaves it, the pane still there
        pane.watch_as_of("2026-01-01T00:00:00.000Z")  # a time-travel change landing late
        assert pane.run_diff() is False  # a reload landing late
        pane.on_mount()  # a mount handled after the children went
        pane.action_focus_since()
        pane.action_focus_subject()
        if diff is not None:
            pane._show(diff, None)


async def test_pass_counters_without_their_children_ignore_a_late_mount(
        sample: tuple[Store, Sample], config_dir: Path) -> None:
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        counters = await _until(pilot, "PassCounters")
        assert isinstance(counters, PassCounters)
        await settle(pilot)
        await counters.remove_children()
        counters.on_mount()
        counters.idle()
