"""The app's query embedder for hybrid recall, off the UI thread.

Nothing happens unless hybrid is asked for (``MEMHARNESS_HYBRID=1``, the server's switch, or
the ``hybrid`` setting). Then the model is loaded once, in the background — downloaded first
only when its files are missing (the user asked for hybrid) — with its progress told to
whoever listens. Queries are embedded on one thread of their own, latest first: a query
superseded before its turn is never embedded, and answers are remembered per text.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Protocol

__all__ = ["EmbedderLike", "EmbeddingService", "Loader", "MODE_LABELS", "embedding_for",
           "hybrid_requested"]

HYBRID_ENV = "MEMHARNESS_HYBRID"  # embed.HYBRID_ENV (not imported at start: it loads urllib)


def hybrid_requested(setting: bool) -> bool:
    """The server's switch (``MEMHARNESS_HYBRID=1``) or the app's ``hybrid`` setting."""
    import os

    return setting or os.environ.get(HYBRID_ENV) == "1"


class EmbedderLike(Protocol):
    name: str

    def embed_query(self, text: str) -> list[float]: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    @property
    def dim(self) -> int: ...


Loader = Callable[[Callable[[str, int, int | None], None]], EmbedderLike]
"""Builds the embedder (it may download first); given a progress callback (file, done, total)."""

MODE_LABELS = {
    "hybrid": "hybrid, as your agent",
    "no-vectors": "keyword only: no vectors in this store",
    "no-model": "keyword only: the model is not installed",
    "no-vec": "keyword only: sqlite-vec cannot load here",
    "damaged": "keyword only: damaged vectors fail your agent's hybrid recall "
               "(doctor names them; reembed replaces them)",
}
CACHE = 128  # query vectors remembered (a refresh after a write re-asks the same text)


def _default_loader(progress: Callable[[str, int, int | None], None]) -> EmbedderLike:
    from memharness_tui import embed

    return embed.load(progress=progress)


def _default_problem() -> str | None:
    """Why the model cannot be used here at all (its runtime is missing), or None."""
    from memharness_tui.embed import runtime_problem

    return runtime_problem()


class EmbeddingService:
    """One per app. ``requested``: hybrid was asked for. ``loader``/``problem``: how to build
    the embedder and why it cannot be (the real model by default; tests pass a small one)."""

    def __init__(self, *, requested: bool, loader: Loader | None = None,
                 problem: Callable[[], str | None] | None = None) -> None:
        self.requested = requested
        self._loader = loader or _default_loader
        self._problem = problem or _default_problem
        self.embedder: EmbedderLike | None = None
        self.model_dim: int | None = None  # the loaded model's vector length
        self.state = "idle"  # idle → loading → ready | failed
        self.error: str | None = None
        self.progress: float | None = None  # 0…1 while downloading (None: not known)
        self._listeners: list[Callable[[], None]] = []
        self._loading: asyncio.Future[Any] | None = None
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._latest: str | None = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, list[float]] = OrderedDict()

    # ----- state -----------------------------------------------------------------------
    def listen(self, callback: Callable[[], None]) -> None:
        """``callback()`` on the event loop whenever the state or progress changes."""
        self._listeners.append(callback)

    def _changed(self) -> None:
        for callback in list(self._listeners):
            callback()

    @property
    def ready(self) -> bool:
        return self.state == "ready" and self.embedder is not None

    def unavailable(self) -> str | None:
        """Why the model cannot run here (one sentence), or None (not known to fail)."""
        return self.error if self.state == "failed" else None

    def set_requested(self, setting: bool) -> None:
        """The ``hybrid`` setting changed: on (or the environment's switch) starts the load."""
        self.requested = hybrid_requested(setting)
        self.start()
        self._changed()

    def start(self, *, asked: bool = False) -> None:
        """Load the model in the background (once); a no-op unless hybrid was asked for
        (``asked``: an action that needs the model, such as reembed, asks for it now)."""
        if self._loading is not None and self.state != "failed":
            return
        if not (self.requested or asked):
            return
        self.state = "loading"
        self._changed()
        self._loading = asyncio.ensure_future(self._load())

    async def _load(self) -> None:
        loop = asyncio.get_running_loop()

        def progress(name: str, done: int, total: int | None) -> None:
            fraction = None if not total else min(1.0, done / total)
            loop.call_soon_threadsafe(self._set_progress, fraction)

        def load() -> tuple[EmbedderLike, int]:
            problem = self._problem()  # imports the runtime: off the UI thread too
            if problem is not None:
                raise RuntimeError(problem)
            embedder = self._loader(progress)
            return embedder, int(embedder.dim)  # a probe embedding, off the UI thread

        try:
            embedder, dim = await self._run(load)
        except Exception as exc:  # noqa: BLE001 - ModelError and any other load failure: one line
            self.state, self.error = "failed", str(exc) or type(exc).__name__
        else:
            self.embedder, self.model_dim, self.state = embedder, dim, "ready"
        self.progress = None
        self._changed()

    def _set_progress(self, fraction: float | None) -> None:
        self.progress = fraction
        self._changed()

    def _run(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        """``fn(*args)`` on the embedding thread (one, in order). A daemon thread: quitting
        never waits for a download or an embedding in hand."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def settle(ok: bool, value: Any) -> None:
            if not future.done():
                (future.set_result if ok else future.set_exception)(value)

        def job() -> None:
            try:
                result, ok = fn(*args), True
            except Exception as exc:  # noqa: BLE001 - handed to the awaiting coroutine
                result, ok = exc, False
            with contextlib.suppress(RuntimeError):  # the app's loop is gone: nobody waits
                loop.call_soon_threadsafe(settle, ok, result)

        self._jobs.put(job)
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="memharness-embed",
                                            daemon=True)
            self._thread.start()
        return future

    def _work(self) -> None:
        while True:
            self._jobs.get()()

    def close(self) -> None:
        if self._loading is not None:
            self._loading.cancel()

    # ----- queries ---------------------------------------------------------------------
    async def query_vector(self, text: str) -> list[float] | None:
        """``text``'s query embedding, or None (not ready, empty text, or superseded by a
        newer query before its turn). Never blocks the event loop."""
        if not self.ready or not text.strip():
            return None
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached
            self._latest = text
        return await self._run(self._embed_latest, text)

    def _embed_latest(self, text: str) -> list[float] | None:
        with self._lock:
            if text != self._latest and text not in self._cache:
                return None  # a newer keystroke came first: its caller is gone
            if text in self._cache:
                return self._cache[text]
        assert self.embedder is not None
        vector = self.embedder.embed_query(text)
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > CACHE:
                self._cache.popitem(last=False)
        return vector

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Document embeddings (reembed), on the embedding thread."""
        assert self.embedder is not None
        return await self._run(self.embedder.embed_documents, list(texts))

    async def dim(self) -> int:
        """The model's vector length (a probe embedding: on the embedding thread)."""
        assert self.embedder is not None
        embedder = self.embedder
        return await self._run(lambda: int(embedder.dim))

    async def loaded(self) -> EmbedderLike | None:
        """Start the load if needed and wait for it; the embedder, or None (see ``error``)."""
        if self.state in ("idle", "failed"):
            self.start(asked=True)
        if self._loading is not None:
            await asyncio.shield(self._loading)
        return self.embedder

    def mode(self, status: Any) -> str | None:
        """The Recall tab's one-word mode (a ``MODE_LABELS`` key), or None when hybrid is off.
        ``status``: the store's ``VectorStatus`` (None: not read yet)."""
        if not self.requested:
            return None
        if status is not None and not status.vec_enabled:
            return "no-vec"
        if self.unavailable() is not None:
            return "no-model"
        if status is not None and status.embedded == 0:
            return "no-vectors"
        if status is not None and self.model_dim in status.damaged_dims:
            return "damaged"  # the agent's recall of this model's length fails: say so
        return "hybrid"


def embedding_for(settings: Any) -> EmbeddingService:
    """The app's embedder: hybrid asked for by the environment or the ``hybrid`` setting."""
    return EmbeddingService(requested=hybrid_requested(bool(settings.hybrid)))
