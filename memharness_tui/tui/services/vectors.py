"""The store's vector reads and writes the UI makes, through the one gateway (the DB thread):
whether hybrid recall can run here, similar-by-meaning, the agent server's write nudges, and
reembed's batches. No model here: the embedder is ``EmbeddingService``'s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memharness_tui.tui.services.gateway import StoreGateway

if TYPE_CHECKING:
    from memharness_tui.store.embeddings_io import EmbedTarget
    from memharness_tui.store.hygiene_similarity import SimilarFact
    from memharness_tui.store.neighbours import Neighbours

__all__ = ["Nudges", "VectorService", "VectorStatus"]

SIMILAR_LIMIT = 8
"""How many neighbours the detail screen and the revise modal list."""


@dataclass(frozen=True)
class VectorStatus:
    """What hybrid recall needs from the store: sqlite-vec loaded, and stored vectors."""

    vec_enabled: bool
    vec_problem: str | None
    embedded: int
    damaged_dims: frozenset[int] = frozenset()
    """Query lengths at which the agent's hybrid recall fails on a damaged stored vector."""


@dataclass(frozen=True)
class Nudges:
    """The agent server's ``Note: …`` for a fact being written (empty: nothing to say) and
    the facts it resembles, most similar first."""

    note: str = ""
    similar: list[SimilarFact] = field(default_factory=list)


def _status(s: Any) -> VectorStatus:
    from memharness_tui.store import vector_ext

    enabled = bool(s.vec_enabled)
    embedded = int(s.embedded_count())
    return VectorStatus(enabled, None if enabled else (vector_ext.problem() or
                                                       "sqlite-vec did not load"),
                        embedded, frozenset(s.damaged_vector_dims()) if embedded else frozenset())


class VectorService:
    """Typed vector calls on the DB thread (one instance per app, beside ``StoreService``)."""

    def __init__(self, gateway: StoreGateway) -> None:
        self._gw = gateway

    async def status(self) -> VectorStatus:
        return await self._gw.call(_status)

    async def similar(self, fact_id: int, limit: int = SIMILAR_LIMIT) -> Neighbours:
        """The current facts nearest ``fact_id`` by its stored vector (no model needed)."""
        return await self._gw.call(lambda s: s.similar_by_meaning(fact_id, limit))

    async def nudges(self, subject: str, text: str, *, pinned: bool,
                     exclude: int | None = None) -> Nudges:
        """What the agent's server would add after ``remember(subject, text)``: the CLI's
        ``remember`` note (hygiene core), the fact being rewritten (``exclude``) left out."""
        from memharness_tui.hygiene.nudges import REMEMBER_SIMILAR_LIMIT, remember_note

        if not subject.strip() or not text.strip():
            return Nudges()

        def read(s: Any) -> list[SimilarFact]:
            found = s.near_duplicates(subject, text, limit=REMEMBER_SIMILAR_LIMIT + 1)
            return [f for f in found if f.id != exclude][:REMEMBER_SIMILAR_LIMIT]

        similar = await self._gw.call(read)
        note = remember_note(subject, text, similar, pinned=pinned).strip()
        return Nudges(note, similar)

    # ----- reembed (the CLI's semantics: oldest first, one transaction per batch) ---------------
    async def embed_todo(self, model: str) -> int:
        return await self._gw.call(lambda s: int(s.count_embed_targets(model)))

    async def embed_targets(self, model: str, batch: int) -> list[EmbedTarget]:
        return await self._gw.call(lambda s: list(s.embed_targets(model, batch)))

    async def write_embeddings(self, pairs: list[tuple[int, list[float]]], model: str) -> int:
        """One batch, one transaction (all of it or none)."""
        return await self._gw.call(lambda s: int(s.set_embeddings(pairs, model)))

    async def model_note(self, model: str, dim: int) -> str | None:
        """The CLI's note when the store's vectors come from another model than ``model``."""
        from memharness_tui.embed.notes import model_note

        return await self._gw.call(lambda s: model_note(s, model, dim))
