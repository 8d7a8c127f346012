"""What to say about a store's vectors against the installed model: one sentence shared by
``memharness-tui reembed`` (cli_reembed.py) and the app's reembed modal (tui/services/vectors.py),
so neither imports the other. Text only: no model, no network."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..store.embeddings_io import ModelShare


class VectorMix(Protocol):
    """What :func:`model_note` reads: a Store, or the UI's typed view of one."""

    def model_mix(self) -> list[ModelShare]: ...


def model_note(store: VectorMix, model: str, dim: int) -> str | None:
    """What to know when the store's vectors come from another model than the installed one."""
    others = [m for m in store.model_mix() if m.model != model]
    odd = [m for m in store.model_mix() if m.model == model and m.dim != dim]
    parts = []
    if others:
        named = ", ".join(f"{m.count:,} from {m.model or 'no named model'} ({m.dim} numbers)"
                          for m in others)
        parts.append(f"the store has vectors from another model than the installed {model}: "
                     f"{named}; reembed replaces them")
    if odd:
        count = sum(m.count for m in odd)
        parts.append(f"{count:,} vectors named {model} have "
                     f"{'/'.join(str(m.dim) for m in odd)} numbers, not this model's {dim}; "
                     "they are kept, and recall's vector leg passes them over")
    return "note: " + "; ".join(parts) if parts else None
