"""Text the reference wrote that is not valid UTF-8 (a lone surrogate, stored by its SQLite as
ED A0 80; ``tests/fixtures/undecodable_text.db``): every read shows it with U+FFFD and never
fails, no write elsewhere rewrites those bytes, and ``doctor`` names the rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.store import FakeClock, Store
from memharness_tui.store.driver import sqlite3  # the store's own SQLite: one lock table

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "undecodable_text.db"
BAD_ID = 2
BAD_BYTES = b"a lone surrogate \xed\xa0\x80 in the middle of a cache fact"
SHOWN = BAD_BYTES.decode("utf-8", "replace")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"
    shutil.copy(FIXTURE, path)
    return path


def _raw_rows(path: Path) -> list[tuple[object, ...]]:
    """Every column of every row as SQLite holds it (text as its bytes)."""
    conn = sqlite3.connect(path)
    conn.text_factory = bytes
    try:
        return conn.execute("SELECT * FROM facts ORDER BY id").fetchall()
    finally:
        conn.close()


def test_the_fixture_holds_the_bytes_the_reference_wrote(db: Path) -> None:
    rows = {r[0]: r for r in _raw_rows(db)}
    assert BAD_BYTES in rows[BAD_ID]
    assert "\ufffd" in SHOWN and "\ud800" not in SHOWN


def test_every_store_read_shows_the_text_with_a_replacement(db: Path) -> None:
    with Store.open(str(db), clock=FakeClock()) as store:
        found = store.recall("cache")
        assert SHOWN in [f.fact for f in found.facts]
        assert store.why(BAD_ID).fact.fact == SHOWN
        assert SHOWN in [f.fact for f in store.diff("2000-01-01T00:00:00Z").learned]
        assert SHOWN in [f.fact for f in store.recall("").facts]


def test_the_cli_reads_show_it_and_exit_0(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["recall", "cache"], ["why", str(BAD_ID)], ["diff", "2000-01-01"],
                 ["hygiene"], ["recall", "cache", "--json"]):
        code = main([argv[0], "--db", str(db), *argv[1:]])
        out = capsys.readouterr()
        assert code in (0, 1) and "internal error" not in out.err, (argv, out.err)
        assert out.err == "" or argv[0] == "hygiene", (argv, out.err)
        if argv[0] != "hygiene":
            assert code == 0, (argv, out.err)
            assert "\ufffd" in out.out or "\\ufffd" in out.out, (argv, out.out)


def test_a_revise_of_another_fact_leaves_those_bytes_as_they_are(db: Path) -> None:
    before = {r[0]: r for r in _raw_rows(db)}
    with Store.open(str(db), clock=FakeClock()) as store:
        store.recall("cache")  # reinforces the row: last_accessed_at only
        store.revise(1, "the cache lives in valkey")
    after = {r[0]: r for r in _raw_rows(db)}
    fact_col = 3  # id, subject, predicate, fact, …
    assert after[BAD_ID][fact_col] == before[BAD_ID][fact_col] == BAD_BYTES
    assert after[BAD_ID][:fact_col + 1] == before[BAD_ID][:fact_col + 1]


def test_doctor_names_the_rows(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["doctor", "--db", str(db)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert "  [warn] 1 fact holds text that is not valid UTF-8: #2" in lines


async def test_the_app_opens_on_the_list_with_the_text(db: Path, tmp_path: Path) -> None:
    from memharness_tui.tui.screens.modals import ErrorModal
    from memharness_tui.tui.widgets.results_table import ResultsTable
    from tests.tui.conftest import make_app, settle

    with Store.open(str(db)) as store:
        app = make_app(store, tmp_path / "config")
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            assert not isinstance(app.screen, ErrorModal)
            table = app.screen.query_one("#results", ResultsTable)
            assert str(BAD_ID) in table.row_keys()
            shown = table.get_cell(str(BAD_ID), "fact").plain
            assert "\ufffd" in shown and "lone surrogate" in shown, shown
