"""Store.downgrade in one transaction (#8 item 7), recall's bound on the search text
(#8 item 8), and the small compatibility points of #12 (partial ranking maps, integral
floats for limit / max_tokens)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, RankingSettings, Store, driver
from memharness_tui.store.errors import InvalidInput, NotFound, QueryTooLong, translate_sqlite
from memharness_tui.store.ranking import half_life
from memharness_tui.store.validation import MAX_QUERY_CHARS, MAX_QUERY_WORDS
from tests.store.support import db_snapshot, open_store, populate

AGENT = "memharness-tui/staleness"
SHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
HEAD = "b" * 40


def _seeded(path: Path) -> tuple[Store, dict[str, int]]:
    store = open_store(path)
    ids = populate(store)
    ids["pinned"], _ = store.remember(
        "api", "rate limit is 100/s", confidence=0.8, importance=7, kind="procedural",
        source_ref="repo@" + SHA, source_commit=SHA, source_path="src/limits.py",
    )
    store.set_staleness(ids["pinned"], "stale", store.now(), HEAD)
    return store, ids


# --- downgrade -----------------------------------------------------------------------------


def test_downgrade_writes_exactly_the_rows_of_the_apps_two_calls(tmp_path: Path) -> None:
    """Same rows as tui/editing.py downgrade_many's revise + set_staleness (SPEC §8)."""
    two, ids = _seeded(tmp_path / "two.db")
    one, _ = _seeded(tmp_path / "one.db")
    for fid in (ids["pinned"], ids["plain"]):  # a judged pinned fact, and an unchecked one
        f = two.get(fid)
        _, new_id, _ = two.revise(
            f.id, f.fact, confidence=f.confidence * 0.5, source_ref=f.source_ref,
            source_agent=AGENT, source_commit=f.source_commit, source_path=f.source_path,
        )
        if f.freshness:
            two.set_staleness(new_id, f.freshness, two.now(), f.checked_head or "")
        old_id, new_id2, _ = one.downgrade(fid, 0.5, source_agent=AGENT)
        assert (old_id, new_id2) == (fid, new_id)
    two.close()
    one.close()
    assert db_snapshot(tmp_path / "one.db") == db_snapshot(tmp_path / "two.db")
    with Store.open(str(tmp_path / "one.db")) as s:
        new = s.get(s.get(ids["pinned"]).superseded_by)  # type: ignore[arg-type]
        assert (new.confidence, new.freshness, new.checked_head) == (0.4, "stale", HEAD)
        assert (new.source_commit, new.source_path, new.kind, new.importance) == (
            SHA, "src/limits.py", "procedural", 7
        )


def test_downgrade_matches_the_runners_two_calls(tmp_path: Path) -> None:
    """The staleness runner passes the verdict's pin, freshness and head explicitly."""
    two, ids = _seeded(tmp_path / "two.db")
    one, _ = _seeded(tmp_path / "one.db")
    fid, commit, path, head = ids["pinned"], SHA[:12], "src/other.py", "c" * 40
    old = two.get(fid)
    _, new_id, _ = two.revise(
        old.id, old.fact, confidence=old.confidence * 0.25, source_ref=old.source_ref,
        source_agent=AGENT, source_commit=commit, source_path=path,
    )
    two.set_staleness(new_id, "stale", two.now(), head)
    one.downgrade(fid, 0.25, source_agent=AGENT, freshness="stale", checked_head=head,
                  source_commit=commit, source_path=path)
    two.close()
    one.close()
    assert db_snapshot(tmp_path / "one.db") == db_snapshot(tmp_path / "two.db")


def test_downgrade_is_one_transaction(tmp_path: Path) -> None:
    """If recording the verdict fails, the revise is rolled back with it."""
    store, ids = _seeded(tmp_path / "m.db")
    store.conn.execute(
        "CREATE TEMP TRIGGER boom BEFORE UPDATE OF freshness ON facts "
        "BEGIN SELECT RAISE(ABORT, 'verdict write failed'); END"
    )
    before = db_snapshot(tmp_path / "m.db")
    with pytest.raises(driver.sqlite3.IntegrityError, match="verdict write failed"):
        store.downgrade(ids["pinned"], 0.5, source_agent=AGENT)
    assert db_snapshot(tmp_path / "m.db") == before
    assert store.get(ids["pinned"]).is_live
    store.close()


def test_downgrade_refuses_like_revise(tmp_path: Path) -> None:
    store, ids = _seeded(tmp_path / "m.db")
    before = db_snapshot(tmp_path / "m.db")
    with pytest.raises(NotFound):
        store.downgrade(9999, 0.5, source_agent=AGENT)
    with pytest.raises(InvalidInput, match=f"head of the chain is #{ids['chain3']}"):
        store.downgrade(ids["chain1"], 0.5, source_agent=AGENT)
    for factor in (-0.1, 1.5, float("nan"), True, "0.5"):
        with pytest.raises(InvalidInput, match="factor"):
            store.downgrade(ids["pinned"], factor, source_agent=AGENT)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="freshness"):
        store.downgrade(ids["pinned"], 0.5, source_agent=AGENT, freshness="fresh")
    assert db_snapshot(tmp_path / "m.db") == before
    store.close()


# --- recall's bound on the search text -------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(tmp_path / "m.db")
    populate(s)
    return s


def test_a_ten_megabyte_paste_is_refused_at_once(store: Store) -> None:
    paste = "postgres replica lag " * 500_000  # ~10 MB, 1.5 M words
    with pytest.raises(QueryTooLong) as info:
        store.recall(paste)
    text = str(info.value)
    assert "\n" not in text and f"{MAX_QUERY_CHARS:,}" in text and "10,499,999 characters" in text  # trimmed
    assert info.value.code == "QUERY_TOO_LONG"


def test_the_word_bound(store: Store) -> None:
    assert store.recall(" ".join(["replica"] * MAX_QUERY_WORDS)).ids
    with pytest.raises(QueryTooLong, match=f"{MAX_QUERY_WORDS + 1} words"):
        store.recall(" ".join(["replica"] * (MAX_QUERY_WORDS + 1)))


def test_the_character_bound_counts_the_trimmed_text(store: Store) -> None:
    assert store.recall(" " * 50_000 + "replica" + "\n" * 50_000).ids
    assert store.recall("x" * MAX_QUERY_CHARS).ids == []  # at the bound: runs (LIKE fallback)
    with pytest.raises(QueryTooLong):
        store.recall("x" * (MAX_QUERY_CHARS + 1))


def test_sqlites_pattern_too_complex_is_classified(store: Store) -> None:
    with pytest.raises(QueryTooLong) as info, translate_sqlite(store.path):
        store.conn.execute("SELECT 'a' LIKE ?", ("%" * 60_000,)).fetchone()
    assert "too long" in str(info.value)


# --- #12: partial ranking maps, integral floats ------------------------------------------------


def test_a_partial_kind_half_life_map_is_merged_over_the_defaults() -> None:
    r = RankingSettings(kind_half_life_days={"episodic": 7})
    assert r.kind_half_life_days == {"episodic": 7, "procedural": 180.0}
    assert half_life("procedural", 5, r) == 180.0 and half_life("episodic", 5, r) == 7
    assert RankingSettings().kind_half_life_days == {"episodic": 30.0, "procedural": 180.0}


def test_recall_with_a_partial_map_ranks_procedural_facts_as_the_defaults_do(
    tmp_path: Path,
) -> None:
    scores = []
    for ranking in (RankingSettings(), RankingSettings(kind_half_life_days={"episodic": 7})):
        clock = FakeClock("2026-01-01", 1000)
        with Store.open(str(tmp_path / f"{len(scores)}.db"), clock=clock, ranking=ranking) as s:
            s.remember("deploy", "run the migrations first", kind="procedural")
            clock.advance(40 * 86_400_000)
            scores.append(s.recall("migrations").scores)
    assert scores[0] == scores[1] and scores[0][0] < 1


@pytest.mark.parametrize(("given", "same_as"), [(3.0, 3), (1.0, 1)])
def test_an_integral_float_limit_counts_like_importance_does(
    store: Store, given: float, same_as: int
) -> None:
    assert store.recall("", limit=given).ids == store.recall("", limit=same_as).ids  # type: ignore[arg-type]
    assert len(store.recall("", limit=given).ids) == same_as  # type: ignore[arg-type]


def test_an_integral_float_max_tokens_counts_like_an_int(store: Store) -> None:
    a = store.recall("", max_tokens=12.0)  # type: ignore[arg-type]
    b = store.recall("", max_tokens=12)
    assert (a.ids, a.truncated) == (b.ids, b.truncated) and a.truncated
    for bad in (3.5, float("inf"), float("nan")):
        with pytest.raises(InvalidInput, match="max_tokens"):
            store.recall("", max_tokens=bad)  # type: ignore[arg-type]


def test_is_new_tells_a_new_store_from_an_existing_one(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "m.db")) as s:
        assert s.is_new
        s.remember("s", "f")
    with Store.open(str(tmp_path / "m.db")) as s:
        assert not s.is_new


def test_list_facts_takes_more_ids_than_sqlite_has_variables(store: Store) -> None:
    """A "mark all" over a 30k-row flagged table must not hit SQLite's 32,766-variable limit."""
    ids = list(range(1, 40_001))
    rows = store.list_facts(ids=ids, include_history=True, limit=100)
    assert sorted(f.id for f in rows) == [1, 2, 3, 4, 5, 6]
    assert [f.id for f in store.list_facts(ids=[5, 2], include_history=True)] == [
        f.id for f in store.list_facts(include_history=True) if f.id in (2, 5)
    ]


def test_largest_id_and_data_version(tmp_path):
    from memharness_tui.store import FakeClock, Store

    path = str(tmp_path / "m.db")
    with Store.open(path, clock=FakeClock("2026-03-01", 1000)) as mine, \
            Store.open(path, clock=FakeClock("2026-03-01", 1000)) as other:
        assert mine.largest_id() == 0
        other.remember("s", "a fact")
        before = mine.data_version()
        other.remember("s", "another fact")
        assert mine.largest_id() == 2
        assert mine.data_version() != before  # another connection committed
        seen = mine.data_version()
        mine.remember("s", "my own fact")  # its own commits do not move it
        assert mine.data_version() == seen
