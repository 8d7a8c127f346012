"""The -wal/-shm deleted under an open store (``rm memory.db-wal memory.db-shm``), and the
file itself moved, deleted or replaced: what the store says, and that no other process's
commit is lost when it lets go.

After the ``rm`` another process's connection makes new -wal/-shm at the path and commits
into them, while this store's connection still has the old (deleted) ones. Its close would
checkpoint its old log into the shared file and then remove the path's -wal and -shm — the
other process's commits with them. The store notices the sidecars are not the ones it
opened, and lets go without either. Writers here are plain ``python -c`` processes.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.store import driver as store_driver
from memharness_tui.store.errors import FileReplaced
from tests.conftest import REPO_ROOT

from .helpers import dump_facts

N = 50
TIMEOUT_S = 120
WRITER = """
import sys
from memharness_tui.store import Store
s = Store.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    s.remember("agent", f"agent fact {sys.argv[3]} {i}")
s.close()
"""


def _agent_writes(db: Path, n: int, batch: str) -> None:
    """Another process (as an agent's MCP server would) writes ``n`` facts and exits."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", WRITER, str(db), str(n), batch], cwd=REPO_ROOT,
                          env=env, capture_output=True, timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")


def _agent_facts(db: Path, batch: str) -> list[str]:
    return sorted(str(f["fact"]) for f in dump_facts(db)
                  if str(f["fact"]).startswith(f"agent fact {batch} "))


def _whole(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def _holder(db: Path) -> Store:
    """An open store (the app, a long CLI pass) with commits of its own in its -wal."""
    store = Store.open(str(db), clock=FakeClock("2026-02-01"))
    for i in range(3):
        store.remember("proj", f"holder note {i}")
    assert Path(f"{db}-wal").stat().st_size > 0 and Path(f"{db}-shm").exists()
    return store


def _rm_sidecars(db: Path) -> None:
    os.remove(f"{db}-wal")
    os.remove(f"{db}-shm")


@pytest.mark.parametrize("notices", ["on its poll", "only when closed"])
def test_another_process_keeps_every_write_made_after_the_sidecars_were_deleted(
        tmp_path: Path, notices: str) -> None:
    db = tmp_path / "memory.db"
    holder = _holder(db)
    _rm_sidecars(db)
    _agent_writes(db, N, "a")  # told 50 of 50 written
    if notices == "on its poll":
        with pytest.raises(FileReplaced, match="were deleted and made anew by another program"):
            holder.check_file()
    holder.close()
    assert _agent_facts(db, "a") == sorted(f"agent fact a {i}" for i in range(N))
    assert _whole(db) == "ok"


def test_a_write_after_the_sidecars_were_deleted_is_refused_and_later_batches_all_land(
        tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    holder = _holder(db)
    _rm_sidecars(db)
    with pytest.raises(FileReplaced, match=r"^the -wal and -shm beside .* were deleted while it "
                                           r"was open; nothing more is written through the old"):
        holder.remember("proj", "never claimed")  # into a log nobody else reads
    _agent_writes(db, N, "a")
    with pytest.raises(FileReplaced):
        holder.remember("proj", "never claimed either")
    _agent_writes(db, N, "b")
    holder.close()
    assert len(_agent_facts(db, "a")) == N and len(_agent_facts(db, "b")) == N
    assert not [f for f in dump_facts(db) if str(f["fact"]).startswith("never claimed")]
    assert _whole(db) == "ok"


def test_reopening_in_the_same_process_uses_the_new_sidecars_and_loses_nothing(
        tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    holder = _holder(db)
    _rm_sidecars(db)
    _agent_writes(db, N, "a")
    with pytest.raises(FileReplaced):
        holder.check_file()
    holder.close()
    with Store.open(str(db), clock=FakeClock("2026-03-01")) as again:
        assert again.file_problem() is None
        assert again.counts().total >= N
        again.remember("proj", "written after the reopen")
        _agent_writes(db, N, "b")  # while the reopened store holds the file
        assert again.file_problem() is None
    assert len(_agent_facts(db, "a")) == N and len(_agent_facts(db, "b")) == N
    assert [f["fact"] for f in dump_facts(db) if f["fact"] == "written after the reopen"]
    assert _whole(db) == "ok"


def test_only_the_shm_deleted_is_noticed_too(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    holder = _holder(db)
    os.remove(f"{db}-shm")
    problem = holder.file_problem()
    assert problem is not None and problem.startswith("the -shm beside ")
    assert " was deleted while it was open" in problem
    holder.close()


def test_closing_without_a_checkpoint_leaves_the_log_for_the_next_open() -> None:
    """The driver's switch works on each SQLite module: the last connection closes and its
    -wal stays, unmerged, and the next open reads its commits from it."""
    import tempfile

    modules = [sqlite3] + ([store_driver.sqlite3] if store_driver.sqlite3 is not sqlite3 else [])
    for module in modules:
        folder = Path(tempfile.mkdtemp())
        try:
            db = folder / "x.db"
            conn = module.connect(str(db), isolation_level=None)
            conn.execute("PRAGMA journal_mode=wal")
            conn.execute("CREATE TABLE t(x)")
            conn.execute("INSERT INTO t VALUES (1), (2)")
            assert store_driver.close_without_checkpoint(conn, str(db)) is True
            assert Path(f"{db}-wal").stat().st_size > 0  # not merged, not removed
            assert Path(f"{db}-shm").exists()
            again = sqlite3.connect(db)
            assert again.execute("SELECT count(*) FROM t").fetchone()[0] == 2
            again.close()
        finally:
            shutil.rmtree(folder)


# --- the file itself: what the store says, what it leaves, and that it refuses -----------


def test_the_message_says_whether_the_file_was_moved_deleted_or_replaced(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    moved = _holder(db)
    os.rename(db, tmp_path / "kept.db")
    assert moved.file_problem() == (
        f"{db} was moved to {tmp_path / 'kept.db'} while it was open; nothing more is written "
        "to it — reopen to start a new store there, or move the file back")
    moved.close()

    db2 = tmp_path / "second.db"
    deleted = _holder(db2)
    os.remove(db2)
    assert deleted.file_problem() == (
        f"{db2} was deleted while it was open; nothing more is written to it — reopen to start "
        "a new store there, or restore the file")
    deleted.close()

    db3 = tmp_path / "third.db"
    replaced = _holder(db3)
    os.replace(tmp_path / "kept.db", db3)
    assert replaced.file_problem() == (
        f"{db3} was replaced by another file while it was open; nothing more is written to the "
        "old one — reopen to use the file that is there now")
    replaced.close()


def test_a_file_moved_to_another_folder_is_said_to_be_moved_away(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    (tmp_path / "elsewhere").mkdir()
    store = _holder(db)
    os.rename(db, tmp_path / "elsewhere" / "memory.db")
    problem = store.file_problem()
    assert problem is not None and problem.startswith(f"{db} was moved away while it was open")
    store.close()


@pytest.mark.parametrize("how", ["deleted", "moved", "sidecars deleted"])
def test_reads_after_the_poll_noticed_are_refused_and_nothing_appears_at_the_path(
        tmp_path: Path, how: str) -> None:
    db = tmp_path / "memory.db"
    store = _holder(db)
    if how == "deleted":
        os.remove(db)
    elif how == "moved":
        os.rename(db, tmp_path / "kept.db")
    else:
        _rm_sidecars(db)
    with pytest.raises(FileReplaced):
        store.check_file()  # the app's poll: no write asked for
    reads = {
        "recall": lambda: store.recall("holder"),
        "get": lambda: store.get(1),
        "list_facts": lambda: store.list_facts(),
        "subjects": lambda: store.subjects(),
        "counts": lambda: store.counts(),
        "data_version": lambda: store.data_version(),
    }
    for name, read in reads.items():
        with pytest.raises(FileReplaced):
            read()
            pytest.fail(f"{name} answered after the file was {how}")
    store.close()
    if how != "sidecars deleted":
        assert not db.exists()  # no read reconnected to the path (making an empty file)
        assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()


def test_closing_after_a_replace_keeps_the_wal_that_came_with_the_new_file(
        tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    store = _holder(db)
    # another store whose last commits are only in its -wal, copied out as a sync tool would
    other = tmp_path / "other.db"
    writer = Store.open(str(other), clock=FakeClock("2026-01-01"))
    writer.remember("elsewhere", "checkpointed into the other file")
    writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    writer.remember("elsewhere", "only in the other file's -wal")
    shutil.copyfile(other, tmp_path / "incoming.db")
    shutil.copyfile(f"{other}-wal", tmp_path / "incoming.db-wal")
    writer.close()
    os.replace(tmp_path / "incoming.db", db)
    os.replace(tmp_path / "incoming.db-wal", f"{db}-wal")
    with pytest.raises(FileReplaced):
        store.check_file()
    store.close()
    assert Path(f"{db}-wal").exists()  # the new file's own log, left where it came
    assert sorted(str(f["fact"]) for f in dump_facts(db)) == [
        "checkpointed into the other file", "only in the other file's -wal"]
    assert _whole(db) == "ok"
