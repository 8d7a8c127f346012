"""The app's query embedder (#24): latest query first (a superseded one is never embedded),
answers remembered, the model loaded once in the background with progress, a load failure
said in one line, and the real loader running the tiny ONNX model tests/embed builds."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from memharness_tui.tui.services.embedding import EmbeddingService
from memharness_tui.tui.services.vectors import VectorStatus

from .hybrid_helpers import FakeEmbedder, fake_service

READY = VectorStatus(vec_enabled=True, vec_problem=None, embedded=3)


async def loaded(service: EmbeddingService) -> None:
    service.start()
    await service.loaded()


async def test_nothing_loads_unless_hybrid_is_asked_for() -> None:
    calls = []
    service = EmbeddingService(requested=False, loader=lambda p: calls.append(p) or FakeEmbedder(),
                               problem=lambda: None)
    service.start()
    await asyncio.sleep(0.05)
    assert calls == [] and service.state == "idle" and service.mode(READY) is None
    assert await service.query_vector("text") is None


async def test_latest_query_wins_and_answers_are_remembered() -> None:
    embedder = FakeEmbedder()
    hold = threading.Event()
    original = embedder.embed_query

    def held(text: str) -> list[float]:
        hold.wait(5)
        return original(text)

    embedder.embed_query = held  # type: ignore[method-assign]
    service = fake_service(embedder)
    await loaded(service)
    first = asyncio.ensure_future(service.query_vector("a"))
    await asyncio.sleep(0.05)  # "a" is being embedded (held)
    second = asyncio.ensure_future(service.query_vector("ab"))
    third = asyncio.ensure_future(service.query_vector("abc"))
    hold.set()
    results = await asyncio.gather(first, second, third)
    assert embedder.queries == ["a", "abc"]  # "ab" was superseded before its turn
    assert results[1] is None and results[2] == embedder._one("abc")
    assert await service.query_vector("abc") == results[2]
    assert embedder.queries == ["a", "abc"]  # remembered, not embedded again


async def test_progress_is_told_and_the_mode_follows() -> None:
    seen: list[object] = []

    def loader(progress):  # noqa: ANN001, ANN202
        progress("model.onnx", 0, 100)
        progress("model.onnx", 50, 100)
        return FakeEmbedder()

    service = EmbeddingService(requested=True, loader=loader, problem=lambda: None)
    service.listen(lambda: seen.append((service.state, service.progress)))
    await loaded(service)
    await asyncio.sleep(0)
    assert ("loading", 0.5) in seen and seen[-1] == ("ready", None)
    assert service.mode(READY) == "hybrid"
    assert service.mode(VectorStatus(True, None, 0)) == "no-vectors"
    assert service.mode(VectorStatus(False, "off", 3)) == "no-vec"


async def test_a_failed_load_is_one_line_and_keyword_only() -> None:
    def loader(progress):  # noqa: ANN001, ANN202
        raise OSError("could not download model.onnx: connection refused")

    service = EmbeddingService(requested=True, loader=loader, problem=lambda: None)
    await loaded(service)
    assert service.state == "failed" and service.mode(READY) == "no-model"
    assert service.error == "could not download model.onnx: connection refused"
    missing = fake_service(problem="the embedding runtime is not installed")
    await loaded(missing)
    assert missing.mode(READY) == "no-model" and "runtime" in (missing.error or "")


async def test_the_real_loader_runs_the_tiny_onnx_model(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    from memharness_tui.embed import QUERY_INSTRUCTION, Embedder

    from ..embed import tiny_model

    folder = tiny_model.build(tmp_path / "tiny")
    service = EmbeddingService(requested=True, loader=lambda p: Embedder(folder))
    await loaded(service)
    vector = await service.query_vector("alpha beta")
    assert vector == pytest.approx(
        list(tiny_model.expected(QUERY_INSTRUCTION + "alpha beta")), abs=1e-5)
    assert await service.dim() == tiny_model.DIM
    docs = await service.embed_documents(["proj: uses: cache"])
    assert docs[0] == pytest.approx(list(tiny_model.expected("proj: uses: cache")), abs=1e-5)
    service.close()
