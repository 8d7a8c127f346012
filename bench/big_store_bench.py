"""Benchmark the store calls behind the app's 1M-fact rows: header counts, tabs, a fact, a search.

    .venv/bin/python bench/big_store_bench.py [--facts 1000000] [--rounds 1] [--base REV]

Each child opens the store as the app does and times, wall and CPU (ms):

- ``store.counts`` (the header): the first call, a repeat with nothing changed (median of 5),
  and the first call after another connection committed one row (median of 3 commits);
- ``store.subjects`` (Subjects tab), first and repeated; ``store.diff`` (Changes tab) over the
  last 30 days of the store's own time, first and repeated; ``store.flagged`` (Staleness tab);
- ``store.why`` of 20 random facts (opening a fact), median and max;
- the opening empty-query recall (50 rows);
- a search queued behind a scan: a recall sent to the app's gateway while header counts are
  being recomputed (after a commit) — on the base code both share the one DB thread;
- peak RSS of the child.

Counts, subjects, changes and flagged run on the Store the app runs them on (its read-only
scan twin, where the code has one); ``why`` and the opening recall on the app's own Store
(its scanning searches split across the cores, where the code does that).

Prints numbers only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import add_arguments, code_dir, emit, interleaved, print_table  # noqa: E402
from seed import seed_store  # noqa: E402

CODE = code_dir()


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return 1000 * (time.perf_counter() - t), 1000 * (time.process_time() - c), out


def _commit_one(db: str, n: int) -> None:
    from memharness_tui.store import Store

    other = Store.open(db)
    other.remember("bench:writer", f"one more fact {n}")
    other.close()


async def _queued_search(db: str, query: str) -> float:
    """ms for a recall sent while header counts recompute (after a commit) on the gateway."""
    from memharness_tui.store import Store
    from memharness_tui.tui.services.gateway import StoreGateway

    gw = StoreGateway(lambda: Store.open(db))
    scan = getattr(gw, "call_scan", gw.call)  # the base code has one DB thread only
    try:
        await gw.call(lambda s: s.recall(query, limit=50))
        await scan(lambda s: s.counts())
        _commit_one(db, 9)
        counting = asyncio.ensure_future(scan(lambda s: s.counts()))
        await asyncio.sleep(0.02)  # the count is under way
        t = time.perf_counter()
        await gw.call(lambda s: s.recall(query, limit=50))
        ms = 1000 * (time.perf_counter() - t)
        await counting
        return ms
    finally:
        gw.close()


def _scanning_store(store: Any) -> Any:
    """The Store the app runs counts/subjects/changes/flagged on: its read-only scan twin
    (opened as ``tui/services/gateway.py`` opens it), or ``store`` itself on code without one."""
    try:
        from memharness_tui.tui.services.gateway import _scan_opener
    except ImportError:
        return store
    opener = _scan_opener(store)
    return store if opener is None else opener()


def child(job: dict) -> None:
    from memharness_tui.store import Store

    db = job["db"]
    out: dict[str, float] = {}
    main = Store.open(db)
    try:  # the app's DB thread splits its scanning searches across the cores
        from memharness_tui.tui.services.gateway import _split_searches
    except ImportError:
        pass
    else:
        _split_searches(main)
    s = _scanning_store(main)
    try:
        def put(name: str, fn: Callable[[], Any]) -> Any:
            wall, cpu, res = timed(fn)
            out[f"{name}_ms"], out[f"{name}_cpu"] = wall, cpu
            return res

        put("counts_first", s.counts)
        repeats = [timed(s.counts) for _ in range(5)]
        out["counts_repeat_ms"] = statistics.median(w for w, _, _ in repeats)
        after = []
        for n in range(3):
            _commit_one(db, n + 1)
            after.append(timed(s.counts))
        out["counts_after_commit_ms"] = statistics.median(w for w, _, _ in after)
        out["counts_after_commit_cpu"] = statistics.median(c for _, c, _ in after)
        put("subjects_first", s.subjects)
        put("subjects_repeat", s.subjects)
        newest = s.conn.execute("SELECT MAX(tx_at) FROM facts").fetchone()[0]
        since = (datetime.fromisoformat(newest.replace("Z", "+00:00"))
                 - timedelta(days=30)).strftime("%Y-%m-%d")
        put("diff_first", lambda: s.diff(since))
        put("diff_repeat", lambda: s.diff(since))
        put("flagged", lambda: s.flagged(limit=500))
        rng = random.Random(7)
        top = s.largest_id()
        whys = [timed(lambda: main.why(rng.randint(1, top)))[0] for _ in range(20)]
        out["why_p50_ms"], out["why_max_ms"] = statistics.median(whys), max(whys)
        put("recall_empty", lambda: main.recall("", limit=50))
    finally:
        if s is not main:
            s.close()
        main.close()
    out["queued_search_ms"] = asyncio.run(_queued_search(db, job["query"]))
    out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    emit(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=1_000_000)
    add_arguments(ap, rounds=1)
    args = ap.parse_args()
    if args.child_json:
        child(json.loads(args.child_json))
        return
    work = Path(tempfile.mkdtemp(prefix="big-store-bench-"))
    try:
        db = seed_store(work, args.facts)
        from memharness_tui.store import Store

        Store.open(str(db)).close()  # migrate (if ever needed) before anything is timed
        print(f"store: {args.facts:,} facts, {db.stat().st_size / 1e6:.0f} MB")
        probe = Store.open(str(db), readonly=True)
        word = probe.get(probe.largest_id() // 2).fact.split()[0]  # a word the store holds
        probe.close()
        sides, results = interleaved(Path(__file__), args, {"db": str(db), "query": word})
        rows = []
        for name, label in (("counts_first", "header counts, first"),
                            ("counts_after_commit", "header counts after a commit"),
                            ("subjects_first", "subjects (Subjects tab), first"),
                            ("subjects_repeat", "subjects, repeated"),
                            ("diff_first", "diff, 30 days (Changes tab), first"),
                            ("diff_repeat", "diff, repeated"),
                            ("flagged", "flagged (Staleness tab)"),
                            ("recall_empty", "opening recall (empty query)")):
            rows += [(label + ", wall", f"{name}_ms", "ms"), (label + ", CPU", f"{name}_cpu", "ms")]
        rows[2:2] = [("header counts, nothing changed (median of 5)", "counts_repeat_ms", "ms")]
        rows += [("open a fact: why, p50 of 20", "why_p50_ms", "ms"),
                 ("open a fact: why, max of 20", "why_max_ms", "ms"),
                 ("a search sent while counts recompute", "queued_search_ms", "ms"),
                 ("peak RSS", "maxrss_mb", "MB")]
        print_table(f"store calls on {args.facts:,} facts", sides, results, rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
