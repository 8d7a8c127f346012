"""A stored vector blob that is not ``embedding_dim`` float32 numbers (10 bytes, 16 floats,
8 MB, each with ``embedding_dim = 8``). The reference's hybrid recall throws sqlite-vec's error
on such a row whenever the query has that many numbers (run against the built core: "Vector
dimension mistmatch…", "invalid float32 vector BLOB length…") and passes over one of another
length. Here: the same rows fail, with one sentence naming them (exit 2), ``doctor`` names
them, and ``reembed`` replaces them."""

from __future__ import annotations

from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.store import FakeClock, MemharnessError, Store, vector_ext
from memharness_tui.store.driver import sqlite3  # the store's own SQLite: one lock table
from memharness_tui.store.hybrid import DamagedVectors

MODEL = "Xenova/bge-small-en-v1.5"
DIM = 8
BLOBS = {"10 bytes": 10, "16 floats": 16 * 4, "8 MB": 8 * 1024 * 1024}


@pytest.fixture
def vec_loads() -> None:
    conn = sqlite3.connect(":memory:")
    try:
        if not vector_ext.load_into(conn):
            pytest.skip(f"sqlite-vec cannot load here: {vector_ext.problem()}")
    finally:
        conn.close()


def _store(path: Path, blob_bytes: int | None, *, dim: int = DIM) -> list[int]:
    with Store.open(str(path), clock=FakeClock()) as s:
        ids = [s.remember("proj", f"alpha cache {i}")[0] for i in range(3)]
        for i, fid in enumerate(ids):
            s.set_embedding(fid, [1.0 if k == i else 0.1 for k in range(DIM)], MODEL)
    if blob_bytes is not None:
        conn = sqlite3.connect(path)
        conn.execute("UPDATE facts SET embedding = zeroblob(?), embedding_dim = ? WHERE id = ?",
                     (blob_bytes, dim, ids[1]))
        conn.commit()
        conn.close()
    return ids


QUERY = [0.5] * DIM


@pytest.mark.parametrize("size", list(BLOBS))
def test_hybrid_recall_over_a_damaged_vector_is_one_sentence_naming_it(
        tmp_path: Path, vec_loads: None, size: str) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, BLOBS[size])
    with Store.open(str(db), clock=FakeClock()) as s:
        for query in ("alpha", ""):
            with pytest.raises(DamagedVectors) as err:
                s.recall(query, query_vector=QUERY)
            assert isinstance(err.value, MemharnessError)
            assert str(err.value) == (
                f"hybrid recall cannot run: the stored vector of #{ids[1]} is not {DIM} "
                "numbers as its embedding_dim says, and sqlite-vec refuses the query (the "
                "agent's hybrid recall fails on it too); `memharness-tui reembed` replaces "
                "damaged vectors")
        assert [f.id for f in s.recall("alpha").facts]  # keyword recall is untouched


def test_a_damaged_vector_of_another_length_is_passed_over_as_the_reference_does(
        tmp_path: Path, vec_loads: None) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, 10, dim=384)
    with Store.open(str(db), clock=FakeClock()) as s:
        assert sorted(f.id for f in s.recall("alpha", query_vector=QUERY).facts) == ids
        assert sorted(f.id for f in s.recall("", query_vector=QUERY).facts) == [ids[0], ids[2]]


@pytest.mark.parametrize("size", list(BLOBS))
def test_the_cli_says_so_in_one_line_and_exits_2(
        tmp_path: Path, vec_loads: None, size: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnxruntime")
    from tests.embed import tiny_model

    model = tiny_model.build(tmp_path / "model")  # 8 numbers a vector, as the stored ones
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(model))
    db = tmp_path / "m.db"
    ids = _store(db, BLOBS[size])
    code = main(["recall", "--db", str(db), "alpha"])
    out = capsys.readouterr()
    assert code == 2, out
    assert out.err == (f"memharness-tui: error: hybrid recall cannot run: the stored vector of "
                       f"#{ids[1]} is not {DIM} numbers as its embedding_dim says, and "
                       "sqlite-vec refuses the query (the agent's hybrid recall fails on it "
                       "too); `memharness-tui reembed` replaces damaged vectors\n")


def test_doctor_names_the_damaged_vectors(tmp_path: Path, vec_loads: None,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, 16 * 4)
    code = main(["doctor", "--db", str(db)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1 and lines[-1] == "result: FAILED"
    assert (f"  [fail] 1 stored vector(s) do not hold the {DIM} numbers their embedding_dim "
            f"says: #{ids[1]}; every hybrid recall with a query of that length fails on them, "
            "the agent's too") in lines


def test_reembed_counts_a_damaged_vector_as_lacking_one(tmp_path: Path, vec_loads: None) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, 10)
    with Store.open(str(db)) as s:
        assert [t.id for t in s.embed_targets(MODEL, 10)] == [ids[1]]
        assert s.count_embed_targets(MODEL) == 1
        assert s.damaged_vector_dims() == [DIM]
        s.set_embedding(ids[1], QUERY, MODEL)
        assert s.embed_targets(MODEL, 10) == [] and s.damaged_vector_dims() == []
        assert s.recall("alpha", query_vector=QUERY).facts


@pytest.mark.parametrize("size", list(BLOBS))
def test_similar_by_meaning_passes_a_damaged_vector_over(tmp_path: Path, vec_loads: None,
                                                         size: str) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, BLOBS[size])
    with Store.open(str(db)) as s:  # now: after the facts were remembered
        found = s.similar_by_meaning(ids[0], 5)
        assert found.has_vector and [n.id for n in found.items] == [ids[2]]
