"""Support for the store's validation, property and concurrency tests."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

from memharness_tui.store import FakeClock, Store

START = "2026-01-05T09:00:00.000Z"


def open_store(path: Path | str, *, start: str = START, step_ms: int = 1000) -> Store:
    return Store.open(str(path), clock=FakeClock(start, step_ms))


def db_snapshot(path: Path | str) -> dict[str, Any]:
    """Everything a reader can observe: user_version, every schema object and every row.

    Read through a separate read-only connection, so it sees exactly what is committed
    (including what still sits in the WAL) and does not depend on page layout.
    """
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        schema = conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        ).fetchall()
        # Every real table, FTS shadow tables included; not the virtual facts_fts itself.
        tables = [
            name
            for (kind, name, _tbl, sql) in schema
            if kind == "table" and not (sql or "").upper().startswith("CREATE VIRTUAL")
        ]
        rows = {
            name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
            for name in tables
        }
        return {"user_version": version, "schema": schema, "rows": rows}
    finally:
        conn.close()


def file_digest(path: Path | str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sidecars(path: Path | str) -> list[str]:
    """The -wal / -shm / -journal files beside a database that exist right now."""
    p = Path(path)
    return sorted(s for s in ("-wal", "-shm", "-journal") if Path(f"{p}{s}").exists())


def populate(store: Store) -> dict[str, int]:
    """A small history: a 3-long revise chain, a backdated fact, a retracted one, refs."""
    ids: dict[str, int] = {}
    ids["chain1"], _ = store.remember("auth", "sessions use cookies", predicate="method")
    _, ids["chain2"], _ = store.revise(ids["chain1"], "sessions use JWT")
    _, ids["chain3"], _ = store.revise(ids["chain2"], "sessions use JWT with rotation")
    ids["backdated"], _ = store.remember(
        "db", "primary is postgres 15", valid_from="2025-12-01T00:00:00Z"
    )
    ids["plain"], _ = store.remember("db", "replica lags by 2s", source_ref="session-1")
    ids["gone"], _ = store.remember("tmp", "scratch note", source_ref="scratch")
    store.forget(fact_id=ids["gone"])
    return ids
