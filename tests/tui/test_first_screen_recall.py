"""Issue #26: a half-typed word answers at once with a first screen, labelled "not yet exact"
until the agent's exact ranking replaces it; a whole word is answered exactly in one call.

The sample store is small, so the first screen's window (``StoreService.first_screen_rows``)
is cut to a few rows here, and its threshold (``first_screen_above``) to none. A
``threading.Event`` holds a Store call on the app's DB thread where a test needs a moment
in between (released at the end in any case)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.widgets import Input

from memharness_tui.store import Store
from memharness_tui.tui.widgets.recall import RecallPane
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


def exact_ids(store: Store, query: str) -> list[int]:
    return [f.id for f in store.recall(query, limit=DEFAULT_LIMIT).facts]


def first_ids(store: Store, query: str, rows: int = WINDOW) -> list[int]:
    return [f.id for f in store.recall_first_screen(query, limit=DEFAULT_LIMIT,
                                                    rows=rows).facts]


async def until(pilot, predicate: Callable[[], bool], what: str) -> None:  # noqa: ANN001
    for _ in range(400):
        if predicate():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never saw {what}; status {status(pilot.app)!r}")


class Calls:
    """Store calls made on the DB thread, by name and query; ``hold`` makes one wait."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made: list[tuple[str, str]] = []
        self.gates: dict[tuple[str, str], threading.Event] = {}
        for name in ("recall", "recall_first_screen"):
            monkeypatch.setattr(Store, name, self._wrap(name, getattr(Store, name)))

    def _wrap(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(store: Store, query: str = "", *args: Any, **kwargs: Any) -> Any:
            if threading.current_thread() is not threading.main_thread():  # the app's
                self.made.append((name, query))
                gate = self.gates.get((name, query))
                if gate is not None:
                    gate.wait(30)
            return real(store, query, *args, **kwargs)

        return call

    def hold(self, name: str, query: str) -> threading.Event:
        gate = self.gates[(name, query)] = threading.Event()
        return gate

    def of(self, query: str) -> list[str]:
        return [name for name, q in self.made if q == query]

    def release(self) -> None:
        for gate in self.gates.values():
            gate.set()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    made = Calls(monkeypatch)
    try:
        yield made
    finally:
        made.release()


async def type_query(pilot, text: str) -> None:  # noqa: ANN001
    pilot.app.main_screen().query_one("#search", Input).focus()
    await pilot.press(*text)


def small_window(app, rows: int = WINDOW) -> None:  # noqa: ANN001
    app.service.recalls.first_screen_rows = rows
    app.service.recalls.first_screen_above = 0


async def test_a_half_typed_word_shows_a_labelled_first_screen_then_the_exact_list(
        sample, config_dir, calls):
    store, _ = sample
    assert not store.recall_first_screen(HALF_WORD, limit=DEFAULT_LIMIT, rows=WINDOW).exact
    assert first_ids(store, HALF_WORD) != exact_ids(store, HALF_WORD)
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        small_window(app)
        gate = calls.hold("recall", HALF_WORD)  # the exact answer waits
        await type_query(pilot, HALF_WORD)
        await until(pilot, lambda: LABEL in status(app) and f"for {HALF_WORD}" in status(app),
                    "the first screen")
        assert shown_ids(app) == first_ids(store, HALF_WORD)
        gate.set()
        await settle(pilot)
        assert LABEL not in status(app)
        assert f"for {HALF_WORD}" in status(app)
        assert shown_ids(app) == exact_ids(store, HALF_WORD)
        assert calls.of(HALF_WORD) == ["recall_first_screen", "recall"]


async def test_the_label_goes_when_the_next_keystroke_supersedes_the_exact_search(
        sample, config_dir, calls):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        small_window(app)
        gate = calls.hold("recall", "idg")  # 'idg' is exact only after the next key
        await type_query(pilot, "idg")
        await until(pilot, lambda: LABEL in status(app) and "for idg" in status(app),
                    "the first screen of 'idg'")
        await pilot.press("e")
        await pilot.pause(0.05)
        gate.set()
        await settle(pilot)
        assert "for idge" in status(app) and LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, "idge")


async def test_a_superseded_first_screen_is_never_shown(sample, config_dir, calls):
    store, _ = sample
    assert first_ids(store, "idg") != exact_ids(store, "idge")
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        small_window(app)
        pane = app.main_screen().query_one(RecallPane)
        shown: list[tuple[str, bool]] = []
        show = pane._show

        def recording(params, result, keep) -> None:  # noqa: ANN001
            shown.append((params.query, result.exact))
            show(params, result, keep)

        pane._show = recording  # type: ignore[method-assign]
        late = calls.hold("recall_first_screen", "idg")  # 'idg' answers late
        await type_query(pilot, "idg")
        await until(pilot, lambda: "recall_first_screen" in calls.of("idg"), "idg's call")
        await pilot.press("e")
        await pilot.pause(0.05)
        shown.clear()
        late.set()  # the superseded keystroke's first screen comes now, then 'idge's
        await settle(pilot)
        await pilot.pause(0.05)
        assert shown and {q for q, _ in shown} == {"idge"}  # idg's list never reached the table
        assert shown[-1][1] and "for idge" in status(app) and LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, "idge")


async def test_a_whole_word_is_answered_exactly_in_one_call(sample, config_dir, calls):
    store, _ = sample
    word = "widgets"
    assert store.recall_first_screen(word, limit=DEFAULT_LIMIT, rows=WINDOW).exact
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        small_window(app)
        await type_query(pilot, word)
        await settle(pilot)
        assert f"for {word}" in status(app) and LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, word)
        # the full-text index answered: no second recall, no second round trip
        assert calls.of(word) == ["recall_first_screen"]


async def test_an_empty_first_screen_never_says_there_is_no_match(sample, config_dir, calls):
    store, _ = sample
    assert not first_ids(store, "umber", rows=5) and exact_ids(store, "umber")
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        small_window(app, 5)
        gate = calls.hold("recall", "umber")
        await type_query(pilot, "umber")
        await until(pilot, lambda: "for umber" in status(app), "the first screen")
        assert status(app).startswith("No matching memories yet  ·  " + LABEL)
        assert shown_ids(app) == []
        gate.set()
        await settle(pilot)
        assert LABEL not in status(app) and shown_ids(app) == exact_ids(store, "umber")


async def test_a_store_within_the_threshold_answers_a_half_word_in_one_exact_call(
        sample, config_dir, calls):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.service.recalls.first_screen_above >= store.largest_id()  # the default: 20,000
        app.service.recalls.first_screen_rows = WINDOW  # the store is larger than the window…
        await type_query(pilot, HALF_WORD)
        await settle(pilot)
        assert f"for {HALF_WORD}" in status(app) and LABEL not in status(app)
        assert shown_ids(app) == exact_ids(store, HALF_WORD)
        assert calls.of(HALF_WORD) == ["recall"]  # …but within the threshold: recall alone


async def test_a_search_asked_again_while_the_same_recall_runs_joins_it(
        sample, config_dir, calls):
    """The pane re-asks while mounting (a superseded first search): it joins the opening
    recall still running, as before the first screen, instead of scanning again."""
    store, _ = sample
    gate = calls.hold("recall", "")  # the opening (empty-query) recall runs on and on
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 36)) as pilot:
        while not app.screen.query(RecallPane):
            await pilot.pause()
        await until(pilot, lambda: calls.of("") == ["recall"], "the opening recall")
        small_window(app)
        pane = app.screen.query_one(RecallPane)
        pane.run_search()  # asked again for the very same results
        await pilot.pause(0.1)
        gate.set()
        await settle(pilot)
        assert calls.of("") == ["recall"]  # one read of the opening results, not two
        assert shown_ids(app) == exact_ids(store, "")
