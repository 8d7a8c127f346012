"""crash.log stays within a size however many crashes there are (issue #20, item 10)."""

from __future__ import annotations

from pathlib import Path

from memharness_tui.tui.crash_log import MAX_ENTRY_BYTES, MAX_LOG_BYTES, write_crash_log


def crash(message: str) -> BaseException:
    try:
        raise RuntimeError(message)
    except RuntimeError as exc:
        return exc


def test_many_crashes_keep_the_newest_within_twice_the_limit(tmp_path: Path) -> None:
    for i in range(400):
        assert write_crash_log(crash(f"crash number {i:04d} " + "x" * 3000), tmp_path) == (
            tmp_path / "crash.log")
    log, older = tmp_path / "crash.log", tmp_path / "crash.log.1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crash.log", "crash.log.1"]
    assert log.stat().st_size <= MAX_LOG_BYTES and older.stat().st_size <= MAX_LOG_BYTES
    newest = log.read_text()
    assert "crash number 0399" in newest and newest.startswith("--- ")
    assert "Traceback" in newest and "crash number 0000" not in newest + older.read_text()
    # the older file ends where the newer one begins: no crash in between was dropped
    last_old = int(older.read_text().rsplit("crash number ", 1)[1][:4])
    first_new = int(newest.split("crash number ", 1)[1][:4])
    assert first_new == last_old + 1


def test_one_huge_crash_keeps_its_head_and_tail_within_the_entry_limit(tmp_path: Path) -> None:
    write_crash_log(crash("small one before"), tmp_path)
    write_crash_log(crash("HEAD " + "y" * 5_000_000 + " TAIL-MARKER"), tmp_path)
    text = (tmp_path / "crash.log").read_text()
    assert (tmp_path / "crash.log").stat().st_size <= MAX_ENTRY_BYTES + 4096
    assert "small one before" in text and "Traceback" in text
    assert "TAIL-MARKER" in text and "bytes cut" in text


def test_a_log_it_cannot_write_is_none_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert write_crash_log(crash("x"), blocker) is None
