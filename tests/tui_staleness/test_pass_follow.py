"""Issue #26's last row: a writing pass's verdicts update the flagged list in place (the rows it
judges read once, at its start), so the list is whole when the pass ends, with no read of every
flagged row; the load that follows checks it. Whatever the route, the list equals a fresh load
of the store, row by row and cell by cell, and the header its counts."""

from __future__ import annotations

from typing import Any

from memharness_tui.store import Store
from memharness_tui.tui.widgets.header import StatusStrip
from memharness_tui.tui.widgets.staleness.pass_rows import PASS_CHECK_DELAY

from ..tui.conftest import until
from .conftest import Env, ready, settle
from .helpers import HeldCheck

SHOWN = (1, 2, 4, 5, 7, 8, 9)  # id, verdict, fact, reason, pin, subject, repo (not drift/triage)


def picture(panel: Any) -> list[tuple[str, ...]]:
    """The list as drawn: each row's key and the cells that do not wait for git's drift."""
    return [(str(f.id), *(panel._cells(f)[i].plain for i in SHOWN)) for f in panel.shown]


async def run_pass(pilot: Any, dash: Any) -> None:
    """Press s and wait for the pass to end, without error."""
    await pilot.press("s")
    await until(pilot, lambda: dash.state is not None and dash.state.done, "the pass's end")
    assert dash.state is not None and dash.state.done and not dash.state.error


async def check_due(pilot: Any, held: HeldCheck) -> None:
    """Wait for the followed pass to ask for its check (held: the list stays as the pass
    left it), ``PASS_CHECK_DELAY`` after its end."""
    await until(pilot, lambda: held.due, "the check after the pass asked for")
    assert held.due == [PASS_CHECK_DELAY]


async def run_check(pilot: Any, panel: Any, held: HeldCheck) -> None:
    """Run the held check (as its timer would) and wait for the load it asks for to end."""
    seq = panel._load_seq
    held.run()
    assert not panel.follower.checking
    await until(pilot, lambda: panel._load_seq > seq and not panel._needs_load
                and not panel._loads_running and not panel._loading, "the check's load")
    await settle(pilot)


async def checked_equals_store(pilot: Any, panel: Any, env: Env, held: HeldCheck) -> None:
    """After the check that follows a pass, the list is the store's, cell by cell."""
    await check_due(pilot, held)
    await run_check(pilot, panel, held)
    reader = Store.open(str(env.db), readonly=True)
    try:
        fresh = reader.flagged()
    finally:
        reader.close()
    assert panel.flagged == fresh
    assert [row[0] for row in picture(panel)] == [str(f.id) for f in fresh]


async def test_the_list_is_whole_when_a_pass_ends_and_equals_a_fresh_load(env: Env) -> None:
    ids = env.ids
    env.store.set_staleness(ids[1], "stale", "2026-10-01T08:00:00.000Z", env.shop.c1)
    app = env.app(batch_size=2)
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        assert [f.id for f in panel.flagged] == [ids[1]]
        service = app.service
        reads: list[str] = []  # every read of the whole flagged list
        whole = service.flagged

        async def counted(*args: Any, **kwargs: Any) -> Any:
            reads.append("flagged")
            return await whole(*args, **kwargs)

        service.flagged = counted  # type: ignore[method-assign]
        at_end: list[list[tuple[str, ...]]] = []
        before = picture(panel)
        rows_read: list[bool] = []  # whether the pass's rows were read by its end
        finished = dash._finished

        def finishing(st: Any, ev: Any) -> None:
            rows_read.append(panel.follower.rows.read is not None)
            finished(st, ev)
            at_end.append(picture(panel))  # what the screen holds as the pass ends

        dash._finished = finishing  # type: ignore[method-assign]
        held = HeldCheck(panel.follower)
        await run_pass(pilot, dash)
        await check_due(pilot, held)
        assert reads == []  # the list followed the verdicts: no flagged row read again
        await run_check(pilot, panel, held)
        assert reads, "after the pass the list is loaded from the store once, to check it"

        reader = Store.open(str(env.db), readonly=True)
        try:
            fresh = reader.flagged()
            counts = reader.counts()
        finally:
            reader.close()
        assert [f.id for f in panel.flagged] == [f.id for f in fresh]
        assert panel.flagged == fresh  # checked_at and all, after the check
        checked = picture(panel)
        assert [row[0] for row in checked] == [str(f.id) for f in fresh]
        if rows_read == [True]:
            assert at_end == [checked]  # the list at the pass's end was already this one
        else:  # a busy machine: the pass ended first; the list waited for its rows (no read
            # of every row, above) — test_rows_read_slower_than_the_pass_still_follow_it
            assert at_end == [before]
        strip = app.screen.query_one(StatusStrip).render()
        text = getattr(strip, "plain", str(strip))
        assert f"{counts.stale} stale" in text and f"{counts.unresolved} unresolved" in text
        assert panel.flagged_total == counts.stale + counts.unresolved == len(fresh)

        panel.reload()  # a fresh load draws the same list
        await settle(pilot)
        assert picture(panel) == checked


async def test_a_write_while_a_pass_is_followed_is_in_the_list_after_it(env: Env) -> None:
    """Another connection's write during the pass (here: a row retracted that the list held)
    is not in the pass's verdicts; the load that checks the list after the pass brings it."""
    ids = env.ids
    env.store.set_staleness(ids[1], "stale", "2026-10-01T08:00:00.000Z", env.shop.c1)
    gone = ids[1]
    app = env.app(batch_size=2)
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        follower = panel.follower
        wrote = follower.wrote
        retracted: list[int] = []

        def retract_then_write(verdicts: Any) -> None:
            if not retracted:  # after the pass's first batch (which judged it) committed
                other = Store.open(str(env.db))
                try:
                    retracted.extend(other.forget(fact_id=gone)[1])
                finally:
                    other.close()
            wrote(verdicts)

        follower.wrote = retract_then_write  # type: ignore[method-assign]
        held = HeldCheck(follower)
        await run_pass(pilot, dash)
        await check_due(pilot, held)
        await run_check(pilot, panel, held)
        reader = Store.open(str(env.db), readonly=True)
        try:
            fresh = reader.flagged()
        finally:
            reader.close()
        assert retracted == [gone] and gone not in [f.id for f in fresh]
        assert panel.flagged == fresh


async def test_rows_read_slower_than_the_pass_still_follow_it(env: Env) -> None:
    """On a busy machine the pass can end before its rows are read: the list then waits for
    them (no read of every flagged row), shows the verdicts that waited, and is checked as
    after any followed pass — it equals a fresh load."""
    import asyncio

    ids = env.ids
    env.store.set_staleness(ids[1], "stale", "2026-10-01T08:00:00.000Z", env.shop.c1)
    app = env.app(batch_size=2)
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        service = app.service
        reads: list[str] = []
        whole, by_id = service.flagged, service.facts_by_id
        ended: list[bool] = []

        async def counted(*args: Any, **kwargs: Any) -> Any:
            reads.append("flagged")
            return await whole(*args, **kwargs)

        async def slow(*args: Any, **kwargs: Any) -> Any:
            while not (dash.state is not None and dash.state.done):
                await asyncio.sleep(0.01)  # the pass ends first
            ended.append(True)
            return await by_id(*args, **kwargs)

        service.flagged = counted  # type: ignore[method-assign]
        service.facts_by_id = slow  # type: ignore[method-assign]
        held = HeldCheck(panel.follower)
        await run_pass(pilot, dash)
        await check_due(pilot, held)  # once the late rows came
        assert ended == [True]
        assert reads == []  # the late rows were waited for, not replaced by a whole read
        await checked_equals_store(pilot, panel, env, held)
        assert reads, "after the pass the list is loaded from the store once, to check it"


async def test_a_long_list_takes_a_pass_in_less_often_and_whole_at_its_end(
        env: Env, monkeypatch: Any) -> None:
    """Every verdict taken in rebuilds the whole list (~50 ms at 28k rows, on the UI thread):
    a long one takes them in at most every ``LONG_LIST_EVERY``; what it held back is in it the
    moment the pass ends."""
    import threading
    import time

    from memharness_tui.tui.widgets.staleness import pass_rows

    from ..tui.conftest import PATIENCE

    monkeypatch.setattr(pass_rows, "LONG_LIST", 0)  # every list is long here
    monkeypatch.setattr(pass_rows, "LONG_LIST_EVERY", 60)  # and takes verdicts in once a pass
    applied: list[Any] = []  # the progress events the dashboard has shown
    shown = threading.Condition()

    def one_at_a_time(ev: Any) -> None:  # the pass thread: every batch is shown on its own
        with shown:
            shown.wait_for(lambda: any(e is ev for e in applied), timeout=PATIENCE)

    app = env.app(batch_size=2, throttle=one_at_a_time)
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        follower = panel.follower
        now = time.monotonic()
        follower.clock = lambda: now  # the pass takes no time: within LONG_LIST_EVERY
        apply = dash.apply

        def applying(st: Any, ev: Any) -> None:
            apply(st, ev)
            with shown:
                applied.append(ev)
                shown.notify_all()

        dash.apply = applying  # type: ignore[method-assign]
        sizes: list[int] = []  # the list's length after each batch the dashboard hands it
        batch = follower.batch

        def counted(verdicts: Any, prepared: Any) -> None:
            batch(verdicts, prepared)
            if verdicts:
                sizes.append(len(panel.flagged))

        follower.batch = counted  # type: ignore[method-assign]
        at_end: list[list[int]] = []
        finished = dash._finished

        def finishing(st: Any, ev: Any) -> None:
            finished(st, ev)
            at_end.append([f.id for f in panel.flagged])

        dash._finished = finishing  # type: ignore[method-assign]
        held = HeldCheck(follower)
        await run_pass(pilot, dash)
        assert len(sizes) >= 3 and len(set(sizes)) == 1  # taken in once, then held
        reader = Store.open(str(env.db), readonly=True)
        try:
            fresh = [f.id for f in reader.flagged()]
        finally:
            reader.close()
        assert at_end == [fresh] and len(fresh) > sizes[0]  # whole as the pass ends
        await checked_equals_store(pilot, panel, env, held)
