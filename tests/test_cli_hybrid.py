"""``memharness-tui recall`` with MEMHARNESS_HYBRID=1 (issue #24): the query embedded as the
agent's server embeds it, the hybrid ranking; keyword-only, with the reason, otherwise."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.embed import Embedder
from memharness_tui.store import FakeClock, Store, vector_ext

from .embed import tiny_model


@pytest.fixture
def hybrid_db(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    model = tiny_model.build(tmp_path / "model")
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(model))
    monkeypatch.setenv("MEMHARNESS_HYBRID", "1")
    monkeypatch.delenv("MEMHARNESS_SQLITE_VEC", raising=False)
    db = tmp_path / "m.db"
    words = ["alpha beta", "gamma delta", "cache deploy", "token schema", "alpha token"]
    with Store.open(str(db), clock=FakeClock()) as s:
        for w in words:
            s.remember("proj", w)
        if not s.vec_enabled:
            pytest.skip(f"sqlite-vec cannot load here: {vector_ext.problem()}")
    assert main(["reembed", "--db", str(db)]) == 0
    return db, model


def _recall(db: Path, query: str, capsys) -> tuple[dict, str]:
    assert main(["recall", query, "--db", str(db), "--json", "--now",
                 "2026-02-01T00:00:00.000Z"]) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def test_recall_embeds_the_query_and_ranks_hybrid(hybrid_db, capsys) -> None:
    db, model = hybrid_db
    capsys.readouterr()
    got, err = _recall(db, "gamma", capsys)
    assert err == ""
    vector = Embedder(model).embed_query("gamma")
    clock = FakeClock("2026-02-01T00:00:00.000Z", 0)
    with Store.open(str(db), readonly=True, clock=clock, trust_clock=True) as s:
        want = s.recall("gamma", query_vector=vector)
        keyword = s.recall("gamma")
    assert got["ids"] == want.ids and got["scores"] == want.scores
    assert len(want.ids) > len(keyword.ids)  # the vector leg adds what the words miss


def test_without_the_runtime_recall_is_keyword_only_and_says_so(hybrid_db, monkeypatch,
                                                                capsys) -> None:
    db, _ = hybrid_db
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    got, err = _recall(db, "gamma", capsys)
    assert err.strip() == ("note: MEMHARNESS_HYBRID=1 but the embedding runtime is not "
                           "installed (onnxruntime is missing): pip install "
                           "'memharness-tui[hybrid]'; recall stays keyword-only")
    clock = FakeClock("2026-02-01T00:00:00.000Z", 0)
    with Store.open(str(db), readonly=True, clock=clock, trust_clock=True) as s:
        assert got["ids"] == s.recall("gamma").ids


def test_hybrid_off_means_keyword_recall_and_no_model(hybrid_db, monkeypatch, capsys) -> None:
    db, _ = hybrid_db
    capsys.readouterr()
    monkeypatch.delenv("MEMHARNESS_HYBRID")
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(db.parent / "no-model-here"))
    got, err = _recall(db, "gamma", capsys)
    assert err == ""
    clock = FakeClock("2026-02-01T00:00:00.000Z", 0)
    with Store.open(str(db), readonly=True, clock=clock, trust_clock=True) as s:
        assert got["ids"] == s.recall("gamma").ids
