"""Hybrid recall on the command line: ``recall`` embeds its query as the agent's server does
when ``MEMHARNESS_HYBRID=1`` (and sqlite-vec, the runtime and the model are here); otherwise
it stays keyword-only and says why, once, on stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable

from .store import Store


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def download_lines() -> Callable[[str, int, int | None], None]:
    """A progress callback for the model's one-time download: one line per file."""
    def progress(name: str, done: int, total: int | None) -> None:
        if done == 0:
            size = ""
            if total:
                size = f" ({total / 1e6:.1f} MB)" if total >= 1e6 else f" ({total / 1e3:.0f} kB)"
            say(f"downloading the embedding model's {name}{size}…")
    return progress


def query_vector(store: Store, query: str) -> list[float] | None:
    """The query's embedding for hybrid recall, or None (keyword recall) with the reason said.
    Like the server: only when hybrid is requested and there is text to embed."""
    from . import embed

    if not embed.hybrid_requested() or query.strip() == "":
        return None
    if not store.vec_enabled:
        from .store import vector_ext

        say(f"note: MEMHARNESS_HYBRID=1 but sqlite-vec did not load here "
            f"({vector_ext.problem() or 'unknown reason'}); recall stays keyword-only")
        return None
    try:
        return embed.load(progress=download_lines()).embed_query(query)
    except embed.ModelError as exc:
        say(f"note: MEMHARNESS_HYBRID=1 but {exc}; recall stays keyword-only")
        return None
