"""Hybrid recall (the vector leg) next to the reference core, on the same file (issue #24).

The store: the reference's 100k seed (``seed.py``) with a seeded 384-number unit vector on 95 %
of its facts, stored as the reference stores them (float32, ``embedding_dim`` 384, the BGE
model's name). The queries: ``recall_bench``'s four shapes (two terms, keyword + subject,
subject only, as_of + keyword) plus vector-only recalls (no text), each with a query vector
near one fact's (a paraphrase's stand-in). Both sides run the agent's recall (reinforcing)
through ``reference_bench``'s children, interleaved with the order rotating per query, and
every answer is compared (ids, scores within 1e-9, used_fallback).

Then what the vector leg costs per query, on this side alone: the same queries with and
without their vector, interleaved in one process (read-only recall, a fixed clock), and the
vector CTE by itself (cosine over every stored vector of the query's length).

    MEMHARNESS_FIXTURES=PATH/TO/fixtures .venv/bin/python bench/hybrid_bench.py \\
        --reference PATH/TO/core --rounds 2
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import reference_bench as rb  # noqa: E402
from compare import Side, print_table  # noqa: E402
from recall_bench import SHAPES, Workload, percentile  # noqa: E402
from seed import seed_store  # noqa: E402

from memharness_tui.store import FakeClock, Store, hybrid  # noqa: E402

DIM = 384
MODEL = "Xenova/bge-small-en-v1.5"
COVERAGE = 0.95
GROUPS = (*SHAPES, "vector only")


def add_vectors(db: str, seed: int) -> None:
    """A seeded unit vector on ~95 % of the facts (one transaction)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    with Store.open(db) as store:
        ids = [r[0] for r in store.conn.execute("SELECT id FROM facts ORDER BY id")]
        chosen = [i for i, keep in zip(ids, rng.random(len(ids)) < COVERAGE, strict=True)
                  if keep]
        vectors = rng.standard_normal((len(chosen), DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        rows = [{"id": i, "embedding": v.astype("<f4").tobytes(), "dim": DIM, "model": MODEL}
                for i, v in zip(chosen, vectors, strict=True)]
        with store._write() as conn:  # a bench store: one transaction for 95k rows
            conn.executemany(hybrid.SET_EMBEDDING, rows)
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def near(db: str, fact_id: int, rng: random.Random) -> list[float]:
    """A unit vector near fact ``fact_id``'s (or a random one if it has none)."""
    import struct

    with Store.open(db, readonly=True) as store:
        row = store.conn.execute("SELECT embedding FROM facts WHERE id = ?", (fact_id,)).fetchone()
    base = list(struct.unpack(f"<{DIM}f", row[0])) if row and row[0] else [0.0] * DIM
    v = [b + rng.gauss(0, 0.03) for b in base]
    n = sum(x * x for x in v) ** 0.5
    return [x / n for x in v]


def workload(db: str, per_shape: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    with Store.open(db, readonly=True) as store:
        work = Workload(store, rng, per_shape, "rows")
        max_id = store.conn.execute("SELECT MAX(id) FROM facts").fetchone()[0]
        makers = (work.two_terms, work.keyword_subject, work.subject_only, work.as_of_keyword)
        items = [(shape, make(i)) for shape, make in zip(SHAPES, makers, strict=True)
                 for i in range(per_shape)]
    items += [("vector only", {}) for _ in range(per_shape)]
    for _, kw in items:
        kw["query_vector"] = near(db, rng.randint(1, max_id), rng)
    rng.shuffle(items)
    return items


def vector_leg_cost(db: str, items: list[tuple[str, dict[str, Any]]],
                    clock_start: str) -> dict[str, float]:
    """p50/p95 of recall with and without its vector (interleaved), and the vector CTE alone."""
    with_vec: list[float] = []
    without: list[float] = []
    cte: list[float] = []
    leg = ("SELECT count(*) FROM (SELECT id, row_number() OVER (ORDER BY "
           "vec_distance_cosine(embedding, :v)) AS r FROM facts WHERE embedding IS NOT NULL "
           "AND embedding_dim = :d ORDER BY vec_distance_cosine(embedding, :v) LIMIT 256)")
    with Store.open(db, readonly=True, clock=FakeClock(clock_start, 0),
                    trust_clock=True) as store:
        for n, (_, kw) in enumerate(items):
            plain = {k: v for k, v in kw.items() if k != "query_vector"}
            blob, dim = hybrid.to_blob(kw["query_vector"])
            steps = [("with", lambda kw=kw: store.recall(**kw)),
                     ("without", lambda plain=plain: store.recall(**plain)),
                     ("cte", lambda blob=blob, dim=dim: store.conn.execute(
                         leg, {"v": blob, "d": dim}).fetchone())]
            for name, call in steps[n % 3:] + steps[:n % 3]:
                t0 = time.perf_counter_ns()
                call()
                ms = (time.perf_counter_ns() - t0) / 1e6
                {"with": with_vec, "without": without, "cte": cte}[name].append(ms)
    out: dict[str, float] = {}
    for name, values in (("hybrid recall", with_vec), ("same, keyword only", without),
                         ("vector CTE alone", cte)):
        values.sort()
        for p in (50, 95):
            out[f"{name} p{p}"] = percentile(values, p)
    diffs = sorted(a - b for a, b in zip(with_vec, without, strict=True))
    out["median added by the vector"] = statistics.median(diffs)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", required=True, help="a built @memharness/core package folder")
    ap.add_argument("--per-shape", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2424)
    args = ap.parse_args(argv)
    if not (Path(args.reference) / "dist" / "index.js").exists():
        ap.error("--reference must name a built @memharness/core package folder")
    if shutil.which("node") is None:
        ap.error("node is not on PATH")
    rb.CAMEL["query_vector"] = "queryVector"
    sides = ["reference", "python"]
    runs: dict[str, list[list[dict[str, Any]]]] = {s: [] for s in sides}
    mismatches = 0
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memharness-hyb-")))
        db = str(seed_store(tmp, 100_000))
        t = time.perf_counter()
        add_vectors(db, args.seed)
        print(f"vectors: {DIM} numbers on {COVERAGE:.0%} of 100,000 facts in "
              f"{time.perf_counter() - t:.0f} s; file {os.path.getsize(db) / 1e6:.0f} MB")
        items = workload(db, args.per_shape, args.seed)
        queries = [kw for _, kw in items]
        with Store.open(db, readonly=True) as store:
            newest = store.conn.execute("SELECT MAX(tx_at) FROM facts").fetchone()[0]
            print(f"sqlite-vec loaded here: {store.vec_enabled}")
        clock = {"start": newest, "step": 1000}
        rb.WARMUP = min(rb.WARMUP, 20)
        for r in range(args.rounds):
            answers = rb.one_round(r, args, db, sides, queries, clock, tmp, None)
            for side in sides:
                runs[side].append(answers[side])
            mismatches += rb.check_parity(r, "python", queries, answers["reference"],
                                          answers["python"])
        cost = vector_leg_cost(db, items, newest)
    if hasattr(os, "getloadavg"):
        print("load average at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))

    def metrics(run: list[dict[str, Any]]) -> dict[str, float]:
        out: dict[str, float] = {}
        groups = {"overall": list(range(len(items)))}
        groups.update({g: [i for i, (gg, _) in enumerate(items) if gg == g] for g in GROUPS})
        for group, idx in groups.items():
            for kind in ("wall", "cpu"):
                values = sorted(run[i][kind] for i in idx)
                for p in (50, 95, 99):
                    out[f"{group} {kind} p{p}"] = percentile(values, p)
        return out

    results = {side: [metrics(run) for run in runs[side]] for side in sides}
    keys = list(results["reference"][0])
    print_table(f"hybrid recall, 100,000 facts × {DIM} numbers, {len(queries)} queries, next "
                "to the reference core", [Side(s, rb.REPO) for s in sides], results,
                [(k, k, "ms") for k in keys])
    print(f"\nparity over all rounds: {mismatches} mismatching answers")
    print("\nwhat the vector leg costs here (this side alone, read-only, same queries "
          "interleaved):")
    for k, v in cost.items():
        print(f"  {k:<32} {v:8.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
