"""The name stored with a model's vectors comes from the model's files: its folder's name
file, the cache folder only ``download`` fills (BGE's), else a hash of the files. Another model
(the tests' 8-number one) is never tagged as BGE, so ``doctor`` and ``reembed`` see the mix."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from memharness_tui import embed
from memharness_tui.cli import main
from memharness_tui.embed import Embedder, ModelError
from memharness_tui.embed.files import NAME_FILE, model_name
from memharness_tui.store import FakeClock, Store

from . import tiny_model

pytest.importorskip("onnxruntime")


@pytest.fixture
def unnamed(tmp_path: Path) -> Path:
    return tiny_model.build(tmp_path / "unnamed", name=None)


def test_a_model_without_a_name_file_is_named_by_a_hash_of_its_files(
        unnamed: Path, tmp_path: Path) -> None:
    name = Embedder(unnamed).name
    assert name.startswith("sha256:") and len(name) == len("sha256:") + 16
    assert name != embed.MODEL_NAME
    assert Embedder(unnamed).name == name  # the same files: the same name
    other = tiny_model.build(tmp_path / "other", seed=8, name=None)
    assert model_name(other) not in (name, embed.MODEL_NAME)  # other weights: another name


def test_a_name_file_names_the_model_and_a_bad_one_is_ignored(unnamed: Path) -> None:
    hashed = model_name(unnamed)
    (unnamed / NAME_FILE).write_text("acme/embedder-v2\n")
    assert Embedder(unnamed).name == "acme/embedder-v2"
    (unnamed / NAME_FILE).write_text("acme/\x1b[31mred\n")  # not plain text: not a name
    assert model_name(unnamed) == hashed
    (unnamed / NAME_FILE).unlink()
    (unnamed / NAME_FILE).mkdir()  # not a regular file: not read
    assert model_name(unnamed) == hashed


def test_reembed_with_another_model_never_writes_bges_name(
        unnamed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(unnamed))
    db = tmp_path / "m.db"
    with Store.open(str(db), clock=FakeClock()) as s:
        for i in range(3):
            s.remember("proj", f"alpha cache {i}")
    assert main(["reembed", "--db", str(db)]) == 0
    name = model_name(unnamed)
    assert capsys.readouterr().err.endswith(f"reembed done: 3 fact(s) embedded with {name}.\n")
    with Store.open(str(db), readonly=True) as s:
        models = {m.model for m in s.model_mix()}
        rows = s.conn.execute("SELECT embedding, embedding_dim FROM facts").fetchall()
    assert models == {name}
    assert all(len(struct.unpack(f"<{d}f", b)) == tiny_model.DIM for b, d in rows)
    assert main(["doctor", "--db", str(db)]) == 0
    vectors = [x for x in capsys.readouterr().out.splitlines() if "vectors:" in x]
    assert vectors and vectors[0].startswith("  [warn] vectors: 3 of 3 facts carry a vector")
    assert f"3 {name} (8 numbers)" in vectors[0]


def test_a_download_names_the_folder_and_a_failed_one_says_how_to_work_offline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import functools
    import http.server
    import threading

    served = tiny_model.build(tmp_path / "served", name=None)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        into = tmp_path / "fetched"
        embed.download(into, base_url=url)
        assert (into / NAME_FILE).read_text() == embed.MODEL_NAME + "\n"
        assert model_name(into) == embed.MODEL_NAME
        with pytest.raises(ModelError) as err:
            embed.download(tmp_path / "nothing", base_url=url + "nowhere/")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert str(err.value).endswith(
        "; to use a copy already on disk, set MEMHARNESS_TUI_MODEL_DIR to its folder")
    assert not (tmp_path / "nothing" / NAME_FILE).exists()


def test_the_cache_folder_download_fills_is_bges(tmp_path: Path) -> None:
    from memharness_tui.paths import cache_dir

    folder = tiny_model.build(cache_dir() / "models" / embed.MODEL_NAME, name=None)
    assert model_name(folder) == embed.MODEL_NAME
