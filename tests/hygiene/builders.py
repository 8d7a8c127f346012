"""Deterministic stores for the hygiene parity fixtures: built by our code under a fake clock,
read by the reference once (bench/hygiene_fixtures.py) and by the suite every run."""

from __future__ import annotations

import random
import struct
from pathlib import Path
from typing import Any

from memharness_tui.hygiene import apply, plan_merge, plan_refile, plan_split
from memharness_tui.store import FakeClock, Store

BUILD_START = "2026-01-01T00:00:00.000Z"
#: The clock every reading call starts from (after every row the builders write).
READ_CLOCK = {"start": "2026-03-01T00:00:00.000Z", "step": 1000}


def _set_embedding(store: Store, fid: int, vector: list[float], model: str = "test") -> None:
    blob = struct.pack(f"<{len(vector)}f", *vector)
    with store._write() as conn:  # noqa: SLF001 - tests attach vectors as the reference's backfill does
        conn.execute("UPDATE facts SET embedding = ?, embedding_dim = ?, embedding_model = ? "
                     "WHERE id = ?", (blob, len(vector), model, fid))


def _vec(rng: random.Random, dim: int) -> list[float]:
    return [rng.uniform(-1, 1) for _ in range(dim)]


def _near(rng: random.Random, v: list[float], noise: float) -> list[float]:
    return [x + rng.uniform(-noise, noise) for x in v]


# Texts for the near-duplicate parity store: (subject, fact). Paraphrases, stop words, the
# 3-character floor, case and punctuation, non-ASCII, an emoji, digits.
NEAR_DUP_FACTS: list[tuple[str, str]] = [
    ("user", "prefers no em-dashes in prose, use commas instead"),
    ("user", "prefers no em-dashes in product copy, use commas instead"),
    ("user", "likes green tea in the morning"),
    ("user", "Likes GREEN tea, every morning!"),
    ("user", "lives in Lisbon with two cats"),
    ("user", "is allergic to peanuts"),
    ("user", "the and for are was but not you all any"),  # all stop words: empty token set
    ("user", "ab cd ef gh"),  # all under three characters: empty token set
    ("user", "Café owner in Zürich since 2019 🎉"),
    ("project:tako", "Tako VM uses a register-based bytecode interpreter"),
    ("project:tako", "The Tako VM interpreter is register based, not stack based"),
    ("project:tako", "Tako's garbage collector is generational with two nurseries"),
    ("project:tako", "CI runs on GitHub Actions with a macOS and a Linux job"),
    ("project:tako", "CI runs on GitHub Actions: one Linux job and one macOS job"),
    ("project:tako", "release builds are signed with the team's GPG key"),
    ("project:memharness", "recall ranks by relevance times confidence times importance"),
    ("project:memharness", "recall ranking multiplies relevance, confidence and importance"),
    ("project:memharness", "stale pinned facts are demoted in recall ranking"),
]

# Queries: (subject, text, vector name or None). Vector names index VECTORS below.
NEAR_DUP_QUERIES: list[dict[str, Any]] = [
    {"subject": "user", "text": "prefers no em-dashes in prose; use commas instead"},
    {"subject": "user", "text": "likes green tea in the morning"},
    {"subject": "user", "text": "green tea"},
    {"subject": "user", "text": "LIKES green TEA"},
    {"subject": "user", "text": "the and for"},
    {"subject": "user", "text": "café owner in zürich since 2019"},
    {"subject": "user", "text": "owner since 2019 🎉 in Zürich, café"},
    {"subject": "user", "text": "prefers commas", "minSimilarity": 0.1, "limit": 10},
    {"subject": "project:tako", "text": "Tako VM: register-based bytecode interpreter"},
    {"subject": "project:tako", "text": "CI runs on GitHub Actions (Linux + macOS jobs)"},
    {"subject": "project:tako", "text": "the garbage collector is generational", "limit": 1},
    {"subject": "project:memharness", "text": "recall ranks by relevance x confidence x importance"},
    {"subject": "project:memharness", "text": "recall ranking", "minSimilarity": 0.2},
    {"subject": "nobody", "text": "anything at all"},
    {"subject": "  user  ", "text": "  likes green tea in the morning  "},
    # with vectors: paraphrases the tokens miss, a zero vector, another dimension
    {"subject": "project:vec", "text": "the cache is warmed at startup", "vector": "q_warm"},
    {"subject": "project:vec", "text": "nothing in common here", "vector": "q_far"},
    {"subject": "project:vec", "text": "zero vector query", "vector": "q_zero"},
    {"subject": "project:vec", "text": "the cache is warmed at startup", "vector": "q_dim8"},
    {"subject": "project:vec", "text": "the cache is warmed at startup"},
    # the 1,000-row cap: the match is row 1,003 of the subject
    {"subject": "project:big", "text": "needle fact number 1002 of the big subject"},
    {"subject": "project:big", "text": "filler fact number 7 of the big subject"},
]

VEC_FACTS: list[tuple[str, str]] = [
    ("project:vec", "startup pre-populates the cache"),      # paraphrase of q_warm (vector)
    ("project:vec", "cache warming happens when the service boots"),
    ("project:vec", "the cache is warmed at startup"),        # the same text
    ("project:vec", "logs rotate daily"),
    ("project:vec", "unrelated zero vector row"),            # zero vector
    ("project:vec", "eight dimensional row"),                # dimension 8
]


def vectors() -> dict[str, list[float]]:
    rng = random.Random(23)
    warm = _vec(rng, 4)
    return {
        "warm": warm,
        "q_warm": _near(rng, warm, 0.05),
        "boots": _near(rng, warm, 0.3),
        "same": _near(rng, warm, 0.2),
        "logs": _vec(rng, 4),
        "zero": [0.0, 0.0, 0.0, 0.0],
        "dim8": _vec(rng, 8),
        "q_far": [-x for x in warm],
        "q_zero": [0.0, 0.0, 0.0, 0.0],
        "q_dim8": _vec(rng, 8),
    }


VEC_OF_FACT = ["warm", "boots", "same", "logs", "zero", "dim8"]


def build_near_dup_store(path: Path) -> Store:
    """The store the near-duplicate parity queries read."""
    store = Store.open(str(path), clock=FakeClock(BUILD_START, step_ms=1000))
    for subject, fact in NEAR_DUP_FACTS:
        store.remember(subject, fact)
    vecs = vectors()
    for (subject, fact), name in zip(VEC_FACTS, VEC_OF_FACT, strict=True):
        fid, _ = store.remember(subject, fact)
        _set_embedding(store, fid, vecs[name])
    for k in range(1005):
        store.remember("project:big", f"filler fact number {k} of the big subject"
                       if k != 1002 else "needle fact number 1002 of the big subject")
    # history the reads must skip: a superseded and a retracted near-copy
    old, _ = store.remember("user", "likes green tea in the morning, usually")
    store.revise(old, "drinks coffee now")
    gone, _ = store.remember("user", "likes green tea in the morning too")
    store.forget(fact_id=gone)
    return store


def near_dup_calls() -> list[dict[str, Any]]:
    vecs = vectors()
    calls = []
    for q in NEAR_DUP_QUERIES:
        call: dict[str, Any] = {"op": "nearDuplicates", "subject": q["subject"], "text": q["text"]}
        if "vector" in q:
            call["queryVector"] = vecs[q["vector"]]
        for k in ("limit", "minSimilarity"):
            if k in q:
                call[k] = q[k]
        calls.append(call)
    return calls


# --- remember Note parity ------------------------------------------------------------------

CODE_MAP = (
    "The request path: src/server/router.ts dispatches to src/server/handlers/recall.ts, "
    "which calls packages/core/src/memory.ts and packages/core/src/sql.ts; results are "
    "formatted by packages/mcp/src/format.ts before they go back over stdio."
)
REMEMBER_SEQUENCES: dict[str, list[dict[str, str]]] = {
    "resembles": [
        {"subject": "user", "fact": "prefers no em-dashes in prose, use commas instead"},
        {"subject": "user", "fact": "prefers no em-dashes in product copy, use commas instead"},
        {"subject": "user", "fact": "prefers no em-dashes anywhere, use commas instead"},
        {"subject": "user", "fact": "prefers no em-dashes in prose, commas instead please"},
        {"subject": " user ", "fact": "prefers no em-dashes in prose, use commas"},
    ],
    "rounding": [  # Jaccard 5/8 = 0.625: toFixed(2) says 0.63 (Python's format says 0.62)
        {"subject": "s", "fact": "alpha bravo charlie delta echo foxtrot"},
        {"subject": "s", "fact": "alpha bravo charlie delta echo golf hotel"},
        {"subject": "s", "fact": "alpha bravo charlie delta echo foxtrot golf hotel"},
    ],
    "atomicity": [
        {"subject": "user", "fact": "X is las7 (id 123); the gh CLI is authenticated as las7 ok"},
        {"subject": "user", "fact": "a; b"},
        {"subject": "user", "fact": "short; but not sixty characters long at all"},
        {"subject": "user", "fact": ("The build uses pnpm. Tests run with vitest. Lint is biome. "
                                     "Releases are tagged by hand. ") * 3},
        {"subject": "user", "fact": "word " * 60},
        {"subject": "user", "fact": "One sentence. " + "x" * 300 + ". Two! Three?"},
        {"subject": "user", "fact": "ends with a dot.\n" + "y" * 330 + ".\nand again."},
        {"subject": "user", "fact": "🎉" * 141},  # 282 UTF-16 units, 141 code points
        {"subject": "user", "fact": "émoji " * 40 + ";"},
    ],
    "code_map": [
        {"subject": "project:x", "fact": CODE_MAP},
        {"subject": "project:x", "fact": CODE_MAP, "source_commit": "abc1234"},
        {"subject": "project:y", "fact": (
            "Symbols of note: store.recall.rank_facts, store.browse.list_facts, "
            "store.writes.fact_writes, tui.app.run_app and staleness.runner.run_pass are the "
            "entry points; each one is covered by its own test module in the tests folder.")},
        {"subject": "project:y", "fact": (
            "In src/app.ts the helper make_request_id and parse_header_value and "
            "build_response_body and the class loader is defined, with one long sentence "
            "that keeps going to get past the length threshold of the smell.")},
    ],
}


# --- the stores after each fix -------------------------------------------------------------

FIX_START = "2026-02-01T00:00:00.000Z"


def _base(path: Path) -> tuple[Store, dict[str, int]]:
    store = Store.open(str(path), clock=FakeClock(BUILD_START, step_ms=1000))
    ids: dict[str, int] = {}
    ids["tea1"], _ = store.remember("user", "likes green tea in the morning", source_ref="s1")
    old, _ = store.remember("user", "likes black tea in the morning", source_ref="s0")
    _, ids["tea2"], _ = store.revise(old, "Likes GREEN tea, every morning!", source_ref="s2")
    ids["tea3"], _ = store.remember("user", "likes green tea in the morning, hot",
                                    importance=7)
    ids["other"], _ = store.remember("user", "lives in Lisbon with two cats")
    ids["frag"], _ = store.remember("project:tako-vm", "the VM is register based",
                                    predicate="design", source_commit="abc1234",
                                    source_path="src/vm.rs")
    store.set_staleness(ids["frag"], "stale", "2026-01-02T00:00:00.000Z", "def5678")
    old, _ = store.remember("project:TakoVM", "CI runs on Travis")
    _, ids["frag2"], _ = store.revise(old, "CI runs on GitHub Actions")
    ids["canon"], _ = store.remember("project:takovm", "the GC is generational")
    ids["compound"], _ = store.remember(
        "project:takovm", "X is las7 (id 123); the gh CLI is authenticated as las7",
        source_ref="session-9")
    return store, ids


def build_fix_store(path: Path, fix: str) -> tuple[Store, dict[str, int]]:
    """The base store, then one fix (``merge``, ``refile`` or ``split``) at FIX_START."""
    store, ids = _base(path)
    store.clock = FakeClock(FIX_START, step_ms=1000)
    if fix == "merge":
        done = apply(store, plan_merge(store, [ids["tea1"], ids["tea2"], ids["tea3"]],
                                       "likes green tea every morning, hot"))
    elif fix == "refile":
        done = apply(store, plan_refile(store, [ids["frag"], ids["frag2"]], "project:takovm"))
    elif fix == "split":
        done = apply(store, plan_split(store, ids["compound"],
                                       ["X is las7 (id 123)", "the gh CLI is authenticated as las7"]))
    else:
        raise ValueError(fix)
    for k, new_id in enumerate(done.new_ids):
        ids[f"new{k}"] = new_id
    return store, ids


def fix_calls(fix: str, ids: dict[str, int]) -> list[dict[str, Any]]:
    """What the reference and we answer about the store after ``fix``."""
    subject = {"merge": "user", "refile": "project:takovm", "split": "project:takovm"}[fix]
    calls: list[dict[str, Any]] = [
        {"op": "recall", "args": {}},
        {"op": "recall", "args": {"subject": subject}},
        {"op": "recall", "args": {"query": {"merge": "green tea", "refile": "register CI",
                                            "split": "las7"}[fix]}},
        {"op": "recall", "args": {"subject": subject, "asOf": "2026-01-20T00:00:00.000Z"}},
        {"op": "diff", "args": {"since": "2026-01-31T00:00:00.000Z"}},
        {"op": "diff", "args": {"since": "2026-01-01T00:00:00.000Z", "subject": subject}},
    ]
    for name in sorted(ids):
        calls.append({"op": "why", "id": ids[name]})
    return calls
