"""The embedding columns: attach a vector (``set_embedding``), the reembed work list
(``embed_targets``), coverage and the model mix. A part of ``Store`` like ``writes.py``.

Vectors are computed out of band (``memharness-tui reembed``), never on the write path,
as the reference's ``setEmbedding`` / ``embedTargets`` are.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from . import hybrid
from .errors import InvalidInput, NotFound
from .rows import StorePart, _guarded
from .validation import check_id, check_positive_int, require_text


@dataclass(frozen=True, slots=True)
class EmbedTarget:
    """A fact lacking a vector from the model: what reembed embeds (as ``document_text``)."""

    id: int
    subject: str
    predicate: str
    fact: str

    @property
    def document_text(self) -> str:
        """``subject: predicate: fact`` with empty parts left out, as the reference's reembed."""
        return ": ".join(p for p in (self.subject, self.predicate, self.fact) if p)


@dataclass(frozen=True, slots=True)
class ModelShare:
    """How many facts carry a vector of ``dim`` numbers from ``model``."""

    model: str | None
    dim: int | None
    count: int


def check_vector(vector: object, label: str = "vector") -> list[float]:
    """A non-empty sequence of finite real numbers (one clear error otherwise)."""
    if isinstance(vector, str | bytes) or not isinstance(vector, Sequence | memoryview):
        try:
            vector = list(cast("Iterable[Any]", vector))  # numpy arrays, array.array
        except TypeError:
            raise InvalidInput(f"{label} must be a list of numbers, got {vector!r}") from None
    values: list[Any] = list(cast("Iterable[Any]", vector))
    if not values:
        raise InvalidInput(f"{label} must be non-empty")
    out: list[float] = []
    for i, v in enumerate(values):
        if isinstance(v, bool):
            raise InvalidInput(f"{label}[{i}] must be a number, got {v!r}")
        if not isinstance(v, int | float):
            try:
                v = float(v)  # numpy scalars
            except (TypeError, ValueError):
                raise InvalidInput(f"{label}[{i}] must be a number, got {v!r}") from None
        if not math.isfinite(v):
            raise InvalidInput(f"{label}[{i}] must be a finite number, got {v!r}")
        out.append(float(v))
    return out


class EmbeddingIO(StorePart):
    """``Store.set_embedding``, ``embed_targets`` and the counts around them."""

    @_guarded(writing=True)
    def set_embedding(self, fact_id: int, vector: Sequence[float], model: str) -> None:
        """Attach ``vector`` (stored as float32) from ``model`` to fact ``fact_id``,
        overwriting any earlier one. A fact that does not exist is refused (NotFound)."""
        fact_id = check_id(fact_id)
        values = check_vector(vector)
        name = require_text(model, "model")
        blob, dim = hybrid.to_blob(values)
        with self._write() as conn:
            cur = conn.execute(hybrid.SET_EMBEDDING,
                               {"id": fact_id, "embedding": blob, "dim": dim, "model": name})
            if cur.rowcount == 0:
                raise NotFound(f"no fact #{fact_id}; no vector was stored")

    @_guarded(writing=True)
    def set_embeddings(self, pairs: Sequence[tuple[int, Sequence[float]]], model: str) -> int:
        """``set_embedding`` for each (id, vector), in one transaction: all are stored or none
        (reembed's batch, so a stop between batches never leaves half of one). Ids that no
        longer exist are skipped; returns how many were stored."""
        name = require_text(model, "model")
        rows = []
        for fact_id, vector in pairs:
            blob, dim = hybrid.to_blob(check_vector(vector))
            rows.append({"id": check_id(fact_id), "embedding": blob, "dim": dim, "model": name})
        stored = 0
        with self._write() as conn:
            for row in rows:
                stored += conn.execute(hybrid.SET_EMBEDDING, row).rowcount
        return stored

    @_guarded(writing=False)
    def embed_targets(self, model: str, limit: int) -> list[EmbedTarget]:
        """Facts lacking a vector from ``model`` (none, or another model's), oldest first."""
        name = require_text(model, "model")
        limit = check_positive_int(limit, "limit")
        rows = self.conn.execute(hybrid.EMBED_TARGETS, {"model": name, "limit": limit})
        return [EmbedTarget(*row) for row in rows]

    @_guarded(writing=False)
    def count_embed_targets(self, model: str) -> int:
        """How many facts ``embed_targets`` would list in all."""
        name = require_text(model, "model")
        return int(self.conn.execute(hybrid.COUNT_EMBED_TARGETS, {"model": name}).fetchone()[0])

    @_guarded(writing=False)
    def embedded_count(self) -> int:
        """Facts that carry a vector (any model)."""
        return int(self.conn.execute(hybrid.COUNT_EMBEDDED).fetchone()[0])

    @_guarded(writing=False)
    def model_mix(self) -> list[ModelShare]:
        """The stored vectors by (model, dimension), most common first."""
        return [ModelShare(m, d, int(c)) for m, d, c in self.conn.execute(hybrid.MODEL_MIX)]

    @_guarded(writing=False)
    def damaged_vector_dims(self) -> list[int]:
        """The query lengths at which hybrid recall fails: dimensions that stored vectors
        claim (``embedding_dim``) but whose blob does not hold that many float32 numbers
        (sqlite-vec refuses the whole query, the agent's as well)."""
        return [int(d) for (d,) in self.conn.execute(hybrid.DAMAGED_DIMS)]
