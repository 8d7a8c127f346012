"""Several processes on one file (SPEC §2, §3): the app must never get in the agent's way.

- Processes opening a fresh file at the same instant all succeed and exactly one
  of them creates the schema (the migration runs in one BEGIN IMMEDIATE with the
  version re-read inside the lock).
- While the app's Store holds the file open and reads in a loop (recall, list,
  counts, subjects, as_of), or writes staleness verdicts in short transactions,
  a writer in another process (the agent) inserts facts: every write succeeds.
  A write that waited longer than busy_timeout (5 s) would have failed with
  SQLITE_BUSY, so success bounds each wait; the longest observed wait is
  reported in the assertion messages rather than asserted on (no timed asserts).

Child processes are plain ``python -c`` subprocesses, synchronised by files.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from memharness_tui.store import Store
from memharness_tui.store.types import StalenessUpdate
from tests.conftest import REPO_ROOT

TIMEOUT_S = 120

OPENER = textwrap.dedent(
    """
    import json, os, sys, time
    from memharness_tui.store import Store
    db, ready, go, out = sys.argv[1:5]
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.0005)
    try:
        store = Store.open(db)
        # A fresh file is created by its first write, so each opener writes one row.
        store.remember("opener", f"opened by {os.getpid()}")
        result = {"ok": True, "version": store.schema_version, "note": store.migration_note}
        store.close()
    except Exception as exc:  # report, do not crash: the parent asserts on it
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    with open(out, "w") as fh:
        json.dump(result, fh)
    """
)

WRITER = textwrap.dedent(
    """
    import json, os, sys, time
    from memharness_tui.store import Store
    db, go, out, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    store = Store.open(db)
    while not os.path.exists(go):
        time.sleep(0.001)
    waits, errors, ids = [], [], []
    for i in range(count):
        t0 = time.perf_counter()
        try:
            fid, _ = store.remember(
                f"agent-{i % 7}", f"agent fact number {i} about deploys and caches",
                source_agent="agent", source_ref=f"session-{i % 3}",
            )
            ids.append(fid)
            if i % 10 == 9:
                store.revise(fid, f"agent fact number {i} revised")
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        waits.append(time.perf_counter() - t0)
    store.close()
    with open(out, "w") as fh:
        json.dump({"errors": errors, "ids": ids, "max_wait_s": max(waits),
                   "mean_wait_s": sum(waits) / len(waits)}, fh)
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")])
    return env


def _spawn(code: str, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=REPO_ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _finish(proc: subprocess.Popen[bytes]) -> None:
    out, err = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 0, err.decode(errors="replace")


def _wait_for(paths: list[Path]) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, f"children never became ready: {paths}"
        time.sleep(0.005)


@pytest.mark.parametrize("round_", range(4))
def test_processes_opening_a_fresh_file_at_once_all_succeed(tmp_path: Path, round_: int) -> None:
    n = 4
    db = tmp_path / "fresh" / "memory.db"
    db.parent.mkdir()  # an explicit path's folder must exist (only the default one is created)
    go = tmp_path / "go"
    ready = [tmp_path / f"ready{i}" for i in range(n)]
    outs = [tmp_path / f"out{i}.json" for i in range(n)]
    procs = [_spawn(OPENER, str(db), str(ready[i]), str(go), str(outs[i])) for i in range(n)]
    try:
        _wait_for(ready)
        go.touch()  # release all openers at the same instant
    finally:
        for p in procs:
            _finish(p)
    results = [json.loads(o.read_text()) for o in outs]
    assert all(r["ok"] for r in results), results
    assert {r["version"] for r in results} == {5}
    notes = [r["note"] for r in results]
    created = [x for x in notes if x]
    assert len(created) == 1 and "0 → 5" in created[0], f"schema creation notes: {notes}"

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
        tables = conn.execute(
            "SELECT name, count(*) FROM sqlite_master WHERE type = 'table' AND name = 'facts'"
        ).fetchall()
        assert tables == [("facts", 1)]
        triggers = sorted(
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        )
        assert triggers == ["facts_ad", "facts_ai", "facts_au"]
        assert conn.execute("SELECT count(*) FROM facts").fetchone()[0] == n
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def _seed(db: Path) -> None:
    with Store.open(str(db)) as s:
        for i in range(200):
            s.remember(
                f"subject-{i % 11}",
                f"seed fact {i} about deploys, caches and queues",
                source_commit="c" * 40 if i % 4 == 0 else None,
                source_path="src/app.py" if i % 8 == 0 else None,
            )


def _app_reads(app: Store) -> None:
    app.recall("deploys caches")
    app.recall("queues", subject="subject-3")
    app.recall(limit=50)
    app.recall("deploys", as_of=app.clock.peek())
    app.list_facts(include_history=True, limit=200)
    app.counts()
    app.subjects()


@pytest.mark.parametrize("readonly", [False, True], ids=["app-read-write", "app-read-only"])
def test_agent_writes_are_never_refused_while_the_app_reads(tmp_path: Path, readonly: bool) -> None:
    db = tmp_path / "memory.db"
    _seed(db)
    go, out = tmp_path / "go", tmp_path / "writer.json"
    count = 1000
    writer = _spawn(WRITER, str(db), str(go), str(out), str(count))
    reads = 0
    with Store.open(str(db), readonly=readonly) as app:
        _app_reads(app)
        go.touch()
        try:
            while writer.poll() is None:
                _app_reads(app)
                reads += 1
        finally:
            _finish(writer)
        result = json.loads(out.read_text())
        seen = app.counts().total
    info = f"max write wait {result['max_wait_s'] * 1000:.1f} ms, mean {result['mean_wait_s'] * 1000:.2f} ms, {reads} app read loops"
    assert result["errors"] == [], info
    assert len(result["ids"]) == count, info
    assert seen == 200 + count + count // 10, info
    assert reads > 0, info
    print(info)


def test_agent_writes_are_never_refused_while_the_app_writes_verdicts(tmp_path: Path) -> None:
    """The staleness pass writes in short transactions; the agent keeps writing throughout."""
    db = tmp_path / "memory.db"
    _seed(db)
    go, out = tmp_path / "go", tmp_path / "writer.json"
    count = 1000
    writer = _spawn(WRITER, str(db), str(go), str(out), str(count))
    batches = 0
    with Store.open(str(db)) as app:
        targets = app.staleness_targets(1000)
        assert targets
        go.touch()
        try:
            verdicts = ["current", "stale", "unresolved"]
            while writer.poll() is None:
                now = app.now()
                batch = [
                    StalenessUpdate(t.id, verdicts[(t.id + batches) % 3], now, "d" * 40)
                    for t in targets[(batches * 25) % len(targets) :][:25]
                ]
                app.set_staleness_many(batch)
                _app_reads(app)
                batches += 1
        finally:
            _finish(writer)
        result = json.loads(out.read_text())
        total = app.counts().total
    info = f"max write wait {result['max_wait_s'] * 1000:.1f} ms over {count} writes, {batches} verdict batches"
    assert result["errors"] == [], info
    assert total == 200 + count + count // 10, info
    assert batches > 0, info
    print(info)
