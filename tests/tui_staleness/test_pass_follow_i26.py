"""Issue #26's last row: a writing pass's verdicts update the flagged list in place (the rows it
judges read once, at its start), so the list is whole when the pass ends, with no read of every
flagged row; the load that follows checks it. Whatever the route, the list equals a fresh load
of the store, row by row and cell by cell, and the header its counts."""

from __future__ import annotations

from typing import Any

from memharness_tui.store import Store
from memharness_tui.tui.widgets.header import StatusStrip

from .conftest import Env, ready, settle

SHOWN = (1, 2, 4, 5, 7, 8, 9)  # id, verdict, fact, reason, pin, subject, repo (not drift/triage)


def picture(panel: Any) -> list[tuple[str, ...]]:
    """The list as drawn: each row's key and the cells that do not wait for git's drift."""
    return [(str(f.id), *(panel._cells(f)[i].plain for i in SHOWN)) for f in panel.shown]


async def run_pass(pilot: Any, dash: Any) -> None:
    """Press s and wait for the pass to end, without error."""
    await pilot.press("s")
    for _ in range(600):
        await pilot.pause(0.02)
        if dash.state is not None and dash.state.done:
            break
    assert dash.state is not None and dash.state.done and not dash.state.error


async def checked_equals_store(pilot: Any, panel: Any, env: Env) -> None:
    """After the check that follows a pass, the list is the store's, cell by cell."""
    await settle(pilot)
    await pilot.pause(0.7)  # the check after the pass (PASS_CHECK_DELAY)
    await settle(pilot)
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
        await run_pass(pilot, dash)
        assert reads == []  # the list followed the verdicts: no flagged row read again
        await settle(pilot)
        await pilot.pause(0.7)  # the check after the pass (PASS_CHECK_DELAY)
        await settle(pilot)
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
        await pilot.press("s")
        for _ in range(600):
            await pilot.pause(0.02)
            if dash.state is not None and dash.state.done:
                break
        await settle(pilot)
        await pilot.pause(0.7)
        await settle(pilot)
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
        await run_pass(pilot, dash)
        await settle(pilot)
        assert ended == [True]
        assert reads == []  # the late rows were waited for, not replaced by a whole read
        await checked_equals_store(pilot, panel, env)
        assert reads, "after the pass the list is loaded from the store once, to check it"


async def test_a_long_list_takes_a_pass_in_less_often_and_whole_at_its_end(
        env: Env, monkeypatch: Any) -> None:
    """Every verdict taken in rebuilds the whole list (~50 ms at 28k rows, on the UI thread):
    a long one takes them in at most every ``LONG_LIST_EVERY``; what it held back is in it the
    moment the pass ends."""
    import time

    from memharness_tui.tui.widgets.staleness import pass_rows

    monkeypatch.setattr(pass_rows, "LONG_LIST", 0)  # every list is long here
    monkeypatch.setattr(pass_rows, "LONG_LIST_EVERY", 60)  # and takes verdicts in once a pass
    app = env.app(batch_size=2, throttle=lambda ev: time.sleep(0.05))  # every batch is shown
    async with app.run_test(size=(160, 44)) as pilot:
        dash = await ready(pilot)
        panel = dash.panel
        follower = panel.follower
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
        await run_pass(pilot, dash)
        assert len(sizes) >= 3 and len(set(sizes)) == 1  # taken in once, then held
        reader = Store.open(str(env.db), readonly=True)
        try:
            fresh = [f.id for f in reader.flagged()]
        finally:
            reader.close()
        assert at_end == [fresh] and len(fresh) > sizes[0]  # whole as the pass ends
        await checked_equals_store(pilot, panel, env)
