"""The app's state in one place (#11): the production DB thread, state bound down, agents'
writes appearing live, the same keys everywhere, and time travel in every list."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static, TabbedContent

from memharness_tui.store import Store
from memharness_tui.tui.state import SessionNews
from memharness_tui.tui.widgets.results_table import ResultsTable

from .conftest import make_app, opener_for, settle, type_text

TUI = Path(__file__).resolve().parents[2] / "memharness_tui" / "tui"


def plain(widget: Static) -> str:
    return widget.render().plain  # type: ignore[union-attr]


async def until(pilot, condition, what: str, rounds: int = 400) -> None:
    """Wait for a state (polling the UI; the bound only stops a broken test hanging)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.025)
    raise AssertionError(f"never happened: {what}")


def write_from_another_process(db: Path, *facts: tuple[str, str]) -> None:
    code = ("import sys\nfrom memharness_tui.store import Store\n"
            "s = Store.open(sys.argv[1])\n"
            "for i in range(2, len(sys.argv), 2):\n"
            "    s.remember(sys.argv[i], sys.argv[i + 1], source_agent='agent')\n"
            "s.close()\n")
    args = [a for pair in facts for a in pair]
    subprocess.run([sys.executable, "-c", code, str(db), *args], check=True, timeout=60)


# ----- bullet 3: a typed service layer, tested as it runs ------------------------------------
async def test_every_store_call_runs_on_the_db_thread(sample, config_dir):
    store, info = sample
    threads: set[str] = set()
    open_store = opener_for(store)

    class Recorder:
        def __init__(self, inner: Store) -> None:
            self.inner = inner

        def __getattr__(self, name: str):
            threads.add(threading.current_thread().name)
            return getattr(self.inner, name)

    app = make_app(lambda: Recorder(open_store()), config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for tab in ("2", "3", "1"):
            await pilot.press(tab)
            await settle(pilot)
        assert app.screen.query_one("#results", ResultsTable).row_count > 0
    assert threads and all(name.startswith("memharness-db") for name in threads), threads


def test_widgets_never_see_a_store_or_a_lambda_over_one():
    """Where does X happen is one grep: only services/ talks to the gateway."""
    offenders = []
    for path in TUI.rglob("*.py"):
        if "services" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if "gateway.call" in text or "call(lambda s" in text:
            offenders.append(path.name)
    assert offenders == []


# ----- bullet 1: one app state, bound down ----------------------------------------------------
async def test_app_state_is_bound_down_into_every_pane(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        panes = [app.screen.query_one(f"#{p}") for p in
                 ("recall-pane", "subjects-pane", "diff-pane", "staleness-pane")]
        app.as_of = "2026-03-02T00:00:00.000Z"
        app.repos = ("/somewhere/else",)
        await settle(pilot)
        assert all(p.as_of == app.as_of for p in panes)
        dash = panes[3]
        assert dash.repos == ("/somewhere/else",)
        assert "/somewhere/else" in plain(dash.query_one("#dash-repos", Static))
        before = [p.store_revision for p in panes]
        app.reload_all()
        await settle(pilot)
        assert [p.store_revision for p in panes] == [b + 1 for b in before]
        # a reason the app learns (a write, a pass) is the app's, not a pane's
        # (the message a pass sends as its verdicts arrive; the app alone replaces the value)
        app.post_message(SessionNews(reasons={info.stale: "src/auth.py changed since aaaaaaa"}))
        await settle(pilot)
        assert app.staleness_reason(store.get(info.stale)) == "src/auth.py changed since aaaaaaa"
        assert not hasattr(app, "reason_provider")  # no override: the answer is the session's
        assert dash.panel.session is app.session  # bound down: the same immutable value
        assert dash.panel.pass_reasons is app.session.reasons  # the pane keeps no copy
        assert dash.panel.pass_reasons[info.stale] == "src/auth.py changed since aaaaaaa"


# ----- bullet 2: agents' writes appear live ---------------------------------------------------
async def test_another_process_writes_appear_live(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#search", Input)
        box.focus()
        await type_text(pilot, "widgets")
        table = app.screen.query_one("#results", ResultsTable)
        table.focus()
        await pilot.press("down", "down")
        highlighted = table.cursor_key
        rows_before = table.row_count
        strip = app.screen.query_one("#status-strip", Static)
        total = store.counts().total
        assert f"{total} total" in plain(strip)

        write_from_another_process(info.path, ("agentnews", "Agents write widgets too"))
        await until(pilot, lambda: table.row_count == rows_before + 1, "recall shows the new fact")
        await until(pilot, lambda: f"{total + 1} total" in plain(strip), "header counts move")
        assert box.value == "widgets"  # the text being typed is untouched
        assert table.cursor_key == highlighted  # the cursor stays on the same fact
        assert app.focused is table  # focus is not stolen

        await pilot.press("2")
        await settle(pilot)
        subjects = app.screen.query_one("#subject-list", DataTable)
        assert "agentnews" in [k.value for k in subjects.rows]
        subjects.move_cursor(row=2)
        chosen = subjects.coordinate_to_cell_key(subjects.cursor_coordinate).row_key.value
        write_from_another_process(info.path, ("aaa-first", "sorts before every subject"))
        await until(pilot, lambda: "aaa-first" in [k.value for k in subjects.rows],
                    "subjects show the new subject")
        now = subjects.coordinate_to_cell_key(subjects.cursor_coordinate).row_key.value
        assert now == chosen  # still on the same subject though a row was inserted above


# ----- bullet 6: keys that mean the same everywhere --------------------------------------------
MAIN_WIDGET = {"recall": "results", "subjects": "subject-list", "diff": "diff-table",
               "staleness": "flagged-table"}


@pytest.mark.parametrize("start", ["2", "3", "4"])  # side by side on the suite's workers
async def test_tab_keys_work_from_every_tab(sample, config_dir, start):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        tabs = app.screen.query_one("#tabs", TabbedContent)
        for key, tab in (("1", "recall"), ("2", "subjects"), ("3", "diff"), ("4", "staleness")):
            await pilot.press(start)
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
            assert tabs.active == tab, (start, key)
            assert app.focused is not None and app.focused.id == MAIN_WIDGET[tab], (start, key)


async def test_escape_and_focus_work_from_every_tab(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        # Esc leaves any text box, then single-letter keys work
        for tab, box_id in (("2", "subject-search"), ("3", "diff-since"), ("1", "search")):
            await pilot.press(tab)
            await settle(pilot)
            box = app.screen.query_one(f"#{box_id}", Input)
            box.focus()
            before = box.value
            await pilot.press("escape")
            await settle(pilot)
            assert app.focused is not box and box.value == before, box_id
        await pilot.press("3", "1")
        await settle(pilot)
        results = app.screen.query_one("#results", ResultsTable)
        assert app.focused is results
        await pilot.press("down")
        assert results.cursor_row == 1


# ----- bullet 7: time travel means every list --------------------------------------------------
async def test_time_travel_reaches_subjects_changes_and_the_banner(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    v1 = store.get(info.chain[0])
    then = store.get(info.chain[1]).tx_at  # v2 learned; v3 (its successor) came later
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.as_of = then
        await pilot.press("2")
        await settle(pilot)
        pane = app.screen.query_one("#subjects-pane")
        pane.include_history = True
        pane.choose(v1.subject)
        await settle(pilot)
        facts = app.screen.query_one("#subject-facts", DataTable)
        status = {k.value: str(facts.get_cell(k, "status")) for k in facts.rows}
        assert status[str(info.chain[1])] == "current then"  # v3 revised it only later
        assert status[str(info.chain[0])].startswith("superseded")
        assert str(info.chain[2]) not in status  # not yet learned
        await pilot.press("3")
        await settle(pilot)
        since = app.screen.query_one("#diff-since", Input).value
        assert since < then[:10]
        summary = plain(app.screen.query_one("#diff-summary", Static))
        assert f"up to {then}" in summary
        diff = app.screen.query_one("#diff-pane").last_diff
        assert all(f.tx_at <= then for f in diff.learned)
        banner = plain(app.screen.query_one("#asof-banner", Static))
        assert "staleness verdicts are as of the last pass" in banner
