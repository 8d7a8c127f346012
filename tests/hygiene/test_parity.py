"""Parity with the reference, against its answers kept as fixtures (bench/hygiene_fixtures.py):
near-duplicate ids and similarities, the remember tool's text, and how the reference core
reads a store after each kind of fix (recall, why, diff)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memharness_tui.cli import main
from memharness_tui.store import FakeClock, Store
from tests.hygiene import builders

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _reader(path: Path, clock: dict[str, Any]) -> Store:
    return Store.open(str(path), clock=FakeClock(clock["start"], step_ms=clock["step"]))


NEAR = _load("hygiene_near_duplicates.json")


def test_the_fixture_replays_the_builders_queries() -> None:
    # the calls kept beside the answers are the ones the builders make today
    assert NEAR["calls"] == builders.near_dup_calls()


@pytest.fixture(scope="module")
def near_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("near") / "near.db"
    builders.build_near_dup_store(path).close()
    return path


@pytest.mark.parametrize("i", range(len(NEAR["calls"])))
def test_near_duplicates_equal_the_reference(near_db: Path, i: int) -> None:
    call, expected = NEAR["calls"][i], NEAR["answers"][i]
    with _reader(near_db, NEAR["clock"]) as store:
        got = store.near_duplicates(
            call["subject"], call["text"], query_vector=call.get("queryVector"),
            limit=call.get("limit", 5), min_similarity=call.get("minSimilarity", 0.5))
    assert [{"id": s.id, "similarity": s.similarity} for s in got] == expected


def test_near_duplicates_consume_no_timestamp(near_db: Path) -> None:
    with _reader(near_db, NEAR["clock"]) as store:
        before = store.clock.peek()
        store.near_duplicates("user", "green tea")
        assert store.clock.peek() == before


NOTES = _load("hygiene_remember_notes.json")


@pytest.mark.parametrize("name", sorted(NOTES["sequences"]))
def test_cli_remember_prints_the_servers_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    db = str(tmp_path / "m.db")
    got = []
    for step in NOTES["sequences"][name]:
        argv = ["remember", step["subject"], step["fact"], "--db", db]
        if "source_commit" in step:
            argv += ["--source-commit", step["source_commit"]]
        assert main(argv) == 0
        got.append(capsys.readouterr().out.removesuffix("\n"))
    assert got == NOTES["texts"][name]


FIXES = _load("hygiene_fixes_reference.json")


def _ours(store: Store, call: dict[str, Any]) -> Any:
    if call["op"] == "recall":
        a = call["args"]
        r = store.recall(a.get("query", ""), subject=a.get("subject", ""), as_of=a.get("asOf"))
        return {"ids": [f.id for f in r.facts], "scores": [f.score for f in r.facts]}
    if call["op"] == "why":
        w = store.why(call["id"])

        def brief(f: Any) -> dict[str, Any]:
            return {"id": f.id, "subject": f.subject, "fact": f.fact,
                    "supersededBy": f.superseded_by}

        return {"fact": brief(w.fact), "ancestors": [brief(f) for f in w.ancestors],
                "descendants": [brief(f) for f in w.descendants]}
    a = call["args"]
    d = store.diff(a["since"], a.get("subject"))
    return {"learned": [f.id for f in d.learned],
            "revised": [[p.old.id, p.new.id] for p in d.revised],
            "retracted": [f.id for f in d.retracted]}


@pytest.mark.parametrize("fix", sorted(FIXES["fixes"]))
def test_the_reference_reads_each_fix_as_we_do(tmp_path: Path, fix: str) -> None:
    kept = FIXES["fixes"][fix]
    store, ids = builders.build_fix_store(tmp_path / f"{fix}.db", fix)
    store.close()
    assert ids == kept["ids"]
    assert kept["calls"] == builders.fix_calls(fix, ids)
    for call, expected in zip(kept["calls"], kept["answers"], strict=True):
        with _reader(tmp_path / f"{fix}.db", FIXES["clock"]) as reader:
            got = _ours(reader, call)
        if call["op"] == "recall":
            assert got["ids"] == expected["ids"], call
            assert got["scores"] == pytest.approx(expected["scores"], rel=1e-12), call
        else:
            assert got == expected, call
