"""Passes in the app: streaming counts, cancel, check-only, an unusable repo, a concurrent writer."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from textual.widgets import ProgressBar, Static

from memharness_tui.staleness import cli as staleness_cli
from memharness_tui.tui.widgets.staleness.controller import PassProgressed

from .conftest import Env, Stepper, ready, settle, shown_summary
from .helpers import EXPECTED, rows
from .screen_reading import shown_error

REPO_ROOT = Path(__file__).resolve().parents[2]


def plain(dash, widget_id: str) -> str:
    r = dash.query_one(widget_id, Static).render()
    return getattr(r, "plain", str(r))


def headless_summary(env: Env, capsys: pytest.CaptureFixture[str]) -> str:
    """What `memharness-tui staleness --check` prints first (nothing written)."""
    code = staleness_cli.main(["staleness", "--db", str(env.db), "--repo", str(env.shop.path),
                               "--check"])
    assert code == 0
    return capsys.readouterr().err.splitlines()[0]


def verdicts(env: Env) -> dict[int, object]:
    got = rows(env.db)
    return {i + 1: got[fid]["freshness"] for i, fid in enumerate(env.ids)}


async def test_step_pass_shows_every_batch_then_the_headless_summary(
        env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    expected_line = headless_summary(env, capsys)
    app = env.app(batch_size=2)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        stepper = Stepper(dash)
        assert stepper.st is not None
        shown: list[str] = []
        bars: list[tuple[float, float | None]] = []
        while stepper.step():
            await pilot.pause()
            shown.append(plain(dash, "#dash-counters"))
            bar = dash.query_one("#dash-progress", ProgressBar)
            bars.append((bar.progress, bar.total))
        await settle(pilot)
        # intermediate progress was on screen, with the real total
        assert shown[0].startswith("checked 0 of 7")
        assert "checked 2 of 7" in shown[1] and "checked 4 of 7" in shown[2]
        assert (2, 7) in bars and (4, 7) in bars
        assert stepper.seen == [(0, 7), (2, 7), (4, 7), (6, 7), (7, 7), (7, 7)]
        # the end: exactly the headless line, and how long it took
        assert plain(dash, "#dash-counters") == expected_line
        assert expected_line == "checked 7 / current 2 / stale 3 / unresolved 2 / backfilled 1"
        assert plain(dash, "#dash-rate").startswith("took ")
        log = "\n".join(str(line.text) for line in dash.query_one("#dash-log").lines)
        assert "src/legacy.py was deleted since" in log and "(backfilled)" in log
        # the flagged table reloaded from the store
        assert [f.id for f in dash.panel.flagged] == [env.ids[i - 1] for i in (1, 3, 4, 5, 6)]
    assert verdicts(env) == EXPECTED
    backfilled = rows(env.db)[env.ids[7]]
    assert backfilled["source_commit"] == env.shop.c2 and backfilled["source_path"] == "src/auth.py"


async def test_threaded_pass_streams_progress_messages(env: Env) -> None:
    seen: list[tuple[int, int]] = []
    handled = threading.Condition()

    def throttle(event) -> None:  # pass thread: wait until the UI has shown this event
        with handled:
            handled.wait_for(lambda: any(c == event.checked for c, _ in seen), timeout=5)

    def hook(message) -> None:
        if isinstance(message, PassProgressed):
            with handled:
                seen.append((message.event.checked, message.event.total))
                handled.notify_all()

    app = env.app(batch_size=1, throttle=throttle)
    async with app.run_test(size=(140, 40), message_hook=hook) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        for _ in range(500):
            await pilot.pause(0.01)
            if dash.state is not None and dash.state.done:
                break
        await settle(pilot)
        assert dash.state is not None and dash.state.done
        intermediate = [c for c, total in seen if 0 < c < total]
        assert len(intermediate) >= 3, seen
        received = list(dict.fromkeys(c for c, _ in seen))  # the hook sees a message per hop
        assert received == [0, 1, 2, 3, 4, 5, 6, 7]
        assert shown_summary(dash) == "checked 7 / current 2 / stale 3 / unresolved 2 / backfilled 1"
    assert verdicts(env) == EXPECTED


async def test_cancel_mid_pass_keeps_written_batches_whole(env: Env) -> None:
    gate = threading.Event()

    def throttle(event) -> None:
        if event.checked == 2:
            gate.wait(timeout=5)  # hold the pass after its first batch until the test cancels

    app = env.app(batch_size=2, throttle=throttle)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        for _ in range(500):
            await pilot.pause(0.01)
            if dash.state is not None and dash.state.last is not None \
                    and dash.state.last.checked == 2:
                break
        await pilot.press("c")
        gate.set()
        for _ in range(500):
            await pilot.pause(0.01)
            if dash.state.done:
                break
        await settle(pilot)
        assert dash.state.last.cancelled
        assert "cancelled" in plain(dash, "#dash-rate")
        assert plain(dash, "#dash-counters") == "checked 2 / current 1 / stale 1 / unresolved 0"
    got = verdicts(env)
    assert got[1] == "stale" and got[2] == "current"
    assert all(got[i] is None for i in range(3, 9))


async def test_check_only_writes_nothing(env: Env) -> None:
    before = rows(env.db)
    app = env.app(batch_size=3)
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        await pilot.press("k")
        assert dash.check_only and "check-only on" in plain(dash, "#dash-repos")
        await pilot.press("s")
        for _ in range(500):
            await pilot.pause(0.01)
            if dash.state is not None and dash.state.done:
                break
        await settle(pilot)
        assert shown_summary(dash) == "checked 7 / current 2 / stale 3 / unresolved 2 / backfilled 1"
        assert "check-only: nothing written" in plain(dash, "#dash-rate")
    assert rows(env.db) == before


async def test_unusable_repo_is_a_clear_error_and_nothing_is_written(env: Env) -> None:
    plain_folder = env.root / "not-a-repo"
    plain_folder.mkdir()
    before = rows(env.db)
    app = env.app(repos=[str(plain_folder)])
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        await settle(pilot)
        error = shown_error(dash)  # the counters line, as a person reads it
        assert error is not None and "not a git repository" in error
        assert plain(dash, "#dash-counters").startswith("✗ ")
        assert plain(dash, "#dash-rate") == "nothing was written"
        assert any("not a git repository" in n.message for n in app._notifications)
    assert rows(env.db) == before


async def test_pass_while_another_process_writes(env: Env) -> None:
    """Real overlap: the writer waits for a signal the pass gives once it has started, and keeps
    writing (one commit per fact) until the test says the pass has ended."""
    stop = env.root / "stop-writing"
    writer = textwrap.dedent(f"""
        import sys, pathlib
        sys.path.insert(0, {str(REPO_ROOT)!r})
        from memharness_tui.store import Store
        sys.stdin.readline()  # the signal: the pass has started
        s = Store.open({str(env.db)!r})
        n = 0
        while not pathlib.Path({str(stop)!r}).exists():
            s.remember("writer", f"note {{n}}", source_commit={env.shop.c1!r},
                       source_path="src/db.py")
            n += 1
            if n == 1:
                print("writing", flush=True)
        s.close()
        print(n, flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", writer], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    overlapped: list[int] = []

    def throttle(event) -> None:  # pass thread, after each batch
        if not overlapped:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
            assert proc.stdout.readline().strip() == "writing"  # its first commit is in
            overlapped.append(event.checked)

    app = env.app(batch_size=1, throttle=throttle)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            dash = await ready(pilot)
            await pilot.press("s")
            for _ in range(2000):
                await pilot.pause(0.01)
                if dash.state is not None and dash.state.done:
                    break
            assert dash.state is not None and dash.state.done
            assert dash.state.error is None, dash.state.error
            report = dash.state.spass.report
            assert overlapped and report.checked == report.total >= 7
            stop.touch()  # the pass has ended: the writer may stop
            await settle(pilot)
    finally:
        stop.touch()
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    written = int(out.split()[-1])
    assert written >= 1
    got = rows(env.db)
    notes = [r for r in got.values() if r["subject"] == "writer"]
    assert {r["fact"] for r in notes} == {f"note {i}" for i in range(written)}
    # every verdict the pass wrote is whole: freshness, checked_at and checked_head together
    for v in report.verdicts:
        r = got[v.fact_id]
        assert r["freshness"] == v.freshness and r["checked_head"] == env.shop.head
        assert r["checked_at"] is not None
    assert got[env.ids[0]]["freshness"] == "stale"
