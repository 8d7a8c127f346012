"""Fault tests (issue #8): every known failure is one clear MemharnessError sentence and
leaves the files as they were — the database and its -wal hashed before and after.

Root-only faults (a full disk on a small tmpfs, a read-only mount, an immutable file)
are skipped with the reason when the tests cannot create them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.store import db as store_db

# In-process "other" connections must use the store's SQLite library: POSIX locks are per
# process, so two SQLite builds in one process do not see each other's locks.
from memharness_tui.store.driver import sqlite3
from memharness_tui.store.errors import (
    DiskFull,
    FolderMissing,
    ForeignDatabase,
    InvalidPath,
    InvalidText,
    MemharnessError,
    NotAFile,
    NotFound,
    ReadOnlyFile,
    StoreBusy,
    busy_message,
)
from tests.conftest import fixtures_dir
from tests.store.support import db_snapshot, open_store, populate, sidecars

# --- helpers -----------------------------------------------------------------------------


def file_hashes(path: Path) -> dict[str, str]:
    """sha256 of the database and of each durable side file (-wal, -journal) that exists."""
    out = {}
    for suffix in ("", "-wal", "-journal"):
        p = Path(f"{path}{suffix}")
        if p.exists():
            out[suffix or "db"] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


_HASHES = """
import hashlib, json, os, sys
out = {}
for suffix in ("", "-wal", "-journal"):
    if os.path.exists(sys.argv[1] + suffix):
        with open(sys.argv[1] + suffix, "rb") as f:
            out[suffix or "db"] = hashlib.sha256(f.read()).hexdigest()
print(json.dumps(out))
"""


def file_hashes_elsewhere(path: Path) -> dict[str, str]:
    """``file_hashes``, read in another process: closing a descriptor of the file here drops
    every POSIX lock this process holds on it — an open store's included, and another
    process's connection may then remove the -wal/-shm from under it (the store refuses
    to go on then)."""
    import json
    import sys

    done = subprocess.run([sys.executable, "-c", _HASHES, str(path)], capture_output=True,
                          text=True, check=True, timeout=60)
    return dict(json.loads(done.stdout))


def one_sentence(exc: MemharnessError) -> str:
    text = str(exc)
    assert text and "\n" not in text and "Traceback" not in text
    return text


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@contextlib.contextmanager
def tmpfs(tmp_path: Path, size: str) -> Iterator[Path]:
    """A small tmpfs of its own (root only); unmounted afterwards."""
    if not _is_root():
        pytest.skip("needs root to mount a small tmpfs")
    mnt = tmp_path / f"mnt-{uuid.uuid4().hex[:8]}"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def remount_read_only(mnt: Path) -> None:
    done = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot remount read-only: {done.stderr.strip()}")


def fill_disk(folder: Path) -> None:
    """Write a filler file until the file system says it is full."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == 28, exc  # ENOSPC
    finally:
        os.close(fd)


@contextlib.contextmanager
def read_only_file(path: Path) -> Iterator[None]:
    """chmod 0444, or for root (who ignores modes) the immutable attribute."""
    if not _is_root():
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(0o644)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root and chattr is missing: cannot make a read-only file")
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make the file immutable: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)


def populated(path: Path) -> Path:
    with open_store(path) as s:
        populate(s)
    return path


# --- a held write lock -------------------------------------------------------------------


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 5 s busy timeout shortened so the tests wait 0.2 s for the other process's lock."""
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 200)


def test_the_busy_sentence_is_the_one_the_issue_asks_for() -> None:
    assert busy_message(5.0, writing=True) == (
        "the database is busy: another process has held a write lock for 5 s; "
        "nothing was written — try again"
    )


WRITES: list[tuple[str, Callable[[Store, dict[str, int]], Any]]] = [
    ("remember", lambda s, ids: s.remember("x", "y")),
    ("revise", lambda s, ids: s.revise(ids["plain"], "replica lags by 3s")),
    ("forget", lambda s, ids: s.forget(fact_id=ids["plain"])),
    ("forget-ref", lambda s, ids: s.forget(source_ref="session-1")),
    ("set_staleness", lambda s, ids: s.set_staleness(ids["plain"], "stale", "2026-02-01", "b" * 40)),
    ("downgrade", lambda s, ids: s.downgrade(ids["plain"], 0.5, source_agent="t")),
    ("reinforce", lambda s, ids: s.recall("replica", reinforce=True)),
]


@pytest.mark.parametrize("write", [w for _, w in WRITES], ids=[n for n, _ in WRITES])
def test_a_held_write_lock_gives_the_busy_sentence_and_writes_nothing(
    tmp_path: Path, short_busy_timeout: None, write: Callable[[Store, dict[str, int]], Any]
) -> None:
    path = tmp_path / "memory.db"
    with open_store(path) as s:
        ids = populate(s)
    store = open_store(path, start="2026-03-01")
    other = sqlite3.connect(path, isolation_level=None)  # "another process" holding the lock
    try:
        other.execute("BEGIN IMMEDIATE")
        rows = db_snapshot(path)  # (a read-only look may leave an empty -wal)
        before = file_hashes(path)
        with pytest.raises(StoreBusy) as info:
            write(store, ids)
        assert one_sentence(info.value) == busy_message(0.2, writing=True)
        assert info.value.code == "BUSY"
        assert file_hashes(path) == before
        other.execute("ROLLBACK")
        assert db_snapshot(path) == rows
        write(store, ids)  # the lock is gone: the same call now works
    finally:
        other.close()
        store.close()


# --- a full disk ---------------------------------------------------------------------------


def test_a_full_disk_gives_one_sentence_and_commits_nothing(tmp_path: Path) -> None:
    with tmpfs(tmp_path, "1m") as mnt:
        path = populated(mnt / "memory.db")
        store = open_store(path, start="2026-03-01")
        try:
            rows = db_snapshot(path)
            main = hashlib.sha256(path.read_bytes()).hexdigest()
            fill_disk(mnt)
            with pytest.raises(DiskFull) as info:
                store.remember("big", "x" * 300_000)
            assert "full" in one_sentence(info.value) and "nothing was written" in str(info.value)
            assert info.value.code == "DISK_FULL"
            # The main file is byte-identical. (SQLite may have appended uncommitted frames
            # to the -wal before the disk ran out; no reader ever sees them.)
            assert hashlib.sha256(path.read_bytes()).hexdigest() == main
            assert db_snapshot(path) == rows
        finally:
            store.close()


def test_a_migration_whose_backup_fails_on_a_full_disk_leaves_no_backup(tmp_path: Path) -> None:
    # 64 KiB of v4.db and 32 KiB of -shm fit; a second 64 KiB (the backup) does not.
    with tmpfs(tmp_path, "128k") as mnt:
        path = mnt / "v4.db"
        shutil.copyfile(fixtures_dir() / "v4.db", path)
        before = file_hashes(path)
        with pytest.raises(DiskFull) as info:
            Store.open(str(path))
        one_sentence(info.value)
        assert sorted(p.name for p in mnt.iterdir()) == ["v4.db"]
        assert file_hashes(path) == before


# --- read-only file and read-only folder ---------------------------------------------------


def test_a_read_only_file_opens_read_only_and_refuses_writes_with_the_reason(
    tmp_path: Path,
) -> None:
    path = populated(tmp_path / "memory.db")
    rows = db_snapshot(path)  # (a read-only look may leave an empty -wal)
    before = file_hashes(path)
    with read_only_file(path):
        with Store.open(str(path), clock=FakeClock("2026-03-01", 1000)) as store:
            assert store.readonly and store.readonly_reason == "the file is read-only"
            assert store.recall("replica").ids  # reading works
            with pytest.raises(ReadOnlyFile) as info:
                store.remember("x", "y")
        assert "read-only" in one_sentence(info.value)
        assert "nothing was written" in str(info.value)
        assert info.value.code == "READ_ONLY_FILE"
    assert file_hashes(path) == before and db_snapshot(path) == rows


def test_a_database_in_a_read_only_folder_opens_read_only(tmp_path: Path) -> None:
    """A WAL file with no -wal/-shm beside it, in a folder nobody may write: immutable open."""
    with tmpfs(tmp_path, "4m") as mnt:
        path = populated(mnt / "memory.db")
        assert sidecars(path) == []  # closed cleanly: WAL mode, no side files
        before = file_hashes(path)
        remount_read_only(mnt)
        with Store.open(str(path), clock=FakeClock("2026-03-01", 1000)) as store:
            assert store.readonly
            assert store.readonly_reason == "it is on a read-only file system"
            assert store.recall("replica").ids and store.stats().total_facts == 6
            with pytest.raises(ReadOnlyFile) as info:
                store.revise(1, "x")
            one_sentence(info.value)
        with Store.open(str(path), readonly=True) as store:  # asked for read-only: same
            assert store.counts().total == 6
        assert file_hashes(path) == before and sidecars(path) == []


def test_a_new_file_in_a_read_only_folder_is_refused_without_creating_it(tmp_path: Path) -> None:
    with tmpfs(tmp_path, "1m") as mnt:
        remount_read_only(mnt)
        store = Store.open(str(mnt / "memory.db"))
        try:
            assert store.is_new and store.recall("").facts == []
            with pytest.raises(ReadOnlyFile) as info:
                store.remember("x", "y")
            one_sentence(info.value)
        finally:
            store.close()
        assert list(mnt.iterdir()) == []


# --- files that are not ours ---------------------------------------------------------------


def _foreign(path: Path, version: int, create: str) -> Path:
    conn = sqlite3.connect(path)
    conn.execute(create)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    return path


FOREIGN = [
    (v, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "no facts table")
    for v in range(0, 6)
] + [
    (5, "CREATE TABLE facts (id INTEGER PRIMARY KEY, subject TEXT, fact TEXT)", "facts"),
    (3, "CREATE TABLE facts (id INTEGER PRIMARY KEY, subject TEXT, fact TEXT)", "facts"),
]


@pytest.mark.parametrize(("version", "create", "_why"), FOREIGN)
@pytest.mark.parametrize("readonly", [False, True], ids=["rw", "ro"])
def test_a_foreign_sqlite_file_is_refused_untouched(
    tmp_path: Path, version: int, create: str, _why: str, readonly: bool
) -> None:
    path = _foreign(tmp_path / "other.db", version, create)
    before = file_hashes(path)
    with pytest.raises(ForeignDatabase) as info:
        Store.open(str(path), readonly=readonly)
    text = one_sentence(info.value)
    assert "not a memharness store" in text and "not changed" in text
    assert info.value.code == "FOREIGN_DATABASE"
    assert file_hashes(path) == before and sidecars(path) == []
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # never switched to WAL
    conn.close()


def test_a_file_claiming_v5_without_the_v5_columns_is_refused(tmp_path: Path) -> None:
    """facts and facts_fts present but m005's columns missing: not ours, whatever it claims."""
    path = tmp_path / "v4.db"
    shutil.copyfile(fixtures_dir() / "v4.db", path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    before = file_hashes(path)
    with pytest.raises(ForeignDatabase) as info:
        Store.open(str(path))
    assert "checked_head" in one_sentence(info.value)
    assert file_hashes(path) == before


# --- zero-byte and absent files: created by the first write, never by a read or a refusal --


@pytest.mark.parametrize("readonly", [False, True], ids=["rw", "ro"])
def test_a_zero_byte_file_is_read_as_empty_and_refused_writes_leave_it_empty(
    tmp_path: Path, readonly: bool
) -> None:
    path = tmp_path / "memory.db"
    path.write_bytes(b"")
    with Store.open(str(path), clock=FakeClock("2026-03-01", 1000), readonly=readonly) as s:
        assert s.is_new
        assert s.recall("anything").facts == [] and s.stats().total_facts == 0
        assert s.list_facts() == [] and s.subjects() == [] and s.counts().total == 0
        if not readonly:
            with pytest.raises(NotFound):
                s.revise(1, "x")
            with pytest.raises(NotFound):
                s.downgrade(1, 0.5, source_agent="t")
            assert s.forget(fact_id=1) == (0, [])
            assert s.forget(source_ref="session-1") == (0, [])
            assert s.set_staleness_many([], live_only=True) == []
    assert path.read_bytes() == b"" and sidecars(path) == []


def test_an_absent_file_is_not_created_by_reads_or_refused_writes(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    with Store.open(str(path)) as s:
        assert s.is_new and s.recall("").facts == []
        with pytest.raises(NotFound):
            s.revise(3, "x")
        with pytest.raises(InvalidText):
            s.remember("s", "f", source_ref="bad \udcff bytes")
    assert not path.exists() and sidecars(path) == []


def test_the_first_remember_creates_the_schema_and_the_row_together(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    path.write_bytes(b"")
    with Store.open(str(path), clock=FakeClock("2026-03-01", 1000)) as s:
        assert s.is_new
        fid, _ = s.remember("db", "primary is postgres 16")
        assert s.migration_note == "initialised schema 0 → 5"
        assert s.get(fid).fact == "primary is postgres 16"
        assert s.recall("postgres").ids == [fid]
        s.revise(fid, "primary is postgres 17")
    snap = db_snapshot(path)
    assert snap["user_version"] == 5 and len(snap["rows"]["facts"]) == 2
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    with Store.open(str(path)) as again:
        assert not again.is_new


def test_a_fresh_store_sees_a_file_another_process_created(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    reader = Store.open(str(path), clock=FakeClock("2026-03-01", 1000))
    try:
        assert reader.recall("").facts == []
        with Store.open(str(path), clock=FakeClock("2026-03-01", 1000)) as writer:
            fid, _ = writer.remember("db", "replica lags")
        assert reader.recall("replica").ids == [fid]
        assert reader.counts().total == 1
    finally:
        reader.close()


# --- paths that cannot be a store ----------------------------------------------------------


def test_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    for readonly in (False, True):
        with pytest.raises(NotAFile) as info:
            Store.open(str(fifo), readonly=readonly)  # would hang if it opened the pipe
        assert "named pipe" in one_sentence(info.value) and info.value.code == "NOT_A_FILE"
    assert sidecars(fifo) == []


def test_a_folder_as_database_says_so(tmp_path: Path) -> None:
    for readonly in (False, True):
        with pytest.raises(NotAFile) as info:
            Store.open(str(tmp_path), readonly=readonly)
        assert f"{tmp_path} is a folder" in one_sentence(info.value)
    assert sidecars(tmp_path) == []


def test_an_explicit_path_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "typo" / "memory.db"
    with pytest.raises(FolderMissing) as info:
        Store.open(str(path))
    assert str(tmp_path / "typo") in one_sentence(info.value)
    assert info.value.code == "NO_SUCH_FOLDER"
    assert not (tmp_path / "typo").exists()


def test_the_default_location_creates_its_folder_on_the_first_write(tmp_path: Path) -> None:
    # conftest points XDG_DATA_HOME at an empty temp folder (Linux: SPEC §1 rule 2)
    with Store.open() as s:
        assert s.is_new
        folder = Path(s.path).parent
        assert not folder.exists()  # opening and reading create nothing
        assert s.recall("").facts == []
        s.remember("s", "f")
    assert Path(s.path).is_file()


def test_a_path_that_is_not_utf8_is_refused_in_one_printable_line(tmp_path: Path) -> None:
    path = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.db")  # Latin-1 bytes, as argv gives them
    with pytest.raises(InvalidPath) as info:
        Store.open(path)
    text = one_sentence(info.value)
    text.encode("utf-8")  # printable: the bad byte is shown as \xe9
    assert "caf\\xe9.db" in text and info.value.code == "INVALID_PATH"
    assert list(tmp_path.iterdir()) == []


def test_invalid_utf8_in_source_ref_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    path = populated(tmp_path / "memory.db")
    before = db_snapshot(path)
    bad = os.fsdecode(b"session-\xff")
    with open_store(path, start="2026-03-01") as s:
        for call in (
            lambda: s.remember("s", "f", source_ref=bad),
            lambda: s.revise(4, "x", source_ref=bad),
            lambda: s.remember("s", "f", source_agent=bad),
        ):
            with pytest.raises(InvalidText) as info:
                call()
            assert "not valid UTF-8" in one_sentence(info.value)
            assert info.value.code == "INVALID_TEXT"
    assert db_snapshot(path) == before


def test_errors_of_a_drop_in_sqlite_driver_are_classified_too() -> None:
    """A pysqlite3-style error (other classes, maybe no sqlite_errorcode) maps by its message."""
    from memharness_tui.store.errors import classify

    base = type("Error", (Exception,), {"__module__": "pysqlite3.dbapi2"})
    operational = type("OperationalError", (base,), {"__module__": "pysqlite3.dbapi2"})
    cases = [
        ("database is locked", StoreBusy),
        ("database or disk is full", DiskFull),
        ("attempt to write a readonly database", ReadOnlyFile),
    ]
    for message, expected in cases:
        mapped = classify(operational(message), "/x/memory.db", writing=True)
        assert isinstance(mapped, expected), (message, mapped)
        assert "nothing was written" in one_sentence(mapped)
    assert classify(operational("near SELECT: syntax error"), "/x/m.db", writing=True) is None


def test_opening_while_another_process_holds_the_write_lock(
    tmp_path: Path, short_busy_timeout: None
) -> None:
    """A current file opens and reads; an old one that needs migrating is refused untouched."""
    current = populated(tmp_path / "memory.db")
    old = tmp_path / "v4.db"
    shutil.copyfile(fixtures_dir() / "v4.db", old)
    old_delete = tmp_path / "v4-rollback.db"  # an old file in rollback-journal mode
    shutil.copyfile(fixtures_dir() / "v4.db", old_delete)
    conn = sqlite3.connect(old_delete)
    assert conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    conn.close()
    for path in (current, old, old_delete):
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            before, names = file_hashes(path), sorted(p.name for p in tmp_path.iterdir())
            if path == current:
                with Store.open(str(path)) as s:
                    assert s.counts().total == 6
                    with pytest.raises(StoreBusy):
                        s.remember("x", "y")
            else:
                with pytest.raises(StoreBusy) as info:
                    Store.open(str(path))
                assert "nothing was changed" in one_sentence(info.value)
                assert sorted(p.name for p in tmp_path.iterdir()) == names  # no backup left
            assert file_hashes(path) == before
        finally:
            other.close()
    conn = sqlite3.connect(old_delete)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # never switched
    conn.close()


def test_undecodable_text_in_any_argument_is_invalid_text_not_an_internal_error(
    tmp_path: Path,
) -> None:
    path = populated(tmp_path / "memory.db")
    before = db_snapshot(path)
    bad = os.fsdecode(b"caf\xe9")
    with open_store(path, start="2026-03-01") as s:
        for call in (
            lambda: s.forget(source_ref=bad),
            lambda: s.recall(bad),
            lambda: s.recall("x", subject=bad),
            lambda: s.list_facts(bad),
            lambda: s.flagged(subject=bad),
            lambda: s.diff("2026-01-01", subject=bad),
        ):
            with pytest.raises(InvalidText):
                call()
    assert db_snapshot(path) == before


HOLDER = """
import sqlite3, sys, time, os
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
sys.stdin.read()  # hold the lock until the test closes our stdin
conn.execute("ROLLBACK")
"""


def test_a_write_lock_held_by_another_process(tmp_path: Path, short_busy_timeout: None) -> None:
    import sys

    path = populated(tmp_path / "memory.db")
    ready = tmp_path / "ready"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(ready)], stdin=subprocess.PIPE
    )
    try:
        while not ready.exists():  # wait for the state itself: the lock is held
            assert holder.poll() is None, "the lock holder died"
            time.sleep(0.005)
        rows = db_snapshot(path)  # before the store opens: its close would drop the store's locks
        store = open_store(path, start="2026-03-01")
        before = file_hashes_elsewhere(path)
        with pytest.raises(StoreBusy) as info:
            store.remember("x", "y")
        assert one_sentence(info.value) == busy_message(0.2, writing=True)
        assert file_hashes_elsewhere(path) == before
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    assert db_snapshot(path) == rows
    store.remember("x", "y")  # released: the write goes through
    store.close()


def test_a_wal_with_frames_but_no_shm_in_a_read_only_folder_is_explained(tmp_path: Path) -> None:
    """SQLite cannot read those frames; an immutable open would silently show older data."""
    with tmpfs(tmp_path, "4m") as mnt:
        path = populated(mnt / "memory.db")
        keeper = sqlite3.connect(path)  # keeps -wal frames from being checkpointed away
        keeper.execute("PRAGMA wal_autocheckpoint = 0")
        keeper.execute("INSERT INTO facts (subject, fact, valid_from, tx_at) VALUES "
                       "('late', 'only in the wal', '2026-05-01', '2026-05-01')")
        keeper.commit()
        saved = {s: Path(f"{path}{s}").read_bytes() for s in ("", "-wal")}
        keeper.close()
        for s, data in saved.items():  # the files as a crash would leave them, minus -shm
            Path(f"{path}{s}").write_bytes(data)
        Path(f"{path}-shm").unlink(missing_ok=True)
        before = file_hashes(path)
        assert "-wal" in before
        remount_read_only(mnt)
        for readonly in (False, True):
            with pytest.raises(ReadOnlyFile) as info:
                Store.open(str(path), readonly=readonly)
            assert "-wal" in one_sentence(info.value)
        assert file_hashes(path) == before


def test_a_read_only_open_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    """mode=ro would leave new -wal/-shm files beside a WAL file; reads add no files."""
    path = populated(tmp_path / "memory.db")
    names, before = sorted(p.name for p in tmp_path.iterdir()), file_hashes(path)
    with Store.open(str(path), readonly=True, clock=FakeClock("2026-03-01", 1000)) as s:
        assert s.recall("replica").ids and s.stats().total_facts == 6 and s.why(1).descendants
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            s.conn.execute("UPDATE facts SET importance = 9")  # the handle refuses writes too
        with open_store(path, start="2026-04-01") as writer:  # and sees another's writes
            fid, _ = writer.remember("late", "written while a reader is open")
        assert s.get(fid).subject == "late"
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    with Store.open(str(path), readonly=True) as s:
        s.recall("replica")
    populated_again = file_hashes(path)
    assert sidecars(path) == [] and populated_again != before  # (the writer's row)
    with Store.open(str(path), readonly=True) as s:
        s.recall("late")
    assert file_hashes(path) == populated_again and sidecars(path) == []


KILLED_FIRST_WRITE = """
import os, sqlite3, sys
from memharness_tui.store.db import run_migrations
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA cache_size = 1")  # spill pages into the file before the commit
conn.execute("BEGIN IMMEDIATE")
run_migrations(conn, sys.argv[1])
for i in range(300):
    conn.execute(
        "INSERT INTO facts (subject, fact, valid_from, tx_at) VALUES ('s', ?, ?, ?)",
        ("x" * 500 + str(i), "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"),
    )
os._exit(9)  # killed mid-transaction: no rollback, a hot -journal stays
"""


def test_a_first_write_killed_midway_is_rolled_back_by_the_next_writer(tmp_path: Path) -> None:
    import sys

    from tests.conftest import REPO_ROOT

    path = tmp_path / "memory.db"
    path.write_bytes(b"")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-c", KILLED_FIRST_WRITE, str(path)], env=env)
    assert done.returncode == 9 and sidecars(path) == ["-journal"] and path.stat().st_size > 0
    before = file_hashes(path)
    with pytest.raises(ReadOnlyFile) as info:  # a read-only open cannot undo it: says so
        Store.open(str(path), readonly=True)
    assert "-journal" in one_sentence(info.value) and "open it once read-write" in str(info.value)
    assert file_hashes(path) == before
    with Store.open(str(path), clock=FakeClock("2026-03-01", 1000)) as s:
        assert s.is_new and s.recall("").facts == []  # back to the empty file it was
        s.remember("s", "f")
        assert s.counts().total == 1
    assert sidecars(path) == []


def test_a_fresh_store_answers_from_any_thread(tmp_path: Path) -> None:
    """Peewee opens a connection per thread; the empty stand-in has the schema on each."""
    import threading

    store = Store.open(str(tmp_path / "memory.db"))
    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.append(store.counts().total))
    worker.start()
    worker.join()
    assert seen == [0]
    store.close()


def test_a_path_under_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FolderMissing) as info:
        Store.open(str(tmp_path / "notes.txt" / "memory.db"))
    assert "is not a folder" in one_sentence(info.value)
    assert (tmp_path / "notes.txt").read_text() == "mine"
