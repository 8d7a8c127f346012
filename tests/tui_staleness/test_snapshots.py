"""SVG snapshots: the dashboard before, during (driven step by step) and after a pass, and the
revise modal with its diff. Frozen store clock, fixed app ``now``, fake elapsed timer, no blink."""

from __future__ import annotations

from typing import Any

import pytest

from memharness_tui.tui.widgets.staleness.flagged_table import FlaggedTable

from .conftest import Env, Stepper, drift_settled, ready, settle

SIZE = (120, 36)


@pytest.fixture
def seeded(env: Env) -> Env:
    """Verdicts from an earlier pass (against c2) already recorded, like a real store has."""
    ids = env.ids
    env.store.set_staleness(ids[0], "stale", "2026-10-01T08:00:00.000Z", env.shop.c2)
    env.store.set_staleness(ids[4], "unresolved", "2026-10-01T08:00:00.000Z", env.shop.c2)
    return env


def test_dashboard_before_a_pass(snap_compare: Any, seeded: Env) -> None:
    async def run_before(pilot: Any) -> None:
        await ready(pilot)

    assert snap_compare(seeded.app(), terminal_size=SIZE, run_before=run_before)


def test_dashboard_during_a_pass(snap_compare: Any, seeded: Env) -> None:
    async def run_before(pilot: Any) -> None:
        dash = await ready(pilot)
        stepper = Stepper(dash)
        for _ in range(3):  # the start event and two batches of two: 4 of 7 checked
            stepper.step()
        await pilot.press("r")  # the header's counts as of now (not whenever the poll ran)
        await settle(pilot)

    assert snap_compare(seeded.app(batch_size=2), terminal_size=SIZE, run_before=run_before)


def test_dashboard_after_a_pass(snap_compare: Any, seeded: Env) -> None:
    async def run_before(pilot: Any) -> None:
        dash = await ready(pilot)
        Stepper(dash).run()
        await settle(pilot)
        await drift_settled(pilot, dash)

    assert snap_compare(seeded.app(batch_size=2), terminal_size=SIZE, run_before=run_before)


def test_dashboard_after_a_pass_small_terminal(snap_compare: Any, seeded: Env) -> None:
    async def run_before(pilot: Any) -> None:
        dash = await ready(pilot)
        Stepper(dash).run()
        await settle(pilot)
        await drift_settled(pilot, dash)

    assert snap_compare(seeded.app(batch_size=4), terminal_size=(80, 24), run_before=run_before)


def test_revise_modal_with_diff(snap_compare: Any, seeded: Env) -> None:
    async def run_before(pilot: Any) -> None:
        dash = await ready(pilot)
        Stepper(dash).run()
        await settle(pilot)
        await drift_settled(pilot, dash)
        table = dash.query_one("#flagged-table", FlaggedTable)
        table.move_cursor(row=0, animate=False)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.app.screen.git_ready.wait()
        await settle(pilot)

    assert snap_compare(seeded.app(), terminal_size=SIZE, run_before=run_before)


async def _at_the_end(pilot: Any) -> None:
    dash = await ready(pilot)
    table = dash.query_one("#flagged-table", FlaggedTable)
    table.focus()
    await pilot.press("end")  # the last rows: drawn (and triaged) only now
    await drift_settled(pilot, dash)
    assert dash.panel.current_fact() is dash.panel.shown[-1]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_flagged_table_past_300_rows(snap_compare: Any, many: Env,
                                     size: tuple[int, int]) -> None:
    assert snap_compare(many.app(), terminal_size=size, run_before=_at_the_end)
