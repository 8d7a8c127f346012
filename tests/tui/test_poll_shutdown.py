"""The data_version poll at shutdown: a poll scheduled but cancelled before it ran (the app
exiting) leaves no coroutine that was never awaited (a RuntimeWarning, an error here)."""

from __future__ import annotations

import gc
import warnings

from .conftest import make_app, settle


async def test_a_poll_cancelled_before_it_runs_leaves_no_coroutine(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app._polling = False
            app._poll()  # what the interval timer does
            app.workers.cancel_group(app, "data_version")  # as the app's exit cancels it
        gc.collect()
    assert [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)] == []
