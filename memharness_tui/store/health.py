"""Read-only health checks of a store file for ``memharness-tui doctor``: it never writes.

Everything here reads through a read-only connection (``mode=ro``, ``immutable`` where a
plain read-only open would leave side files behind). The search index's own integrity check
is an ``INSERT`` command in FTS5, which a read-only connection refuses, so it runs on a copy
taken with SQLite's backup API into a temporary folder, never on the file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .db import BUSY_TIMEOUT_MS, ro_uri
from .driver import sqlite3
from .places import needs_immutable, tidy_read_only
from .recognise import inspect
from .vector_ext import load_into

FTS_INTEGRITY = "INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 1)"
LIVE_PINS = """SELECT source_commit, COUNT(*) FROM facts
WHERE source_commit IS NOT NULL AND retracted_at IS NULL AND superseded_by IS NULL
GROUP BY source_commit ORDER BY 2 DESC, 1"""
MAX_PROBLEMS = 5


@dataclass(frozen=True, slots=True)
class Integrity:
    """``PRAGMA integrity_check`` and the FTS index check: ``[]`` means ok."""

    database: list[str]
    search_index: list[str]


@contextlib.contextmanager
def read_only(path: str) -> Iterator[Any]:
    """A read-only connection to ``path`` (with sqlite-vec where it loads), opened as the
    store's read-only opens are, so that the folder is left as it was (places.py)."""
    if tidy_read_only(path):
        conn = sqlite3.connect("file:" + quote(os.path.abspath(path)) + "?mode=rw", uri=True)
        conn.execute("PRAGMA query_only = 1")
    else:
        conn = sqlite3.connect(ro_uri(path, immutable=needs_immutable(path)), uri=True)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        load_into(conn)
        yield conn
    finally:
        conn.close()


def schema_version(conn: Any) -> int:
    """The file's schema version as the store reads it (``PRAGMA user_version``)."""
    return inspect(conn).version


def integrity(conn: Any) -> Integrity:
    """The file's ``integrity_check`` and the search index's (on a temporary copy)."""
    rows = [str(r[0]) for r in conn.execute(f"PRAGMA integrity_check({MAX_PROBLEMS})")]
    database = [] if rows == ["ok"] else rows
    broken = conn.execute("PRAGMA foreign_key_check").fetchall()
    if broken:
        database.append(f"foreign_key_check found {len(broken)} violation(s)")
    search: list[str] = []
    with tempfile.TemporaryDirectory(prefix="memharness-doctor-") as tmp:
        copy = sqlite3.connect(os.path.join(tmp, "copy.db"))
        try:
            conn.backup(copy)
            try:
                copy.execute(FTS_INTEGRITY)
            except sqlite3.DatabaseError as exc:
                search = [str(exc)]
        finally:
            copy.close()
    return Integrity(database, search)


def counts(conn: Any) -> tuple[int, int]:
    """(facts, facts with a vector)."""
    total, embedded = conn.execute(
        "SELECT COUNT(*), COUNT(embedding) FROM facts").fetchone()
    return int(total), int(embedded)


def live_pins(conn: Any) -> list[tuple[str, int]]:
    """The commits live facts are pinned to, with how many facts pin each."""
    return [(str(c), int(n)) for c, n in conn.execute(LIVE_PINS)]
