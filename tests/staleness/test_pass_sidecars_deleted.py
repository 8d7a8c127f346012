"""A staleness pass holding the file when its -wal/-shm are deleted and an agent (another
process) writes: the pass stops before its next batch, says why, and lets go of the file
without merging its old log into it or removing the agent's new -wal — every agent write
is in the file afterwards, and the file is whole."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.staleness.runner import PassStopped, StalenessPass
from memharness_tui.store import FakeClock
from tests.conftest import REPO_ROOT

from .staleness_helpers import Scenario, make_store

CLOCK = "2026-03-01T12:00:00.000Z"
N = 50
WRITER = """
import sys
from memharness_tui.store import Store
s = Store.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    s.remember("agent", f"agent fact {sys.argv[3]} {i}")
s.close()
"""


def _agent_writes(db: Path, n: int, batch: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", WRITER, str(db), str(n), batch], cwd=REPO_ROOT,
                          env=env, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")


def _agent_facts(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute(
            "SELECT count(*) FROM facts WHERE fact LIKE 'agent fact %'").fetchone()[0])
    finally:
        conn.close()


def test_a_pass_stops_when_its_sidecars_are_deleted_and_every_agent_write_stays(
        scenario: Scenario, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    make_store(db, [{"fact": f"fact {i}", "source_commit": scenario.sha["c1"],
                     "source_path": "src/a.py"} for i in range(30)])
    spass = StalenessPass(db, [scenario.path], batch_size=5, clock=FakeClock(CLOCK))
    events = spass.iter_batches()
    next(events)  # the start
    next(events)  # batch 1 written
    os.remove(f"{db}-wal")
    os.remove(f"{db}-shm")
    _agent_writes(db, N, "a")
    with pytest.raises(PassStopped) as err:
        next(events)  # batch 2: refused before it is written
    events.close()
    _agent_writes(db, N, "b")  # after the pass let go: into the same new log
    assert err.value.message.startswith(
        f"the -wal/-shm beside {db} were deleted during the pass: the 5 of 30 verdicts "
        "written before may have gone with the old -wal, and nothing more was written")
    assert _agent_facts(db) == 2 * N
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
