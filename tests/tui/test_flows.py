"""Pilot tests: every flow of the app against stores built here (real table contents and DB state)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, Static, Tree

from memharness_tui.store import Store, formats
from memharness_tui.tui.screens.detail import FactDetailScreen
from memharness_tui.tui.screens.main import MainScreen
from memharness_tui.tui.screens.modals import ErrorModal, ThemePicker, TimeTravelModal
from memharness_tui.tui.state import SessionNews
from memharness_tui.tui.widgets.recall import RecallPane

from .conftest import HOSTILE, NOW, drain, make_app, post_keys, settle, type_text
from .help_keys import classes_with_keys, missing, read_help


def ids_in(table) -> list[int]:
    """Row ids of a DataTable or of the recall ResultsTable, in display order."""
    if hasattr(table, "row_keys"):
        return [int(k) for k in table.row_keys()]
    return [int(k.value) for k in table.rows if k.value is not None]


def plain(widget: Static) -> str:
    return widget.render().plain  # type: ignore[union-attr]


def all_access_times(store) -> list[str | None]:
    return [f.last_accessed_at for f in store.list_facts(include_history=True, limit=1000)]


async def type_search(pilot, text: str, selector: str = "#search") -> None:
    """Type ``text`` into a box as one burst (``type_text``): its users check what the
    typing ends in (``test_search_latest_wins`` and the debounce test press key by key)."""
    pilot.app.screen.query_one(selector, Input).focus()
    await type_text(pilot, text)


async def test_shell_header_counts_and_footer(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        strip = plain(app.screen.query_one("#status-strip", Static))
        c = store.counts()
        assert str(info.path) not in strip and "schema v5" in strip  # the path: header only
        assert f"{c.total} total" in strip and f"{c.current} live" in strip
        assert f"{c.pinned} pinned" in strip and f"{c.stale} stale" in strip
        assert not app.screen.query_one("#readonly-banner").display
        assert app.sub_title == str(info.path)


async def test_search_as_you_type_matches_recall_and_never_reinforces(sample, config_dir):
    store, _ = sample
    before = all_access_times(store)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results")
        assert ids_in(table) == store.recall("", limit=50).ids
        await type_search(pilot, "sessions")
        expected = store.recall("sessions", limit=50)
        assert ids_in(table) == expected.ids and expected.ids
        assert "for sessions" in plain(app.screen.query_one("#recall-status"))
    assert all_access_times(store) == before  # SPEC §5: browsing never reinforces


async def test_search_is_debounced(sample, config_dir):
    """Keystrokes only (re)start the debounce timer; one search runs, with the whole text.
    No wall clock: the debounce is longer than the test, and Enter ends it."""
    store, _ = sample
    app = make_app(store, config_dir, search_debounce=3600)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(RecallPane)
        calls: list[str] = []
        original = pane._search
        pane._search = lambda params, *a: (calls.append(params.query), original(params, *a))[1]
        app.screen.query_one("#search", Input).focus()
        await pilot.press("b", "u", "l", "k")
        await settle(pilot)
        assert calls == []  # typing alone searched nothing yet
        await pilot.press("enter")
        await settle(pilot)
        assert calls == ["bulk"]
        assert {int(k) for k in pane.query_one("#results").row_keys()} == set(
            store.recall("bulk", limit=50).ids)


async def test_search_latest_wins(sample, config_dir, monkeypatch):
    """No debounce (the default): every keystroke asks for a search and the newer one wins.
    Searches still queued behind a busy DB thread are cancelled and never reach the store.
    No wall clock: a call that waits on an Event holds the DB thread until every key is in."""
    store, _ = sample
    expected = store.recall("bulk", limit=50).ids
    app = make_app(store, config_dir, poll_interval=0)
    assert app.search_debounce == 0
    ran: list[str] = []
    original = Store.recall

    def recording(self: Store, query: str, *args: object, **kwargs: object) -> object:
        ran.append(query)
        return original(self, query, *args, **kwargs)

    monkeypatch.setattr(Store, "recall", recording)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(RecallPane)
        asked: list[str] = []
        search = pane._search
        pane._search = lambda params, *a: (asked.append(params.query), search(params, *a))[1]
        box = app.screen.query_one("#search", Input)
        box.focus()
        await pilot.pause()
        ran.clear()
        gate = threading.Event()
        held = asyncio.ensure_future(app.gateway.call(lambda _s: gate.wait(30)))
        await pilot.press("b", "u", "l", "k")
        while asked[-1:] != ["bulk"]:
            await pilot.pause()
        assert asked == ["b", "bu", "bul", "bulk"]  # each keystroke searched at once
        gate.set()
        assert await held
        await settle(pilot)
        assert ran == ["bulk"]  # the superseded searches never ran
        assert [int(k) for k in pane.query_one("#results").row_keys()] == expected and expected


async def test_substring_fallback_is_shown(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await type_search(pilot, "xpire")  # no token matches; substring does
        assert store.recall("xpire", limit=50).used_fallback
        table = app.screen.query_one("#results")
        assert ids_in(table) == store.recall("xpire", limit=50).ids
        assert "substring match" in plain(app.screen.query_one("#recall-status"))


async def test_filters_subject_kind_freshness_limit(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        table = screen.query_one("#results")
        await type_search(pilot, "auth", "#subject-filter")
        assert ids_in(table) == store.recall("", subject="auth", limit=50).ids
        screen.query_one("#subject-filter", Input).value = ""
        screen.query_one("#kind-filter", Select).value = "procedural"
        await settle(pilot)
        assert ids_in(table) == [info.unresolved]
        screen.query_one("#kind-filter", Select).clear()
        screen.query_one("#freshness-filter", Select).value = "stale"
        await settle(pilot)
        assert ids_in(table) == [info.stale]
        screen.query_one("#freshness-filter", Select).clear()
        screen.query_one("#limit-filter", Select).value = 8
        await settle(pilot)
        assert ids_in(table) == store.recall("", limit=8).ids and len(ids_in(table)) == 8


async def test_subject_filter_suggests_existing_subjects(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#subject-filter", Input)
        assert box.suggester is not None
        assert await box.suggester.get_suggestion("hos") == "hostile"


async def test_more_on_demand(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.screen.query_one("#limit-filter", Select).value = 8
        await settle(pilot)
        table = app.screen.query_one("#results")
        table.focus()
        assert len(ids_in(table)) == 8
        assert "m: more" in plain(app.screen.query_one("#recall-status"))
        await pilot.press("m")
        await settle(pilot)
        assert ids_in(table) == store.recall("", limit=16).ids


async def test_agent_view_shows_exact_recall_text(sample, config_dir):
    store, _ = sample
    before = all_access_times(store)
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await type_search(pilot, "sessions")
        await pilot.press("escape", "a")
        await settle(pilot)
        shown = plain(app.screen.query_one("#agent-text", Static))
        assert shown == formats.fmt_recall(store.recall("sessions", limit=50))
        assert shown.startswith("Current beliefs:")
        await pilot.press("a")
        await settle(pilot)
        assert app.screen.query_one("#recall-switcher").current == "results"
    assert all_access_times(store) == before


async def test_open_detail_and_walk_the_chain(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await type_search(pilot, "sessions")
        await pilot.press("down", "enter")  # Down leaves the search box for the results
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, FactDetailScreen)
        v1, v2, v3 = info.chain
        assert detail.fact_id == v3 and detail.chain_ids() == [v1, v2, v3]
        assert "Sessions expire after 90 minutes" in detail.text_of("detail-text")
        tree = detail.query_one("#chain", Tree)
        assert [n.data for n in tree.root.children] == [v1, v2, v3]
        # walk: select the oldest node in the tree
        tree.focus()
        tree.move_cursor_to_line(0)
        await pilot.press("enter")
        await settle(pilot)
        assert detail.fact_id == v1
        assert "superseded → #" in detail.text_of("detail-title")
        assert "superseded by" in detail.text_of("detail-time")
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert detail.fact_id == v2
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert detail.fact_id == v1
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_detail_shows_both_time_axes_and_the_pin(sample, config_dir):
    store, info = sample
    reason = "src/auth.py changed since aaaaaaa"
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        # the reason reaches the app as a pass's verdicts do (the pass from a real repo:
        # tests/tui_staleness/test_session_state.py); its pins here name no real commit
        app.post_message(SessionNews(reasons={info.stale: reason}))
        await settle(pilot)
        app.open_fact(info.stale)
        await settle(pilot)
        d = app.screen
        pin = d.text_of("detail-pin")
        assert "path          src/auth.py" in pin and "commit        " + "a" * 40 in pin
        assert "stale" in pin and "src/auth.py changed since aaaaaaa" in pin
        assert "checked head  bbbbbbbbbbbb" in pin
        assert "2026-03-25T10:00:00.000Z" in pin and "days ago" in pin
        assert app.staleness_reason(store.get(info.stale)) == reason  # the session's, once
        prov = d.text_of("detail-prov")
        assert "claude" in prov and "repo@" in prov
        app.open_fact(info.backdated_new)
        await settle(pilot)
        assert reason not in d.text_of("detail-pin")  # another fact: not its reason
        tm = d.text_of("detail-time")
        assert "valid from    2026-03-20T00:00:00.000Z" in tm
        learned = store.get(info.backdated_new).tx_at
        assert learned in tm
        app.open_fact(info.retracted)
        await settle(pilot)
        assert "retracted" in d.text_of("detail-title")
        assert store.get(info.retracted).retracted_at in d.text_of("detail-time")


async def test_unknown_fact_is_a_notification_not_a_crash(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_fact(99999)
        await settle(pilot)
        assert any("99999" in n.message for n in app._notifications)
        assert app.is_running


async def test_subjects_browse_with_history(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        side = app.screen.query_one("#subject-list", DataTable)
        assert [k.value for k in side.rows] == [s.subject for s in store.subjects()]
        auth_row = [k.value for k in side.rows].index("auth")
        side.move_cursor(row=auth_row)
        await pilot.press("enter")
        await settle(pilot)
        facts = app.screen.query_one("#subject-facts", DataTable)
        assert ids_in(facts) == [f.id for f in store.list_facts("auth")]
        assert info.chain[0] not in ids_in(facts)
        await pilot.press("h")
        await settle(pilot)
        assert ids_in(facts) == [f.id for f in store.list_facts("auth", include_history=True)]
        status = facts.get_cell(str(info.chain[0]), "status")
        assert status.plain.startswith("superseded → #") and "dim" in str(status.style)
        side.move_cursor(row=[k.value for k in side.rows].index("scratch"))
        await settle(pilot)
        row = facts.get_cell(str(info.retracted), "status")
        assert row.plain == "retracted"


async def test_time_travel_marks_and_filters_every_list(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TimeTravelModal)
        await type_text(pilot, "2026-02-30")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TimeTravelModal)  # impossible date: stays, says why
        assert "day is out of range" in plain(app.screen.query_one("#asof-error", Static))  # (#21: says why, not "as_of")
        box = app.screen.query_one("#asof-input", Input)
        box.value = "2026-03-01T09:30"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.as_of == "2026-03-01T09:30:00.000Z"
        banner = app.screen.query_one("#asof-banner", Static)
        assert banner.display and "AS OF 2026-03-01T09:30:00.000Z" in plain(banner)
        table = app.screen.query_one("#results")
        assert ids_in(table) == store.recall("", as_of=app.as_of, limit=50).ids
        assert info.chain[0] in ids_in(table) and info.chain[2] not in ids_in(table)
        assert info.retracted in ids_in(table)  # not yet retracted then
        await pilot.press("2")
        await settle(pilot)
        side = app.screen.query_one("#subject-list", DataTable)
        assert [k.value for k in side.rows] == [s.subject for s in store.subjects(as_of=app.as_of)]
        await pilot.press("T")
        await settle(pilot)
        assert app.as_of is None and not banner.display


async def test_diff_since_a_date_and_for_one_subject(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        since = app.screen.query_one("#diff-since", Input)
        assert since.value == "2026-05-02"  # 30 days before the frozen now
        since.value = "2026-03-05"
        since.focus()
        await pilot.press("enter")
        await settle(pilot)
        diff = store.diff("2026-03-05T00:00:00.000Z")
        table = app.screen.query_one("#diff-table", DataTable)
        keys = [k.value for k in table.rows]
        assert keys == ([f"L{f.id}" for f in diff.learned] + [f"R{p.new.id}" for p in diff.revised]
                        + [f"X{f.id}" for f in diff.retracted])
        summary = plain(app.screen.query_one("#diff-summary", Static))
        assert f"{len(diff.revised)} revised" in summary
        revised = table.get_cell(f"R{info.chain[1]}", "fact").plain
        assert revised == "Sessions expire after 30 minutes → Sessions expire after 60 minutes"
        assert app.focused is table  # Enter moved to the changes (issue #21)
        app.screen.query_one("#diff-subject", Input).value = "db"
        app.screen.query_one("#diff-subject", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        keys = [k.value for k in table.rows]
        only_db = store.diff("2026-03-05T00:00:00.000Z", subject="db")
        assert len(keys) == len(only_db.learned) + len(only_db.revised) + len(only_db.retracted)
        since.value = "yesterday"
        since.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert "since" in plain(app.screen.query_one("#diff-summary", Static))
        assert "✗" in plain(app.screen.query_one("#diff-summary", Static))


async def test_theme_switch_is_remembered(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.theme == "memharness-dark"
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert isinstance(app.screen, ThemePicker)
        picker = app.screen.query_one("#theme-list")
        names = app.themes.names()
        assert names[:3] == ["memharness-contrast", "memharness-dark", "memharness-light"]
        picker.highlighted = names.index("memharness-light")
        await settle(pilot)
        assert app.theme == "memharness-light"  # preview
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    saved = json.loads((config_dir / "settings.json").read_text())
    assert saved["theme"] == "memharness-light"
    again = make_app(store, config_dir)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert again.theme == "memharness-light"


async def test_theme_picker_escape_restores(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        await pilot.press("down", "down")
        await settle(pilot)
        assert app.theme != "memharness-dark"
        await pilot.press("escape")
        await settle(pilot)
        assert app.theme == "memharness-dark"
    assert not (config_dir / "settings.json").exists()


async def test_user_theme_loaded_and_broken_one_reported_once(sample, config_dir):
    store, _ = sample
    themes = config_dir / "themes"
    themes.mkdir(parents=True)
    (themes / "mine.toml").write_text('name = "my-ocean"\nprimary = "#0077BE"\ndark = true\n')
    (themes / "broken.toml").write_text("name = [oops\n")
    (themes / "nocolour.toml").write_text('name = "bad"\nprimary = "not-a-colour"\n')
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "my-ocean" in app.available_themes and app.themes.origin("my-ocean") == "yours"
        notes = [n for n in app._notifications if "theme" in (n.title or "").lower()]
        assert len(notes) == 1
        assert "broken.toml" in notes[0].message and "nocolour.toml" in notes[0].message
        assert isinstance(app.screen, MainScreen)


async def test_readonly_file_opens_readonly_with_banner(sample, config_dir):
    store, info = sample
    store.close()
    app = make_app(str(info.path), config_dir, readonly=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.info is not None and app.info.readonly
            banner = app.screen.query_one("#readonly-banner", Static)
            assert banner.display and "READ-ONLY" in plain(banner)
            assert ids_in(app.screen.query_one("#results"))
    finally:
        app.gateway.close()


async def test_unwritable_file_is_detected_as_readonly(sample, monkeypatch, config_dir):
    import memharness_tui.tui.services.gateway as data

    store, info = sample
    store.close()
    monkeypatch.setattr(data.os, "access", lambda p, mode: False)
    app = make_app(str(info.path), config_dir)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.info is not None and app.info.readonly
            assert app.screen.query_one("#readonly-banner").display
    finally:
        app.gateway.close()


async def test_a_bad_file_shows_a_modal_not_a_traceback(tmp_path, config_dir):
    bad = tmp_path / "not-a-db.db"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    app = make_app(str(bad), config_dir)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, ErrorModal)
            assert "not-a-db.db" in app.screen.message
            await pilot.press("enter")
            await settle(pilot)
        assert app.return_value == 1
    finally:
        app.gateway.close()


async def test_hostile_text_renders_literally(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await type_search(pilot, "hostile", "#subject-filter")
        table = app.screen.query_one("#results")
        assert sorted(ids_in(table)) == sorted(info.hostile.values())
        markup_cell = table.get_cell(str(info.hostile["markup"]), "fact").plain
        assert markup_cell.startswith("Config uses [red]x[/] and [/] and [link=")
        ansi_cell = table.get_cell(str(info.hostile["ansi"]), "fact").plain
        assert "\x1b" not in ansi_cell and "␛[31mRED" in ansi_cell and "␇" in ansi_cell
        long_cell = table.get_cell(str(info.hostile["long"]), "fact").plain
        assert len(long_cell) <= 300 and long_cell.endswith("…")
        rtl_cell = table.get_cell(str(info.hostile["rtl"]), "fact").plain
        assert "\u202e" not in rtl_cell and "<U+202E>" in rtl_cell
        for name, fid in info.hostile.items():
            app.open_fact(fid)
            await settle(pilot)
            text = app.screen.text_of("detail-text")
            if name == "markup":
                assert text == HOSTILE["markup"]
            if name == "long":
                assert text.endswith("tail-marker") and len(text) == len(HOSTILE["long"])
            if name == "emoji":
                assert text == HOSTILE["emoji"]
            assert "\x1b" not in text
            await pilot.press("escape")
            await settle(pilot)
        await pilot.press("escape", "a")  # leave the subject box, then the agent view
        await settle(pilot)
        agent = plain(app.screen.query_one("#agent-text", Static))
        assert "[red]x[/]" in agent and "\x1b" not in agent


HELP_PARTS = {  # each part opens help in its own app, so the parts run side by side (#25)
    "tabs": ("tab 1", "tab 2", "tab 3", "tab 4", "tab 5", "search"),
    "detail and forms": ("detail", "new fact", "time travel", "theme"),
    "modals": ("confirm", "repos", "revise", "error"),
}
HELP_WHERE = {"MemharnessApp": ["tab 1"], "MainScreen": ["tab 2"], "ResultsTable": ["tab 1"],
              "RecallPane": ["tab 1", "search", "tab 2"], "SubjectsPane": ["tab 2"],
              "DiffPane": ["tab 3"], "StalenessDashboard": ["tab 4"], "FlaggedPanel": ["tab 4"],
              "HygienePane": ["tab 5"], "FactDetailScreen": ["detail"],
              "FactFormScreen": ["new fact"], "TimeTravelModal": ["time travel"],
              "ThemePicker": ["theme"], "ConfirmScreen": ["confirm"], "ReposScreen": ["repos"],
              "ReviseScreen": ["revise"], "ErrorModal": ["error"]}
HELP_CLOSES = "Esc, ? or q closes this screen."  # help's own keys (HelpScreen), on each part's
HELP_NEEDLES = {  # each in the part whose help draws it
    "tabs": ("Agent view", "Time travel", "History", "Theme", "Quit", "command palette",
             "Changes tab", HELP_CLOSES),
    "detail and forms": ("Older version", HELP_CLOSES),
    "modals": (HELP_CLOSES,),
}


async def _help_on_tabs(pilot, seen: dict[str, str]) -> None:
    for tab in "12345":
        await pilot.press(tab)
        await settle(pilot)
        seen[f"tab {tab}"] = await read_help(pilot)
    await pilot.press("1", "slash")  # in the search box ? is typed: F1 opens help
    await settle(pilot)
    seen["search"] = await read_help(pilot, key="f1")


async def _help_on_modals(pilot, seen: dict[str, str], names: tuple[str, ...]) -> None:
    app = pilot.app
    app.screen.query_one("#results").focus()  # as after the tabs part: the keys act on a fact
    if "detail" in names:
        await pilot.press("enter")  # the highlighted fact's detail
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen)
        seen["detail"] = await read_help(pilot)
        await pilot.press("escape")
        await settle(pilot)
    for name, keys in (("new fact", ["n"]), ("time travel", ["t"]), ("theme", ["ctrl+t"]),
                       ("confirm", ["delete"]), ("repos", ["4", "g"]), ("revise", ["4", "e"])):
        if name not in names:
            continue
        await pilot.press(*keys)
        await settle(pilot)
        assert app.screen.is_modal, name
        if name == "repos":  # from the box that adds a repo to the list, where x removes
            await pilot.press("shift+tab")
            await settle(pilot)
        if name == "new fact":  # Ctrl+O works (and shows) while the text resembles a fact
            await type_text(pilot, "bulk")
            app.screen.query_one("#form-fact").focus()
            await type_text(pilot, "Bulk fact number 3 about widgets and gadgets")
            for _ in range(200):
                await pilot.pause(0.02)
                if app.screen.query_one("#form-nudge", Static).render().plain.strip():
                    break
            await settle(pilot)
        seen[name] = await read_help(pilot, palette=True)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen), name
    if "error" in names:
        app.report_error(RuntimeError("boom"))  # what a failed worker does
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        seen["error"] = await read_help(pilot, palette=True)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


@pytest.mark.parametrize("part", list(HELP_PARTS))
async def test_help_lists_every_key(sample, config_dir, part):
    """Every key the app answers to is documented in help, read from the live bindings where
    it works (#22: no hand-kept list): on each tab of the main screen (its keys under "Here",
    every other tab's after them), on the fact detail, and on each form and modal, whose
    help (from the command palette) shows that modal's keys. In three parts, each on its own
    app (the tabs; the detail and the forms; the other modals), so they run side by side."""
    store, info = sample
    app = make_app(store, config_dir)
    places = HELP_PARTS[part]
    seen: dict[str, str] = {}  # where help was opened → what it drew
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        if part == "tabs":
            await _help_on_tabs(pilot, seen)
        else:
            await _help_on_modals(pilot, seen, places)
    assert sorted(seen) == sorted(places)

    keys = classes_with_keys()
    # (On the search box, Textual's own "down" (scroll) is live and gives way to the Recall
    # tab's "down: to results" when it has nothing to scroll: help on another tab lists it.)
    for name, opened in HELP_WHERE.items():
        if opened[0] in places:
            text = "\n".join(seen[o] for o in opened)
            assert missing(text, keys[name]) == [], (name, opened)
    if part == "tabs":
        for tab, other in (("1", "SubjectsPane"), ("2", "StalenessDashboard"), ("4", "RecallPane")):
            text = seen[f"tab {tab}"]  # another tab's keys, after "The other tabs"
            assert missing(text[text.index("The other tabs"):], keys[other]) == [], (tab, other)
    everything = "\n".join(seen.values())
    for needle in HELP_NEEDLES[part]:
        assert needle in everything, needle


async def test_command_palette_opens_a_fact_by_id(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        post_keys(pilot, f"#{info.stale}")  # one burst: the palette searches once, not per key
        await drain(pilot)
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen) and app.screen.fact_id == info.stale


async def test_command_palette_has_app_commands(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        post_keys(pilot, "go to changes")  # one burst: the palette searches once, not per key
        await drain(pilot)
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.query_one("#tabs").active == "diff"


async def test_q_quits(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert not app.is_running


async def test_threaded_gateway_reads_on_its_own_store(sample, config_dir):
    """The real app path: a path given, the store opened and used on the DB thread."""
    store, info = sample
    expected = store.recall("", limit=50).ids
    store.close()
    app = make_app(str(info.path), config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        # the app's own store runs on the wall clock, so decay may reorder: compare the sets
        assert sorted(ids_in(app.screen.query_one("#results"))) == sorted(expected)
    assert app.gateway._executor is None  # closed on unmount


def test_now_is_frozen_in_tests(sample, config_dir):
    store, _ = sample
    assert make_app(store, config_dir).now_iso() == NOW


def test_unused_path_helper(tmp_path: Path):
    from memharness_tui.tui.data import should_open_readonly

    assert should_open_readonly(None) is False
    assert should_open_readonly(str(tmp_path / "missing.db")) is False


async def test_results_table_keys_and_mouse(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#results")
        ids = ids_in(table)
        assert app.focused is table and table.cursor_row == 0
        await pilot.press("down", "down")
        assert table.cursor_key == str(ids[2])
        await pilot.press("end")
        assert table.cursor_row == len(ids) - 1
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.click("#results", offset=(10, 4))  # header is line 0 → row 3
        await settle(pilot)
        assert table.cursor_row == 3 and isinstance(app.screen, MainScreen)
        await pilot.click("#results", offset=(10, 4))  # clicking the cursor row opens it
        await settle(pilot)
        assert isinstance(app.screen, FactDetailScreen) and app.screen.fact_id == ids[3]


async def test_reload_picks_up_writes_from_elsewhere(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        before = store.counts().total
        new_id, _ = store.remember("fresh", "Written by an agent while the app is open")
        await pilot.press("r")
        await settle(pilot)
        strip = plain(app.screen.query_one("#status-strip", Static))
        assert f"{before + 1} total" in strip
        assert new_id in ids_in(app.screen.query_one("#results"))


async def test_detail_marks_the_version_believed_at_as_of(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.as_of = "2026-03-01T09:30:00.000Z"  # only v1 existed then
        app.open_fact(info.chain[2])
        await settle(pilot)
        d = app.screen
        assert "not believed then" in d.text_of("detail-title")
        labels = [str(n.label) for n in d.query_one("#chain", Tree).root.children]
        assert "believed then" in labels[0] and all("believed" not in x for x in labels[1:])
