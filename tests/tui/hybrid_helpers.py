"""A tiny deterministic embedder for the app's hybrid tests, injected as the app's
``EmbeddingService`` is built (a loader and a runtime check), and helpers to give a store's
facts vectors from it."""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Sequence

from memharness_tui.store import Store
from memharness_tui.tui.services.embedding import EmbeddingService

DIM = 8
MODEL = "test/fake-embedder"


def _word_vector(word: str) -> list[float]:
    digest = hashlib.sha256(word.encode()).digest()
    return [(b - 127.5) / 127.5 for b in digest[:DIM]]


class FakeEmbedder:
    """Bag of words: each word's hashed vector summed, then normalised. ``gate``: when set,
    each ``embed_documents`` call takes one of its permits first (a test holds a batch)."""

    name = MODEL

    def __init__(self) -> None:
        self.gate: threading.Semaphore | None = None
        self.batches = 0
        self.queries: list[str] = []

    def _one(self, text: str) -> list[float]:
        acc = [0.0] * DIM
        for word in text.lower().replace(":", " ").split():
            for i, x in enumerate(_word_vector(word)):
                acc[i] += x
        norm = math.sqrt(sum(x * x for x in acc)) or 1.0
        return [x / norm for x in acc]

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return self._one(text)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if self.gate is not None:
            self.gate.acquire(timeout=10)
        self.batches += 1
        return [self._one(t) for t in texts]

    @property
    def dim(self) -> int:
        return DIM


def fake_service(embedder: FakeEmbedder | None = None, *, requested: bool = True,
                 problem: str | None = None) -> EmbeddingService:
    chosen = embedder or FakeEmbedder()
    return EmbeddingService(requested=requested, loader=lambda _progress: chosen,
                            problem=lambda: problem)


def embed_all(store: Store, embedder: FakeEmbedder, model: str = MODEL) -> int:
    """Every fact a vector of ``subject: predicate: fact`` (reembed's document text)."""
    targets = store.embed_targets(model, 10_000)
    vectors = embedder.embed_documents([t.document_text for t in targets])
    return store.set_embeddings([(t.id, v) for t, v in zip(targets, vectors, strict=True)],
                                model)
