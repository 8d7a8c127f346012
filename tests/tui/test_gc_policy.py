"""Full garbage collections wait for the user to pause; young ones are unchanged."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest

from memharness_tui.tui import gc_policy

from .conftest import make_app, settle


@pytest.fixture
def python_default() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    yield before
    gc_policy.restore()
    gc.set_threshold(*before)
    gc.unfreeze()


def test_once_built_full_collections_are_left_to_idle_moments(python_default):
    young, middle, _ = python_default
    gc_policy.freeze_long_lived()
    assert gc.get_threshold() == (young, middle, gc_policy.SAFETY_FULL_AFTER)
    assert gc.get_freeze_count() > 0
    gc_policy.freeze_long_lived()  # a second build does not forget Python's own thresholds
    gc_policy.restore()
    assert gc.get_threshold() == python_default


def test_an_idle_moment_collects_only_when_python_would_have(python_default):
    assert not gc_policy.collect_if_due()  # the policy is not on: Python collects itself
    gc_policy.freeze_long_lived()
    gc.collect()
    assert not gc_policy.collect_if_due()  # nothing due just after a full collection
    for _ in range(gc_policy.FULL_AFTER):
        gc.collect(1)  # what Python's young collections do while the app works
    assert gc.get_count()[2] >= gc_policy.FULL_AFTER
    cycle: list[object] = []
    cycle.append(cycle)
    del cycle
    assert gc_policy.collect_if_due()
    assert gc.get_count()[2] == 0  # it was a full collection
    assert not gc_policy.collect_if_due()


async def test_the_app_collects_after_a_pause_in_input_never_during_it(
        sample, config_dir, monkeypatch, python_default):
    store, _ = sample
    collected: list[float] = []
    monkeypatch.setattr(gc_policy, "collect_if_due", lambda: collected.append(1.0) or True)
    # a pause long enough that a loaded machine's slow key press is still "input just came"
    monkeypatch.setattr(gc_policy, "IDLE_SECONDS", 60.0)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert gc.get_threshold()[2] == gc_policy.SAFETY_FULL_AFTER  # every tab built
        collected.clear()
        await pilot.press("down")
        app.idle_gc.collect_if_idle()  # input just came: not now
        assert collected == []
        app.idle_gc.last_input = time.monotonic() - gc_policy.IDLE_SECONDS
        app.idle_gc.collect_if_idle()
        assert collected == [1.0]
    assert gc.get_threshold() == python_default  # the app's exit gives Python its own back


async def test_no_idle_collection_while_a_pass_of_ours_writes(
        sample, config_dir, monkeypatch, python_default):
    """On two cores a full collection during a pass (~25 ms each) is taken from the pass
    process; it waits for the pass's end (issue #26)."""
    store, _ = sample
    collected: list[float] = []
    monkeypatch.setattr(gc_policy, "collect_if_due", lambda: collected.append(1.0) or True)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        collected.clear()
        app.idle_gc.last_input = time.monotonic() - gc_policy.IDLE_SECONDS - 1
        app.service.passing(True)  # as the Staleness tab does when a writing pass starts
        app.idle_gc.collect_if_idle()
        assert collected == []
        app.service.passing(False)
        app.idle_gc.collect_if_idle()
        assert collected == [1.0]
