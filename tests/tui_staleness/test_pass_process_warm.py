"""The pass process (issue #26): it imports, while it waits for its first request, everything
the precheck and the pass then need — what a store's first open loads (before main's
vector_ext change, sqlite-vec's package and numpy: ~0.1 s) else lands between the start key
and the pass's first batch; and it
starts once the tab's list has loaded and been painted (its imports would take from that
first load, which on a large store is what the person waits for), or at once for a pass
asked for before then."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from memharness_tui.tui.state import StalenessOptions
from memharness_tui.tui.widgets.dashboard import StalenessDashboard

from .conftest import DB, Env, settle
from .helpers import FakeTimer

# In a fresh interpreter, as the pass process starts: warm up, then a precheck and a pass on the
# store and repo given; print the modules they imported that the warm-up had not.
PROBE = """
import json, sys
from memharness_tui.staleness import worker
worker.warm_up()
before = set(sys.modules)
from memharness_tui.staleness.git import GitChecker
from memharness_tui.staleness.precheck import coverage_and_work_with
from memharness_tui.staleness.runner import StalenessPass
db, repo = sys.argv[1], sys.argv[2]
checkers = [GitChecker(repo)]
cov, work = coverage_and_work_with(checkers, db)
report = StalenessPass(db, [repo], batch_size=2, work=work, checkers=checkers).run()
print(json.dumps({"new": sorted(set(sys.modules) - before), "checked": report.checked}))
"""


def test_the_warm_pass_process_imports_nothing_for_its_first_precheck_and_pass(
        env: Env) -> None:
    env.store.close()  # the pass writes: nothing of this process holds the file meanwhile
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", PROBE, str(env.root / DB), str(env.shop.path)],
                         capture_output=True, text=True, cwd=root, check=True, timeout=60)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["checked"] == len(env.ids) - 1  # the pass ran (one fact has no pin)
    assert got["new"] == [], " ".join(got["new"])


def real_clock_app(env: Env) -> Any:
    """Passes in the pass process (system clock, no throttle), as in real use."""
    app = env.app(batch_size=2)
    app.staleness_options = StalenessOptions(  # type: ignore[attr-defined]
        timer=FakeTimer(), batch_size=2, repos=[str(env.shop.path)], cwd=str(env.root),
        drift_delay=0)
    return app


async def list_load_held(pilot: Any) -> asyncio.Event:
    """Once the main screen is up, the flagged list's loads wait for the event returned (the
    first load of a large store takes its time)."""
    app = pilot.app
    for _ in range(200):
        if app.main_screen() is not None:
            break
        await pilot.pause(0.01)
    whole = app.service.flagged
    release = asyncio.Event()

    async def held(*args: object, **kwargs: object) -> object:
        await release.wait()
        return await whole(*args, **kwargs)

    app.service.flagged = held
    return release


async def test_the_pass_process_starts_once_the_lists_first_load_is_shown(env: Env) -> None:
    """Its imports (~0.3 s of CPU) would take from the list's first load, which on a large
    store is what the person waits for; a pass asked for before that starts it at once."""
    app = real_clock_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        release = await list_load_held(pilot)
        await pilot.press("4")
        await pilot.pause(0.3)
        dash = app.screen.query_one("#staleness-pane", StalenessDashboard)
        assert not dash.panel._loaded
        assert dash.controller.worker is None  # not while the list loads
        release.set()
        await settle(pilot)
        assert dash.panel._loaded
        assert dash.controller.worker is not None  # once it is shown


async def test_a_pass_asked_for_before_the_list_loaded_runs_in_the_pass_process(
        env: Env) -> None:
    app = real_clock_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        release = await list_load_held(pilot)
        await pilot.press("4")
        await pilot.pause(0.1)
        dash = app.screen.query_one("#staleness-pane", StalenessDashboard)
        await pilot.press("s")
        for _ in range(1000):
            await pilot.pause(0.01)
            if dash.state is not None and dash.state.done:
                break
        release.set()
        await settle(pilot)
        st = dash.state
        assert st is not None and st.done and st.error is None
        assert dash.controller.in_child(st) and st.prechecked
