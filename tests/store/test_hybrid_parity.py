"""Hybrid recall next to the reference core (issue #24): the reference's answers, kept in
tests/fixtures/hybrid_parity.json by bench/hybrid_parity.py, replayed on the same store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store, vector_ext

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


class _Still:
    """A clock that stays put, so two recalls see the same "now"."""

    def __init__(self, instant: str) -> None:
        self.instant = instant

    def now(self) -> str:
        return self.instant

    peek = now


def _same(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(
        abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-300) for x, y in zip(a, b, strict=True))


@pytest.fixture
def parity_store(tmp_path: Path):
    recorded = json.loads((FIXTURES / "hybrid_parity.json").read_text())
    db = tmp_path / "hybrid.db"
    shutil.copyfile(FIXTURES / "hybrid_parity.db", db)
    clock = recorded["clock"]
    with Store.open(str(db), clock=FakeClock(clock["start"], clock["step"])) as store:
        if not store.vec_enabled:
            pytest.skip(f"sqlite-vec cannot load here: {vector_ext.problem()}")
        yield store, recorded


def test_every_recorded_recall_answers_as_the_reference_did(parity_store) -> None:
    """Ids, scores within 1e-9 and used_fallback of all 300, in order (each reinforces)."""
    store, recorded = parity_store
    wrong = []
    for i, (q, ref) in enumerate(zip(recorded["queries"], recorded["answers"], strict=True)):
        r = store.recall(**q, reinforce=True)
        if (r.ids != ref["ids"] or not _same(r.scores, ref["scores"])
                or r.used_fallback != ref["fallback"]):
            wrong.append((i, {k: v for k, v in q.items() if k != "query_vector"},
                          ref["ids"], r.ids, ref["fallback"], r.used_fallback))
    assert wrong == []


def test_the_fixture_covers_every_path() -> None:
    """Both legs, the vector leg alone, the FTS parse fallback, the substring fallback, the
    filters and budgets: the recorded queries exercise each (so parity means something)."""
    recorded = json.loads((FIXTURES / "hybrid_parity.json").read_text())
    qs, answers = recorded["queries"], recorded["answers"]
    assert len(qs) >= 250
    assert any(q.get("query") and q["query_vector"] for q in qs)
    assert any(not q.get("query") for q in qs)
    assert any("\u0000" in q.get("query", "") and a["ids"] for q, a in zip(qs, answers, strict=True))
    assert any(a["fallback"] and a["ids"] for a in answers)
    assert any(a["fallback"] and not a["ids"] for a in answers)
    assert any(q["query_vector"] == [] for q in qs)
    for key in ("subject", "kind", "as_of", "limit", "max_tokens"):
        assert any(key in q for q in qs), key
    assert len({len(q["query_vector"]) for q in qs}) >= 3


def test_without_sqlite_vec_a_vector_changes_nothing(tmp_path: Path, monkeypatch) -> None:
    """Where the extension cannot load, recall with a vector is today's keyword recall."""
    monkeypatch.setenv(vector_ext.ENV_VAR, "off")
    recorded = json.loads((FIXTURES / "hybrid_parity.json").read_text())
    db = tmp_path / "hybrid.db"
    shutil.copyfile(FIXTURES / "hybrid_parity.db", db)
    clock = _Still(recorded["clock"]["start"])
    with Store.open(str(db), readonly=True, clock=clock) as store:
        assert not store.vec_enabled
        assert vector_ext.problem() == f"{vector_ext.ENV_VAR} turns sqlite-vec off"
        for q in recorded["queries"][:60]:
            kw = {k: v for k, v in q.items() if k != "query_vector"}
            with_vec = store.recall(**q)
            plain = store.recall(**kw)
            assert (with_vec.ids, with_vec.scores, with_vec.used_fallback) == (
                plain.ids, plain.scores, plain.used_fallback)
