"""Recall latency on a 100k benchmark store (issue #2, SPEC §7).

Generates (``bench/seed.py``, cached) a store of 100,000 rows shaped like the reference
implementation's benchmark seed into a temporary folder, opens it with ``Store.open`` and times ``Store.recall`` for the reference
benchmark's four query shapes, ``--iterations`` each (default 1,000):

1. two-term keyword            ``recall("w1 w2")``
2. keyword + subject           ``recall("w1", subject=S)``
3. subject only                ``recall(subject=S)``
4. as_of + keyword             ``recall("w1", as_of=T)``

Terms and subjects are drawn (with a fixed random seed) from rows actually in
the seed, so every keyword query has matches. Prints p50/p95/p99 in ms per
shape and overall. The reference measured p95 3.4 ms overall on this machine.

Usage::

    .venv/bin/python bench/recall_bench.py [--iterations N] [--seed N] [--explain]

``--db FILE`` times your own store instead; ``MEMHARNESS_FIXTURES`` naming a folder that holds
the reference's ``bench100k.db.xz`` times that file (decompressed to a temp folder, only read).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import add_arguments, code_dir, emit, interleaved, print_table  # noqa: E402
from seed import seed_store  # noqa: E402

code_dir()  # this checkout, or the base commit's worktree in a comparison child
from memharness_tui.store import Store  # noqa: E402

try:  # where the recall lives (its own module since the store was split up)
    from memharness_tui.store.recall import _fts_phrases  # noqa: E402
except ImportError:
    from memharness_tui.store.store import _fts_phrases  # noqa: E402

REFERENCE_P95_MS = 3.4
SHAPES = ("two-term keyword", "keyword + subject", "subject only", "as_of + keyword")


def percentile(sorted_ms: list[float], p: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_ms:
        return float("nan")
    k = max(0, min(len(sorted_ms) - 1, int(-(-p * len(sorted_ms) // 100)) - 1))
    return sorted_ms[k]


class Workload:
    """Query inputs drawn from rows present in the seed."""

    def __init__(self, store: Store, rng: random.Random, n: int, subjects: str) -> None:
        conn = store.conn
        max_id = conn.execute("SELECT MAX(id) FROM facts").fetchone()[0]
        lo, hi = conn.execute("SELECT MIN(tx_at), MAX(tx_at) FROM facts").fetchone()
        self.rows: list[tuple[str, list[str], str]] = []
        while len(self.rows) < n:
            row = conn.execute(
                "SELECT subject, fact, tx_at FROM facts WHERE id = ?", (rng.randint(1, max_id),)
            ).fetchone()
            if row is None:
                continue
            words = [w for w in row[1].split() if w.isalnum()]
            if len(words) >= 2:
                self.rows.append((row[0], words, row[2]))
        if subjects == "uniform":
            # one subject per query drawn uniformly from the distinct subjects, with a
            # keyword from one of that subject's rows (rows-weighted is the default)
            names = [r[0] for r in conn.execute("SELECT DISTINCT subject FROM facts")]
            for i in range(n):
                subject = rng.choice(names)
                fact, tx = conn.execute(
                    "SELECT fact, tx_at FROM facts WHERE subject = ? ORDER BY random() LIMIT 1",
                    (subject,),
                ).fetchone()
                self.rows[i] = (subject, [w for w in fact.split() if w.isalnum()], tx)
        self.tx_range = (lo, hi)
        self.rng = rng

    def two_terms(self, i: int) -> dict[str, Any]:
        _, words, _ = self.rows[i]
        a, b = self.rng.sample(words, 2)
        return {"query": f"{a} {b}"}

    def keyword_subject(self, i: int) -> dict[str, Any]:
        subject, words, _ = self.rows[i]
        return {"query": self.rng.choice(words), "subject": subject}

    def subject_only(self, i: int) -> dict[str, Any]:
        return {"subject": self.rows[i][0]}

    def as_of_keyword(self, i: int) -> dict[str, Any]:
        _, words, tx = self.rows[i]
        # a moment between when this row was learned and the newest row
        lo, hi = tx, self.tx_range[1]
        as_of = lo if self.rng.random() < 0.5 else self.rng.choice([lo, hi])
        return {"query": self.rng.choice(words), "as_of": as_of}


def explain(store: Store, kwargs: dict[str, Any]) -> list[str]:
    """EXPLAIN QUERY PLAN of the statement recall would run first for these inputs."""
    from memharness_tui.store import sql

    filters = [sql.AS_OF_FILTER if kwargs.get("as_of") else sql.CURRENT_FILTER]
    params: dict[str, Any] = {
        "now": store.clock.peek(),
        "hl_semantic": 90.0,
        "hl_episodic": 30.0,
        "hl_procedural": 180.0,
        "importance_weight": 0.05,
        "importance_hl_weight": 0.15,
        "min_hl_factor": 0.05,
        "stale_weight": 0.5,
        "unresolved_weight": 0.85,
        "limit": 8,
        "rrf_k": 60.0,
        "cap": 256,
    }
    if kwargs.get("as_of"):
        params["as_of"] = kwargs["as_of"]
    if kwargs.get("subject"):
        filters.append(sql.SUBJECT_FILTER)
        params["subject"] = kwargs["subject"]
    query = kwargs.get("query", "")
    if query:
        params["match"] = " ".join(_fts_phrases(query))
    stmt = sql.recall_query(fts=bool(query), filters=filters)
    rows = store.conn.execute("EXPLAIN QUERY PLAN " + stmt, params).fetchall()
    return [f"  {r[0]:>3} {r[1]:>3}  {r[3]}" for r in rows]


def table(
    title: str,
    timings: dict[str, list[float]],
    empty: dict[str, int] | None,
    fallback: dict[str, int] | None,
) -> float:
    """Print p50/p95/p99 per shape and overall; return the overall p95."""
    print(f"\n{title}")
    print(f"{'shape':<20} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'mean':>8} {'max':>8}")
    everything: list[float] = []
    for shape in SHAPES:
        t = sorted(timings[shape])
        everything.extend(t)
        notes = ""
        if empty is not None and fallback is not None:
            notes = f"  {empty[shape]} empty, {fallback[shape]} LIKE fallback"
        print(
            f"{shape:<20} {percentile(t, 50):8.3f} {percentile(t, 95):8.3f} "
            f"{percentile(t, 99):8.3f} {statistics.fmean(t):8.3f} {t[-1]:8.3f}{notes}"
        )
    everything.sort()
    p95 = percentile(everything, 95)
    print(
        f"{'overall':<20} {percentile(everything, 50):8.3f} {p95:8.3f} "
        f"{percentile(everything, 99):8.3f} {statistics.fmean(everything):8.3f} "
        f"{everything[-1]:8.3f}"
    )
    return p95


def _metrics(wall: dict[str, list[float]], cpu: dict[str, list[float]],
             fallback_ms: list[float]) -> dict[str, float]:
    out: dict[str, float] = {}
    everything = sorted(v for shape in SHAPES for v in wall[shape])
    cpu_all = sorted(v for shape in SHAPES for v in cpu[shape])
    for p in (50, 95, 99):
        out[f"p{p}"] = percentile(everything, p)
        out[f"cpu_p{p}"] = percentile(cpu_all, p)
        for n, shape in enumerate(SHAPES):
            out[f"s{n}_p{p}"] = percentile(sorted(wall[shape]), p)
    return out


def tail_probes(store: Store, repeat: int = 15) -> dict[str, float]:
    """The issue's tail cases, median ms each: a term in every row, the empty query, LIKE."""
    cases = {
        "every_row": {"query": "subject"},  # every row's subject is ``subject:N``
        "empty": {"query": ""},  # scores every current row
        "like": {"query": "orenm"},  # inside words only: FTS finds nothing, LIKE runs
    }
    out: dict[str, float] = {}
    for name, kwargs in cases.items():
        store.recall(**kwargs)
        times, cpu = [], []
        for _ in range(repeat):
            c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
            store.recall(**kwargs)
            times.append((time.perf_counter_ns() - t0) / 1e6)
            cpu.append((time.thread_time_ns() - c0) / 1e6)
        out[f"tail_{name}"] = statistics.median(times)
        out[f"tail_{name}_cpu"] = statistics.median(cpu)
    return out


def run(
    store: Store, iterations: int, seed: int, show_plans: bool, subjects: str, pragmas: list[str],
    metrics: dict[str, float] | None = None,
) -> int:
    for pragma in pragmas:  # experiments only: the store's own pragmas are SPEC §2
        store.conn.execute(f"PRAGMA {pragma}")
    rng = random.Random(seed)
    work = Workload(store, rng, iterations, subjects)
    makers: dict[str, Callable[[int], dict[str, Any]]] = {
        SHAPES[0]: work.two_terms,
        SHAPES[1]: work.keyword_subject,
        SHAPES[2]: work.subject_only,
        SHAPES[3]: work.as_of_keyword,
    }
    inputs = {shape: [make(i) for i in range(iterations)] for shape, make in makers.items()}

    # warm the page cache and the statement cache
    for shape in SHAPES:
        for kwargs in inputs[shape][:50]:
            store.recall(**kwargs)

    wall: dict[str, list[float]] = {shape: [] for shape in SHAPES}
    cpu: dict[str, list[float]] = {shape: [] for shape in SHAPES}
    empty: dict[str, int] = dict.fromkeys(SHAPES, 0)
    fallback: dict[str, int] = dict.fromkeys(SHAPES, 0)
    fallback_ms: list[float] = []
    order = [(shape, i) for shape in SHAPES for i in range(iterations)]
    rng.shuffle(order)  # interleave shapes so none benefits from a warmer cache
    for shape, i in order:
        kwargs = inputs[shape][i]
        c0 = time.thread_time_ns()
        t0 = time.perf_counter_ns()
        result = store.recall(**kwargs)
        t1 = time.perf_counter_ns()
        c1 = time.thread_time_ns()
        wall[shape].append((t1 - t0) / 1e6)
        cpu[shape].append((c1 - c0) / 1e6)
        if not result.facts:
            empty[shape] += 1
        if result.used_fallback:
            fallback[shape] += 1
            fallback_ms.append(wall[shape][-1])

    if metrics is not None:
        metrics.update(_metrics(wall, cpu, fallback_ms))
        metrics.update(tail_probes(store))
        return 0
    print(f"recall benchmark: {store.path}")
    rows = store.conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
    print(
        f"rows {rows}, {iterations} iterations per shape, seed {seed}, subjects {subjects}"
        + (f", extra pragmas {pragmas}" if pragmas else "")
    )
    if hasattr(os, "getloadavg"):
        print("load average at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    p95 = table("wall-clock latency (what a caller waits)", wall, empty, fallback)
    table("CPU time of the calling thread (insensitive to other load)", cpu, None, None)
    if fallback_ms:
        fallback_ms.sort()
        print(
            f"\nLIKE-fallback queries: {len(fallback_ms)}, wall p50 "
            f"{percentile(fallback_ms, 50):.3f} p95 {percentile(fallback_ms, 95):.3f} ms"
        )
    verdict = "at or below" if p95 <= REFERENCE_P95_MS else "ABOVE"
    print(f"overall wall p95 {p95:.3f} ms is {verdict} the reference's {REFERENCE_P95_MS} ms")

    if show_plans:
        for shape in SHAPES:
            print(f"\nEXPLAIN QUERY PLAN — {shape}: {inputs[shape][0]}")
            print("\n".join(explain(store, inputs[shape][0])))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--facts", type=int, default=100_000,
                        help="100000: the reference seed; any other size: a generated one")
    parser.add_argument("--explain", action="store_true", help="print each shape's query plan")
    parser.add_argument("--db", help="an already decompressed copy of the seed (used as is)")
    parser.add_argument(
        "--subjects",
        choices=["rows", "uniform"],
        default="rows",
        help="draw subjects weighted by their rows (default) or uniformly over subjects",
    )
    parser.add_argument(
        "--pragma",
        action="append",
        default=[],
        help="extra PRAGMA for an experiment, e.g. --pragma mmap_size=268435456",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.child_json:
        job = json.loads(args.child_json)
        metrics: dict[str, float] = {}
        with Store.open(job["db"], readonly=True) as store:
            run(store, job["iterations"], job["seed"], False, job["subjects"], [], metrics)
        emit(metrics)
        return 0
    opts = (args.iterations, args.seed, args.explain, args.subjects, args.pragma)
    if args.explain or args.pragma:  # one detailed run of this checkout, no comparison
        if args.db:
            with Store.open(args.db) as store:
                return run(store, *opts)
        with tempfile.TemporaryDirectory(prefix="memharness-bench-") as tmp, \
                Store.open(str(seed_store(Path(tmp), args.facts))) as store:
            return run(store, *opts)
    with tempfile.TemporaryDirectory(prefix="memharness-bench-") as tmp:
        db = args.db or str(seed_store(Path(tmp), args.facts))
        Store.open(db).close()  # migrate (if ever needed) outside the timed children
        job = {"db": db, "iterations": args.iterations, "seed": args.seed,
               "subjects": args.subjects}
        sides, results = interleaved(Path(__file__), args, job)
    rows = [(f"overall wall p{p}", f"p{p}", "ms") for p in (50, 95, 99)]
    rows += [(f"overall CPU p{p}", f"cpu_p{p}", "ms") for p in (50, 95, 99)]
    for n, shape in enumerate(SHAPES):
        rows += [(f"{shape} p{p}", f"s{n}_p{p}", "ms") for p in (50, 95, 99)]
    rows += [("tail: a term in every row", "tail_every_row", "ms"),
             ("tail: empty query (every current row)", "tail_empty", "ms"),
             ("tail: LIKE fallback", "tail_like", "ms"),
             ("tail CPU: a term in every row", "tail_every_row_cpu", "ms"),
             ("tail CPU: empty query", "tail_empty_cpu", "ms"),
             ("tail CPU: LIKE fallback", "tail_like_cpu", "ms")]
    print_table(f"recall, {args.facts:,} facts, {args.iterations} queries per shape",
                sides, results, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
