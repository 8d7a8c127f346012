"""Helpers for store tests: copying fixtures, dumping rows and schema in comparable form."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import fixtures_dir


def _ro(path: Path | str) -> sqlite3.Connection:
    """Read-only; a reference fixture is also opened immutable so no -wal/-shm appear beside it."""
    resolved = Path(path).resolve()
    frozen = resolved.parent == fixtures_dir().resolve()
    return sqlite3.connect(f"file:{resolved}?mode=ro" + ("&immutable=1" if frozen else ""), uri=True)


def copy_fixture(name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copyfile(fixtures_dir() / name, target)
    return target


def dump_facts(path: Path | str) -> list[dict[str, Any]]:
    conn = _ro(path)
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute("SELECT * FROM facts ORDER BY id").fetchall()
        out = []
        for r in rows:
            d = dict(r)
            if d.get("embedding") is not None:
                d["embedding"] = {"hex": d["embedding"].hex()}
            out.append(d)
        return out
    finally:
        conn.close()


def normalize_sql(text: str | None) -> str:
    """DDL compared by structure: comments, whitespace and case ignored."""
    if text is None:
        return ""
    text = re.sub(r"--[^\n]*", " ", text)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"\s+", " ", text).strip().lower()
    text = re.sub(r"\s*([(),;=<>])\s*", r"\1", text)
    return text


def schema_rows(path: Path | str) -> list[tuple[str, str, str, str]]:
    conn = _ro(path)
    try:
        rows = conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        ).fetchall()
        return [(t, n, tb, normalize_sql(s)) for t, n, tb, s in rows]
    finally:
        conn.close()


def user_version(path: Path | str) -> int:
    conn = _ro(path)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def table_info(path: Path | str) -> list[tuple]:
    conn = _ro(path)
    try:
        return conn.execute("PRAGMA table_info(facts)").fetchall()
    finally:
        conn.close()
