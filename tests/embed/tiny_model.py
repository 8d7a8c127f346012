"""A tiny BERT-shaped model the tests build: an ONNX graph (``onnx.helper``) whose
``last_hidden_state`` is a lookup of each token's row in a seeded table, and a word-level
``tokenizer.json`` (``tokenizers``) with BERT's [CLS] … [SEP] framing. The loader runs it
exactly as it runs BGE's files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from memharness_tui.embed import QUERY_INSTRUCTION

DIM = 8
NAME = "memharness-tests/tiny-bert-8"
"""What ``build`` writes into the folder's name file (None there: the model is named by a hash)."""
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
WORDS = ["alpha", "beta", "gamma", "delta", "cache", "deploy", "token", "schema", "proj", "uses",
         "x", *QUERY_INSTRUCTION.lower().replace(":", " :").split()]


def vocab() -> dict[str, int]:
    out: dict[str, int] = {}
    for w in [*SPECIALS, *WORDS]:
        out.setdefault(w, len(out))
    return out


def table(seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(len(vocab()), DIM)).astype(np.float32)


def build(folder: Path, *, seed: int = 7, max_length: int = 512,
          name: str | None = NAME) -> Path:
    """Write tokenizer.json, tokenizer_config.json and onnx/model.onnx into ``folder``, and
    the model's name file (``name``; none when None)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    v = vocab()
    tok = Tokenizer(models.WordLevel(vocab=v, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.Punctuation()])
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", v["[CLS]"]), ("[SEP]", v["[SEP]"])])
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": max_length}))

    weights = numpy_helper.from_array(table(seed), name="table")
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["gathered"], axis=0),
        # token_type_ids and attention_mask are inputs BERT graphs have; they are read (cast
        # and multiplied by zero) so the runtime insists on being fed them.
        helper.make_node("Cast", ["token_type_ids"], ["tt"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["am"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["tt", "am"], ["ttam"]),
        helper.make_node("Constant", [], ["zero"], value_float=0.0),
        helper.make_node("Mul", ["ttam", "zero"], ["nothing"]),
        helper.make_node("Unsqueeze", ["nothing", "axes"], ["nothing3"]),
        helper.make_node("Add", ["gathered", "nothing3"], ["last_hidden_state"]),
    ]
    axes = numpy_helper.from_array(np.array([2], dtype=np.int64), name="axes")
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
            for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                        ["batch", "seq", DIM])
    graph = helper.make_graph(nodes, "tiny-bert", ints, [out], initializer=[weights, axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    (folder / "onnx").mkdir(exist_ok=True)
    onnx.save(model, str(folder / "onnx" / "model.onnx"))
    if name is not None:
        from memharness_tui.embed.files import NAME_FILE

        (folder / NAME_FILE).write_text(name + "\n", encoding="utf-8")
    return folder


def expected(text: str, seed: int = 7) -> np.ndarray:
    """What the loader must give for ``text``: the mean of its tokens' rows (with [CLS] and
    [SEP]), divided by its length — computed here without the loader."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    v = vocab()
    tok = Tokenizer(models.WordLevel(vocab=v, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.Punctuation()])
    ids = [v["[CLS]"], *tok.encode(text, add_special_tokens=False).ids, v["[SEP]"]]
    mean = table(seed)[ids].astype(np.float64).mean(axis=0)
    return mean / np.linalg.norm(mean)
