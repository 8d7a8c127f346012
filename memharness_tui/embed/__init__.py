"""Query and document embeddings for hybrid recall (the optional ``hybrid`` extra).

Outside the store on purpose: the store stays model-free (the reference's invariant I5) and
never imports onnxruntime. Importing this package touches neither the network nor the
model; ``load`` does, once, and only when asked.
"""

from __future__ import annotations

import os
from pathlib import Path

from .files import (
    DIM,
    DIR_ENV,
    FILES,
    MODEL_NAME,
    NAME_FILE,
    ModelError,
    Progress,
    download,
    missing_files,
    model_dir,
    model_name,
)
from .model import QUERY_INSTRUCTION, Embedder, runtime_problem

HYBRID_ENV = "MEMHARNESS_HYBRID"

__all__ = [
    "DIM",
    "FILES",
    "HYBRID_ENV",
    "MODEL_NAME",
    "NAME_FILE",
    "QUERY_INSTRUCTION",
    "Embedder",
    "ModelError",
    "Progress",
    "download",
    "hybrid_requested",
    "load",
    "missing_files",
    "model_dir",
    "model_name",
    "runtime_problem",
]


def hybrid_requested() -> bool:
    """``MEMHARNESS_HYBRID=1``, the server's own switch."""
    return os.environ.get(HYBRID_ENV) == "1"


def load(folder: Path | None = None, *, progress: Progress | None = None,
         base_url: str | None = None) -> Embedder:
    """The embedder, downloading its files into the cache folder first if they are not
    there. A folder named by ``MEMHARNESS_TUI_MODEL_DIR`` is used as it is (never filled)."""
    problem = runtime_problem()
    if problem is not None:
        raise ModelError(problem)
    chosen = folder if folder is not None else model_dir()
    if folder is None and os.environ.get(DIR_ENV):
        return Embedder(chosen)
    if missing_files(chosen):
        download(chosen, base_url=base_url, progress=progress)
    return Embedder(chosen)
