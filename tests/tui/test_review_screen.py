"""The review queue in the app: an agent's write while it is open reaches the status strip
("N to review") and the queue; accepting moves the mark saved for the database."""

from __future__ import annotations

from textual.widgets import DataTable

from memharness_tui.review_marks import load_mark, save_mark
from memharness_tui.tui.context_commands import open_review
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.review import ReviewScreen

from .conftest import make_app, settle
from .help_keys import classes_with_keys, missing, read_help


async def until(pilot, condition, what: str, rounds: int = 400) -> None:  # noqa: ANN001
    """Wait for a state (polling the UI; the bound only stops a broken test hanging)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.025)
    raise AssertionError(f"never happened: {what}")


def strip(app) -> str:  # noqa: ANN001
    return app.screen_stack[1].query_one("#status-strip").render().plain


def queued_ids(app) -> list[int]:  # noqa: ANN001
    screen = app.screen
    return [i.fact.id for i in screen.items] if isinstance(screen, ReviewScreen) else []


def _reviewed_up_to_now(store, config_dir) -> None:  # noqa: ANN001
    save_mark(str(store.path), store.review_head(), config_dir)


async def test_an_agents_write_reaches_the_count_and_the_queue_and_accept_moves_the_mark(
        sample, config_dir):
    store, _ = sample
    _reviewed_up_to_now(store, config_dir)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "to review" not in strip(app)
        first = store.remember("auth", "Tokens rotate hourly", source_agent="claude",
                               source_ref="s-40")[0]
        store.remember("auth", "typed in the app", source_agent="memharness-tui/new")
        await until(pilot, lambda: "1 to review" in strip(app), "the header's count")
        open_review(app)
        await until(pilot, lambda: queued_ids(app) == [first], "the row in the queue")
        second = store.remember("db", "Replica lag under 1s", source_agent="codex")[0]
        await until(pilot, lambda: queued_ids(app) == [second, first], "the write while open")
        await until(pilot, lambda: "2 to review" in strip(app), "the count of two")
        table = app.screen.query_one("#review-table", DataTable)
        table.move_cursor(row=1)  # the older one
        await pilot.press("a")
        await until(pilot, lambda: queued_ids(app) == [second], "the older one accepted")
        mark = load_mark(str(store.path), config_dir)
        assert mark is not None and mark.last_id == first
        await until(pilot, lambda: "1 to review" in strip(app), "the count after a")
        await pilot.press("A")
        await until(pilot, lambda: queued_ids(app) == [], "all accepted")
        mark = load_mark(str(store.path), config_dir)
        assert mark is not None and mark.last_id == second
        await until(pilot, lambda: "to review" not in strip(app), "no count left")


async def test_a_retraction_is_queued_and_enter_opens_the_fact(sample, config_dir):
    store, info = sample
    _reviewed_up_to_now(store, config_dir)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        store.forget(fact_id=info.stale)
        open_review(app)
        await until(pilot, lambda: queued_ids(app) == [info.stale], "the retraction")
        assert app.screen.items[0].action == "retracted"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, FactDetailScreen), "the fact")


async def test_the_review_keys_are_in_help(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        open_review(app)
        await until(pilot, lambda: len(queued_ids(app)) > 0, "the queue")
        text = await read_help(pilot, palette=True)
    assert missing(text, classes_with_keys()["ReviewScreen"]) == []
