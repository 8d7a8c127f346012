"""Hygiene fixes: previews by id, one transaction each, history kept, provenance set."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.hygiene import (
    apply,
    plan_merge,
    plan_pin,
    plan_refile,
    plan_retract,
    plan_split,
    scan,
    split_parts,
)
from memharness_tui.store import FakeClock, Store
from memharness_tui.store.driver import sqlite3  # the store's own: shares its locks in-process
from memharness_tui.store.errors import InvalidInput, NotFound, ReadOnlyError
from tests.store.helpers import dump_facts


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "m.db"


@pytest.fixture
def store(db: Path) -> Store:
    s = Store.open(str(db), clock=FakeClock("2026-01-01T00:00:00.000Z"))
    yield s
    s.close()


def _group(store: Store) -> list[int]:
    a, _ = store.remember("user", "likes green tea in the morning", source_ref="s1")
    b, _ = store.remember("user", "Likes GREEN tea, every morning!", importance=8)
    c, _ = store.remember("user", "likes green tea in the morning, hot", confidence=0.6)
    return [a, b, c]


def test_merge_preview_lists_the_rows_by_id_and_writes_nothing(store: Store, db: Path) -> None:
    ids = _group(store)
    before = dump_facts(db)
    plan = plan_merge(store, [ids[2], ids[0], ids[1]], "likes green tea every morning")
    assert [(r.action, r.id) for r in plan.rows] == [
        ("new", None), ("close", ids[0]), ("close", ids[1]), ("close", ids[2])]
    assert plan.rows[0].supersedes == tuple(ids)
    assert plan.confirmation() == f"merge: 3 facts (#{ids[0]}, #{ids[1]}, #{ids[2]}); 1 new row"
    assert dump_facts(db) == before


def test_merge_keeps_every_member_explained(store: Store) -> None:
    ids = _group(store)
    done = apply(store, plan_merge(store, ids, "likes green tea every morning"))
    (s,) = done.new_ids
    merged = store.get(s)
    assert merged.fact == "likes green tea every morning"
    assert merged.source_agent == "memharness-tui/merge"
    assert merged.source_ref == f"merge of #{ids[0]}, #{ids[1]}, #{ids[2]}"
    assert merged.importance == 8 and merged.confidence == 1.0
    for i in ids:
        w = store.why(i)
        assert [f.id for f in w.descendants] == [s]
        assert w.fact.valid_to == merged.valid_from
    assert [f.id for f in store.why(s).ancestors] == [ids[0]]  # the lowest id's chain
    assert [f.id for f in store.recall("green tea").facts] == [s]
    d = store.diff("2026-01-01")
    assert sorted((p.old.id, p.new.id) for p in d.revised) == [(i, s) for i in ids]
    assert not scan(store).duplicates
    # the past is intact
    assert {f.id for f in store.recall("green tea", as_of=store.get(ids[2]).tx_at).facts} == set(ids)


def test_merge_refuses_what_it_cannot_join(store: Store, db: Path) -> None:
    ids = _group(store)
    other, _ = store.remember("team", "likes green tea in the morning")
    before = dump_facts(db)
    with pytest.raises(InvalidInput, match="one subject"):
        plan_merge(store, [ids[0], other], "x")
    with pytest.raises(InvalidInput, match="at least two"):
        plan_merge(store, [ids[0]], "x")
    with pytest.raises(InvalidInput, match="listed twice"):
        plan_merge(store, [ids[0], ids[0]], "x")
    with pytest.raises(InvalidInput, match="text must be a non-empty string"):
        plan_merge(store, ids, "   ")
    with pytest.raises(NotFound):
        plan_merge(store, [ids[0], 999], "x")
    store.revise(ids[1], "likes matcha")
    with pytest.raises(InvalidInput, match="already superseded"):
        plan_merge(store, ids, "x")
    after = dump_facts(db)  # the revise above wrote one row and closed one; the plans nothing
    assert len(after) == len(before) + 1
    assert [r for r in after if r["id"] not in (ids[1], after[-1]["id"])] == \
        [r for r in before if r["id"] != ids[1]]


def test_a_fact_that_moved_after_the_preview_refuses_the_whole_fix(store: Store, db: Path) -> None:
    ids = _group(store)
    plan = plan_merge(store, ids, "likes green tea every morning")
    store.forget(fact_id=ids[1])  # another writer, between preview and confirm
    before = dump_facts(db)
    with pytest.raises(InvalidInput, match=f"fact #{ids[1]} changed since the preview; nothing"):
        apply(store, plan)
    assert dump_facts(db) == before


def test_a_failure_mid_transaction_writes_nothing(store: Store, db: Path) -> None:
    f, _ = store.remember("user", "X is las7 (id 123); the gh CLI is authenticated as las7 here")
    con = sqlite3.connect(db)
    con.execute("CREATE TRIGGER boom BEFORE INSERT ON facts WHEN NEW.fact = 'boom' "
                "BEGIN SELECT RAISE(ABORT, 'boom'); END")
    con.commit()
    con.close()
    before = dump_facts(db)
    with pytest.raises(Exception, match="boom"):  # noqa: B017 - the driver's own error class
        apply(store, plan_split(store, f, ["X is las7 (id 123)", "boom"]))
    assert dump_facts(db) == before


def test_refile_moves_a_fact_and_keeps_its_chain_pin_and_verdict(store: Store) -> None:
    old, _ = store.remember("project:tako-vm", "the VM is stack based", predicate="design")
    _, a, _ = store.revise(old, "the VM is register based", source_commit="abc1234",
                           source_path="src/vm.rs", source_ref="pr-7")
    store.set_staleness(a, "stale", "2026-01-02T00:00:00.000Z", "def5678")
    b, _ = store.remember("project:TakoVM", "CI runs on GitHub Actions")
    done = apply(store, plan_refile(store, [a, b], "project:tako-vm".replace("-", "")))
    na, nb = done.new_ids
    moved = store.get(na)
    assert (moved.subject, moved.fact, moved.predicate) == ("project:takovm",
                                                            "the VM is register based", "design")
    assert (moved.source_commit, moved.source_path, moved.source_ref) == ("abc1234", "src/vm.rs",
                                                                          "pr-7")
    assert (moved.freshness, moved.checked_head) == ("stale", "def5678")
    assert moved.source_agent == "memharness-tui/refile"
    assert [f.id for f in store.why(na).ancestors] == [a, old]
    assert store.get(nb).subject == "project:takovm"
    with pytest.raises(InvalidInput, match="already under"):
        plan_refile(store, [na], "project:takovm")


def test_split_parts_start_with_a_capital_as_the_fact_did() -> None:
    assert split_parts("Staging deploys run on every push; production deploys need approval") \
        == ["Staging deploys run on every push", "Production deploys need approval"]
    assert split_parts("Builds use Xcode 16; iOS builds are signed; npm-based tools lint") \
        == ["Builds use Xcode 16", "iOS builds are signed", "npm-based tools lint"]
    assert split_parts("tiny-shop runs on Flask; it listens on 8080") \
        == ["tiny-shop runs on Flask", "it listens on 8080"]  # the fact began in lowercase


def test_split_revises_with_the_first_part_and_adds_the_rest(store: Store) -> None:
    f, _ = store.remember("user", "X is las7 (id 123); the gh CLI is authenticated as las7 here",
                          source_ref="session-9", importance=7, kind="procedural")
    parts = split_parts(store.get(f).fact)
    assert parts == ["X is las7 (id 123)", "The gh CLI is authenticated as las7 here"]
    done = apply(store, plan_split(store, f, parts))
    first, rest = done.new_ids
    assert store.get(f).superseded_by == first
    assert store.get(first).source_ref == "session-9"
    r = store.get(rest)
    assert (r.subject, r.importance, r.kind) == ("user", 7, "procedural")
    assert r.source_ref == f"split of #{f}" and r.source_agent == "memharness-tui/split"
    assert store.why(rest).ancestors == []
    with pytest.raises(InvalidInput, match="at least two parts"):
        plan_split(store, first, ["only one"])


def test_pin_and_retract_in_bulk(store: Store) -> None:
    a, _ = store.remember("project:x", "map one")
    b, _ = store.remember("project:x", "map two")
    c, _ = store.remember("project:x", "map three")
    plan = plan_pin(store, [a, b], "abc1234", "src/app.ts") + plan_retract(store, [c])
    assert plan.touched == [a, b, c]
    done = apply(store, plan)
    pinned = [store.get(i) for i in done.new_ids]
    assert [(p.fact, p.source_commit, p.source_path) for p in pinned] == [
        ("map one", "abc1234", "src/app.ts"), ("map two", "abc1234", "src/app.ts")]
    assert done.retracted == [c] and store.get(c).retracted_at == done.tx_at
    assert len({p.tx_at for p in pinned} | {done.tx_at}) == 1  # one transaction, one time
    with pytest.raises(InvalidInput, match="appears in two fixes"):
        plan_pin(store, done.new_ids[:1], "abc", None) + plan_retract(store, done.new_ids[:1])
    with pytest.raises(InvalidInput, match="commit must be a non-empty string"):
        plan_pin(store, done.new_ids, "  ", None)


def test_a_read_only_store_refuses_and_writes_nothing(store: Store, db: Path) -> None:
    ids = _group(store)
    before = dump_facts(db)
    with Store.open(str(db), readonly=True) as ro:
        plan = plan_retract(ro, ids)
        with pytest.raises(ReadOnlyError):
            apply(ro, plan)
    assert dump_facts(db) == before


def test_a_fact_revised_after_the_preview_refuses_the_whole_fix(store: Store, db: Path) -> None:
    ids = _group(store)
    plan = plan_refile(store, ids, "person")
    store.revise(ids[0], "likes matcha")  # another writer, between preview and confirm
    before = dump_facts(db)
    with pytest.raises(InvalidInput, match=f"fact #{ids[0]} changed since the preview"):
        apply(store, plan)
    assert dump_facts(db) == before
