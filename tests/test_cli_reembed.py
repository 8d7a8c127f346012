"""``memharness-tui reembed`` (issue #24): the reference's memharness-reembed on a tiny model
the tests build: the same work list, document text and model name, batches, progress lines,
Ctrl+C between batches, the other-model note."""

from __future__ import annotations

import functools
import http.server
import signal
import struct
import threading
from pathlib import Path

import numpy as np
import pytest

from memharness_tui import embed
from memharness_tui.cli import main
from memharness_tui.embed import Embedder
from memharness_tui.store import FakeClock, Store

from .embed import tiny_model

MODEL = tiny_model.NAME  # the name its folder's name file gives (never BGE's)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_model.build(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(autouse=True)
def _env(monkeypatch, model_dir: Path) -> None:
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(model_dir))
    monkeypatch.delenv("MEMHARNESS_HYBRID", raising=False)
    monkeypatch.delenv("MEMHARNESS_SQLITE_VEC", raising=False)


def _store(path: Path, n: int) -> list[int]:
    with Store.open(str(path), clock=FakeClock()) as s:
        return [s.remember(f"proj:{i % 3}", f"alpha cache {i}",
                           predicate="uses" if i % 2 else "")[0] for i in range(n)]


def _progress(err: str) -> list[str]:
    """stderr's lines but the warning where sqlite-vec cannot load (tested on its own)."""
    return [x for x in err.splitlines() if not x.startswith("warning: ")]


def _vectors(path: Path) -> dict[int, tuple[list[float], int, str]]:
    with Store.open(str(path), readonly=True) as s:
        rows = s.conn.execute("SELECT id, embedding, embedding_dim, embedding_model FROM facts "
                              "WHERE embedding IS NOT NULL").fetchall()
    return {i: (list(struct.unpack(f"<{d}f", b)), d, m) for i, b, d, m in rows}


def test_reembed_embeds_every_fact_as_the_reference_does(tmp_path: Path, model_dir: Path,
                                                         capsys) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, 5)
    assert main(["reembed", "--db", str(db), "--batch", "2"]) == 0
    err = _progress(capsys.readouterr().err)
    assert err == ["embedded 2 of 5 (2 facts now carry vectors)",
                   "embedded 4 of 5 (4 facts now carry vectors)",
                   "embedded 5 of 5 (5 facts now carry vectors)",
                   f"reembed done: 5 fact(s) embedded with {MODEL}."]
    stored = _vectors(db)
    assert sorted(stored) == ids
    texts = [f"proj:{i % 3}: uses: alpha cache {i}" if i % 2 else f"proj:{i % 3}: alpha cache {i}"
             for i in range(5)]
    want = Embedder(model_dir).embed_documents(texts)
    for fid, vector in zip(ids, want, strict=True):
        got, dim, model = stored[fid]
        assert (dim, model) == (tiny_model.DIM, MODEL)
        assert np.allclose(got, vector, atol=0)  # float32, as stored by the reference
    assert main(["reembed", "--db", str(db)]) == 0  # nothing left: nothing embedded
    assert _progress(capsys.readouterr().err) == [f"reembed done: 0 fact(s) embedded with {MODEL}."]


def test_another_models_vectors_are_noted_and_replaced(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    ids = _store(db, 3)
    with Store.open(str(db)) as s:
        s.set_embedding(ids[0], [1.0, 0.0], "other/model")
        s.set_embedding(ids[1], [1.0] * 5, MODEL)  # this model's name, another length: kept
    assert main(["reembed", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert ("note: the store has vectors from another model than the installed "
            f"{MODEL}: 1 from other/model (2 numbers); reembed replaces them") in err
    assert f"1 vectors named {MODEL} have 5 numbers, not this model's {tiny_model.DIM}" in err
    stored = _vectors(db)
    assert stored[ids[0]][1:] == (tiny_model.DIM, MODEL)
    assert stored[ids[1]][1] == 5


def _interrupt_on(monkeypatch, batches: dict[int, int]) -> None:
    """Ctrl+C (a real SIGINT) ``batches[n]`` times while batch ``n`` is being embedded."""
    real = Embedder.embed_documents
    seen = {"n": 0}

    def embed_documents(self, texts):
        seen["n"] += 1
        out = real(self, texts)
        for _ in range(batches.get(seen["n"], 0)):
            signal.raise_signal(signal.SIGINT)
        return out

    monkeypatch.setattr(Embedder, "embed_documents", embed_documents)


def test_ctrl_c_stops_after_the_batch_in_hand(tmp_path: Path, monkeypatch, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 10)
    _interrupt_on(monkeypatch, {2: 1})
    assert main(["reembed", "--db", str(db), "--batch", "3"]) == 130
    err = _progress(capsys.readouterr().err)
    assert err == ["embedded 3 of 10 (3 facts now carry vectors)",
                   "stopping after this batch (Ctrl+C again to stop now)…",
                   "embedded 6 of 10 (6 facts now carry vectors)",
                   f"reembed cancelled: 6 fact(s) embedded with {MODEL}; 4 still lack one "
                   "(run reembed again to continue)"]
    assert len(_vectors(db)) == 6
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_ctrl_c_stops_at_once_and_the_batch_is_not_half_written(
        tmp_path: Path, monkeypatch, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 10)
    _interrupt_on(monkeypatch, {2: 2})
    assert main(["reembed", "--db", str(db), "--batch", "3"]) == 130
    err = capsys.readouterr().err
    assert f"reembed cancelled: 3 fact(s) embedded with {MODEL}; 7 still lack one" in err
    assert len(_vectors(db)) == 3


def test_a_read_only_store_is_refused_before_anything(tmp_path: Path, monkeypatch,
                                                       capsys) -> None:
    from memharness_tui.store import db as store_db

    db = tmp_path / "m.db"
    _store(db, 2)
    # as the store finds a file it may not write (chmod is no obstacle to root, who runs CI)
    monkeypatch.setattr(store_db, "why_readonly", lambda path: "the file is read-only")
    monkeypatch.delenv("MEMHARNESS_TUI_MODEL_DIR")  # a download would be attempted: none is
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_URL", "http://127.0.0.1:9/")
    before = db.read_bytes()
    assert main(["reembed", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "is open read-only because the file is read-only; nothing was embedded" in err
    assert "downloading" not in err
    assert db.read_bytes() == before


def test_readonly_flag_is_refused(tmp_path: Path, capsys) -> None:
    db = tmp_path / "m.db"
    _store(db, 1)
    assert main(["--readonly", "reembed", "--db", str(db)]) == 2
    assert "--readonly cannot be combined with reembed" in capsys.readouterr().err
    assert _vectors(db) == {}


def test_without_the_runtime_one_line_and_nothing_written(tmp_path: Path, monkeypatch,
                                                          capsys) -> None:
    import sys

    db = tmp_path / "m.db"
    _store(db, 1)
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    assert main(["reembed", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("memharness-tui: error: reembed needs the embedding model: the embedding "
                   "runtime is not installed (tokenizers is missing): pip install "
                   "'memharness-tui[hybrid]'")
    assert _vectors(db) == {}


def test_first_use_downloads_the_model_a_line_per_file(tmp_path: Path, model_dir: Path,
                                                       monkeypatch, capsys) -> None:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(model_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.delenv("MEMHARNESS_TUI_MODEL_DIR")
        monkeypatch.setenv("MEMHARNESS_TUI_MODEL_URL",
                           f"http://127.0.0.1:{server.server_address[1]}/")
        db = tmp_path / "m.db"
        _store(db, 2)
        assert main(["reembed", "--db", str(db)]) == 0
    finally:
        server.shutdown()
        server.server_close()
    err = _progress(capsys.readouterr().err)
    sizes = {name: (model_dir / name).stat().st_size for name in embed.FILES}
    assert err[:3] == [f"downloading the embedding model's {name} ({sizes[name] / 1e3:.0f} kB)…"
                       for name in embed.FILES]
    assert len(_vectors(db)) == 2


def test_without_sqlite_vec_vectors_are_stored_with_a_warning(tmp_path: Path, monkeypatch,
                                                              capsys) -> None:
    """As the reference's reembed: it still stores them, and says recall here cannot use them."""
    monkeypatch.setenv("MEMHARNESS_SQLITE_VEC", "off")
    db = tmp_path / "m.db"
    _store(db, 2)
    assert main(["reembed", "--db", str(db)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("warning: MEMHARNESS_SQLITE_VEC turns sqlite-vec off; embeddings are "
                      "stored but recall here cannot query them")
    assert len(_vectors(db)) == 2
