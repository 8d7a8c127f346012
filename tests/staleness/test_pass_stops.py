"""A pass that stops early says exactly what it wrote (issue #20, items 3, 5 and 10).

Unit level: the failure injected at batch K (no root needed). Real conditions: a tmpfs
that fills up (as root; skipped with the reason otherwise), the file deleted or replaced
between batches, the file truncated under the pass.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.staleness import cli as scli
from memharness_tui.staleness.runner import PassStopped, StalenessPass
from memharness_tui.store import FakeClock, Store
from memharness_tui.store.errors import DiskFull

from .staleness_helpers import Scenario, make_store, rows

CLOCK = "2026-03-01T12:00:00.000Z"


def pinned_store(db: Path, s: dict[str, str], n: int) -> list[int]:
    """``n`` facts pinned to src/a.py at c1 (stale at HEAD: a.py changed since)."""
    return make_store(db, [{"fact": f"fact {i}", "source_commit": s["c1"],
                            "source_path": "src/a.py"} for i in range(n)])


def judged(db: Path) -> int:
    return sum(1 for r in rows(db).values() if r["freshness"] is not None)


def failing_at(call: int, method: str = "set_staleness_many") -> type[Store]:
    """A Store whose ``method`` fails with a full disk from its ``call``-th call on."""

    class Failing(Store):
        calls = 0

        def _fail(self, real: Any, *a: Any, **kw: Any) -> Any:
            type(self).calls += 1
            if type(self).calls >= call:
                raise DiskFull(f"the disk holding {self.path} is full; nothing was written "
                               "— free some space and try again")
            return real(*a, **kw)

    def wrapper(self: Any, *a: Any, **kw: Any) -> Any:
        return self._fail(getattr(super(Failing, self), method), *a, **kw)

    setattr(Failing, method, wrapper)
    return Failing


def test_a_pass_stopped_at_batch_k_says_what_it_wrote(scenario: Scenario, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    pinned_store(db, scenario.sha, 30)
    factory = failing_at(3)  # batches 1 and 2 (10 verdicts) commit; the third fails
    spass = StalenessPass(db, [scenario.path], batch_size=5, clock=FakeClock(CLOCK),
                          store_factory=factory.open)
    with pytest.raises(PassStopped) as err:
        spass.run()
    message = err.value.message
    assert judged(db) == 10  # the rows actually in the file
    assert message.startswith("10 of 30 verdicts written, then the disk holding ")
    assert "; the rest are unchanged — free some space and try again" in message
    assert "nothing was written" not in message
    assert err.value.report.checked == 10


def test_a_downgrade_pass_stopped_mid_batch_counts_its_downgrades(
        scenario: Scenario, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    pinned_store(db, scenario.sha, 12)
    factory = failing_at(8, "downgrade")  # the 8th downgrade fails (batch 2, 3rd of its 5)
    spass = StalenessPass(db, [scenario.path], batch_size=5, downgrade=True,
                          clock=FakeClock(CLOCK), store_factory=factory.open)
    with pytest.raises(PassStopped) as err:
        spass.run()
    after = rows(db)
    downgraded = [r for r in after.values() if r["source_agent"] == "memharness-tui/staleness"]
    assert len(downgraded) == 7
    # batch 2's verdicts committed before its downgrades began: 10 verdicts in the report
    assert err.value.message.startswith("10 of 12 verdicts and 7 downgrades written, then ")
    assert sum(1 for r in after.values() if r["freshness"] is not None
               and r["source_agent"] != "memharness-tui/staleness") == 10


def test_the_cli_prints_the_count_and_exits_2(scenario: Scenario, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    pinned_store(db, scenario.sha, 9)
    monkeypatch.setattr(Store, "open", failing_at(2).open)
    code = scli.main(["staleness", "--db", str(db), "--repo", str(scenario.path),
                      "--batch-size", "4", "--force"])
    err = capsys.readouterr().err
    assert code == 2
    assert "4 of 9 verdicts written, then the disk holding" in err
    assert "nothing was written" not in err
    assert judged(db) == 4


# --- the file deleted or replaced between two batches -------------------------------------


def _pass_until_first_batch(db: Path, scenario: Scenario, **kw: Any) -> tuple[Any, StalenessPass]:
    spass = StalenessPass(db, [scenario.path], batch_size=5, clock=FakeClock(CLOCK), **kw)
    events = spass.iter_batches()
    next(events)  # the start
    next(events)  # batch 1 written
    return events, spass


def test_a_pass_whose_file_is_deleted_stops_and_leaves_no_wal(scenario: Scenario,
                                                              tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    pinned_store(db, scenario.sha, 20)
    events, spass = _pass_until_first_batch(db, scenario, downgrade=True)
    os.remove(db)
    with pytest.raises(PassStopped) as err:
        next(events)
    events.close()
    message = err.value.message
    assert f"{db} was deleted during the pass" in message
    assert "5 of 20 verdicts and 5 downgrades written before went to the old file" in message
    # nothing of the old file is left where a new file at this path would read it
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_pass_whose_file_is_replaced_stops_and_the_new_file_stays_whole(
        scenario: Scenario, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    pinned_store(db, scenario.sha, 20)
    other = tmp_path / "other.db"
    make_store(other, [{"fact": "the other file's own fact"}])
    before = rows(other)
    events, _ = _pass_until_first_batch(db, scenario)
    os.replace(other, db)  # mv other.db m.db
    with pytest.raises(PassStopped) as err:
        next(events)
    events.close()
    assert f"{db} was replaced by another file during the pass" in err.value.message
    assert "5 of 20 verdicts written before went to the old file" in err.value.message
    assert not (tmp_path / "m.db-wal").exists()  # the old file's WAL is not beside the new one
    assert rows(db) == before
    with Store.open(str(db)) as store:  # and it opens and searches as itself
        assert [f.fact for f in store.recall("other").facts] == ["the other file's own fact"]
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# --- the file truncated under the pass ------------------------------------------------------

TRUNCATE = """
import os, sys
from memharness_tui.staleness.runner import StalenessPass
from memharness_tui.store import FakeClock
db, repo = sys.argv[1], sys.argv[2]
spass = StalenessPass(db, [repo], batch_size=50, clock=FakeClock("2026-03-01T12:00:00.000Z"))
events = spass.iter_batches()
next(events); next(events)
os.truncate(db, os.path.getsize(db) // 3)
try:
    for _ in events:
        pass
except Exception as exc:
    print(getattr(exc, "message", exc))
    sys.exit(2)
"""


def test_a_file_truncated_under_the_pass_is_one_sentence_not_sigbus(
        scenario: Scenario, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    pinned_store(db, scenario.sha, 600)
    # checkpointed into the main file, so the pass reads its pages from it (a memory map
    # would then fault on the pages cut off)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    done = subprocess.run([sys.executable, "-c", TRUNCATE, str(db), str(scenario.path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    line = done.stdout.strip()
    assert "\n" not in line and "verdicts written, then" in line, line
    assert "nothing was" not in line, line


# --- a real full disk ---------------------------------------------------------------------


def _mount_tmpfs(where: Path, size: str) -> str | None:
    """Mount a tmpfs of ``size`` at ``where``; the reason when that cannot be done."""
    if os.geteuid() != 0:
        return "needs root to mount a small tmpfs (a real full disk)"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return f"mount -t tmpfs is not permitted here: {done.stderr.strip()}"
    return None


def test_a_pass_on_a_disk_that_fills_reports_exactly_what_is_in_the_file(
        scenario: Scenario, tmp_path: Path) -> None:
    built = tmp_path / "built.db"
    pinned_store(built, scenario.sha, 1500)
    conn = sqlite3.connect(built)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = built.stat().st_size
    mnt = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    why = _mount_tmpfs(mnt, f"{size // 1024 + 512}k")
    if why is not None:
        pytest.skip(why)
    try:
        db = mnt / "memory.db"
        shutil.copyfile(built, db)
        with open(mnt / "filler", "wb") as f:  # leave ~100 KB: a few batches' worth of WAL
            free = os.statvfs(mnt).f_bavail * os.statvfs(mnt).f_frsize
            f.write(b"\0" * max(0, free - 100 * 1024))
        done = subprocess.run(
            [sys.executable, "-m", "memharness_tui", "staleness", "--db", str(db),
             "--repo", str(scenario.path), "--batch-size", "25", "--force"],
            capture_output=True, text=True, timeout=300)
        assert done.returncode == 2, done.stderr
        message = done.stderr.strip().splitlines()[-1]
        found = re.search(r"([\d,]+) of 1,500 verdicts written, then the disk holding (.+) "
                          r"is full; the rest are unchanged", message)
        assert found, message
        os.remove(mnt / "filler")  # room for the read below (its -shm)
        in_file = judged(db)
        assert int(found.group(1).replace(",", "")) == in_file
        assert 0 < in_file < 1500, "the disk should fill part-way through the pass"
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_the_cli_pass_whose_file_goes_exits_2_with_the_count(
        scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], how: str) -> None:
    db = tmp_path / "m.db"
    pinned_store(db, scenario.sha, 9)
    other = tmp_path / "other.db"
    make_store(other, [{"fact": "the other file's own fact"}])
    real = Store.set_staleness_many

    def then_swap(self: Store, *a: Any, **kw: Any) -> Any:
        written = real(self, *a, **kw)
        if how == "deleted":
            os.remove(db)  # rm memory.db right after the first batch's verdicts
        else:
            os.replace(other, db)
        return written

    monkeypatch.setattr(Store, "set_staleness_many", then_swap)
    code = scli.main(["staleness", "--db", str(db), "--repo", str(scenario.path),
                      "--batch-size", "4", "--force", "--downgrade"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    what = "deleted" if how == "deleted" else "replaced by another file"
    assert err.endswith(f"{db} was {what} during the pass: the 4 of 9 verdicts and 0 "
                        "downgrades written before went to the old file, not to what is there "
                        "now, and nothing more was written — rerun the pass on the file that "
                        "is there now"), err
    assert not (tmp_path / "m.db-wal").exists()
    if how == "replaced":
        assert [r["fact"] for r in rows(db).values()] == ["the other file's own fact"]
