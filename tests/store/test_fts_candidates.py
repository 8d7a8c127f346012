"""sql.FTS_CANDIDATES (``ORDER BY +rank``, SQLite's LIMIT sort) numbers the same ids in the
same order as the reference's ``ORDER BY rank`` (FTS5's own sort of every match), ties,
custom rank functions and a sort that spills to disk included."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store, sql
from memharness_tui.store.driver import sqlite3

# The reference core's candidate set, as its recallQuery writes it.
REFERENCE = """SELECT rowid AS id, row_number() OVER (ORDER BY rank) AS fts_rank
  FROM facts_fts WHERE facts_fts MATCH :match ORDER BY rank LIMIT :cap + 0"""
WORDS = ["gear", "cog", "axle", "wheel", "spring", "lever", "pulley", "bolt"]


def _store(path: Path, rows: int, seed: int) -> Store:
    """Many exact ties (identical texts) next to varied lengths and term counts."""
    rng = random.Random(seed)
    store = Store.open(str(path), clock=FakeClock("2026-01-01T00:00:00.000Z", 1000))
    store.remember("subject:first", "gear")
    values = []
    for i in range(rows):
        if i % 3 == 0:
            text = "gear cog axle"  # a third of the rows tie on every query
        else:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
        values.append((f"subject:{i % 5}", text, "2026-01-01T00:00:00.000Z",
                       "2026-01-01T00:00:00.000Z"))
    with store.conn:
        store.conn.executemany(
            "INSERT INTO facts (subject, fact, valid_from, tx_at) VALUES (?, ?, ?, ?)", values)
    return store


MATCHES = ['"gear"', '"cog"', '"gear" "axle"', '"pulley" OR "bolt"', '"subject"', '"lever"',
           '"gear" OR "cog" OR "wheel"', '"nothing"']


def _same(conn: sqlite3.Connection, caps: list[int]) -> int:
    compared = 0
    for match in MATCHES:
        for cap in caps:
            params = {"match": match, "cap": cap}
            want = conn.execute(REFERENCE, params).fetchall()
            got = conn.execute(sql.FTS_CANDIDATES, params).fetchall()
            assert got == want, (match, cap)
            compared += len(want)
    return compared


@pytest.mark.parametrize("seed", [1, 2])
def test_the_candidates_are_the_references_ties_included(tmp_path: Path, seed: int) -> None:
    store = _store(tmp_path / "m.db", 3000, seed)
    # caps that cut through the tied third, or hold every match
    assert _same(store.conn, [1, 8, 256, 999, 1000, 1001, 5000]) > 10_000
    store.close()


def test_a_custom_rank_function_is_the_one_used(tmp_path: Path) -> None:
    store = _store(tmp_path / "m.db", 1500, 3)
    with store.conn:
        store.conn.execute("INSERT INTO facts_fts(facts_fts, rank) "
                           "VALUES ('rank', 'bm25(10.0, 0.5, 1.0)')")
    _same(store.conn, [8, 256, 600])
    params = {"match": '"gear" OR "subject"', "cap": 50}
    plain = store.conn.execute("SELECT rowid FROM facts_fts WHERE facts_fts MATCH :match "
                               "ORDER BY bm25(facts_fts), rowid LIMIT :cap", params).fetchall()
    custom = store.conn.execute(sql.FTS_CANDIDATES, params).fetchall()
    assert [i for (i,) in plain] != [i for i, _ in custom]  # the weights do change the order
    store.close()


def test_a_sort_that_spills_to_disk_keeps_the_same_order(tmp_path: Path) -> None:
    store = _store(tmp_path / "m.db", 20_000, 4)
    store.conn.execute("PRAGMA cache_size = 2")  # FTS5's sort of every match spills
    _same(store.conn, [256, 7000])
    store.close()


def test_recall_answers_as_with_the_references_candidates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path / "m.db", 2000, 5)
    store.close()
    at = "2026-03-01T00:00:00.000Z"
    ours, theirs = (Store.open(str(tmp_path / "m.db"), readonly=True, clock=FakeClock(at, 0))
                    for _ in "ab")
    reference_cte = "\n" + REFERENCE + "\n"
    for query in ["gear", "cog axle", "pulley bolt", "subject", "lever wheel spring"]:
        for limit in (1, 8, 300):
            got = ours.recall(query, limit=limit)
            monkeypatch.setattr(sql, "FTS_CANDIDATES", reference_cte)
            want = theirs.recall(query, limit=limit)
            monkeypatch.undo()
            assert got == want and got.facts, (query, limit)
    ours.close()
    theirs.close()
