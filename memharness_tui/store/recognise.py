"""Recognising a memharness database (SPEC §3) before anything is written to it."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .errors import ForeignDatabase, SchemaTooNew, show_path
from .schema import SCHEMA_VERSION


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


# The facts columns each schema version must have (SPEC §3); a file claiming a version
# without them is not a memharness store, whatever its user_version says.
_M001 = frozenset(
    "id subject predicate fact confidence valid_from valid_to tx_at superseded_by "  # noqa: SIM905
    "source_agent source_ref retracted_at embedding".split()
)
_M003 = _M001 | {"importance", "kind", "last_accessed_at"}
_M004 = _M003 | {"embedding_dim", "embedding_model"}
_M005 = _M004 | {"source_commit", "source_path", "freshness", "checked_at", "checked_head"}
COLUMNS_BY_VERSION: dict[int, frozenset[str]] = {1: _M001, 2: _M001, 3: _M003, 4: _M004, 5: _M005}


@dataclass(frozen=True)
class Inspection:
    """What a look at a file (through a read-only connection) found."""

    version: int
    tables: frozenset[str]
    columns: frozenset[str]

    @property
    def fresh(self) -> bool:
        """An empty SQLite file: nothing of anyone's in it yet."""
        return self.version == 0 and not self.tables


def inspect(conn: sqlite3.Connection) -> Inspection:
    version = user_version(conn)
    tables = frozenset(
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    )
    columns: frozenset[str] = frozenset()
    if "facts" in tables:
        columns = frozenset(r[1] for r in conn.execute("PRAGMA table_info(facts)"))
    return Inspection(version, tables, columns)


def refuse_unless_ours(found: Inspection, path: str) -> None:
    """Too new, or someone else's database: refuse, before anything is written."""
    shown = show_path(path)
    if found.version > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"database schema version {found.version} is newer than this memharness-tui "
            f"understands (max {SCHEMA_VERSION}); upgrade memharness-tui. The file was not "
            f"changed: {shown}"
        )
    if found.fresh:
        return
    if found.version == 0:
        raise ForeignDatabase(
            f"{shown} is a SQLite database but not a memharness store (user_version 0 with "
            "other tables); it was not changed — check the path"
        )
    missing = COLUMNS_BY_VERSION[found.version] - found.columns
    if "facts" not in found.tables or "facts_fts" not in found.tables or missing:
        what = (
            "no facts table"
            if "facts" not in found.tables
            else "no facts_fts table"
            if "facts_fts" not in found.tables
            else "facts lacks " + ", ".join(sorted(missing))
        )
        raise ForeignDatabase(
            f"{shown} is a SQLite database but not a memharness store (it claims schema "
            f"version {found.version} but has {what}); it was not changed — check the path"
        )


def check_ours(path: str) -> None:
    """Refuse ``path`` (one sentence) when it is too new or not a memharness database, judged
    through read-only connections only (``db.precheck``): nothing is opened for writing."""
    from .db import precheck
    from .errors import translate_sqlite

    with translate_sqlite(path):
        refuse_unless_ours(precheck(path), path)
