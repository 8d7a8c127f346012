"""Purge from the app: x on a secrets row of the Hygiene tab (and X on the fact's detail)
previews every row by id, writes only after ``purge`` is typed, and leaves the chain whole."""

from __future__ import annotations

from pathlib import Path

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.screens.purge import PurgePreview

from .conftest import CLOCK_START, make_app, settle
from .test_hygiene_tab import modal, open_tab, until

AWS = "AKIAIOSFODNN7EXAMPLE"


def leaky(path: Path) -> None:
    with Store.open(str(path), clock=FakeClock(CLOCK_START, 60_000)) as s:
        a, _ = s.remember("project:x", f"The deploy key is {AWS}", source_agent="claude",
                          source_ref="session-7")
        _, b, _ = s.revise(a, f"The deploy key is {AWS}, rotated monthly")
        s.revise(b, "The deploy key rotates monthly")


def texts(path: Path) -> list[str]:
    with Store.open(str(path), readonly=True) as s:
        return [s.get(i).fact for i in (1, 2, 3)]


async def test_secrets_row_purges_the_chain_after_typed_confirmation(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    leaky(db)
    app = make_app(lambda: Store.open(str(db)), tmp_path / "config")
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        assert [f.kind for f in pane.flags[:2]] == ["secrets", "secrets"]
        first = pane.flags[0]
        assert "by claude (session-7)" in first.summary and AWS not in first.summary
        shown = " ".join(str(c) for c in pane.query_one("#hygiene-table").get_row(first.key))
        assert AWS not in shown and "AKIA…MPLE" in shown
        await pilot.press("x")
        preview = await modal(pilot, PurgePreview)
        table = preview.query_one("#purge-rows")
        rows = [" ".join(str(c) for c in table.get_row_at(n)) for n in range(table.row_count)]
        assert [r.split()[0] for r in rows] == ["#1", "#2"]
        assert all(AWS not in r for r in rows)
        await pilot.press("n", "o", "enter")  # a wrong word does nothing
        ask = preview.query_one("#purge-ask")
        await until(pilot, lambda: "exactly" in str(ask.render()), "the ask again")
        assert isinstance(app.screen, PurgePreview) and AWS in texts(db)[0]
        preview.query_one("#purge-confirm").value = ""
        for key in "purge":
            await pilot.press(key)
        await pilot.press("enter")
        await until(pilot, lambda: any("Purged 2 row(s): #1, #2" in n.message
                                       for n in app._notifications), "the purge notice")
        await settle(pilot)
        assert not any(f.kind == "secrets" for f in pane.flags)
    after = texts(db)
    assert all(AWS not in t for t in after) and after[2] == "The deploy key rotates monthly"
    assert AWS.encode() not in db.read_bytes()


async def test_escape_in_the_preview_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    leaky(db)
    before = texts(db)
    app = make_app(lambda: Store.open(str(db)), tmp_path / "config")
    async with app.run_test(size=(120, 36)) as pilot:
        await open_tab(pilot)
        await pilot.press("x")
        await modal(pilot, PurgePreview)
        await pilot.press("escape")
        await until(pilot, lambda: any("Nothing was written" in n.message
                                       for n in app._notifications), "the cancel notice")
    assert texts(db) == before


async def test_merging_facts_that_disagree_asks_which_is_true(tmp_path: Path) -> None:
    from memharness_tui.tui.screens.confirm import ConfirmScreen
    from memharness_tui.tui.screens.hygiene_edit import MergeEditor

    db = tmp_path / "memory.db"
    with Store.open(str(db), clock=FakeClock(CLOCK_START, 60_000)) as s:
        s.remember("project:api", "The API listens on port 8080")
        s.remember("project:api", "The API listens on port 9090")
    app = make_app(lambda: Store.open(str(db)), tmp_path / "config")
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await open_tab(pilot)
        row = next(n for n, f in enumerate(pane.flags) if f.kind == "near-duplicate")
        pane.query_one("#hygiene-table").move_cursor(row=row)
        await settle(pilot)
        await pilot.press("m")
        ask = await modal(pilot, ConfirmScreen)
        assert "#1 says port 8080, #2 says 9090" in ask.detail
        await pilot.press("n")
        await until(pilot, lambda: any("Nothing was written" in n.message
                                       for n in app._notifications), "the cancel notice")
        await pilot.press("m")
        await modal(pilot, ConfirmScreen)
        await pilot.press("y")
        await modal(pilot, MergeEditor)
        await pilot.press("escape")
    with Store.open(str(db), readonly=True) as s:
        assert sorted(f.id for f in s.list_facts("project:api")) == [1, 2]


async def test_the_purge_previews_keys_are_in_help(tmp_path: Path) -> None:
    from .help_keys import classes_with_keys, missing, read_help

    db = tmp_path / "memory.db"
    leaky(db)
    app = make_app(lambda: Store.open(str(db)), tmp_path / "config")
    async with app.run_test(size=(120, 36)) as pilot:
        await open_tab(pilot)
        await pilot.press("x")
        await modal(pilot, PurgePreview)
        text = await read_help(pilot, palette=True)  # a modal: help from the palette
    assert missing(text, classes_with_keys()["PurgePreview"]) == []
