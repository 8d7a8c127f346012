"""Similar by meaning (#24): ``Store.similar_by_meaning`` — the current facts nearest one fact
by cosine over stored vectors, through sqlite-vec or (without it) Python, the same answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, Store, neighbours
from memharness_tui.store.errors import NotFound
from memharness_tui.store.hygiene_similarity import cosine_similarity

MODEL = "m"


@pytest.fixture
def store(tmp_path: Path):
    s = Store.open(str(tmp_path / "n.db"), clock=FakeClock("2026-03-01T09:00:00.000Z", 60_000))
    yield s
    s.close()


def seed(s: Store) -> dict[str, int]:
    ids = {}
    vectors = {
        "a": [1.0, 0.0, 0.0], "b": [0.9, 0.1, 0.0], "c": [0.0, 1.0, 0.0], "d": [0.5, 0.5, 0.0],
        "e": [0.7, 0.0, 0.7], "retracted": [1.0, 0.0, 0.0], "old": [1.0, 0.01, 0.0],
    }
    for name, vec in vectors.items():
        ids[name], _ = s.remember("subj", f"fact {name}")
        s.set_embedding(ids[name], vec, MODEL)
    ids["other_dim"], _ = s.remember("subj", "fact other dim")
    s.set_embedding(ids["other_dim"], [1.0, 0.0], MODEL)
    ids["bare"], _ = s.remember("subj", "fact without a vector")
    s.forget(fact_id=ids["retracted"])
    ids["new"] = s.revise(ids["old"], "fact old, revised")[1]  # no vector on the new row
    return ids


def by_hand(s: Store, fact_id: int) -> list[tuple[int, float]]:
    import struct

    rows = s.conn.execute("SELECT id, embedding, embedding_dim FROM facts WHERE embedding IS "
                          "NOT NULL AND valid_to IS NULL AND superseded_by IS NULL AND "
                          "retracted_at IS NULL").fetchall()
    vecs = {i: struct.unpack(f"<{d}f", b) for i, b, d in rows}
    own = struct.unpack("<3f", s.conn.execute("SELECT embedding FROM facts WHERE id = ?",
                                              (fact_id,)).fetchone()[0])
    out = [(i, cosine_similarity(own, v)) for i, v in vecs.items()
           if i != fact_id and len(v) == 3]
    return sorted(out, key=lambda t: (-t[1], t[0]))


def test_nearest_current_facts_of_the_same_dimension(store: Store) -> None:
    ids = seed(store)
    assert store.vec_enabled
    found = store.similar_by_meaning(ids["a"])
    assert found.has_vector and found.dim == 3 and not found.capped
    assert [n.id for n in found.items] == [i for i, _ in by_hand(store, ids["a"])]
    assert [n.id for n in found.items][:3] == [ids["b"], ids["d"], ids["e"]]
    assert [n.similarity for n in found.items] == pytest.approx(
        [s for _, s in by_hand(store, ids["a"])], abs=1e-6)
    left_out = {ids["a"], ids["retracted"], ids["old"], ids["other_dim"], ids["bare"]}
    assert not left_out & {n.id for n in found.items}
    assert found.items[0].subject == "subj" and found.items[0].fact == "fact b"


def test_limit(store: Store) -> None:
    ids = seed(store)
    assert [n.id for n in store.similar_by_meaning(ids["a"], limit=2).items] == [ids["b"],
                                                                                 ids["d"]]


def test_python_path_gives_the_same_answer(store: Store, monkeypatch) -> None:
    ids = seed(store)
    with_vec = store.similar_by_meaning(ids["c"])
    monkeypatch.setattr(Store, "vec_enabled", property(lambda self: False))
    without = store.similar_by_meaning(ids["c"])
    assert [n.id for n in without.items] == [n.id for n in with_vec.items]
    assert [n.similarity for n in without.items] == pytest.approx(
        [n.similarity for n in with_vec.items], abs=1e-6)


def test_python_path_says_when_it_stopped_at_its_cap(store: Store, monkeypatch) -> None:
    ids = seed(store)
    monkeypatch.setattr(Store, "vec_enabled", property(lambda self: False))
    monkeypatch.setattr(neighbours, "PYTHON_CAP", 2)
    found = store.similar_by_meaning(ids["a"])
    assert found.capped and len(found.items) == 2


def test_a_fact_without_a_vector_says_so(store: Store) -> None:
    ids = seed(store)
    found = store.similar_by_meaning(ids["bare"])
    assert not found.has_vector and found.items == [] and found.store_has_vectors


def test_a_store_without_vectors(store: Store) -> None:
    fid, _ = store.remember("s", "x")
    found = store.similar_by_meaning(fid)
    assert not found.has_vector and not found.store_has_vectors


def test_a_missing_fact_is_not_found(store: Store) -> None:
    seed(store)
    with pytest.raises(NotFound, match="fact #999 does not exist"):
        store.similar_by_meaning(999)
