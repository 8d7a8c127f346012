"""The file under an open store (issue #20, items 3, 5, 10): replaced, deleted, damaged; and a
row written with its verdict in one transaction."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.store.driver import sqlite3 as driver
from memharness_tui.store.errors import FileDamaged, FileReplaced, NotADatabase

from .helpers import copy_fixture, dump_facts


def _store_with_wal(path: Path, n: int = 5) -> Store:
    """An open store whose last writes are still in its -wal (not checkpointed)."""
    store = Store.open(str(path), clock=FakeClock("2026-02-01"))
    for i in range(n):
        store.remember("proj", f"deploy note {i} about widgets")
    assert (path.parent / (path.name + "-wal")).stat().st_size > 0
    return store


def _other(path: Path) -> list[dict[str, object]]:
    with Store.open(str(path), clock=FakeClock("2026-01-01")) as other:
        other.remember("elsewhere", "the other file's only fact")
    return dump_facts(path)


def test_a_write_after_the_file_is_replaced_is_refused_and_the_new_file_stays_whole(
        tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    store = _store_with_wal(db)
    other = tmp_path / "other.db"
    before = _other(other)
    os.replace(other, db)  # mv other.db memory.db while the store is open
    with pytest.raises(FileReplaced) as err:
        store.remember("proj", "a fact that must not be confirmed")
    message = err.value.message
    assert message == (f"{db} was replaced by another file while it was open; nothing more "
                       "is written to the old one — reopen to use the file that is there now")
    with pytest.raises(FileReplaced):  # reads too: never silently the new file through the old
        store.recall("deploy")
    store.close()
    # no -wal of the old file beside the new one: the new file is exactly itself
    assert not (tmp_path / "memory.db-wal").exists()
    assert dump_facts(db) == before
    with Store.open(str(db)) as again:
        assert [f.fact for f in again.recall("other").facts] == ["the other file's only fact"]
        assert again.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_closing_a_store_whose_file_was_replaced_leaves_no_wal_to_corrupt_the_new_one(
        tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    store = _store_with_wal(db, n=40)
    other = tmp_path / "other.db"
    _other(other)
    os.replace(other, db)
    store.close()  # no write, no poll: closing alone must not leave the old -wal behind
    assert not (tmp_path / "memory.db-wal").exists()
    with Store.open(str(db)) as again:
        assert again.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [f.fact for f in again.recall("other").facts] == ["the other file's only fact"]
        assert again.recall("widgets").facts == []  # none of the old file's rows leaked in


def test_a_write_after_the_file_is_deleted_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    store = _store_with_wal(db)
    os.remove(db)
    assert store.file_problem() is not None
    with pytest.raises(FileReplaced, match=r"was deleted while it was open; nothing more is "
                                           r"written to it — reopen"):
        store.remember("proj", "lost if accepted")
    store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_file_still_there_is_not_a_problem(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    store = _store_with_wal(db)
    assert store.file_problem() is None
    store.check_file()
    store.remember("proj", "still fine")
    store.close()
    assert len(dump_facts(db)) == 6


# --- a row and its verdict: one transaction ----------------------------------------------


def _verdicts_fail(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("CREATE TRIGGER no_verdicts BEFORE UPDATE OF freshness ON facts "
                 "BEGIN SELECT RAISE(ABORT, 'injected: the verdict write failed'); END")
    conn.close()


@pytest.mark.parametrize("how", ["remember", "revise"])
def test_a_row_whose_verdict_fails_is_not_written(tmp_path: Path, how: str) -> None:
    db = tmp_path / "memory.db"
    with Store.open(str(db), clock=FakeClock("2026-02-01")) as store:
        first, _ = store.remember("proj", "pinned", source_commit="a" * 40)
    _verdicts_fail(db)
    before = dump_facts(db)
    with (Store.open(str(db), clock=FakeClock("2026-02-02")) as store,
          pytest.raises(driver.IntegrityError, match="injected")):
        if how == "remember":
            store.remember("proj", "new", source_commit="b" * 40, verdict=("stale", "c" * 40))
        else:
            store.revise(first, "newer", source_commit="b" * 40, verdict=("stale", "c" * 40))
    assert dump_facts(db) == before  # neither the row nor its verdict


def test_a_row_and_its_verdict_land_together(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with Store.open(str(db), clock=FakeClock("2026-02-01")) as store:
        new_id, tx_at = store.remember("proj", "pinned", source_commit="a" * 40,
                                       verdict=("current", "d" * 40))
        f = store.get(new_id)
    assert (f.freshness, f.checked_head) == ("current", "d" * 40)
    assert f.checked_at is not None and f.checked_at > tx_at


ANOTHER_PROCESS = """
import shutil, sys
from pathlib import Path
from memharness_tui.store import Store
from memharness_tui.store.errors import FileDamaged
db = Path(sys.argv[1])
if len(sys.argv) > 2:  # restore it from a backup first: a different file, writable again
    for side in ("", "-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    shutil.copyfile(sys.argv[2], db)
with Store.open(str(db)) as store:
    try:
        store.remember("proj", "from another process")
    except FileDamaged as exc:
        print(exc.message)
        sys.exit(3)
"""


# --- damaged pages -------------------------------------------------------------------------


def test_a_file_known_damaged_refuses_writes_too(tmp_path: Path) -> None:
    db = copy_fixture("v5.db", tmp_path)
    with Store.open(str(db)) as store:  # migrate / settle it first, then damage one page
        store.recall("deploy")
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = "
                        "'idx_facts_subject'").fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(db, "r+b") as f:  # the subject index's page: garbage after its header
        f.seek((root - 1) * page + 8)
        f.write(b"\xff" * (page - 8))
    damaged = db.read_bytes()
    store = Store.open(str(db))
    with pytest.raises(NotADatabase, match="not a usable SQLite database"):
        store.subjects()  # a read meets the damage: the file is known damaged from now on
    with pytest.raises(FileDamaged) as err:
        store.remember("proj", "would be written beside damaged pages")
    assert err.value.message.startswith(f"{db} has damaged pages (SQLite reported them when "
                                        "it was read); nothing was written — restore it")
    store.close()
    # another store on it in this process knows too
    with Store.open(str(db)) as again, pytest.raises(FileDamaged):
        again.remember("proj", "nor through a second store")
    assert db.read_bytes() == damaged
    # a later process (recall failed, then `remember`) is refused too: the record in the
    # cache folder still matches the file exactly
    refused = subprocess.run([sys.executable, "-c", ANOTHER_PROCESS, str(db)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 3, refused.stderr
    assert "has damaged pages" in refused.stdout
    assert db.read_bytes() == damaged
    # restored from a backup: another file, writable again
    restored = subprocess.run([sys.executable, "-c", ANOTHER_PROCESS, str(db),
                               str(Path(__file__).parents[1] / "fixtures" / "v5.db")],
                              capture_output=True, text=True, timeout=60)
    assert restored.returncode == 0, restored.stdout + restored.stderr
