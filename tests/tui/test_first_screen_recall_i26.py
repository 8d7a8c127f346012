"""Issue #26: a half-typed word answers at once with a first screen, labelled "not yet exact"
until the agent's exact ranking replaces it; a whole word is answered exactly in one call.

The sample store is small, so the first screen's window (``StoreService.first_screen_rows``)
is cut to a few rows here, and its threshold (``first_screen_above``) to none."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from textual.widgets import Input

from memharness_tui.tui.services import RecallQuery
from memharness_tui.tui.widgets.recall_filters import DEFAULT_LIMIT
from memharness_tui.tui.widgets.results_table import ResultsTable

from .conftest import make_app, settle

LABEL = "not yet exact"
WINDOW = 12
HALF_WORD = "idge"  # inside "widgets": no full-text token, so the substring fallback


def status(app) -> str:  # noqa: ANN001 - the app under test
    return app.main_screen().query_one("#recall-status").text.plain


def shown_ids(app) -> list[int]:  # noqa: ANN001
    return [int(k) for k in app.main_screen().query_one("#results", ResultsTable).row_keys()]


def exact_ids(store, query: str) -> list[int]:  # noqa: ANN001 - the test's Store
    return [f.id for f in store.recall(query, limit=DEFAULT_LIMIT).facts]


def first_ids(store, query: str) -> list[int]:  # noqa: ANN001
    return [f.id for f in store.recall_first_screen(query, limit=DEFAULT_LIMIT,
                                                    rows=WINDOW).facts]


async def until(pilot, predicate: Callable[[], bool], what: str) -> None:  # noqa: ANN001
    for _ in range(400):
        if predicate():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never saw {what}; status {status(pilot.app)!r}")


def hold(service: Any, name: str, query: str) -> asyncio.Event:
    """Make ``service.<name>`` wait for the returned event when asked for ``query``."""
    gate = asyncio.Event()
    real: Callable[[RecallQuery], Awaitable[Any]] = getattr(service, name)

    async def held(q: RecallQuery) -> Any:
        if q.query == query:
            await gate.wait()
        return await real(q)

    setattr(service, name, held)
    return gate


def count_calls(service: Any) -> list[tuple[str, str]]:
    """Record every recall the pane asks ``service`` for: (method, query)."""
    calls: list[tuple[str, str]] = []
    for name in ("recall", "recall_first_screen"):
        real = getattr(service, name, None)
        if real is None:
            continue

        def counted(q: RecallQuery, name: str = name, real: Any = real) -> Any:
            calls.append((name, q.query))
            return real(q)

        setattr(service, name, counted)
    return calls


async def type_query(pilot, text: str) -> None:  # noqa: ANN001
    pilot.app.main_screen().query_one("#search", Input).focus()
    await pilot.press(*text)


async def test_a_half_typed_word_shows_a_labelled_first_screen_then_the_exact_list(
        sample, config_dir):
    store, _ = sample
    first = store.recall_first_screen(HALF_WORD, limit=DEFAULT_LIMIT, rows=WINDOW)
    assert not first.exact and first_ids(store, HALF_WORD) != exact_ids(store, HALF_WORD)
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.service.first_screen_rows = WINDOW
        app.service.first_screen_above = 0
        gate = hold(app.service, "recall", HALF_WORD)  # the exact answer waits
        await type_query(pilot, HALF_WORD)
        await until(pilot, lambda: LABEL in status(app) and f"for {HALF_WORD}" in status(app),
                    "the first screen")
        assert shown_ids(app) == first_ids(store, HALF_WORD)
        gate.set()
        await settle(pilot)
        assert LABEL not in status(app)
        assert f"for {HALF_WORD}" in status(app)
        assert shown_ids(app) == exact_ids(store, HALF_WORD)


async def test_the_label_goes_when_the_next_keystroke_supersedes_the_exact_search(
        sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.service.first_screen_rows = WINDOW
        app.service.first_screen_above = 0
        gate = hold(app.service, "recall", "idg")  # held: the next key cancels it
        await type_query(pilot, "idg")
        await until(pilot, lambda: LABEL in status(app) and "for idg" in status(app),
                    "the first screen of 'idg'")
        await pilot.press("e")
        await until(pilot, lambda: "for idge" in status(app) and LABEL not in status(app),
                    "the exact answer to 'idge'")
        await pilot.pause(0.05)
        assert "for idge" in status(app) and LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, "idge")
        gate.set()


async def test_a_stale_first_screen_never_overwrites_a_newer_answer(sample, config_dir):
    store, _ = sample
    assert first_ids(store, "idg") != exact_ids(store, "idge")
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.service.first_screen_rows = WINDOW
        app.service.first_screen_above = 0
        late = hold(app.service, "recall_first_screen", "idg")  # 'idg' answers late
        await type_query(pilot, "idg")
        await pilot.pause(0.05)
        await pilot.press("e")
        await until(pilot, lambda: "for idge" in status(app) and LABEL not in status(app),
                    "the exact answer to 'idge'")
        assert shown_ids(app) == exact_ids(store, "idge")
        late.set()  # the superseded keystroke's first screen arrives now
        await settle(pilot)
        await pilot.pause(0.05)
        assert "for idge" in status(app) and LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, "idge")


async def test_a_whole_word_is_answered_exactly_in_one_call(sample, config_dir):
    store, _ = sample
    word = "widgets"
    assert store.recall_first_screen(word, limit=DEFAULT_LIMIT, rows=WINDOW).exact
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.service.first_screen_rows = WINDOW
        app.service.first_screen_above = 0
        calls = count_calls(app.service)
        await type_query(pilot, word)
        await settle(pilot)
        assert f"for {word}" in status(app) and LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, word)
        # one call, no second round trip, for a word the full-text index knows
        assert [c for c in calls if c[1] == word] == [("recall_first_screen", word)]


async def test_an_empty_first_screen_never_says_there_is_no_match(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.service.first_screen_rows = 5
        app.service.first_screen_above = 0
        assert not store.recall_first_screen("umber", limit=DEFAULT_LIMIT, rows=5).facts
        gate = hold(app.service, "recall", "umber")
        await type_query(pilot, "umber")
        await until(pilot, lambda: "for umber" in status(app), "the first screen")
        assert status(app).startswith("No matching memories yet  ·  " + LABEL)
        assert shown_ids(app) == []
        gate.set()
        await settle(pilot)
        assert LABEL not in status(app) and shown_ids(app) == exact_ids(store, "umber")


async def test_a_store_within_the_threshold_answers_a_half_word_in_one_exact_call(
        sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.service.first_screen_above >= store.largest_id()  # the default: 20,000
        app.service.first_screen_rows = WINDOW  # the store is larger than the window…
        calls = count_calls(app.service)
        await type_query(pilot, HALF_WORD)
        await settle(pilot)
        assert f"for {HALF_WORD}" in status(app) and LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, HALF_WORD)
        assert len([c for c in calls if c[1] == HALF_WORD]) == 1  # …but within the threshold
