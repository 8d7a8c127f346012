"""Precision and recall of the hygiene ``instructions`` kind on its labelled corpus
(tests/hygiene/instructions_corpus.json), and of the ``contradictions`` kind on its labelled
pairs when they exist. Prints numbers; asserts nothing.

    .venv/bin/python bench/instructions_bench.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from memharness_tui.hygiene.instructions import find_instructions  # noqa: E402


def _pr(tp: int, fp: int, fn: int) -> tuple[float, float]:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall


def instructions() -> None:
    facts = json.loads((REPO / "tests/hygiene/instructions_corpus.json").read_text("utf-8"))
    tp = fp = fn = 0
    t = time.perf_counter()
    for f in facts["facts"]:
        flagged = bool(find_instructions(f["fact"]))
        tp += flagged and f["orders"]
        fp += flagged and not f["orders"]
        fn += (not flagged) and f["orders"]
    took = time.perf_counter() - t
    p, r = _pr(tp, fp, fn)
    n = len(facts["facts"])
    print(f"instructions: {n} facts, precision {p:.2f}, recall {r:.2f} "
          f"(tp {tp}, fp {fp}, fn {fn}; {took * 1e6 / n:.0f} µs a fact)")


def contradictions() -> None:
    path = REPO / "tests/hygiene/contradictions_pairs.json"
    if not path.exists():
        return
    from memharness_tui.hygiene.contradictions import disagreement

    pairs = json.loads(path.read_text("utf-8"))["pairs"]
    tp = fp = fn = 0
    for pair in pairs:
        flagged = disagreement(pair["a"], pair["b"]) is not None
        tp += flagged and pair["contradicts"]
        fp += flagged and not pair["contradicts"]
        fn += (not flagged) and pair["contradicts"]
    p, r = _pr(tp, fp, fn)
    print(f"contradictions: {len(pairs)} pairs, precision {p:.2f}, recall {r:.2f} "
          f"(tp {tp}, fp {fp}, fn {fn})")


if __name__ == "__main__":
    instructions()
    contradictions()
