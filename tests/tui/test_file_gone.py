"""The file under the open app is replaced or deleted (issue #20, item 5), in the app: the
poll notices, the app says so in one sentence and offers to reopen; no write is confirmed
into the old file meanwhile; reopening shows (and writes to) what is at the path now."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.store.errors import FileReplaced
from memharness_tui.tui.screens.confirm import ConfirmScreen
from memharness_tui.tui.services.store import FactValues, RecallQuery

from .conftest import Sample, make_app, settle


async def _until_confirm(pilot: object) -> ConfirmScreen:
    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(200):
        if isinstance(app.screen, ConfirmScreen):
            await settle(pilot)  # composed and painted (a loaded machine is slow to)
            return app.screen
        await pilot.pause(0.02)  # type: ignore[attr-defined]
    raise AssertionError("the app never said the file was replaced")


def _texts(screen: ConfirmScreen) -> str:
    from textual.widgets import Static

    return " ".join(str(screen.query_one(f"#confirm-{part}", Static).render()
                        if part == "title" else
                        screen.query_one("#confirm-detail").query_one(Static).render())
                    for part in ("title", "detail"))


def _facts(path: Path) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT fact FROM facts ORDER BY id")]
    finally:
        conn.close()


async def test_the_app_notices_a_replaced_file_refuses_writes_and_reopens(
        sample: tuple[Store, Sample], config_dir: Path, tmp_path: Path) -> None:
    store, info = sample
    db = Path(info.path)
    other = tmp_path / "other.db"
    with Store.open(str(other), clock=FakeClock("2026-01-01")) as o:
        o.remember("elsewhere", "the other file's only fact")
    app = make_app(store, config_dir, poll_interval=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        os.replace(other, db)  # mv other.db memory.db under the open app
        screen = await _until_confirm(pilot)
        said = _texts(screen)
        assert f"{db} was replaced by another file while it was open" in said
        # a save now is refused, never confirmed into the old file
        with pytest.raises(FileReplaced):
            await app.service.new_fact(FactValues(fact="typed after the swap", subject="s"))
        assert _facts(db) == ["the other file's only fact"]
        await pilot.press("y")  # Reopen
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        found = await app.service.recalls.recall(RecallQuery(query="other"))
        assert [f.fact for f in found.facts] == ["the other file's only fact"]
        new_id, _ = await app.service.new_fact(FactValues(fact="written after reopening",
                                                          subject="s"))
        assert _facts(db) == ["the other file's only fact", "written after reopening"]
        assert new_id == 2


async def test_the_app_notices_a_deleted_file_and_reopens_as_a_new_store(
        sample: tuple[Store, Sample], config_dir: Path) -> None:
    store, info = sample
    db = Path(info.path)
    app = make_app(store, config_dir, poll_interval=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        os.remove(db)
        screen = await _until_confirm(pilot)
        assert f"{db} was deleted while it was open" in _texts(screen)
        with pytest.raises(FileReplaced):
            await app.service.new_fact(FactValues(fact="lost if accepted", subject="s"))
        assert not db.exists()
        await pilot.press("y")
        await settle(pilot)
        assert app.info is not None and app.info.is_new
        await app.service.new_fact(FactValues(fact="the first fact of the new store",
                                              subject="s"))
        assert _facts(db) == ["the first fact of the new store"]


async def test_not_now_then_a_refused_action_offers_to_reopen_again(
        sample: tuple[Store, Sample], config_dir: Path) -> None:
    store, info = sample
    db = Path(info.path)
    app = make_app(store, config_dir, poll_interval=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        os.remove(db)
        await _until_confirm(pilot)
        await pilot.press("n")  # not now
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        for _ in range(5):  # the poll does not nag
            await pilot.pause(0.06)
        assert not isinstance(app.screen, ConfirmScreen)
        with pytest.raises(FileReplaced) as err:
            await app.service.retract(info.stale)
        app.report_error(err.value)  # what every action does with a refused write
        screen = await _until_confirm(pilot)
        assert f"{db} was deleted while it was open" in _texts(screen)
