"""Issue #26: while a writing pass runs in the pass process, the app keeps its own work off the
pass's core — the rows the pass judges are read ahead, while the tab is looked at (again at the
pass's start only if something was written since); each batch's verdicts are made ready for
the list in the pass's thread as they arrive, not all at once on the UI thread; the rows on
screen wait longer for their drift and triage (git) while the pass runs. The list at the end
is the same: it equals a fresh load of the store."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from memharness_tui.store import Store
from memharness_tui.tui.state import StalenessOptions
from memharness_tui.tui.widgets.staleness import row_analysis
from memharness_tui.tui.widgets.staleness.row_analysis import PASS_DRIFT_DELAY

from .conftest import Env, Stepper, ready, settle
from .helpers import FakeTimer, HeldCheck
from .test_pass_follow import checked_equals_store, picture, run_pass


def real_clock_app(env: Env, *, drift_delay: float = 0.0) -> Any:
    """Passes in the pass process (system clock, no throttle), as in real use."""
    app = env.app(batch_size=2)
    app.staleness_options = StalenessOptions(  # type: ignore[attr-defined]
        timer=FakeTimer(), batch_size=2, repos=[str(env.shop.path)], cwd=str(env.root),
        drift_delay=drift_delay)
    return app


def count_reads(app: Any) -> list[object]:
    """Every read of the pass's rows by id from now on (``facts_by_id``)."""
    service = app.service
    by_id = service.facts_by_id
    reads: list[object] = []

    async def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(args)
        return await by_id(*args, **kwargs)

    service.facts_by_id = counted
    return reads


async def test_the_rows_read_ahead_are_the_pass_rows_and_its_batches_are_made_ready_off_the_ui(
        env: Env) -> None:
    env.store.set_staleness(env.ids[1], "stale", "2026-10-01T08:00:00.000Z", env.shop.c1)
    app = real_clock_app(env)
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        await settle(pilot)  # the read ahead, after the list's load
        reads = count_reads(app)
        rows = panel.follower.rows
        changes = rows.changes
        threads: list[bool] = []  # per batch made ready: on the UI thread?

        def where(verdicts: Any, *read: Any) -> Any:
            threads.append(threading.current_thread() is threading.main_thread())
            return changes(verdicts, *read)

        rows.changes = where  # type: ignore[method-assign]
        at_end: list[list[tuple[str, ...]]] = []
        finished = dash._finished

        def finishing(st: Any, ev: Any) -> None:
            finished(st, ev)
            at_end.append(picture(panel))

        dash._finished = finishing  # type: ignore[method-assign]
        held = HeldCheck(panel.follower)  # the check after the pass, run when looked at
        await run_pass(pilot, dash)
        assert dash.controller.in_child(dash.state)  # the pass ran in the pass process
        assert reads == []  # its rows were read while the tab was looked at
        assert threads and not any(threads)  # every batch made ready in the pass's thread
        await checked_equals_store(pilot, panel, env, held)
        assert at_end == [picture(panel)]  # whole as the pass ended


async def test_a_write_after_the_read_ahead_reads_the_rows_again_at_the_pass_start(
        env: Env) -> None:
    app = real_clock_app(env)
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        await settle(pilot)
        reads = count_reads(app)
        revision = app.store_revision
        other = Store.open(str(env.db))
        try:  # another connection's fact, pinned where the pass finds it stale
            new_id = other.remember("api", "The API speaks JSON", source_commit=env.shop.c1,
                                    source_path="src/config.py")[0]
        finally:
            other.close()
        for _ in range(300):  # the app notices (its data-version poll)
            if app.store_revision != revision:
                break
            await asyncio.sleep(0.01)
        assert app.store_revision != revision
        await settle(pilot)
        held = HeldCheck(panel.follower)  # the check after the pass, run when looked at
        await run_pass(pilot, dash)
        assert len(reads) == 1  # the rows read ahead were not the store's any more
        await settle(pilot)
        assert new_id in [f.id for f in panel.flagged]
        await checked_equals_store(pilot, panel, env, held)


async def test_rows_on_screen_wait_for_drift_while_a_pass_writes_and_get_it_after(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    # the wait while a pass writes outlasts any slow machine's pause below: the test looks
    # inside the window instead of racing a one-second timer
    monkeypatch.setattr(row_analysis, "PASS_DRIFT_DELAY", 600.0)
    drift_delay = 0.15  # as in real use (the tests' others: 0, at once)
    app = env.app(batch_size=2)
    options = app.staleness_options  # type: ignore[attr-defined]
    options.drift_delay = drift_delay
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        panel.drift_delay = drift_delay

        def waiting() -> list[int]:
            return [fid for fid in panel.visible_ids()
                    if (info := panel.rows.get(fid)) is not None
                    and panel.analysis.needs_work(info)]

        stepper = Stepper(dash)
        for _ in range(3):  # the start event and two batches: flagged rows appear
            stepper.step()
            await settle(pilot, 1)
        assert waiting(), "the batches listed rows that need drift and triage"
        await pilot.pause(min(0.5, PASS_DRIFT_DELAY / 2))  # > drift_delay: would have run
        assert waiting()  # held while the pass writes
        stepper.run()
        await pilot.pause(drift_delay + 0.3)
        await settle(pilot)
        for _ in range(100):
            if not waiting():
                break
            await pilot.pause(0.02)
        assert waiting() == []  # the pass's end asked for them
