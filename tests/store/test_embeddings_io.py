"""set_embedding / embed_targets / the vec flag (issue #24), against the reference's rules."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from memharness_tui.store import FakeClock, InvalidInput, NotFound, Store, vector_ext
from memharness_tui.store.embeddings_io import EmbedTarget

MODEL = "Xenova/bge-small-en-v1.5"


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "m.db"), clock=FakeClock()) as s:
        yield s


def _blob(store: Store, fact_id: int) -> tuple[bytes, int, str]:
    return store.conn.execute(
        "SELECT embedding, embedding_dim, embedding_model FROM facts WHERE id = ?",
        (fact_id,)).fetchone()


def test_set_embedding_stores_little_endian_float32_with_dim_and_model(store: Store) -> None:
    fid, _ = store.remember("s", "a fact")
    store.set_embedding(fid, [0.5, -1.0, 1e-3], MODEL)
    blob, dim, model = _blob(store, fid)
    assert blob == struct.pack("<3f", 0.5, -1.0, 1e-3)
    assert (dim, model) == (3, MODEL)
    store.set_embedding(fid, [1.0, 2.0], "other")  # overwrites
    assert _blob(store, fid) == (struct.pack("<2f", 1.0, 2.0), 2, "other")
    assert store.embedded_count() == 1


@pytest.mark.parametrize(("vector", "model", "message"), [
    ([], MODEL, "vector must be non-empty"),
    ([1.0, "x"], MODEL, "vector[1] must be a number"),
    ([1.0, float("nan")], MODEL, "vector[1] must be a finite number"),
    ([True], MODEL, "vector[0] must be a number"),
    ([1.0], "  ", "model must be a non-empty string"),
])
def test_set_embedding_refuses_bad_input_and_writes_nothing(store: Store, vector, model,
                                                            message) -> None:
    fid, _ = store.remember("s", "a fact")
    with pytest.raises(InvalidInput, match=re.escape(message)):
        store.set_embedding(fid, vector, model)
    assert _blob(store, fid) == (None, None, None)


def test_set_embedding_on_a_missing_fact_says_so(store: Store) -> None:
    store.remember("s", "a fact")
    with pytest.raises(NotFound, match="no fact #99; no vector was stored"):
        store.set_embedding(99, [1.0], MODEL)


def test_embed_targets_are_facts_without_this_models_vector_oldest_first(store: Store) -> None:
    ids = [store.remember("s", f"fact {n}", predicate="p" if n % 2 else "")[0] for n in range(6)]
    store.set_embedding(ids[0], [1.0], MODEL)
    store.set_embedding(ids[2], [1.0], "another/model")
    store.conn.execute("UPDATE facts SET embedding = x'0000803f', embedding_model = NULL "
                       "WHERE id = ?", (ids[4],))  # a vector with no model name
    targets = store.embed_targets(MODEL, 10)
    assert [t.id for t in targets] == [ids[1], ids[2], ids[3], ids[4], ids[5]]
    assert [t.id for t in store.embed_targets(MODEL, 2)] == [ids[1], ids[2]]
    assert store.count_embed_targets(MODEL) == 5
    assert targets[0] == EmbedTarget(ids[1], "s", "p", "fact 1")
    assert targets[0].document_text == "s: p: fact 1"
    assert targets[1].document_text == "s: fact 2"  # an empty predicate is left out


def test_model_mix_counts_vectors_by_model_and_dimension(store: Store) -> None:
    ids = [store.remember("s", f"fact {n}")[0] for n in range(5)]
    store.set_embedding(ids[0], [1.0, 0.0], MODEL)
    store.set_embedding(ids[1], [0.0, 1.0], MODEL)
    store.set_embedding(ids[2], [1.0], MODEL)
    store.set_embedding(ids[3], [1.0, 0.0], "other")
    mix = [(m.model, m.dim, m.count) for m in store.model_mix()]
    assert mix == [(MODEL, 2, 2), (MODEL, 1, 1), ("other", 2, 1)]


def test_vec_enabled_and_why_not(tmp_path: Path, monkeypatch) -> None:
    with Store.open(str(tmp_path / "a.db")) as s:
        s.remember("s", "x")
        loaded = s.vec_enabled
    if loaded:
        assert vector_ext.problem() is None
    monkeypatch.setenv(vector_ext.ENV_VAR, "off")
    with Store.open(str(tmp_path / "a.db")) as s:
        assert s.vec_enabled is False
        assert vector_ext.problem() == "MEMHARNESS_SQLITE_VEC turns sqlite-vec off"


def test_a_missing_extension_is_reported_not_raised(tmp_path: Path, monkeypatch) -> None:
    """The extension file cannot load: the store opens, recall is keyword-only, and the
    reason is one sentence."""
    monkeypatch.setattr(vector_ext, "_extension_path", lambda: str(tmp_path / "no-such-vec"))
    with Store.open(str(tmp_path / "b.db"), clock=FakeClock()) as s:
        fid, _ = s.remember("s", "alpha beta")
        assert s.vec_enabled is False
        problem = vector_ext.problem()
        assert problem is not None and "\n" not in problem
        assert problem.startswith(("sqlite-vec did not load into SQLite",
                                   "this Python's SQLite module cannot load extensions"))
        s.set_embedding(fid, [1.0, 0.0], MODEL)  # storing still works, as in the reference
        assert s.recall("alpha", query_vector=[1.0, 0.0]).ids == [fid]


def test_vector_only_recall_ranks_by_cosine_then_salience(store: Store) -> None:
    if not store.vec_enabled:
        pytest.skip(f"sqlite-vec cannot load here: {vector_ext.problem()}")
    a, _ = store.remember("s", "alpha")
    b, _ = store.remember("s", "beta")
    c, _ = store.remember("s", "gamma")
    store.remember("s", "no vector at all")
    store.set_embedding(a, [1.0, 0.0], MODEL)
    store.set_embedding(b, [0.0, 1.0], MODEL)
    store.set_embedding(c, [0.7, 0.7], MODEL)
    r = store.recall(query_vector=[0.9, 0.1])
    assert r.ids == [a, c, b] and not r.used_fallback
    # a word no leg finds, a vector of a dimension nobody has: the substring fallback
    r = store.recall("lph", query_vector=[1.0, 0.0, 0.0])
    assert r.ids == [a] and r.used_fallback


def test_set_embeddings_writes_a_batch_whole_or_not_at_all(store: Store) -> None:
    ids = [store.remember("s", f"fact {n}")[0] for n in range(4)]
    assert store.set_embeddings([(ids[0], [1.0]), (ids[1], [0.5, 0.5])], MODEL) == 2
    assert _blob(store, ids[1]) == (struct.pack("<2f", 0.5, 0.5), 2, MODEL)
    # the third row's UPDATE fails inside the transaction: the two before it roll back
    store.conn.execute(
        "CREATE TEMP TRIGGER refuse BEFORE UPDATE OF embedding ON facts "
        f"WHEN new.id = {ids[3]} BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(Exception, match="refused"):
        store.set_embeddings([(ids[2], [1.0]), (ids[0], [2.0]), (ids[3], [1.0])], MODEL)
    assert _blob(store, ids[2]) == (None, None, None)
    assert _blob(store, ids[0]) == (struct.pack("<f", 1.0), 1, MODEL)
    with pytest.raises(InvalidInput, match=re.escape("vector[0] must be a finite number")):
        store.set_embeddings([(ids[2], [1.0]), (ids[1], [float("inf")])], MODEL)
    assert _blob(store, ids[2]) == (None, None, None)
