"""A pass the app runs in its pass process (system clock, no throttle): the counters end on the
exact headless summary, every verdict is written, and cancel still stops it between batches."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.tui.state import StalenessOptions

from .conftest import Env, ready, settle, shown_summary
from .helpers import EXPECTED, FakeTimer, rows

SUMMARY = "checked 7 / current 2 / stale 3 / unresolved 2 / backfilled 1"


def real_clock_app(env: Env, batch_size: int = 2):  # type: ignore[no-untyped-def]
    app = env.app(batch_size=batch_size)
    app.staleness_options = StalenessOptions(  # type: ignore[attr-defined]
        timer=FakeTimer(), batch_size=batch_size, repos=[str(env.shop.path)],
        cwd=str(env.root), drift_delay=0)
    return app


async def until_done(pilot, dash) -> None:  # type: ignore[no-untyped-def]
    for _ in range(1000):
        await pilot.pause(0.01)
        if dash.state is not None and dash.state.done:
            break
    await settle(pilot)


def verdicts(env: Env) -> dict[int, object]:
    got = rows(env.db)
    return {i + 1: got[fid]["freshness"] for i, fid in enumerate(env.ids)}


async def test_a_pass_in_the_pass_process_ends_on_the_headless_summary(env: Env) -> None:
    app = real_clock_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        controller = dash.controller
        assert controller.worker is not None  # showing the tab started the pass process
        await pilot.press("s")
        await until_done(pilot, dash)
        st = dash.state
        assert st is not None and st.done and st.error is None
        assert controller.in_child(st) and st.prechecked
        assert shown_summary(dash) == SUMMARY
        assert st.last is not None and st.last.summary_line() == SUMMARY
        assert st.spass.report.summary_line() == SUMMARY  # the child's report, for follow mode
        assert len(st.spass.report.verdicts) == 7
        log = "\n".join(str(line.text) for line in dash.query_one("#dash-log").lines)
        assert "src/legacy.py was deleted since" in log and "(backfilled)" in log
        stale = ", ".join(f"#{i}" for i in st.spass.report.stale_ids)
        assert len(st.spass.report.stale_ids) == 3 and f"stale ids: {stale}" in log
        assert [f.id for f in dash.panel.flagged] == [env.ids[i - 1] for i in (1, 3, 4, 5, 6)]
        worker = controller.worker
    assert verdicts(env) == EXPECTED
    assert all(r["checked_at"] for r in rows(env.db).values() if r["freshness"])
    assert not worker.alive  # unmounting the dashboard stopped the pass process


async def test_cancel_reaches_the_pass_process(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pass the child started after its precheck is taken over, and c cancels it there:
    200 more pins, one per batch, keep it busy far longer than the cancel takes to land. Whole
    batches only are written."""
    from memharness_tui.staleness import worker as worker_mod

    for i in range(200):
        env.store.remember("more", f"fact {i}", source_commit=env.shop.c1,
                           source_path="src/config.py")
    app = real_clock_app(env, batch_size=1)
    requests: list[str] = []
    real_request = worker_mod.PassWorker._request
    real_events = worker_mod.PassWorker.events

    def request(self, kind, payload):  # type: ignore[no-untyped-def]
        requests.append(kind)
        return real_request(self, kind, payload)

    def events(self, job, report_to, *more):  # type: ignore[no-untyped-def]
        for n, event in enumerate(real_events(self, job, report_to, *more)):
            if n == 1:
                app.call_from_thread(dash.action_cancel_pass)  # as pressing c does
            yield event

    monkeypatch.setattr(worker_mod.PassWorker, "_request", request)
    monkeypatch.setattr(worker_mod.PassWorker, "events", events)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        await until_done(pilot, dash)
        st = dash.state
        assert requests == ["precheck"]  # the pass was the one the precheck started
        assert st is not None and st.done and st.last is not None
        assert st.last.cancelled and st.last.checked < st.last.total == 207
        assert "cancelled" in str(dash.query_one("#dash-rate").render())
    written = [r for r in rows(env.db).values() if r["freshness"] is not None]
    assert len(written) == st.last.checked


async def test_no_pass_process_to_start_means_passes_run_in_the_app(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    from memharness_tui.staleness import worker as worker_mod

    monkeypatch.setattr(worker_mod.sys, "executable", str(env.root / "no-such-python"))
    app = real_clock_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        assert dash.controller.worker is None  # given up at once, no error shown
        await pilot.press("s")
        await until_done(pilot, dash)
        assert dash.state is not None and dash.state.error is None
        assert not dash.state.prechecked and not dash.controller.in_child(dash.state)
        assert shown_summary(dash) == SUMMARY
    assert verdicts(env) == EXPECTED


def lose_the_pass_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pass sent to the pass process fails as when the process went away mid-pass."""
    from memharness_tui.staleness import worker as worker_mod

    def lost(self, job, report_to, *more):  # type: ignore[no-untyped-def]
        raise worker_mod.WorkerLost("the pass process stopped unexpectedly")
        yield  # a generator, as the real one

    monkeypatch.setattr(worker_mod.PassWorker, "events", lost)


async def test_a_pass_process_lost_mid_pass_fails_that_pass_and_the_next_runs_in_the_app(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    lose_the_pass_process(monkeypatch)
    app = real_clock_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        await until_done(pilot, dash)
        assert dash.state is not None and dash.state.error == (
            "the pass process stopped unexpectedly; the next pass runs in the app")
        assert dash.controller.worker is None
        await pilot.press("s")
        await until_done(pilot, dash)
        # the pass the child had started after its precheck may have adopted the pin already
        assert dash.state.error is None and not dash.controller.in_child(dash.state)
        assert shown_summary(dash) in (SUMMARY, SUMMARY.removesuffix(" / backfilled 1"))
    assert verdicts(env) == EXPECTED


async def test_the_header_takes_the_counts_the_pass_process_read_after_the_pass(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #26: the header settles as the pass ends, on the counts the pass process read just
    after its last commit; the panes' refresh after the pass reads no row to learn them."""
    from memharness_tui.store import Store
    from memharness_tui.tui.services import header_counts
    from memharness_tui.tui.services import store as store_service
    from memharness_tui.tui.widgets.header import StatusStrip
    from memharness_tui.tui.widgets.staleness import pass_rows

    monkeypatch.setattr(pass_rows, "PASS_CHECK_DELAY", 60)  # the list's check: not in this test
    monkeypatch.setattr(header_counts, "COUNT_WHILE_PASSING", 60)  # nor the pass's own counts
    calls: list[bool] = []  # the service's reads of every row (the header's own watch aside:
    real = store_service._counts  # where the wal-index cannot be read at an instant, it counts)

    def counting(s):  # type: ignore[no-untyped-def]
        calls.append(dash.state is not None and dash.state.done)
        return real(s)

    app = real_clock_app(env)
    app.poll_interval = 0  # the panes hear of the pass from its counts alone (no poll's tell)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        monkeypatch.setattr(store_service, "_counts", counting)
        revision = app.store_revision
        await pilot.press("s")
        await until_done(pilot, dash)
        st = dash.state
        assert st is not None and st.done and st.error is None and dash.controller.in_child(st)
        for _ in range(200):  # the panes hear of the pass once its counts came
            if app.store_revision != revision:
                break
            await pilot.pause(0.01)
        await settle(pilot)
        assert app.store_revision != revision
        learned = app.service._counts.current_learned()
        assert learned is not None
        with Store.open(str(env.db), readonly=True) as reader:
            assert learned == reader.counts()
        assert (learned.stale, learned.unresolved) == (3, 2)
        strip = str(app.screen.query_one(StatusStrip).render())
        assert f"{learned.pinned:,} pinned  3 stale  2 unresolved" in strip
        assert True not in calls  # nothing read in this process after the pass ended


async def test_showing_the_tab_has_the_pass_process_read_the_pins_ahead(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pins are read while nobody waits: once the tab's list has loaded (and again with
    the list's own read ahead), not between the start key and the pass."""
    from memharness_tui.staleness import worker as worker_mod

    asked: list[str] = []
    real = worker_mod.PassWorker.ahead

    def ahead(self, db_path):  # type: ignore[no-untyped-def]
        asked.append(db_path)
        real(self, db_path)

    monkeypatch.setattr(worker_mod.PassWorker, "ahead", ahead)
    app = real_clock_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        for _ in range(200):
            if asked:
                break
            await pilot.pause(0.01)
        assert asked and {Path(p).resolve() for p in asked} == {env.db.resolve()}
        await pilot.press("s")
        await until_done(pilot, dash)
        assert dash.state is not None and shown_summary(dash) == SUMMARY
    assert verdicts(env) == EXPECTED


@pytest.mark.parametrize("how", ["writes", "check-only", "fails"])
async def test_the_header_counts_less_often_only_while_a_writing_pass_runs(
        env: Env, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    from memharness_tui.tui.services.store import StoreService

    told: list[bool] = []
    real = StoreService.passing

    def passing(self, writing):  # type: ignore[no-untyped-def]
        told.append(writing)
        real(self, writing)

    monkeypatch.setattr(StoreService, "passing", passing)
    if how == "fails":
        lose_the_pass_process(monkeypatch)
    app = real_clock_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        if how == "check-only":
            await pilot.press("k")
        await pilot.press("s")
        await until_done(pilot, dash)
        assert dash.state is not None and dash.state.done
        assert (dash.state.error is not None) == (how == "fails")
        assert told == [how != "check-only", False]
        assert app.service.pass_writing is False


async def test_a_failure_reported_after_the_pass_ended_leaves_it_ended(env: Env) -> None:
    """Once a pass has ended on its summary, nothing after it (its counts' message going
    wrong, say) may turn it into a failed one."""
    from memharness_tui.tui.widgets.staleness.controller import PassFailed

    app = real_clock_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        await until_done(pilot, dash)
        st = dash.state
        assert st is not None and st.done and st.error is None
        dash.post_message(PassFailed(st.run, "the pass process stopped unexpectedly"))
        await settle(pilot)
        assert st.error is None and shown_summary(dash) == SUMMARY
        log = "\n".join(str(line.text) for line in dash.query_one("#dash-log").lines)
        assert "pass failed" not in log
