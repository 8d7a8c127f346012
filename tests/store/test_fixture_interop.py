"""Compatibility with the reference implementation, proven on the files it wrote."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.store import FakeClock, MemharnessError, Store
from memharness_tui.store.types import Fact, RankingSettings
from tests.conftest import fixtures_dir
from tests.store.helpers import copy_fixture, dump_facts, schema_rows, table_info, user_version

CAMEL = {
    "validFrom": "valid_from",
    "validTo": "valid_to",
    "txAt": "tx_at",
    "supersededBy": "superseded_by",
    "sourceAgent": "source_agent",
    "sourceRef": "source_ref",
    "sourceCommit": "source_commit",
    "sourcePath": "source_path",
    "checkedAt": "checked_at",
    "checkedHead": "checked_head",
    "retractedAt": "retracted_at",
    "lastAccessedAt": "last_accessed_at",
}


def load(name: str) -> Any:
    return json.loads((fixtures_dir() / name).read_text())


def fact_json(f: Fact) -> dict[str, Any]:
    """Our Fact in the reference's camelCase result shape."""
    d = {
        "id": f.id,
        "subject": f.subject,
        "predicate": f.predicate,
        "fact": f.fact,
        "confidence": f.confidence,
        "importance": f.importance,
        "kind": f.kind,
        "freshness": f.freshness,
    }
    rev = {v: k for k, v in CAMEL.items()}
    for snake in CAMEL.values():
        d[rev[snake]] = getattr(f, snake)
    return d


def assert_fact_equal(ours: Fact, ref: dict[str, Any]) -> None:
    mine = fact_json(ours)
    for key, value in ref.items():
        if key == "score":
            continue
        assert mine[key] == value, f"fact #{ref['id']} field {key}: {mine[key]!r} != {value!r}"


def test_v4_migrates_to_exactly_what_the_reference_upgraded(tmp_path: Path) -> None:
    db = copy_fixture("v4.db", tmp_path)
    with Store.open(str(db)) as store:
        assert store.schema_version == 5
        assert store.migration_note and "backed up" in store.migration_note
    expected = fixtures_dir() / "v4_upgraded.db"
    assert user_version(db) == 5
    assert schema_rows(db) == schema_rows(expected)
    assert table_info(db) == table_info(expected)
    assert dump_facts(db) == load("v4_upgraded.facts.json")
    backups = list(tmp_path.glob("v4.db.v4-backup-*"))
    assert len(backups) == 1
    assert user_version(backups[0]) == 4
    assert dump_facts(backups[0]) == load("v4.facts.json")


def test_fresh_store_has_the_reference_v5_schema(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "fresh.db")) as store:
        store.remember("s", "f")  # a fresh file is created by its first write
    assert schema_rows(tmp_path / "fresh.db") == schema_rows(fixtures_dir() / "v5.db")
    assert table_info(tmp_path / "fresh.db") == table_info(fixtures_dir() / "v5.db")


def test_v5_opens_without_change(tmp_path: Path) -> None:
    db = copy_fixture("v5.db", tmp_path)
    before = db.read_bytes()
    with Store.open(str(db)) as store:
        assert store.schema_version == 5
        assert store.migration_note is None
        assert store.stats().total_facts == 43
    assert dump_facts(db) == load("v5.facts.json")
    # Nothing but the WAL files may differ; the main file's pages are untouched.
    assert db.read_bytes()[100:] == before[100:]


def test_v5_reads_identically_read_only(tmp_path: Path) -> None:
    db = copy_fixture("v5.db", tmp_path)
    with Store.open(str(db), readonly=True) as store:
        why = store.why(40)
    assert [a.id for a in why.ancestors] == [34, 13]
    assert [d.id for d in why.descendants] == [43]


def _replay(tmp_path: Path) -> tuple[list[dict[str, Any]], Store, FakeClock]:
    scenario = load("v5.scenario.json")
    clock = FakeClock(scenario["clockStart"], scenario["clockStepMs"])
    ranking = RankingSettings()
    store = Store.open(str(tmp_path / scenario["db"]), clock=clock, ranking=ranking)
    out: list[dict[str, Any]] = []
    for op in scenario["ops"]:
        entry: dict[str, Any] = {"op": op["op"]}
        try:
            entry["result"] = _run_op(store, clock, op)
        except MemharnessError as exc:
            entry["error"] = {"code": exc.code, "message": str(exc)}
        entry["clock"] = clock.peek()
        out.append(entry)
    return out, store, clock


def _kw(op: dict[str, Any], *names: str) -> dict[str, Any]:
    out = {}
    for name in names:
        if name in op:
            out[CAMEL.get(name, name)] = op[name]
    return out


def _run_op(store: Store, clock: FakeClock, op: dict[str, Any]) -> Any:
    kind = op["op"]
    if kind == "remember":
        args = _kw(op, "predicate", "confidence", "importance", "kind", "sourceRef",
                   "sourceAgent", "sourceCommit", "sourcePath", "validFrom")
        return store.remember(op["subject"], op["fact"], **args)
    if kind == "revise":
        args = _kw(op, "confidence", "importance", "kind", "sourceRef", "sourceAgent",
                   "sourceCommit", "sourcePath", "validFrom")
        return store.revise(op["oldFactId"], op["newFact"], **args)
    if kind == "forget":
        if "factId" in op:
            return store.forget(fact_id=op["factId"])
        return store.forget(source_ref=op["sourceRef"])
    if kind == "advance":
        clock.advance(op["ms"])
        return None
    if kind == "recall":
        args = {}
        if "query" in op:
            args["query"] = op["query"]
        if "subject" in op:
            args["subject"] = op["subject"]
        if "kind" in op:
            args["kind"] = op["kind"]
        if "asOf" in op:
            args["as_of"] = op["asOf"]
        if "limit" in op:
            args["limit"] = op["limit"]
        if "maxTokens" in op:
            args["max_tokens"] = op["maxTokens"]
        # The reference server reinforces on access by default.
        return store.recall(reinforce=op.get("reinforce", True), **args)
    if kind == "why":
        return store.why(op["id"])
    if kind == "diff":
        return store.diff(op["since"], op.get("subject"))
    if kind == "setStaleness":
        return store.set_staleness(
            op["id"], op["freshness"], op["checkedAt"], op["checkedHead"],
            op.get("sourceCommit"), op.get("sourcePath"),
        )
    if kind == "stats":
        return store.stats()
    if kind == "checkIntegrity":
        store.check_integrity()
        return "ok"
    raise AssertionError(f"unknown op {kind}")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("replay")
    out, store, clock = _replay(tmp)
    yield out, store, clock, load("v5.result.json")
    store.close()


def test_replay_consumes_timestamps_exactly_like_the_reference(replayed) -> None:
    out, _, clock, expected = replayed
    assert len(out) == len(expected["results"])
    for mine, ref in zip(out, expected["results"], strict=True):
        assert mine["clock"] == ref["clock"], f"op {ref['i']} ({ref['op']})"
        assert ("error" in mine) == ("error" in ref), f"op {ref['i']}: {mine}"
    assert clock.peek() == expected["clockEnd"]


def test_replay_results_match(replayed) -> None:
    out, _, _, expected = replayed
    for mine, ref in zip(out, expected["results"], strict=True):
        where = f"op {ref['i']} ({ref['op']})"
        if "error" in ref:
            assert mine["error"]["code"] == ref["error"]["code"], where
            continue
        r, want = mine["result"], ref["result"]
        if ref["op"] == "remember":
            assert r == (want["id"], want["txAt"]), where
        elif ref["op"] == "revise":
            assert r == (want["oldId"], want["newId"], want["txAt"]), where
        elif ref["op"] == "forget":
            assert r == (want["retractedCount"], want["retractedIds"]), where
        elif ref["op"] == "recall":
            assert r.ids == want["ids"], where
            for a, b in zip(r.scores, want["scores"], strict=True):
                assert math.isclose(a, b, rel_tol=1e-9), f"{where}: {a} != {b}"
            assert r.as_of == want["asOf"] and r.truncated == want["truncated"], where
            assert r.used_fallback == want["usedFallback"], where
            for f, wf in zip(r.facts, want["facts"], strict=True):
                assert_fact_equal(f, wf)
        elif ref["op"] == "why":
            assert_fact_equal(r.fact, want["fact"])
            assert [a.id for a in r.ancestors] == [a["id"] for a in want["ancestors"]], where
            assert [d.id for d in r.descendants] == [d["id"] for d in want["descendants"]], where
            for f, wf in zip(r.ancestors + r.descendants, want["ancestors"] + want["descendants"], strict=True):
                assert_fact_equal(f, wf)
        elif ref["op"] == "diff":
            assert r.since == want["since"], where
            assert [f.id for f in r.learned] == [f["id"] for f in want["learned"]], where
            assert [f.id for f in r.retracted] == [f["id"] for f in want["retracted"]], where
            got = [(p.old.id, p.new.id if p.new else None) for p in r.revised]
            ref_pairs = [(p["old"]["id"], p["new"]["id"] if p["new"] else None) for p in want["revised"]]
            assert got == ref_pairs, where
        elif ref["op"] == "stats":
            assert r.total_facts == want["totalFacts"], where
            assert r.current_beliefs == want["currentBeliefs"], where
            assert [(t.subject, t.count) for t in r.top_subjects] == [
                (t["subject"], t["count"]) for t in want["topSubjects"]
            ], where
            assert r.schema_version == want["schemaVersion"], where
            assert Path(r.db_path).name == want["dbPath"], where
        else:
            assert r == want, where


def test_replay_final_rows_match(replayed) -> None:
    _, store, _, expected = replayed
    assert dump_facts(store.path) == expected["facts"]
    assert dump_facts(fixtures_dir() / "v5.db") == expected["facts"]


def test_fts_index_is_consistent_after_replay(replayed) -> None:
    _, store, _, _ = replayed
    conn = sqlite3.connect(store.path)
    try:
        conn.execute("INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 1)")
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
