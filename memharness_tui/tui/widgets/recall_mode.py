"""Which ranking the Recall tab's list is: the agent's hybrid recall (query embedded off the
UI thread) or keyword only, and why — one short label. Composed into ``RecallPane``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from memharness_tui.tui.services.embedding import MODE_LABELS

if TYPE_CHECKING:
    from memharness_tui.tui.app import MemharnessApp
    from memharness_tui.tui.services import RecallQuery
    from memharness_tui.tui.services.embedding import EmbeddingService
    from memharness_tui.tui.services.vectors import VectorService, VectorStatus


class RecallMode:
    """The store's vector status (read by the pane through ``VectorService``) and the
    app's embedder: the list's mode, its label, and the query vector to ask with."""

    def __init__(self) -> None:
        self.embedding: EmbeddingService | None = None  # the app's, given at mount
        self.vectors: VectorService | None = None
        self.status: VectorStatus | None = None
        self.shown_hybrid = False  # whether the list on screen was asked with query vectors
        self._on_change: Callable[[], None] = lambda: None
        self._reading: asyncio.Future[None] | None = None
        self._notify: Callable[..., None] = lambda *a, **k: None
        self._told: set[str] = set()

    def attach(self, app: MemharnessApp, on_change: Callable[[], None]) -> None:
        """Follow the app's embedder and the store; ``on_change()`` when the mode may have
        moved. When hybrid is asked for, the model starts loading in the background."""
        embedding = self.embedding = app.embedding
        self.vectors, self._on_change, self._notify = app.vectors, on_change, app.notify
        embedding.listen(self._embedding_changed)  # hybrid may also be turned on later
        if embedding.requested:
            self.read_status()
            embedding.start()  # downloaded first only if missing (the user asked for hybrid)

    def _embedding_changed(self) -> None:
        self.read_status()
        self._tell_once()
        self._on_change()

    def _tell_once(self) -> None:
        """A notice when the model starts downloading, and why hybrid cannot run (once each)."""
        embedding = self.embedding
        if embedding is None or not embedding.requested:
            return
        if embedding.progress is not None and "download" not in self._told:
            self._told.add("download")
            self._notify("Downloading the embedding model once, for hybrid recall; the list "
                         "stays keyword-only until it is loaded.", title="hybrid recall")
        if embedding.state == "failed" and "failed" not in self._told:
            self._told.add("failed")
            self._notify(f"Hybrid recall stays keyword-only: {embedding.error}",
                         title="hybrid recall", severity="warning", timeout=8)

    def read_status(self) -> None:
        """Read the store's vector status again if it matters (``needs_status``), on the DB
        thread; ``on_change`` when it is back."""
        if not self.needs_status() or self.vectors is None or (
                self._reading is not None and not self._reading.done()):
            return
        self._reading = asyncio.ensure_future(self._read(self.vectors))

    async def _read(self, vectors: VectorService) -> None:
        try:
            self.status = await vectors.status()
        except Exception:  # noqa: BLE001 - the store's own reads report a failing store
            return
        self._on_change()

    @property
    def requested(self) -> bool:
        return self.embedding is not None and self.embedding.requested

    def needs_status(self) -> bool:
        """Read (again) the store's vector status: hybrid is asked for and none is known,
        or the store had no vectors or damaged ones (a reembed or the agent may have written
        some, or replaced them)."""
        return self.requested and (self.status is None or not self.status.embedded
                                   or bool(self.status.damaged_dims))

    def mode(self) -> str | None:
        """A ``MODE_LABELS`` key, or None when hybrid was not asked for."""
        return None if self.embedding is None else self.embedding.mode(self.status)

    def runs(self) -> bool:
        """Hybrid recall can run now (the store can, the model is loaded)."""
        return self.mode() == "hybrid" and self.embedding is not None and self.embedding.ready

    def moved(self) -> bool:
        """Whether the list's kind of ranking changed since it was last shown (search again)."""
        runs = self.runs()
        changed, self.shown_hybrid = runs != self.shown_hybrid, runs
        return changed

    def label(self) -> str | None:
        """What the Recall tab says about its mode (one short label)."""
        mode = self.mode()
        if mode is None or self.embedding is None:
            return None
        if mode == "hybrid" and not self.embedding.ready:
            done = self.embedding.progress
            return "keyword only until the model loads" + (
                f" ({done:.0%})" if done is not None else "…")
        return MODE_LABELS[mode]

    async def with_vector(self, params: RecallQuery) -> RecallQuery:
        """``params`` with the query's embedding when hybrid recall can run (the agent's
        ranking), else as they are. The embedding runs off the UI thread."""
        if not self.runs() or not params.query or self.embedding is None:
            return params
        vector = await self.embedding.query_vector(params.query)
        return params if vector is None else replace(params, vector=tuple(vector))
