"""The embedder run for real on a tiny model the test builds (issue #24): shapes, mean
pooling over the real tokens, normalisation, BGE's query prefix, the one-time download from
a local HTTP server, and missing or damaged files in one sentence."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memharness_tui import embed
from memharness_tui.embed import QUERY_INSTRUCTION, Embedder, ModelError

from . import tiny_model


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_model.build(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def embedder(model_dir: Path) -> Embedder:
    return Embedder(model_dir)


def test_one_unit_vector_per_text_of_the_models_width(embedder: Embedder) -> None:
    out = embedder.embed_documents(["alpha beta", "gamma", "proj: uses: cache deploy token"])
    assert [len(v) for v in out] == [tiny_model.DIM] * 3
    assert embedder.embed_documents([]) == []
    for v in out:
        assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-6


def test_mean_pooling_over_real_tokens_padding_changes_nothing(embedder: Embedder) -> None:
    """Each vector is the normalised mean of its tokens' rows ([CLS] and [SEP] included); in
    a batch the shorter text is padded, and the padding is left out of its mean."""
    texts = ["alpha", "alpha beta gamma delta cache deploy"]
    batch = embedder.embed_documents(texts)
    for text, got in zip(texts, batch, strict=True):
        assert np.allclose(got, tiny_model.expected(text), atol=1e-6)
        assert np.allclose(got, embedder.embed_documents([text])[0], atol=1e-6)


def test_the_query_gets_bges_instruction_documents_do_not(embedder: Embedder) -> None:
    q = embedder.embed_query("alpha")
    assert np.allclose(q, tiny_model.expected(QUERY_INSTRUCTION + "alpha"), atol=1e-6)
    assert np.allclose(q, embedder.embed_documents([QUERY_INSTRUCTION + "alpha"])[0], atol=1e-7)
    assert not np.allclose(q, embedder.embed_documents(["alpha"])[0], atol=1e-3)
    assert QUERY_INSTRUCTION == "Represent this sentence for searching relevant passages: "


def test_long_text_is_cut_at_the_tokenizers_max_length(tmp_path: Path) -> None:
    folder = tiny_model.build(tmp_path / "short", max_length=4)
    e = Embedder(folder)
    # [CLS] alpha beta [SEP]: the rest is cut, as transformers.js truncates
    assert np.allclose(e.embed_documents(["alpha beta gamma delta"])[0],
                       tiny_model.expected("alpha beta"), atol=1e-6)


def test_a_missing_model_file_is_one_sentence(model_dir: Path, tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    partial.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (partial / name).write_bytes((model_dir / name).read_bytes())
    with pytest.raises(ModelError) as err:
        Embedder(partial)
    message = str(err.value)
    assert message.startswith(f"the model file onnx/model.onnx is missing from {partial}")
    assert "\n" not in message and message.count(". ") == 0


@pytest.mark.parametrize("name", ["onnx/model.onnx", "tokenizer.json"])
def test_a_damaged_model_file_is_one_sentence(model_dir: Path, tmp_path: Path, name) -> None:
    broken = tmp_path / "broken"
    for rel in embed.FILES:
        (broken / rel).parent.mkdir(parents=True, exist_ok=True)
        (broken / rel).write_bytes((model_dir / rel).read_bytes())
    (broken / name).write_bytes((model_dir / name).read_bytes()[:200])  # cut short
    with pytest.raises(ModelError) as err:
        Embedder(broken)
    message = str(err.value)
    assert str(broken / name) in message and "could not be" in message
    assert "delete it to download it again" in message and "\n" not in message


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def file_server(model_dir: Path) -> Iterator[tuple[str, list[str]]]:
    """The model folder served on 127.0.0.1; yields its URL and the paths requested."""
    requested: list[str] = []

    class Handler(_Quiet):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            requested.append(self.path)
            super().do_GET()

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(model_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", requested
    finally:
        server.shutdown()
        server.server_close()


def test_first_use_downloads_each_file_once_into_the_cache(file_server, model_dir: Path,
                                                           tmp_path: Path, monkeypatch) -> None:
    url, requested = file_server
    monkeypatch.setenv("MEMHARNESS_TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MEMHARNESS_TUI_MODEL_DIR", raising=False)
    seen: list[tuple[str, int, int | None]] = []
    e = embed.load(base_url=url, progress=lambda f, done, total: seen.append((f, done, total)))
    target = tmp_path / "cache" / "models" / "Xenova" / "bge-small-en-v1.5"
    assert e.folder == target
    assert sorted(requested) == sorted("/" + f for f in embed.FILES)
    for name in embed.FILES:
        assert (target / name).read_bytes() == (model_dir / name).read_bytes()
        size = (model_dir / name).stat().st_size
        assert (name, 0, size) in seen and (name, size, size) in seen
    assert not list(target.rglob("*.part"))
    assert np.allclose(e.embed_query("alpha"),
                       tiny_model.expected(QUERY_INSTRUCTION + "alpha"), atol=1e-6)
    requested.clear()
    embed.load(base_url=url)  # the second use: nothing fetched
    assert requested == []


def test_a_failed_download_says_which_file_and_leaves_nothing(file_server, tmp_path: Path) -> None:
    url, _ = file_server
    with pytest.raises(ModelError) as err:
        embed.download(tmp_path / "m", base_url=url + "nowhere/")
    message = str(err.value)
    assert message.startswith(f"could not download tokenizer.json from {url}nowhere/tokenizer.json")
    assert "\n" not in message
    assert list((tmp_path / "m").rglob("*")) == []


def test_a_model_dir_is_used_as_it_is_never_filled(tmp_path: Path, monkeypatch,
                                                   file_server) -> None:
    url, requested = file_server
    monkeypatch.setenv("MEMHARNESS_TUI_MODEL_DIR", str(tmp_path / "copy"))
    (tmp_path / "copy").mkdir()
    with pytest.raises(ModelError, match="the model file tokenizer.json is missing from"):
        embed.load(base_url=url)
    assert requested == []
    assert embed.model_dir() == tmp_path / "copy"


def test_importing_the_package_loads_no_runtime_and_no_model() -> None:
    code = ("import sys, memharness_tui.embed as e; "
            "print(sorted(m for m in ('onnxruntime', 'tokenizers', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_without_the_runtime_the_reason_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # an import of it fails
    problem = embed.runtime_problem()
    assert problem is not None
    assert "pip install 'memharness-tui[hybrid]'" in problem
    with pytest.raises(ModelError, match="embedding runtime is not installed"):
        embed.load()


def test_the_store_stays_model_free() -> None:
    """Every store module imported: neither the embedding runtime nor this package comes
    along (the reference's invariant I5: the store's write path never touches a model)."""
    code = ("import pkgutil, importlib, sys, memharness_tui.store as s\n"
            "for m in pkgutil.iter_modules(s.__path__):\n"
            "    importlib.import_module('memharness_tui.store.' + m.name)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('onnxruntime', 'tokenizers') or m.startswith('memharness_tui.embed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
