"""What the UI's services use of a Store, as a type: ``StoreProtocol``.

The gateway runs ``fn(store)`` on its DB thread and ``StoreService`` writes those ``fn``
against this protocol, so a type checker follows a query from the search box through
``StoreService.recall`` to ``Store.recall`` (``memharness_tui.store.store``) and its SQL.
``memharness_tui.store.Store`` satisfies it (a test in tests/tui checks
that it still does); tests may hand the gateway a smaller stand-in, which is why the
gateway looks up the optional members (``twin_opener``, ``split_scans``,
``interrupt_check``, ``check_file``) with ``getattr`` before using them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memharness_tui.store.embeddings_io import EmbedTarget, ModelShare
    from memharness_tui.store.neighbours import Neighbours
    from memharness_tui.store.types import (
        DiffResult,
        Fact,
        RecallResult,
        StoreCounts,
        SubjectSummary,
        WhyResult,
    )

__all__ = ["Interruptible", "StoreProtocol"]


class Interruptible(Protocol):
    """The part of a SQLite connection the gateway uses to stop a superseded search."""

    def set_progress_handler(self, handler: Callable[[], object] | None, n: int, /) -> None:
        ...

    def interrupt(self) -> None: ...


class StoreProtocol(Protocol):
    """The Store as the UI's services call it (one per DB thread)."""

    # ----- what is open ----------------------------------------------------------------
    @property
    def path(self) -> str: ...

    @property
    def readonly(self) -> bool: ...

    @property
    def schema_version(self) -> int: ...

    @property
    def is_new(self) -> bool: ...

    @property
    def migration_note(self) -> str | None: ...

    @property
    def on_disk(self) -> bool: ...

    @property
    def conn(self) -> Interruptible: ...

    def close(self) -> None: ...

    def check_file(self) -> None: ...

    def data_version(self) -> int: ...

    # ----- how it scans ------------------------------------------------------------------
    def twin_opener(self, pause: Callable[[], bool] | None = None
                    ) -> Callable[[], StoreProtocol] | None: ...

    def split_scans(self, parts: int | None = None, split_from: int = ...,
                    pause: Callable[[], bool] | None = None) -> None: ...

    @property
    def interrupt_check(self) -> Callable[[], bool] | None: ...

    @interrupt_check.setter
    def interrupt_check(self, check: Callable[[], bool] | None) -> None: ...

    # ----- reads -------------------------------------------------------------------------
    def recall(
        self,
        query: str = "",
        *,
        subject: str = "",
        kind: str | None = None,
        as_of: str | None = None,
        limit: int = 8,
        max_tokens: int | None = None,
        freshness: str | None = None,
        reinforce: bool = False,
        query_vector: Sequence[float] | None = None,
    ) -> RecallResult: ...

    def recall_first_screen(
        self,
        query: str = "",
        *,
        subject: str = "",
        kind: str | None = None,
        as_of: str | None = None,
        limit: int = 8,
        max_tokens: int | None = None,
        freshness: str | None = None,
        rows: int = ...,
    ) -> RecallResult: ...

    def counts(self) -> StoreCounts: ...

    def largest_id(self) -> int: ...

    def subjects(self, as_of: str | None = None) -> list[SubjectSummary]: ...

    def list_facts(
        self,
        subject: str | None = None,
        *,
        include_history: bool = False,
        as_of: str | None = None,
        freshness: str | None = None,
        ids: Iterable[int] | None = None,
        offset: int = 0,
        limit: int = 100,
    ) -> list[Fact]: ...

    def flagged(self, *, freshness: str | None = None, subject: str | None = None,
                limit: int | None = None) -> list[Fact]: ...

    def get(self, fact_id: int) -> Fact: ...

    def why(self, fact_id: int) -> WhyResult: ...

    def diff(self, since: str, subject: str | None = None) -> DiffResult: ...

    # ----- writes ------------------------------------------------------------------------
    def remember(
        self,
        subject: str,
        fact: str,
        *,
        predicate: str = "",
        confidence: float = 1.0,
        importance: int = 5,
        kind: str = "semantic",
        source_ref: str = "",
        source_agent: str = "",
        source_commit: str | None = None,
        source_path: str | None = None,
        valid_from: str | None = None,
        verdict: tuple[str, str] | None = None,
    ) -> tuple[int, str]: ...

    def revise(
        self,
        old_id: int,
        new_fact: str,
        *,
        confidence: float = 1.0,
        importance: int | None = None,
        kind: str | None = None,
        source_ref: str = "",
        source_agent: str = "",
        source_commit: str | None = None,
        source_path: str | None = None,
        valid_from: str | None = None,
        verdict: tuple[str, str] | None = None,
        belief_only: bool = False,
    ) -> tuple[int, int, str]: ...

    def forget(self, *, fact_id: int | None = None,
               source_ref: str | None = None) -> tuple[int, list[int]]: ...

    def downgrade(
        self,
        fact_id: int,
        factor: float = 0.5,
        *,
        source_agent: str,
        freshness: str | None = ...,
        checked_head: str | None = None,
        source_commit: str | None = ...,
        source_path: str | None = ...,
    ) -> tuple[int, int, str]: ...

    # vectors (hybrid recall, reembed, similar by meaning)
    def similar_by_meaning(self, fact_id: int, limit: int = 8) -> Neighbours: ...

    def count_embed_targets(self, model: str) -> int: ...

    def embed_targets(self, model: str, limit: int) -> list[EmbedTarget]: ...

    def set_embeddings(self, pairs: Sequence[tuple[int, Sequence[float]]], model: str) -> int: ...

    def model_mix(self) -> list[ModelShare]: ...


if TYPE_CHECKING:
    from memharness_tui.store import Store

    def _the_store_is_one(store: Store) -> StoreProtocol:
        """Checked by the type checker (./scripts/test): the real Store satisfies the protocol."""
        return store
