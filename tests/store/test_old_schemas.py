"""Stores older than every fixture (schema v1, v2, v3), written in the tests from the
migrations' own DDL, step by step, with rows at each version: opening one migrates it, and
recall then finds the old rows through FTS (no substring fallback)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store
from memharness_tui.store.schema import MIGRATIONS, SCHEMA_VERSION

TS = "2026-01-02T03:04:05.000Z"


def build_old_store(path: Path, version: int) -> list[int]:
    """A file at schema ``version``: M001..M00<version> run in order, each followed by a row
    written with that version's columns. Returns the ids."""
    conn = sqlite3.connect(path)
    ids = []
    try:
        for number in range(version):
            with conn:
                for statement in MIGRATIONS[number]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
            with conn:
                extra = ", importance, kind" if number >= 2 else ""
                values = ", 7, 'procedural'" if number >= 2 else ""
                cur = conn.execute(
                    "INSERT INTO facts (subject, predicate, fact, confidence, valid_from, tx_at,"
                    f" source_agent, source_ref{extra}) VALUES"
                    f" ('legacy', 'p{number + 1}', ?, 0.9, ?, ?, 'old-agent', 'ref'{values})",
                    (f"Written under schema version {number + 1}: migrations keep searching", TS, TS),
                )
                ids.append(int(cur.lastrowid))
    finally:
        conn.close()
    return ids


@pytest.mark.parametrize("version", [1, 2, 3])
def test_an_old_store_is_migrated_and_recall_uses_fts(tmp_path: Path, version: int) -> None:
    path = tmp_path / f"v{version}.db"
    ids = build_old_store(path, version)
    store = Store.open(str(path), clock=FakeClock("2026-02-01T00:00:00.000Z"))
    try:
        assert store.schema_version == SCHEMA_VERSION
        for query in ("migrations", "searching", "schema version", "migration"):  # porter stems
            res = store.recall(query, limit=10)
            assert not res.used_fallback, query
            assert sorted(res.ids) == ids, query
        store.check_integrity()  # the FTS index matches the table
        rows = {f.id: f for f in store.list_facts("legacy", limit=10)}
        assert sorted(rows) == ids
        for i, fid in enumerate(ids):
            f = rows[fid]
            assert (f.predicate, f.confidence, f.tx_at) == (f"p{i + 1}", 0.9, TS)
            assert (f.importance, f.kind) == ((7, "procedural") if i >= 2 else (5, "semantic"))
            assert f.source_commit is None and f.freshness is None
        # a row written after the migration is found alongside the old ones
        new_id, _ = store.remember("legacy", "Added after migrating, still searching")
        assert sorted(store.recall("searching", limit=10).ids) == sorted([*ids, new_id])
    finally:
        store.close()
    backups = list(tmp_path.glob(f"v{version}.db.v{version}-backup-*"))
    assert len(backups) == 1  # the original, kept beside it
