"""``rm memory.db-wal memory.db-shm`` under the open app, then an agent (another process)
writes: the app says so and offers to reopen, and when it quits every one of the agent's
writes is still in the file (its close neither merges its old log into the file nor removes
the agent's new -wal/-shm)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.tui.screens.confirm import ConfirmScreen
from tests.conftest import REPO_ROOT

from .conftest import make_app, settle

N = 50
WRITER = """
import sys
from memharness_tui.store import Store
s = Store.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    s.remember("agent", f"agent fact {i}")
s.close()
"""


def _agent_writes(db: Path, n: int) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", WRITER, str(db), str(n)], cwd=REPO_ROOT,
                          env=env, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")


def _agent_facts(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute(
            "SELECT count(*) FROM facts WHERE fact LIKE 'agent fact %'").fetchone()[0])
    finally:
        conn.close()


def _whole(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


async def _until_confirm(pilot: object) -> ConfirmScreen:
    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(500):
        if isinstance(app.screen, ConfirmScreen):
            return app.screen
        await pilot.pause(0.02)  # type: ignore[attr-defined]
    raise AssertionError("the app never said the -wal/-shm were deleted")


@pytest.mark.parametrize("poll", [True, False], ids=["noticed by the poll", "only at quit"])
async def test_an_agents_writes_after_the_sidecars_were_deleted_survive_the_app_quitting(
        tmp_path: Path, config_dir: Path, poll: bool) -> None:
    db = tmp_path / "memory.db"
    # the app's store only: no other connection of this process holds the file meanwhile
    store = Store.open(str(db), clock=FakeClock("2026-02-01", 60_000))
    for i in range(5):
        store.remember("proj", f"a note of the app's {i}")
    store.close()
    app = make_app(store, config_dir, poll_interval=0.05 if poll else 0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert Path(f"{db}-wal").exists() and Path(f"{db}-shm").exists()  # the app has it open
        os.remove(f"{db}-wal")
        os.remove(f"{db}-shm")
        await asyncio.to_thread(_agent_writes, db, N)  # the agent is told 50 of 50 written
        if poll:
            screen = await _until_confirm(pilot)
            # (noticed before or after the agent's first write: "deleted" either way)
            assert screen.title_text.startswith(f"the -wal and -shm beside {db} were deleted")
    assert _agent_facts(db) == N
    assert _whole(db) == "ok"
