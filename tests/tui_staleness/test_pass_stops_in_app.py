"""A pass that stops early, in the app (issue #20, items 3 and 5): the dashboard says exactly
what was written — the count matches the rows in the file — never "nothing was written"."""

from __future__ import annotations

import os
from typing import Any

import pytest
from textual.widgets import Static

from memharness_tui.store import Store
from memharness_tui.store.errors import DiskFull

from .conftest import Env, ready, settle
from .helpers import rows
from .screen_reading import shown_error


async def wait_done(pilot: Any, dash: Any) -> None:
    for _ in range(600):
        await pilot.pause(0.02)
        if dash.state is not None and dash.state.done:
            break
    await settle(pilot)


def checked_at(env: Env) -> dict[int, Any]:
    return {i: r["checked_at"] for i, r in rows(env.db).items()}


async def test_a_pass_stopped_by_a_full_disk_says_what_it_wrote(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    before = checked_at(env)
    real = Store.set_staleness_many
    calls = [0]

    def fills_on_the_third(self: Store, *a: Any, **kw: Any) -> Any:
        calls[0] += 1
        if calls[0] == 3:
            raise DiskFull(f"the disk holding {self.path} is full; nothing was written — "
                           "free some space and try again")
        return real(self, *a, **kw)

    monkeypatch.setattr(Store, "set_staleness_many", fills_on_the_third)
    app = env.app(batch_size=2, throttle=lambda _e: None)  # in-process: the patch applies
    async with app.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        await wait_done(pilot, dash)
        error = shown_error(dash) or ""  # the counters line, as a person reads it
        total = dash.state.last.total if dash.state and dash.state.last else None
        assert error == (f"4 of {total} verdicts written, then the disk holding "
                         f"{env.store.path} is full; the rest are unchanged — free some "
                         "space and try again"), error
        counters = dash.query_one("#dash-counters", Static).render().plain
        assert "4 of" in counters and "nothing was written" not in counters
    after = checked_at(env)
    assert sum(1 for i in after if after[i] != before.get(i)) == 4  # the rows in the file


async def test_a_pass_whose_file_is_deleted_says_so_in_the_app(env: Env) -> None:
    gone = []

    def delete_after_the_first_batch(event: Any) -> None:
        if event.checked and not gone:
            os.remove(env.db)
            gone.append(event.checked)

    app = env.app(batch_size=2, throttle=delete_after_the_first_batch)
    async with app.run_test(size=(120, 36)) as pilot:
        dash = await ready(pilot)
        await pilot.press("s")
        await wait_done(pilot, dash)
        error = shown_error(dash) or ""
        assert error.startswith(f"{env.store.path} was deleted during the pass: the 2 of "), error
        assert "written before went to the old file" in error
    assert not env.db.exists() and not (env.root / "memory.db-wal").exists()
