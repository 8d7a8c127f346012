"""Mutation round 7 (scripts/mutate.py): the app's one session value and its one way to
travel in time (tui/state.py, ``MemharnessApp.on_session_news`` and ``action_travel``).

- A new staleness pass starts from no reasons: a fact the last pass flagged and this one
  does not must not keep the last pass's reason (it would explain a verdict it no longer has).
- The time-travel box emptied and submitted goes back to now: ``as_of`` is None, never "".
"""

from __future__ import annotations

from textual.widgets import Input

from memharness_tui.tui.state import SessionNews

from .conftest import make_app, settle


async def test_a_new_pass_forgets_the_last_pass_reasons(sample, config_dir):
    store, _ = sample
    first, second = store.recall("", limit=2).facts
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.post_message(SessionNews(new_pass=True, reasons={first.id: "src/a.py changed",
                                                             second.id: "src/b.py changed"}))
        await settle(pilot)
        assert app.staleness_reason(first) == "src/a.py changed"
        app.post_message(SessionNews(new_pass=True, reasons={second.id: "src/b.py deleted"}))
        await settle(pilot)
        assert app.staleness_reason(first) is None  # this pass said nothing about it
        assert app.staleness_reason(second) == "src/b.py deleted"
        app.post_message(SessionNews(reasons={first.id: "rewritten here"}))  # a write: added
        await settle(pilot)
        assert app.staleness_reason(first) == "rewritten here"
        assert app.staleness_reason(second) == "src/b.py deleted"


async def test_an_emptied_time_travel_box_goes_back_to_now(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        for ch in "2026-01-15":
            await pilot.press(ch)
        await pilot.press("enter")
        await settle(pilot)
        assert app.as_of is not None and app.as_of.startswith("2026-01-15")
        await pilot.press("t")
        await settle(pilot)
        box = app.screen.query_one("#asof-input", Input)
        assert box.value.startswith("2026-01-15")  # the box starts from the time shown
        box.value = ""
        await pilot.press("enter")
        await settle(pilot)
        assert app.as_of is None
        assert "as of" not in app.main_screen().query_one("#recall-status").text.plain
