"""Hybrid recall's parity fixture (issue #24): a store with vectors, a few hundred recalls with
query vectors, and the reference core's answers to them.

``build_store(path)`` writes the store (deterministic: seeded, a fake clock): 320 facts over
8 subjects and three kinds, revisions, retractions, two stale verdicts; most facts carry a
seeded unit vector of 24 numbers from the reference's model name, some another model's,
some a 12-number one, some none. ``queries()`` is the recall list: with and without text,
subject, kind, as_of, limit and max_tokens; text that breaks the FTS parse (a NUL: the
vector leg alone answers) and text no leg finds (the substring fallback).

Run by hand, once, to (re)write the fixture; the suite only reads what it wrote
(tests/store/test_hybrid_parity.py; CI has no node reference):

    .venv/bin/python bench/hybrid_parity.py --reference PATH/TO/core

``--reference`` names a built ``@memharness/core`` package folder; its answers come from
``bench/reference_recall.mjs`` (public API only), every recall in order on one copy of the
store with the reference's fake clock, so each sees the reinforcement of the ones before.
Writes ``tests/fixtures/hybrid_parity.db`` (the store as built) and
``tests/fixtures/hybrid_parity.json`` (clock, queries, answers).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from memharness_tui.store import FakeClock, Store  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures"
DB_NAME = "hybrid_parity.db"
ANSWERS_NAME = "hybrid_parity.json"
MODEL = "Xenova/bge-small-en-v1.5"
OTHER_MODEL = "other/model-v0"
DIM = 24
SHORT_DIM = 12
SEED = 2426
BUILD_CLOCK = ("2026-03-01T08:00:00.000Z", 60_000)  # a minute a timestamp: ages in days vary
RECALL_CLOCK_STEP = 1000
WORDS = ("cache", "deploy", "token", "schema", "latency", "review", "branch", "index",
         "vector", "budget", "retry", "queue", "lint", "render", "parser", "socket", "quota",
         "shard", "backup", "mirror", "kernel", "widget", "ledger", "planner")
SUBJECTS = tuple(f"proj:{name}" for name in ("atlas", "borealis", "cygnus", "draco", "eridanus",
                                              "fornax", "gemini", "hydra"))
KINDS = ("semantic", "episodic", "procedural")
CAMEL = {"query": "query", "subject": "subject", "as_of": "asOf", "limit": "limit",
         "max_tokens": "maxTokens", "kind": "kind", "query_vector": "queryVector"}


def unit(rng: random.Random, dim: int, centre: list[float] | None = None,
         spread: float = 1.0) -> list[float]:
    """A seeded unit vector (near ``centre`` when given), rounded to float32 and back."""
    import struct

    v = [rng.gauss(0.0, 1.0) * spread + (centre[i] if centre else 0.0) for i in range(dim)]
    n = math.sqrt(sum(x * x for x in v))
    v = [x / n for x in v]
    return list(struct.unpack(f"<{dim}f", struct.pack(f"<{dim}f", *v)))


def build_store(path: Path) -> dict[str, Any]:
    """Write the store; returns what ``queries`` needs (centres, instants, ids)."""
    rng = random.Random(SEED)
    centres = [unit(rng, DIM) for _ in range(6)]
    instants: list[str] = []
    with Store.open(str(path), clock=FakeClock(*BUILD_CLOCK)) as store:
        ids: list[int] = []
        live: list[int] = []
        for n in range(320):
            words = rng.sample(WORDS, rng.randint(3, 7))
            if n % 17 == 0:
                words.append("ornament")  # a word only the substring fallback can find as "rnam"
            fid, tx = store.remember(
                SUBJECTS[rng.randrange(len(SUBJECTS))], " ".join(words),
                predicate=rng.choice(("", "", "uses", "prefers", "decided")),
                confidence=round(rng.uniform(0.4, 1.0), 3),
                importance=rng.randint(1, 10), kind=KINDS[n % 3],
                source_ref=f"session-{n % 11}")
            ids.append(fid)
            live.append(fid)
            if n % 40 == 0:
                instants.append(tx)
            if n % 9 == 4 and len(live) > 1:
                old = live.pop(rng.randrange(len(live) - 1))
                _, new_id, _ = store.revise(old, " ".join(rng.sample(WORDS, 4)))
                ids.append(new_id)
                live.append(new_id)
            if n % 23 == 11:
                store.forget(fact_id=live.pop(rng.randrange(len(live))))
        store.set_staleness(ids[5], "stale", "2026-03-01T12:00:00.000Z", "deadbeef")
        store.set_staleness(ids[7], "unresolved", "2026-03-01T12:00:00.000Z", "deadbeef")
        every = [row[0] for row in store.conn.execute("SELECT id FROM facts ORDER BY id")]
        for fid in every:
            roll = rng.random()
            if roll < 0.10:
                continue  # no vector
            if roll < 0.16:
                store.set_embedding(fid, unit(rng, SHORT_DIM), MODEL)
            elif roll < 0.22:
                store.set_embedding(fid, unit(rng, DIM), OTHER_MODEL)
            else:
                store.set_embedding(fid, unit(rng, DIM, rng.choice(centres), 0.6), MODEL)
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        newest = store.conn.execute("SELECT MAX(tx_at) FROM facts").fetchone()[0]
    return {"centres": centres, "instants": instants, "newest": newest}


def queries(info: dict[str, Any]) -> list[dict[str, Any]]:
    """The recall list, in run order (snake_case keyword arguments of ``Store.recall``)."""
    rng = random.Random(SEED + 1)
    out: list[dict[str, Any]] = []
    for n in range(300):
        q: dict[str, Any] = {}
        shape = n % 10
        dim = SHORT_DIM if n % 13 == 0 else DIM
        if shape < 4:
            q["query"] = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
        elif shape == 4:
            q["query"] = rng.choice(WORDS) + " zzyzx"  # one word found, one not
        elif shape == 5:
            q["query"] = rng.choice(("rnam", "ornam", "ache dep", "dget"))  # FTS finds none
        elif shape == 6:
            q["query"] = rng.choice(WORDS) + "\u0000" + rng.choice(WORDS)  # FTS parse error
        elif shape == 7:
            q["query"] = "qqq" + rng.choice(WORDS)  # nothing anywhere
        # shapes 8, 9: no text (the vector leg alone)
        if shape == 5 and n % 20 == 5:
            dim = 7  # no stored vector has 7 numbers: both legs whiff, the substring answers
        if shape == 7 and n % 20 == 17:
            dim = 7
        centre = info["centres"][rng.randrange(len(info["centres"]))]
        q["query_vector"] = unit(rng, dim, centre[:dim] if dim <= DIM else None, 0.8) \
            if dim != 7 else unit(rng, dim)
        if n % 50 == 3:
            q["query_vector"] = []  # an empty vector: keyword-only, as without one
        if rng.random() < 0.3:
            q["subject"] = rng.choice(SUBJECTS)
        if rng.random() < 0.2:
            q["kind"] = rng.choice(KINDS)
        if rng.random() < 0.15:
            q["as_of"] = rng.choice(info["instants"])
        if rng.random() < 0.4:
            q["limit"] = rng.choice((1, 3, 5, 8, 20, 60))
        if rng.random() < 0.15:
            q["max_tokens"] = rng.choice((5, 12, 30, 80))
        out.append(q)
    return out


def reference_answers(core: Path, db: Path, qs: list[dict[str, Any]],
                      clock: dict[str, Any]) -> list[dict[str, Any]]:
    """The reference core's answer to each recall, in order, on ``db`` (which it changes)."""
    with tempfile.TemporaryDirectory(prefix="memharness-hybrid-") as tmp:
        job = Path(tmp) / "job.json"
        job.write_text(json.dumps({"core": str(core.resolve()), "db": str(db), "clock": clock,
                                   "queries": [{CAMEL[k]: v for k, v in q.items()}
                                               for q in qs]}))
        proc = subprocess.Popen(["node", str(BENCH / "reference_recall.mjs"), str(job)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        ready = proc.stdout.readline()
        if not ready.startswith("READY "):
            raise SystemExit(f"the reference did not start: {ready!r}")
        answers = []
        for i in range(len(qs)):
            proc.stdin.write(f"{i}\n")
            proc.stdin.flush()
            a = json.loads(proc.stdout.readline())
            answers.append({"ids": a["ids"], "scores": a["scores"], "fallback": a["fallback"]})
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(timeout=60)
    return answers


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", required=True, help="a built @memharness/core package folder")
    ap.add_argument("--out", default=str(FIXTURES), help="where to write the two files")
    args = ap.parse_args(argv)
    out = Path(args.out)
    with tempfile.TemporaryDirectory(prefix="memharness-hybrid-") as tmp:
        built = Path(tmp) / DB_NAME
        info = build_store(built)
        qs = queries(info)
        clock = {"start": info["newest"], "step": RECALL_CLOCK_STEP}
        work = Path(tmp) / "run.db"
        shutil.copyfile(built, work)
        answers = reference_answers(Path(args.reference), work, qs, clock)
        shutil.copyfile(built, out / DB_NAME)
    (out / ANSWERS_NAME).write_text(json.dumps(
        {"clock": clock, "queries": qs, "answers": answers}, indent=1) + "\n")
    hybrid = sum(1 for a in answers if not a["fallback"])
    print(f"wrote {out / DB_NAME} and {out / ANSWERS_NAME}: {len(qs)} recalls, "
          f"{len(qs) - hybrid} through the substring fallback")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
