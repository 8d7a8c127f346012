"""The app opened by its path, as the console script opens it (``--db``, ``MEMHARNESS_DB``,
the default file): the Staleness tab's jobs work there exactly as in every other test."""

from __future__ import annotations

import asyncio

from .conftest import Env, ready, settle, shown_summary
from .helpers import rows


async def _until(check, what: str, bound: float = 60.0) -> None:  # noqa: ANN001
    """Wait for ``check()`` (a state, not a duration); fail naming ``what`` after ``bound``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + bound
    while not check():
        if loop.time() > end:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.01)


async def test_a_pass_runs_and_writes_on_an_app_opened_by_its_path(env: Env) -> None:
    before = rows(env.db)
    app = env.app(store=str(env.db))
    async with app.run_test(size=(140, 40)) as pilot:
        dash = await ready(pilot)
        assert not app.screen.is_modal, f"a modal over the tab: {type(app.screen).__name__}"
        await pilot.press("s")
        await _until(lambda: dash.state is not None and dash.state.done, "the pass ended")
        await settle(pilot)
        assert not app.screen.is_modal, f"a modal over the tab: {type(app.screen).__name__}"
        assert shown_summary(dash).startswith("checked 7 / ")
    after = rows(env.db)
    checked = [fid for fid in env.ids if after[fid]["checked_at"] != before[fid]["checked_at"]]
    assert len(checked) == 7, "the pass wrote its verdicts to the file"


async def test_a_pass_on_a_store_with_no_file_yet_says_there_is_nothing_to_check(
        env: Env) -> None:
    new = env.root / "new.db"
    app = env.app(store=str(new))
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(lambda: app.main_screen() is not None, "the main screen")
        await pilot.press("4", "s")
        await settle(pilot)
        assert not app.screen.is_modal, f"a modal over the tab: {type(app.screen).__name__}"
        notes = [n.message for n in app._notifications]
        assert any("Nothing to check: this store has no facts yet" in n for n in notes), notes
    assert not new.exists(), "looking at an empty store creates no file"
