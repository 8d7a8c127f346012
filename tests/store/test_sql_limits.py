"""LIMIT/OFFSET are bound at run time (``:n + 0``): same plans, and no re-prepare per call.

A bare ``LIMIT :n`` makes SQLite plan with the bound value and re-prepare the statement each
time it is bound again (see ``sql.run_time``). These tests keep every
statement of the store on the run-time form and show it plans exactly as the bare form.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memharness_tui.store import Store, sql
from memharness_tui.store.driver import sqlite3

from .helpers import copy_fixture

BARE = re.compile(r"\b(?:LIMIT|OFFSET)\s+:\w+\b(?!\s*\+\s*0)")
RUN_TIME = re.compile(r":(\w+) \+ 0\b")
PARAM = re.compile(r":(\w+)")

FILTER_SETS = [
    [sql.CURRENT_FILTER],
    [sql.CURRENT_FILTER, sql.SUBJECT_FILTER],
    [sql.AS_OF_FILTER, sql.KIND_FILTER],
    [sql.CURRENT_FILTER, sql.LIKE_FILTER],
    [sql.CURRENT_FILTER, sql.FRESHNESS_FILTER, sql.IN_RANGE],
]


def statements() -> dict[str, str]:
    """Every statement of store/sql.py that has a LIMIT or OFFSET, by a readable name."""
    found = {name: value for name, value in vars(sql).items()
             if isinstance(value, str) and name.isupper() and "SELECT" in value
             and re.search(r"\b(?:LIMIT|OFFSET)\b", value)}
    for n, filters in enumerate(FILTER_SETS):
        found[f"recall_query(fts=True) #{n}"] = sql.recall_query(fts=True, filters=filters)
        found[f"recall_query(fts=False) #{n}"] = sql.recall_query(fts=False, filters=filters)
        found[f"ranked_ids_query #{n}"] = sql.ranked_ids_query(filters)
        found[f"newest_of_subject #{n}"] = sql.newest_of_subject(filters)
    return found


def test_there_are_statements_to_check() -> None:
    names = statements()
    assert {"FLAGGED_IN_RANGE", "STALENESS_TARGETS", "BACKFILL_CANDIDATES"} <= set(names)
    assert len(names) >= 20


@pytest.mark.parametrize("name", sorted(statements()))
def test_no_bare_parameter_in_limit_or_offset(name: str) -> None:
    statement = statements()[name]
    assert not BARE.findall(statement), f"{name}: {BARE.findall(statement)}"


def _params(statement: str) -> dict[str, object]:
    values: dict[str, object] = {
        "limit": 8, "cap": 256, "offset": 0, "match": '"deploy"', "subject": "user",
        "kind": "semantic", "freshness": "stale", "first": "stale", "second": "unresolved",
        "pattern": "%de%", "lo": 0, "hi": 1_000_000, "after_id": 0, "ids": "[1, 2, 3]",
        "now": "2026-06-01T00:00:00.000Z", "as_of": "2026-02-01T00:00:00.000Z",
    }
    return {p: values.get(p, 1.0) for p in PARAM.findall(statement)}


def _plan(conn: sqlite3.Connection, statement: str) -> list[tuple[int, str]]:
    """Each plan step with its parent's position (the node ids are opcode addresses)."""
    rows = conn.execute("EXPLAIN QUERY PLAN " + statement, _params(statement)).fetchall()
    position = {0: -1} | {r[0]: n for n, r in enumerate(rows)}
    return [(position[r[1]], r[3]) for r in rows]


def test_run_time_limits_plan_exactly_as_bare_ones(tmp_path: Path) -> None:
    path = copy_fixture("v5.db", tmp_path)
    Store.open(str(path)).close()
    conn = sqlite3.connect(str(path))
    checked = 0
    try:
        for name, statement in statements().items():
            bare = RUN_TIME.sub(r":\1", statement)
            if bare == statement:  # a literal LIMIT (STATS_TOP_SUBJECTS' LIMIT 10)
                continue
            checked += 1
            assert _plan(conn, statement) == _plan(conn, bare), name
            # and both read the same rows in the same order
            rows = conn.execute(statement, _params(statement)).fetchall()
            assert rows == conn.execute(bare, _params(bare)).fetchall(), name
    finally:
        conn.close()
    assert checked == len(statements()) - 1
