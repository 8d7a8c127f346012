"""The hygiene scan's detectors over a store (current beliefs and as of a time)."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memharness_tui.hygiene import ScanCancelled, scan, scan_path
from memharness_tui.hygiene.pairs import clusters, jaccard_pairs
from memharness_tui.hygiene.rules import (
    atomicity_rule,
    js_length,
    looks_like_code_map,
    server_looks_like_code_map,
    subject_key,
)
from memharness_tui.store import FakeClock, Store
from memharness_tui.store.hygiene_similarity import jaccard, token_set


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(str(tmp_path / "m.db"), clock=FakeClock("2026-01-01T00:00:00.000Z"))
    yield s
    s.close()


def test_near_duplicates_cluster_transitively_largest_group_first(store: Store) -> None:
    a, _ = store.remember("user", "likes green tea in the morning")
    b, _ = store.remember("user", "likes green tea in the morning with honey")
    c, _ = store.remember("user", "green tea with honey in the morning, daily, hot")
    d, _ = store.remember("user", "lives in Lisbon with two cats")
    e, _ = store.remember("user", "lives in Lisbon with two cats and a dog")
    store.remember("user", "is allergic to peanuts")
    r = scan(store)
    assert [g.ids for g in r.duplicates] == [[a, b, c], [d, e]]
    # a~b and b~c hold, a~c does not, yet all three are one group
    assert jaccard(token_set("likes green tea in the morning"),
                   token_set("green tea with honey in the morning, daily, hot")) < 0.5
    for g in r.duplicates:
        for x, y, sim in g.pairs:
            near = {s.id: s.similarity for s in store.near_duplicates(
                "user", store.get(x).fact, limit=100)}
            assert near[y] == sim  # the reference's number, not one like it


def test_only_current_beliefs_are_compared_and_as_of_sees_the_past(store: Store) -> None:
    a, _ = store.remember("user", "likes green tea in the morning")
    b, t_both = store.remember("user", "likes green tea in the morning too")
    store.revise(b, "drinks coffee now")
    c, _ = store.remember("user", "likes green tea every morning")
    store.forget(fact_id=c)
    assert scan(store).duplicates == []
    past = scan(store, as_of=t_both)
    assert [g.ids for g in past.duplicates] == [[a, b]]
    assert past.as_of == t_both


def test_near_duplicates_across_subjects_are_not_compared(store: Store) -> None:
    store.remember("user", "likes green tea in the morning")
    store.remember("team", "likes green tea in the morning")
    assert scan(store).duplicates == []


def test_the_reference_cap_limits_comparison_and_the_report_says_so(store: Store) -> None:
    ids = [store.remember("project:big", f"filler fact number {k} of the big subject")[0]
           for k in range(1000)]
    late1, _ = store.remember("project:big", "needle haystack alpha bravo charlie")
    late2, _ = store.remember("project:big", "needle haystack alpha bravo charlie!")
    r = scan(store)
    grouped = {i for g in r.duplicates for i in g.ids}
    assert late1 not in grouped and late2 not in grouped  # beyond the first 1,000
    assert ids[0] in grouped
    assert [(c.subject, c.count, c.compared) for c in r.capped] == [("project:big", 1002, 1000)]
    # the rows compared are the rows the reference's nearDuplicates reads
    seen = {s.id for s in store.near_duplicates("project:big", "needle haystack alpha bravo "
                                                "charlie", limit=5000, min_similarity=0.0)}
    assert seen == set(ids)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from([f"w{k:02d}" for k in range(12)]), max_size=7),
                max_size=25))
def test_the_prefix_filter_finds_exactly_the_brute_force_pairs(docs: list[list[str]]) -> None:
    sets = [frozenset(d) for d in docs]
    brute = {(i, j): jaccard(sets[i], sets[j]) for i, j in itertools.combinations(range(len(sets)), 2)
             if jaccard(sets[i], sets[j]) >= 0.5}
    assert jaccard_pairs(sets, 0.5) == brute


def test_clusters_are_connected_components() -> None:
    assert clusters(6, {(0, 1): 1.0, (1, 2): 1.0, (4, 5): 1.0}) == [[0, 1, 2], [4, 5]]


def test_subject_fragmentation_uses_the_gardeners_key(store: Store) -> None:
    for subject, n in (("project:tako-vm", 3), ("project:TakoVM", 1), ("project:tako_vm", 2),
                       ("project:tako", 4)):
        for k in range(n):
            store.remember(subject, f"fact {k} about {subject}")
    r = scan(store)
    assert subject_key("project:Tako-VM") == "projecttakovm"
    assert [(f.key, f.subjects, f.canonical) for f in r.fragments] == [
        ("projecttakovm", [("project:tako-vm", 3), ("project:tako_vm", 2),
                           ("project:TakoVM", 1)], "project:tako-vm")]


CODE_MAP = ("The request path: src/server/router.ts dispatches to src/server/handlers/recall.ts, "
            "which calls packages/core/src/memory.ts and packages/core/src/sql.ts, and results "
            "are formatted by packages/mcp/src/format.ts before they go back over stdio.")


def test_code_maps_are_unpinned_project_facts_by_the_gardeners_rule(store: Store) -> None:
    flagged, _ = store.remember("project:x", CODE_MAP)
    store.remember("project:x", CODE_MAP + " ", source_commit="abc1234")  # pinned
    store.remember("user", CODE_MAP + "  ")  # not a project subject
    store.remember("project:x", CODE_MAP + " The decision was deliberate.")  # a finding
    assert [f.id for f in scan(store).code_maps] == [flagged]


def test_code_map_rules_differ_as_the_references_do() -> None:
    # the gardener wants 200+ characters and three distinct paths; the server counts symbols too
    symbols = ("Entry points: store.recall.rank_facts, store.browse.list_facts, "
               "store.writes.fact_writes, tui.app.run_app and staleness.runner.run_pass each "
               "have one test module under the tests folder of the repository root, ok.")
    assert server_looks_like_code_map(symbols) and not looks_like_code_map(symbols)
    assert looks_like_code_map(CODE_MAP)
    assert not looks_like_code_map(CODE_MAP.replace("stdio.", "stdio (see #12)."))
    assert not looks_like_code_map(CODE_MAP[:150])


def test_compound_and_over_limit_rules(store: Store) -> None:
    semi, _ = store.remember("user", "X is las7 (id 123); the gh CLI is authenticated as las7 on this laptop")
    store.remember("user", "a; b")  # too short for the semicolon rule
    several, _ = store.remember("user", "First claim here. " * 20)
    long_one, _ = store.remember("user", "word " * 60)
    huge, _ = store.remember("user", "z" * 1501)
    store.remember("user", "y" * 1500 + ";")  # 1,501 characters too, but a separate row
    r = scan(store)
    assert {(f.id, f.rule) for f in r.compound} == {(semi, "semicolon"), (several, "several"),
                                                    (long_one, "long")}
    assert [f.id for f in r.over_limit][0] == huge and len(r.over_limit) == 2
    # JavaScript lengths: an emoji is two units
    assert js_length("🎉") == 2 and atomicity_rule("🎉" * 141) == "long"
    assert atomicity_rule("🎉" * 140) is None


def test_chain_anomalies_both_shapes_of_e3(store: Store) -> None:
    # a retraction in the middle of a chain: superseded first, then retracted
    a, _ = store.remember("user", "works at Acme")
    _, b, _ = store.revise(a, "works at Acme Corp")
    store.forget(fact_id=a)
    # revise of a retracted fact: retracted first, then revised (the reference allows it)
    c, _ = store.remember("user", "lives in Porto")
    store.forget(fact_id=c)
    _, d, _ = store.revise(c, "lives in Lisbon")
    r = scan(store)
    assert [(x.kind, x.id, x.related) for x in r.chains] == [
        ("mid-chain-retraction", a, b),
        ("retracted-ancestor", b, a),
        ("retracted-ancestor", d, c),
    ]


def test_stale_and_unresolved_pins_from_the_stored_verdicts(store: Store) -> None:
    s, _ = store.remember("project:x", "uses sqlite", source_commit="abc1234", source_path="a.py")
    u, _ = store.remember("project:x", "uses wal", source_commit="def5678")
    ok, _ = store.remember("project:x", "uses fts5", source_commit="def5678")
    store.set_staleness(s, "stale", "2026-01-02T00:00:00.000Z", "fff0000")
    store.set_staleness(u, "unresolved", "2026-01-02T00:00:00.000Z", "fff0000")
    store.set_staleness(ok, "current", "2026-01-02T00:00:00.000Z", "fff0000")
    r = scan(store)
    assert [(p.id, p.freshness, p.source_path) for p in r.pins] == [
        (s, "stale", "a.py"), (u, "unresolved", None)]
    assert r.counts()["stale"] == 1 and r.counts()["unresolved"] == 1


def test_progress_is_reported_and_cancel_stops_the_scan(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Store.open(str(path), clock=FakeClock()) as s:
        for k in range(12_000):
            s.remember(f"s{k % 7}", f"fact {k}")
    seen: list[tuple[int, int]] = []
    r = scan_path(str(path), progress=lambda done, total: seen.append((done, total)))
    assert r.rows == 12_000
    assert seen[-1] == (12_000, 12_000) and seen[0][0] < 12_000
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    stop = threading.Event()

    def cancel_after_first(done: int, total: int) -> None:
        stop.set()

    with pytest.raises(ScanCancelled):
        scan_path(str(path), progress=cancel_after_first, cancel=stop)


def test_an_empty_or_fresh_store_has_nothing_to_say(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "fresh.db"), clock=FakeClock()) as s:
        r = scan(s)
    assert r.empty and r.rows == 0


def test_with_embeddings_each_pair_carries_the_references_folded_number(tmp_path: Path) -> None:
    from memharness_tui.store.hygiene_similarity import unpack_embedding
    from tests.hygiene.builders import build_near_dup_store

    store = build_near_dup_store(tmp_path / "near.db")
    try:
        vectors = {fid: unpack_embedding(blob, dim) for fid, blob, dim in store.conn.execute(
            "SELECT id, embedding, embedding_dim FROM facts WHERE embedding IS NOT NULL")}
        (group,) = [g for g in scan(store).duplicates if g.subject == "project:vec"]
        # the zero vector's NULL distance folds in as 1: it joins every same-dimension row
        assert len(group.ids) == 5 and any(s == 1.0 for _, _, s in group.pairs)
        for a, b, sim in group.pairs:
            near = {s.id: s.similarity for s in store.near_duplicates(
                "project:vec", store.get(a).fact, query_vector=vectors.get(a), limit=100)}
            assert near[b] == sim
    finally:
        store.close()


def test_worker_processes_give_the_same_report(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Store.open(str(path), clock=FakeClock()) as s:
        for k in range(240):
            s.remember(f"s{k % 3}", f"item {k // 2} of the list is colour {k % 7} size {k // 2}")
        inline = scan(s, workers=0)
        pooled = scan(s, workers=1)
    assert len(inline.duplicates) == 3 and sum(len(g.pairs) for g in inline.duplicates) > 100
    assert pooled.to_dict() == inline.to_dict()


def test_a_scan_runs_on_a_worker_thread_with_worker_processes(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Store.open(str(path), clock=FakeClock()) as s:
        for k in range(120):
            s.remember("s", f"item {k // 2} of the list is colour {k % 7} size {k // 2}")
        expected = scan(s, workers=0).to_dict()
    got: list[dict[str, object]] = []
    thread = threading.Thread(target=lambda: got.append(
        scan_path(str(path), workers=1).to_dict()))
    thread.start()
    thread.join(timeout=120)
    assert got == [expected]
