"""The embedder: BGE-small through onnxruntime and ``tokenizers``, as transformers.js runs it.

The reference embeds with ``pipeline("feature-extraction", ...)(texts, {pooling: "mean",
normalize: true})``: the texts tokenized together (padded to the longest, truncated at the
tokenizer's ``model_max_length``), the model's ``last_hidden_state`` averaged over the real
tokens (attention mask), each vector divided by its L2 norm. Queries get BGE's instruction
prepended; stored documents do not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .files import (
    ONNX_FILE,
    TOKENIZER_CONFIG_FILE,
    TOKENIZER_FILE,
    ModelError,
    missing_files,
    model_name,
)

QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
DEFAULT_MAX_LENGTH = 512


def runtime_problem() -> str | None:
    """Why embeddings cannot run here (the ``hybrid`` extra missing), or None."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        return (f"the embedding runtime is not installed ({exc.name} is missing): "
                "pip install 'memharness-tui[hybrid]'")
    return None


def _max_length(folder: Path) -> int:
    try:
        config = json.loads((folder / TOKENIZER_CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return DEFAULT_MAX_LENGTH
    value = config.get("model_max_length") if isinstance(config, dict) else None
    # Tokenizers with no limit say so with a huge number; BERT's positions stop at 512.
    if isinstance(value, int) and 0 < value <= 1_000_000:
        return value
    return DEFAULT_MAX_LENGTH


class Embedder:
    """A loaded model: ``embed_documents`` for facts, ``embed_query`` for recall."""

    def __init__(self, folder: Path, *, name: str | None = None) -> None:
        problem = runtime_problem()
        if problem is not None:
            raise ModelError(problem)
        missing = missing_files(folder)
        if missing:
            raise ModelError(f"the model file {missing[0]} is missing from {folder}; run "
                             "`memharness-tui reembed` once to download it, or point "
                             "MEMHARNESS_TUI_MODEL_DIR at a folder that has it")
        import onnxruntime
        from tokenizers import Tokenizer

        self.name = name if name is not None else model_name(folder)
        """Stored with its vectors: from the folder's files (``files.model_name``)."""
        self.folder = folder
        try:
            tok = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        except Exception:
            raise ModelError(f"the tokenizer file {folder / TOKENIZER_FILE} could not be read "
                             "(it is damaged or not a tokenizer.json); delete it to download "
                             "it again") from None
        tok.enable_truncation(max_length=_max_length(folder))
        pad_id = tok.token_to_id("[PAD]")
        tok.enable_padding(pad_id=pad_id if pad_id is not None else 0,
                           pad_token="[PAD]")  # noqa: S106 (a token, not a secret)
        self._tokenizer = tok
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        try:
            self._session = onnxruntime.InferenceSession(
                str(folder / ONNX_FILE), sess_options=options,
                providers=["CPUExecutionProvider"])
        except Exception:
            raise ModelError(f"the model file {folder / ONNX_FILE} could not be loaded (it is "
                             "damaged or not an ONNX model); delete it to download it "
                             "again") from None
        self._inputs = [i.name for i in self._session.get_inputs()]
        outputs = [o.name for o in self._session.get_outputs()]
        self._output = "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]

    def _run(self, texts: Sequence[str]) -> list[list[float]]:
        import numpy as np

        if not texts:
            return []
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed: dict[str, Any] = {}
        for name in self._inputs:
            if name == "input_ids":
                feed[name] = ids
            elif name == "attention_mask":
                feed[name] = mask
            elif name == "token_type_ids":
                feed[name] = np.zeros_like(ids)
            else:
                raise ModelError(f"the model in {self.folder} wants an input {name!r} "
                                 "that a BERT-style embedder does not have")
        (hidden,) = self._session.run([self._output], feed)
        hidden = np.asarray(hidden, dtype=np.float64)
        weights = mask.astype(np.float64)[:, :, None]
        # Mean over the real tokens, kept as float32 (transformers.js's Float32Array), then
        # divided by its L2 norm.
        pooled = ((hidden * weights).sum(axis=1) / weights.sum(axis=1)).astype(np.float32)
        norms = np.sqrt((pooled.astype(np.float64) ** 2).sum(axis=1, keepdims=True))
        unit = (pooled / np.where(norms == 0, 1.0, norms)).astype(np.float32)
        return [row.tolist() for row in unit]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per stored fact text (``subject: predicate: fact``)."""
        return self._run(texts)

    def embed_query(self, text: str) -> list[float]:
        """The recall query's vector: BGE's instruction, then the query."""
        return self._run([QUERY_INSTRUCTION + text])[0]

    @property
    def dim(self) -> int:
        """The vector length this model gives."""
        return len(self._run(["dimension probe"])[0])
