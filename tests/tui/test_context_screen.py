"""The session-context screen: the hook's text for the saved flags, its tokens, what changed
since the last look, and the file left as it was."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from memharness_tui.store import Store
from memharness_tui.store.driver import sqlite3
from memharness_tui.tui.screens.context import ContextScreen
from memharness_tui.tui.services import context as svc

from .conftest import make_app, settle
from .help_keys import classes_with_keys, missing, read_help


def plain(widget: Static) -> str:
    return widget.render().plain  # type: ignore[union-attr]


async def until(pilot, condition, what: str, rounds: int = 400) -> None:  # noqa: ANN001
    """Wait for a state (polling the UI; the bound only stops a broken test hanging)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.025)
    raise AssertionError(f"never happened: {what}")


def _accessed(path: Path) -> list[tuple[int, str | None]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT id, last_accessed_at FROM facts ORDER BY id").fetchall()
    finally:
        conn.close()


def _screen_text(app) -> str:  # noqa: ANN001
    """The text on the context screen ("" until it is open and built)."""
    if not isinstance(app.screen, ContextScreen):
        return ""
    found = app.screen.query("#context-text")
    return plain(found.first(Static)) if found else ""


async def test_x_on_the_recall_tab_shows_the_hooks_text_and_its_tokens(sample, config_dir):
    store, info = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("escape", "x")  # out of the search box, then the key
        await until(pilot, lambda: isinstance(app.screen, ContextScreen), "the screen")
        await until(pilot, lambda: "## user" in _screen_text(app), "the user section")
        expected = store.session_context(["user"])
        assert _screen_text(app) == expected.text
        summary = plain(app.screen.query_one("#context-summary", Static))
        assert summary.startswith(f"{expected.tokens} tokens of a 600-token budget · 1 section")
        assert "First look" in summary


async def test_flags_are_saved_per_database_and_changes_show_since_the_last_look(
        sample, config_dir, tmp_path: Path):
    store, info = sample
    path = Path(store.path)
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.push_screen(ContextScreen())
        await until(pilot, lambda: "## user" in _screen_text(app), "the default section")
        box = app.screen.query_one("#context-flags", Input)
        box.value = "--subject auth --subject db --max-tokens 200"
        box.focus()
        await pilot.press("enter")
        await until(pilot, lambda: "## auth" in _screen_text(app), "the auth section")
        assert _screen_text(app) == store.session_context(["auth", "db"], max_tokens=200).text
        seen = svc.load_seen(config_dir, app.info.path)
        assert seen.flags == svc.ContextFlags(("auth", "db"), 200, 8)
        await pilot.press("escape")
        await settle(pilot)

        new_id = store.remember("auth", "Tokens rotate every hour", source_agent="claude")[0]
        before_accessed = _accessed(path)
        app.push_screen(ContextScreen())
        await until(pilot, lambda: "Tokens rotate" in _screen_text(app), "the new fact")
        changes = plain(app.screen.query_one("#context-changes", Static))
        assert f"+ [#{new_id}] auth : Tokens rotate every hour" in changes
        summary = plain(app.screen.query_one("#context-summary", Static))
        assert "Since the last look" in summary and "1 line(s) added" in summary
        assert _accessed(path) == before_accessed  # nothing reinforced
    # another database's flags are its own
    other = tmp_path / "other.db"
    with Store.open(str(other)) as s:
        s.remember("x", "y")
    assert svc.load_seen(config_dir, str(other)).flags == svc.ContextFlags()


async def test_bad_flags_say_so_and_keep_the_saved_ones(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.push_screen(ContextScreen())
        await until(pilot, lambda: "## user" in _screen_text(app), "the default section")
        box = app.screen.query_one("#context-flags", Input)
        box.value = "--subject auth --verbose"
        box.focus()
        await pilot.press("enter")
        await settle(pilot)
        summary = plain(app.screen.query_one("#context-summary", Static))
        assert summary == ("unknown flag --verbose: the hook takes --subject, --max-tokens "
                           "and --limit")
        assert svc.load_seen(config_dir, app.info.path).flags == svc.ContextFlags()


async def test_the_context_keys_are_in_help(sample, config_dir):
    store, _ = sample
    app = make_app(store, config_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.push_screen(ContextScreen())
        await until(pilot, lambda: "## user" in _screen_text(app), "the default section")
        text = await read_help(pilot, palette=True)
    assert missing(text, classes_with_keys()["ContextScreen"]) == []
