"""Mutation round 7 (scripts/mutate.py): a refresh of the Recall tab after another
connection's write is one exact recall — never a "not yet exact" first screen before it
(widgets/recall_answer.py): the list on screen is already the last exact answer, so a
provisional one would only replace it with a worse list for a moment."""

from __future__ import annotations

from .conftest import make_app, settle
from .test_first_screen_recall import (  # noqa: F401 - the fixture
    HALF_WORD,
    LABEL,
    calls,
    exact_ids,
    shown_ids,
    small_window,
    status,
    type_query,
    until,
)


async def test_a_refresh_after_a_write_is_one_exact_recall(sample, config_dir, calls):  # noqa: F811
    store, _ = sample
    app = make_app(store, config_dir, poll_interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        small_window(app)
        await type_query(pilot, HALF_WORD)
        await settle(pilot)
        assert calls.of(HALF_WORD) == ["recall_first_screen", "recall"]  # typed: first screen
        calls.made.clear()
        exact = shown_ids(app)
        assert exact == exact_ids(store, HALF_WORD)
        gate = calls.hold("recall", HALF_WORD)  # the refresh's exact recall takes its time
        revision = app.store_revision
        store.remember("ops", "an unrelated note written by an agent")
        for _ in range(200):  # the poll sees the other connection's commit
            await pilot.pause(0.02)
            if app.store_revision != revision:
                break
        assert app.store_revision != revision
        await until(pilot, lambda: calls.of(HALF_WORD) != [], "the refresh's search")
        await pilot.pause(0.1)
        # meanwhile the last exact list stays, unlabelled: no provisional list replaces it
        assert LABEL not in status(app) and shown_ids(app) == exact
        gate.set()
        await settle(pilot)
        assert calls.of(HALF_WORD) == ["recall"]  # the refresh: the exact recall alone
        assert shown_ids(app) == exact_ids(store, HALF_WORD) and LABEL not in status(app)
