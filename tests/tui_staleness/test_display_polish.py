"""Issue #21, display polish on the Staleness side: an unresolved pin has no drift to count
(the revise modal said "0 commits"), and the pass's timing has a log line of its own (at 80
columns it was cut off the end of the summary's line)."""

from __future__ import annotations

from textual.widgets import Static

from memharness_tui.tui.widgets.staleness.verdict_log import VerdictLog

from .conftest import Env, Stepper, drift_settled, ready, settle
from .test_editing import open_revise


async def test_an_unresolved_pin_shows_no_drift_count(env: Env) -> None:
    migrations = env.ids[5]  # its path did not exist at the pin: unresolved, the commit known
    async with env.app().run_test(size=(140, 44)) as pilot:
        dash = await ready(pilot)
        Stepper(dash).run()
        await settle(pilot)
        await drift_settled(pilot, dash)
        screen = await open_revise(pilot, dash, migrations)
        pin = screen.query_one("#revise-pin", Static).render().plain
        assert "unresolved" in pin
        drift = pin.split("drift", 1)[1].splitlines()[0]
        assert "commit" not in drift and "unknown" in drift, drift


async def test_the_pass_timing_has_its_own_log_line_at_80_columns(env: Env) -> None:
    async with env.app().run_test(size=(80, 24)) as pilot:
        dash = await ready(pilot)
        Stepper(dash).run()
        await settle(pilot)
        log = dash.query_one(VerdictLog)
        lines = [strip.text.rstrip() for strip in log.lines]
        done = next(i for i, line in enumerate(lines) if line.startswith("— pass 1 done:"))
        assert len(lines[done]) <= log.scrollable_content_region.width, lines[done]
        assert lines[done + 1].strip().startswith("took ") and "facts/s" in lines[done + 1]
        assert len(lines[done + 1]) <= log.scrollable_content_region.width
